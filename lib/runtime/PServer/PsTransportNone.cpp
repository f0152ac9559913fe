//===- PsTransportNone.cpp - A build without Gloo -------------------------===//
//
// Without Gloo there is no transport: forming a world of trainers and
// servers fails, saying why, and nothing else is reachable.
//
//===----------------------------------------------------------------------===//

#include "PsWorldImpl.h"

namespace distc::pserver::detail {

std::unique_ptr<Transport> connectTransport(PsWorld::Impl &, std::string &error) {
  error = "parameter-server training needs Gloo, and this build of distc has none "
          "(install libgloo-dev, or pass -DDISTC_GLOO_INCLUDE_DIR and -DDISTC_GLOO_LIBRARY, "
          "and rebuild)";
  return nullptr;
}

} // namespace distc::pserver::detail
