//===- KernelSignatures.cpp - The kernel vocabulary of an artifact --------===//
//
// Every kernel an artifact may call is declared here, once: its operands,
// its attributes with their types and defaults, and what it computes. The
// loader validates calls against these declarations, the runtime's kernels
// take their attribute defaults from them (KernelContext), the runtime's
// kernel registry is checked against them, and the kernel reference
// (docs/kernels.md) is printed from them by `distc-dump --kernel-reference`.
//
//===----------------------------------------------------------------------===//

#include "distc/Artifact/KernelSignatures.h"

#include "distc/Artifact/ElementwiseLoop.h"

#include <algorithm>
#include <ostream>

namespace distc::artifact {
namespace {

using T = AttrType;

AttrSignature req(const char *name, AttrType type) { return {name, type, true, nullptr}; }
AttrSignature opt(const char *name, AttrType type, const char *defaultValue) {
  return {name, type, false, defaultValue};
}

constexpr const char *kForward = "Forward";
constexpr const char *kTraining = "Training";
constexpr const char *kCollective = "Collective";

/// The declarations, by family. Operand lists name each operand; `name?` is
/// optional (may be -1), `names...` is any number of at least one.
std::vector<KernelSignature> declareKernels() {
  // One declaration per block reads as a table; clang-format would put
  // every field on a line of its own.
  // clang-format off
  return {
      // --- Forward ----------------------------------------------------------
      {"fill", kForward, "", "out", {req("value", T::Float)},
       "every element = value, converted to out's dtype (all dtypes)"},
      {"copy", kForward, "x", "out", {},
       "bytewise copy, same dtype and element count (all dtypes)"},
      {"cast", kForward, "x", "out", {},
       "element conversion between any two dtypes; to Bool: nonzero → 1"},
      {"scale", kForward, "x", "out",
       {opt("bias", T::Float, "0"), opt("bias_after_scale", T::Int, "1"),
        req("scale", T::Float)},
       "`x*scale+bias` if bias_after_scale else `(x+bias)*scale`; also Int32/Int64"},
      {"binary", kForward, "x, y", "out", {req("op", T::String)},
       "`op` is `add`/`sub`/`mul`/`div`/`max`/`min`, or `gt`/`ge`/`lt`/`le` (1 where x > y, "
       "... else 0, in x's type). x, y and out have equal rank; each x/y "
       "dim equals out's or is 1 (NumPy broadcasting). Also Int32/Int64 (integer `div` by zero "
       "is an error)"},
      {"fused_elementwise", kForward, "x...", "out...",
       {req("code", T::Ints), req("imms", T::Floats), req("outputs", T::Ints)},
       "a generated loop (enable_auto_fusion, fuse_elewise_add_act_ops): `code` is a program of "
       "4 integers per instruction (opcode, register a, register b, first immediate in `imms`; -1 "
       "where unused) over registers 0..n−1 = the inputs, instruction i writing register n + i; "
       "output k receives register `outputs[k]`. Outputs share one shape and dtype (Float32 or "
       "Float64); each input has that shape, or a trailing part of it after leading 1s, repeated "
       "over the leading dims. The opcodes and what each computes are listed below the kernels "
       "(distc/Artifact/ElementwiseLoop.h)"},
      {"unary", kForward, "x", "out", {req("op", T::String)},
       "`op` is `relu`/`sigmoid`/`tanh`/`gelu`/`gelu_tanh`/`square`/`exp`/`log`/`sqrt`/`abs`/"
       "`neg`; element-wise; `gelu` is the erf form, `gelu_tanh` the tanh approximation"},
      {"matmul", kForward, "a, b", "out",
       {opt("trans_a", T::Int, "0"), opt("trans_b", T::Int, "0")},
       "equal ranks r ≥ 2; a's last two dims are [M,K] ([K,M] if trans_a), b's [K,N] ([N,K] if "
       "trans_b); out is [..., M, N]; leading (batch) dims broadcast NumPy-style to out's. GEMM "
       "through BLAS"},
      {"gemm_epilogue", kForward, "x, y, bias", "out, pre_act?",
       {opt("activation", T::String, "none"), opt("trans_x", T::Int, "0"),
        opt("trans_y", T::Int, "0")},
       "Paddle's fused_gemm_epilogue: x [M,K] ([K,M] if trans_x), y [K,N] ([N,K] if trans_y), "
       "bias [N]; out [M,N] = act(op(x)·op(y) + bias) with `activation` `none`, `relu`, `gelu` "
       "(erf form) or `gelu_tanh` (tanh approximation), the formulas of `unary`; pre_act, when "
       "given, = op(x)·op(y) + bias. One GEMM as `matmul`'s, then bias and activation in one "
       "pass: equal to `matmul`, `binary` add and `unary`"},
      {"gemm_epilogue_grad", kTraining, "dout, x, y, act_input?", "dx?, dy?, dbias?, dact?",
       {opt("activation", T::String, "none"), opt("trans_x", T::Int, "0"),
        opt("trans_y", T::Int, "0")},
       "gradients of `gemm_epilogue` (same attributes). act_input, required unless activation "
       "is `none`, is the forward out for `relu` and pre_act for `gelu`/`gelu_tanh`; d = dout·"
       "act' as `unary_grad` computes it, written to dact [M,N] (required unless activation is "
       "`none`: d = dout then; dout is not written); dx, dy = "
       "the gradients of op(x)·op(y) for d, as `matmul`s; dbias [N] = Σ_rows d, summed in "
       "Float64 as `reduce`. Absent outputs are not computed"},
      {"clip", kForward, "x", "out", {req("max", T::Float), req("min", T::Float)},
       "out = min if x < min, max if x > max, else x (Paddle's clip); min > max is an error"},
      {"softmax", kForward, "x", "out", {req("axis", T::Int)},
       "numerically stable softmax along axis (≥ 0)"},
      {"reduce", kForward, "x", "out", {req("axes", T::Ints), req("op", T::String)},
       "`op` is `sum`/`mean`/`max`/`min`; reduces x over axes (sorted, ≥ 0); out holds the "
       "remaining elements in order (its dims may keep the reduced axes as 1 or drop them)"},
      {"transpose", kForward, "x", "out", {req("perm", T::Ints)},
       "out.dims[i] = x.dims[perm[i]] (all dtypes)"},
      {"concat", kForward, "x...", "out", {req("axis", T::Int)},
       "concatenation along axis (≥ 0) (all dtypes)"},
      {"split", kForward, "x", "out...", {req("axis", T::Int)},
       "consecutive pieces along axis (≥ 0), sized by the outputs' dims (all dtypes)"},
      {"slice", kForward, "x", "out",
       {req("axes", T::Ints), req("ends", T::Ints), req("starts", T::Ints)},
       "Paddle semantics per axis: negative start/end count from the end, then clamp to [0, "
       "dim]; out has x's rank and extent max(0, end-start) on the axes; the runtime checks "
       "out's dims agree (all dtypes)"},
      {"gather_rows", kForward, "ids, table", "out", {opt("padding_idx", T::Int, "-1")},
       "ids Int32/Int64 of any shape, table [V, D]; out has ids' element count × D; row "
       "`padding_idx` (−1: none) reads as zeros; an id outside [0, V) is an error naming the op "
       "and the id"},
      {"layer_norm", kForward, "x, scale?, bias?", "y, mean?, variance?",
       {req("begin_norm_axis", T::Int), req("epsilon", T::Float)},
       "x viewed as [left, right] split at begin_norm_axis; per row: mean, biased variance, y = "
       "(x−mean)/sqrt(var+eps)·scale+bias; mean/variance have `left` elements"},
      {"softmax_cross_entropy", kForward, "logits, label", "softmax?, loss",
       {req("axis", T::Int), opt("ignore_index", T::Int, "-100"),
        opt("soft_label", T::Int, "0")},
       "hard labels: label Int32/Int64 with extent 1 on axis (≥ 0), loss = −log "
       "softmax[label] (0 where label == ignore_index; a label outside [0, C) otherwise is an "
       "error); soft labels: label has logits' shape and dtype, loss = −Σ label·log softmax; "
       "loss has extent 1 on axis"},
      {"top_k", kForward, "x", "values, indices",
       {req("k", T::Int), opt("largest", T::Int, "1")},
       "along the last axis; indices Int64; ties keep the lower index first; results sorted"},
      {"accuracy", kForward, "indices, label", "accuracy, correct?, total?", {},
       "indices [N,k] Int64, label [N,1] Int32/Int64; correct = rows whose label is among its "
       "k indices; accuracy Float32 [1] = correct/N (0 if N = 0); correct, total Int32 [1]"},
      {"uniform_random", kForward, "", "out",
       {req("max", T::Float), req("min", T::Float), req("seed", T::Int)},
       "uniform samples in [min, max); seed ≠ 0 (see Randomness in docs/artifact.md)"},
      {"gaussian_random", kForward, "", "out",
       {req("mean", T::Float), req("std", T::Float), req("seed", T::Int)},
       "normal samples (see Randomness in docs/artifact.md)"},
      {"truncated_gaussian_random", kForward, "", "out",
       {req("mean", T::Float), req("seed", T::Int), req("std", T::Float)},
       "normal samples; samples outside mean ± 2·std are redrawn"},

      // --- Training: backward ops and optimizer updates ----------------------
      {"unary_grad", kTraining, "v, dout", "dx", {req("op", T::String)},
       "element-wise derivative of `unary` (`op` as there). For `relu`, `sigmoid`, `tanh`, "
       "`exp`, `sqrt` v is the forward OUTPUT `out`: relu dout·(out>0), sigmoid "
       "dout·out·(1−out), tanh dout·(1−out²), exp dout·out, sqrt dout/(2·out). For `gelu` (erf "
       "form), `gelu_tanh` (tanh approximation, exact derivative of the forward formula, as "
       "Paddle), `square` (2·x·dout), `log` (dout/x), `abs` (dout·sign(x), 0 at 0), `neg` "
       "(−dout) v is the forward INPUT x. An unknown op is an error naming it"},
      {"clip_grad", kTraining, "x, dout", "dx", {req("max", T::Float), req("min", T::Float)},
       "dx = dout where min ≤ x ≤ max, else 0 (Paddle's clip_grad: at a bound the gradient "
       "passes); min > max is an error"},
      {"softmax_grad", kTraining, "out, dout", "dx", {req("axis", T::Int)},
       "dx = out·(dout − Σ_axis dout·out)"},
      {"layer_norm_grad", kTraining, "x, scale?, dy", "dx, dscale?, dbias?",
       {req("begin_norm_axis", T::Int), req("epsilon", T::Float)},
       "x viewed as [left, right] as in `layer_norm`; mean and biased variance recomputed from "
       "x; absent scale = ones; with x̂ = (x−mean)/sqrt(var+eps) and g = dy·scale per row: dx "
       "= (g − mean(g) − x̂·mean(g·x̂))/sqrt(var+eps); dscale = Σ_rows dy·x̂, dbias = Σ_rows dy "
       "(`right` elements each)"},
      {"softmax_cross_entropy_grad", kTraining, "softmax, label, dloss", "dlogits",
       {req("axis", T::Int), opt("ignore_index", T::Int, "-100"),
        opt("soft_label", T::Int, "0")},
       "dloss has extent 1 on axis and broadcasts along it. Hard labels (as "
       "`softmax_cross_entropy`): dlogits = (softmax − onehot(label))·dloss; rows whose label "
       "== ignore_index get 0; a label outside [0, C) otherwise is an error naming it. Soft "
       "labels (logits' shape and dtype): dlogits = (softmax − label)·dloss"},
      {"lookup_rows", kTraining, "ids", "rows",
       {opt("padding_idx", T::Int, "-1"), req("height", T::Int)},
       "the row ids of a sparse lookup's gradient (docs/parameter-server.md): rows (Int64, "
       "ids' element count) = ids, with -1 where an id is `padding_idx` (unless that is -1); "
       "an id outside [0, height) is an error naming it. ids Int32/Int64"},
      {"merge_rows", kTraining, "parts...", "blocks...", {req("height_sections", T::Ints)},
       "Paddle's split_selected_rows: parts are (rows Int64 [n], values [n, D]) pairs of a "
       "row-sparse value, rows -1 unused; blocks are one (rows Int64 [h_k], values [h_k, D]) "
       "pair per `height_sections` entry h_k. Block k gets the ids in its range, renumbered "
       "from its first row, in the order they first come, each once with the sum of its "
       "values (added in order from zero); its remaining entries are -1 with zero values"},
      {"split_ids", kForward, "ids", "shards...",
       {req("height_sections", T::Ints), opt("padding_idx", T::Int, "-1")},
       "Paddle's split_ids over row-range blocks: shard k (Int64 [height_sections[k]]) holds "
       "the distinct ids of block k, renumbered from its first row, in the order they first "
       "come, then -1; `padding_idx` (unless -1) is left out; an id outside the blocks is an "
       "error. ids Int32/Int64"},
      {"merge_ids", kForward, "ids, parts...", "out",
       {req("height_sections", T::Ints), opt("padding_idx", T::Int, "-1")},
       "Paddle's merge_ids: parts are one (shard Int64 [h_k], rows [h_k, D]) pair per block "
       "(split_ids' shard and the rows prefetched for it); out [ids' element count, D] row i = "
       "the row of ids[i]; `padding_idx` (unless -1) gets zeros"},
      {"rows_to_dense", kTraining, "parts...", "out", {},
       "out [H, D] = 0, then each (rows, values) part's value rows added to the rows their "
       "ids name, in order; ids -1 are skipped, ids outside [0, H) are an error"},
      {"gather_rows_grad", kTraining, "ids, dout", "dtable", {opt("padding_idx", T::Int, "-1")},
       "dtable [V, D] (the output's shape) is zeroed, then each id's row of dout (ids' element "
       "count × D) is added to row id; row `padding_idx` gets nothing; an id outside [0, V) is "
       "an error naming it. ids Int32/Int64"},
      {"broadcast", kTraining, "x", "out", {opt("mean", T::Int, "0")},
       "x has out's rank and each dim equals out's or is 1; NumPy broadcasting copy (all "
       "dtypes). With `mean` = 1 (Float32/Float64) every element is then multiplied by "
       "numel(x)/numel(out): the gradient of a mean, whose divisor may be a run-time batch size"},
      {"slice_grad", kTraining, "dout", "dx",
       {req("axes", T::Ints), req("ends", T::Ints), req("starts", T::Ints)},
       "the inverse of `slice`'s index mapping, with its clamping rules applied to dx's dims: "
       "dx is zero except the sliced region, which is dout; dout's dims must equal the slice's "
       "(all dtypes)"},
      {"dropout", kTraining, "x, step, y?", "out, mask",
       {req("p", T::Float), req("seed", T::Int), opt("upscale", T::Int, "1")},
       "training-time dropout, p in [0, 1]; step is one Int64 element (a step counter the "
       "trainer advances); mask is UInt8 with x's shape, 1 where u_i ≥ p (see Randomness in "
       "docs/artifact.md); out = x·mask/(1−p) if upscale (0 when p = 1), else x·mask. "
       "Fused (fuse_dropout_add): y (x's size and dtype) is added to that, as `binary` add "
       "would, in the same pass"},
      {"dropout_grad", kTraining, "mask, dout", "dx",
       {req("p", T::Float), opt("upscale", T::Int, "1")},
       "dx = dout·mask/(1−p) if upscale (0 when p = 1), else dout·mask; mask UInt8"},
      {"sgd", kTraining, "param, grad, lr", "param_out", {}, "param_out = param − lr·grad"},
      {"sgd_rows", kTraining, "param, lr, parts...", "param_out", {},
       "sgd with a row-sparse gradient of (rows, values) parts (`rows_to_dense`'s): "
       "param_out (param's buffer, updated in place) changes only in the rows the parts "
       "name, each by lr times the sum of its values"},
      {"momentum", kTraining, "param, grad, velocity, lr", "param_out, velocity_out",
       {req("mu", T::Float), opt("regularization_coeff", T::Float, "0"),
        opt("use_nesterov", T::Int, "0")},
       "Paddle's momentum: g = grad + regularization_coeff·param; v = mu·velocity + g; "
       "param_out = param − lr·(g + mu·v) if use_nesterov, else param − lr·v; velocity_out = v"},
      {"adam", kTraining, "param, grad, moment1, moment2, beta1_pow, beta2_pow, lr",
       "param_out, moment1_out, moment2_out, beta1_pow_out, beta2_pow_out",
       {req("beta1", T::Float), req("beta2", T::Float), opt("decoupled", T::Int, "0"),
        req("epsilon", T::Float), opt("weight_decay", T::Float, "0")},
       "Paddle's adam, or adamw when decoupled: p = param − lr·weight_decay·param if decoupled "
       "(weight_decay is unused otherwise), else param; m = beta1·moment1 + (1−beta1)·grad; v "
       "= beta2·moment2 + (1−beta2)·grad²; lr_t = lr·sqrt(1−beta2_pow)/(1−beta1_pow); "
       "param_out = p − lr_t·m/(sqrt(v) + epsilon·sqrt(1−beta2_pow)); moment outputs m, v; "
       "beta1_pow_out = beta1_pow·beta1, beta2_pow_out = beta2_pow·beta2 (Paddle starts "
       "beta1_pow at beta1)"},
      {"merged_adam", kTraining, "operands...", "results...",
       {req("beta1", T::Float), req("beta2", T::Float), req("count", T::Int),
        opt("decoupled", T::Int, "0"), req("epsilon", T::Float), opt("weight_decay", T::Float, "0")},
       "Paddle's merged_adam: `adam` on n = count parameters in one multi-tensor loop. operands: "
       "the n params, then the n grads, moment1s, moment2s, beta1_pows, beta2_pows, then one lr "
       "(6n+1); results: the n param_outs, then the moment1_outs, moment2_outs, beta1_pow_outs, "
       "beta2_pow_outs (5n). Group i's results are bitwise `adam`'s on its operands; the params "
       "share one dtype"},
      {"merged_momentum", kTraining, "operands...", "results...",
       {req("count", T::Int), req("mu", T::Float), opt("regularization_coeff", T::Float, "0"),
        opt("use_nesterov", T::Int, "0")},
       "Paddle's merged_momentum: `momentum` on n = count parameters in one multi-tensor loop. "
       "operands: the n params, then the n grads, the n velocities, then one lr (3n+1); "
       "results: the n param_outs, then the n velocity_outs (2n). Group i's results are bitwise "
       "`momentum`'s on its operands; the params share one dtype"},
      {"merged_sgd", kTraining, "operands...", "results...", {req("count", T::Int)},
       "`sgd` on n = count parameters in one multi-tensor loop. operands: the n params, then "
       "the n grads, then one lr (2n+1); results: the n param_outs. Group i's result is bitwise "
       "`sgd`'s on its operands; the params share one dtype"},
      {"adagrad", kTraining, "param, grad, moment, lr", "param_out, moment_out",
       {opt("decay", T::Float, "0"), opt("decayed", T::Int, "0"), req("epsilon", T::Float)},
       "Paddle's adagrad, or decayed_adagrad when decayed: m = moment + grad², or decay·moment + "
       "(1−decay)·grad² if decayed (decay is unused otherwise); param_out = param − "
       "lr·grad/(sqrt(m) + epsilon); moment_out = m"},
      {"rmsprop", kTraining, "param, grad, moment, mean_square, lr, mean_grad?",
       "param_out, moment_out, mean_square_out, mean_grad_out?",
       {opt("centered", T::Int, "0"), req("decay", T::Float), req("epsilon", T::Float),
        opt("momentum", T::Float, "0")},
       "Paddle's rmsprop: ms = decay·mean_square + (1−decay)·grad²; if centered (mean_grad "
       "and mean_grad_out required), mg = decay·mean_grad + (1−decay)·grad and v = "
       "momentum·moment + lr·grad/sqrt(ms − mg² + epsilon), else v = momentum·moment + "
       "lr·grad/sqrt(ms + epsilon) and mean_grad_out (if given) = mean_grad; param_out = param "
       "− v; moment_out = v, mean_square_out = ms, mean_grad_out = mg"},
      {"ftrl", kTraining, "param, grad, squared_accum, linear_accum, lr",
       "param_out, squared_accum_out, linear_accum_out",
       {req("l1", T::Float), req("l2", T::Float), req("lr_power", T::Float)},
       "Paddle's ftrl, with l1' = l1 + 1e-10, l2' = l2 + 1e-10 and k = −lr_power: n = "
       "squared_accum + grad²; z = linear_accum + grad − (n^k − squared_accum^k)/lr·param; "
       "param_out = (l1'·sign(z) − z)/(n^k/lr + 2·l2') if |z| > l1', else 0; "
       "squared_accum_out = n, linear_accum_out = z"},

      // --- Vision models: normalization, activations with attributes, arg_max
      {"batch_norm", kForward, "x, scale, bias, mean, variance, z?",
       "y, mean_out?, variance_out?, saved_mean?, saved_variance?",
       {opt("activation", T::String, "none"), req("channel_axis", T::Int),
        req("epsilon", T::Float), req("global_stats", T::Int), req("momentum", T::Float),
        opt("sync", T::Int, "0")},
       "Paddle's batch_norm over x viewed as [outer, C, inner] split at channel_axis; scale, "
       "bias, mean, variance and the outputs but y have C elements. global_stats = 1: y = "
       "(x−mean)/sqrt(variance+eps)·scale+bias, mean_out = mean, variance_out = variance, "
       "saved_* = 0. Otherwise with the batch's mean m and biased variance v per channel: y "
       "= (x−m)/sqrt(v+eps)·scale+bias, mean_out = momentum·mean + (1−momentum)·m, "
       "variance_out = momentum·variance + (1−momentum)·v, saved_mean = m, saved_variance = "
       "1/sqrt(v+eps); with one element per channel y = x and the statistics stay. Every "
       "input is read before any output is written: mean_out and variance_out may be mean "
       "and variance. sync = 1 (sync_batch_norm), batch statistics and more than one rank: m "
       "and v are those of every rank's x together (Σx, Σx² and the element count per "
       "channel all-reduced in Float64; v = Σx²/M − m², at least 0), so every rank computes "
       "the same outputs but y; otherwise sync changes nothing. Fused (fuse_bn_act_ops, "
       "fuse_bn_add_act_ops): z (x's size) is added to the normalized value, then `activation` "
       "(`none` or `relu`) applied, as `binary` add and `unary` would, in the same pass"},
      {"batch_norm_grad", kTraining, "x, scale, mean, variance, dy, y?",
       "dx?, dscale?, dbias?, dact?",
       {opt("activation", T::String, "none"), req("channel_axis", T::Int),
        req("epsilon", T::Float), req("global_stats", T::Int), opt("sync", T::Int, "0")},
       "gradient of `batch_norm`. global_stats = 1: mean, variance are the running ones, inv = "
       "1/sqrt(variance+eps), dx = scale·inv·dy. Otherwise mean, variance are saved_mean and "
       "saved_variance (inv itself); with x̂ = (x−mean)·inv and M elements per channel: dx = "
       "scale·inv/M·(M·dy − Σdy − x̂·Σdy·x̂) (dx = dy when M = 1). Both: dscale = Σ dy·x̂, "
       "dbias = Σ dy per channel. sync = 1, batch statistics and more than one rank: Σdy, "
       "Σdy·x̂ and M in dx are over every rank's batch (all-reduced in Float64); dscale and "
       "dbias stay this rank's sums, which the data-parallel gradient all-reduce averages. "
       "activation `relu` (the fused batch norms' gradients): y, the forward output, and dact "
       "(x's size) are required; dact = `unary_grad` relu's gradient at y of dy is written "
       "first and stands for dy in all of the above"},
      {"affine_channel", kForward, "x, scale, bias", "out", {req("channel_axis", T::Int)},
       "out = x·scale[c] + bias[c], c the index along channel_axis"},
      {"affine_channel_grad", kTraining, "x, scale, dout", "dx?, dscale?, dbias?",
       {req("channel_axis", T::Int)},
       "dx = dout·scale[c]; dscale = Σ dout·x, dbias = Σ dout per channel"},
      {"relu6", kForward, "x", "out", {req("threshold", T::Float)},
       "out = min(max(x, 0), threshold)"},
      {"relu6_grad", kTraining, "out, dout", "dx", {req("threshold", T::Float)},
       "dx = dout where 0 < out < threshold, else 0"},
      {"hard_swish", kForward, "x", "out",
       {req("offset", T::Float), req("scale", T::Float), req("threshold", T::Float)},
       "out = x·min(max(x+offset, 0), threshold)/scale"},
      {"hard_swish_grad", kTraining, "x, dout", "dx",
       {req("offset", T::Float), req("scale", T::Float), req("threshold", T::Float)},
       "dx = 0 where x+offset ≤ 0, dout·(2x+offset)/scale where x+offset < threshold, else dout"},
      {"hard_sigmoid", kForward, "x", "out", {req("offset", T::Float), req("slope", T::Float)},
       "out = min(max(slope·x+offset, 0), 1)"},
      {"hard_sigmoid_grad", kTraining, "out, dout", "dx",
       {req("offset", T::Float), req("slope", T::Float)},
       "dx = dout·slope where 0 < out < 1, else 0"},
      {"swish", kForward, "x", "out", {req("beta", T::Float)}, "out = x/(1+exp(−beta·x))"},
      {"swish_grad", kTraining, "x, dout", "dx", {req("beta", T::Float)},
       "with s = 1/(1+exp(−beta·x)): dx = dout·(s + beta·x·s·(1−s))"},
      {"leaky_relu", kForward, "x", "out", {req("alpha", T::Float)},
       "out = x where x > 0, else alpha·x"},
      {"leaky_relu_grad", kTraining, "x, dout", "dx", {req("alpha", T::Float)},
       "dx = dout where x > 0, else alpha·dout"},
      {"arg_max", kForward, "x", "out", {req("axis", T::Int)},
       "index of the largest element along axis (≥ 0) of x (Float32/Float64/Int32/Int64), "
       "the first on ties; NaN counts as largest; out Int32/Int64 with x's other elements in "
       "order"},
      // --- Convolution and pooling (Kernels/Conv.cpp, Pool.cpp) --------------
      // x, out (and their gradients) are [N, C, H, W], or [N, H, W, C] with
      // nhwc = 1; filters are [M, C/groups, kh, kw]; paddings are [top,
      // bottom, left, right] after Paddle's padding_algorithm. Float32 and
      // Float64. Convolutions are GEMMs through BLAS over im2col columns.
      {"conv2d", kForward, "x, filter, bias?", "out",
       {req("dilations", T::Ints), opt("groups", T::Int, "1"), opt("nhwc", T::Int, "0"),
        req("paddings", T::Ints), req("strides", T::Ints)},
       "grouped 2-D cross-correlation: out[n, m, y, x] = Σ_{c in m's group, i, j} "
       "filter[m, c, i, j]·x[n, c, y·sh − top + i·dh, x·sw − left + j·dw] (outside x: 0); out's "
       "spatial dims must equal (H + top + bottom − (dh·(kh−1)+1))/sh + 1 (and for W); bias "
       "[M], when given, is added to every position of its channel"},
      {"conv2d_transpose", kForward, "x, filter", "out",
       {req("dilations", T::Ints), opt("groups", T::Int, "1"), opt("nhwc", T::Int, "0"),
        req("paddings", T::Ints), req("strides", T::Ints)},
       "the adjoint of `conv2d` (Paddle's conv2d_transpose): filter is [C, M/groups, kh, kw], "
       "out [N, M, OH, OW] is given (output_size/output_padding decide it); each x[n, c, y, x] "
       "adds filter[c, m, i, j]·x to out[n, m, y·sh − top + i·dh, x·sw − left + j·dw] inside "
       "out"},
      {"pool2d", kForward, "x", "out",
       {opt("adaptive", T::Int, "0"), opt("exclusive", T::Int, "1"), req("ksize", T::Ints),
        opt("nhwc", T::Int, "0"), req("paddings", T::Ints), req("strides", T::Ints),
        req("type", T::String)},
       "`type` max or avg over windows as Paddle's Pool2dFunctor: rows [y·sh − top, min(that + "
       "kh, H + top)) clipped to [0, H) (and for W with left); avg divides by the window's size "
       "before clipping, or after it when exclusive; adaptive (ksize unused) takes rows "
       "[⌊y·H/OH⌋, ⌈(y+1)·H/OH⌉); out's dims are given"},
      {"conv2d_grad", kTraining, "x, filter, dout", "dx?, dfilter?, dbias?",
       {req("dilations", T::Ints), opt("groups", T::Int, "1"), opt("nhwc", T::Int, "0"),
        req("paddings", T::Ints), req("strides", T::Ints)},
       "gradients of `conv2d` (same attributes): dx = the adjoint of conv2d applied to dout "
       "(col2im of filterᵀ·dout), dfilter = Σ_n dout·im2col(x)ᵀ, dbias [M] = dout summed over "
       "images and positions"},
      {"conv2d_transpose_grad", kTraining, "x, filter, dout", "dx?, dfilter?",
       {req("dilations", T::Ints), opt("groups", T::Int, "1"), opt("nhwc", T::Int, "0"),
        req("paddings", T::Ints), req("strides", T::Ints)},
       "gradients of `conv2d_transpose`: dx = conv2d(dout, filter), dfilter = Σ_n "
       "x·im2col(dout)ᵀ"},
      {"pool2d_grad", kTraining, "x, out, dout", "dx",
       {opt("adaptive", T::Int, "0"), opt("exclusive", T::Int, "1"), req("ksize", T::Ints),
        opt("nhwc", T::Int, "0"), req("paddings", T::Ints), req("strides", T::Ints),
        req("type", T::String)},
       "gradient of `pool2d` (same attributes): avg spreads dout/size over each window; max "
       "gives dout to the first element of the window (row-major) equal to out, as Paddle"},

      // --- Collective: data parallelism and sharding ------------------------
      // n and i: the size of this rank's group in ring `ring_id` and its
      // member index there (printKernelReference says so in the reference).
      {"c_allreduce", kCollective, "x", "out",
       {req("op", T::String), opt("ring_id", T::Int, "0")},
       "`op` is `sum`/`max`/`min`/`prod`; out = x reduced over the group; out may be x (then "
       "nothing is copied). Started asynchronously: complete after the next `c_wait`"},
      {"c_reduce", kCollective, "x", "out",
       {req("op", T::String), opt("ring_id", T::Int, "0"), req("root", T::Int)},
       "`op` is `sum`/`max`/`min`/`prod`; on rank `root`, out = x reduced over every rank; "
       "elsewhere out = x. Ring 0 only. Started asynchronously, like `c_allreduce`"},
      {"c_wait", kCollective, "x", "out", {},
       "out is a view of x; waits for every collective started before (the lowering of "
       "`c_sync_comm_stream`)"},
      {"c_broadcast", kCollective, "x", "out", {opt("ring_id", T::Int, "0"), req("root", T::Int)},
       "out = member `root`'s x (root: a member index, 0 ≤ root < n) on every member of the "
       "group (waits for started collectives first)"},
      {"c_allgather", kCollective, "x", "out", {opt("axis", T::Int, "0"), opt("ring_id", T::Int, "0")},
       "x of rank ≥ 1 (all dtypes); out.dims = x.dims except out.dims[axis] = n·x.dims[axis]: "
       "the members' x concatenated along `axis` in member order (waits for started "
       "collectives first; complete on return)"},
      {"c_reducescatter", kCollective, "x", "out",
       {opt("axis", T::Int, "0"), opt("op", T::String, "sum"), opt("ring_id", T::Int, "0")},
       "`op` is `sum`/`max`/`min`/`prod`; n divides x.dims[axis]; out.dims = x.dims except "
       "out.dims[axis] = x.dims[axis]/n: slice i along `axis` of x reduced over the group, "
       "combined in member order (waits for started collectives first; complete on return)"},
      {"c_alltoall", kCollective, "x", "out",
       {req("concat_axis", T::Int), opt("ring_id", T::Int, "0"), req("split_axis", T::Int)},
       "n divides x.dims[split_axis]; x is cut into n equal pieces along `split_axis`, piece k "
       "goes to member k, and out = the pieces received, concatenated along `concat_axis` in "
       "member order: out.dims[split_axis] = x.dims[split_axis]/n, then out.dims[concat_axis] "
       "·= n (the shape is x's when the axes are equal) (all dtypes; waits for started "
       "collectives first; complete on return)"},
      {"c_split", kCollective, "x", "out", {opt("axis", T::Int, "0"), opt("ring_id", T::Int, "0")},
       "n divides x.dims[axis]; out = slice i of n equal slices of x along `axis` (all dtypes; "
       "no communication)"},
      {"c_root_only", kCollective, "x", "out", {opt("ring_id", T::Int, "0"), opt("root", T::Int, "0")},
       "out = x on member `root` of the group, zeros on the others (a replicated value made a "
       "partial sum; all dtypes; no communication)"},
      {"c_comm_check", kCollective, "", "", {req("nranks", T::Int)},
       "fails unless the session's communicator has `nranks` ranks (a session without one has "
       "1): the lowering of Paddle's `c_comm_init`, whose communicator the rendezvous formed "
       "before the program ran. A program with this call is a collective one (see "
       "`world_size` in docs/artifact.md)"},

      // --- Parameter servers (docs/parameter-server.md) ---------------------
      {"ps_send", kCollective, "blocks...", "", {req("servers", T::Ints), req("slots", T::Ints)},
       "sends blocks[i] to parameter server `servers[i]` as its received gradient "
       "`slots[i]` (artifact.fbs ParameterServer.receives); complete on return"},
      {"ps_send_rows", kCollective, "blocks...", "",
       {req("servers", T::Ints), req("slots", T::Ints)},
       "blocks are (rows, values) pairs of row-sparse gradient blocks as `merge_rows` writes "
       "them; sends each block's rows up to its first id -1, with their values, to parameter "
       "server `servers[i]` as its received gradient `slots[i]`; complete on return"},
      {"ps_prefetch", kCollective, "ids...", "rows...",
       {req("servers", T::Ints), req("slots", T::Ints)},
       "rows[i] = the rows of distributed-table block `slots[i]` (ParameterServer.serves, "
       "`prefetch`) of server `servers[i]` for ids[i] (split_ids' block-local row numbers, "
       "up to the first -1), in their order; the rest of rows[i] is left as it is"},
      {"ps_send_barrier", kCollective, "", "", {opt("half_async", T::Int, "0")},
       "tells every parameter server that this trainer's batch is sent, and waits until each "
       "has counted it (Paddle's send_barrier)"},
      {"ps_recv", kCollective, "", "blocks...", {req("servers", T::Ints), req("slots", T::Ints)},
       "blocks[i] = parameter block `slots[i]` of server `servers[i]` "
       "(ParameterServer.serves); in synchronous training, once the round's update is done"},
      {"ps_fetch_barrier", kCollective, "", "", {},
       "tells every parameter server that this trainer has its parameters, and waits until "
       "each has counted it (Paddle's fetch_barrier)"},

      // --- Image models: shape, padding, resize -----------------------------
      {"shape", kForward, "x", "out", {},
       "out (Int32, [rank of x]) = the dims of x (x of any dtype; its data is not read)"},
      {"pad", kForward, "x", "out",
       {req("mode", T::String), req("paddings", T::Ints), opt("value", T::Float, "0")},
       "paddings holds (before, after) ≥ 0 per dim of x; out.dims[d] = x.dims[d] + before + "
       "after. `mode`: `constant` (value), `reflect` (mirror without the edge, as NumPy's "
       "reflect; paddings < the dim), `edge` (the nearest element), `circular` (wrap around). "
       "Float32/Float64"},
      {"pad_grad", kTraining, "dout", "dx",
       {req("mode", T::String), req("paddings", T::Ints)},
       "the adjoint of `pad` (attributes as there; dx has x's dims): each dout element is added "
       "to the x element it was read from (constant padding reads none)"},
      {"interp", kForward, "x", "out",
       {opt("align_corners", T::Int, "1"), opt("align_mode", T::Int, "1"),
        opt("layout", T::String, "NCHW"), req("method", T::String),
        opt("scale_h", T::Float, "0"), opt("scale_w", T::Float, "0")},
       "Paddle's interpolate v2 on 4-D x (layout `NCHW` or `NHWC`), resizing H and W to out's. "
       "Ratio per dim (out > 1): (in−1)/(out−1) if align_corners, else 1/scale if scale > 0, "
       "else in/out (0 when out = 1). `bilinear`: source y = max(ratio·(k+0.5)−0.5, 0) when "
       "align_mode = 0 and not align_corners, else ratio·k; the two neighbours ⌊y⌋ and "
       "min(⌊y⌋+1, in−1) weighted by the fraction. `nearest`: ⌊ratio·k + 0.5⌋ if "
       "align_corners, else ⌊ratio·k⌋ (align_mode unused). Ratios in double. Float32/Float64"},
      {"interp_grad", kTraining, "dout", "dx",
       {opt("align_corners", T::Int, "1"), opt("align_mode", T::Int, "1"),
        opt("layout", T::String, "NCHW"), req("method", T::String),
        opt("scale_h", T::Float, "0"), opt("scale_w", T::Float, "0")},
       "the adjoint of `interp` (attributes as there; dx has x's dims): each dout element is "
       "added to the x elements it was read from, with their weights"},
  };
  // clang-format on
}

/// Fills the operand counts and optional masks from an operand list.
void countOperands(std::string_view list, int &min, int &max, uint32_t &optionalMask) {
  min = max = 0;
  optionalMask = 0;
  size_t start = 0;
  while (start < list.size()) {
    size_t end = list.find(',', start);
    std::string_view item = list.substr(start, end == std::string_view::npos ? end : end - start);
    start = end == std::string_view::npos ? list.size() : end + 1;
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    if (item.size() > 3 && item.substr(item.size() - 3) == "...") {
      ++min;
      max = kVariadic;
    } else if (!item.empty() && item.back() == '?') {
      optionalMask |= 1u << max;
      ++max;
    } else {
      ++min;
      ++max;
    }
  }
  // Operands after an optional one are still positional: the count is the
  // position of the last required operand plus one.
  if (max != kVariadic && optionalMask) {
    int lastRequired = -1;
    for (int i = 0; i < max; ++i)
      if (!(optionalMask & (1u << i)))
        lastRequired = i;
    min = lastRequired + 1;
  }
}

} // namespace

const std::vector<KernelSignature> &kernelSignatures() {
  static const std::vector<KernelSignature> table = [] {
    std::vector<KernelSignature> t = declareKernels();
    for (KernelSignature &k : t) {
      countOperands(k.inputNames, k.minInputs, k.maxInputs, k.optionalInputMask);
      countOperands(k.outputNames, k.minOutputs, k.maxOutputs, k.optionalOutputMask);
    }
    std::sort(t.begin(), t.end(), [](const KernelSignature &a, const KernelSignature &b) {
      return std::string_view(a.name) < b.name;
    });
    return t;
  }();
  return table;
}

const KernelSignature *findKernelSignature(std::string_view name) {
  const auto &table = kernelSignatures();
  auto it =
      std::lower_bound(table.begin(), table.end(), name,
                       [](const KernelSignature &s, std::string_view n) { return s.name < n; });
  if (it == table.end() || it->name != name)
    return nullptr;
  return &*it;
}

const AttrSignature *KernelSignature::findAttr(std::string_view attrName) const {
  for (const AttrSignature &attr : attrs)
    if (attr.name == attrName)
      return &attr;
  return nullptr;
}

static const char *attrTypeName(AttrType type) {
  switch (type) {
  case AttrType::Int:
    return "Int";
  case AttrType::Float:
    return "Float";
  case AttrType::String:
    return "String";
  case AttrType::Ints:
    return "Ints";
  case AttrType::Floats:
    return "Floats";
  }
  return "?";
}

void printKernelReference(std::ostream &os) {
  os << "# Kernel reference\n\n"
        "<!-- Generated by `distc-dump --kernel-reference` from the kernel declarations\n"
        "     in lib/runtime/Artifact/KernelSignatures.cpp; do not edit. -->\n\n"
        "Every kernel an artifact may call. Operands: `name?` is optional (`-1` in the\n"
        "call), `name...` any number of at least one. Attributes: an attribute with a\n"
        "value in parentheses is optional and takes that value when absent; the others\n"
        "are required, with exactly the listed type. Unless stated otherwise a kernel\n"
        "supports `Float32` and `Float64`, and inputs and outputs share one dtype\n"
        "(docs/artifact.md says how kernels are called).\n";
  for (const char *family : {kForward, kTraining, kCollective}) {
    os << "\n## " << family << " kernels\n\n";
    if (std::string_view(family) == kCollective)
      os << "These communicate within this rank's group of the ring `ring_id` (the\n"
            "artifact's ring table, docs/artifact.md; ring 0 is every rank): n is the\n"
            "group's size, i this rank's member index in it. With n = 1 (one process, or\n"
            "a ring of singletons) they need no communicator and run their local forms.\n\n";
    os << "| kernel | inputs → outputs | attributes | semantics |\n|---|---|---|---|\n";
    for (const KernelSignature &k : kernelSignatures()) {
      if (std::string_view(k.family) != family)
        continue;
      auto operands = [](const char *list) { return *list ? list : "—"; };
      os << "| `" << k.name << "` | " << operands(k.inputNames) << " → " << operands(k.outputNames)
         << " | ";
      for (size_t i = 0; i < k.attrs.size(); ++i) {
        const AttrSignature &a = k.attrs[i];
        os << (i ? "; " : "") << "`" << a.name << "`: " << attrTypeName(a.type);
        if (!a.required)
          os << " (" << a.defaultValue << ")";
      }
      os << " | " << k.semantics << " |\n";
    }
  }
  os << "\n## Instructions of `fused_elementwise`\n\n"
        "Opcode i is row i; a and b are the instruction's registers, the immediates\n"
        "are read from `imms` from its fourth integer on.\n\n"
        "| opcode | name | registers | immediates | computes |\n|---|---|---|---|---|\n";
  for (const LoopOpInfo &info : kLoopOps)
    os << "| " << int64_t(info.op) << " | `" << info.name << "` | " << int(info.operands) << " | "
       << int(info.immediates) << " | " << info.meaning << " |\n";
}

} // namespace distc::artifact
