//===- MetricsTest.cpp - Metrics lines and the progress reporter ----------===//

#include "distc/Training/Metrics.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

using namespace distc::training;
using namespace distc::training::test;

namespace {

/// Collects what a FILE* receives.
class Capture {
public:
  Capture() : file_(std::tmpfile()) {}
  ~Capture() { std::fclose(file_); }
  std::FILE *file() { return file_; }
  std::string text() {
    std::fflush(file_);
    long size = std::ftell(file_);
    std::string out(static_cast<size_t>(size), '\0');
    std::rewind(file_);
    size_t got = std::fread(out.data(), 1, out.size(), file_);
    out.resize(got);
    std::fseek(file_, 0, SEEK_END);
    return out;
  }

private:
  std::FILE *file_;
};

} // namespace

TEST(MetricsTest, WritesOneFlushedObjectPerLine) {
  TempDir dir;
  std::string path = dir.file("metrics.jsonl");
  MetricsWriter writer;
  ASSERT_TRUE(writer.open(path, /*append=*/false).ok());
  MetricsRecord r;
  r.step = 1;
  r.epoch = 0;
  r.loss = 2.5;
  r.lr = 0.125;
  r.samplesPerSec = 1000;
  ASSERT_TRUE(writer.write(r).ok());
  // Flushed: visible before close.
  EXPECT_EQ(readText(path),
            "{\"step\":1,\"epoch\":0,\"loss\":2.5,\"lr\":0.125,\"samples_per_sec\":1000.0}\n");
  r.step = 2;
  r.loss = NAN;
  r.extra = {{"eval_loss", 0.75}, {"eval_accuracy", 0.5}, {"bad", INFINITY}};
  ASSERT_TRUE(writer.write(r).ok());
  ASSERT_TRUE(writer.writeJson({{"event", "done"}, {"steps", 2}}).ok());
  ASSERT_TRUE(writer.close().ok());
  std::string text = readText(path);
  size_t second = text.find('\n') + 1;
  EXPECT_EQ(text.substr(second),
            "{\"step\":2,\"epoch\":0,\"loss\":null,\"lr\":0.125,\"samples_per_sec\":1000.0,"
            "\"bad\":null,\"eval_accuracy\":0.5,\"eval_loss\":0.75}\n"
            "{\"event\":\"done\",\"steps\":2}\n");
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    EXPECT_TRUE(nlohmann::json::parse(text.substr(start, end - start)).is_object());
    start = end + 1;
  }
}

TEST(MetricsTest, AppendsAndRejectsClashes) {
  TempDir dir;
  std::string path = dir.file("m.jsonl");
  writeText(path, "{\"step\":1}\n");
  MetricsWriter writer;
  ASSERT_TRUE(writer.open(path, /*append=*/true).ok());
  MetricsRecord r;
  r.step = 2;
  ASSERT_TRUE(writer.write(r).ok());
  r.extra = {{"loss", 1.0}};
  Status st = writer.write(r);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), path + ": extra metric 'loss' repeats a fixed field");
  ASSERT_TRUE(writer.close().ok());
  EXPECT_EQ(readText(path).substr(0, 12), "{\"step\":1}\n{");

  MetricsWriter nowhere;
  st = nowhere.open(dir.file("no/such/dir/m.jsonl"), false);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), dir.file("no/such/dir/m.jsonl") +
                              ": cannot open the metrics file: No such file or directory");
  EXPECT_FALSE(nowhere.write(r).ok());
}

/// A clock the test moves by hand.
struct FakeClock {
  double seconds = 100;
  std::function<double()> function() {
    return [this] { return seconds; };
  }
};

TEST(MetricsTest, FormatsDurationsAndRates) {
  EXPECT_EQ(formatDuration(0), "0s");
  EXPECT_EQ(formatDuration(42.4), "42s");
  EXPECT_EQ(formatDuration(59.6), "1m00s");
  EXPECT_EQ(formatDuration(65), "1m05s");
  EXPECT_EQ(formatDuration(3599), "59m59s");
  EXPECT_EQ(formatDuration(3720), "1h02m");
  EXPECT_EQ(formatDuration(4 * 86400 + 3 * 3600 + 59), "4d03h");
  EXPECT_EQ(formatDuration(-1), "?");
  EXPECT_EQ(formatDuration(NAN), "?");
  EXPECT_EQ(formatDuration(INFINITY), "?");

  EXPECT_EQ(formatRate(0), "0.00");
  EXPECT_EQ(formatRate(0.4242), "0.42");
  EXPECT_EQ(formatRate(9.99), "9.99");
  EXPECT_EQ(formatRate(9.996), "10");
  EXPECT_EQ(formatRate(5123.4), "5123");
  EXPECT_EQ(formatRate(9999.4), "9999");
  EXPECT_EQ(formatRate(9999.6), "10.0k");
  EXPECT_EQ(formatRate(51234), "51.2k");
  EXPECT_EQ(formatRate(1234567), "1.23M");

  EXPECT_FALSE(remainingSeconds(0, 0, 10)); // before the first step
  EXPECT_FALSE(remainingSeconds(NAN, 3, 10));
  EXPECT_DOUBLE_EQ(*remainingSeconds(6, 3, 10), 20);
  EXPECT_DOUBLE_EQ(*remainingSeconds(6, 3, 0), 0);
}

TEST(MetricsTest, ProgressOnATerminalRedrawsOneLine) {
  Capture out;
  FakeClock clock;
  ProgressOptions o;
  o.totalSteps = 4;
  o.barWidth = 8;
  o.terminal = true;
  o.columns = 200;
  o.clock = clock.function();
  ProgressReporter progress(out.file(), o);
  EXPECT_TRUE(progress.isTerminal());
  clock.seconds += 2;
  progress.update(1, 0, 2.0, 1500.4);
  clock.seconds += 2;
  progress.update(2, 0, 1.23456, 99);
  progress.message("eval: accuracy 0.9");
  clock.seconds += 70;
  progress.update(4, 1, 0.5, 100);
  progress.finish();
  std::string text = out.text();
  EXPECT_EQ(text, "\r[##------] 1/4 epoch 0 loss 2 1500 samples/s ETA 6s\033[K"
                  "\r[####----] 2/4 epoch 0 loss 1.235 99 samples/s ETA 4s\033[K"
                  "\r\033[Keval: accuracy 0.9\n"
                  "\r[####----] 2/4 epoch 0 loss 1.235 99 samples/s ETA 4s\033[K"
                  "\r[########] 4/4 epoch 1 loss 0.5 100 samples/s took 1m14s\033[K"
                  "\r[########] 4/4 epoch 1 loss 0.5 100 samples/s took 1m14s\033[K\n");
}

TEST(MetricsTest, ProgressLineNeverWraps) {
  // A wrapped line would not be overwritten by '\r': the line is cut to
  // one less than the terminal's width.
  Capture out;
  FakeClock clock;
  ProgressOptions o;
  o.totalSteps = 4;
  o.barWidth = 8;
  o.terminal = true;
  o.columns = 21;
  o.clock = clock.function();
  ProgressReporter progress(out.file(), o);
  clock.seconds += 2;
  progress.update(1, 0, 2.0, 1500.4);
  EXPECT_EQ(out.text(), "\r[##------] 1/4 epoch\033[K");
}

TEST(MetricsTest, ProgressOnATerminalRedrawsAtIntervals) {
  Capture out;
  FakeClock clock; // steps of 1/64 s, exact in binary
  ProgressOptions o;
  o.totalSteps = 100;
  o.barWidth = 4;
  o.terminal = true;
  o.redrawInterval = 0.25;
  o.clock = clock.function();
  ProgressReporter progress(out.file(), o);
  for (int64_t step = 1; step <= 100; ++step) {
    clock.seconds += 1.0 / 64;
    progress.update(step, 0, 1.0, 10);
  }
  // Steps 1, 17, 33, ... 97 (16 steps, 0.25 s apart), and the last one.
  std::string text = out.text();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\r'), 8);
  EXPECT_NE(text.find("\r[----] 1/100 "), std::string::npos);
  EXPECT_NE(text.find("\r[#---] 33/100 "), std::string::npos);
  EXPECT_EQ(text.find("\r[#---] 34/100 "), std::string::npos);
  EXPECT_NE(text.find("\r[####] 100/100 epoch 0 loss 1 10 samples/s took 2s\033[K"),
            std::string::npos);
}

TEST(MetricsTest, ProgressEtaCountsThisRunsSteps) {
  // Resumed at step 100 of 200: 10 steps in 5 s leave 90 steps, 45 s.
  FakeClock clock;
  ProgressOptions o;
  o.totalSteps = 200;
  o.startStep = 100;
  o.terminal = false;
  o.clock = clock.function();
  ProgressReporter progress(stderr, o);
  ProgressSample sample{110, 3, 0.25, 20000, 5};
  EXPECT_EQ(progress.formatLine(sample), "step 110/200 epoch 3 loss 0.25 samples/s 20.0k ETA 45s");
  // Without a total there is nothing to estimate.
  o.totalSteps = 0;
  ProgressReporter open(stderr, o);
  EXPECT_EQ(open.formatLine(sample), "step 110 epoch 3 loss 0.25 samples/s 20.0k");
}

TEST(MetricsTest, ProgressElsewherePrintsPlainLines) {
  Capture out;
  FakeClock clock;
  ProgressOptions o;
  o.totalSteps = 7;
  o.plainEvery = 3;
  o.terminal = false;
  o.clock = clock.function();
  ProgressReporter progress(out.file(), o);
  for (int64_t step = 1; step <= 5; ++step) {
    clock.seconds += 1;
    progress.update(step, 0, 1.0 / static_cast<double>(step), 10);
  }
  progress.finish();
  EXPECT_EQ(out.text(), "step 3/7 epoch 0 loss 0.3333 samples/s 10 ETA 4s\n"
                        "step 5/7 epoch 0 loss 0.2 samples/s 10 ETA 2s\n");

  Capture full;
  ProgressReporter toEnd(full.file(), o);
  for (int64_t step = 1; step <= 7; ++step) {
    clock.seconds += 0.5;
    toEnd.update(step, 0, 1.0, 10);
  }
  toEnd.finish(); // step 7 was printed as the last step; not again
  EXPECT_EQ(full.text(), "step 3/7 epoch 0 loss 1 samples/s 10 ETA 2s\n"
                         "step 6/7 epoch 0 loss 1 samples/s 10 ETA 1s\n"
                         "step 7/7 epoch 0 loss 1 samples/s 10 took 4s\n");

  Capture file;
  ProgressReporter detected(file.file(), ProgressOptions());
  EXPECT_FALSE(detected.isTerminal()); // a regular file is no terminal
}
