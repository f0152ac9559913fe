//===- MergedOptimizer.cpp - merged_sgd, merged_momentum, merged_adam -----===//
//
// Multi-tensor forms of sgd, momentum and adam (Paddle's merged_momentum
// and merged_adam): one call updates `count` parameters with their state.
// A model has many small parameters (biases, norm scales), and one kernel
// call with its own parallel loop each costs more in dispatch and thread
// wake-ups than the arithmetic; here the elements of all parameters form
// one concatenated range, split over the threads by a single parallel loop
// whose pieces may span several parameters.
//
// Operands come grouped by kind: the `count` params, then the `count`
// grads, and so on, then the shared learning rate; results likewise.
// Group i computes exactly what the one-parameter kernel computes on its
// operands: the element loops and the per-step constants are
// OptimizerUpdates.h's, run through vectorized() as there, and an
// element's result does not depend on the piece it falls in. Outputs may
// be their inputs' buffers (in-place updates), as for those kernels.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "OptimizerUpdates.h"
#include "Registration.h"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

namespace distc::runtime::kernels {
namespace {

/// The number of parameters, checked against the call's operand counts:
/// `inputsPer` inputs per parameter plus the learning rate, `outputsPer`
/// outputs per parameter. `layout` names them for the message.
int64_t groupCount(const KernelContext &ctx, int inputsPer, int outputsPer, const char *layout) {
  const int64_t n = ctx.intAttr("count");
  if (n < 1)
    ctx.fail("count " + std::to_string(n) + " must be at least 1");
  if (ctx.numInputs() != inputsPer * n + 1 || ctx.numOutputs() != outputsPer * n)
    ctx.fail("count " + std::to_string(n) + " needs " + std::to_string(inputsPer * n + 1) +
             " operands and " + std::to_string(outputsPer * n) + " results (" + layout +
             "); the call has " + std::to_string(ctx.numInputs()) + " and " +
             std::to_string(ctx.numOutputs()));
  return n;
}

/// "name[i]": an operand of group i in messages.
std::string named(const char *name, int64_t i) {
  return std::string(name) + "[" + std::to_string(i) + "]";
}

/// Checks every group i: its param has group 0's dtype (one loop serves
/// all), and the operands of the input slots `inputs` (slots 1, 2, ...
/// after the params) and of the output slots `outputs` (slots 0, 1, ...)
/// have its dtype and size. Slot k holds operands k·n to k·n + n − 1.
void expectGroupsLikeParams(const KernelContext &ctx, int64_t n,
                            std::initializer_list<const char *> inputs,
                            std::initializer_list<const char *> outputs) {
  const Tensor &first = ctx.input(0);
  for (int64_t i = 0; i < n; ++i) {
    const Tensor &param = ctx.input(int(i));
    const std::string paramName = named("param", i);
    expectSameDtype(ctx, param, first, paramName.c_str(), "param[0]");
    auto expectLike = [&](const Tensor &t, const char *slot) {
      expectLikeParam(ctx, param, {{&t, named(slot, i).c_str()}}, paramName.c_str());
    };
    int64_t slot = 1;
    for (const char *name : inputs)
      expectLike(ctx.input(int(slot++ * n + i)), name);
    slot = 0;
    for (const char *name : outputs)
      expectLike(ctx.output(int(slot++ * n + i)), name);
  }
}

/// offsets[i] = the first element of group i in the concatenated range;
/// offsets[n] = its size.
std::vector<int64_t> groupOffsets(const KernelContext &ctx, int64_t n) {
  std::vector<int64_t> offsets(size_t(n) + 1, 0);
  for (int64_t i = 0; i < n; ++i)
    offsets[i + 1] = offsets[i] + ctx.input(int(i)).numel();
  return offsets;
}

/// Calls update(i, begin, end) for each group i that the piece [begin, end)
/// of the concatenated range overlaps, with begin and end relative to the
/// group's first element.
template <typename F>
DISTC_ALWAYS_INLINE void forGroupsIn(const int64_t *offsets, int64_t groups, int64_t begin,
                                     int64_t end, F update) {
  int64_t i = std::upper_bound(offsets, offsets + groups + 1, begin) - offsets - 1;
  for (; i < groups && offsets[i] < end; ++i) {
    const int64_t lo = std::max(begin, offsets[i]), hi = std::min(end, offsets[i + 1]);
    if (lo < hi) {
      DISTC_INLINE_CALLS update(i, lo - offsets[i], hi - offsets[i]);
    }
  }
}

/// One loop over the concatenated range of all groups, split over the
/// kernel threads, each piece run through vectorized(); update(i, begin,
/// end) as forGroupsIn.
template <typename F>
void forAllGroups(const std::vector<int64_t> &offsets, int64_t grain, const F &update) {
  const int64_t *off = offsets.data();
  const int64_t groups = int64_t(offsets.size()) - 1;
  vectorizedFor(offsets.back(), grain, [=, &update](int64_t begin, int64_t end) {
    forGroupsIn(off, groups, begin, end, update);
  });
}

template <typename T> struct SgdGroup {
  const T *p, *g;
  T *po;
};

/// Inputs [param_0.., grad_0.., lr], outputs [param_out_0..].
void mergedSgdKernel(KernelContext &ctx) {
  const int64_t n = groupCount(ctx, 2, 1, "params, grads, lr; param_outs");
  const double lr = floatScalar(ctx, ctx.input(int(2 * n)), "lr");
  const Tensor &first = ctx.input(0);
  expectGroupsLikeParams(ctx, n, {"grad"}, {"param_out"});
  const std::vector<int64_t> offsets = groupOffsets(ctx, n);
  dispatchFloat(ctx, first.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<SgdGroup<T>> groups(n);
    for (int64_t i = 0; i < n; ++i)
      groups[i] = {ctx.input(int(i)).data<T>(), ctx.input(int(n + i)).data<T>(),
                   ctx.output(int(i)).data<T>()};
    const SgdGroup<T> *gs = groups.data();
    const T lrT = T(lr);
    forAllGroups(offsets, kCheapGrain, [gs, lrT](int64_t i, int64_t b, int64_t e) {
      const SgdGroup<T> &s = gs[i];
      sgdUpdate<T>(s.p + b, s.g + b, s.po + b, e - b, lrT);
    });
  });
}

template <typename T> struct MomentumGroup {
  const T *p, *g, *v;
  T *po, *vo;
};

/// Inputs [param_0.., grad_0.., velocity_0.., lr], outputs [param_out_0..,
/// velocity_out_0..].
void mergedMomentumKernel(KernelContext &ctx) {
  const int64_t n =
      groupCount(ctx, 3, 2, "params, grads, velocities, lr; param_outs, velocity_outs");
  const double lr = floatScalar(ctx, ctx.input(int(3 * n)), "lr");
  const MomentumCoeffs c{lr, ctx.floatAttr("mu"), ctx.floatAttr("regularization_coeff"),
                         ctx.intAttr("use_nesterov") != 0};
  const Tensor &first = ctx.input(0);
  expectGroupsLikeParams(ctx, n, {"grad", "velocity"}, {"param_out", "velocity_out"});
  const std::vector<int64_t> offsets = groupOffsets(ctx, n);
  dispatchFloat(ctx, first.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<MomentumGroup<T>> groups(n);
    for (int64_t i = 0; i < n; ++i)
      groups[i] = {ctx.input(int(i)).data<T>(), ctx.input(int(n + i)).data<T>(),
                   ctx.input(int(2 * n + i)).data<T>(), ctx.output(int(i)).data<T>(),
                   ctx.output(int(n + i)).data<T>()};
    const MomentumGroup<T> *gs = groups.data();
    forAllGroups(offsets, kCheapGrain, [gs, &c](int64_t i, int64_t b, int64_t e) {
      const MomentumGroup<T> &s = gs[i];
      momentumUpdate<T>(s.p + b, s.g + b, s.v + b, s.po + b, s.vo + b, e - b, c);
    });
  });
}

template <typename T> struct AdamGroup {
  const T *p, *g, *m1, *m2;
  T *po, *m1o, *m2o;
  AdamCoeffs c; // per group: the beta powers are each parameter's own
};

/// Inputs [param_0.., grad_0.., moment1_0.., moment2_0.., beta1_pow_0..,
/// beta2_pow_0.., lr], outputs [param_out_0.., moment1_out_0..,
/// moment2_out_0.., beta1_pow_out_0.., beta2_pow_out_0..].
void mergedAdamKernel(KernelContext &ctx) {
  const int64_t n = groupCount(ctx, 6, 5,
                               "params, grads, moment1s, moment2s, beta1_pows, beta2_pows, lr; "
                               "param_outs, moment1_outs, moment2_outs, beta1_pow_outs, "
                               "beta2_pow_outs");
  const double lr = floatScalar(ctx, ctx.input(int(6 * n)), "lr");
  const double b1 = ctx.floatAttr("beta1"), b2 = ctx.floatAttr("beta2");
  const double eps = ctx.floatAttr("epsilon");
  // Only the decoupled (adamw) update uses weight_decay.
  const double decay = ctx.intAttr("decoupled") != 0 ? ctx.floatAttr("weight_decay") : 0.0;
  const Tensor &first = ctx.input(0);
  // Every beta power is read (and every output one checked) before any
  // output is written: the outputs are normally the inputs' buffers.
  expectGroupsLikeParams(ctx, n, {"grad", "moment1", "moment2"},
                         {"param_out", "moment1_out", "moment2_out"});
  std::vector<double> b1pows(n), b2pows(n);
  for (int64_t i = 0; i < n; ++i) {
    b1pows[i] = floatScalar(ctx, ctx.input(int(4 * n + i)), named("beta1_pow", i).c_str());
    b2pows[i] = floatScalar(ctx, ctx.input(int(5 * n + i)), named("beta2_pow", i).c_str());
    floatScalar(ctx, ctx.output(int(3 * n + i)), named("beta1_pow_out", i).c_str());
    floatScalar(ctx, ctx.output(int(4 * n + i)), named("beta2_pow_out", i).c_str());
  }
  const std::vector<int64_t> offsets = groupOffsets(ctx, n);
  dispatchFloat(ctx, first.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<AdamGroup<T>> groups(n);
    for (int64_t i = 0; i < n; ++i)
      groups[i] = {ctx.input(int(i)).data<T>(),
                   ctx.input(int(n + i)).data<T>(),
                   ctx.input(int(2 * n + i)).data<T>(),
                   ctx.input(int(3 * n + i)).data<T>(),
                   ctx.output(int(i)).data<T>(),
                   ctx.output(int(n + i)).data<T>(),
                   ctx.output(int(2 * n + i)).data<T>(),
                   adamCoeffs(b1, b2, eps, decay, lr, b1pows[i], b2pows[i])};
    const AdamGroup<T> *gs = groups.data();
    forAllGroups(offsets, kCostlyGrain, [gs](int64_t i, int64_t b, int64_t e) {
      const AdamGroup<T> &s = gs[i];
      adamUpdate<T>(s.p + b, s.g + b, s.m1 + b, s.m2 + b, s.po + b, s.m1o + b, s.m2o + b, e - b,
                    s.c);
    });
  });
  // The beta powers advance after the update, which used their old values.
  for (int64_t i = 0; i < n; ++i) {
    setFloatScalar(ctx.output(int(3 * n + i)), b1pows[i] * b1);
    setFloatScalar(ctx.output(int(4 * n + i)), b2pows[i] * b2);
  }
}

} // namespace

void registerMergedOptimizerKernels(KernelRegistry &r) {
  r.add("merged_sgd", mergedSgdKernel);
  r.add("merged_momentum", mergedMomentumKernel);
  r.add("merged_adam", mergedAdamKernel);
}

} // namespace distc::runtime::kernels
