//===- NumpyShuffleTest.cpp - numpy's legacy shuffle, reproduced ----------===//
//
// The expected orders are numpy's own:
//   np.random.seed(s); x = list(range(n)); np.random.shuffle(x)
//
//===----------------------------------------------------------------------===//

#include "distc/ParameterServer/NumpyShuffle.h"

#include <gtest/gtest.h>

using distc::ps::numpyShuffleOrder;

namespace {

TEST(NumpyShuffle, MatchesNumpyLegacyRandomState) {
  EXPECT_EQ(numpyShuffleOrder(6, 0), (std::vector<size_t>{5, 2, 1, 3, 0, 4}));
  EXPECT_EQ(numpyShuffleOrder(6, 1), (std::vector<size_t>{2, 1, 4, 0, 3, 5}));
  EXPECT_EQ(numpyShuffleOrder(6, 7), (std::vector<size_t>{3, 5, 0, 2, 1, 4}));
  EXPECT_EQ(numpyShuffleOrder(5, 0), (std::vector<size_t>{2, 0, 1, 3, 4}));
  // Paddle's test network: [fc_b, fc_w] with the default seed 0.
  EXPECT_EQ(numpyShuffleOrder(2, 0), (std::vector<size_t>{1, 0}));
}

TEST(NumpyShuffle, ShortListsStay) {
  EXPECT_TRUE(numpyShuffleOrder(0, 3).empty());
  EXPECT_EQ(numpyShuffleOrder(1, 3), (std::vector<size_t>{0}));
}

} // namespace
