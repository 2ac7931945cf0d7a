// Every source converted from generated, format-exact files (fixtures/),
// read back and compared value by value with what the generator wrote.
#include <set>

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>

#include "fixtures/convert_fixtures.h"
#include "tests/convert/convert_test_util.h"

namespace mindrecord::convert {
namespace {

using namespace testing;  // NOLINT

std::string ChwToHwc(const std::string& chw) {
  std::string hwc(3072, '\0');
  for (size_t p = 0; p < 1024; ++p)
    for (size_t c = 0; c < 3; ++c) hwc[3 * p + c] = chw[c * 1024 + p];
  return hwc;
}

class MnistSyntheticTest : public ::testing::TestWithParam<bool> {};

TEST_P(MnistSyntheticTest, RawAndPngAreExact) {
  const bool gzip = GetParam();
  TempDir dir;
  auto train = fixtures::WriteMnist(dir / "src", "train", 300, gzip, 1);
  auto test = fixtures::WriteMnist(dir / "src", "t10k", 50, gzip, 2);
  for (EncodeMode mode : {EncodeMode::kRaw, EncodeMode::kPng}) {
    ConvertOptions o = SmallOptions();
    o.encode = mode;
    o.overwrite = true;
    auto r = Convert("mnist", dir / "src", dir / "out.mindrecord", o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->rows, 350u);
    for (auto [split, data] : {std::pair{"train", &train}, std::pair{"test", &test}}) {
      auto rows = ReadAll(dir / (std::string("out_") + split + ".mindrecord"));
      ASSERT_EQ(rows.size(), data->images.size());
      for (size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(rows[i].Get("label").as_int(), data->labels[i]);
        std::string px = rows[i].Get("data").bytes();
        if (mode == EncodeMode::kPng) {
          cv::Mat img = cv::imdecode(cv::Mat(1, static_cast<int>(px.size()), CV_8UC1, px.data()), cv::IMREAD_UNCHANGED);
          ASSERT_EQ(img.total(), 784u);
          px.assign(reinterpret_cast<const char*>(img.data), 784);
        }
        ASSERT_EQ(px, data->images[i]) << split << " row " << i;
      }
    }
  }
}
INSTANTIATE_TEST_SUITE_P(GzipOrPlain, MnistSyntheticTest, ::testing::Bool());

struct CifarCase {
  bool cifar100;
  int style;  // 0 binary, 1 pickle py2, 2 pickle py3
};
class CifarSyntheticTest : public ::testing::TestWithParam<CifarCase> {};

TEST_P(CifarSyntheticTest, RawPixelsAndLabelsAreExact) {
  const auto [c100, style] = GetParam();
  TempDir dir;
  auto data = style == 0 ? fixtures::WriteCifarBinary(dir / "src", c100, 3, 40, 25, 5)
                         : fixtures::WriteCifarPickle(dir / "src", c100, 3, 40, 25, 5, style == 1);
  ConvertOptions o = SmallOptions();
  o.encode = EncodeMode::kRaw;
  auto r = Convert(c100 ? "cifar100" : "cifar10", dir / "src", dir / "cifar", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (auto [split, d] : {std::pair{"train", &data.first}, std::pair{"test", &data.second}}) {
    auto rows = ReadAll(dir / (std::string("cifar_") + split + ".mindrecord"));
    ASSERT_EQ(rows.size(), d->images.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i].Get("id").as_int(), static_cast<int64_t>(i));
      EXPECT_EQ(rows[i].Get(c100 ? "fine_label" : "label").as_int(), d->fine[i]);
      if (c100) EXPECT_EQ(rows[i].Get("coarse_label").as_int(), d->coarse[i]);
      ASSERT_EQ(rows[i].Get("data").bytes(), ChwToHwc(d->images[i])) << split << " row " << i;
    }
  }
}
INSTANTIATE_TEST_SUITE_P(AllLayouts, CifarSyntheticTest,
                         ::testing::Values(CifarCase{false, 0}, CifarCase{true, 0}, CifarCase{false, 1},
                                           CifarCase{true, 1}, CifarCase{false, 2}, CifarCase{true, 2}));

TEST(CifarSyntheticTest, DefaultIsJpegOfTheRgbImage) {
  TempDir dir;
  auto data = fixtures::WriteCifarBinary(dir / "src", false, 1, 4, 2, 9);
  auto r = Convert("cifar10", dir / "src", dir / "c", SmallOptions());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto rows = ReadAll(dir / "c_train.mindrecord");
  ASSERT_EQ(rows.size(), 4u);
  const std::string& jpg = rows[0].Get("data").bytes();
  ASSERT_EQ(jpg.substr(0, 3), "\xFF\xD8\xFF");
  cv::Mat bgr = cv::imdecode(cv::Mat(1, static_cast<int>(jpg.size()), CV_8UC1, const_cast<char*>(jpg.data())),
                             cv::IMREAD_COLOR);
  ASSERT_EQ(bgr.rows, 32);
  // Random pixels lose a lot to JPEG; the channel order must still be right:
  // the mean of each decoded channel tracks the source plane's mean.
  for (int c = 0; c < 3; ++c) {
    double src = 0, dec = 0;
    for (int p = 0; p < 1024; ++p) {
      src += static_cast<uint8_t>(data.first.images[0][c * 1024 + p]);
      dec += bgr.data[3 * p + (2 - c)];
    }
    EXPECT_NEAR(src / 1024, dec / 1024, 8.0) << "channel " << c;
  }
}

TEST(ImageFolderSyntheticTest, BytesLabelsNamesAndClassMap) {
  TempDir dir;
  auto files = fixtures::WriteImageFolder(dir / "src", 3, 7, 24, 16, 3);
  auto r = Convert("imagefolder", dir / "src", dir / "if.mindrecord", SmallOptions());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto rows = ReadAll(dir / "if.mindrecord");
  ASSERT_EQ(rows.size(), files.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].Get("file_name").bytes(), files[i].rel_path);
    EXPECT_EQ(rows[i].Get("label").as_int(), files[i].label);
    EXPECT_EQ(rows[i].Get("image").bytes(), files[i].bytes);
  }
  EXPECT_EQ(ReadSchema(dir / "if.mindrecord").desc(),
            R"({"class_to_label":{"class_00":0,"class_01":1,"class_02":2}})");
  ASSERT_FALSE(r->notes.empty());
  EXPECT_NE(r->notes[0].find("class_02"), std::string::npos);
}

TEST(ImageFolderSyntheticTest, ReencodeToPng) {
  TempDir dir;
  auto files = fixtures::WriteImageFolder(dir / "src", 1, 2, 20, 10, 3);
  ConvertOptions o = SmallOptions();
  o.encode = EncodeMode::kPng;
  auto r = Convert("imagefolder", dir / "src", dir / "if.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto rows = ReadAll(dir / "if.mindrecord");
  ASSERT_EQ(rows.size(), 2u);
  const std::string& png = rows[0].Get("image").bytes();
  EXPECT_EQ(png.substr(1, 3), "PNG");
  cv::Mat a = cv::imdecode(cv::Mat(1, static_cast<int>(png.size()), CV_8UC1, const_cast<char*>(png.data())), cv::IMREAD_COLOR);
  cv::Mat b = cv::imdecode(cv::Mat(1, static_cast<int>(files[0].bytes.size()), CV_8UC1, files[0].bytes.data()), cv::IMREAD_COLOR);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(cv::norm(a, b, cv::NORM_INF), 0.0);  // PNG keeps the decoded pixels exactly
}

TEST(VocSyntheticTest, DetectionValuesAreExact) {
  TempDir dir;
  auto images = fixtures::WriteVoc(dir / "voc", 12, 4);
  auto r = Convert("voc", dir / "voc", dir / "voc.mindrecord", SmallOptions());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto rows = ReadAll(dir / "voc.mindrecord");
  ASSERT_EQ(rows.size(), images.size());
  const std::vector<std::string> classes = {"aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car",
                                            "cat", "chair", "cow", "diningtable", "dog", "horse", "motorbike",
                                            "person", "pottedplant", "sheep", "sofa", "train", "tvmonitor"};
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& im = images[i];
    EXPECT_EQ(rows[i].Get("file_name").bytes(), im.id + ".jpg");
    EXPECT_EQ(rows[i].Get("image").bytes(), im.jpeg);
    EXPECT_EQ(rows[i].Get("width").as_int(), im.width);
    std::vector<float> bbox;
    std::vector<int32_t> label, diff, trunc;
    for (const auto& o : im.objects) {
      bbox.insert(bbox.end(), {o.xmin, o.ymin, o.xmax, o.ymax});
      label.push_back(static_cast<int32_t>(std::find(classes.begin(), classes.end(), o.name) - classes.begin()));
      diff.push_back(o.difficult);
      trunc.push_back(o.truncated);
    }
    EXPECT_EQ(rows[i].Get("bbox").ArrayAs<float>(), bbox);
    EXPECT_EQ(rows[i].Get("bbox").shape(), (std::vector<int64_t>{static_cast<int64_t>(im.objects.size()), 4}));
    EXPECT_EQ(rows[i].Get("label").ArrayAs<int32_t>(), label);
    EXPECT_EQ(rows[i].Get("difficult").ArrayAs<int32_t>(), diff);
    EXPECT_EQ(rows[i].Get("truncated").ArrayAs<int32_t>(), trunc);
  }
  ConvertOptions o = SmallOptions();
  o.task = "segmentation";
  r = Convert("voc", dir / "voc", dir / "seg.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  rows = ReadAll(dir / "seg.mindrecord");
  ASSERT_EQ(rows.size(), images.size());
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].Get("mask").bytes(), images[i].mask_png);
}

TEST(CocoSyntheticTest, DetectionValuesAreExactIncludingImagesWithoutAnnotations) {
  TempDir dir;
  auto data = fixtures::WriteCoco(dir / "coco", 15, 6);
  ConvertOptions o = SmallOptions();
  o.annotations = dir / "coco/annotations.json";
  auto r = Convert("coco", dir / "coco/images", dir / "coco.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto rows = ReadAll(dir / "coco.mindrecord");
  ASSERT_EQ(rows.size(), data.images.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].Get("image_id").as_int(), data.images[i].first);
    EXPECT_EQ(rows[i].Get("file_name").bytes(), data.images[i].second);
    EXPECT_EQ(rows[i].Get("image").bytes(), data.jpegs[i]);
    std::vector<float> bbox, area;
    std::vector<int32_t> cat, crowd;
    for (const auto& a : data.anns) {
      if (a.image_id != data.images[i].first) continue;
      bbox.insert(bbox.end(), a.bbox, a.bbox + 4);
      area.push_back(a.area);
      cat.push_back(a.category_id);
      crowd.push_back(a.iscrowd);
    }
    EXPECT_EQ(rows[i].Get("bbox").ArrayAs<float>(), bbox);
    EXPECT_EQ(rows[i].Get("area").ArrayAs<float>(), area);
    EXPECT_EQ(rows[i].Get("category_id").ArrayAs<int32_t>(), cat);
    EXPECT_EQ(rows[i].Get("iscrowd").ArrayAs<int32_t>(), crowd);
  }
}

TEST(TfRecordSyntheticTest, InferredAndGivenSpecs) {
  TempDir dir;
  auto examples = fixtures::WriteTfRecord(dir / "x.tfrecord", 120, 8);
  auto r = Convert("tfrecord", dir / "x.tfrecord", dir / "tf.mindrecord", SmallOptions());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  Schema schema = ReadSchema(dir / "tf.mindrecord");
  ASSERT_NE(schema.Find("bbox"), nullptr);
  EXPECT_TRUE(schema.Find("bbox")->has_shape);
  EXPECT_EQ(schema.Find("bbox")->type, DataType::kFloat32);
  auto rows = ReadAll(dir / "tf.mindrecord");
  ASSERT_EQ(rows.size(), examples.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].Get("image_encoded").bytes(), examples[i].encoded);
    EXPECT_EQ(rows[i].Get("image_class_label").as_int(), examples[i].label);
    EXPECT_EQ(rows[i].Get("bbox").ArrayAs<float>(), examples[i].box);
  }
  ConvertOptions o = SmallOptions();
  o.fields = "image/class/label:int32,bbox:float64:[-1]";
  r = Convert("tfrecord", dir / "x.tfrecord", dir / "tf2.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  rows = ReadAll(dir / "tf2.mindrecord");
  ASSERT_EQ(rows.size(), examples.size());
  EXPECT_EQ(rows[5].size(), 2u);
  EXPECT_EQ(rows[5].Get("image_class_label").as_int(), examples[5].label);
  EXPECT_EQ(rows[5].Get("bbox").ArrayAs<double>(),
            std::vector<double>(examples[5].box.begin(), examples[5].box.end()));
}

TEST(CsvSyntheticTest, QuotedFieldsAndInferredTypes) {
  TempDir dir;
  auto cells = fixtures::WriteCsv(dir / "x.csv", 200, 10);
  auto r = Convert("csv", dir / "x.csv", dir / "csv.mindrecord", SmallOptions());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  Schema schema = ReadSchema(dir / "csv.mindrecord");
  EXPECT_EQ(schema.Find("id")->type, DataType::kInt64);
  EXPECT_EQ(schema.Find("score")->type, DataType::kFloat64);
  EXPECT_EQ(schema.Find("name")->type, DataType::kString);
  auto rows = ReadAll(dir / "csv.mindrecord");
  ASSERT_EQ(rows.size(), cells.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].Get("id").as_int(), std::stoll(cells[i][0]));
    EXPECT_DOUBLE_EQ(rows[i].Get("score").as_float(), std::stod(cells[i][1]));
    EXPECT_EQ(rows[i].Get("name").bytes(), cells[i][2]);
  }
  ConvertOptions o = SmallOptions();
  o.fields = "name:string,id:int32";
  r = Convert("csv", dir / "x.csv", dir / "csv2.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(ReadSchema(dir / "csv2.mindrecord").fields().size(), 2u);
}

// Byte-identical output for any worker count (single shard).
TEST(ConvertDeterminismTest, SameBytesForOneTwoAndEightWorkers) {
  TempDir dir;
  fixtures::WriteImageFolder(dir / "if", 4, 30, 16, 16, 11);
  fixtures::WriteCifarBinary(dir / "cifar", false, 1, 300, 10, 12);
  for (std::string source : {"imagefolder", "cifar10"}) {
    std::vector<std::string> shard, db;
    for (uint32_t workers : {1u, 2u, 8u}) {
      ConvertOptions o = SmallOptions(workers);
      o.batch_rows = 37;
      // Same file name in different folders: shard names are stored in the files.
      fs::create_directories(dir / ("w" + std::to_string(workers)));
      std::string out = dir / ("w" + std::to_string(workers) + "/" + source);
      auto r = Convert(source, dir / (source == "cifar10" ? "cifar" : "if"), out + ".mindrecord", o);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      std::string file = source == "cifar10" ? out + "_train.mindrecord" : out + ".mindrecord";
      shard.push_back(Slurp(file));
      db.push_back(Slurp(file + ".db"));
    }
    ASSERT_FALSE(shard[0].empty());
    EXPECT_TRUE(shard[0] == shard[1] && shard[1] == shard[2]) << source;
    EXPECT_TRUE(db[0] == db[1] && db[1] == db[2]) << source;
  }
}

// Cheap rows (CSV records), far more than the workers' window of rows, some
// failing as they are converted: the same bytes and the same skipped inputs,
// in input order, for any worker count.
TEST(ConvertDeterminismTest, ManyCheapRowsAndTheirSkipsDoNotDependOnWorkers) {
  TempDir dir;
  std::string csv = "name,id\n";
  size_t bad = 0;
  for (int i = 0; i < 5000; ++i) {
    const bool fails = i % 401 == 7;  // an id that is no integer: found while converting
    bad += fails;
    csv += "n" + std::to_string(i) + "," + (fails ? "x" : "") + std::to_string(i) + "\n";
  }
  std::ofstream(dir / "rows.csv") << csv;
  std::vector<std::string> shard, db;
  std::vector<std::vector<std::string>> skipped;
  for (uint32_t workers : {1u, 2u, 8u}) {
    ConvertOptions o = SmallOptions(workers);
    o.fields = "name:string,id:int64";
    o.on_error = OnError::kSkip;
    fs::create_directories(dir / ("w" + std::to_string(workers)));
    const std::string out = dir / ("w" + std::to_string(workers) + "/rows.mindrecord");
    auto r = Convert("csv", dir / "rows.csv", out, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->skipped_count, bad) << workers;
    skipped.push_back(r->skipped_inputs);
    shard.push_back(Slurp(out));
    db.push_back(Slurp(out + ".db"));
    const auto rows = ReadAll(out);
    ASSERT_EQ(rows.size(), 5000 - bad) << workers;
    for (size_t k = 1; k < rows.size(); ++k) ASSERT_LT(rows[k - 1].Get("id").as_int(), rows[k].Get("id").as_int());
  }
  ASSERT_EQ(skipped[0].size(), bad);
  EXPECT_EQ(skipped[0].front(), dir / "rows.csv" + " line 9");
  EXPECT_TRUE(skipped[0] == skipped[1] && skipped[1] == skipped[2]);
  EXPECT_TRUE(shard[0] == shard[1] && shard[1] == shard[2]);
  EXPECT_TRUE(db[0] == db[1] && db[1] == db[2]);
}

TEST(ConvertShardsTest, ThreeShardsHoldEveryRow) {
  TempDir dir;
  auto files = fixtures::WriteImageFolder(dir / "if", 2, 10, 8, 8, 13);
  ConvertOptions o = SmallOptions();
  o.shards = 3;
  auto r = Convert("imagefolder", dir / "if", dir / "s.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->outputs[0].files.size(), 3u);
  auto rows = ReadAll(r->outputs[0].files[1]);
  ASSERT_EQ(rows.size(), files.size());
  std::multiset<std::string> got, want;
  for (const auto& row : rows) got.insert(row.Get("file_name").bytes());
  for (const auto& f : files) want.insert(f.rel_path);
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace mindrecord::convert
