#!/usr/bin/env bash
# Installs the Debian 12 packages Retune needs, and the pinned Python
# packages (IREE 3.13, onnx) into .venv/ at the project root. Idempotent:
# installs only what is missing, and runs `apt-get update` only then.
# usage: setup.sh [--tests]   (--tests: also what only the tests use:
#                              Chromium for the report test, Slurm)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

packages=(
  cmake ninja-build g++ python3 python3-venv
  llvm-22-dev libmlir-22-dev mlir-22-tools liblld-22-dev libomp-22-dev
  libz3-dev libtomlplusplus-dev libfmt-dev libgtest-dev libxgboost-dev
  zlib1g-dev libzstd-dev libopenblas-dev
)
if [ "${1:-}" = --tests ]; then
  packages+=(chromium munge slurmctld slurmd slurm-client)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} Debian packages are installed"
else
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The pinned Python packages: a stamp holding the requirements it was made
# from makes a second run a no-op, and a changed pin reinstalls.
venv="$root/.venv"
requirements="$root/scripts/python-requirements.txt"
stamp="$venv/.retune-requirements"
if [ -x "$venv/bin/iree-compile" ] && cmp -s "$requirements" "$stamp"; then
  echo "setup: .venv has the pinned Python packages"
else
  echo "setup: installing the pinned Python packages into .venv/"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$stamp"
fi
