#!/usr/bin/env bash
# The second lease of 2026-11-26 (docs/PERFORMANCE.md, "Second GPU lease"):
# run_gpu_checks.sh invocations in order under one deadline, each one's
# results saved to $OUT/g.tgz as soon as it ends, so a lease cut short
# still returns what ran. CALL 1 and 2 are the two calls that lease made.
# Usage: source .gpu/env.sh; tests/bench/gpu/owed_2026-11-26.sh SECONDS 1|2
set -u
end=$((SECONDS + $1))
call=$2
s=tests/bench/gpu/run_gpu_checks.sh
g=/tmp/g
mkdir -p $g
save() { tar czf $OUT/g.part -C /tmp g && mv $OUT/g.part $OUT/g.tgz; }
# step NAME BUDGET ARGS...: one invocation, its budget cut to the deadline.
step() {
  local name=$1 b=$2 left=$((end - SECONDS)); shift 2
  (( left < 25 )) && { echo "### $name: no time left"; return; }
  (( b > left )) && b=$left
  echo; echo "### $name (budget $b s)"
  timeout $((b + 20)) $s --build .gpu --budget $b --out $g/$name "$@" > $g/$name.log 2>&1
  echo "exit $?"; sed -n '/^model /,$p' $g/$name.log | head -60
  save
}
if [[ $call == 1 ]]; then
step tests 220 --steps tests
grep -E "PASSED|FAILED|SKIPPED|tests ran|capability" $g/tests.log | head -20
step sanitize 120 --steps sanitize --sanitizers "racecheck synccheck"
step tx 80 --steps run --models "encoder decoder vit_tiny swin_tiny" --policies "sequential wavefront graphturbo" --eager no --repeat 50
step tx_attn 40 --steps run --models "encoder decoder vit_tiny swin_tiny" --policies "wavefront" --eager no --repeat 50 --rammer-args --fuse-attention=on
step owed 150 --steps "run metrics" --models "alexnet lstm_tc" --policies "ios graphturbo"
step metrics 90 --steps "run metrics" --models "nasnet_cifar seq2seq deepspeech2" --policies "wavefront"
step compile 120 --steps "run compile" --models "resnext29_cifar" --policies "wavefront" --eager no
else
step race2 50 --steps sanitize --sanitizers racecheck --policies sequential
step sync2 120 --steps sanitize --sanitizers synccheck
step tx2 40 --steps run --models "swin_tiny vit_tiny" --policies "wavefront" --eager no --repeat 50 --rammer-args --fuse-attention=on
step metrics2 150 --steps "run metrics" --models "lstm_tc seq2seq nasnet_cifar" --policies "" --eager no --repeat 50
step ds2 60 --steps run --models "deepspeech2" --policies "wavefront"
step compile2 120 --steps "run compile" --models "deepspeech2" --policies "" --eager no
fi
echo "lease done at $SECONDS s"
