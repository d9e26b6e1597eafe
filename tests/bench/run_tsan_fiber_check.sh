#!/usr/bin/env bash
# Builds tests/bench/tsan_fiber_check.cpp with ThreadSanitizer and runs its
# modes: prints, per mode, whether TSan reported a race and the mode's line.
# Expected (GCC 12, Debian 12): reuse and annotate report, renew does not;
# maps bounded; memory about 0.8 MB per fiber (docs/RELIABILITY.md).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=$(mktemp -d)/tsan_fiber_check
"${CXX:-c++}" -std=c++20 -O1 -g -fsanitize=thread "$here/tsan_fiber_check.cpp" -o "$bin"
for mode in reuse renew annotate maps memory; do
  out=$("$bin" "$mode" 2>&1 || true)
  races=$(grep -c "WARNING: ThreadSanitizer: data race" <<< "$out" || true)
  echo "$mode: $races race report(s); $(grep -E "^(reuse|renew|annotate|maps|memory):" <<< "$out")"
done
