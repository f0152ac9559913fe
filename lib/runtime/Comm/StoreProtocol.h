//===- StoreProtocol.h - Wire format of the rendezvous store ----*- C++ -*-===//
//
// Every message is a frame: a little-endian uint32 body length, then the
// body. A request body is an opcode byte and its fields; a response body
// is a status byte and its fields. Fields are little-endian int64s, single
// bytes, and strings (uint32 length + bytes). A client has at most one
// request outstanding, so responses need no ids. docs/distributed.md
// lists the requests.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_COMM_STOREPROTOCOL_H
#define DISTC_LIB_COMM_STOREPROTOCOL_H

#include <cstdint>
#include <cstring>
#include <string>

namespace distc::comm::detail {

/// Sent in Hello and echoed by the server, so a client that reached some
/// other service on the port says so instead of misreading its bytes. The
/// version after the slash changes with the layout of Hello (2: the job
/// token); a server recognises other versions by the family prefix and
/// refuses them by name instead of misreading their fields.
inline constexpr const char *kStoreMagic = "distc-store/2";
inline constexpr const char *kStoreMagicFamily = "distc-store/";

/// Frames above this are a protocol error (a stray client, not a peer).
inline constexpr uint32_t kMaxFrame = 64u << 20;

/// Requests, with their fields and answers.
enum class Op : uint8_t {
  Hello = 1,      // magic, i64 rank (-1: none), token -> Ok magic | Error reason
  Set = 2,        // key, value -> Ok
  Get = 3,        // key, i64 timeout ms -> Ok value | Timeout
  Add = 4,        // key, i64 delta -> Ok i64 | Error message
  Wait = 5,       // u32 n, keys, i64 timeout ms, u8 any -> Ok | Timeout, u32 n, keys present
  Departures = 6, // i64 timeout ms -> Ok, u32 n, n x (i64 rank, u8 lost, reason)
  Bye = 7,        // reason -> Ok, then the server closes
};

enum class Reply : uint8_t { Ok = 0, Timeout = 1, Error = 2 };

/// Appends fields to a body (after its leading opcode or status byte).
class Writer {
public:
  void byte(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i)
      out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void i64(int64_t v) {
    uint64_t u = static_cast<uint64_t>(v);
    for (int i = 0; i < 8; ++i)
      out_.push_back(static_cast<char>((u >> (8 * i)) & 0xff));
  }
  void str(const std::string &s) {
    u32(static_cast<uint32_t>(s.size()));
    out_ += s;
  }
  const std::string &body() const { return out_; }

  /// `lead` and then the body, with the length prefix: a whole frame.
  std::string frame(uint8_t lead) const {
    Writer w;
    w.u32(static_cast<uint32_t>(out_.size() + 1));
    w.byte(lead);
    return w.out_ + out_;
  }

private:
  std::string out_;
};

/// Reads fields from a body; any read past the end sets `ok()` false.
class Reader {
public:
  explicit Reader(const std::string &body) : data_(body) {}
  bool ok() const { return ok_; }
  bool atEnd() const { return pos_ == data_.size(); }

  uint8_t byte() {
    if (!need(1))
      return 0;
    return static_cast<uint8_t>(data_[pos_++]);
  }
  uint32_t u32() {
    if (!need(4))
      return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
      v |= uint32_t(static_cast<uint8_t>(data_[pos_++])) << (8 * i);
    return v;
  }
  int64_t i64() {
    if (!need(8))
      return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v |= uint64_t(static_cast<uint8_t>(data_[pos_++])) << (8 * i);
    return static_cast<int64_t>(v);
  }
  std::string str() {
    uint32_t n = u32();
    if (!need(n))
      return {};
    std::string s = data_.substr(pos_, n);
    pos_ += n;
    return s;
  }

private:
  bool need(size_t n) {
    if (!ok_ || data_.size() - pos_ < n)
      ok_ = false;
    return ok_;
  }

  const std::string &data_;
  size_t pos_ = 0;
  bool ok_ = true;
};

/// Decodes a frame length prefix.
inline uint32_t frameLength(const char *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= uint32_t(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

} // namespace distc::comm::detail

#endif // DISTC_LIB_COMM_STOREPROTOCOL_H
