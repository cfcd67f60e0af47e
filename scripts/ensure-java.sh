#!/usr/bin/env bash
# DynamoDB Local (the store `npm start` and `npm test` run on) is a Java program and needs Java 17+.
# Run by `npm install` (postinstall): checks for it and, where it is missing and this is a Debian
# machine we are root on, installs openjdk-17-jre-headless. Otherwise it says what to do.
# Skipped when DYNAMODB_ENDPOINT points at an existing DynamoDB, or with SKIP_JAVA_CHECK=1.
set -u
[ "${SKIP_JAVA_CHECK:-}" = "1" ] && exit 0
[ -n "${DYNAMODB_ENDPOINT:-}" ] && exit 0

java_major() {
  command -v java >/dev/null 2>&1 || { echo 0; return; }
  java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1
}

major=$(java_major)
if [ "${major:-0}" -ge 17 ] 2>/dev/null; then
  exit 0
fi

echo "payments: DynamoDB Local needs Java 17 or newer (found: ${major:-none})."
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "payments: installing openjdk-17-jre-headless with apt-get..."
  if apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null; then
    echo "payments: Java installed: $(java -version 2>&1 | head -n 1)"
    exit 0
  fi
  echo "payments: apt-get could not install Java."
fi
echo "payments: install Java 17+ yourself (Debian/Ubuntu: sudo apt-get install openjdk-17-jre-headless),"
echo "          or set DYNAMODB_ENDPOINT to a DynamoDB you already run. npm start and npm test need one of them."
# Not fatal: the dependencies are installed; start and test say the same thing again if Java is still missing.
exit 0
