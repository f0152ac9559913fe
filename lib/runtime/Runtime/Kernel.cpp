//===- Kernel.cpp - Kernel context and registry ---------------------------===//

#include "distc/Runtime/Kernel.h"

#include "distc/Artifact/KernelSignatures.h"

#include <cstdlib>

namespace distc::runtime {

std::string KernelContext::origin() const {
  return call_.origin() ? call_.origin()->str() : std::string();
}

Tensor &KernelContext::input(int i) const {
  if (i >= numInputs() || !inputs_[i])
    fail("missing input " + std::to_string(i));
  return *inputs_[i];
}

Tensor &KernelContext::output(int i) const {
  if (i >= numOutputs() || !outputs_[i])
    fail("missing output " + std::to_string(i));
  return *outputs_[i];
}

Collectives *KernelContext::collectives(int64_t ringId) const {
  if (ringId == 0)
    return collectives_;
  if (rings_)
    for (const auto &[id, c] : *rings_)
      if (id == ringId)
        return c;
  fail("ring " + std::to_string(ringId) +
       " has no communicator in this session (a ring the artifact's ring table lacks, or a "
       "session on another number of ranks than the artifact's world size)");
}

Tensor *KernelContext::optionalInput(int i) const { return i < numInputs() ? inputs_[i] : nullptr; }

Tensor *KernelContext::optionalOutput(int i) const {
  return i < numOutputs() ? outputs_[i] : nullptr;
}

const distc::fb::Attr *KernelContext::findAttr(std::string_view name) const {
  if (!call_.attrs())
    return nullptr;
  // Linear: calls have a handful of attributes, and this does not rely on
  // the writer having sorted them.
  for (const distc::fb::Attr *a : *call_.attrs())
    if (a->name() && a->name()->string_view() == name)
      return a;
  return nullptr;
}

const char *KernelContext::declaredDefault(std::string_view name) const {
  const artifact::KernelSignature *kernel =
      call_.kernel() ? artifact::findKernelSignature(call_.kernel()->string_view()) : nullptr;
  const artifact::AttrSignature *attr = kernel ? kernel->findAttr(name) : nullptr;
  return attr && attr->defaultValue ? attr->defaultValue : "0";
}

int64_t KernelContext::intAttr(std::string_view name) const {
  const auto *a = findAttr(name);
  if (a && a->type() == distc::fb::AttrType::Int)
    return a->i();
  return std::strtoll(declaredDefault(name), nullptr, 10);
}

double KernelContext::floatAttr(std::string_view name) const {
  const auto *a = findAttr(name);
  if (a && a->type() == distc::fb::AttrType::Float)
    return a->f();
  return std::strtod(declaredDefault(name), nullptr);
}

std::string KernelContext::stringAttr(std::string_view name) const {
  const auto *a = findAttr(name);
  if (a)
    return a->s() ? a->s()->str() : std::string();
  // Absent: the declared default, or empty when there is none.
  const artifact::KernelSignature *kernel =
      call_.kernel() ? artifact::findKernelSignature(call_.kernel()->string_view()) : nullptr;
  const artifact::AttrSignature *attr = kernel ? kernel->findAttr(name) : nullptr;
  return attr && attr->defaultValue ? attr->defaultValue : std::string();
}

std::vector<int64_t> KernelContext::intsAttr(std::string_view name) const {
  const auto *a = findAttr(name);
  if (!a || !a->ints())
    return {};
  return std::vector<int64_t>(a->ints()->begin(), a->ints()->end());
}

std::vector<double> KernelContext::floatsAttr(std::string_view name) const {
  const auto *a = findAttr(name);
  if (!a || !a->floats())
    return {};
  return std::vector<double>(a->floats()->begin(), a->floats()->end());
}

void KernelContext::fail(const std::string &message) const { throw KernelError(message); }

KernelFn KernelRegistry::find(std::string_view name) const {
  auto it = kernels_.find(name);
  return it == kernels_.end() ? nullptr : it->second;
}

std::vector<std::string> KernelRegistry::names() const {
  std::vector<std::string> out;
  for (const auto &[name, fn] : kernels_)
    out.push_back(name);
  return out;
}

} // namespace distc::runtime
