#!/usr/bin/env bash
# The whole test suite (what CI runs after scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python -m pytest -q "$@"
