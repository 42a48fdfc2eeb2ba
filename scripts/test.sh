#!/usr/bin/env bash
# Installs what Retune needs, builds it, and runs the whole test suite
# (GoogleTest units and end-to-end `ninja tune` runs) with ctest. The
# heavy variants labelled `long` run with: ctest --test-dir build -L long
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" --tests
"$root/scripts/build.sh"
ctest --test-dir "$root/build" --output-on-failure -j2 -LE long
