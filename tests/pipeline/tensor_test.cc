#include "pipeline/tensor.h"
#include "pipeline/inline_vector.h"
#include "pipeline/row_vectors.h"
#include "tests/util/smaps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace mindrecord {
namespace {

TEST(TensorTest, TypeNamesRoundTrip) {
  for (int i = 0; i <= 9; ++i) {
    auto t = static_cast<TensorType>(i);
    auto parsed = ParseTensorType(TensorTypeName(t));
    ASSERT_TRUE(parsed.ok()) << TensorTypeName(t);
    EXPECT_EQ(*parsed, t);
  }
  EXPECT_EQ(TensorTypeSize(TensorType::kFloat64), 8u);
  EXPECT_EQ(TensorTypeSize(TensorType::kInt16), 2u);
  EXPECT_EQ(TensorTypeSize(TensorType::kBool), 1u);
  EXPECT_STREQ(TensorTypeName(TensorType::kBool), "bool");
  EXPECT_FALSE(ParseTensorType("complex64").ok());
}

// Shapes of up to Shape::kInline dimensions are held inline; longer ones on
// the heap; both behave as the same value.
TEST(TensorTest, ShapesInlineAndLong) {
  Shape small = {2, 3, 4};
  Shape big = {1, 2, 3, 4, 5, 6, 7};
  ASSERT_GT(big.size(), Shape::kInline);
  EXPECT_EQ(small.size(), 3u);
  EXPECT_EQ(small, (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(big, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(big.back(), 7);
  EXPECT_FALSE(small == big);
  Shape a = big, b = small;
  a = small;  // heap -> inline
  b = big;    // inline -> heap
  EXPECT_EQ(a, small);
  EXPECT_EQ(b, big);
  Shape moved = std::move(b);
  EXPECT_EQ(moved, big);
  EXPECT_TRUE(b.empty());  // NOLINT(bugprone-use-after-move)
  Shape m2 = std::move(a);
  EXPECT_EQ(m2, small);
  EXPECT_EQ(moved.vec(), (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7}));
  std::ostringstream os;
  os << small;
  EXPECT_EQ(os.str(), "[2,3,4]");
  EXPECT_EQ(Tensor::Make(TensorType::kUInt8, big).DebugString(), "Tensor<uint8>[1,2,3,4,5,6,7]");
  Tensor t = Tensor::Make(TensorType::kUInt8, big);
  EXPECT_EQ(t.num_elements(), 5040);
  EXPECT_EQ(t.Subtensor(0).shape(), (std::vector<int64_t>{2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(t.Reshaped({5040}).shape(), (std::vector<int64_t>{5040}));
  EXPECT_EQ(Tensor::Make(TensorType::kUInt8, {}).num_elements(), 1);
}

// push_back moves the elements to the heap when the (N+1)-th arrives; copies
// and moves keep every element wherever it lives.
TEST(TensorTest, InlineVectorGrowsPastItsInlineElements) {
  InlineVector<int64_t, 2> v;
  for (int64_t i = 0; i < 5; ++i) {
    v.push_back(10 + i);
    ASSERT_EQ(v.size(), static_cast<size_t>(i + 1));
    for (int64_t k = 0; k <= i; ++k) ASSERT_EQ(v[k], 10 + k) << "after " << i + 1 << " elements";
  }
  EXPECT_EQ(v.front(), 10);
  EXPECT_EQ(v.back(), 14);
  InlineVector<int64_t, 2> copy = v;
  InlineVector<int64_t, 2> moved = std::move(v);
  EXPECT_TRUE(v.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(std::equal(copy.begin(), copy.end(), moved.begin(), moved.end()));
  v.push_back(1);  // a moved-from vector is usable again
  v.push_back(2);
  v.push_back(3);
  EXPECT_EQ(std::vector<int64_t>(v.begin(), v.end()), (std::vector<int64_t>{1, 2, 3}));
  copy = v;  // heap -> heap, shorter
  EXPECT_EQ(copy.size(), 3u);
  EXPECT_EQ(copy[2], 3);
}

// A row's column vector given back is the next one taken on the same thread
// (no allocation), emptied; other threads have their own spares; the spares
// are bounded (1 MiB of vectors per thread).
TEST(TensorTest, RowVectorsAreReusedPerThread) {
  while (TakeRowVector().capacity() > 0) {
  }
  std::vector<Tensor> v;
  v.reserve(3);
  v.push_back(Tensor::Make(TensorType::kUInt8, {4}));
  const Tensor* storage = v.data();
  GiveRowVector(std::move(v));
  std::thread([] { EXPECT_EQ(TakeRowVector().capacity(), 0u); }).join();
  std::vector<Tensor> again = TakeRowVector();
  EXPECT_TRUE(again.empty());
  EXPECT_EQ(again.capacity(), 3u);
  EXPECT_EQ(again.data(), storage);
  EXPECT_EQ(TakeRowVector().capacity(), 0u);
  // Past the cap, vectors are freed rather than kept.
  const size_t per = 4 * sizeof(Tensor);
  const size_t fit = (size_t{1} << 20) / per;
  for (size_t i = 0; i < fit + 10; ++i) {
    std::vector<Tensor> w;
    w.reserve(4);
    GiveRowVector(std::move(w));
  }
  size_t kept = 0;
  while (TakeRowVector().capacity() > 0) kept++;
  EXPECT_EQ(kept, fit);
}

TEST(TensorTest, MakeAndCopyOnWrite) {
  Tensor a = Tensor::Make(TensorType::kFloat32, {2, 3});
  EXPECT_EQ(a.num_elements(), 6);
  EXPECT_EQ(a.size_bytes(), 24u);
  for (int i = 0; i < 6; ++i) a.mutable_data_as<float>()[i] = static_cast<float>(i);
  Tensor b = a;
  EXPECT_EQ(a.data(), b.data());  // shared
  b.mutable_data_as<float>()[0] = 42.f;
  EXPECT_NE(a.data(), b.data());
  EXPECT_EQ(a.data_as<float>()[0], 0.f);
  EXPECT_EQ(b.data_as<float>()[0], 42.f);
  EXPECT_EQ(b.data_as<float>()[5], 5.f);
  // Sole owner: no copy.
  const uint8_t* p = b.data();
  EXPECT_EQ(b.MutableData(), p);
}

TEST(TensorTest, Reshaped) {
  Tensor a = Tensor::Make(TensorType::kUInt8, {4, 6});
  Tensor b = a.Reshaped({2, 3, 4});
  ASSERT_TRUE(b.defined());
  EXPECT_EQ(b.shape(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(b.data(), a.data());
  EXPECT_FALSE(a.Reshaped({5}).defined());
}

TEST(TensorTest, FromValue) {
  Tensor i32 = Tensor::FromValue(Value::Int(-7), DataType::kInt32);
  EXPECT_EQ(i32.type(), TensorType::kInt32);
  EXPECT_TRUE(i32.shape().empty());
  EXPECT_EQ(i32.data_as<int32_t>()[0], -7);
  Tensor i64 = Tensor::FromValue(Value::Int(1LL << 40), DataType::kInt64);
  EXPECT_EQ(i64.type(), TensorType::kInt64);
  EXPECT_EQ(i64.data_as<int64_t>()[0], 1LL << 40);
  Tensor f32 = Tensor::FromValue(Value::Float(0.5), DataType::kFloat32);
  EXPECT_EQ(f32.type(), TensorType::kFloat32);
  EXPECT_EQ(f32.data_as<float>()[0], 0.5f);
  Tensor f64 = Tensor::FromValue(Value::Float(0.25), DataType::kFloat64);
  EXPECT_EQ(f64.type(), TensorType::kFloat64);
  EXPECT_EQ(f64.data_as<double>()[0], 0.25);
  Tensor s = Tensor::FromValue(Value::String("hey"), DataType::kString);
  EXPECT_EQ(s.type(), TensorType::kString);
  EXPECT_EQ(s.shape(), (std::vector<int64_t>{3}));
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(s.data()), 3), "hey");
  Tensor by = Tensor::FromValue(Value::Bytes(std::string("\0\1", 2)), DataType::kBytes);
  EXPECT_EQ(by.type(), TensorType::kBytes);
  EXPECT_EQ(by.size_bytes(), 2u);
  Tensor arr = Tensor::FromValue(Value::ArrayOf<float>(DataType::kFloat32, {1, 2, 3, 4, 5, 6}, {2, 3}),
                                 DataType::kFloat32);
  EXPECT_EQ(arr.type(), TensorType::kFloat32);
  EXPECT_EQ(arr.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(arr.data_as<float>()[4], 5.f);
  EXPECT_FALSE(Tensor::FromValue(Value(), DataType::kInt32).defined());
}

// The pool is process-wide: each test restores the default (auto) limit and
// reads the counters as differences.
class TensorPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetTensorPoolCapacity(0);  // empties the cache other tests filled
    SetTensorPoolCapacity(kTensorPoolAuto);
  }
  void TearDown() override { SetTensorPoolCapacity(kTensorPoolAuto); }
};

TEST_F(TensorPoolTest, ReleasedBufferIsReusedForTheSameSizeClass) {
  Tensor a = Tensor::Make(TensorType::kFloat32, {224, 224, 3});
  const uint8_t* p = a.data();
  a = Tensor();
  const TensorPoolStats before = GetTensorPoolStats();
  // 224*224*3 floats and 3*224*224 floats: same bytes; 600,000 bytes rounds
  // to the same class (4 classes per power of two).
  Tensor b = Tensor::Make(TensorType::kFloat32, {3, 224, 224});
  EXPECT_EQ(b.data(), p);
  Tensor c = Tensor::Make(TensorType::kUInt8, {600000});
  EXPECT_NE(c.data(), p);  // b still holds it
  const TensorPoolStats after = GetTensorPoolStats();
  EXPECT_EQ(after.hits, before.hits + 1);
  EXPECT_EQ(after.misses, before.misses + 1);
}

TEST_F(TensorPoolTest, SmallBuffersAndOtherClassesAreNotShared) {
  Tensor a = Tensor::Make(TensorType::kUInt8, {static_cast<int64_t>(kTensorPoolMinBytes) - 1});
  const TensorPoolStats before = GetTensorPoolStats();
  a = Tensor();
  EXPECT_EQ(GetTensorPoolStats().cached_bytes, before.cached_bytes);
  Tensor big = Tensor::Make(TensorType::kUInt8, {400000});
  const uint8_t* p = big.data();
  big = Tensor();
  Tensor other = Tensor::Make(TensorType::kUInt8, {300000});  // a smaller class
  EXPECT_NE(other.data(), p);
  Tensor same = Tensor::Make(TensorType::kUInt8, {393217});  // same class as 400000
  EXPECT_EQ(same.data(), p);
}

TEST_F(TensorPoolTest, CapacityIsRespectedAndEvictsOtherClasses) {
  SetTensorPoolCapacity(0);
  EXPECT_EQ(GetTensorPoolStats().cached_bytes, 0u);
  {
    Tensor t = Tensor::Make(TensorType::kUInt8, {100000});
  }
  EXPECT_EQ(GetTensorPoolStats().cached_bytes, 0u);  // capacity 0: nothing kept

  SetTensorPoolCapacity(size_t{1} << 20);
  std::vector<Tensor> quarter;
  for (int i = 0; i < 8; ++i) quarter.push_back(Tensor::Make(TensorType::kUInt8, {int64_t{256} << 10}));
  quarter.clear();
  TensorPoolStats s = GetTensorPoolStats();
  EXPECT_EQ(s.capacity, size_t{1} << 20);
  EXPECT_EQ(s.cached_bytes, size_t{1} << 20);  // 4 of the 8 kept
  // A 768 KiB buffer released into the full cache evicts 3 quarter buffers.
  { Tensor t = Tensor::Make(TensorType::kUInt8, {int64_t{768} << 10}); }
  s = GetTensorPoolStats();
  EXPECT_EQ(s.cached_bytes, size_t{1} << 20);
  const uint64_t hits = s.hits;
  Tensor again = Tensor::Make(TensorType::kUInt8, {int64_t{768} << 10});
  EXPECT_EQ(GetTensorPoolStats().hits, hits + 1);
  // A buffer larger than the capacity is freed without evicting anything.
  again = Tensor();
  { Tensor t = Tensor::Make(TensorType::kUInt8, {int64_t{2} << 20}); }
  EXPECT_EQ(GetTensorPoolStats().cached_bytes, size_t{1} << 20);
}

TEST_F(TensorPoolTest, BuffersMadeAndReleasedOnManyThreads) {
  SetTensorPoolCapacity(size_t{4} << 20);
  const TensorPoolStats before = GetTensorPoolStats();
  constexpr int kThreads = 4, kRounds = 200;
  std::vector<std::vector<Tensor>> handoff(kThreads);
  std::vector<int> bad(kThreads, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k) {
    threads.emplace_back([&, k] {
      for (int r = 0; r < kRounds; ++r) {
        const int64_t n = (int64_t{64} << 10) * (1 + (r + k) % 5);
        Tensor t = Tensor::Make(TensorType::kUInt8, {n});
        std::memset(t.MutableData(), k * 31 + r, static_cast<size_t>(n));
        Tensor u = t;  // a second owner released below, on this thread
        const uint8_t want = static_cast<uint8_t>(k * 31 + r);
        for (int64_t i = 0; i < n; i += 4093) bad[k] += u.data()[i] != want;
        if (r % 3 == 0) handoff[k].push_back(std::move(t));  // released on the main thread
      }
    });
  }
  for (auto& t : threads) t.join();
  handoff.clear();
  const TensorPoolStats after = GetTensorPoolStats();
  EXPECT_EQ(bad, std::vector<int>(kThreads, 0));
  EXPECT_EQ(after.hits + after.misses - before.hits - before.misses, uint64_t{kThreads * kRounds});
  EXPECT_GT(after.hits, before.hits);
  EXPECT_LE(after.cached_bytes, size_t{4} << 20);
}


// A pipeline holds several batch-sized buffers at once (batches queued, one
// being built, one with the consumer): the default limit keeps them all, so
// the next batches reuse them instead of faulting in fresh pages.
TEST_F(TensorPoolTest, AutoLimitKeepsWhatTheWorkloadHadInUseAtOnce) {
  const std::vector<int64_t> batch = {64, 224, 224, 3};  // 38.5 MB of float32
  std::vector<Tensor> held;
  for (int i = 0; i < 4; ++i) held.push_back(Tensor::Make(TensorType::kFloat32, batch));
  TensorPoolStats s = GetTensorPoolStats();
  EXPECT_EQ(s.capacity, kTensorPoolAuto);
  EXPECT_GE(s.live_bytes, 4 * held[0].size_bytes());
  EXPECT_EQ(s.peak_live_bytes, s.live_bytes);
  EXPECT_GT(s.limit, kTensorPoolMinCapacity);
  held.clear();
  s = GetTensorPoolStats();
  EXPECT_EQ(s.live_bytes, 0u);
  EXPECT_EQ(s.cached_bytes, s.peak_live_bytes);  // all four kept
  for (int i = 0; i < 4; ++i) held.push_back(Tensor::Make(TensorType::kFloat32, batch));
  EXPECT_EQ(GetTensorPoolStats().hits, s.hits + 4);
  EXPECT_EQ(GetTensorPoolStats().misses, s.misses);
  held.clear();

  // Never more than the peak in use: a fixed limit, then auto again, starts
  // the count afresh.
  SetTensorPoolCapacity(0);
  SetTensorPoolCapacity(kTensorPoolAuto);
  s = GetTensorPoolStats();
  EXPECT_EQ(s.cached_bytes, 0u);
  EXPECT_EQ(s.limit, kTensorPoolMinCapacity);
  held.push_back(Tensor::Make(TensorType::kFloat32, batch));
  held.push_back(Tensor::Make(TensorType::kFloat32, batch));
  held.clear();
  s = GetTensorPoolStats();
  EXPECT_EQ(s.cached_bytes, s.peak_live_bytes);
  EXPECT_LE(s.cached_bytes, s.limit);
  EXPECT_LT(s.cached_bytes, 3 * size_t{38535168});
}

// The THPeligible line of the /proc/self/smaps entry holding `p`, or -1.
int ThpEligible(const void* p) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  return static_cast<int>(
      testing::SmapsValue("THPeligible", [&](uintptr_t lo, uintptr_t hi, const std::string&) { return lo <= at && at < hi; }));
}

// Batch-sized buffers are huge-page aligned and advised as huge-page memory:
// fresh ones cost a fault per 2 MiB, not per 4 KiB.
TEST_F(TensorPoolTest, LargeBuffersAreHugePageAlignedAndAdvised) {
  Tensor t = Tensor::Make(TensorType::kFloat32, {32, 3, 224, 224});  // 19 MB
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % (uintptr_t{2} << 20), 0u);
  Tensor small = Tensor::Make(TensorType::kUInt8, {int64_t{1} << 20});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small.data()) % 64, 0u);
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(mode, modes);
  if (modes.find("[never]") != std::string::npos || modes.empty()) GTEST_SKIP() << "transparent huge pages are off";
  EXPECT_EQ(ThpEligible(t.data()), 1);
}

}  // namespace
}  // namespace mindrecord
