//===- Episodes.h - N-way K-shot episodes for few-shot learning -*- C++ -*-===//
//
// What Paddle's few-shot readers do (Open_KS_ImageNet / Open_KS_Character
// .sample(num_images), as in Reptile's sample_mini_dataset): an episode
// draws N classes at random, then K support and Q query rows of each, and
// renumbers the classes 0..N-1 in the order they were drawn. Here it works
// on any dataset with a label column (image folders, CSV, .npy): a class is
// a label value.
//
// Episodes are numbered. Episode i of a run with seed S is drawn by its own
// std::mt19937_64 seeded with mixSeed(mixSeed(S) + i) through the portable
// draws of Random.h (a partial Fisher-Yates over the sorted classes, then
// over each class's rows in file order), so it is the same on every
// machine whatever other episodes were drawn. Data-parallel ranks take
// contiguous shares of the episode numbers of a meta-step (episodeShare):
// the union over the ranks is the serial run's episodes.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRAINING_EPISODES_H
#define DISTC_TRAINING_EPISODES_H

#include "distc/Training/Dataset.h"

#include <cstdint>
#include <string>
#include <vector>

namespace distc::training {

/// The rows of each class of a dataset's label column.
struct ClassIndex {
  /// The label column's name, and for messages where each class comes from
  /// ("digits/train/3" for class folders, "label 3" otherwise).
  std::string labelFeed;
  std::string source;
  std::vector<std::string> names;
  /// Label values in increasing order and, for each, its rows in file order.
  std::vector<int64_t> labels;
  std::vector<std::vector<int64_t>> rows;
};

/// Groups the rows of `dataset` by the integral values of its column
/// `labelFeed` (rank 1, or [N, 1]; any integer or float dtype holding
/// integers).
Status indexClasses(const Dataset &dataset, const std::string &labelFeed, ClassIndex &out);

struct EpisodeOptions {
  /// N classes, K support rows and Q query rows of each.
  int64_t ways = 5;
  int64_t shots = 1;
  int64_t queries = 1;
};

/// Whether every episode can be drawn: at least N classes, and each class
/// with at least K + Q rows. The error names the data and the smallest class:
/// "cannot draw 5-way 3-shot episodes with 1 query from column 'label' (from
/// d/train class folders): class d/train/4 has 2 rows, each class needs 4".
Status checkEpisodes(const ClassIndex &classes, const EpisodeOptions &options);

struct Episode {
  /// The drawn classes (indices into ClassIndex), episode label i = classes[i].
  std::vector<int64_t> classes;
  /// Dataset rows and their episode labels 0..N-1: support rows class by
  /// class (K each), then query rows likewise (Q each).
  std::vector<int64_t> supportRows, supportLabels, queryRows, queryLabels;
};

/// Episode number `index` of seed `seed` (see above); checkEpisodes first.
Episode drawEpisode(const ClassIndex &classes, const EpisodeOptions &options, uint64_t seed,
                    uint64_t index);

/// The rows `rows` of `dataset` with the label column replaced by `labels`
/// (in the column's dtype and shape): one batch of an episode.
Dataset episodeBatch(const Dataset &dataset, const std::string &labelFeed,
                     const std::vector<int64_t> &rows, const std::vector<int64_t> &labels);

/// Rank `rank`'s share [begin, end) of `count` episodes among `ranks`:
/// contiguous blocks, the first count mod ranks one longer (like fileShard).
std::pair<int64_t, int64_t> episodeShare(int64_t count, int rank, int ranks);

} // namespace distc::training

#endif // DISTC_TRAINING_EPISODES_H
