//===- TensorBoard.cpp - TensorBoard event files of a training run -------===//

#include "distc/Training/TensorBoard.h"

#include "distc/Training/Crc32c.h"
#include "distc/Training/tensorboard_event.pb.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unistd.h>

namespace distc::training {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

void appendLittleEndian(std::string &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::string hostName() {
  char buffer[256] = {};
  if (gethostname(buffer, sizeof buffer - 1) != 0 || buffer[0] == '\0')
    return "localhost";
  return buffer;
}

double unixSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

} // namespace

Scalars tensorBoardScalars(const MetricsRecord &record) {
  Scalars scalars = {{"train/loss", record.loss},
                     {"train/lr", record.lr},
                     {"train/samples_per_sec", record.samplesPerSec}};
  if (record.extra.is_object())
    for (const auto &[key, value] : record.extra.items()) {
      if (!value.is_number())
        continue;
      const bool eval = key.rfind("eval_", 0) == 0;
      scalars.emplace_back(eval ? "eval/" + key.substr(5) : key, value.get<double>());
    }
  return scalars;
}

std::string eventFileName(int64_t unixSeconds, const std::string &host) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%010lld", static_cast<long long>(unixSeconds));
  return std::string("events.out.tfevents.") + seconds + "." + host;
}

std::string frameRecord(const std::string &data) {
  std::string out;
  out.reserve(data.size() + 16);
  appendLittleEndian(out, data.size(), 8);
  appendLittleEndian(out, maskCrc32c(crc32c(out.data(), 8)), 4);
  out += data;
  appendLittleEndian(out, maskCrc32c(crc32c(data.data(), data.size())), 4);
  return out;
}

EventFileWriter::~EventFileWriter() { (void)close(); }

Status EventFileWriter::open(const std::string &dir) {
  if (Status s = close(); !s.ok())
    return s;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return Status::error("--tensorboard " + dir + ": cannot create the directory: " + ec.message());
  const double now = unixSeconds();
  const std::string base =
      (fs::path(dir) / eventFileName(static_cast<int64_t>(now), hostName())).string();
  // "x": never open a file another writer (a run started in the same
  // second) has created.
  for (int n = 0; !file_ && n < 100; ++n) {
    path_ = n == 0 ? base : base + "." + std::to_string(n);
    file_ = std::fopen(path_.c_str(), "wbx");
    if (!file_ && errno != EEXIST)
      return Status::error(path_ +
                           ": cannot create the TensorBoard event file: " + std::strerror(errno));
  }
  if (!file_)
    return Status::error(base + ": cannot create the TensorBoard event file: too many files of "
                                "that name");
  distc::tensorboard::Event event;
  event.set_wall_time(now);
  event.set_file_version("brain.Event:2");
  if (Status s = writeEvent(event.SerializeAsString()); !s.ok())
    return s;
  return flush();
}

Status EventFileWriter::writeEvent(const std::string &serialized) {
  if (!file_)
    return Status::error("the TensorBoard event file is not open");
  const std::string record = frameRecord(serialized);
  if (std::fwrite(record.data(), 1, record.size(), file_) != record.size())
    return Status::error(path_ +
                         ": cannot write the TensorBoard event file: " + std::strerror(errno));
  return Status::success();
}

Status EventFileWriter::write(int64_t step, const Scalars &scalars) {
  distc::tensorboard::Event event;
  event.set_wall_time(unixSeconds());
  event.set_step(step);
  distc::tensorboard::Summary *summary = event.mutable_summary();
  for (const auto &[tag, value] : scalars) {
    distc::tensorboard::Summary::Value *v = summary->add_value();
    v->set_tag(tag);
    v->set_simple_value(static_cast<float>(value));
  }
  if (Status s = writeEvent(event.SerializeAsString()); !s.ok())
    return s;
  if (Clock::now() - lastFlush_ >= flushInterval)
    return flush();
  return Status::success();
}

Status EventFileWriter::flush() {
  if (!file_)
    return Status::success();
  lastFlush_ = Clock::now();
  if (std::fflush(file_) != 0)
    return Status::error(path_ +
                         ": cannot write the TensorBoard event file: " + std::strerror(errno));
  return Status::success();
}

Status EventFileWriter::close() {
  if (!file_)
    return Status::success();
  Status flushed = flush();
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (!flushed.ok())
    return flushed;
  if (rc != 0)
    return Status::error(path_ +
                         ": cannot close the TensorBoard event file: " + std::strerror(errno));
  return Status::success();
}

} // namespace distc::training
