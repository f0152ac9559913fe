//===- LowerNn.cpp - initializers, embeddings, norms, losses, metrics -----===//

#include "ProgramLowering.h"

#include "distc/Dialect/Pd/PdOps.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>
#include <cstdlib>

using namespace mlir;

namespace distc::target {

static SymShape staticDims(Value value) {
  SymShape dims;
  for (int64_t d : cast<RankedTensorType>(value.getType()).getShape())
    dims.push_back(DimDesc::fixed(d));
  return dims;
}

LogicalResult ProgramLowering::lowerFillConstant(Operation *op) {
  Value out = op->getResult(0);
  if (!cast<RankedTensorType>(out.getType()).hasStaticShape())
    return error(op) << "fill_constant needs a static shape";
  pd::OpAttributes attrs(op);
  double value = attrs.getFloat("value");
  // Paddle writes the exact value as a string when a float would round it.
  std::string text = attrs.getString("str_value");
  if (!text.empty()) {
    char *end = nullptr;
    value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0')
      return error(op) << "str_value '" << text << "' is not a number";
  }
  FailureOr<int32_t> result = defineResult(out, staticDims(out));
  if (failed(result))
    return failure();
  emit("fill", {}, {*result}, {AttrDesc::ofFloat("value", value)});
  return success();
}

/// A nonzero seed for an initializer whose `seed` is 0: FNV-1a over the
/// program seed and the variable name, so every parameter gets its own
/// stream and the result is the same on every run and machine.
static int64_t derivedSeed(uint64_t programSeed, const std::string &name) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint8_t byte) { h = (h ^ byte) * 1099511628211ull; };
  for (int i = 0; i < 8; ++i)
    mix(static_cast<uint8_t>(programSeed >> (8 * i)));
  for (char c : name)
    mix(static_cast<uint8_t>(c));
  int64_t seed = static_cast<int64_t>(h & 0x7fffffffffffffffull);
  return seed == 0 ? 1 : seed;
}

LogicalResult ProgramLowering::lowerRandom(Operation *op) {
  Value out = op->getResult(0);
  if (!cast<RankedTensorType>(out.getType()).hasStaticShape())
    return error(op) << "random initializers need a static shape";
  pd::OpAttributes attrs(op);
  StringRef type = op->getName().getStringRef().drop_front(3);
  int64_t seed = attrs.getInt("seed");
  if (seed == 0)
    seed = derivedSeed(state.options.programSeed, nameOf(out));
  FailureOr<int32_t> result = defineResult(out, staticDims(out));
  if (failed(result))
    return failure();
  std::vector<AttrDesc> kernelAttrs = {AttrDesc::ofInt("seed", seed)};
  if (type == "uniform_random") {
    kernelAttrs.push_back(AttrDesc::ofFloat("min", attrs.getFloat("min")));
    kernelAttrs.push_back(AttrDesc::ofFloat("max", attrs.getFloat("max")));
  } else {
    kernelAttrs.push_back(AttrDesc::ofFloat("mean", attrs.getFloat("mean")));
    kernelAttrs.push_back(AttrDesc::ofFloat("std", attrs.getFloat("std")));
  }
  emit(type, {}, {*result}, kernelAttrs);
  return success();
}

LogicalResult ProgramLowering::lowerLookupTable(Operation *op) {
  Value ids = op->getOperand(0), table = op->getOperand(1);
  const SymShape &td = dimsOf(table);
  if (td.size() != 2)
    return error(op) << "W must be 2-D, got " << describe(td);
  SymShape out = dimsOf(ids);
  out.push_back(td[1]);
  FailureOr<int32_t> result = defineResult(op->getResult(0), out);
  if (failed(result))
    return failure();
  emit("gather_rows", {bufferOf(ids), bufferOf(table)}, {*result},
       {AttrDesc::ofInt("padding_idx", pd::OpAttributes(op).getInt("padding_idx"))});
  return success();
}

LogicalResult ProgramLowering::lowerLayerNorm(Operation *op) {
  auto layerNorm = cast<pd::LayerNormOp>(op);
  Value x = layerNorm.getX();
  const SymShape &xd = dimsOf(x);
  pd::OpAttributes attrs(op);
  int64_t begin = attrs.getInt("begin_norm_axis");
  if (begin < 1 || begin > static_cast<int64_t>(xd.size()))
    return error(op) << "begin_norm_axis " << begin << " out of range for X " << describe(xd);
  std::optional<DimDesc> left = product(SymShape(xd.begin(), xd.begin() + begin));
  if (!left)
    return error(op) << "cannot flatten the leading dims of " << describe(xd);
  FailureOr<int32_t> y = defineResult(op->getResult(0), xd);
  FailureOr<int32_t> mean = defineResult(op->getResult(1), {*left});
  FailureOr<int32_t> variance = defineResult(op->getResult(2), {*left});
  if (failed(y) || failed(mean) || failed(variance))
    return failure();
  int32_t scale = layerNorm.getScale() ? bufferOf(layerNorm.getScale()) : -1;
  int32_t bias = layerNorm.getBias() ? bufferOf(layerNorm.getBias()) : -1;
  emit("layer_norm", {bufferOf(x), scale, bias}, {*y, *mean, *variance},
       {AttrDesc::ofFloat("epsilon", attrs.getFloat("epsilon")),
        AttrDesc::ofInt("begin_norm_axis", begin)});
  return success();
}

/// Dropout as DistModel's eval and predict modes run it: no units dropped.
/// `downgrade_in_infer` scales by (1 - p); `upscale_in_train` already scaled
/// at training time, so the output is the input itself.
/// Dropout at training time draws a fresh mask each step: the kernel hashes
/// (seed, step, element), and the step comes from the step counter the
/// runtime writes before every train step. Eval and predict programs, and
/// ops marked is_test, use the inference form (a view or a scale).
LogicalResult ProgramLowering::lowerDropout(Operation *op) {
  pd::OpAttributes attrs(op);
  return lowerDropoutAs(op, /*y=*/nullptr, attrs.getFloat("dropout_prob"),
                        attrs.getString("dropout_implementation"), nameOf(op->getResult(0)));
}

/// fuse_dropout_add's dropout(X) + Y: dropout's kernel adds Y as it applies
/// the mask; the mask's seed derives from the replaced dropout's name.
LogicalResult ProgramLowering::lowerFusedDropoutAdd(Operation *op) {
  pd::OpAttributes attrs(op);
  std::string seedName = attrs.getString("seed_name");
  return lowerDropoutAs(op, op->getOperand(1), attrs.getFloat("p"), attrs.getString("mode"),
                        seedName.empty() ? nameOf(op->getResult(0)) : seedName);
}

LogicalResult ProgramLowering::lowerDropoutAs(Operation *op, Value y, double p, StringRef impl,
                                              const std::string &seedName) {
  Value x = op->getOperand(0);
  if (impl != "upscale_in_train" && impl != "downgrade_in_infer")
    return error(op) << "unknown dropout implementation '" << impl << "'";
  pd::OpAttributes attrs(op);
  DropoutCall call;
  call.x = bufferOf(x);
  call.y = y ? bufferOf(y) : -1;
  call.p = p;
  call.upscale = impl == "upscale_in_train";
  call.training = isTrainingDropout(op);
  Value out = op->getResult(0), mask = op->getNumResults() > 1 ? op->getResult(1) : Value();
  if (call.training) {
    call.seed = dropoutSeed(attrs.getBool("fix_seed"), attrs.getInt("seed"), seedName);
    if (mask) {
      FailureOr<int32_t> m = defineResult(mask, dimsOf(x));
      if (failed(m))
        return failure();
      call.mask = *m;
    } else {
      call.mask = addBuffer(nameOf(out) + ".mask", artifact::DType::UInt8, dimsOf(x),
                            BufferKind::Temp);
    }
  }
  FailureOr<int32_t> result =
      emitDropout(call, nameOf(out), [&] { return defineResult(out, dimsOf(x)); });
  if (failed(result))
    return failure();
  if (*result == call.x && failed(defineView(out, call.x, dimsOf(x))))
    return failure();
  return call.training ? success() : fillMaskIfRead(mask, dimsOf(x));
}

int64_t ProgramLowering::dropoutSeed(bool fixSeed, int64_t seed, const std::string &name) const {
  if (fixSeed && seed != 0)
    return seed;
  return derivedSeed(state.options.programSeed, name);
}

FailureOr<int32_t>
ProgramLowering::emitFusedDropout(Operation *op, const std::string &prefix, int32_t in, int32_t y,
                                  Value mask, const SymShape &maskDims,
                                  llvm::function_ref<FailureOr<int32_t>()> defineOut) {
  pd::OpAttributes attrs(op);
  DropoutCall call;
  call.x = in;
  call.y = y;
  call.p = attrs.getFloat(prefix + "_rate");
  call.upscale = attrs.getString(prefix + "_implementation") == "upscale_in_train";
  call.training = isTrainingDropout(op) && call.p > 0;
  if (call.p == 0)
    call.upscale = true; // x·(1 − 0) is x
  if (call.training) {
    auto seedName = op->getAttrOfType<StringAttr>(prefix + "_seed_name");
    call.seed =
        dropoutSeed(attrs.getBool(prefix + "_fix_seed"), attrs.getInt(prefix + "_seed"),
                    seedName && !seedName.getValue().empty() ? seedName.str() : nameOf(mask));
    FailureOr<int32_t> m = defineResult(mask, maskDims);
    if (failed(m))
      return failure();
    call.mask = *m;
  } else if (failed(fillMaskIfRead(mask, maskDims))) {
    return failure();
  }
  return emitDropout(call, nameOf(op->getResult(0)) + "." + prefix, defineOut);
}

LogicalResult ProgramLowering::emitLayerNorm(int32_t in, Value scale, Value bias, Value y,
                                             Value mean, Value variance, const SymShape &dims,
                                             DimDesc rows, double epsilon) {
  FailureOr<int32_t> out = defineResult(y, dims);
  FailureOr<int32_t> m = defineResult(mean, {rows});
  FailureOr<int32_t> v = defineResult(variance, {rows});
  if (failed(out) || failed(m) || failed(v))
    return failure();
  emit("layer_norm", {in, scale ? bufferOf(scale) : -1, bias ? bufferOf(bias) : -1}, {*out, *m, *v},
       {AttrDesc::ofFloat("epsilon", epsilon),
        AttrDesc::ofInt("begin_norm_axis", static_cast<int64_t>(dims.size()) - 1)});
  return success();
}

FailureOr<int32_t>
ProgramLowering::emitDropout(const DropoutCall &call, const std::string &name,
                             llvm::function_ref<FailureOr<int32_t>()> defineOut) {
  if (call.training) {
    FailureOr<int32_t> out = defineOut();
    if (failed(out))
      return failure();
    std::vector<int32_t> inputs = {call.x, stepCounter()};
    if (call.y >= 0)
      inputs.push_back(call.y);
    emit("dropout", inputs, {*out, call.mask},
         {AttrDesc::ofFloat("p", call.p), AttrDesc::ofInt("upscale", call.upscale),
          AttrDesc::ofInt("seed", call.seed)});
    return *out;
  }
  // The inference form: X itself or X·(1 − p), then Y added as
  // elementwise_add adds it.
  if (call.upscale && call.y < 0)
    return call.x;
  FailureOr<int32_t> out = defineOut();
  if (failed(out))
    return failure();
  int32_t dropped = call.x;
  if (!call.upscale) {
    dropped = call.y >= 0 ? temp(name + ".dropped", *out, dimsOf(*out)) : *out;
    emit("scale", {call.x}, {dropped},
         {AttrDesc::ofFloat("scale", 1.0 - call.p), AttrDesc::ofFloat("bias", 0.0),
          AttrDesc::ofInt("bias_after_scale", 1)});
  }
  if (call.y >= 0)
    emit("binary", {dropped, call.y}, {*out}, {AttrDesc::ofString("op", "add")});
  return *out;
}

LogicalResult ProgramLowering::lowerSoftmaxCrossEntropy(Operation *op) {
  Value logits = op->getOperand(0), label = op->getOperand(1);
  const SymShape &ld = dimsOf(logits), &yd = dimsOf(label);
  pd::OpAttributes attrs(op);
  auto axis = normalizeAxis(attrs.getInt("axis"), static_cast<int64_t>(ld.size()));
  if (!axis)
    return error(op) << "axis out of range for Logits " << describe(ld);
  if (yd.size() != ld.size())
    return error(op) << "Label " << describe(yd) << " and Logits " << describe(ld)
                     << " differ in rank";
  for (size_t i = 0; i < ld.size(); ++i)
    if (static_cast<int64_t>(i) != *axis)
      unify(ld[i], yd[i]);
  SymShape lossDims = ld;
  lossDims[*axis] = DimDesc::fixed(1);
  FailureOr<int32_t> softmax = defineResult(op->getResult(0), ld);
  FailureOr<int32_t> loss = defineResult(op->getResult(1), lossDims);
  if (failed(softmax) || failed(loss))
    return failure();
  emit("softmax_cross_entropy", {bufferOf(logits), bufferOf(label)}, {*softmax, *loss},
       {AttrDesc::ofInt("axis", *axis), AttrDesc::ofInt("soft_label", attrs.getBool("soft_label")),
        AttrDesc::ofInt("ignore_index", attrs.getInt("ignore_index"))});
  return success();
}

LogicalResult ProgramLowering::lowerTopK(Operation *op) {
  Value x = op->getOperand(0);
  const SymShape &xd = dimsOf(x);
  pd::OpAttributes attrs(op);
  int64_t rank = static_cast<int64_t>(xd.size());
  auto axis = normalizeAxis(attrs.getInt("axis"), rank);
  if (!axis || *axis != rank - 1)
    return error(op) << "top_k_v2 is supported along the last axis only";
  int64_t k = attrs.getInt("k");
  if (k < 1 || (xd.back().isStatic() && k > xd.back().value))
    return error(op) << "k = " << k << " is out of range for X " << describe(xd);
  SymShape out = xd;
  out.back() = DimDesc::fixed(k);
  FailureOr<int32_t> values = defineResult(op->getResult(0), out);
  FailureOr<int32_t> indices = defineResult(op->getResult(1), out);
  if (failed(values) || failed(indices))
    return failure();
  emit("top_k", {bufferOf(x)}, {*values, *indices},
       {AttrDesc::ofInt("k", k), AttrDesc::ofInt("largest", attrs.getBool("largest"))});
  return success();
}

LogicalResult ProgramLowering::lowerAccuracy(Operation *op) {
  Value indices = op->getOperand(1), label = op->getOperand(2);
  unify(dimsOf(indices).front(), dimsOf(label).front());
  std::vector<int32_t> outputs;
  for (Value result : op->getResults()) {
    FailureOr<int32_t> buffer = defineResult(result, staticDims(result));
    if (failed(buffer))
      return failure();
    outputs.push_back(*buffer);
  }
  emit("accuracy", {bufferOf(indices), bufferOf(label)}, outputs);
  return success();
}

} // namespace distc::target
