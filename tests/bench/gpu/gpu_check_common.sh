# Sourced by the GPU check scripts: shared steps.

# require_built FILE... : exit 2 naming the first FILE that is not built.
require_built() {
  local f
  for f in "$@"; do
    [[ -x $f ]] || { echo "missing $f: build it first (ninja -C BUILD_DIR $(basename "$f"))" >&2; exit 2; }
  done
}

# run_gpu_tests TITLE BINARY LOG [GREP [GTEST_ARG...]]: runs a GoogleTest
# binary, prints its tail (and the first line matching GREP), and returns 1
# when a test failed or when GPU tests skipped on a machine that should have
# a GPU.
run_gpu_tests() {
  local title=$1 binary=$2 log=$3 pattern=${4:-} rc bad=0
  shift $(( $# < 4 ? $# : 4 ))
  echo "== $title"
  "$binary" --gtest_brief=1 "$@" > "$log" 2>&1
  rc=$?
  tail -n 25 "$log"
  if [[ -n $pattern ]]; then grep -m1 "$pattern" "$log"; fi
  if [[ $rc -ne 0 ]]; then bad=1; fi
  if grep -q "skipped: no GPU" "$log"; then
    echo "FAIL: GPU tests skipped on a machine that should have a GPU" >&2
    bad=1
  fi
  return $bad
}
