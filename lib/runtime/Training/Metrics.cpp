//===- Metrics.cpp - Training metrics file and progress line --------------===//

#include "distc/Training/Metrics.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <unistd.h>

namespace distc::training {

namespace {

nlohmann::json number(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

/// Replaces non-finite numbers anywhere in `value` by null.
void nullNonFinite(nlohmann::json &value) {
  if (value.is_number_float() && !std::isfinite(value.get<double>()))
    value = nullptr;
  else if (value.is_structured())
    for (auto &child : value)
      nullNonFinite(child);
}

std::string formatNumber(const char *format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

} // namespace

nlohmann::ordered_json MetricsRecord::toJson() const {
  nlohmann::ordered_json line;
  line["step"] = step;
  line["epoch"] = epoch;
  line["loss"] = number(loss);
  line["lr"] = number(lr);
  line["samples_per_sec"] = number(samplesPerSec);
  if (extra.is_object())
    for (const auto &[key, value] : extra.items()) {
      if (line.contains(key))
        continue;
      nlohmann::json v = value;
      nullNonFinite(v);
      line[key] = nlohmann::ordered_json::parse(v.dump());
    }
  return line;
}

MetricsWriter::MetricsWriter(MetricsWriter &&other) noexcept
    : file_(other.file_), path_(std::move(other.path_)) {
  other.file_ = nullptr;
}

MetricsWriter &MetricsWriter::operator=(MetricsWriter &&other) noexcept {
  if (this != &other) {
    (void)close();
    file_ = other.file_;
    path_ = std::move(other.path_);
    other.file_ = nullptr;
  }
  return *this;
}

MetricsWriter::~MetricsWriter() { (void)close(); }

Status MetricsWriter::open(const std::string &path, bool append) {
  if (Status st = close(); !st.ok())
    return st;
  file_ = std::fopen(path.c_str(), append ? "a" : "w");
  if (!file_)
    return Status::error(path + ": cannot open the metrics file: " + std::strerror(errno));
  path_ = path;
  return Status::success();
}

Status MetricsWriter::writeLine(const std::string &text) {
  if (!file_)
    return Status::error("the metrics file is not open");
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0)
    return Status::error(path_ + ": cannot write the metrics file: " + std::strerror(errno));
  return Status::success();
}

Status MetricsWriter::writeJson(const nlohmann::json &object) {
  if (!object.is_object())
    return Status::error(path_ + ": a metrics line must be a JSON object");
  nlohmann::json copy = object;
  nullNonFinite(copy);
  return writeLine(copy.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

Status MetricsWriter::write(const MetricsRecord &record) {
  if (!record.extra.is_null() && !record.extra.is_object())
    return Status::error(path_ + ": extra metrics must be a JSON object");
  if (record.extra.is_object())
    for (const char *fixed : {"step", "epoch", "loss", "lr", "samples_per_sec"})
      if (record.extra.contains(fixed))
        return Status::error(path_ + ": extra metric '" + fixed + "' repeats a fixed field");
  return writeLine(record.toJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                   "\n");
}

Status MetricsWriter::close() {
  if (!file_)
    return Status::success();
  int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0)
    return Status::error(path_ + ": cannot close the metrics file: " + std::strerror(errno));
  return Status::success();
}

ProgressReporter::ProgressReporter(std::FILE *stream, ProgressOptions options)
    : stream_(stream), options_(options) {
  if (options_.plainEvery < 1)
    options_.plainEvery = 1;
  if (options_.barWidth < 1)
    options_.barWidth = 1;
  terminal_ = options_.terminal ? *options_.terminal : ::isatty(::fileno(stream)) == 1;
}

std::string ProgressReporter::formatLine(int64_t step, int64_t epoch, double loss,
                                         double samplesPerSec) const {
  std::string total =
      options_.totalSteps > 0 ? "/" + std::to_string(options_.totalSteps) : std::string();
  std::string values =
      " epoch " + std::to_string(epoch) + " loss " + formatNumber("%.4g", loss) + " ";
  if (!terminal_)
    return "step " + std::to_string(step) + total + values + "samples/s " +
           formatNumber("%.0f", samplesPerSec);
  std::string bar;
  if (options_.totalSteps > 0) {
    int64_t filled =
        std::min<int64_t>(options_.barWidth, step * options_.barWidth / options_.totalSteps);
    bar = "[" + std::string(static_cast<size_t>(filled), '#') +
          std::string(static_cast<size_t>(options_.barWidth - filled), '-') + "] ";
  }
  return bar + std::to_string(step) + total + values + formatNumber("%.0f", samplesPerSec) +
         " samples/s";
}

void ProgressReporter::draw(const std::string &line) {
  // Pad with blanks over what a longer previous line left on screen.
  std::string padded = line;
  if (padded.size() < drawnWidth_)
    padded.append(drawnWidth_ - padded.size(), ' ');
  std::fprintf(stream_, "\r%s", padded.c_str());
  std::fflush(stream_);
  drawnWidth_ = line.size();
}

void ProgressReporter::update(int64_t step, int64_t epoch, double loss, double samplesPerSec) {
  haveLast_ = true;
  lastStep_ = step;
  lastEpoch_ = epoch;
  lastLoss_ = loss;
  lastRate_ = samplesPerSec;
  if (terminal_) {
    draw(formatLine(step, epoch, loss, samplesPerSec));
    return;
  }
  lastPrinted_ =
      step % options_.plainEvery == 0 || (options_.totalSteps > 0 && step == options_.totalSteps);
  if (lastPrinted_) {
    std::fprintf(stream_, "%s\n", formatLine(step, epoch, loss, samplesPerSec).c_str());
    std::fflush(stream_);
  }
}

void ProgressReporter::message(const std::string &line) {
  if (terminal_ && drawnWidth_ > 0) {
    std::fprintf(stream_, "\r%s\r", std::string(drawnWidth_, ' ').c_str());
    drawnWidth_ = 0;
  }
  std::fprintf(stream_, "%s\n", line.c_str());
  if (terminal_ && haveLast_)
    draw(formatLine(lastStep_, lastEpoch_, lastLoss_, lastRate_));
  std::fflush(stream_);
}

void ProgressReporter::finish() {
  if (!haveLast_)
    return;
  if (terminal_) {
    draw(formatLine(lastStep_, lastEpoch_, lastLoss_, lastRate_));
    std::fprintf(stream_, "\n");
    drawnWidth_ = 0;
  } else if (!lastPrinted_) {
    std::fprintf(stream_, "%s\n", formatLine(lastStep_, lastEpoch_, lastLoss_, lastRate_).c_str());
  }
  lastPrinted_ = true;
  std::fflush(stream_);
}

} // namespace distc::training
