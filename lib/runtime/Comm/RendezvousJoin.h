//===- RendezvousJoin.h - The transport-independent rendezvous --*- C++ -*-===//
//
// Steps 1 and 2 of connect() (Rendezvous.h), shared by the communicators
// that form on top of them (Gloo's, NCCL's): serve the store on rank 0,
// join it, claim the rank, agree on world size and fingerprint.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_COMM_RENDEZVOUSJOIN_H
#define DISTC_LIB_COMM_RENDEZVOUSJOIN_H

#include "distc/Comm/Rendezvous.h"
#include "distc/Comm/Store.h"

#include "Socket.h"

#include <chrono>
#include <memory>
#include <string>

namespace distc::comm::detail {

/// False with `error` when the rank is outside [0, worldSize) or the world
/// size is not positive.
bool checkWorld(const RendezvousOptions &options, std::string &error);

/// Serves the store (rank 0, unless options.serveStore is false), connects
/// to it and agrees with every other rank on world size and fingerprint,
/// all before `deadline`. On failure `error` is set and the rendezvous has
/// been abandoned (abandonRendezvous): `server` and `store` are null.
/// `departuresBefore`, if given, receives the length of the store's
/// departure log before this rank joined: no rank of this rendezvous can
/// have left before then, so later entries are the ones that concern it
/// (a store served by a launcher may have outlived other jobs' ranks).
bool joinRendezvous(const RendezvousOptions &options, Clock::time_point deadline,
                    std::unique_ptr<StoreServer> &server, std::shared_ptr<Store> &store,
                    std::string &error, size_t *departuresBefore = nullptr);

/// Leaves the store; rank 0 then keeps serving it until every other rank
/// has come and gone (at most until `deadline`), so that they read the
/// verdict from it rather than "cannot reach" or "closed the connection".
void abandonRendezvous(const RendezvousOptions &options, Clock::time_point deadline,
                       std::unique_ptr<StoreServer> &server, std::shared_ptr<Store> &store);

/// The time left until `deadline`, at least 1 ms.
std::chrono::milliseconds leftUntil(Clock::time_point deadline);

} // namespace distc::comm::detail

#endif // DISTC_LIB_COMM_RENDEZVOUSJOIN_H
