// Looking at a dataset from the command line (issue 21 items 6 and 7):
// `convert --json`, `export` (rows as files, a contact sheet) and
// `inspect --histogram`.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "pipeline/ops/op.h"
#include "pipeline/tensor.h"
#include "tests/util/test_util.h"
#include "writers/convert/image_codec.h"

namespace mindrecord {
namespace {

using nlohmann::json;
using testing::Cli;
using testing::ReadFile;
using testing::RunCommand;
using testing::TempDir;
using testing::WriteFile;

// A w x h image whose colour depends on `seed`, as JPEG or PNG.
std::string Image(int w, int h, int seed, convert::EncodeMode mode) {
  std::vector<uint8_t> px(static_cast<size_t>(w) * h * 3);
  for (size_t i = 0; i < px.size(); ++i) px[i] = static_cast<uint8_t>((i % 3) * 60 + seed * 23);
  auto bytes = convert::EncodePixels(px.data(), h, w, 3, mode);
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : std::string();
}

// src/cat: 4 JPEGs, src/dog: 3 PNGs, and a README beside the classes.
std::string Source(const TempDir& dir) {
  const std::string src = dir.Join("src");
  std::filesystem::create_directories(src + "/cat");
  std::filesystem::create_directories(src + "/dog");
  for (int i = 0; i < 4; ++i) WriteFile(src + "/cat/c" + std::to_string(i) + ".jpg", Image(40, 30, i, convert::EncodeMode::kJpeg));
  for (int i = 0; i < 3; ++i) WriteFile(src + "/dog/d" + std::to_string(i) + ".png", Image(20, 36, 9 + i, convert::EncodeMode::kPng));
  WriteFile(src + "/README.txt", "not an image");
  return src;
}

json Json(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << text;
  return j;
}

TEST(LookAtDataTest, ConvertJsonSummary) {
  TempDir dir;
  const std::string src = Source(dir);
  WriteFile(src + "/dog/broken.png", Image(8, 8, 1, convert::EncodeMode::kPng).substr(0, 30));
  std::string out;
  ASSERT_EQ(Cli("convert imagefolder " + src + " " + dir.Join("d.mindrecord") + " --on-error skip --json", &out,
                /*merge_stderr=*/false),
            0)
      << out;
  const json j = Json(out);  // stdout is the JSON object alone
  EXPECT_EQ(j["source"], "imagefolder");
  EXPECT_EQ(j["rows"], 7);
  EXPECT_EQ(j["shards"], 1);
  EXPECT_GT(j["bytes"].get<uint64_t>(), 0u);
  EXPECT_GE(j["seconds"].get<double>(), 0.0);
  EXPECT_EQ(j["classes"], json({{"cat", 0}, {"dog", 1}}));
  ASSERT_EQ(j["outputs"].size(), 1u);
  EXPECT_EQ(j["outputs"][0]["files"], json::array({dir.Join("d.mindrecord")}));
  EXPECT_EQ(j["outputs"][0]["rows"], 7);
  ASSERT_EQ(j["skipped"].size(), 1u);
  EXPECT_EQ(j["skipped"][0]["input"], src + "/dog/broken.png");
  EXPECT_FALSE(j["skipped"][0]["reason"].get<std::string>().empty());
  EXPECT_EQ(j["skipped_file"], dir.Join("d.mindrecord.skipped.txt"));
  EXPECT_NE(j["notes"].dump().find("README.txt"), std::string::npos) << j["notes"];
}

TEST(LookAtDataTest, ExportWritesImagesAndJsonInsideItsFolder) {
  TempDir dir;
  const std::string src = Source(dir), data = dir.Join("d.mindrecord");
  std::string out;
  ASSERT_EQ(Cli("convert imagefolder " + src + " " + data + " --quiet", &out), 0) << out;
  ASSERT_EQ(Cli("export " + data + " " + dir.Join("x/y") + " --rows 2:6", &out), 0) << out;
  EXPECT_NE(out.find("exported rows 2 to 6"), std::string::npos) << out;
  // Rows 2-3 are cats (JPEG), 4-5 dogs (PNG): the bytes as stored.
  EXPECT_EQ(ReadFile(dir.Join("x/y/2.image.jpg")), ReadFile(src + "/cat/c2.jpg"));
  EXPECT_EQ(ReadFile(dir.Join("x/y/5.image.png")), ReadFile(src + "/dog/d1.png"));
  const json row = Json(ReadFile(dir.Join("x/y/4.json")));
  EXPECT_EQ(row["row_id"], 4);
  EXPECT_EQ(row["label"], 1);
  EXPECT_EQ(row["file_name"], "dog/d0.png");
  EXPECT_EQ(row["image"], "4.image.png");
  EXPECT_FALSE(std::filesystem::exists(dir.Join("x/y/1.json")));
  EXPECT_FALSE(std::filesystem::exists(dir.Join("x/y/6.json")));

  // Existing files are kept unless --overwrite; a link in a file's place is
  // never followed; the folder itself must not be a link.
  EXPECT_EQ(Cli("export " + data + " " + dir.Join("x/y") + " --rows 2", &out), 2);
  EXPECT_NE(out.find("2.image.jpg: exists (--overwrite replaces files)"), std::string::npos) << out;
  EXPECT_EQ(Cli("export " + data + " " + dir.Join("x/y") + " --rows 2 --overwrite", &out), 0) << out;
  WriteFile(dir.Join("outside.txt"), "keep me");
  ASSERT_EQ(symlink(dir.Join("outside.txt").c_str(), dir.Join("x/y/0.json").c_str()), 0);
  EXPECT_EQ(Cli("export " + data + " " + dir.Join("x/y") + " --rows 0 --overwrite --columns label", &out), 1);
  EXPECT_NE(out.find("0.json: is a symbolic link; export writes only inside"), std::string::npos) << out;
  EXPECT_EQ(ReadFile(dir.Join("outside.txt")), "keep me");
  ASSERT_EQ(symlink(dir.Join("x").c_str(), dir.Join("link").c_str()), 0);
  EXPECT_EQ(Cli("export " + data + " " + dir.Join("link") + " --rows 0", &out), 1);
  EXPECT_NE(out.find("must be a folder, not a link"), std::string::npos) << out;
  EXPECT_EQ(Cli("export " + data + " " + dir.Join("z") + " --rows 7", &out), 1);
  EXPECT_NE(out.find("no such row (the dataset has 7 rows"), std::string::npos) << out;

  // Raw pixels (convert --encode raw) come out as PNG; non-image bytes as .bin.
  ASSERT_EQ(Cli("convert imagefolder " + src + " " + dir.Join("raw.mindrecord") + " --encode raw --quiet", &out), 0);
  ASSERT_EQ(Cli("export " + dir.Join("raw.mindrecord") + " " + dir.Join("r") + " --rows 0:1", &out), 0) << out;
  const std::string png = ReadFile(dir.Join("r/0.image.png"));
  ASSERT_EQ(png.substr(1, 3), "PNG");
  auto decode = MakeOp({{"op", "Decode"}});
  std::mt19937_64 rng(0);
  auto img = (*decode)->Apply(Tensor::FromString(TensorType::kBytes, png), rng);
  ASSERT_TRUE(img.ok()) << img.status().ToString();
  EXPECT_EQ(img->shape(), (std::vector<int64_t>{30, 40, 3}));
}

TEST(LookAtDataTest, ContactSheetShowsSamplesPerClass) {
  TempDir dir;
  const std::string src = Source(dir), data = dir.Join("d.mindrecord");
  std::string out;
  ASSERT_EQ(Cli("convert imagefolder " + src + " " + data + " --quiet", &out), 0) << out;
  ASSERT_EQ(Cli("export " + data + " " + dir.Join("s") + " --contact-sheet 3", &out), 0) << out;
  EXPECT_NE(out.find("contact_sheet.png: 6 images of column image, 2 classes of label"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(dir.Join("s/0.json")));  // only the sheet
  auto decode = MakeOp({{"op", "Decode"}});
  std::mt19937_64 rng(0);
  auto sheet = (*decode)->Apply(Tensor::FromString(TensorType::kBytes, ReadFile(dir.Join("s/contact_sheet.png"))), rng);
  ASSERT_TRUE(sheet.ok()) << sheet.status().ToString();
  // Two class rows of three 128-pixel cells with an 18-pixel caption.
  ASSERT_EQ(sheet->shape(), (std::vector<int64_t>{2 * 146, 3 * 128, 3}));
  // Each cell's centre holds its image, not the background.
  auto pixel = [&](int y, int x) { return sheet->data()[(static_cast<size_t>(y) * 384 + x) * 3]; };
  for (int row = 0; row < 2; ++row) {
    for (int col = 0; col < 3; ++col) EXPECT_NE(pixel(row * 146 + 64, col * 128 + 64), 40) << row << "," << col;
  }
  // Without a label column: the first N rows.
  ASSERT_EQ(Cli("export " + data + " " + dir.Join("t") + " --contact-sheet 5 --label-column -", &out), 0) << out;
  EXPECT_NE(out.find("5 images of column image\n"), std::string::npos) << out;
  // At most 1,024 thumbnails: 64 per class shows 16 classes.
  for (int c = 0; c < 20; ++c) {
    const std::string folder = dir.Join("many/k" + std::to_string(100 + c));
    std::filesystem::create_directories(folder);
    WriteFile(folder + "/a.png", Image(4, 4, c, convert::EncodeMode::kPng));
  }
  ASSERT_EQ(Cli("convert imagefolder " + dir.Join("many") + " " + dir.Join("many.mindrecord") + " --quiet", &out), 0);
  ASSERT_EQ(Cli("export " + dir.Join("many.mindrecord") + " " + dir.Join("m") + " --contact-sheet 64", &out), 0);
  EXPECT_NE(out.find("16 images of column image, 16 classes of label (the first 16 of 20)"), std::string::npos) << out;
  EXPECT_EQ(Cli("export " + data + " " + dir.Join("u") + " --contact-sheet 65", &out), 1);
  EXPECT_EQ(Cli("export " + data + " " + dir.Join("u") + " --contact-sheet 3 --label-column file_nam", &out), 1);
  EXPECT_EQ(Cli("export " + data + " " + dir.Join("u") + " --contact-sheet 3 --image-column label", &out), 1);
  EXPECT_NE(out.find("--image-column 'label' is not a bytes column"), std::string::npos) << out;
}

TEST(LookAtDataTest, InspectHistogramFromTheIndexOrTheRows) {
  TempDir dir;
  const std::string src = Source(dir), data = dir.Join("d.mindrecord");
  std::string out;
  ASSERT_EQ(Cli("convert imagefolder " + src + " " + data + " --quiet --shards 2", &out), 0) << out;
  ASSERT_EQ(Cli("inspect " + data + "0 --histogram label", &out), 0) << out;
  EXPECT_NE(out.find("histogram of label (2 values, counted from the index):"), std::string::npos) << out;
  EXPECT_NE(out.find("0 (cat)          4   57.1%  ########################################"), std::string::npos) << out;
  EXPECT_NE(out.find("1 (dog)          3   42.9%  ##############################"), std::string::npos) << out;
  ASSERT_EQ(Cli("inspect " + data + "0 --histogram label --json", &out, false), 0);
  json h = Json(out)["histogram"];
  EXPECT_EQ(h["source"], "index");
  EXPECT_EQ(h["counts"], json::parse(R"([{"value":0,"rows":4,"class":"cat"},{"value":1,"rows":3,"class":"dog"}])"));
  // An index value of another type than the field's is a data error, not a
  // count under a coerced value.
  ASSERT_EQ(RunCommand("sqlite3 " + data + "0.db \"UPDATE INDEXES SET label_0 = 'x' WHERE ROW_ID = 0;\"", &out), 0)
      << out;
  EXPECT_EQ(Cli("inspect " + data + "0 --histogram label", &out), 2) << out;
  EXPECT_NE(out.find("index field 'label': 1 rows hold text, not a int"), std::string::npos) << out;
  // Without the .db files: the same counts from the label column.
  std::filesystem::remove(data + "0.db");
  ASSERT_EQ(Cli("inspect " + data + "0 --histogram label --json", &out, false), 0);
  h = Json(out)["histogram"];
  EXPECT_EQ(h["source"], "rows");
  EXPECT_EQ(h["counts"], json::parse(R"([{"value":0,"rows":4,"class":"cat"},{"value":1,"rows":3,"class":"dog"}])"));
  ASSERT_EQ(Cli("inspect " + data + "0 --histogram file_name --json", &out, false), 0);
  EXPECT_EQ(Json(out)["histogram"]["counts"].size(), 7u);
  EXPECT_EQ(Cli("inspect " + data + "0 --histogram image", &out), 1);
  EXPECT_NE(out.find("column 'image' is not a scalar number or string"), std::string::npos) << out;
  EXPECT_EQ(Cli("inspect " + data + "0 --histogram nothing", &out), 1);
}

}  // namespace
}  // namespace mindrecord
