//===- WholeVariables.h - Whole values of mesh-split variables --*- C++ -*-===//
//
// A program partitioned over a process mesh keeps a slice of some
// persistent variables on each rank: per dim, the ring whose groups split
// it (Buffer.split_rings in artifact.fbs), and the slice of the rank's
// member index in that ring. Checkpoints, state dicts and exported models
// hold whole variables, so that state moves between meshes and to one
// process; these functions convert between the two.
//
// gatherWhole is a collective over the rings that split the variable: every
// rank calls it for the same variables in the same order. localSlice and
// wholeShape communicate nothing. For a variable that is not split all
// three are plain copies and shapes.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_WHOLEVARIABLES_H
#define DISTC_RUNTIME_WHOLEVARIABLES_H

#include "distc/Runtime/Session.h"

#include <string>

namespace distc::runtime {

/// The shape of the whole variable `name`: its buffer's shape with each
/// split dim times its ring's group size.
Status wholeShape(const Session &session, const std::string &name, Shape &shape);

/// A host copy of the whole variable `name`, all-gathered over the rings
/// that split it.
Status gatherWhole(const Session &session, const std::string &name, Tensor &whole);

/// This rank's slice of `whole` (host memory), a value of the whole
/// variable `name`: the shape and dtype must be wholeShape's and the
/// buffer's.
Status localSlice(const Session &session, const std::string &name, const Tensor &whole,
                  Tensor &local);

} // namespace distc::runtime

#endif // DISTC_RUNTIME_WHOLEVARIABLES_H
