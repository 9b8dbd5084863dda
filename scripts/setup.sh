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
# The torch extras (detect, vision) take about 7 GB in .venv (a CUDA build with its nvidia-* wheels) and as
# much again in downloads while pip installs them; on a machine with less free disk than that, install the
# rest and say so: their tests skip.
FULL_EXTRAS="test,detect,noise,vision,warc,ray,parquet,datatrove,fast"
LIGHT_EXTRAS="test,noise,warc,ray,parquet,datatrove,fast"
NEED_GB=12
if [ -n "${WPS_EXTRAS:-}" ]; then
    EXTRAS="$WPS_EXTRAS"
elif .venv/bin/python -c "import torch, torchvision" >/dev/null 2>&1; then
    EXTRAS="$FULL_EXTRAS"
else
    free_kb=$(df -Pk . "${TMPDIR:-/tmp}" | awk 'NR > 1 { print $4 }' | sort -n | head -1)
    if [ "$free_kb" -lt $((NEED_GB * 1024 * 1024)) ]; then
        echo "setup: only $((free_kb / 1024 / 1024)) GB free, the torch extras need about ${NEED_GB} GB:" \
             "installing [${LIGHT_EXTRAS}] (no detect, no vision; their tests skip); WPS_EXTRAS chooses" >&2
        EXTRAS="$LIGHT_EXTRAS"
    else
        EXTRAS="$FULL_EXTRAS"
    fi
fi
.venv/bin/python -m pip install -q --no-cache-dir --upgrade pip >/dev/null 2>&1 || true
log="$(mktemp)"
if ! .venv/bin/python -m pip install -q --no-cache-dir -e ".[${EXTRAS}]" >"$log" 2>&1; then
    cat "$log" >&2; echo "setup: pip install failed" >&2; exit 1
fi
rm -f "$log"
.venv/bin/python -c "import wps, playwright, shapely, trafilatura" \
    || { echo "setup: the wps installation is broken" >&2; exit 1; }
echo "setup: done (.venv ready, chromium at $(command -v chromium || echo /usr/lib/chromium/chromium))" >&2
