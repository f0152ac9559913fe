//===- Dispatcher.cpp - Which server holds a block ------------------------===//

#include "distc/ParameterServer/Dispatcher.h"

#include "distc/Artifact/ArtifactFile.h"

namespace distc::ps {

std::vector<std::string> RoundRobin::dispatch(const std::vector<std::string> &names) {
  std::vector<std::string> out;
  for (size_t i = 0; i < names.size(); ++i) {
    out.push_back(endpoints_[step_]);
    step_ = (step_ + 1) % endpoints_.size();
  }
  return out;
}

std::vector<std::string> HashName::dispatch(const std::vector<std::string> &names) {
  std::vector<std::string> out;
  for (const std::string &name : names) {
    uint64_t hash =
        artifact::fnv1a64(reinterpret_cast<const uint8_t *>(name.data()), name.size());
    out.push_back(endpoints_[hash % endpoints_.size()]);
  }
  return out;
}

std::unique_ptr<Dispatcher> makeDispatcher(const std::string &method,
                                           std::vector<std::string> endpoints) {
  if (endpoints.empty())
    return nullptr;
  if (method == "RoundRobin")
    return std::make_unique<RoundRobin>(std::move(endpoints));
  if (method == "HashName")
    return std::make_unique<HashName>(std::move(endpoints));
  return nullptr;
}

} // namespace distc::ps
