//===- Dispatcher.h - Which server holds a block ----------------*- C++ -*-===//
//
// DistributeTranspilerConfig.split_method: Paddle's PSDispatcher classes.
//
// * RoundRobin hands the servers out in turn and keeps its place across
//   calls until reset(). The transpiler resets it before the gradient
//   blocks and again before the parameter blocks, listed in the same order,
//   so each parameter block lives where its gradient block goes.
// * HashName places a block by a hash of its name. Paddle uses Python's
//   hash(), which is salted per process (PYTHONHASHSEED): its placement
//   differs between runs and between trainers. distc hashes with 64-bit
//   FNV-1a of the name's bytes instead, so every trainer, server and run
//   agrees.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_PARAMETERSERVER_DISPATCHER_H
#define DISTC_PARAMETERSERVER_DISPATCHER_H

#include <memory>
#include <string>
#include <vector>

namespace distc::ps {

class Dispatcher {
public:
  explicit Dispatcher(std::vector<std::string> endpoints) : endpoints_(std::move(endpoints)) {}
  virtual ~Dispatcher() = default;

  const std::vector<std::string> &endpoints() const { return endpoints_; }
  /// The endpoint of each name, in order.
  virtual std::vector<std::string> dispatch(const std::vector<std::string> &names) = 0;
  virtual void reset() {}

protected:
  std::vector<std::string> endpoints_;
};

class RoundRobin : public Dispatcher {
public:
  using Dispatcher::Dispatcher;
  std::vector<std::string> dispatch(const std::vector<std::string> &names) override;
  void reset() override { step_ = 0; }

private:
  size_t step_ = 0;
};

class HashName : public Dispatcher {
public:
  using Dispatcher::Dispatcher;
  std::vector<std::string> dispatch(const std::vector<std::string> &names) override;
};

/// The dispatcher of split_method `method` ("RoundRobin" or "HashName",
/// Paddle's class names) over `endpoints`; null for another name.
std::unique_ptr<Dispatcher> makeDispatcher(const std::string &method,
                                           std::vector<std::string> endpoints);

} // namespace distc::ps

#endif // DISTC_PARAMETERSERVER_DISPATCHER_H
