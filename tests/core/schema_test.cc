#include <gtest/gtest.h>

#include "mindrecord/int_packing.h"
#include "mindrecord/schema.h"

namespace mindrecord {
namespace {

TEST(SchemaTest, SortsFieldsAndFindsBlobs) {
  auto s = Schema::FromUserJsonString(
      R"({"label":{"type":"int32"},"data":{"type":"bytes"},"feat":{"type":"float32","shape":[-1,2]},"name":{"type":"string"}})",
      "d");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->fields().size(), 4u);
  EXPECT_EQ(s->fields()[0].name, "data");
  EXPECT_EQ(s->blob_field_names(), (std::vector<std::string>{"data", "feat"}));
  EXPECT_EQ(s->DefaultIndexFields(), (std::vector<std::string>{"label", "name"}));
  EXPECT_FALSE(s->has_integer_array());
  EXPECT_EQ(s->ToHeaderJson().dump(),
            R"({"blob_fields":["data","feat"],"desc":"d","schema":{"data":{"type":"bytes"},"feat":{"shape":[-1,2],"type":"float32"},"label":{"type":"int32"},"name":{"type":"string"}}})");
}

TEST(SchemaTest, RejectsBadSchemasWithClearMessages) {
  struct Case {
    const char* json;
    const char* needle;
  } cases[] = {
      {R"({"bad-name":{"type":"int32"}})", "invalid field name 'bad-name'"},
      {R"({"s":{"type":"string","shape":[2]}})", "cannot have a shape"},
      {R"({"b":{"type":"bytes","shape":[2]}})", "cannot have a shape"},
      {R"({"a":{"type":"int32","shape":[-1,-1]}})", "more than one -1"},
      {R"({"a":{"type":"int16"}})", "unknown field type 'int16'"},
      {R"({"a":{"type":"int32","shape":[0]}})", "invalid dimension 0"},
      // 2^64-1 is not -1 (a variable dimension), 2^63 not INT64_MIN, 2.0 not 2.
      {R"({"a":{"type":"int32","shape":[18446744073709551615]}})", "not 18446744073709551615"},
      {R"({"a":{"type":"int32","shape":[9223372036854775808]}})", "not 9223372036854775808"},
      {R"({"a":{"type":"int32","shape":[2.0]}})", "not 2.0"},
      {R"({"a":{"shape":[1]}})", "missing \"type\""},
      {R"({})", "no fields"},
  };
  for (const auto& c : cases) {
    auto s = Schema::FromUserJsonString(c.json);
    ASSERT_FALSE(s.ok()) << c.json;
    EXPECT_NE(s.status().message().find(c.needle), std::string::npos) << s.status().message();
  }
  auto legacy = Schema::FromUserJsonString(R"({"a":{"type":"number"}})");
  ASSERT_FALSE(legacy.ok());
  EXPECT_EQ(legacy.status().code(), StatusCode::kNotSupported);
}

TEST(SchemaTest, ValidatesRowsAndIndexFields) {
  auto s = Schema::FromUserJsonString(R"({"id":{"type":"int32"},"v":{"type":"int64","shape":[2,-1]},"b":{"type":"bytes"}})");
  ASSERT_TRUE(s.ok());
  Row good{{"id", Value::Int(1)}, {"v", Value::ArrayOf<int64_t>(DataType::kInt64, {1, 2, 3, 4}, {2, 2})},
           {"b", Value::Bytes("x")}};
  EXPECT_TRUE(s->ValidateRow(good).ok());
  Row missing = good;
  missing = Row{{"id", Value::Int(1)}, {"b", Value::Bytes("x")}};
  EXPECT_NE(s->ValidateRow(missing).message().find("field 'v' is missing"), std::string::npos);
  Row odd = good;
  odd.Set("v", Value::ArrayOf<int64_t>(DataType::kInt64, {1, 2, 3}));
  EXPECT_NE(s->ValidateRow(odd).message().find("shape"), std::string::npos);
  Row range = good;
  range.Set("id", Value::Int(int64_t{1} << 40));
  EXPECT_NE(s->ValidateRow(range).message().find("int32 range"), std::string::npos);
  Row extra = good;
  extra.Set("zzz", Value::Int(1));
  EXPECT_NE(s->ValidateRow(extra).message().find("'zzz' is not in the schema"), std::string::npos);
  EXPECT_FALSE(s->ValidateIndexFields({"b"}).ok());
  EXPECT_FALSE(s->ValidateIndexFields({"v"}).ok());
  EXPECT_FALSE(s->ValidateIndexFields({"id", "id"}).ok());
  EXPECT_TRUE(s->ValidateIndexFields({"id"}).ok());
}

TEST(IntPackingTest, MatchesTheDocumentedLayout) {
  std::vector<int32_t> ones(5, 1);
  std::string packed = PackIntegers(std::string_view(reinterpret_cast<const char*>(ones.data()), 20), 4);
  std::string hex;
  for (unsigned char c : packed) {
    char b[3];
    snprintf(b, sizeof b, "%02x", c);
    hex += b;
  }
  EXPECT_EQ(hex, "0000000500000101010101");
}

TEST(IntPackingTest, RoundTripsEveryWidth) {
  std::vector<int64_t> v = {0, -1, 127, -128, 128, -129, 32767, -32768, 40000, -40000, int64_t{1} << 40,
                            -(int64_t{1} << 40), INT64_MAX, INT64_MIN};
  std::string raw(reinterpret_cast<const char*>(v.data()), v.size() * 8);
  auto back = UnpackIntegers(PackIntegers(raw, 8), 8);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, raw);
  // Truncation anywhere is an error, never a crash.
  std::string packed = PackIntegers(raw, 8);
  for (size_t n = 0; n < packed.size(); ++n) EXPECT_FALSE(UnpackIntegers(packed.substr(0, n), 8).ok()) << n;
  // A 64-bit element cannot unpack into int32.
  EXPECT_FALSE(UnpackIntegers(packed, 4).ok());
}

}  // namespace
}  // namespace mindrecord
