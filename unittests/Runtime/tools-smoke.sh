#!/bin/sh
# Smoke test of dist-run and distc-dump on the example classifier artifact:
# prints, exit codes and one-line errors. No Python or NumPy needed.
set -u
make_artifact=$1 dist_run=$2 dump=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }

"$make_artifact" ex.distc || fail "cannot write the example artifact"
"$dump" ex.distc > dump.txt || fail "distc-dump failed"
grep -q '^predict/trainer/main$' dump.txt || fail "dump lacks predict/trainer/main"
grep -q '%8 = matmul(%0, %2) {trans_a = 0, trans_b = 0}   // mul -> fc_0.tmp_0' dump.txt ||
  fail "dump lacks the matmul line"

grep -q '^training:$' dump.txt && fail "the example has no training table, yet one is printed"
"$make_artifact" --train=regression train.distc || fail "cannot write the training artifact"
"$dump" train.distc > train-dump.txt || fail "distc-dump failed on the training artifact"
grep -q '^train/trainer/main$' train-dump.txt || fail "dump lacks train/trainer/main"
for line in 'training:' '  loss: loss' '  optimizer: sgd' '  step_var: global_step' \
  "  schedule: (none; the rate is the variable's value)" \
  '  parameters: linear_0.w_0, linear_0.b_0' '  optimizer_state: learning_rate_0' \
  'inference:' '  program: 256 bytes' '  parameters: linear_0.b_0, linear_0.w_0'; do
  grep -qxF "$line" train-dump.txt || fail "dump lacks '$line'"
done

# A .npy feed written by hand: f32[2,4] of zeros (v1.0 header, 64-byte aligned).
header="{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }"
total=$(( (10 + ${#header} + 1 + 63) / 64 * 64 ))
len=$((total - 10))
pad=$((len - ${#header} - 1))
{
  printf '\223NUMPY\001\000'
  printf "$(printf '\\%03o\\%03o' $((len % 256)) $((len / 256)))"
  printf '%s%*s\n' "$header" "$pad" ""
  head -c 32 /dev/zero
} > x.npy

"$dist_run" ex.distc --mode predict --input x=@x.npy > out.txt || fail "predict run failed"
grep -q '^probs: f32\[2,3\]$' out.txt || fail "no probs header in: $(cat out.txt)"
"$dist_run" ex.distc --mode predict --input x=@x.npy --output probs=@p.npy || fail "--output failed"
"$dist_run" ex.distc --mode predict --input x=@x.npy --expected-output probs=@p.npy > cmp.txt ||
  fail "self comparison failed"
grep -q '^probs: OK$' cmp.txt || fail "no OK line"

"$dist_run" ex.distc --mode train --input x=@x.npy 2> err.txt && fail "unknown mode accepted"
grep -q "^dist-run: error: ex.distc: no mode 'train'; the artifact has: predict, eval$" err.txt ||
  fail "unexpected error: $(cat err.txt)"
"$dist_run" ex.distc --mode eval --input x=@x.npy 2> err.txt && fail "missing feed accepted"
grep -q "^dist-run: error: missing feed 'label' (expected i64\[?,1\])$" err.txt ||
  fail "unexpected error: $(cat err.txt)"
head -c 100 ex.distc > cut.distc
"$dump" cut.distc 2> err.txt && fail "truncated artifact accepted"
grep -q "^distc-dump: error: cut.distc: truncated" err.txt || fail "unexpected error: $(cat err.txt)"
echo "tools smoke test passed"
