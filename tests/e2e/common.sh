# Shared by the end-to-end scripts: arguments, counters and checks.
# usage (sourced): . common.sh <tool dir> <scratch dir>
set -u
tools=$(cd "$1" && pwd)
work=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
retune=$tools/retune
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
expect_contains() { # <text> <needle> <what>
  if grep -qF -- "$2" <<<"$1"; then pass "$3"; else fail "$3: no '$2' in:"; echo "$1" | tail -20; fi
}
json_field() { # <file> <python expression on d>
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
