#!/usr/bin/env bash
# Every ROCm candidate Retune emits for a corpus of small linalg models must
# compile with the real iree-compile (compile only; see rocm_corpus.py).
# usage: rocm_corpus.sh <tool dir> <source dir> <scratch dir> [case filter]
# Skips (exit 77) when the project's .venv has no iree-compile.
set -u
tools=$1 src=$2 work=$3
iree=$src/.venv/bin
if [ ! -x "$iree/iree-compile" ]; then
  echo "SKIP: no IREE at $iree/iree-compile (scripts/setup.sh installs it)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
exec python3 "$(dirname "$0")/rocm_corpus.py" "$tools" "$iree" "$work" "${4:-}"
