//===- OutputRelayTest.cpp - The ranks' output through the launcher -------===//

#include "OutputRelay.h"

#include <gtest/gtest.h>

#include <unistd.h>

using distc::launch::OutputRelay;

namespace {

/// What the relay wrote, with descriptors marked: "<1>" for stdout, "<2>"
/// for stderr, at each change of descriptor.
struct Terminal {
  std::string text;
  int last = 0;
  OutputRelay::Sink sink() {
    return [this](int fd, const std::string &bytes) {
      if (fd != last)
        text += "<" + std::to_string(fd) + ">";
      last = fd;
      text += bytes;
    };
  }
};

} // namespace

TEST(OutputRelayTest, OtherLinesNeverLandInTheLiveLine) {
  Terminal t;
  OutputRelay relay(/*stdoutSharesTerminal=*/true, t.sink());
  const size_t progress = relay.addSource(2, /*live=*/true);
  const size_t other = relay.addSource(2, false);
  const size_t summary = relay.addSource(1, false);
  relay.feed(progress, "\r[#---] 1/4\033[K");
  // Another rank's line arrives in two pieces: nothing until it is whole,
  // then it is put on a line of its own and the live line redrawn.
  relay.feed(other, "warning: slow ");
  EXPECT_EQ(t.text, "<2>\r[#---] 1/4\033[K");
  relay.feed(other, "disk\nsecond");
  relay.feed(progress, "\r[##--] 2/4");
  relay.message("dist-run: note");
  relay.feed(progress, "\033[K\n");
  // No live line on screen: a line goes out as it is.
  relay.feed(summary, "trained 4 steps\n");
  relay.end(other);
  EXPECT_EQ(t.text, "<2>\r[#---] 1/4\033[K"
                    "\r\033[Kwarning: slow disk\n[#---] 1/4\033[K"
                    "\r[##--] 2/4"
                    "\r\033[Kdist-run: note\n[##--] 2/4"
                    "\033[K\n"
                    "<1>trained 4 steps\n"
                    "<2>second\n");
}

TEST(OutputRelayTest, EndsALiveLineLeftOpen) {
  Terminal t;
  OutputRelay relay(/*stdoutSharesTerminal=*/false, t.sink());
  const size_t progress = relay.addSource(2, true);
  const size_t out = relay.addSource(1, false);
  relay.feed(progress, "\r[#---] 1/4");
  // stdout is elsewhere (a file): its lines do not disturb the terminal.
  relay.feed(out, "result\n");
  relay.end(progress); // e.g. the rank crashed mid-line
  relay.message("dist-run: error: rank 0 failed");
  EXPECT_EQ(t.text, "<2>\r[#---] 1/4<1>result\n<2>\ndist-run: error: rank 0 failed\n");
}

TEST(OutputRelayTest, RelaysPipesUntilStopped) {
  Terminal t;
  OutputRelay relay(true, t.sink());
  std::string error;
  const int live = relay.addPipe(2, true, error);
  const int other = relay.addPipe(2, false, error);
  ASSERT_GE(live, 0) << error;
  ASSERT_GE(other, 0) << error;
  relay.start();
  ASSERT_EQ(::write(live, "\rstep 1", 7), 7);
  ::close(live);
  ASSERT_EQ(::write(other, "unfinished", 10), 10);
  ::close(other);
  relay.stop();
  // Both sources ended: the live line closed, the unfinished line relayed.
  const std::string expected1 = "<2>\rstep 1\nunfinished\n";
  const std::string expected2 = "<2>\rstep 1\r\033[Kunfinished\nstep 1\n";
  EXPECT_TRUE(t.text == expected1 || t.text == expected2) << t.text;
}
