// WindowStage: buffered writes handed to the kernel in whole 2 MiB-aligned
// windows, the file's bytes the same as if every write had gone out at once.
#include "mindrecord/window_stage.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace mindrecord {
namespace {

constexpr uint64_t kW = WindowStage::kWindow;

// A file in memory that records the sink's calls.
struct FakeFile {
  std::string bytes;
  struct Call {
    uint64_t offset, length;
    size_t iovs;
  };
  std::vector<Call> calls;
  bool fail = false;

  WindowStage::Sink Sink() {
    return [this](uint64_t offset, const iovec* iov, size_t n) -> Status {
      if (fail) return Status::IOError("disk full");
      uint64_t at = offset;
      for (size_t i = 0; i < n; ++i) {
        if (bytes.size() < at + iov[i].iov_len) bytes.resize(at + iov[i].iov_len, '\0');
        std::memcpy(bytes.data() + at, iov[i].iov_base, iov[i].iov_len);
        at += iov[i].iov_len;
      }
      calls.push_back({offset, at - offset, n});
      return Status::OK();
    };
  }
  // Whether some call wrote [begin, begin + kW) and nothing else.
  bool WholeWindowCall(uint64_t begin) const {
    for (const Call& c : calls)
      if (c.offset == begin && c.length == kW && c.iovs <= IOV_MAX) return true;
    return false;
  }
};

void Apply(std::string* model, uint64_t offset, const std::vector<std::string>& pieces) {
  for (const std::string& p : pieces) {
    if (model->size() < offset + p.size()) model->resize(offset + p.size(), '\0');
    std::memcpy(model->data() + offset, p.data(), p.size());
    offset += p.size();
  }
}

std::vector<std::string_view> Views(const std::vector<std::string>& pieces) {
  return std::vector<std::string_view>(pieces.begin(), pieces.end());
}

// Rows of `row` bytes, each an 8-byte length and the bytes, as the writer
// hands a batch's blobs over.
std::vector<std::string> Rows(size_t count, size_t row, char fill) {
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    out.emplace_back(8, static_cast<char>(i));
    out.emplace_back(row, static_cast<char>(fill + i % 7));
  }
  return out;
}

TEST(WindowStageTest, TwoInterleavedAppendStreamsGoOutAsWholeWindows) {
  // A blob stream of 1 KiB rows from 1 MiB (mid-window) and a raw stream of
  // small rows from 40 MiB, written in turns as the shard writer does.
  FakeFile f;
  std::string model;
  WindowStage stage(f.Sink());
  uint64_t blob = uint64_t{1} << 20, raw = uint64_t{40} << 20;
  for (int batch = 0; batch < 60; ++batch) {
    auto blobs = Rows(300, 1000 + batch, 'a');
    auto raws = Rows(300, 24, 'r');
    ASSERT_TRUE(stage.Write(blob, Views(blobs)).ok());
    Apply(&model, blob, blobs);
    for (const auto& p : blobs) blob += p.size();
    ASSERT_TRUE(stage.Write(raw, Views(raws)).ok());
    Apply(&model, raw, raws);
    for (const auto& p : raws) raw += p.size();
  }
  ASSERT_TRUE(stage.Flush().ok());
  EXPECT_EQ(stage.held_bytes(), 0u);
  ASSERT_EQ(f.bytes.size(), model.size());
  EXPECT_TRUE(f.bytes == model);
  // Every window both streams filled went out in one call (the first blob
  // window began mid-window: it cannot).
  for (uint64_t w = kW; w + kW <= blob; w += kW) EXPECT_TRUE(f.WholeWindowCall(w)) << "blob window at " << w;
  for (uint64_t w = uint64_t{40} << 20; w + kW <= raw; w += kW) EXPECT_TRUE(f.WholeWindowCall(w)) << w;
  // The copies are the price: every call is far larger than a batch.
  EXPECT_LT(f.calls.size(), 40u);
}

TEST(WindowStageTest, AWholeWindowOfFewPiecesGoesOutWithoutACopy) {
  FakeFile f;
  WindowStage stage(f.Sink());
  const std::vector<std::string> pieces = {std::string(kW / 2, 'x'), std::string(kW / 2, 'y'), std::string(100, 'z')};
  ASSERT_TRUE(stage.Write(4 * kW, Views(pieces)).ok());
  ASSERT_EQ(f.calls.size(), 1u);
  EXPECT_EQ(f.calls[0].iovs, 2u);  // the caller's own buffers
  EXPECT_EQ(stage.held_bytes(), 100u);
}

TEST(WindowStageTest, RandomWritesReadBackAsWrittenInOrder) {
  // Overwrites of held and written bytes, gaps, three streams: the file ends
  // as if each write had gone out when made.
  std::mt19937_64 rng(7);
  for (int round = 0; round < 40; ++round) {
    FakeFile f;
    std::string model;
    WindowStage stage(f.Sink());
    uint64_t ends[3] = {0, 3 * kW + 5, 9 * kW};
    for (int op = 0; op < 200; ++op) {
      const int stream = static_cast<int>(rng() % 3);
      uint64_t at = ends[stream];
      if (rng() % 8 == 0) at = rng() % (12 * kW);  // anywhere, over anything
      std::vector<std::string> pieces(1 + rng() % 5);
      for (auto& p : pieces) p.assign(rng() % 3 == 0 ? rng() % 700000 : rng() % 5000, static_cast<char>('a' + op % 26));
      ASSERT_TRUE(stage.Write(at, Views(pieces)).ok());
      Apply(&model, at, pieces);
      for (const auto& p : pieces) at += p.size();
      ends[stream] = at;
      if (rng() % 50 == 0) ASSERT_TRUE(stage.Flush().ok());
    }
    ASSERT_TRUE(stage.Flush().ok());
    ASSERT_EQ(f.bytes.size(), model.size()) << "round " << round;
    ASSERT_TRUE(f.bytes == model) << "round " << round;
  }
}

TEST(WindowStageTest, AFailedWriteOfHeldBytesIsReported) {
  FakeFile f;
  WindowStage stage(f.Sink());
  const std::vector<std::string> head = {std::string(1000, 'h')};
  ASSERT_TRUE(stage.Write(0, Views(head)).ok());
  EXPECT_EQ(stage.held_bytes(), 1000u);
  f.fail = true;
  // Held by the stage until now: the error surfaces here, not never.
  EXPECT_FALSE(stage.Flush().ok());
}

}  // namespace
}  // namespace mindrecord
