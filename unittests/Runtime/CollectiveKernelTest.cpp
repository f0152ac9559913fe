//===- CollectiveKernelTest.cpp - Collective kernels and the comm stream --===//
//
// The collective kernels run through a real Session against a fake
// Collectives that plays one rank of a job whose other ranks hold the same
// values (so a sum over N ranks is N times the input), and the CommStream
// that overlaps started collectives with computation.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include "../../lib/runtime/Runtime/CommStream.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <tuple>

namespace distc::testing {
namespace {

using runtime::Collectives;

/// One rank of `size`; the others are assumed to hold the same tensors.
class FakeCollectives : public Collectives {
public:
  FakeCollectives(int rank, int size) : rank_(rank), size_(size) {}

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  Status allreduce(Tensor &t, const std::string &op) override {
    if (Status s = record("allreduce " + op); !s.ok())
      return s;
    if (gate)
      gate->wait();
    scale(t, float(size_));
    return Status::success();
  }
  Status broadcast(Tensor &t, int root) override {
    if (Status s = record("broadcast " + std::to_string(root)); !s.ok())
      return s;
    for (int64_t i = 0; i < t.numel(); ++i)
      t.data<float>()[i] = 100.0f + float(root); // the root's values
    return Status::success();
  }
  Status reduce(Tensor &t, const std::string &op, int root) override {
    if (Status s = record("reduce " + op + " " + std::to_string(root)); !s.ok())
      return s;
    if (rank_ == root)
      scale(t, float(size_));
    return Status::success();
  }

  std::vector<std::string> calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  /// The call that fails (0-based), or -1.
  int failAt = -1;
  /// When set, allreduce blocks until it is ready.
  std::shared_future<void> *gate = nullptr;

private:
  Status record(const std::string &call) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back(call);
    if (int(calls_.size()) - 1 == failAt)
      return Status::error(call + " failed: rank 1 exited or lost its connection");
    return Status::success();
  }
  static void scale(Tensor &t, float f) {
    for (int64_t i = 0; i < t.numel(); ++i)
      t.data<float>()[i] *= f;
  }

  const int rank_, size_;
  std::mutex mu_;
  std::vector<std::string> calls_;
};

/// x -> c_allreduce -> c_wait; x -> c_reduce(root 1) -> c_wait;
/// x -> c_broadcast(root 0); x -> copy on rank 1 only.
struct CollectiveArtifact {
  CollectiveArtifact() {
    b.desc.worldSize = 2;
    auto &p = b.program("predict");
    int x = b.buffer("x", DType::Float32, Shape{4}, BufferKind::Feed);
    int sum = b.buffer("sum", DType::Float32, Shape{4});
    int sumDone = b.buffer("sum_done", DType::Float32, {DimDesc::fixed(4)}, BufferKind::View, sum);
    int red = b.buffer("red", DType::Float32, Shape{4});
    int redDone = b.buffer("red_done", DType::Float32, {DimDesc::fixed(4)}, BufferKind::View, red);
    int bc = b.buffer("bc", DType::Float32, Shape{4});
    int mine = b.buffer("mine", DType::Float32, Shape{4});
    p.feeds = {{"x", x}};
    b.call(p, "c_allreduce", {x}, {sum}, {AttrDesc::ofString("op", "sum")});
    b.call(p, "c_reduce", {x}, {red},
           {AttrDesc::ofString("op", "sum"), AttrDesc::ofInt("root", 1)});
    b.call(p, "c_wait", {sum}, {sumDone});
    b.call(p, "c_wait", {red}, {redDone});
    b.call(p, "c_broadcast", {x}, {bc}, {AttrDesc::ofInt("root", 0)});
    b.call(p, "copy", {x}, {mine});
    p.calls.back().rank = 1;
    p.fetches = {{"sum", sumDone}, {"red", redDone}, {"bc", bc}, {"mine", mine}};
  }
  ArtifactBuilder b;
};

Tensor vec(std::vector<float> v) {
  Tensor t(DType::Float32, {int64_t(v.size())});
  for (size_t i = 0; i < v.size(); ++i)
    t.data<float>()[i] = v[i];
  return t;
}

std::vector<float> values(const Tensor &t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());
}

TEST(CollectiveKernels, RunThroughTheSessionsCollectives) {
  for (int rank : {0, 1}) {
    CollectiveArtifact a;
    auto session = a.b.session();
    ASSERT_TRUE(session);
    auto fake = std::make_shared<FakeCollectives>(rank, 2);
    ASSERT_TRUE(session->setCollectives(fake).ok());
    TensorMap fetches;
    Status s = session->run("predict", {{"x", vec({1, 2, 3, 4})}}, fetches);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(values(fetches["sum"]), (std::vector<float>{2, 4, 6, 8}));
    // The reduction lands on its root only; elsewhere out keeps x.
    const std::vector<float> reduced = {2, 4, 6, 8}, unchanged = {1, 2, 3, 4};
    EXPECT_EQ(values(fetches["red"]), rank == 1 ? reduced : unchanged);
    EXPECT_EQ(values(fetches["bc"]), (std::vector<float>{100, 100, 100, 100}));
    if (rank == 1)
      EXPECT_EQ(values(fetches["mine"]), (std::vector<float>{1, 2, 3, 4}));
    // Issued in program order, the same on every rank.
    EXPECT_EQ(fake->calls(),
              (std::vector<std::string>{"allreduce sum", "reduce sum 1", "broadcast 0"}));
  }
}

TEST(CollectiveKernels, AFailedCollectiveFailsTheProgramAndNamesIt) {
  CollectiveArtifact a;
  auto session = a.b.session();
  ASSERT_TRUE(session);
  auto fake = std::make_shared<FakeCollectives>(0, 2);
  fake->failAt = 0;
  ASSERT_TRUE(session->setCollectives(fake).ok());
  TensorMap fetches;
  Status s = session->run("predict", {{"x", vec({1, 2, 3, 4})}}, fetches);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("allreduce sum failed: rank 1 exited"), std::string::npos)
      << s.message();
  // Nothing after the failure was issued.
  EXPECT_EQ(fake->calls().size(), 1u);
}

TEST(CollectiveKernels, RefuseAnotherNumberOfRanks) {
  CollectiveArtifact a;
  auto session = a.b.session();
  ASSERT_TRUE(session);
  ASSERT_TRUE(session->setCollectives(std::make_shared<FakeCollectives>(0, 3)).ok());
  TensorMap fetches;
  Status s = session->run("predict", {{"x", vec({1, 2, 3, 4})}}, fetches);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is compiled for 2 ranks but runs on 3"), std::string::npos)
      << s.message();
}

/// A fused all-reduce bucket as distc lowers one: the kernels that compute
/// two gradients write them into views of the bucket at their offsets, the
/// bucket is scaled and all-reduced in place, and the reduced gradients are
/// read back as views of it.
TEST(CollectiveKernels, FusedBucketIsReducedInPlaceThroughItsSlices) {
  ArtifactBuilder b;
  b.desc.worldSize = 2;
  auto &p = b.program("predict");
  int x0 = b.buffer("x0", DType::Float32, Shape{2}, BufferKind::Feed);
  int x1 = b.buffer("x1", DType::Float32, Shape{2, 2}, BufferKind::Feed);
  int bucket = b.buffer("bucket", DType::Float32, Shape{6});
  int g0 = b.buffer("g0", DType::Float32, {DimDesc::fixed(2)}, BufferKind::View, bucket);
  int g1 = b.buffer("g1", DType::Float32, {DimDesc::fixed(2), DimDesc::fixed(2)}, BufferKind::View,
                    bucket);
  b.desc.buffers[g1].offset = 2;
  int done = b.buffer("done", DType::Float32, {DimDesc::fixed(6)}, BufferKind::View, bucket);
  int r1 = b.buffer("r1", DType::Float32, {DimDesc::fixed(4)}, BufferKind::View, done);
  b.desc.buffers[r1].offset = 2;
  p.feeds = {{"x0", x0}, {"x1", x1}};
  b.call(p, "unary", {x0}, {g0}, {AttrDesc::ofString("op", "neg")});
  b.call(p, "unary", {x1}, {g1}, {AttrDesc::ofString("op", "square")});
  b.call(p, "scale", {bucket}, {bucket}, {AttrDesc::ofFloat("scale", 0.5)});
  b.call(p, "c_allreduce", {bucket}, {bucket}, {AttrDesc::ofString("op", "sum")});
  b.call(p, "c_wait", {bucket}, {done});
  p.fetches = {{"bucket", done}, {"r1", r1}};
  auto session = b.session();
  ASSERT_TRUE(session);
  auto fake = std::make_shared<FakeCollectives>(0, 2);
  ASSERT_TRUE(session->setCollectives(fake).ok());
  TensorMap fetches;
  Tensor x1Value = Tensor::view(vec({1, 2, 3, 4}), {2, 2});
  Status s = session->run("predict", {{"x0", vec({1, 2})}, {"x1", x1Value}}, fetches);
  ASSERT_TRUE(s.ok()) << s.message();
  // (-x0, x1^2) / 2, summed over the 2 ranks.
  EXPECT_EQ(values(fetches["bucket"]), (std::vector<float>{-1, -2, 1, 4, 9, 16}));
  EXPECT_EQ(values(fetches["r1"]), (std::vector<float>{1, 4, 9, 16}));
  EXPECT_EQ(fake->calls(), std::vector<std::string>{"allreduce sum"});
}

/// A startup program with the lowering of c_comm_init (c_comm_check
/// {nranks}) for an artifact of `worldSize` ranks.
struct CommCheckArtifact {
  CommCheckArtifact(int64_t nranks, int worldSize) {
    b.desc.worldSize = worldSize;
    auto &main = b.program("train");
    int x = b.buffer("x", DType::Float32, Shape{1}, BufferKind::Feed);
    main.feeds = {{"x", x}};
    main.fetches = {{"x", x}};
    auto &startup = b.program("train", ProgramKind::Startup);
    b.call(startup, "c_comm_check", {}, {}, {AttrDesc::ofInt("nranks", nranks)}, "c_comm_init");
  }
  ArtifactBuilder b;
};

TEST(CollectiveKernels, CommCheckPassesOnTheRanksItExpects) {
  CommCheckArtifact a(2, 2);
  auto session = a.b.session();
  ASSERT_TRUE(session);
  auto fake = std::make_shared<FakeCollectives>(1, 2);
  ASSERT_TRUE(session->setCollectives(fake).ok());
  Status s = session->initialize("train");
  EXPECT_TRUE(s.ok()) << s.message();
  // It only checks: nothing is communicated.
  EXPECT_TRUE(fake->calls().empty());
  // One rank without a communicator is a communicator of 1.
  CommCheckArtifact one(1, 1);
  auto alone = one.b.session();
  ASSERT_TRUE(alone);
  s = alone->initialize("train");
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST(CollectiveKernels, CommCheckNamesBothSizes) {
  // An artifact whose world size agrees with the communicator but whose
  // c_comm_init expects another size (a hand-made artifact: distc refuses
  // to compile one) fails at the check.
  CommCheckArtifact a(4, 2);
  auto session = a.b.session();
  ASSERT_TRUE(session);
  ASSERT_TRUE(session->setCollectives(std::make_shared<FakeCollectives>(0, 2)).ok());
  Status s = session->initialize("train");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("c_comm_init expects 4 ranks but this process's communicator has 2"),
            std::string::npos)
      << s.message();
}

TEST(CollectiveKernels, CommCheckMakesTheProgramCollective) {
  // Like the other collectives, the check makes a startup program refuse
  // a run on another number of ranks than the artifact's before anything.
  CommCheckArtifact a(2, 2);
  auto session = a.b.session();
  ASSERT_TRUE(session);
  Status s = session->initialize("train");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is compiled for 2 ranks but runs on 1"), std::string::npos)
      << s.message();
}

TEST(CollectiveKernels, AProgramWithoutWaitsSeesEachCollectiveComplete) {
  // An artifact from before c_wait existed reads the all-reduce's result
  // right away; the session must not let it race the communication thread.
  ArtifactBuilder b;
  b.desc.worldSize = 2;
  auto &p = b.program("predict");
  int x = b.buffer("x", DType::Float32, Shape{2}, BufferKind::Feed);
  int sum = b.buffer("sum", DType::Float32, Shape{2});
  int after = b.buffer("after", DType::Float32, Shape{2});
  p.feeds = {{"x", x}};
  b.call(p, "c_allreduce", {x}, {sum}, {AttrDesc::ofString("op", "sum")});
  b.call(p, "copy", {sum}, {after});
  p.fetches = {{"after", after}};
  auto session = b.session();
  ASSERT_TRUE(session);
  auto fake = std::make_shared<FakeCollectives>(0, 2);
  std::promise<void> open;
  std::shared_future<void> gate = open.get_future().share();
  fake->gate = &gate;
  ASSERT_TRUE(session->setCollectives(fake).ok());
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    open.set_value();
  });
  TensorMap fetches;
  Status s = session->run("predict", {{"x", vec({1, 2})}}, fetches);
  opener.join();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(values(fetches["after"]), (std::vector<float>{2, 4}));
}

TEST(CommStream, StartReturnsBeforeTheCollectiveCompletes) {
  auto fake = std::make_shared<FakeCollectives>(0, 2);
  std::promise<void> open;
  std::shared_future<void> gate = open.get_future().share();
  fake->gate = &gate;
  runtime::CommStream stream(fake);
  Tensor t = vec({1, 2});
  ASSERT_TRUE(stream.startAllreduce(t, "sum").ok());
  // The collective waits for the gate on the stream's thread; the caller
  // is free (it would compute the next layer's gradient here).
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(values(t), (std::vector<float>{1, 2}));
  std::atomic<bool> waited{false};
  std::thread waiter([&] {
    EXPECT_TRUE(stream.wait().ok());
    waited = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(waited.load());
  open.set_value();
  waiter.join();
  EXPECT_TRUE(waited.load());
  EXPECT_EQ(values(t), (std::vector<float>{2, 4}));
}

TEST(CommStream, KeepsTheOrderAndStopsAtTheFirstFailure) {
  auto fake = std::make_shared<FakeCollectives>(1, 2);
  fake->failAt = 1;
  runtime::CommStream stream(fake);
  Tensor a = vec({1}), b = vec({1}), c = vec({1});
  ASSERT_TRUE(stream.startAllreduce(a, "sum").ok());
  ASSERT_TRUE(stream.startReduce(b, "sum", 1).ok());
  // Queued before the failure was known; skipped after it.
  (void)stream.startAllreduce(c, "max");
  Status s = stream.wait();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "reduce sum 1 failed: rank 1 exited or lost its connection");
  EXPECT_EQ(fake->calls(), (std::vector<std::string>{"allreduce sum", "reduce sum 1"}));
  // Every later call reports the same failure.
  EXPECT_EQ(stream.startAllreduce(a, "sum").message(), s.message());
  EXPECT_EQ(stream.broadcast(a, 0).message(), s.message());
}

TEST(CommStream, BlockingCollectivesWaitForTheQueueFirst) {
  auto fake = std::make_shared<FakeCollectives>(0, 2);
  runtime::CommStream stream(fake);
  Tensor a = vec({1}), b = vec({3});
  ASSERT_TRUE(stream.startAllreduce(a, "sum").ok());
  ASSERT_TRUE(stream.allreduce(b, "sum").ok());
  EXPECT_EQ(values(a), (std::vector<float>{2}));
  EXPECT_EQ(values(b), (std::vector<float>{6}));
  EXPECT_EQ(fake->calls(), (std::vector<std::string>{"allreduce sum", "allreduce sum"}));
}

TEST(CommStream, RingsShareTheWorldsQueue) {
  // A ring's stream queues behind the world's: its blocking collective
  // waits for the world's started one, and the world's wait for the ring's.
  auto world = std::make_shared<FakeCollectives>(0, 2);
  auto ring = std::make_shared<FakeCollectives>(0, 2);
  std::promise<void> open;
  std::shared_future<void> gate = open.get_future().share();
  world->gate = &gate;
  runtime::CommStream worldStream(world);
  runtime::CommStream ringStream(ring, worldStream);
  Tensor a = vec({1}), b = vec({3}), c = vec({5});
  ASSERT_TRUE(worldStream.startAllreduce(a, "sum").ok());
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_TRUE(ring->calls().empty()); // the ring's collective is still waiting
    open.set_value();
  });
  ASSERT_TRUE(ringStream.allreduce(b, "sum").ok());
  opener.join();
  EXPECT_EQ(values(a), (std::vector<float>{2}));
  EXPECT_EQ(values(b), (std::vector<float>{6}));
  ASSERT_TRUE(ringStream.startAllreduce(c, "max").ok());
  ASSERT_TRUE(worldStream.wait().ok());
  EXPECT_EQ(values(c), (std::vector<float>{10}));
}

/// One call of `kernel` on x (f32[2,4], 0..7) into out of `outShape`, in an
/// artifact of `worldSize` ranks with ring 1 (groups of `groupSize`: the
/// ranks in order) and ring 2 (singletons).
struct RingCallArtifact {
  RingCallArtifact(const std::string &kernel, const Shape &outShape, std::vector<AttrDesc> attrs,
                   int worldSize = 1, int groupSize = 1) {
    b.desc.worldSize = worldSize;
    std::vector<int32_t> ranks;
    for (int r = 0; r < worldSize; ++r)
      ranks.push_back(r);
    b.desc.rings = {{1, groupSize, ranks}, {2, 1, ranks}};
    auto &p = b.program("predict");
    int x = b.buffer("x", DType::Float32, Shape{2, 4}, BufferKind::Feed);
    int out = b.buffer("out", DType::Float32, outShape);
    p.feeds = {{"x", x}};
    p.fetches = {{"out", out}};
    if (kernel == "c_allreduce") {
      int done = b.buffer("done", DType::Float32, {DimDesc::fixed(2), DimDesc::fixed(4)},
                          BufferKind::View, out);
      b.call(p, kernel, {x}, {out}, std::move(attrs), kernel);
      b.call(p, "c_wait", {out}, {done});
      p.fetches = {{"out", done}};
    } else {
      b.call(p, kernel, {x}, {out}, std::move(attrs), kernel);
    }
  }
  Status run(std::shared_ptr<Collectives> collectives, Tensor &out) {
    auto session = b.session();
    if (!session)
      return Status::error("no session");
    if (collectives)
      if (Status s = session->setCollectives(std::move(collectives)); !s.ok())
        return s;
    TensorMap fetches;
    if (Status s = session->run("predict", {{"x", Tensor::view(x(), {2, 4})}}, fetches); !s.ok())
      return s;
    out = fetches["out"];
    return Status::success();
  }
  static Tensor x() { return vec({0, 1, 2, 3, 4, 5, 6, 7}); }
  ArtifactBuilder b;
};

TEST(RingKernels, OneProcessRunsEveryRingLocally) {
  // A world of one: every ring's groups are this rank alone, there is no
  // communicator, and each kernel is its local form: x itself (c_root_only
  // with root 0, the only member).
  const std::vector<float> x = values(RingCallArtifact::x());
  auto ring = [](int64_t id) { return AttrDesc::ofInt("ring_id", id); };
  const std::vector<std::tuple<std::string, std::vector<AttrDesc>>> calls = {
      {"c_allgather", {ring(1), AttrDesc::ofInt("axis", 1)}},
      {"c_allgather", {ring(2)}},
      {"c_reducescatter", {ring(1), AttrDesc::ofInt("axis", 1), AttrDesc::ofString("op", "max")}},
      {"c_reducescatter", {ring(0)}},
      {"c_alltoall",
       {ring(1), AttrDesc::ofInt("split_axis", 0), AttrDesc::ofInt("concat_axis", 1)}},
      {"c_alltoall",
       {ring(2), AttrDesc::ofInt("split_axis", 1), AttrDesc::ofInt("concat_axis", 1)}},
      {"c_split", {ring(1), AttrDesc::ofInt("axis", 1)}},
      {"c_root_only", {ring(2)}},
      {"c_broadcast", {ring(1), AttrDesc::ofInt("root", 0)}},
      {"c_allreduce", {ring(2), AttrDesc::ofString("op", "prod")}},
  };
  for (const auto &[kernel, attrs] : calls) {
    RingCallArtifact a(kernel, {2, 4}, attrs);
    Tensor out;
    Status s = a.run(nullptr, out);
    ASSERT_TRUE(s.ok()) << kernel << ": " << s.message();
    EXPECT_EQ(values(out), x) << kernel;
  }
}

TEST(RingKernels, LocalErrorsNameTheGroup) {
  auto error = [](const std::string &kernel, const Shape &outShape, std::vector<AttrDesc> attrs) {
    RingCallArtifact a(kernel, outShape, std::move(attrs));
    Tensor out;
    return a.run(nullptr, out).message();
  };
  EXPECT_EQ(
      error("c_root_only", {2, 4}, {AttrDesc::ofInt("ring_id", 1), AttrDesc::ofInt("root", 1)}),
      "program predict/trainer/main, call 0 'c_root_only' (c_root_only): root 1 is not one "
      "of the 1 members of a group of 1 in ring 1");
  EXPECT_EQ(error("c_allgather", {2, 8}, {AttrDesc::ofInt("axis", 1)}),
            "program predict/trainer/main, call 0 'c_allgather' (c_allgather): out is f32[2,8], "
            "expected f32[2,4] (x f32[2,4], a group of 1 in ring 0)");
  EXPECT_EQ(error("c_split", {2, 4}, {AttrDesc::ofInt("axis", 2)}),
            "program predict/trainer/main, call 0 'c_split' (c_split): axis 2 is out of range for "
            "rank 2");
  EXPECT_EQ(error("c_reducescatter", {2, 4}, {AttrDesc::ofString("op", "mean")}),
            "program predict/trainer/main, call 0 'c_reducescatter' (c_reducescatter): unknown "
            "reduction 'mean' (expected sum, max, min or prod)");
  EXPECT_EQ(error("c_reduce", {2, 4},
                  {AttrDesc::ofInt("ring_id", 1), AttrDesc::ofString("op", "sum"),
                   AttrDesc::ofInt("root", 0)}),
            "program predict/trainer/main, call 0 'c_reduce' (c_reduce): c_reduce runs over ring "
            "0 (every rank) only, not ring 1");
}

TEST(RingKernels, SplitAndRootOnlyPickThisRanksPart) {
  // Rank 1 of 2 (ring 1: both ranks, in order): the second half along the
  // axis, and zeros unless it is the root. No communication.
  for (int root : {0, 1}) {
    RingCallArtifact a("c_root_only", {2, 4},
                       {AttrDesc::ofInt("ring_id", 1), AttrDesc::ofInt("root", root)}, 2, 2);
    auto fake = std::make_shared<FakeCollectives>(1, 2);
    Tensor out;
    // The fake forms no sub-groups: use ring 0, the same ranks.
    a.b.desc.rings.clear();
    a.b.desc.programs[0].calls[0].attrs[0] = AttrDesc::ofInt("ring_id", 0);
    Status s = a.run(fake, out);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(values(out), root == 1 ? values(RingCallArtifact::x()) : std::vector<float>(8, 0.f));
    EXPECT_TRUE(fake->calls().empty());
  }
  for (int axis : {0, 1}) {
    RingCallArtifact a("c_split", axis == 0 ? Shape{1, 4} : Shape{2, 2},
                       {AttrDesc::ofInt("axis", axis)}, 2, 2);
    a.b.desc.rings.clear();
    Tensor out;
    Status s = a.run(std::make_shared<FakeCollectives>(1, 2), out);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(values(out),
              axis == 0 ? (std::vector<float>{4, 5, 6, 7}) : (std::vector<float>{2, 3, 6, 7}));
  }
}

TEST(RingKernels, MakeTheirProgramsCollective) {
  // Like c_allreduce, a sharding kernel needs the artifact's ranks.
  RingCallArtifact a("c_split", {1, 4}, {AttrDesc::ofInt("axis", 0)}, 2, 2);
  Tensor out;
  Status s = a.run(nullptr, out);
  EXPECT_NE(s.message().find("is compiled for 2 ranks but runs on 1"), std::string::npos)
      << s.message();
}

TEST(RingKernels, ACommunicatorWithoutTheNewCollectivesSaysSo) {
  RingCallArtifact a("c_allgather", {4, 4}, {}, 2, 2);
  a.b.desc.rings.clear();
  Tensor out;
  Status s = a.run(std::make_shared<FakeCollectives>(0, 2), out);
  EXPECT_EQ(s.message(), "program predict/trainer/main, call 0 'c_allgather' (c_allgather): this "
                         "communicator has no allgather");
  // Forming the rings of an artifact needs sub-groups.
  RingCallArtifact rings("c_split", {1, 4}, {}, 2, 2);
  auto session = rings.b.session();
  ASSERT_TRUE(session);
  EXPECT_EQ(session->setCollectives(std::make_shared<FakeCollectives>(0, 2)).message(),
            "test.distc: this communicator has no sub-groups (ring 1)");
}

} // namespace
} // namespace distc::testing
