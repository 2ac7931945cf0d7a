// COCO segmentation: polygons and RLE (plain and compressed) stored as flat
// arrays, panoptic PNGs stored as bytes; bad segmentations and missing PNGs
// fail naming the file, or are skipped.
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fixtures/convert_fixtures.h"
#include "tests/convert/convert_test_util.h"
#include "writers/convert/coco_segmentation.h"

namespace mindrecord::convert {
namespace {

using namespace testing;  // NOLINT

// What a reader does with the stored columns: one image's segmentations,
// annotation by annotation (polygons, or RLE counts with [h, w]).
struct ReadBack {
  std::vector<std::vector<std::vector<float>>> polygons;  // per annotation
  std::vector<std::vector<int64_t>> rle;                  // per annotation
  std::vector<std::pair<int32_t, int32_t>> size;          // per annotation
};
ReadBack Unflatten(const Row& row) {
  ReadBack out;
  auto coords = row.Get("seg_polygons").ArrayAs<float>();
  auto lengths = row.Get("seg_polygon_lengths").ArrayAs<int32_t>();
  auto counts = row.Get("seg_polygon_counts").ArrayAs<int32_t>();
  auto runs = row.Get("seg_rle_counts").ArrayAs<int64_t>();
  auto rle_lengths = row.Get("seg_rle_lengths").ArrayAs<int32_t>();
  auto size = row.Get("seg_rle_size").ArrayAs<int32_t>();
  EXPECT_EQ(counts.size(), rle_lengths.size());
  EXPECT_EQ(size.size(), 2 * counts.size());
  size_t poly = 0, coord = 0, run = 0;
  for (size_t a = 0; a < counts.size(); ++a) {
    out.polygons.emplace_back();
    for (int32_t p = 0; p < counts[a]; ++p, ++poly) {
      EXPECT_LE(coord + lengths.at(poly), coords.size());
      out.polygons.back().emplace_back(coords.begin() + coord, coords.begin() + coord + lengths[poly]);
      coord += lengths[poly];
    }
    out.rle.emplace_back(runs.begin() + run, runs.begin() + run + rle_lengths[a]);
    run += rle_lengths[a];
    out.size.emplace_back(size[2 * a], size[2 * a + 1]);
  }
  EXPECT_EQ(poly, lengths.size());
  EXPECT_EQ(coord, coords.size());
  EXPECT_EQ(run, runs.size());
  return out;
}

TEST(CocoRleStringTest, DecodesPycocotoolsStrings) {
  // Worked by hand from pycocotools' rleToString: 5 -> '5'; 40 -> 8|0x20, 1 ->
  // "X1"; from the fourth value on, deltas to the value two back (10-2 = 8,
  // 2-5 = -3 -> 29 with the sign bit -> 'M').
  EXPECT_EQ(*DecodeCocoRleString("5"), (std::vector<int64_t>{5}));
  EXPECT_EQ(*DecodeCocoRleString("X1"), (std::vector<int64_t>{40}));
  EXPECT_EQ(*DecodeCocoRleString("1238"), (std::vector<int64_t>{1, 2, 3, 10}));
  EXPECT_EQ(*DecodeCocoRleString("153M"), (std::vector<int64_t>{1, 5, 3, 2}));
  EXPECT_EQ(*DecodeCocoRleString(""), std::vector<int64_t>{});
  std::mt19937 rng(3);
  for (int t = 0; t < 200; ++t) {
    std::vector<int64_t> runs;
    for (int k = 0, n = static_cast<int>(rng() % 40); k < n; ++k) runs.push_back(rng() % (t % 2 ? 100000 : 30));
    EXPECT_EQ(*DecodeCocoRleString(fixtures::CocoRleString(runs)), runs);
  }
  EXPECT_FALSE(DecodeCocoRleString("X").ok());      // ends inside a value
  EXPECT_FALSE(DecodeCocoRleString("5 6").ok());    // a byte outside '0'..'o'
  EXPECT_FALSE(DecodeCocoRleString("M").ok());      // a negative run
  EXPECT_FALSE(DecodeCocoRleString("15M").ok());    // 1, 5, then 1 + (-3) < 0
  EXPECT_FALSE(DecodeCocoRleString(std::string(13, 'o') + "0").ok());  // longer than 64 bits
}

TEST(CocoSegmentationTest, PolygonsAndRleReadBackExactly) {
  TempDir dir;
  auto data = fixtures::WriteCoco(dir / "coco", 40, 9);
  ConvertOptions o = SmallOptions();
  o.annotations = dir / "coco/annotations.json";
  auto r = Convert("coco", dir / "coco/images", dir / "coco.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto rows = ReadAll(dir / "coco.mindrecord");
  ASSERT_EQ(rows.size(), data.images.size());
  size_t polygons = 0, plain = 0, compressed = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    ReadBack got = Unflatten(rows[i]);
    size_t a = 0;
    for (const auto& ann : data.anns) {
      if (ann.image_id != data.images[i].first) continue;
      ASSERT_LT(a, got.polygons.size()) << "image " << i;
      EXPECT_EQ(got.polygons[a], ann.polygons) << "image " << i << " annotation " << a;
      EXPECT_EQ(got.rle[a], ann.rle_counts) << "image " << i << " annotation " << a;
      EXPECT_EQ(got.size[a], std::make_pair(ann.rle_h, ann.rle_w));
      polygons += !ann.polygons.empty();
      plain += !ann.rle_counts.empty() && !ann.rle_compressed;
      compressed += ann.rle_compressed;
      ++a;
    }
    EXPECT_EQ(a, got.polygons.size()) << "image " << i;
  }
  // The fixture exercised all three kinds.
  EXPECT_GT(polygons, 3u);
  EXPECT_GT(plain, 3u);
  EXPECT_GT(compressed, 3u);
  Schema schema = ReadSchema(dir / "coco.mindrecord");
  ASSERT_NE(schema.Find("seg_rle_size"), nullptr);
  EXPECT_EQ(schema.Find("seg_rle_size")->shape, (std::vector<int64_t>{-1, 2}));
}

TEST(CocoSegmentationTest, CompatPolygonsMatchTheJson) {
  MR_REQUIRE_COMPAT(compat);
  TempDir out;
  for (auto [task, file] : {std::pair{"detection", "train"}, std::pair{"keypoint", "key_point"}}) {
    ConvertOptions o = SmallOptions();
    o.task = task;
    o.annotations = compat + "/sources/coco/annotations/" + file + ".json";
    auto r = Convert("coco", compat + "/sources/coco/train", out / (std::string(task) + ".mindrecord"), o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto rows = ReadAll(out / (std::string(task) + ".mindrecord"));
    nlohmann::json doc = nlohmann::json::parse(Slurp(o.annotations));
    ASSERT_EQ(rows.size(), doc["images"].size());
    size_t seen = 0, rle = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      ReadBack got = Unflatten(rows[i]);
      size_t a = 0;
      for (const auto& ann : doc["annotations"]) {
        if (ann["image_id"] != doc["images"][i]["id"]) continue;
        ASSERT_LT(a, got.polygons.size());
        const auto& seg = ann["segmentation"];
        if (seg.is_object()) {  // train.json's iscrowd annotation: counts written as floats
          std::vector<int64_t> runs;
          for (const auto& c : seg["counts"]) runs.push_back(static_cast<int64_t>(c.get<double>()));
          EXPECT_EQ(got.rle[a], runs);
          EXPECT_EQ(got.size[a], std::make_pair(seg["size"][0].get<int32_t>(), seg["size"][1].get<int32_t>()));
          EXPECT_TRUE(got.polygons[a].empty());
          ++rle;
        } else {
          std::vector<std::vector<float>> want;
          for (const auto& poly : seg) want.push_back(poly.get<std::vector<float>>());
          EXPECT_EQ(got.polygons[a], want) << task << " image " << i;
          EXPECT_TRUE(got.rle[a].empty());
        }
        ++a;
        ++seen;
      }
    }
    EXPECT_EQ(seen, doc["annotations"].size()) << task;
    EXPECT_EQ(rle, std::string(task) == "detection" ? 1u : 0u);
  }
}

// Writes a one-image COCO file whose only annotation has `segmentation`.
std::string WriteOneAnnotation(const TempDir& dir, const std::string& segmentation) {
  fixtures::WriteFile(dir / "img/a.jpg", fixtures::MakeJpeg(16, 16, 1));
  const std::string path = dir / "bad_seg.json";
  fixtures::WriteFile(path, R"({"images": [{"id": 1, "file_name": "a.jpg"}], "annotations": [{"id": 77, "image_id": 1,
      "bbox": [1, 1, 4, 4], "category_id": 1, "iscrowd": 1, "area": 16, "segmentation": )" + segmentation + "}]}");
  return path;
}

TEST(CocoSegmentationTest, MalformedSegmentationNamesTheFileAndAnnotation) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"([[1, 2, "x"]])", "non-number"},
      {R"([1, 2, 3, 4, 5, 6])", "polygon 0 is not a list"},
      {R"("everything")", "must be a list of polygons or an RLE object"},
      {R"({"counts": [2, 2.5], "size": [2, 2]})", "counts hold 2.5, not a run length"},
      {R"({"counts": [4], "size": [2, 2, 1]})", "'size'"},
      {R"({"counts": [4]})", "'size'"},
      {R"({"counts": [-1, 5], "size": [2, 2]})", "not a run length"},
      {R"({"counts": "5 ", "size": [1, 5]})", "compressed RLE string"},
      {R"({"size": [2, 2]})", "'counts'"},
  };
  for (const auto& [seg, why] : cases) {
    TempDir dir;
    ConvertOptions o = SmallOptions();
    o.annotations = WriteOneAnnotation(dir, seg);
    auto r = Convert("coco", dir / "img", dir / "out.mindrecord", o);
    ASSERT_FALSE(r.ok()) << seg;
    const std::string msg = r.status().ToString();
    EXPECT_NE(msg.find("bad_seg.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find("annotation id 77"), std::string::npos) << msg;
    EXPECT_NE(msg.find(why), std::string::npos) << msg;
    EXPECT_FALSE(fs::exists(dir / "out.mindrecord"));
    o.on_error = OnError::kSkip;
    r = Convert("coco", dir / "img", dir / "out.mindrecord", o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->skipped.size(), 1u);
    EXPECT_NE(r->skipped[0].find(why), std::string::npos) << r->skipped[0];
    EXPECT_EQ(ReadAll(dir / "out.mindrecord").size(), 0u);
  }
  // A well-formed RLE of the same file converts; runs that do not add up to
  // height x width are stored as given (MindSpore's train.json has such).
  TempDir dir;
  ConvertOptions o = SmallOptions();
  o.annotations = WriteOneAnnotation(dir, R"({"counts": "1238", "size": [4, 4]})");
  auto r = Convert("coco", dir / "img", dir / "out.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto rows = ReadAll(dir / "out.mindrecord");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].Get("seg_rle_counts").ArrayAs<int64_t>(), (std::vector<int64_t>{1, 2, 3, 10}));
  EXPECT_EQ(rows[0].Get("seg_rle_size").ArrayAs<int32_t>(), (std::vector<int32_t>{4, 4}));
}

// Integer fields that would be cut or wrapped into another value (a huge or
// fractional category_id, an iscrowd beyond 32 bits) are corruption naming
// the file, the annotation and the field; an integral 3.0 is the integer 3.
TEST(CocoAnnotationTest, IntegerFieldsOutOfRangeNameTheField) {
  auto write = [](const TempDir& dir, const std::string& fields) {
    fixtures::WriteFile(dir / "img/a.jpg", fixtures::MakeJpeg(16, 16, 1));
    const std::string path = dir / "bad_ann.json";
    fixtures::WriteFile(path, R"({"images": [{"id": 1, "file_name": "a.jpg"}], "annotations": [{"id": 77,
        "image_id": 1, "bbox": [1, 1, 4, 4], "area": 16, "segmentation": [[1, 1, 4, 1, 4, 4]], )" + fields + "}]}");
    return path;
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("category_id": 8.9e57, "iscrowd": 0)", "'category_id' is 8.9e+57, not an integer"},
      {R"("category_id": 2.5, "iscrowd": 0)", "'category_id' is 2.5, not an integer"},
      {R"("category_id": 4294967297, "iscrowd": 0)", "'category_id' is 4294967297, not an integer in [-2147483648"},
      {R"("category_id": 18446744073709551615, "iscrowd": 0)", "'category_id' is 18446744073709551615"},
      {R"("category_id": 1, "iscrowd": 1e30)", "'iscrowd' is 1e+30, not an integer"},
      {R"("iscrowd": 0)", "missing or non-numeric 'category_id'"},
  };
  for (const auto& [fields, why] : cases) {
    TempDir dir;
    ConvertOptions o = SmallOptions();
    o.annotations = write(dir, fields);
    auto r = Convert("coco", dir / "img", dir / "out.mindrecord", o);
    ASSERT_FALSE(r.ok()) << fields;
    const std::string msg = r.status().ToString();
    EXPECT_NE(msg.find("bad_ann.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find("annotation id 77"), std::string::npos) << msg;
    EXPECT_NE(msg.find(why), std::string::npos) << msg;
    EXPECT_FALSE(fs::exists(dir / "out.mindrecord"));
  }
  TempDir dir;
  ConvertOptions o = SmallOptions();
  o.annotations = write(dir, R"("category_id": 3.0, "iscrowd": 1)");
  auto r = Convert("coco", dir / "img", dir / "out.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto rows = ReadAll(dir / "out.mindrecord");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].Get("category_id").ArrayAs<int32_t>(), (std::vector<int32_t>{3}));
  EXPECT_EQ(rows[0].Get("iscrowd").ArrayAs<int32_t>(), (std::vector<int32_t>{1}));
  // A category's name of another type than a string is only shown in the
  // convert's notes (it threw out of the planner before).
  TempDir dir2;
  fixtures::WriteFile(dir2 / "img/a.jpg", fixtures::MakeJpeg(16, 16, 1));
  fixtures::WriteFile(dir2 / "ann.json", R"({"images": [{"id": 1, "file_name": "a.jpg"}], "annotations": [],
      "categories": [{"id": 1, "name": 5}, {"id": 2, "name": ["x"]}, {"id": 3}]})");
  o.annotations = dir2 / "ann.json";
  r = Convert("coco", dir2 / "img", dir2 / "out.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(ReadAll(dir2 / "out.mindrecord").size(), 1u);
}

TEST(CocoPanopticTest, PngBytesAreStored) {
  TempDir dir;
  auto data = fixtures::WriteCocoPanoptic(dir / "coco", 12, 5);
  ConvertOptions o = SmallOptions();
  o.task = "panoptic";
  o.annotations = dir / "coco/annotations/panoptic.json";  // PNGs found in annotations/panoptic/
  auto r = Convert("coco", dir / "coco/images", dir / "pan.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto rows = ReadAll(dir / "pan.mindrecord");
  ASSERT_EQ(rows.size(), data.images.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].Get("mask").bytes(), data.panoptic_pngs[i]) << "image " << i;
    EXPECT_EQ(rows[i].Get("segmentation_file").bytes(),
              data.panoptic_pngs[i].empty() ? "" : std::to_string(data.images[i].first) + ".png");
    std::vector<int32_t> cats;
    for (const auto& a : data.anns)
      if (a.image_id == data.images[i].first) cats.push_back(a.category_id);
    EXPECT_EQ(rows[i].Get("category_id").ArrayAs<int32_t>(), cats);
  }
  // --panoptic-dir elsewhere.
  fs::rename(dir / "coco/annotations/panoptic", dir / "pngs");
  auto missing = Convert("coco", dir / "coco/images", dir / "pan2.mindrecord", o);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("annotations/panoptic"), std::string::npos) << missing.status().ToString();
  EXPECT_NE(missing.status().message().find("--panoptic-dir"), std::string::npos) << missing.status().ToString();
  o.panoptic_dir = dir / "pngs";
  r = Convert("coco", dir / "coco/images", dir / "pan2.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(ReadAll(dir / "pan2.mindrecord")[0].Get("mask").bytes(), data.panoptic_pngs[0]);
}

TEST(CocoPanopticTest, MissingOrBadPngFailsOrIsSkipped) {
  TempDir dir;
  auto data = fixtures::WriteCocoPanoptic(dir / "coco", 6, 7);
  const std::string gone = dir / ("coco/annotations/panoptic/" + std::to_string(data.images[1].first) + ".png");
  fs::remove(gone);
  fixtures::WriteFile(dir / ("coco/annotations/panoptic/" + std::to_string(data.images[2].first) + ".png"), "not a png");
  ConvertOptions o = SmallOptions();
  o.task = "panoptic";
  o.annotations = dir / "coco/annotations/panoptic.json";
  auto r = Convert("coco", dir / "coco/images", dir / "pan.mindrecord", o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(gone), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("no such file"), std::string::npos) << r.status().ToString();
  EXPECT_FALSE(fs::exists(dir / "pan.mindrecord"));
  o.on_error = OnError::kSkip;
  r = Convert("coco", dir / "coco/images", dir / "pan.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->skipped.size(), 2u);
  EXPECT_NE(r->skipped[0].find(gone), std::string::npos) << r->skipped[0];
  EXPECT_NE(r->skipped[1].find(std::to_string(data.images[2].first) + ".png"), std::string::npos) << r->skipped[1];
  auto rows = ReadAll(dir / "pan.mindrecord");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1].Get("image_id").as_int(), data.images[3].first);
  EXPECT_EQ(rows[1].Get("mask").bytes(), "");  // image 3 has no panoptic annotation
  EXPECT_EQ(rows[2].Get("mask").bytes(), data.panoptic_pngs[4]);
}

// compat's panoptic.json ships without PNGs; one of its file names has no
// extension ("000000391895"), the other has ".png".
TEST(CocoPanopticTest, CompatPanopticWithGeneratedPngs) {
  MR_REQUIRE_COMPAT(compat);
  TempDir dir;
  ConvertOptions o = SmallOptions();
  o.task = "panoptic";
  o.annotations = compat + "/sources/coco/annotations/panoptic.json";
  auto r = Convert("coco", compat + "/sources/coco/train", dir / "pan.mindrecord", o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("annotations/panoptic: no folder of panoptic PNGs"), std::string::npos)
      << r.status().ToString();
  const std::string a = fixtures::MakePng(8, 8, 1, 255), b = fixtures::MakePng(8, 8, 2, 255);
  fixtures::WriteFile(dir / "png/000000391895.png", a);
  fixtures::WriteFile(dir / "png/000000574769.png", b);
  o.panoptic_dir = dir / "png";
  r = Convert("coco", compat + "/sources/coco/train", dir / "pan.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto rows = ReadAll(dir / "pan.mindrecord");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].Get("mask").bytes(), a);
  EXPECT_EQ(rows[1].Get("mask").bytes(), b);
  EXPECT_EQ(rows[0].Get("segment_id").ArrayAs<int64_t>(), (std::vector<int64_t>{10461346, 5263261, 770861}));
}

TEST(CocoCliTest, MissingPanopticPngAndBadSegmentationExitTwo) {
  if (!CliBuilt()) GTEST_SKIP() << "CLI not built";
  TempDir dir;
  auto data = fixtures::WriteCocoPanoptic(dir / "coco", 3, 2);
  const std::string gone = dir / ("coco/annotations/panoptic/" + std::to_string(data.images[0].first) + ".png");
  fs::remove(gone);
  std::string log;
  const std::string small = " --header-size 65536 --page-size 1048576";
  EXPECT_EQ(RunCli("convert coco '" + (dir / "coco/images") + "' '" + (dir / "p.mindrecord") + "' --task panoptic" +
                   " --annotations '" + (dir / "coco/annotations/panoptic.json") + "'" + small, &log), 2) << log;
  EXPECT_NE(log.find(gone), std::string::npos) << log;
  EXPECT_TRUE(FilesStartingWith(dir.str(), "p.").empty());
  EXPECT_EQ(RunCli("convert coco '" + (dir / "coco/images") + "' '" + (dir / "p.mindrecord") + "' --task panoptic" +
                   " --annotations '" + (dir / "coco/annotations/panoptic.json") + "' --panoptic-dir '" + (dir / "coco") +
                   "' --on-error skip" + small, &log), 0) << log;
  EXPECT_NE(log.find("3 skipped"), std::string::npos) << log;  // no PNG is directly in coco/

  const std::string ann = WriteOneAnnotation(dir, R"({"counts": [1, "2"], "size": [3, 3]})");
  EXPECT_EQ(RunCli("convert coco '" + (dir / "img") + "' '" + (dir / "d.mindrecord") + "' --annotations '" + ann + "'" +
                   small, &log), 2) << log;
  EXPECT_NE(log.find("bad_seg.json"), std::string::npos) << log;
  EXPECT_NE(log.find("counts hold \"2\", not a run length"), std::string::npos) << log;
}

}  // namespace
}  // namespace mindrecord::convert
