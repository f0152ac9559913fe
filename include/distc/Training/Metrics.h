//===- Metrics.h - Training metrics file and progress line ------*- C++ -*-===//
//
// MetricsWriter appends one JSON object per line (JSON Lines) to the
// `--metrics FILE`, flushing after each line so that a reader (or a crash)
// sees every completed step:
//   {"step":120,"epoch":2,"loss":0.4132,"lr":0.01,"samples_per_sec":5123.4}
// plus any extra fields (e.g. "eval_loss", "eval_accuracy"). Non-finite
// numbers, which JSON cannot represent, are written as null. A resumed run
// appends; steps between the last checkpoint and a crash then appear twice,
// and readers take the last record of a step.
//
// ProgressReporter shows progress on a stream. On a terminal (isatty, or
// what the caller says: a rank of a launched job writes to the launcher's
// pipe) it redraws one line in place ('\r', then the line, then "\033[K"
// to clear what a longer previous line left):
//   [##########----------] 120/500 epoch 2 loss 0.4132 5123 samples/s ETA 1m23s
// Otherwise (a log file, a pipe) it prints a plain line every N steps and at
// the end:
//   step 120/500 epoch 2 loss 0.4132 samples/s 5123 ETA 1m23s
// The ETA is this run's wall time per step so far (evaluations and
// checkpoints included) times the steps left; the last step's line shows
// the run's wall time instead ("took 2m01s"). The terminal line is redrawn
// at most every redrawInterval (and for the last step): a redraw per step
// of a fast model would cost a system call and a terminal update per step.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRAINING_METRICS_H
#define DISTC_TRAINING_METRICS_H

#include "distc/Runtime/Status.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>

namespace distc::training {

using runtime::Status;

struct MetricsRecord {
  int64_t step = 0;
  int64_t epoch = 0;
  double loss = 0;
  double lr = 0;
  double samplesPerSec = 0;
  /// Further fields, written after the fixed ones in key order; a key that
  /// repeats a fixed field is an error.
  nlohmann::json extra = nlohmann::json::object();

  /// The line's object: step, epoch, loss, lr, samples_per_sec, then the
  /// extra fields (non-finite numbers as null).
  nlohmann::ordered_json toJson() const;
};

class MetricsWriter {
public:
  MetricsWriter() = default;
  MetricsWriter(const MetricsWriter &) = delete;
  MetricsWriter &operator=(const MetricsWriter &) = delete;
  MetricsWriter(MetricsWriter &&other) noexcept;
  MetricsWriter &operator=(MetricsWriter &&other) noexcept;
  ~MetricsWriter();

  /// Opens `path` for appending (append true) or truncates it.
  Status open(const std::string &path, bool append);
  bool isOpen() const { return file_ != nullptr; }

  /// Writes one line and flushes it.
  Status write(const MetricsRecord &record);
  /// Writes an arbitrary object as one line (e.g. a final summary).
  Status writeJson(const nlohmann::json &object);

  Status close();

private:
  Status writeLine(const std::string &text);

  std::FILE *file_ = nullptr;
  std::string path_;
};

/// "42s", "1m05s", "1h02m", "3d04h" (rounded to the second); "?" for a
/// negative or non-finite time.
std::string formatDuration(double seconds);

/// A rate for the progress line: "0.42", "5123", "51.2k", "1.23M".
std::string formatRate(double perSecond);

/// Seconds left when `done` steps took `elapsed` seconds and `left` remain;
/// none before the first step.
std::optional<double> remainingSeconds(double elapsed, int64_t done, int64_t left);

struct ProgressOptions {
  /// Steps in the run; 0 when unknown (no bar, no "/total", no ETA).
  int64_t totalSteps = 0;
  /// The step the run starts after (a resumed run's checkpoint); the ETA
  /// is estimated from this run's steps only.
  int64_t startStep = 0;
  /// Plain mode: print every this many steps (>= 1).
  int64_t plainEvery = 50;
  /// Characters in the bar.
  int barWidth = 20;
  /// Terminal: seconds between redraws at least.
  double redrawInterval = 0.1;
  /// Overrides isatty(fileno(stream)); tests and launched ranks set it.
  std::optional<bool> terminal;
  /// Terminal: the width the line is cut to (one less, so that it never
  /// wraps: '\r' would redraw only the wrapped part). 0: the stream's
  /// terminal width, else $COLUMNS (a launcher passes its own to ranks
  /// whose stderr is its pipe), else 80.
  int columns = 0;
  /// Seconds from any fixed point; a steady clock unless set (tests).
  std::function<double()> clock;
};

/// What one progress line shows.
struct ProgressSample {
  int64_t step = 0;
  int64_t epoch = 0;
  double loss = 0;
  double samplesPerSec = 0;
  /// Wall time of this run so far.
  double seconds = 0;
};

class ProgressReporter {
public:
  /// Does not own `stream`. The run's wall time starts now.
  ProgressReporter(std::FILE *stream, ProgressOptions options);

  bool isTerminal() const { return terminal_; }

  /// Reports that `step` (1-based count of steps done) has finished.
  void update(int64_t step, int64_t epoch, double loss, double samplesPerSec);

  /// Prints a line that must not be overwritten (e.g. an eval result): on
  /// a terminal the progress line is cleared first and redrawn after it.
  void message(const std::string &line);

  /// Ends the progress: on a terminal the final state with a newline; in
  /// plain mode the last step unless it was just printed.
  void finish();

  /// The text of the progress line for `sample` (no '\r' or newline).
  std::string formatLine(const ProgressSample &sample) const;

private:
  void draw(const std::string &line);
  double now() const;

  std::FILE *stream_;
  ProgressOptions options_;
  bool terminal_;
  double start_ = 0;
  double lastDraw_ = 0;
  bool drawn_ = false;
  bool haveLast_ = false;
  bool lastPrinted_ = false;
  ProgressSample last_;
};

} // namespace distc::training

#endif // DISTC_TRAINING_METRICS_H
