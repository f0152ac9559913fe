//===- GlooStore.cpp - The rendezvous store as a Gloo store ---------------===//

#include "distc/Comm/GlooStore.h"

#include <gloo/common/error.h>

namespace distc::comm {

GlooStore::GlooStore(distc::comm::Store &store, std::string prefix,
                     std::chrono::milliseconds timeout)
    : store_(store), prefix_(std::move(prefix)),
      timeout_(timeout.count() > 0 ? timeout : store.timeout()) {}

std::string GlooStore::key(const std::string &k) const {
  return prefix_.empty() ? k : prefix_ + "/" + k;
}

// gloo::IoException is constructed directly (not with GLOO_THROW_IO_EXCEPTION)
// so the message stays our one line, without a source location prefix.

void GlooStore::set(const std::string &k, const std::vector<char> &data) {
  Status s = store_.set(key(k), std::string(data.begin(), data.end()));
  if (!s.ok())
    throw gloo::IoException(s.message());
}

std::vector<char> GlooStore::get(const std::string &k) {
  std::string value;
  Status s = store_.get(key(k), value, timeout_);
  if (!s.ok())
    throw gloo::IoException(s.message());
  return std::vector<char>(value.begin(), value.end());
}

void GlooStore::wait(const std::vector<std::string> &keys) { wait(keys, timeout_); }

void GlooStore::wait(const std::vector<std::string> &keys, const std::chrono::milliseconds &) {
  std::vector<std::string> full;
  for (const std::string &k : keys)
    full.push_back(key(k));
  Status s = store_.wait(full, timeout_);
  if (!s.ok())
    throw gloo::IoException(s.message());
}

} // namespace distc::comm
