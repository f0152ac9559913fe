#!/bin/sh
# Smoke test of `dist-run --mode train` and `--mode eval --data` on the
# hand-built training artifacts of distc-example-artifact --train: the
# summary line, metrics, checkpoints and a resumed run whose losses equal an
# uninterrupted run's, the Paddle files written at the end, and one-line
# errors. No Python or NumPy needed. With the digits data (optional fourth
# argument) a classifier must also reach 90% held-out accuracy.
set -u
make_artifact=$1 dist_run=$2 dir=$3 digits=${4:-}
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }

"$make_artifact" --train=classifier c.distc || fail "cannot write the classifier artifact"

# 120 rows: 4 features in [-1, 1) from a fixed LCG, and a class 0..2 from them.
awk 'BEGIN {
  s = 12345
  for (r = 0; r < 120; r++) {
    line = ""
    for (k = 0; k < 4; k++) {
      s = (s * 1103515245 + 12345) % 2147483648
      x[k] = s / 1073741824 - 1
      line = line sprintf("%.6f,", x[k])
    }
    label = x[0] > x[1] ? (x[2] > 0 ? 2 : 1) : 0
    print line label
  }
}' > data.csv
data="data.csv:x=0:4,label=4"
common="--data $data --holdout 0.2 --batch-size 8 --seed 3 --eval-every 10"

# Uninterrupted.
"$dist_run" c.distc --mode train $common --steps 30 --metrics full.jsonl \
  --save-persistables persist --save-inference-model inference/model > out.txt 2> progress.txt ||
  fail "training failed: $(cat progress.txt)"
grep -Eq '^trained 30 steps \(2\.5 epochs\) in [0-9.e-]+ s: loss [0-9.e-]+; eval_loss [0-9.e-]+ eval_acc [0-9.e-]+$' out.txt ||
  fail "unexpected summary: $(cat out.txt)"
grep -q '^step 30/30 epoch 2 loss ' progress.txt || fail "no final progress line: $(cat progress.txt)"
grep -q '^eval at step 10: eval_loss ' progress.txt || fail "no eval line: $(cat progress.txt)"
[ "$(wc -l < full.jsonl)" -eq 30 ] || fail "expected 30 metrics records"
[ -f persist/fc_0.w_0 ] && [ -f persist/global_step ] && [ -f persist/learning_rate_0 ] ||
  fail "persistables missing: $(ls persist)"
[ "$(wc -c < inference/model.pdmodel)" -eq 256 ] || fail "the .pdmodel is not the payload"
[ -s inference/model.pdiparams ] || fail "no .pdiparams"

# Interrupted at step 12 and resumed: the same losses and final evaluation.
"$dist_run" c.distc --mode train $common --steps 12 --metrics resumed.jsonl \
  --checkpoint-dir ckpt --save-every 5 > out1.txt 2> /dev/null || fail "first part failed"
[ "$(cat ckpt/latest)" = "step-12" ] || fail "latest is $(cat ckpt/latest)"
[ -f ckpt/step-10/checkpoint.json ] || fail "no checkpoint at step 10"
"$dist_run" c.distc --mode train $common --steps 30 --metrics resumed.jsonl \
  --checkpoint-dir ckpt --resume > out2.txt 2> /dev/null || fail "resumed part failed"
grep -Eq '^resumed at step 12, trained to step 30 \(2\.5 epochs\) in ' out2.txt ||
  fail "unexpected summary: $(cat out2.txt)"
losses() { grep -o '"step":[0-9]*,"epoch":[0-9]*,"loss":[^,]*' "$1"; }
losses full.jsonl > full-losses.txt
losses resumed.jsonl > resumed-losses.txt
cmp -s full-losses.txt resumed-losses.txt ||
  fail "resumed losses differ: $(diff full-losses.txt resumed-losses.txt | head -5)"
[ "$(sed 's/.* s: //' out.txt)" = "$(sed 's/.* s: //' out2.txt)" ] ||
  fail "final results differ: $(cat out.txt out2.txt)"

# Evaluating a dataset with the checkpoint's or the saved parameters.
"$dist_run" c.distc --mode eval --data "$data" --init-from ckpt > eval1.txt ||
  fail "eval from the checkpoint failed"
grep -Eq '^evaluated 120 rows in [0-9.e-]+ s: eval_loss [0-9.e-]+ eval_acc [0-9.e-]+$' eval1.txt ||
  fail "unexpected eval output: $(cat eval1.txt)"
"$dist_run" c.distc --mode eval --data "$data" --init-from persist > eval2.txt ||
  fail "eval from persistables failed"
[ "$(sed 's/.* s: //' eval1.txt)" = "$(sed 's/.* s: //' eval2.txt)" ] ||
  fail "the checkpoint and the persistables evaluate differently"

# Errors: one line, exit 1 (after the "loaded ..." report of data that loaded).
expect_error() {
  pattern=$1; shift
  "$dist_run" "$@" > /dev/null 2> stderr.txt && fail "accepted: $*"
  grep -v '^loaded [0-9]* rows' stderr.txt > err.txt
  [ "$(wc -l < err.txt)" -eq 1 ] || fail "not one line: $(cat err.txt)"
  grep -q "^dist-run: error: $pattern" err.txt || fail "unexpected error: $(cat err.txt)"
}
expect_error "column 'x' (from data.csv columns 0:3) does not fit feed 'x': rows have shape \[3\]" \
  c.distc --mode train --data "data.csv:x=0:3,label=4"
expect_error "--resume needs --checkpoint-dir DIR" c.distc --mode train --data "$data" --resume
[ "$(cat ckpt/latest)" = "step-30" ] || fail "latest is $(cat ckpt/latest) after the resumed run"
printf 'X' | dd of=ckpt/step-30/fc_1.b_0.npy bs=1 seek=130 conv=notrunc 2> /dev/null
expect_error "corrupt checkpoint file ckpt/step-30/fc_1.b_0.npy: CRC32 is " \
  c.distc --mode train $common --checkpoint-dir ckpt --resume --steps 40
expect_error "--input: not for --mode train" c.distc --mode train --data "$data" --input x=@x.npy
expect_error "--epochs: only for --mode train" c.distc --mode eval --data "$data" --epochs 2

if [ -n "$digits" ] && [ -f "$digits" ]; then
  "$make_artifact" --train=digits d.distc || fail "cannot write the digits artifact"
  "$dist_run" d.distc --mode train --data "$digits:x=0:64,label=64" --holdout 0.2 \
    --epochs 5 > digits.txt 2> /dev/null || fail "digits training failed"
  awk '{ for (i = 1; i < NF; i++) if ($i == "eval_acc") exit !($(i + 1) > 0.9); exit 1 }' \
    digits.txt || fail "digits: held-out accuracy below 0.9: $(cat digits.txt)"
fi
echo "train smoke test passed"
