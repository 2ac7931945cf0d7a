// The raw part RowCodec writes must be exactly what nlohmann's to_msgpack
// writes for the map of the raw fields (MindSpore's writer uses it), at every
// boundary of the msgpack encodings.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "mindrecord/row_codec.h"

namespace mindrecord {
namespace {

std::string Nlohmann(const nlohmann::json& j) {
  std::vector<uint8_t> v = nlohmann::json::to_msgpack(j);
  return std::string(v.begin(), v.end());
}

TEST(RowCodecTest, RawPartIsNlohmannMsgpackAtEveryBoundary) {
  auto schema = Schema::FromUserJsonString(
      R"({"zz":{"type":"int64"},"a":{"type":"int32"},"f32":{"type":"float32"},"f64":{"type":"float64"},)"
      R"("Name":{"type":"string"},"blob":{"type":"bytes"}})",
      "d");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  RowCodec codec(&*schema, "3.0");
  const int64_t ints[] = {0, 1, 127, 128, 255, 256, 65535, 65536, 4294967295LL, 4294967296LL,
                          std::numeric_limits<int64_t>::max(), -1, -32, -33, -128, -129, -32768, -32769,
                          std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::min() - 1LL,
                          std::numeric_limits<int64_t>::min()};
  const double floats[] = {0.0, -0.0, 1.5, 0.1, 1e30, 1e300, -1e300, 3.4028234663852886e38, 1e-45,
                           std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                           std::nan("")};
  const size_t lens[] = {0, 1, 31, 32, 255, 256, 65535, 65536};
  size_t cases = 0;
  for (size_t k = 0; k < std::size(ints); ++k) {
    for (size_t m = 0; m < std::size(floats); ++m) {
      const int64_t i = ints[k];
      const double d = floats[m];
      const std::string s(lens[(k + m) % std::size(lens)], 'x');
      Row row{{"zz", Value::Int(i)}, {"a", Value::Int(ints[(k + 3) % std::size(ints)])},
              {"f32", Value::Float(d)}, {"f64", Value::Float(d)}, {"Name", Value::String(s)},
              {"blob", Value::Bytes("b")}};
      auto enc = codec.Encode(row);
      ASSERT_TRUE(enc.ok()) << enc.status().ToString();
      nlohmann::json j = nlohmann::json::object();
      j["zz"] = i;
      j["a"] = ints[(k + 3) % std::size(ints)];
      j["f32"] = static_cast<double>(static_cast<float>(d));
      j["f64"] = d;
      j["Name"] = s;
      ASSERT_EQ(enc->raw, Nlohmann(j)) << "int " << i << " float " << d << " string of " << s.size();
      ++cases;
    }
  }
  EXPECT_EQ(cases, std::size(ints) * std::size(floats));
}

TEST(RowCodecTest, RawPartOfBlobOnlySchemaAndManyFields) {
  auto blob_only = Schema::FromUserJsonString(R"({"img":{"type":"bytes"}})", "d");
  ASSERT_TRUE(blob_only.ok());
  RowCodec c1(&*blob_only, "3.0");
  auto e1 = c1.Encode(Row{{"img", Value::Bytes("abc")}});
  ASSERT_TRUE(e1.ok());
  EXPECT_EQ(e1->raw, Nlohmann({{"id", 0}}));

  // 17 raw fields: a map16 header rather than a fixmap.
  std::string js = "{";
  Row row;
  nlohmann::json j = nlohmann::json::object();
  for (int f = 0; f < 17; ++f) {
    const std::string name = "f" + std::to_string(f);
    js += (f ? "," : "") + ("\"" + name + "\":{\"type\":\"int64\"}");
    row.Set(name, Value::Int(f * 1000 - 3000));
    j[name] = f * 1000 - 3000;
  }
  js += "}";
  auto many = Schema::FromUserJsonString(js, "d");
  ASSERT_TRUE(many.ok()) << many.status().ToString();
  RowCodec c2(&*many, "3.0");
  auto e2 = c2.Encode(row);
  ASSERT_TRUE(e2.ok());
  EXPECT_EQ(e2->raw, Nlohmann(j));
}

}  // namespace
}  // namespace mindrecord
