#!/usr/bin/env bash
# The browser tests (test/browser/) open the service's pages in headless Chromium: Debian's
# `chromium` package, driven by playwright-core, never a browser a test tool downloads (no network
# but the npm registry and Debian's packages here). Run by `npm install` (postinstall), after Java:
# checks for it and, where it is missing and this is a Debian machine we are root on, installs it.
# Otherwise it says what to do. CHROMIUM_PATH names another Chromium or Chrome; SKIP_CHROMIUM_CHECK=1
# skips this check (npm test still needs a browser: test/support/browser.ts says so by name).
set -u
[ "${SKIP_CHROMIUM_CHECK:-}" = "1" ] && exit 0

for candidate in "${CHROMIUM_PATH:-}" /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then
    exit 0
  fi
done

echo "payments: the browser tests need Chromium (none found at /usr/bin/chromium, or CHROMIUM_PATH)."
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "payments: installing Debian's chromium package with apt-get (about 100 MB)..."
  if { apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }; }; then
    echo "payments: Chromium installed: $(/usr/bin/chromium --version 2>/dev/null | head -n 1)"
    exit 0
  fi
  echo "payments: apt-get could not install Chromium."
fi
echo "payments: install Chromium yourself (Debian/Ubuntu: sudo apt-get install chromium), or set CHROMIUM_PATH"
echo "          to a Chromium or Chrome binary. npm test opens the service's pages in it."
# Not fatal: the dependencies are installed; the browser tests say the same thing if it is still missing.
exit 0
