//===- GlooStore.h - The rendezvous store as a Gloo store -------*- C++ -*-===//
//
// Gloo's rendezvous (gloo::rendezvous::Context::connectFullMesh) exchanges
// transport addresses through a gloo::rendezvous::Store. This adapter lets
// it use our TCP store. Gloo expects failures as exceptions: every failed
// call throws gloo::IoException carrying the store's one-line message, which
// GlooCommunicator catches and returns as a Status.
//
// This header includes Gloo's; code that only needs the store includes
// Store.h.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_COMM_GLOOSTORE_H
#define DISTC_COMM_GLOOSTORE_H

#include "distc/Comm/Store.h"

#include <gloo/rendezvous/store.h>

namespace distc::comm {

class GlooStore : public gloo::rendezvous::Store {
public:
  /// Keys are prefixed with `prefix` + "/" (nothing when empty), so Gloo's
  /// keys ("0", "1", ...) cannot collide with anyone else's. Every wait
  /// and get is bounded by `timeout` (zero: the store's timeout), whatever
  /// timeout Gloo passes: Gloo derives that one from its context's timeout,
  /// which also bounds its connection setup and may be set differently.
  explicit GlooStore(distc::comm::Store &store, std::string prefix = "",
                     std::chrono::milliseconds timeout = std::chrono::milliseconds(0));

  void set(const std::string &key, const std::vector<char> &data) override;
  /// Blocks until the key exists.
  std::vector<char> get(const std::string &key) override;
  void wait(const std::vector<std::string> &keys) override;
  void wait(const std::vector<std::string> &keys,
            const std::chrono::milliseconds &timeout) override;

private:
  std::string key(const std::string &k) const;

  distc::comm::Store &store_;
  std::string prefix_;
  std::chrono::milliseconds timeout_;
};

} // namespace distc::comm

#endif // DISTC_COMM_GLOOSTORE_H
