//===- WholeVariables.cpp - Whole values of mesh-split variables ----------===//
//
// A split dim d over a ring of g members is the concatenation along d of
// the members' slices in member order: the whole tensor's g chunks along d
// (AxisChunks.h), chunk k member k's slice. The gather unpacks the
// all-gathered slices into their chunks; the slice copies its own out.
//
//===----------------------------------------------------------------------===//

#include "distc/Runtime/WholeVariables.h"

#include "AxisChunks.h"

#include <cstring>

namespace distc::runtime {
namespace {

/// The split rings of `name` with this rank's member in each, for messages
/// naming the variable.
Status splitMembers(const Session &session, const std::string &name,
                    std::vector<Session::RingMember> &members, Tensor &local) {
  local = session.persistent(name);
  if (!local.defined())
    return Status::error("'" + name + "' is not a persistent variable of " +
                         session.artifact().name());
  std::vector<int32_t> rings = session.splitRings(name);
  members.assign(local.shape().size(), Session::RingMember());
  for (size_t d = 0; d < rings.size() && d < members.size(); ++d)
    if (rings[d] >= 0)
      if (Status s = session.ringMember(rings[d], members[d]); !s.ok())
        return Status::error("variable '" + name + "' is split on dim " + std::to_string(d) +
                             ": " + s.message());
  return Status::success();
}

} // namespace

Status wholeShape(const Session &session, const std::string &name, Shape &shape) {
  std::vector<Session::RingMember> members;
  Tensor local;
  if (Status s = splitMembers(session, name, members, local); !s.ok())
    return s;
  shape = local.shape();
  for (size_t d = 0; d < shape.size(); ++d)
    shape[d] *= members[d].size;
  return Status::success();
}

Status gatherWhole(const Session &session, const std::string &name, Tensor &whole) {
  std::vector<Session::RingMember> members;
  Tensor local;
  if (Status s = splitMembers(session, name, members, local); !s.ok())
    return s;
  Backend &backend = session.backend();
  Tensor current = local.clone();
  for (size_t d = 0; d < members.size(); ++d) {
    const Session::RingMember &m = members[d];
    if (m.size == 1)
      continue;
    // The collective runs on the backend's memory (a GPU communicator's
    // device memory); the blocks are rearranged on the host.
    Tensor in = backend.allocate(current.dtype(), current.shape());
    backend.copy(in.data(), current.data(), current.byteSize());
    Tensor gathered = backend.allocate(current.dtype(), {int64_t(m.size) * current.numel()});
    Status s = m.comm ? m.comm->allgather(in, gathered)
                      : Status::error("no communicator for a group of " + std::to_string(m.size));
    if (s.ok())
      s = backend.synchronize();
    if (!s.ok())
      return Status::error("gathering variable '" + name + "' (dim " + std::to_string(d) +
                           "): " + s.message());
    std::vector<uint8_t> host(gathered.byteSize());
    backend.copy(host.data(), gathered.data(), host.size());
    Shape shape = current.shape();
    shape[d] *= m.size;
    Tensor next(current.dtype(), shape);
    forEachChunkRun(shape, dtypeSize(next.dtype()), int(d), m.size,
                    [&](int, size_t packed, size_t whole, size_t bytes) {
                      std::memcpy(next.data<uint8_t>() + whole, host.data() + packed, bytes);
                    });
    current = std::move(next);
  }
  whole = std::move(current);
  return Status::success();
}

Status localSlice(const Session &session, const std::string &name, const Tensor &whole,
                  Tensor &local) {
  std::vector<Session::RingMember> members;
  Tensor buffer;
  if (Status s = splitMembers(session, name, members, buffer); !s.ok())
    return s;
  Shape expected;
  if (Status s = wholeShape(session, name, expected); !s.ok())
    return s;
  if (!whole.defined() || whole.dtype() != buffer.dtype() || whole.shape() != expected)
    return Status::error("variable '" + name + "' is " +
                         (whole.defined() ? whole.typeString() : std::string("undefined")) +
                         " but the artifact declares " + formatType(buffer.dtype(), expected));
  Tensor current = whole;
  for (size_t d = 0; d < members.size(); ++d) {
    const Session::RingMember &m = members[d];
    if (m.size == 1)
      continue;
    Shape shape = current.shape();
    shape[d] /= m.size;
    Tensor next(current.dtype(), shape);
    const size_t base = size_t(m.index) * next.byteSize();
    forEachChunkRun(current.shape(), dtypeSize(next.dtype()), int(d), m.size,
                    [&](int chunk, size_t packed, size_t whole, size_t bytes) {
                      if (chunk == m.index)
                        std::memcpy(next.data<uint8_t>() + packed - base,
                                    current.data<uint8_t>() + whole, bytes);
                    });
    current = std::move(next);
  }
  local = current.defined() && current.data() == whole.data() ? whole.clone() : current;
  return Status::success();
}

} // namespace distc::runtime
