#!/usr/bin/env bash
# Install everything wps needs on a fresh Debian machine: Chromium and fonts from apt, a virtual
# environment in .venv with wps and its extras. Safe to run again (skips what is already there).
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/lib/chromium/chromium ]; then
    echo "setup: installing chromium and fonts with apt-get" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-liberation >/dev/null
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
EXTRAS="${WPS_EXTRAS:-test,detect,noise,vision,warc,ray}"
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
log="$(mktemp)"
if ! .venv/bin/python -m pip install -q -e ".[${EXTRAS}]" >"$log" 2>&1; then
    cat "$log" >&2; echo "setup: pip install failed" >&2; exit 1
fi
rm -f "$log"
.venv/bin/python -c "import wps, playwright, shapely, trafilatura" \
    || { echo "setup: the wps installation is broken" >&2; exit 1; }
echo "setup: done (.venv ready, chromium at $(command -v chromium || echo /usr/lib/chromium/chromium))" >&2
