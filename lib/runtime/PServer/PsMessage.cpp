//===- PsMessage.cpp - Parameter-server messages --------------------------===//

#include "distc/PServer/PsMessage.h"

#include <cstring>

namespace distc::pserver {

namespace {

constexpr unsigned char kHeaderMagic[4] = {'D', 'P', 'S', '2'};
constexpr unsigned char kReplyMagic[4] = {'D', 'P', 'R', '1'};

void put16(unsigned char *p, uint16_t v) {
  for (int i = 0; i < 2; ++i)
    p[i] = static_cast<unsigned char>(v >> (8 * i));
}
void put32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<unsigned char>(v >> (8 * i));
}
void put64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = static_cast<unsigned char>(v >> (8 * i));
}
uint16_t get16(const unsigned char *p) { return uint16_t(p[0] | (p[1] << 8)); }
uint32_t get32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}
uint64_t get64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

/// The first bytes of a record as text for messages: "DPS2" or hex.
std::string magicText(const unsigned char *p) {
  std::string s;
  bool printable = true;
  for (int i = 0; i < 4; ++i)
    printable = printable && p[i] >= 0x20 && p[i] < 0x7f;
  if (printable)
    return "'" + std::string(reinterpret_cast<const char *>(p), 4) + "'";
  static const char *hex = "0123456789abcdef";
  s = "0x";
  for (int i = 0; i < 4; ++i) {
    s += hex[p[i] >> 4];
    s += hex[p[i] & 15];
  }
  return s;
}

} // namespace

const char *psKindName(PsKind kind) {
  switch (kind) {
  case PsKind::Send:
    return "send";
  case PsKind::SendRows:
    return "send_rows";
  case PsKind::Get:
    return "get";
  case PsKind::Prefetch:
    return "prefetch";
  case PsKind::BatchBarrier:
    return "send_barrier";
  case PsKind::FetchBarrier:
    return "fetch_barrier";
  case PsKind::Complete:
    return "complete";
  case PsKind::GetState:
    return "get_state";
  case PsKind::SetState:
    return "set_state";
  }
  return "unknown";
}

std::optional<PsKind> psKindFromByte(uint8_t byte) {
  if (byte < uint8_t(PsKind::Send) || byte > uint8_t(PsKind::SetState))
    return std::nullopt;
  return PsKind(byte);
}

Status checkPsName(const std::string &name) {
  if (name.size() <= kPsMaxNameBytes)
    return Status::success();
  return Status::error("variable name '" + name.substr(0, 40) + "...' is " +
                       std::to_string(name.size()) +
                       " bytes; parameter-server messages carry names of at most " +
                       std::to_string(kPsMaxNameBytes));
}

void encodePsHeader(const PsHeader &h, unsigned char *out) {
  std::memset(out, 0, kPsHeaderBytes);
  std::memcpy(out, kHeaderMagic, 4);
  out[4] = static_cast<unsigned char>(h.kind);
  out[5] = static_cast<unsigned char>(h.name.size());
  put32(out + 8, static_cast<uint32_t>(h.trainer));
  put32(out + 12, h.seq);
  put64(out + 16, h.bytes);
  put64(out + 24, h.rows);
  put64(out + 32, h.dataAddress);
  put64(out + 40, h.valuesAddress);
  put64(out + 48, h.resultAddress);
  std::memcpy(out + kPsNameOffset, h.name.data(), h.name.size());
}

bool decodePsHeader(const unsigned char *in, PsHeader &h, std::string &error) {
  if (std::memcmp(in, kHeaderMagic, 4) != 0) {
    error = "a request that does not start with 'DPS2' (it starts with " + magicText(in) +
            "): another protocol version, or not a parameter-server request";
    return false;
  }
  std::optional<PsKind> kind = psKindFromByte(in[4]);
  if (!kind) {
    error = "a request of unknown kind " + std::to_string(in[4]);
    return false;
  }
  h.kind = *kind;
  h.trainer = static_cast<int32_t>(get32(in + 8));
  h.seq = get32(in + 12);
  h.bytes = get64(in + 16);
  h.rows = get64(in + 24);
  h.dataAddress = get64(in + 32);
  h.valuesAddress = get64(in + 40);
  h.resultAddress = get64(in + 48);
  h.name.assign(reinterpret_cast<const char *>(in + kPsNameOffset), in[5]);
  return true;
}

void encodePsReply(const PsReply &r, unsigned char *out) {
  std::memset(out, 0, kPsReplyBytes);
  std::memcpy(out, kReplyMagic, 4);
  out[4] = static_cast<unsigned char>(r.kind);
  out[5] = r.done ? 0 : 1;
  std::string message = r.message;
  if (message.size() > kPsMaxReplyMessage)
    message = message.substr(0, kPsMaxReplyMessage - 3) + "...";
  put16(out + 6, static_cast<uint16_t>(message.size()));
  put64(out + 8, r.bytes);
  std::memcpy(out + 16, message.data(), message.size());
}

bool decodePsReply(const unsigned char *in, PsReply &r, std::string &error) {
  if (std::memcmp(in, kReplyMagic, 4) != 0) {
    error = "a reply that does not start with 'DPR1' (it starts with " + magicText(in) + ")";
    return false;
  }
  std::optional<PsKind> kind = psKindFromByte(in[4]);
  uint16_t length = get16(in + 6);
  if (!kind || in[5] > 1 || length > kPsMaxReplyMessage) {
    error = "a malformed reply";
    return false;
  }
  r.kind = *kind;
  r.done = in[5] == 0;
  r.bytes = get64(in + 8);
  r.message.assign(reinterpret_cast<const char *>(in + 16), length);
  return true;
}

} // namespace distc::pserver
