//===- Kernel.h - Kernel interface and registry -----------------*- C++ -*-===//
//
// A kernel is a function over a KernelContext: the call from the artifact
// (attributes, origin) and its input and output tensors, already allocated
// with their resolved shapes. Kernels validate shapes and dtypes against
// their declarations (KernelSignatures.h, docs/kernels.md) and report a
// violation with KernelContext::fail, which throws KernelError; the executor
// catches it at the call boundary and adds the kernel name and the call's
// origin to the message. No exception leaves the runtime library.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_KERNEL_H
#define DISTC_RUNTIME_KERNEL_H

#include "distc/Artifact/artifact_generated.h"
#include "distc/Runtime/Collectives.h"
#include "distc/Runtime/Tensor.h"

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace distc::runtime {

/// A kernel's complaint about its operands; carries a message without the
/// call's origin (the executor adds it).
class KernelError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class Backend;
class ParameterServerChannel;

/// A session's communicators of the artifact's rings other than ring 0, by
/// ring id: null for a ring whose groups have one rank (its collectives
/// are local and need none).
using RingCollectives = std::vector<std::pair<int64_t, Collectives *>>;

class KernelContext {
public:
  KernelContext(const distc::fb::KernelCall &call, std::vector<Tensor *> inputs,
                std::vector<Tensor *> outputs, Collectives *collectives = nullptr,
                Backend *backend = nullptr, const RingCollectives *rings = nullptr)
      : call_(call), inputs_(std::move(inputs)), outputs_(std::move(outputs)),
        collectives_(collectives), backend_(backend), rings_(rings) {}

  const distc::fb::KernelCall &call() const { return call_; }
  std::string origin() const;

  int numInputs() const { return static_cast<int>(inputs_.size()); }
  int numOutputs() const { return static_cast<int>(outputs_.size()); }
  /// Required operands; fail() if absent.
  Tensor &input(int i) const;
  Tensor &output(int i) const;
  /// Optional operands: null when absent (-1 in the artifact or not listed).
  Tensor *optionalInput(int i) const;
  Tensor *optionalOutput(int i) const;

  /// Attribute accessors. An absent attribute takes the default its
  /// kernel's declaration gives (KernelSignatures.h; validation has already
  /// ensured that required ones exist with the right type).
  int64_t intAttr(std::string_view name) const;
  double floatAttr(std::string_view name) const;
  std::string stringAttr(std::string_view name) const;
  std::vector<int64_t> intsAttr(std::string_view name) const;
  std::vector<double> floatsAttr(std::string_view name) const;
  bool hasAttr(std::string_view name) const { return findAttr(name) != nullptr; }

  [[noreturn]] void fail(const std::string &message) const;

  /// The ranks' communicator, or null when this process is the only rank.
  Collectives *collectives() const { return collectives_; }
  /// The communicator of this rank's group in ring `ringId` (0: the one
  /// above), or null when the group is this rank alone; fail() for a ring
  /// the session has no communicator for.
  Collectives *collectives(int64_t ringId) const;
  /// The backend the call runs on (its device state, e.g. a cuBLAS
  /// handle); null for a kernel called outside a Session.
  Backend *backend() const { return backend_; }
  /// The trainer's channel to its parameter servers (ParameterServerChannel.h),
  /// or null outside the parameter-server mode.
  ParameterServerChannel *parameterServers() const { return parameterServers_; }
  void setParameterServers(ParameterServerChannel *channel) { parameterServers_ = channel; }

private:
  const distc::fb::Attr *findAttr(std::string_view name) const;
  /// The declared default of attribute `name` of this call's kernel ("0"
  /// when the declaration has none).
  const char *declaredDefault(std::string_view name) const;

  const distc::fb::KernelCall &call_;
  std::vector<Tensor *> inputs_;
  std::vector<Tensor *> outputs_;
  Collectives *collectives_ = nullptr;
  Backend *backend_ = nullptr;
  const RingCollectives *rings_ = nullptr;
  ParameterServerChannel *parameterServers_ = nullptr;
};

using KernelFn = void (*)(KernelContext &);

/// Name → kernel function. Backends own one; every name must appear in the
/// artifact's kernel signature table (KernelSignatures.h).
class KernelRegistry {
public:
  void add(std::string name, KernelFn fn) { kernels_[std::move(name)] = fn; }
  KernelFn find(std::string_view name) const;
  std::vector<std::string> names() const;

private:
  std::map<std::string, KernelFn, std::less<>> kernels_;
};

/// The CPU kernels: every kernel of docs/kernels.md.
const KernelRegistry &cpuKernelRegistry();

} // namespace distc::runtime

#endif // DISTC_RUNTIME_KERNEL_H
