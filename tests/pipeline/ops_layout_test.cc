#include <gtest/gtest.h>

#include <cmath>

#include "pipeline/ops/fuse.h"
#include "tests/pipeline/ops_test_util.h"

namespace mindrecord {
namespace {

using testing::MatToTensor;
using testing::Op;
using testing::RunOp;
using testing::SyntheticRgb;

TEST(OpsLayoutTest, NormalizeArithmetic) {
  Tensor img = MatToTensor(SyntheticRgb(5, 7));
  auto op = Op({{"op", "Normalize"}, {"mean", {10.0, 20.0, 30.0}}, {"std", {2.0, 4.0, 8.0}}});
  Tensor out = RunOp(*op, img);
  ASSERT_EQ(out.type(), TensorType::kFloat32);
  ASSERT_EQ(out.shape(), img.shape());
  const double mean[] = {10, 20, 30}, stdv[] = {2, 4, 8};
  for (int64_t i = 0; i < img.num_elements(); ++i)
    ASSERT_NEAR(out.data_as<float>()[i], (img.data()[i] - mean[i % 3]) / stdv[i % 3], 1e-5);
  // Float input and a single broadcast value.
  Tensor f = Tensor::Make(TensorType::kFloat32, {2, 2});
  for (int i = 0; i < 4; ++i) f.mutable_data_as<float>()[i] = static_cast<float>(i);
  Tensor g = RunOp(*Op({{"op", "Normalize"}, {"mean", 1.0}, {"std", 0.5}}), f);
  EXPECT_FLOAT_EQ(g.data_as<float>()[3], 4.f);
  // Channel-count mismatch is an error naming the op.
  std::mt19937_64 rng(0);
  auto bad = Op({{"op", "Normalize"}, {"mean", {1.0, 2.0}}, {"std", {1.0, 1.0}}})->Apply(img, rng);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("Normalize"), std::string::npos);
}

TEST(OpsLayoutTest, Hwc2ChwIndexMapping) {
  for (TensorType type : {TensorType::kUInt8, TensorType::kFloat32, TensorType::kInt16}) {
    for (int64_t c : {1, 3, 4}) {
      const int64_t h = 3, w = 5;
      Tensor in = Tensor::Make(type, {h, w, c});
      const size_t es = TensorTypeSize(type);
      for (size_t i = 0; i < in.size_bytes(); ++i) in.MutableData()[i] = static_cast<uint8_t>(i * 7 + 1);
      Tensor out = RunOp(*Op({{"op", "HWC2CHW"}}), in);
      ASSERT_EQ(out.shape(), (std::vector<int64_t>{c, h, w}));
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x)
          for (int64_t k = 0; k < c; ++k)
            ASSERT_EQ(std::memcmp(out.data() + ((k * h + y) * w + x) * es, in.data() + ((y * w + x) * c + k) * es, es),
                      0);
    }
  }
  std::mt19937_64 rng(0);
  EXPECT_FALSE(Op({{"op", "HWC2CHW"}})->Apply(Tensor::Make(TensorType::kUInt8, {4, 4}), rng).ok());
  // Empty tensors (a dataset row may hold any shape; found by the op_spec
  // fuzz target, which crashed in cv::split on [10, 0, 0]).
  for (const Shape& s : {Shape{10, 0, 0}, Shape{0, 4, 3}, Shape{3, 4, 0}}) {
    auto out = Op({{"op", "HWC2CHW"}})->Apply(Tensor::Make(TensorType::kInt8, s), rng);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(out->shape(), (Shape{s[2], s[0], s[1]}));
  }
}

TEST(OpsLayoutTest, TypeCast) {
  Tensor f = Tensor::Make(TensorType::kFloat32, {5});
  const float vals[] = {-3.6f, 0.4f, 1.5f, 254.6f, 1e6f};
  std::memcpy(f.MutableData(), vals, sizeof(vals));
  Tensor u8 = RunOp(*Op({{"op", "TypeCast"}, {"type", "uint8"}}), f);
  ASSERT_EQ(u8.type(), TensorType::kUInt8);
  EXPECT_EQ(std::vector<uint8_t>(u8.data(), u8.data() + 5), (std::vector<uint8_t>{0, 0, 2, 255, 255}));
  Tensor i16 = RunOp(*Op({{"op", "TypeCast"}, {"type", "int16"}}), f);
  EXPECT_EQ(i16.data_as<int16_t>()[0], -4);
  EXPECT_EQ(i16.data_as<int16_t>()[4], 32767);
  Tensor back = RunOp(*Op({{"op", "TypeCast"}, {"type", "float64"}}), u8);
  EXPECT_EQ(back.data_as<double>()[3], 255.0);
  Tensor i64 = Tensor::Make(TensorType::kInt64, {2});
  i64.mutable_data_as<int64_t>()[0] = -1;
  i64.mutable_data_as<int64_t>()[1] = 1LL << 40;
  Tensor i8 = RunOp(*Op({{"op", "TypeCast"}, {"type", "int8"}}), i64);
  EXPECT_EQ(i8.data_as<int8_t>()[0], -1);
  EXPECT_EQ(i8.data_as<int8_t>()[1], 127);
  Tensor u = RunOp(*Op({{"op", "TypeCast"}, {"type", "uint8"}}), i64);
  EXPECT_EQ(u.data()[0], 0);
  // To bool: non-zero (NaN too) is true, as numpy's astype(bool); bool reads
  // as 0 / 1 whatever non-zero byte a true holds.
  Tensor g = Tensor::Make(TensorType::kFloat32, {4});
  const float gv[] = {0.0f, -0.0f, 0.25f, std::nanf("")};
  std::memcpy(g.MutableData(), gv, sizeof(gv));
  Tensor flags = RunOp(*Op({{"op", "TypeCast"}, {"type", "bool"}}), g);
  ASSERT_EQ(flags.type(), TensorType::kBool);
  EXPECT_EQ(std::vector<uint8_t>(flags.data(), flags.data() + 4), (std::vector<uint8_t>{0, 0, 1, 1}));
  flags.MutableData()[3] = 7;
  Tensor bi = RunOp(*Op({{"op", "TypeCast"}, {"type", "int32"}}), flags);
  EXPECT_EQ(std::vector<int32_t>(bi.data_as<int32_t>(), bi.data_as<int32_t>() + 4), (std::vector<int32_t>{0, 0, 1, 1}));
  // Every numeric pair works and keeps the shape (6: float64; 9: bool).
  for (int a : {0, 1, 2, 3, 4, 5, 6, 9})
    for (int b : {0, 1, 2, 3, 4, 5, 6, 9}) {
      Tensor in = Tensor::Make(static_cast<TensorType>(a), {2, 3});
      std::memset(in.MutableData(), 0, in.size_bytes());
      Tensor out = RunOp(*Op({{"op", "TypeCast"}, {"type", TensorTypeName(static_cast<TensorType>(b))}}), in);
      EXPECT_EQ(out.type(), static_cast<TensorType>(b));
      EXPECT_EQ(out.shape(), in.shape());
    }
  std::mt19937_64 rng(0);
  EXPECT_FALSE(Op({{"op", "TypeCast"}, {"type", "int32"}})->Apply(Tensor::FromString(TensorType::kBytes, "x"), rng).ok());
  EXPECT_FALSE(MakeOp({{"op", "TypeCast"}, {"type", "bytes"}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "TypeCast"}}).ok());
}

// The last op of a column may write its result straight into the row's place
// in a batch: the same values as Apply, in the slot's bytes; a slot of another
// type or shape is ignored.
TEST(OpsLayoutTest, NormalizeHwc2ChwAndTypeCastWriteIntoAnOutputSlot) {
  Tensor img = MatToTensor(SyntheticRgb(6, 9));
  struct Case {
    nlohmann::json spec;
    TensorType type;
    std::vector<int64_t> shape;
  };
  const std::vector<Case> cases = {
      {{{"op", "Normalize"}, {"mean", {10.0, 20.0, 30.0}}, {"std", {2.0, 4.0, 8.0}}}, TensorType::kFloat32, {6, 9, 3}},
      {{{"op", "HWC2CHW"}}, TensorType::kUInt8, {3, 6, 9}},
      {{{"op", "TypeCast"}, {"type", "float64"}}, TensorType::kFloat64, {6, 9, 3}},
      {{{"op", "NormalizeHWC2CHW"}, {"mean", {1.0, 2.0, 3.0}}, {"std", {2.0, 2.0, 2.0}}}, TensorType::kFloat32, {3, 6, 9}},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.spec.dump());
    auto op = Op(k.spec);
    const Tensor want = RunOp(*op, img);
    // A batch of 3 such rows; row 1 is the slot.
    std::vector<int64_t> bshape = {3};
    bshape.insert(bshape.end(), k.shape.begin(), k.shape.end());
    Tensor batch = Tensor::Make(k.type, bshape);
    uint8_t* base = batch.MutableData();
    std::memset(base, 0xAB, batch.size_bytes());
    OutputSlot slot{batch.Subtensor(1), base + want.size_bytes()};
    std::mt19937_64 rng(0);
    auto got = op->ApplyInto(img, rng, slot);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->data(), slot.data);
    EXPECT_EQ(got->shape(), want.shape());
    EXPECT_EQ(std::memcmp(slot.data, want.data(), want.size_bytes()), 0);
    EXPECT_EQ(base[0], 0xAB);  // rows 0 and 2 untouched
    EXPECT_EQ(base[batch.size_bytes() - 1], 0xAB);
    // A slot of another shape: Apply's result, elsewhere.
    Tensor other = Tensor::Make(k.type, {2, 2});
    OutputSlot wrong{other, other.MutableData()};
    auto fallback = op->ApplyInto(img, rng, wrong);
    ASSERT_TRUE(fallback.ok());
    EXPECT_NE(fallback->data(), wrong.data);
    EXPECT_EQ(std::memcmp(fallback->data(), want.data(), want.size_bytes()), 0);
  }
}

// The plan optimizer turns Normalize + HWC2CHW into one pass with exactly the
// pair's output.
TEST(OpsLayoutTest, NormalizeHwc2ChwFusedIsExactlyThePair) {
  const nlohmann::json norm = {{"op", "Normalize"}, {"mean", {10.0, 20.0, 30.0, 40.0}}, {"std", {2.0, 4.0, 8.0, 3.0}}};
  const auto fused = FuseOps({norm, {{"op", "HWC2CHW"}}});
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(fused[0]["op"], "NormalizeHWC2CHW");
  EXPECT_EQ(FuseOps({norm, {{"op", "TypeCast"}, {"type", "float32"}}}).size(), 2u);
  auto op = Op(fused[0]);
  for (TensorType type : {TensorType::kUInt8, TensorType::kFloat32}) {
    for (int64_t c : {1, 3, 4}) {
      Tensor in = Tensor::Make(type, {5, 7, c});
      for (int64_t i = 0; i < in.num_elements(); ++i) {
        if (type == TensorType::kUInt8) in.MutableData()[i] = static_cast<uint8_t>(i * 13 + 5);
        else in.mutable_data_as<float>()[i] = static_cast<float>(i) * 1.5f - 20.f;
      }
      nlohmann::json n = norm;
      n["mean"] = std::vector<double>(norm["mean"].begin(), norm["mean"].begin() + c);
      n["std"] = std::vector<double>(norm["std"].begin(), norm["std"].begin() + c);
      nlohmann::json f = n;
      f["op"] = "NormalizeHWC2CHW";
      const Tensor want = RunOp(*Op({{"op", "HWC2CHW"}}), RunOp(*Op(n), in));
      const Tensor got = RunOp(*Op(f), in);
      ASSERT_EQ(got.shape(), want.shape());
      ASSERT_EQ(got.type(), TensorType::kFloat32);
      EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size_bytes()), 0) << c << " channels";
    }
  }
  std::mt19937_64 rng(0);
  auto flat = op->Apply(Tensor::Make(TensorType::kUInt8, {4, 4}), rng);
  ASSERT_FALSE(flat.ok());
  EXPECT_NE(flat.status().message().find("NormalizeHWC2CHW"), std::string::npos) << flat.status().message();
}

// A slot large enough that Normalize streams its output past the cache: the
// same values as Apply, for every input type, channel count and layout, in a
// slot that is not 16-byte aligned and an image that is not a whole number of
// the pixel chunks it is normalized in.
TEST(OpsLayoutTest, NormalizeIntoALargeSlotIsExactlyApply) {
  const int64_t h = 183, w = 191;  // 34,953 pixels: 34 full chunks and a short one
  for (const char* name : {"Normalize", "NormalizeHWC2CHW"}) {
    for (TensorType type : {TensorType::kUInt8, TensorType::kFloat32}) {
      for (int64_t c : {1, 3, 4}) {
        SCOPED_TRACE(std::string(name) + ", " + TensorTypeName(type) + ", " + std::to_string(c) + " channels");
        Tensor in = Tensor::Make(type, {h, w, c});
        for (int64_t i = 0; i < in.num_elements(); ++i) {
          if (type == TensorType::kUInt8) in.MutableData()[i] = static_cast<uint8_t>(i * 13 + 5);
          else in.mutable_data_as<float>()[i] = static_cast<float>(i % 977) * 1.5f - 20.f;
        }
        nlohmann::json n = {{"op", name}, {"mean", nlohmann::json::array()}, {"std", nlohmann::json::array()}};
        for (int64_t k = 0; k < c; ++k) {
          n["mean"].push_back(10.0 * static_cast<double>(k + 1));
          n["std"].push_back(2.0 + static_cast<double>(k));
        }
        auto op = Op(n);
        const Tensor want = RunOp(*op, in);
        ASSERT_GE(want.size_bytes(), size_t{128} << 10);
        // A batch of 3 such rows after a 4-byte lead: row 1's slot is unaligned.
        Tensor buf = Tensor::Make(TensorType::kUInt8, {static_cast<int64_t>(4 + 3 * want.size_bytes())});
        uint8_t* base = buf.MutableData();
        std::memset(base, 0xAB, buf.size_bytes());
        uint8_t* at = base + 4 + want.size_bytes();
        OutputSlot slot{Tensor::Wrap(TensorType::kFloat32, want.shape(), std::shared_ptr<void>(), at), at};
        std::mt19937_64 rng(0);
        auto got = op->ApplyInto(in, rng, slot);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        EXPECT_EQ(got->data(), at);
        EXPECT_EQ(std::memcmp(at, want.data(), want.size_bytes()), 0);
        EXPECT_EQ(at[-1], 0xAB);  // the neighbours untouched
        EXPECT_EQ(at[want.size_bytes()], 0xAB);
      }
    }
  }
}

// MindSpore's is_hwc=False: a [C, H, W] image normalized plane by plane; such
// a Normalize is never fused with an HWC2CHW after it.
TEST(OpsLayoutTest, NormalizePlanarInput) {
  const int c = 3, h = 4, w = 5;
  Tensor in = Tensor::Make(TensorType::kUInt8, {c, h, w});
  for (size_t i = 0; i < in.size_bytes(); ++i) in.MutableData()[i] = static_cast<uint8_t>(i * 13 + 5);
  const nlohmann::json spec = {{"op", "Normalize"}, {"mean", {1.0, 2.0, 3.0}}, {"std", {2.0, 4.0, 8.0}}, {"is_hwc", false}};
  EXPECT_EQ(Op(spec)->ToJson(), spec);
  Tensor out = RunOp(*Op(spec), in);
  ASSERT_EQ(out.shape(), (Shape{c, h, w}));
  const double mean[] = {1, 2, 3}, stdv[] = {2, 4, 8};
  for (int k = 0; k < c; ++k)
    for (int i = 0; i < h * w; ++i)
      ASSERT_NEAR(out.data_as<float>()[k * h * w + i], (in.data()[k * h * w + i] - mean[k]) / stdv[k], 1e-5);
  std::mt19937_64 rng(0);
  EXPECT_FALSE(Op(spec)->Apply(Tensor::Make(TensorType::kUInt8, {h, w, c + 2}), rng).ok());  // 5 "channels"
  EXPECT_EQ(FuseOps({spec, {{"op", "HWC2CHW"}}}).front(), spec);
  EXPECT_FALSE(MakeOp({{"op", "NormalizeHWC2CHW"}, {"mean", {1.0}}, {"std", {1.0}}, {"is_hwc", false}}).ok());
}

TEST(OpsLayoutTest, MakeOpToJsonRoundTrip) {
  const std::vector<nlohmann::json> specs = {
      {{"op", "Decode"}},
      {{"op", "Decode"}, {"target_size", {224, 224}}},
      {{"op", "Resize"}, {"size", 256}, {"interpolation", "bicubic"}},
      {{"op", "CenterCrop"}, {"size", {224, 200}}},
      {{"op", "RandomCrop"}, {"size", 32}, {"padding", 4}, {"padding_mode", "reflect"}},
      {{"op", "RandomResizedCrop"}, {"size", {224, 224}}, {"scale", {0.08, 1.0}}, {"ratio", {0.75, 1.333}},
       {"interpolation", "bilinear"}},
      {{"op", "RandomHorizontalFlip"}, {"p", 0.25}},
      {{"op", "Normalize"}, {"mean", {123.675, 116.28, 103.53}}, {"std", {58.395, 57.12, 57.375}}},
      {{"op", "HWC2CHW"}},
      {{"op", "TypeCast"}, {"type", "float32"}},
      {{"op", "DecodeResize"}, {"size", 224}},
      {{"op", "DecodeRandomResizedCrop"}, {"size", 224}, {"all_factors", true}},
      {{"op", "NormalizeHWC2CHW"}, {"mean", {1.0, 2.0, 3.0}}, {"std", {4.0, 5.0, 6.0}}},
      {{"op", "ToTensor"}, {"output_type", "float64"}},
  };
  for (const auto& spec : specs) {
    auto op = Op(spec);
    ASSERT_NE(op, nullptr) << spec.dump();
    EXPECT_EQ(op->name(), spec["op"]);
    const nlohmann::json j = op->ToJson();
    for (auto it = spec.begin(); it != spec.end(); ++it) EXPECT_EQ(j[it.key()], it.value()) << spec.dump();
    auto again = MakeOp(j);
    ASSERT_TRUE(again.ok()) << j.dump() << ": " << again.status().ToString();
    EXPECT_EQ((*again)->ToJson(), j);
    EXPECT_EQ((*again)->is_random(), op->is_random());
  }
}

TEST(OpsLayoutTest, BadParamsRejected) {
  const std::vector<nlohmann::json> bad = {
      {{"op", "Nope"}},
      {{"size", 3}},
      {{"op", "Resize"}},
      {{"op", "Resize"}, {"size", 0}},
      {{"op", "Resize"}, {"size", {1, 2, 3}}},
      {{"op", "Resize"}, {"size", 8}, {"interpolation", "lanczos9"}},
      {{"op", "Resize"}, {"size", 8}, {"sise", 8}},
      {{"op", "CenterCrop"}, {"size", "big"}},
      {{"op", "RandomCrop"}, {"size", 8}, {"padding", {1, 2, 3}}},
      {{"op", "RandomCrop"}, {"size", 8}, {"padding", -1}},
      {{"op", "RandomCrop"}, {"size", 8}, {"padding", 1e30}},
      {{"op", "RandomCrop"}, {"size", 8}, {"padding_mode", "wrap"}},
      {{"op", "RandomResizedCrop"}, {"size", 8}, {"scale", {0.9, 0.1}}},
      {{"op", "RandomResizedCrop"}, {"size", 8}, {"ratio", {0.0, 1.0}}},
      {{"op", "RandomResizedCrop"}, {"size", 8}, {"attempts", 0}},
      {{"op", "RandomHorizontalFlip"}, {"p", 1.5}},
      {{"op", "Normalize"}, {"mean", {1, 2, 3}}},
      {{"op", "Normalize"}, {"mean", {1, 2, 3}}, {"std", {1, 0, 1}}},
      {{"op", "Normalize"}, {"mean", {1, 2, 3}}, {"std", {1, 1}}},
      {{"op", "TypeCast"}, {"type", "complex"}},
  };
  for (const auto& spec : bad) {
    auto r = MakeOp(spec);
    ASSERT_FALSE(r.ok()) << spec.dump();
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << spec.dump();
    if (spec.contains("op") && spec["op"] != "Nope")
      EXPECT_NE(r.status().message().find(spec["op"].get<std::string>()), std::string::npos) << r.status().message();
  }
}

TEST(OpsLayoutTest, WrongInputRejectedNamingOp) {
  std::mt19937_64 rng(0);
  const Tensor bytes = Tensor::FromString(TensorType::kBytes, "abc");
  const Tensor vec = Tensor::Make(TensorType::kUInt8, {5});
  const Tensor i32 = Tensor::Make(TensorType::kInt32, {4, 4, 3});
  for (const char* name : {"Resize", "CenterCrop", "RandomCrop", "RandomResizedCrop", "Normalize"}) {
    nlohmann::json spec = {{"op", name}, {"size", 2}};
    if (std::string(name) == "Normalize") spec = {{"op", name}, {"mean", 0}, {"std", 1}};
    auto op = Op(spec);
    for (const Tensor& t : {bytes, vec, i32, Tensor()}) {
      auto r = op->Apply(t, rng);
      ASSERT_FALSE(r.ok()) << name << " " << t.DebugString();
      EXPECT_NE(r.status().message().find(name), std::string::npos) << r.status().message();
    }
  }
  EXPECT_FALSE(Op({{"op", "RandomHorizontalFlip"}})->Apply(bytes, rng).ok());
  EXPECT_FALSE(Op({{"op", "DecodeRandomResizedCrop"}, {"size", 8}})->Apply(i32, rng).ok());
}

}  // namespace
}  // namespace mindrecord
