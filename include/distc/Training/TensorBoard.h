//===- TensorBoard.h - TensorBoard event files of a training run -*- C++ -*-===//
//
// `dist-run --mode train --tensorboard DIR` writes the run's metrics as a
// TensorBoard event file, DIR/events.out.tfevents.<unix seconds>.<host> (the
// name TensorFlow's event writer gives; TensorBoard reads every file named
// *tfevents* in a directory, so resumed runs add files next to the first).
//
// The file is a sequence of TFRecords, each
//   uint64 length, uint32 masked CRC-32C of the length bytes,
//   length bytes of data, uint32 masked CRC-32C of the data
// (little endian; Crc32c.h), whose data is one serialized Event
// (tensorboard_event.proto): first one with file_version "brain.Event:2",
// then one per training step holding simple_value scalars named as in
// tensorBoardScalars.
//
// Writes are buffered and reach the file at flush(), and at most
// flushInterval after an earlier write, so that TensorBoard shows the
// curves during a run without a system call per step.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRAINING_TENSORBOARD_H
#define DISTC_TRAINING_TENSORBOARD_H

#include "distc/Runtime/Status.h"
#include "distc/Training/Metrics.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace distc::training {

using runtime::Status;

using Scalars = std::vector<std::pair<std::string, double>>;

/// The scalars of a metrics record: "train/loss", "train/lr",
/// "train/samples_per_sec", and each number among the extra fields, the
/// evaluation's "eval_<name>" as "eval/<name>" (others under their own name).
Scalars tensorBoardScalars(const MetricsRecord &record);

/// "events.out.tfevents.<unixSeconds, 10 digits>.<host>".
std::string eventFileName(int64_t unixSeconds, const std::string &host);

/// One TFRecord: the framing above around `data`.
std::string frameRecord(const std::string &data);

class EventFileWriter {
public:
  EventFileWriter() = default;
  EventFileWriter(const EventFileWriter &) = delete;
  EventFileWriter &operator=(const EventFileWriter &) = delete;
  ~EventFileWriter();

  /// Creates `dir` if needed and a new event file in it (never an existing
  /// one: a name taken by another writer in the same second gets a ".N"
  /// suffix), and writes the file_version event.
  Status open(const std::string &dir);
  bool isOpen() const { return file_ != nullptr; }
  /// The event file's path.
  const std::string &path() const { return path_; }

  /// Appends one Event at `step` with `scalars` (as float32) and the
  /// current wall time.
  Status write(int64_t step, const Scalars &scalars);
  /// Hands everything written so far to the file system.
  Status flush();
  Status close();

  /// The longest a written event waits in the buffer (while writes go on).
  std::chrono::milliseconds flushInterval{2000};

private:
  Status writeEvent(const std::string &serialized);

  std::FILE *file_ = nullptr;
  std::string path_;
  std::chrono::steady_clock::time_point lastFlush_;
};

} // namespace distc::training

#endif // DISTC_TRAINING_TENSORBOARD_H
