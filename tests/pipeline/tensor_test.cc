#include "pipeline/tensor.h"

#include <gtest/gtest.h>

namespace mindrecord {
namespace {

TEST(TensorTest, TypeNamesRoundTrip) {
  for (int i = 0; i <= 8; ++i) {
    auto t = static_cast<TensorType>(i);
    auto parsed = ParseTensorType(TensorTypeName(t));
    ASSERT_TRUE(parsed.ok()) << TensorTypeName(t);
    EXPECT_EQ(*parsed, t);
  }
  EXPECT_EQ(TensorTypeSize(TensorType::kFloat64), 8u);
  EXPECT_EQ(TensorTypeSize(TensorType::kInt16), 2u);
  EXPECT_FALSE(ParseTensorType("complex64").ok());
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

}  // namespace
}  // namespace mindrecord
