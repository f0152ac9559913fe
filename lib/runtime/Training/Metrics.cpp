//===- Metrics.cpp - Training metrics file and progress line --------------===//

#include "distc/Training/Metrics.h"

#include "distc/Support/ToolOutput.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
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

std::string formatDuration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds) || seconds > 1e12)
    return "?";
  const int64_t total = static_cast<int64_t>(std::llround(seconds));
  const int64_t days = total / 86400, hours = total / 3600 % 24, minutes = total / 60 % 60,
                secs = total % 60;
  char buffer[48];
  if (days > 0)
    std::snprintf(buffer, sizeof buffer, "%lldd%02lldh", (long long)days, (long long)hours);
  else if (hours > 0)
    std::snprintf(buffer, sizeof buffer, "%lldh%02lldm", (long long)hours, (long long)minutes);
  else if (minutes > 0)
    std::snprintf(buffer, sizeof buffer, "%lldm%02llds", (long long)minutes, (long long)secs);
  else
    std::snprintf(buffer, sizeof buffer, "%llds", (long long)secs);
  return buffer;
}

std::string formatRate(double perSecond) {
  if (!std::isfinite(perSecond))
    return formatNumber("%g", perSecond);
  if (perSecond < 9.995)
    return formatNumber("%.2f", perSecond);
  if (perSecond < 9999.5)
    return formatNumber("%.0f", perSecond);
  if (perSecond < 999950)
    return formatNumber("%.1fk", perSecond / 1e3);
  return formatNumber("%.2fM", perSecond / 1e6);
}

std::optional<double> remainingSeconds(double elapsed, int64_t done, int64_t left) {
  if (done <= 0 || !(elapsed >= 0) || !std::isfinite(elapsed))
    return std::nullopt;
  return left <= 0 ? 0.0 : elapsed / double(done) * double(left);
}

ProgressReporter::ProgressReporter(std::FILE *stream, ProgressOptions options)
    : stream_(stream), options_(std::move(options)) {
  if (options_.plainEvery < 1)
    options_.plainEvery = 1;
  if (options_.barWidth < 1)
    options_.barWidth = 1;
  terminal_ = options_.terminal ? *options_.terminal : ::isatty(::fileno(stream)) == 1;
  start_ = now();
}

double ProgressReporter::now() const {
  if (options_.clock)
    return options_.clock();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string ProgressReporter::formatLine(const ProgressSample &p) const {
  const int64_t total = options_.totalSteps;
  const std::string steps =
      std::to_string(p.step) + (total > 0 ? "/" + std::to_string(total) : std::string());
  const std::string values =
      " epoch " + std::to_string(p.epoch) + " loss " + formatNumber("%.4g", p.loss) + " ";
  std::string time;
  if (total > 0 && p.step >= total)
    time = " took " + formatDuration(p.seconds);
  else if (total > 0)
    if (auto left = remainingSeconds(p.seconds, p.step - options_.startStep, total - p.step))
      time = " ETA " + formatDuration(*left);
  if (!terminal_)
    return "step " + steps + values + "samples/s " + formatRate(p.samplesPerSec) + time;
  std::string bar;
  if (total > 0) {
    int64_t filled = std::clamp<int64_t>(p.step * options_.barWidth / total, 0, options_.barWidth);
    bar = "[" + std::string(static_cast<size_t>(filled), '#') +
          std::string(static_cast<size_t>(options_.barWidth - filled), '-') + "] ";
  }
  return bar + steps + values + formatRate(p.samplesPerSec) + " samples/s" + time;
}

/// The width of the terminal `stream` writes to (ProgressOptions::columns).
static int terminalColumns(std::FILE *stream) {
  if (int width = terminalWidth(::fileno(stream)); width > 0)
    return width;
  if (const char *columns = std::getenv("COLUMNS")) {
    char *end = nullptr;
    long n = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && n > 0 && n <= 100000)
      return int(n);
  }
  return 80;
}

void ProgressReporter::draw(const std::string &line) {
  // Back to the line's start, the line (cut so that it does not wrap),
  // then clear what a longer previous line left on screen. The line is
  // ASCII, so cutting bytes cuts characters.
  const int columns = options_.columns > 0 ? options_.columns : terminalColumns(stream_);
  const size_t fits = size_t(std::max(1, columns - 1));
  std::fprintf(stream_, "\r%s\033[K", line.substr(0, fits).c_str());
  std::fflush(stream_);
  drawn_ = true;
}

void ProgressReporter::update(int64_t step, int64_t epoch, double loss, double samplesPerSec) {
  haveLast_ = true;
  const double seconds = now() - start_;
  last_ = {step, epoch, loss, samplesPerSec, seconds};
  if (terminal_) {
    const bool lastStep = options_.totalSteps > 0 && step >= options_.totalSteps;
    if (!drawn_ || lastStep || seconds - lastDraw_ >= options_.redrawInterval) {
      draw(formatLine(last_));
      lastDraw_ = seconds;
    }
    return;
  }
  lastPrinted_ =
      step % options_.plainEvery == 0 || (options_.totalSteps > 0 && step == options_.totalSteps);
  if (lastPrinted_) {
    std::fprintf(stream_, "%s\n", formatLine(last_).c_str());
    std::fflush(stream_);
  }
}

void ProgressReporter::message(const std::string &line) {
  if (terminal_ && drawn_) {
    std::fprintf(stream_, "\r\033[K");
    drawn_ = false;
  }
  std::fprintf(stream_, "%s\n", line.c_str());
  if (terminal_ && haveLast_)
    draw(formatLine(last_));
  std::fflush(stream_);
}

void ProgressReporter::finish() {
  if (!haveLast_)
    return;
  if (terminal_) {
    draw(formatLine(last_));
    std::fprintf(stream_, "\n");
    drawn_ = false;
  } else if (!lastPrinted_) {
    std::fprintf(stream_, "%s\n", formatLine(last_).c_str());
  }
  lastPrinted_ = true;
  std::fflush(stream_);
}

} // namespace distc::training
