# Sourced by the benchmark scripts: bench_prepare NAME TARGET... configures
# $build when it has no build.ninja (Release, no GUI), builds the targets
# (unless SKIP_BUILD=1; JOBS ninja jobs, default 1), warns when $build is
# not a Release build, and prints the machine line. Needs $root and $build.
bench_prepare() {
  local name=$1
  shift
  if [ "${SKIP_BUILD:-0}" != 1 ]; then
    if [ ! -f "$build/build.ninja" ]; then
      cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRAMMER_BUILD_GUI=OFF
    fi
    ninja -C "$build" -j"${JOBS:-1}" "$@"
  fi
  local build_type
  build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt")
  if [ "$build_type" != "Release" ]; then
    echo "$name: warning: $build is a '$build_type' build; timings are meant for Release" >&2
  fi
  echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
}
