//===- PsMessageTest.cpp - The bytes of parameter-server messages ---------===//

#include "distc/PServer/PsMessage.h"

#include <gtest/gtest.h>

#include <array>

using namespace distc::pserver;

namespace {

TEST(PsMessage, HeaderRoundTripsInLittleEndian) {
  PsHeader h;
  h.kind = PsKind::SendRows;
  h.trainer = 3;
  h.seq = 0x01020304;
  h.bytes = 0x1122334455667788ull;
  h.rows = 42;
  h.name = "emb@GRAD.block1.trainer_3";
  h.dataAddress = 0x7f0000001000ull;
  h.valuesAddress = 0x7f0000002000ull;
  h.resultAddress = 0x7f0000003000ull;
  std::array<unsigned char, kPsHeaderBytes> bytes;
  encodePsHeader(h, bytes.data());
  EXPECT_EQ(std::string(reinterpret_cast<char *>(bytes.data()), 4), "DPS2");
  EXPECT_EQ(bytes[4], 2);             // kind
  EXPECT_EQ(bytes[5], h.name.size()); // name length
  EXPECT_EQ(bytes[8], 3);             // trainer
  EXPECT_EQ(bytes[12], 0x04);         // seq, low byte first
  EXPECT_EQ(bytes[16], 0x88);         // bytes, low byte first
  EXPECT_EQ(bytes[24], 42);           // rows
  EXPECT_EQ(bytes[33], 0x10);         // data address, low byte first
  EXPECT_EQ(bytes[41], 0x20);         // values address
  EXPECT_EQ(bytes[49], 0x30);         // result address
  EXPECT_EQ(std::string(reinterpret_cast<char *>(bytes.data() + 56), h.name.size()), h.name);
  PsHeader back;
  std::string error;
  ASSERT_TRUE(decodePsHeader(bytes.data(), back, error)) << error;
  EXPECT_EQ(back.kind, h.kind);
  EXPECT_EQ(back.trainer, h.trainer);
  EXPECT_EQ(back.seq, h.seq);
  EXPECT_EQ(back.bytes, h.bytes);
  EXPECT_EQ(back.rows, h.rows);
  EXPECT_EQ(back.dataAddress, h.dataAddress);
  EXPECT_EQ(back.valuesAddress, h.valuesAddress);
  EXPECT_EQ(back.resultAddress, h.resultAddress);
  EXPECT_EQ(back.name, h.name);
}

TEST(PsMessage, NamesLongerThan255BytesAreRejected) {
  EXPECT_TRUE(checkPsName(std::string(255, 'a')).ok());
  Status s = checkPsName(std::string(300, 'a'));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "variable name '" + std::string(40, 'a') +
                             "...' is 300 bytes; parameter-server messages carry names of at "
                             "most 255");
  // The longest name fits the header.
  PsHeader h;
  h.name = std::string(255, 'z');
  std::array<unsigned char, kPsHeaderBytes> bytes;
  encodePsHeader(h, bytes.data());
  PsHeader back;
  std::string error;
  ASSERT_TRUE(decodePsHeader(bytes.data(), back, error));
  EXPECT_EQ(back.name, h.name);
}

TEST(PsMessage, ForeignBytesAreNotAHeader) {
  std::array<unsigned char, kPsHeaderBytes> bytes{};
  PsHeader h;
  std::string error;
  EXPECT_FALSE(decodePsHeader(bytes.data(), h, error));
  EXPECT_EQ(error, "a request that does not start with 'DPS2' (it starts with 0x00000000): "
                   "another protocol version, or not a parameter-server request");
  encodePsHeader(PsHeader(), bytes.data());
  bytes[3] = '1'; // the version before the copy addresses
  EXPECT_FALSE(decodePsHeader(bytes.data(), h, error));
  EXPECT_NE(error.find("it starts with 'DPS1'"), std::string::npos) << error;
  encodePsHeader(PsHeader(), bytes.data());
  bytes[4] = 99;
  EXPECT_FALSE(decodePsHeader(bytes.data(), h, error));
  EXPECT_EQ(error, "a request of unknown kind 99");
}

TEST(PsMessage, ReplyCarriesABoundedMessage) {
  PsReply r;
  r.kind = PsKind::Get;
  r.done = false;
  r.bytes = 4096;
  r.message = std::string(600, 'x');
  std::array<unsigned char, kPsReplyBytes> bytes;
  encodePsReply(r, bytes.data());
  PsReply back;
  std::string error;
  ASSERT_TRUE(decodePsReply(bytes.data(), back, error)) << error;
  EXPECT_EQ(back.kind, PsKind::Get);
  EXPECT_FALSE(back.done);
  EXPECT_EQ(back.bytes, 4096u);
  EXPECT_EQ(back.message.size(), kPsMaxReplyMessage);
  EXPECT_EQ(back.message.substr(back.message.size() - 3), "...");
}

TEST(PsMessage, KindNamesArePaddles) {
  EXPECT_STREQ(psKindName(PsKind::BatchBarrier), "send_barrier");
  EXPECT_STREQ(psKindName(PsKind::FetchBarrier), "fetch_barrier");
  EXPECT_STREQ(psKindName(PsKind::Complete), "complete");
  EXPECT_FALSE(psKindFromByte(0));
  EXPECT_EQ(psKindFromByte(7), PsKind::Complete);
  EXPECT_EQ(psKindFromByte(9), PsKind::SetState);
  EXPECT_STREQ(psKindName(PsKind::GetState), "get_state");
  EXPECT_FALSE(psKindFromByte(10));
  // Slots carry the channel and the sequence number under 0xD2.
  EXPECT_EQ(psSlot(PsChannel::Reply, 5), 0xD204000000000005ull);
}

} // namespace
