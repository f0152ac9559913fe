//===- RankReduce.h - Host-side sums over the data-parallel ranks -*- C++ -*-===//
//
// The training loop runs on every rank of a data-parallel job with the
// session's Collectives (Session::setCollectives). The numbers it reports
// (the step's loss, evaluation metrics, throughput) are per rank until
// combined: these helpers combine them over the ranks with the same
// collectives the program uses. Without collectives the session is the only
// rank and they are the identity.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_TRAINING_RANKREDUCE_H
#define DISTC_LIB_TRAINING_RANKREDUCE_H

#include "distc/Runtime/DistModel.h"

#include <vector>

namespace distc::training::detail {

/// This process's rank and the number of ranks.
int rankOf(const runtime::DistModel &model);
int worldSizeOf(const runtime::DistModel &model);

/// This rank's data-parallel replica and the number of replicas
/// (Session::dataReplica): the ranks of one replica read the same rows.
int replicaOf(const runtime::DistModel &model);
int replicasOf(const runtime::DistModel &model);

/// Whether the artifact is partitioned over a process mesh: its programs
/// exchange the rows of the replicas (so they run in lockstep on equal
/// pieces), and its fetches are whole values, the same on every rank.
bool onMesh(const runtime::DistModel &model);

/// Replaces `values` by their elementwise sum (minimum) over the ranks, in
/// float64; every rank passes as many values.
runtime::Status sumOverRanks(runtime::DistModel &model, std::vector<double> &values);
runtime::Status minOverRanks(runtime::DistModel &model, std::vector<double> &values);

} // namespace distc::training::detail

#endif // DISTC_LIB_TRAINING_RANKREDUCE_H
