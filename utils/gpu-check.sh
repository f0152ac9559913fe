#!/bin/sh
# The GPU equivalence check, in two halves, because the compiler (which
# needs MLIR) and the GPU are often on different machines (a GPU node needs
# only the runtime: cmake -DDISTC_BUILD_COMPILER=OFF):
#
#   utils/gpu-check.sh prepare DIR     where distc is built: the artifacts
#                                      (MLP with Adam, transformer block with
#                                      momentum; 1 and 2 ranks; AllReduce and
#                                      Reduce, fused and not) and their data
#   utils/gpu-check.sh run DIR GPUS    where the GPUs are: GPUS=1 trains on
#                                      the CUDA backend and compares with the
#                                      CPU backend; GPUS=2 trains data
#                                      parallel on 2 GPUs (NCCL) and compares
#                                      with serial CPU training
#
# Every comparison prints "N steps: ... OK" (losses within 1e-5 relative)
# and "N variables: ... OK" (checkpoints), or MISMATCH and a non-zero exit.
# The lit tests e2e/cuda-backend.test and e2e/cuda-data-parallel.test run
# both halves. Tools come from PATH (or DISTC and DIST_RUN); Python with
# NumPy from PYTHON (default python3).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
inputs="$here/../test/e2e/Inputs"
mlir="$here/../test/e2e/mlp.mlir"
python="${PYTHON:-python3}"
distc="${DISTC:-distc}"
dist_run="${DIST_RUN:-dist-run}"

usage() {
  echo "usage: $0 prepare DIR | run DIR 1|2" >&2
  exit 2
}

prepare() {
  dir="$1"
  mkdir -p "$dir"
  "$python" "$inputs/trajectory.py" data "$dir"
  "$python" "$inputs/data_parallel.py" transformer "$dir/tf"
  mlp="$distc $mlir --loss loss --optimizer adam --lr 0.05"
  tf="$distc $dir/tf/main.json --startup $dir/tf/startup.json --loss mean_0.tmp_0"
  tf="$tf --optimizer momentum --lr 0.1 --momentum 0.9"
  $mlp -o "$dir/mlp1.distc"
  $mlp --nranks 2 -o "$dir/mlp-allreduce.distc"
  $mlp --nranks 2 --reduce-strategy reduce -o "$dir/mlp-reduce.distc"
  $mlp --nranks 2 --fuse-all-reduce -o "$dir/mlp-fused.distc"
  $mlp --nranks 2 --reduce-strategy reduce --fuse-all-reduce -o "$dir/mlp-reduce-fused.distc"
  $tf -o "$dir/tf1.distc"
  $tf --nranks 2 -o "$dir/tf-allreduce.distc"
}

# train NAME ARTIFACT KIND [dist-run flags]: KIND is mlp or tf.
train() {
  name="$1" artifact="$2" kind="$3"
  shift 3
  if [ "$kind" = mlp ]; then
    set -- --data "x=@$dir/x.npy" --data "label=@$dir/label.npy" --seed 3 \
      --init-from "$dir/params" --steps 10 "$@"
  else
    set -- --data "src_ids=@$dir/tf/src_ids.npy" --data "label=@$dir/tf/label.npy" --seed 1 \
      --steps 8 "$@"
  fi
  rm -rf "$dir/$name.jsonl" "$dir/$name.ckpt"
  "$dist_run" "$dir/$artifact" --mode train "$@" --metrics "$dir/$name.jsonl" \
    --checkpoint-dir "$dir/$name.ckpt" 2> "$dir/$name.err" > /dev/null || {
    cat "$dir/$name.err" >&2
    exit 1
  }
}

compare() {
  "$python" "$inputs/data_parallel.py" compare "$dir/$1.jsonl" "$dir/$2.jsonl" \
    --checkpoints "$dir/$1.ckpt" "$dir/$2.ckpt"
}

run() {
  dir="$1"
  gpus2="--backend cuda --nproc-per-node 2 --master-port 0 --rendezvous-timeout 60"
  train mlp-cpu mlp1.distc mlp --batch-size 4
  train tf-cpu tf1.distc tf --batch-size 8
  case "$2" in
  1)
    train mlp-cuda mlp1.distc mlp --batch-size 4 --backend cuda
    head -n 1 "$dir/mlp-cuda.err"
    compare mlp-cpu mlp-cuda
    train tf-cuda tf1.distc tf --batch-size 8 --backend cuda
    compare tf-cpu tf-cuda
    "$dist_run" "$dir/mlp1.distc" --mode eval --data "x=@$dir/x.npy" --data "label=@$dir/label.npy" \
      --init-from "$dir/mlp-cpu.ckpt" --batch-size 8 --metrics "$dir/eval-cpu.jsonl" > /dev/null 2>&1
    "$dist_run" "$dir/mlp1.distc" --mode eval --data "x=@$dir/x.npy" --data "label=@$dir/label.npy" \
      --init-from "$dir/mlp-cpu.ckpt" --batch-size 8 --metrics "$dir/eval-cuda.jsonl" \
      --backend cuda > /dev/null 2>&1
    "$python" "$inputs/data_parallel.py" same-metrics "$dir/eval-cpu.jsonl" "$dir/eval-cuda.jsonl"
    ;;
  2)
    for variant in allreduce reduce fused reduce-fused; do
      echo "== MLP, $variant, 2 GPUs"
      # shellcheck disable=SC2086
      train "mlp-$variant" "mlp-$variant.distc" mlp --batch-size 2 $gpus2
      compare mlp-cpu "mlp-$variant"
    done
    echo "== transformer, allreduce, 2 GPUs"
    # shellcheck disable=SC2086
    train tf-allreduce tf-allreduce.distc tf --batch-size 4 $gpus2
    compare tf-cpu tf-allreduce
    ;;
  *) usage ;;
  esac
}

[ $# -ge 2 ] || usage
case "$1" in
prepare) prepare "$2" ;;
run)
  [ $# -eq 3 ] || usage
  run "$2" "$3"
  ;;
*) usage ;;
esac
