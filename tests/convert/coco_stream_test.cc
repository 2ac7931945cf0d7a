// The COCO annotation file is read as a stream: the plan keeps each
// annotation's place in the file, not the parsed document, and reads it again
// for its image's row. These tests hold that to what parsing the whole
// document gives: any layout, keys given twice, values split across the
// reader's 1 MiB pieces, and a memory bound.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fixtures/convert_fixtures.h"
#include "tests/convert/convert_test_util.h"
#include "tests/util/test_util.h"
#include "writers/convert/convert_context.h"
#include "writers/convert/image_codec.h"
#include "writers/convert/sources.h"

namespace mindrecord::convert {
namespace {

using namespace testing;  // NOLINT
using nlohmann::json;

// A tiny JPEG at `dir`/i.jpg for each i in [0, n).
void WriteImages(const std::string& dir, int n) {
  uint8_t px[8 * 8 * 3] = {};
  const std::string jpeg = *EncodePixels(px, 8, 8, 3, EncodeMode::kJpeg);
  for (int i = 0; i < n; ++i) fixtures::WriteFile(dir + "/" + std::to_string(i) + ".jpg", jpeg);
}

// Every row of the dataset at `path`, as `mindrecord cat` prints it.
std::string Cat(const std::string& path) {
  std::string out;
  EXPECT_EQ(RunCli("cat " + path, &out), 0) << out;
  return out;
}

// `text` converted for `task`, next to what the same document gives written
// out by nlohmann from its parsed form (keys sorted, each once: the later of
// two), and both read back with `mindrecord cat`.
std::pair<std::string, std::string> ConvertBoth(const TempDir& dir, const std::string& text, const std::string& task) {
  fixtures::WriteFile(dir / "given.json", text);
  fixtures::WriteFile(dir / "parsed.json", json::parse(text).dump(1));
  std::string cat[2];
  for (int k = 0; k < 2; ++k) {
    ConvertOptions o = SmallOptions();
    o.task = task;
    o.annotations = dir / (k ? "parsed.json" : "given.json");
    o.on_error = OnError::kSkip;
    o.overwrite = true;
    auto r = Convert("coco", dir / "images", dir / "out.mindrecord", o);
    EXPECT_TRUE(r.ok()) << task << ": " << r.status().ToString();
    if (r.ok()) cat[k] = Cat(dir / "out.mindrecord");
  }
  return {cat[0], cat[1]};
}

TEST(CocoStreamTest, AnyLayoutReadsAsTheParsedDocument) {
  if (!CliBuilt()) GTEST_SKIP() << "CLI not built";
  TempDir dir;
  WriteImages(dir / "images", 3);
  // Annotations before images; "images" given twice (the later counts) and
  // as a key of nested objects (not the list); an image's "id" given twice;
  // an annotation's "image_id" and "keypoints" given twice; brackets and
  // quotes inside strings; numbers against brackets; nested values the
  // converter does not read; an annotation and an image that are not objects.
  const std::string text = R"({"annotations":[
    {"image_id":7,"bbox":[1,2,3,4],"category_id":1,"area":5,"segmentation":[[1,2,3,4,5,6]],"image_id":1,
     "keypoints":[9],"keypoints":[1,2,2,3,4,2],"num_keypoints":2,"caption":"a }{ ] [ \" caption"},
    {"extra":{"images":[{"id":0,"file_name":"0.jpg"}],"deep":[[[{"}":"{"}]]],"n":[1e5,-0.5,true,null]},
     "category_id":2,"bbox":[0,0,1.5,1],"image_id":2,"segmentation":{"size":[2,2],"counts":[1,3]},
     "keypoints":[5,6,1,7,8,2],"caption":"\u00e9\ud83d\ude00"},
    [1,2],
    {"image_id":1,"bbox":[4,3,2,1],"category_id":2,"iscrowd":1,"segmentation":{"counts":"04","size":[2,2]},
     "keypoints":[0,0,0,1,1,1],"caption":"second"},
    {"image_id":3.0,"bbox":[0,0,0,0],"category_id":1,"keypoints":[1,1,1,1,1,1],"caption":"x"}],
  "images":[{"id":99,"file_name":"0.jpg"}],
  "info":{"images":[{"id":5,"file_name":"2.jpg"}],"annotations":7},
  "categories":[{"id":1,"name":"one"},{"id":2,"name":"t}w\"o"}],
  "images":[{"id":5,"file_name":"2.jpg","id":1},"not an image",{"file_name":"1.jpg","id":2},
            {"id":3,"file_name":"0.jpg","license":{"id":4}}]}
)";
  for (const char* task : {"detection", "keypoint", "captioning"}) {
    auto [given, parsed] = ConvertBoth(dir, text, task);
    EXPECT_FALSE(given.empty()) << task;
    EXPECT_EQ(given, parsed) << task;
  }
  // The later "image_id" put the first annotation on image 1, with the second
  // annotation that names it; image 3's names it with 3.0, not an id (ids are
  // integers), and is skipped.
  ConvertOptions o = SmallOptions();
  o.annotations = dir / "given.json";
  o.on_error = OnError::kSkip;
  o.overwrite = true;
  auto r = Convert("coco", dir / "images", dir / "out.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto rows = ReadAll(dir / "out.mindrecord");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].Get("image_id").as_int(), 1);
  EXPECT_EQ(rows[0].Get("file_name").bytes(), "2.jpg");
  EXPECT_EQ(rows[0].Get("bbox").ArrayAs<float>(), (std::vector<float>{1, 2, 3, 4, 4, 3, 2, 1}));
  EXPECT_EQ(rows[1].Get("bbox").ArrayAs<float>(), (std::vector<float>{0, 0, 1.5, 1}));
  EXPECT_EQ(rows[2].Get("image_id").as_int(), 3);
  EXPECT_EQ(rows[2].Get("category_id").ArrayAs<int32_t>(), (std::vector<int32_t>{}));
}

// One annotation placed at every offset across the end of the reader's first
// 1 MiB piece (a long "info" string before it moves it), each read back whole.
TEST(CocoStreamTest, AnnotationsAcrossPieceBoundaries) {
  TempDir dir;
  WriteImages(dir / "images", 1);
  const std::string ann = R"({"bbox":[1,2,3,4.25],"image_id":0,"category_id":7,"segmentation":[[1.5,2]]})";
  const std::string head = R"({"images":[{"id":0,"file_name":"0.jpg"}],"info":")";
  const std::string mid = R"(","annotations":[{"image_id":0,"bbox":[0,0,0,0],"category_id":7},)";
  const size_t piece = size_t{1} << 20;
  for (size_t before = 0; before <= ann.size() + 1; ++before) {
    // The annotation starts `before` bytes ahead of the piece's end.
    const size_t pad = piece - before - head.size() - mid.size();
    fixtures::WriteFile(dir / "a.json", head + std::string(pad, 'p') + mid + ann + "]}");
    ConvertOptions o = SmallOptions(1);
    o.annotations = dir / "a.json";
    o.overwrite = true;
    auto r = Convert("coco", dir / "images", dir / "out.mindrecord", o);
    ASSERT_TRUE(r.ok()) << before << ": " << r.status().ToString();
    auto rows = ReadAll(dir / "out.mindrecord");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].Get("bbox").ArrayAs<float>(), (std::vector<float>{0, 0, 0, 0, 1, 2, 3, 4.25})) << before;
    EXPECT_EQ(rows[0].Get("seg_polygons").ArrayAs<float>(), (std::vector<float>{1.5, 2})) << before;
  }
}

// The annotations are read again when their rows are built: a file changed
// in between is an error naming it, never another annotation's values.
TEST(CocoStreamTest, AFileChangedAfterPlanningIsAnError) {
  TempDir dir;
  WriteImages(dir / "images", 1);
  const std::string ann = R"({"image_id":0,"bbox":[1,2,3,4],"category_id":1})";
  const std::string text = R"({"images":[{"id":0,"file_name":"0.jpg"}],"annotations":[)" + ann + "]}";
  fixtures::WriteFile(dir / "a.json", text);
  ConvertOptions o = SmallOptions(1);
  o.annotations = dir / "a.json";
  ConvertContext ctx(o);
  auto plans = PlanCoco(dir / "images", ctx);
  ASSERT_TRUE(plans.ok()) << plans.status().ToString();
  ASSERT_EQ(plans->size(), 1u);
  ASSERT_TRUE((*plans)[0].make_row(0).ok());
  std::string moved = text;
  moved.insert(moved.find(ann), " ");
  moved.pop_back();  // the same size
  fixtures::WriteFile(dir / "a.json", moved);
  auto row = (*plans)[0].make_row(0);
  ASSERT_FALSE(row.ok());
  EXPECT_EQ(row.status().code(), StatusCode::kCorruption);
  EXPECT_NE(row.status().message().find(dir / "a.json"), std::string::npos) << row.status().ToString();
  EXPECT_NE(row.status().message().find("changed"), std::string::npos) << row.status().ToString();
}

// An annotation file that is missing or no regular file is named once.
TEST(CocoStreamTest, AMissingOrSpecialAnnotationFileIsNamedOnce) {
  TempDir dir;
  WriteImages(dir / "images", 1);
  fs::create_directories(dir / "folder.json");
  for (const std::string name : {"missing.json", "folder.json"}) {
    ConvertOptions o = SmallOptions();
    o.annotations = dir / name;
    auto r = Convert("coco", dir / "images", dir / "out.mindrecord", o);
    ASSERT_FALSE(r.ok()) << name;
    const std::string& m = r.status().message();
    EXPECT_EQ(m.rfind(dir / name + ": ", 0), 0u) << m;
    EXPECT_EQ(m.find(name, m.find(name) + name.size()), std::string::npos) << m;
  }
}

// Planning the conversion of a 40 MB annotation file holds its annotations'
// places, not the document, which took ~6 times the file. The images are
// absent, so the conversion stops at the first row, after the plan.
TEST(CocoStreamTest, PlanningHoldsFarLessThanTheParsedDocument) {
  if (!CliBuilt()) GTEST_SKIP() << "CLI not built";
  TempDir dir;
  constexpr int kImages = 200, kAnnotations = 60000;
  std::string text = R"({"images":[)";
  for (int i = 0; i < kImages; ++i)
    text += (i ? "," : "") + json{{"id", i}, {"file_name", std::to_string(i) + ".jpg"}}.dump();
  text += R"(],"annotations":[)";
  for (int a = 0; a < kAnnotations; ++a) {
    text += a ? ",{" : "{";
    text += R"("image_id":)" + std::to_string(a % kImages) + R"(,"category_id":1,"bbox":[1,2,3,4],"segmentation":[[)";
    for (int k = 0; k < 80; ++k) text += (k ? "," : "") + std::to_string(100 + (a + k) % 500) + ".125";
    text += "]]}";
  }
  text += "]}";
  ASSERT_GT(text.size(), 40u << 20);
  fixtures::WriteFile(dir / "a.json", text);
  text = {};
  fs::create_directories(dir / "images");
  std::string out;
  ASSERT_EQ(mindrecord::testing::RunCommand("/usr/bin/time -f 'maxrss=%M' '" + std::string(MINDRECORD_CLI_PATH) +
                                                "' convert coco " + (dir / "images") + " " + (dir / "out.mindrecord") +
                                                " --annotations " + (dir / "a.json"),
                                            &out, /*merge_stderr=*/true),
            2)
      << out;
  EXPECT_NE(out.find("0.jpg: no such file"), std::string::npos) << out;
  const size_t at = out.find("maxrss=");
  ASSERT_NE(at, std::string::npos) << out;
  const long kb = std::stol(out.substr(at + 7));
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)  // the sanitizers' shadow memory adds to the RSS
  // ~60 MB: the CLI's libraries and a first page; the parsed document took 270 MB.
  EXPECT_LT(kb, 110 * 1024) << out;
#endif
}

}  // namespace
}  // namespace mindrecord::convert
