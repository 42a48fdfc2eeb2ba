# Shared helpers of the fake IREE tools (sourced; bash + coreutils + perl-base,
# all present on a fresh Debian 12).
fake_version=${FAKE_IREE_VERSION:-3.11.0}
fake_minor=$(echo "$fake_version" | cut -d. -f2 | sed 's/[^0-9].*//')

fake_print_version() {
  echo "IREE (https://iree.dev):"
  echo "  IREE compiler version $fake_version @ 0123456789abcdef0123456789abcdef01234567"
  echo "  LLVM version 22.0.0git"
  echo "  Optimized build"
}

# fake_unknown_flag <tool> <flag>: what LLVM's option parser prints.
fake_unknown_flag() {
  echo "$1: Unknown command line argument '$2'.  Try: '$1 --help'" >&2
  exit 1
}

# fake_markers <files...>: the `fake-iree:` words found in the files, one a line,
# plus the ones from FAKE_IREE_COMPILE / FAKE_IREE_BENCH.
fake_markers() {
  local f
  for f in "$@"; do
    [ -n "$f" ] && [ -f "$f" ] && grep -o 'fake-iree: *[a-z=0-9.-]*' "$f" | sed 's/fake-iree: *//'
  done
  [ -n "${FAKE_IREE_COMPILE:-}" ] && echo "compile-$FAKE_IREE_COMPILE"
  [ -n "${FAKE_IREE_BENCH:-}" ] && echo "bench-$FAKE_IREE_BENCH"
  return 0
}

# fake_strip: stdin -> stdout without lowering_config / translation_info /
# compilation_info / decomposition_config (like
# --iree-codegen-strip-compilation-info; root_op stays).
fake_strip() {
  perl -0pe '
    my $ang = qr{(?<ang><(?:[^<>]++|(?&ang))*>)};
    my $br = qr{(?<br>\{(?:[^{}]++|(?&br))*\})};
    my $key = qr{(?:lowering_config|translation_info|compilation_info)\s*=\s*#[\w.]+$ang|decomposition_config\s*=\s*$br};
    s/$key\s*,\s*//g;
    s/\s*,?\s*$key//g;
    s/\s*attributes\s*\{\s*\}//g;
    s/\s*attrs\s*=\s*\{\s*\}//g;
    s/\s*\} attributes \{\s*\}/}/g;
  '
}
