//===- NumpyShuffle.h - numpy's legacy shuffle, reproduced ------*- C++ -*-===//
//
// Without slice_var_up Paddle's transpiler orders the variables it hands
// to the servers with `np.random.seed(program.random_seed);
// np.random.shuffle(list)`. To place them as Paddle does, distc reproduces
// that shuffle exactly: numpy's RandomState seeds MT19937 with
// init_genrand(seed) (what std::mt19937 does), and shuffles a sequence by
// Fisher-Yates from the end, drawing j in [0, i] by masked rejection
// sampling of 32-bit outputs (its legacy `random_interval`).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_PARAMETERSERVER_NUMPYSHUFFLE_H
#define DISTC_PARAMETERSERVER_NUMPYSHUFFLE_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace distc::ps {

/// The order `np.random.seed(seed); np.random.shuffle(x)` leaves a list of
/// `n` items in: element k of the result is the original index of the item
/// at position k. `seed` must fit in 32 bits, as numpy requires.
std::vector<size_t> numpyShuffleOrder(size_t n, uint32_t seed);

} // namespace distc::ps

#endif // DISTC_PARAMETERSERVER_NUMPYSHUFFLE_H
