//===- TestArtifacts.cpp - Building small artifacts in tests --------------===//

#include "TestArtifacts.h"

#include "../../lib/runtime/Runtime/Kernels/KernelUtils.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace distc::testing {

ArtifactBuilder::ArtifactBuilder() {
  desc.producer = "distc-runtime-tests";
  desc.source = "test";
}

int ArtifactBuilder::symbol(const std::string &name) {
  desc.symbols.push_back(name);
  return int(desc.symbols.size()) - 1;
}

int ArtifactBuilder::buffer(const std::string &name, DType dtype, std::vector<DimDesc> dims,
                            BufferKind kind, int aliasOf) {
  artifact::BufferDesc b;
  b.name = name;
  b.dtype = dtype;
  b.dims = std::move(dims);
  b.kind = kind;
  b.aliasOf = aliasOf;
  desc.buffers.push_back(std::move(b));
  return int(desc.buffers.size()) - 1;
}

int ArtifactBuilder::buffer(const std::string &name, DType dtype, const Shape &shape,
                            BufferKind kind) {
  std::vector<DimDesc> dims;
  for (int64_t d : shape)
    dims.push_back(DimDesc::fixed(d));
  return buffer(name, dtype, dims, kind);
}

artifact::ProgramDesc &ArtifactBuilder::program(const std::string &mode, ProgramKind kind) {
  for (auto &p : desc.programs)
    if (p.mode == mode && p.kind == kind)
      return p;
  artifact::ProgramDesc p;
  p.mode = mode;
  p.kind = kind;
  desc.programs.push_back(std::move(p));
  return desc.programs.back();
}

void ArtifactBuilder::call(artifact::ProgramDesc &program, const std::string &kernel,
                           std::vector<int32_t> inputs, std::vector<int32_t> outputs,
                           std::vector<AttrDesc> attrs, const std::string &origin) {
  artifact::KernelCallDesc c;
  c.kernel = kernel;
  c.inputs = std::move(inputs);
  c.outputs = std::move(outputs);
  c.attrs = std::move(attrs);
  c.origin = origin.empty() ? kernel + " -> test" : origin;
  program.calls.push_back(std::move(c));
}

std::vector<uint8_t> ArtifactBuilder::fileBytes() const {
  return artifact::makeArtifactFileBytes(artifact::serializeArtifact(desc));
}

std::unique_ptr<artifact::LoadedArtifact> ArtifactBuilder::load(std::string &error) const {
  return artifact::LoadedArtifact::loadBytes(fileBytes(), "test.distc", error);
}

std::unique_ptr<runtime::Session> ArtifactBuilder::session() const {
  std::string error;
  auto loaded = load(error);
  EXPECT_TRUE(loaded) << error;
  if (!loaded)
    return nullptr;
  auto s = runtime::Session::create(std::move(loaded), nullptr, error);
  EXPECT_TRUE(s) << error;
  return s;
}

namespace {

Status runKernelWith(std::unique_ptr<runtime::Backend> backend, const std::string &kernel,
                     const std::vector<Tensor> &inputs, const std::vector<OutputSpec> &outputSpecs,
                     const std::vector<AttrDesc> &attrs, std::vector<Tensor> &outputs,
                     const std::vector<bool> &absentOutputs) {
  ArtifactBuilder b;
  auto &p = b.program("predict");
  std::vector<int32_t> ins, outs;
  TensorMap feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined()) {
      ins.push_back(-1);
      continue;
    }
    std::string name = "in" + std::to_string(i);
    ins.push_back(b.buffer(name, inputs[i].dtype(), inputs[i].shape(), BufferKind::Feed));
    p.feeds.push_back({name, ins.back()});
    feeds[name] = inputs[i];
  }
  for (size_t i = 0; i < outputSpecs.size(); ++i) {
    if (i < absentOutputs.size() && absentOutputs[i]) {
      outs.push_back(-1);
      continue;
    }
    std::string name = "out" + std::to_string(i);
    outs.push_back(b.buffer(name, outputSpecs[i].dtype, outputSpecs[i].shape));
    p.fetches.push_back({name, outs.back()});
  }
  b.call(p, kernel, ins, outs, attrs, kernel + " -> out0");
  std::string error;
  auto loaded = b.load(error);
  if (!loaded)
    return Status::error(error);
  auto session = runtime::Session::create(std::move(loaded), std::move(backend), error);
  if (!session)
    return Status::error(error);
  TensorMap fetches;
  Status s = session->run("predict", feeds, fetches);
  if (!s.ok())
    return s;
  outputs.clear();
  for (size_t i = 0; i < outputSpecs.size(); ++i)
    outputs.push_back(fetches.count("out" + std::to_string(i)) ? fetches["out" + std::to_string(i)]
                                                               : Tensor());
  return s;
}

} // namespace

Tensor run1(const std::string &kernel, const std::vector<Tensor> &inputs, const OutputSpec &spec,
            const std::vector<AttrDesc> &attrs) {
  std::vector<Tensor> out;
  Status s = runKernel(kernel, inputs, {spec}, attrs, out);
  EXPECT_TRUE(s.ok()) << kernel << ": " << s.message();
  return s.ok() ? out[0] : Tensor(spec.dtype, spec.shape);
}

void expectSameBits(const Tensor &got, const Tensor &want, const std::string &what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  if (std::memcmp(got.data(), want.data(), got.byteSize()) == 0)
    return;
  for (int64_t i = 0; i < got.numel(); ++i)
    if (elementAt(got, i) != elementAt(want, i) ||
        std::signbit(elementAt(got, i)) != std::signbit(elementAt(want, i))) {
      ADD_FAILURE() << what << ": element " << i << " is " << elementAt(got, i) << ", expected "
                    << elementAt(want, i);
      return;
    }
}

Status runKernel(const std::string &kernel, const std::vector<Tensor> &inputs,
                 const std::vector<OutputSpec> &outputSpecs, const std::vector<AttrDesc> &attrs,
                 std::vector<Tensor> &outputs, const std::vector<bool> &absentOutputs) {
  return runKernelWith(nullptr, kernel, inputs, outputSpecs, attrs, outputs, absentOutputs);
}

Status runKernelOn(std::unique_ptr<runtime::Backend> backend, const std::string &kernel,
                   const std::vector<Tensor> &inputs, const std::vector<OutputSpec> &outputSpecs,
                   const std::vector<AttrDesc> &attrs, std::vector<Tensor> &outputs) {
  return runKernelWith(std::move(backend), kernel, inputs, outputSpecs, attrs, outputs, {});
}

std::vector<double> numericGradient(const std::string &kernel, const std::vector<Tensor> &inputs,
                                    const std::vector<OutputSpec> &outputSpecs,
                                    const std::vector<AttrDesc> &attrs, int outputIndex,
                                    const Tensor &weights, int wrt, double step) {
  EXPECT_EQ(inputs[wrt].dtype(), DType::Float64);
  auto weightedOutput = [&](const std::vector<Tensor> &in) {
    std::vector<Tensor> out;
    Status s = runKernel(kernel, in, outputSpecs, attrs, out);
    EXPECT_TRUE(s.ok()) << s.message();
    if (!s.ok())
      return 0.0;
    EXPECT_EQ(out[outputIndex].numel(), weights.numel());
    double sum = 0;
    for (int64_t k = 0; k < weights.numel(); ++k)
      sum += elementAt(weights, k) * elementAt(out[outputIndex], k);
    return sum;
  };
  std::vector<double> grad(inputs[wrt].numel());
  for (int64_t i = 0; i < inputs[wrt].numel(); ++i) {
    std::vector<Tensor> in = inputs;
    in[wrt] = inputs[wrt].clone();
    double &v = in[wrt].data<double>()[i];
    const double x = v;
    v = x + step;
    const double up = weightedOutput(in);
    v = x - step;
    const double down = weightedOutput(in);
    grad[i] = (up - down) / (2 * step);
  }
  return grad;
}

Tensor randomTensor(DType dtype, const Shape &shape, std::mt19937_64 &rng, double lo, double hi) {
  Tensor t(dtype, shape);
  runtime::kernels::dispatchAny(dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < t.numel(); ++i) {
      double v;
      if (runtime::isFloatingPoint(dtype))
        v = std::uniform_real_distribution<double>(lo, hi)(rng);
      else
        v = double(std::uniform_int_distribution<int64_t>(int64_t(lo), int64_t(hi))(rng));
      t.data<T>()[i] = runtime::kernels::fromDouble<T>(v);
    }
  });
  return t;
}

Tensor tensorOf(DType dtype, const Shape &shape, const std::vector<double> &values) {
  Tensor t(dtype, shape);
  EXPECT_EQ(int64_t(values.size()), t.numel());
  runtime::kernels::dispatchAny(dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < t.numel() && i < int64_t(values.size()); ++i)
      t.data<T>()[i] = runtime::kernels::fromDouble<T>(values[i]);
  });
  return t;
}

double elementAt(const Tensor &t, int64_t i) {
  double v = 0;
  runtime::kernels::dispatchAny(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    v = runtime::kernels::toDouble(t.data<T>()[i]);
  });
  return v;
}

void expectClose(const Tensor &got, const std::vector<double> &expected, double rtol, double atol) {
  ASSERT_TRUE(got.defined());
  ASSERT_EQ(got.numel(), int64_t(expected.size())) << got.typeString();
  int failures = 0;
  for (int64_t i = 0; i < got.numel() && failures < 5; ++i) {
    double g = elementAt(got, i), e = expected[i];
    if (!(std::abs(g - e) <= atol + rtol * std::abs(e))) {
      ++failures;
      ADD_FAILURE() << "element " << i << ": got " << g << " expected " << e;
    }
  }
}

int64_t flatIndex(const Shape &shape, const std::vector<int64_t> &idx) {
  int64_t f = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    f = f * shape[d] + idx[d];
  return f;
}

std::vector<int64_t> unflatIndex(const Shape &shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

std::vector<double> broadcastRef(const Tensor &x, const Tensor &y, const Shape &out,
                                 double (*op)(double, double)) {
  std::vector<double> ref(distc::runtime::shapeNumel(out));
  for (size_t i = 0; i < ref.size(); ++i) {
    auto idx = unflatIndex(out, int64_t(i));
    auto xi = idx, yi = idx;
    for (size_t d = 0; d < idx.size(); ++d) {
      if (x.shape()[d] == 1)
        xi[d] = 0;
      if (y.shape()[d] == 1)
        yi[d] = 0;
    }
    ref[i] = op(elementAt(x, flatIndex(x.shape(), xi)), elementAt(y, flatIndex(y.shape(), yi)));
  }
  return ref;
}

std::vector<double> reduceRef(const Tensor &x, const std::vector<int64_t> &axes,
                              const std::string &op) {
  const Shape &s = x.shape();
  Shape kept;
  for (size_t d = 0; d < s.size(); ++d)
    if (std::find(axes.begin(), axes.end(), int64_t(d)) == axes.end())
      kept.push_back(s[d]);
  std::vector<double> acc(distc::runtime::shapeNumel(kept),
                          op == "max"   ? -std::numeric_limits<double>::infinity()
                          : op == "min" ? std::numeric_limits<double>::infinity()
                                        : 0.0);
  int64_t count = 1;
  for (int64_t a : axes)
    count *= s[a];
  for (int64_t i = 0; i < x.numel(); ++i) {
    auto idx = unflatIndex(s, i);
    std::vector<int64_t> k;
    for (size_t d = 0; d < s.size(); ++d)
      if (std::find(axes.begin(), axes.end(), int64_t(d)) == axes.end())
        k.push_back(idx[d]);
    int64_t o = flatIndex(kept, k);
    double v = elementAt(x, i);
    if (op == "max")
      acc[o] = std::max(acc[o], v);
    else if (op == "min")
      acc[o] = std::min(acc[o], v);
    else
      acc[o] += v;
  }
  if (op == "mean")
    for (double &v : acc)
      v /= double(count);
  return acc;
}

} // namespace distc::testing
