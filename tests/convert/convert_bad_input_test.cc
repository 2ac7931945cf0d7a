// Bad inputs: with --on-error fail the convert stops with an error naming the
// input and the reason and leaves no output; with skip it goes on and lists
// the skipped inputs with their reasons.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <zlib.h>

#include "fixtures/convert_fixtures.h"
#include "tests/convert/convert_test_util.h"
#include "writers/convert/convert_context.h"
#include "writers/convert/convert_engine.h"
#include "writers/convert/image_codec.h"
#include "tests/util/test_util.h"

namespace mindrecord::convert {
namespace {

using namespace testing;  // NOLINT

// Converts expecting failure; checks the message and that `out_dir` is empty.
void ExpectFails(const std::string& source, const std::string& input, const std::string& out_dir, ConvertOptions o,
                 const std::vector<std::string>& message_parts) {
  o.on_error = OnError::kFail;
  auto r = Convert(source, input, out_dir + "/out.mindrecord", o);
  ASSERT_FALSE(r.ok()) << source << " " << input;
  for (const auto& part : message_parts)
    EXPECT_NE(r.status().message().find(part), std::string::npos) << "'" << part << "' not in: " << r.status().ToString();
  EXPECT_TRUE(fs::is_empty(out_dir)) << "a failed convert left files in " << out_dir;
}

// A raw-format source builds rows through the converters every epoch: with
// LimitNotes its box warnings are counted, not kept, so they cannot pile up.
TEST(ConvertBadInputTest, NotesPastTheLimitAreCountedNotKept) {
  ConvertContext ctx{ConvertOptions{}};
  ctx.Note("a");
  ctx.LimitNotes(2);
  for (int i = 0; i < 5; ++i) ctx.Note("warning " + std::to_string(i));
  ASSERT_EQ(ctx.notes().size(), 2u);
  EXPECT_EQ(ctx.notes()[1], "warning 0");
  EXPECT_EQ(ctx.dropped_notes(), 4u);
}

TEST(ConvertBadInputTest, VocCompatBadLists) {
  MR_REQUIRE_COMPAT(compat);
  const std::string src = compat + "/sources/voc2012";
  struct Case {
    std::string list;
    std::vector<std::string> parts;
  };
  for (const Case& c : std::vector<Case>{{"invalidxml", {"Annotations/invalidxml.xml", "invalid XML"}},
                                         {"xmlinvalidbbox", {"Annotations/invalidbbox.xml", "bbox"}},
                                         {"xmlnoobject", {"Annotations/xmlnoobject.xml", "no <object>"}},
                                         {"xmlnotexist", {"Annotations/4176.xml", "no such file"}}}) {
    TempDir out;
    ConvertOptions o = SmallOptions();
    o.split = c.list;
    ExpectFails("voc", src, out.str(), o, c.parts);
  }
}

TEST(ConvertBadInputTest, VocSkipListsEveryBadInput) {
  MR_REQUIRE_COMPAT(compat);
  TempDir dir;
  const std::string src = compat + "/sources/voc2012";
  for (const char* sub : {"Annotations", "JPEGImages"}) fs::create_directory_symlink(src + "/" + sub, dir / sub);
  fixtures::WriteFile(dir / "ImageSets/Main/mixed.txt", "32\ninvalidxml\ninvalidbbox\nxmlnoobject\n4176\n33\n");
  ConvertOptions o = SmallOptions();
  o.split = "mixed";
  o.on_error = OnError::kSkip;
  auto r = Convert("voc", dir.str(), dir / "out.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->skipped.size(), 4u);
  EXPECT_NE(r->skipped[0].find("invalidxml.xml: invalid XML"), std::string::npos) << r->skipped[0];
  EXPECT_NE(r->skipped[3].find("4176.xml"), std::string::npos) << r->skipped[3];
  EXPECT_EQ(r->skipped_file, dir / "out.mindrecord.skipped.txt");
  const std::string listed = Slurp(r->skipped_file);
  EXPECT_EQ(std::count(listed.begin(), listed.end(), '\n'), 4);
  auto rows = ReadAll(dir / "out.mindrecord");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].Get("file_name").bytes(), "32.jpg");
  EXPECT_EQ(rows[1].Get("file_name").bytes(), "33.jpg");
}

TEST(ConvertBadInputTest, CocoCompatBadAnnotations) {
  MR_REQUIRE_COMPAT(compat);
  const std::string src = compat + "/sources/coco";
  ConvertOptions o = SmallOptions();
  {
    TempDir out;
    o.annotations = src + "/annotations/invalid.json";
    ExpectFails("coco", src + "/train", out.str(), o, {"invalid.json", "invalid JSON"});
  }
  {
    TempDir out;
    o.annotations = src + "/annotations/lack_of_images.json";
    ExpectFails("coco", src + "/train", out.str(), o, {"lack_of_images.json", "'images'"});
  }
  {
    TempDir out;
    o.annotations = src + "/annotations/invalid_category_id.json";
    ExpectFails("coco", src + "/train", out.str(), o, {"000000391895.jpg", "unknown category_id 7"});
    o.on_error = OnError::kSkip;
    auto r = Convert("coco", src + "/train", out / "out.mindrecord", o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->skipped.size(), 2u);  // images holding category 7 and 8
    EXPECT_EQ(ReadAll(out / "out.mindrecord").size(), 4u);
  }
  {
    TempDir out;
    ConvertOptions bad = SmallOptions();
    bad.annotations = src + "/annotations/train.json";
    bad.task = "segmentation";
    auto r = Convert("coco", src + "/train", out / "o", bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  }
}

TEST(ConvertBadInputTest, CocoIdsBeyondInt64AreBadInput) {
  // Image id 2^64-1 read as int64 is -1: it took the annotations of image_id -1 and was written as -1.
  MR_REQUIRE_COMPAT(compat);
  const std::string src = compat + "/sources/coco";
  TempDir out;
  std::string doc = Slurp(src + "/annotations/train.json");
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"\"id\": 391895", "\"id\": 18446744073709551615"},
                                 {"\"image_id\": 391895", "\"image_id\": -1"}}) {
    ASSERT_NE(doc.find(from), std::string::npos) << from;
    for (size_t at; (at = doc.find(from)) != std::string::npos;) doc.replace(at, from.size(), to);
  }
  fixtures::WriteFile(out / "train.json", doc);
  ConvertOptions o = SmallOptions();
  o.annotations = out / "train.json";
  TempDir none;
  ExpectFails("coco", src + "/train", none.str(), o, {"images[0]", "an image needs a 64-bit integer 'id'"});
}

TEST(ConvertBadInputTest, TruncatedMnistAndCountsThatDisagree) {
  TempDir dir;
  fixtures::WriteMnist(dir / "trunc", "train", 30, true, 1, /*drop_image_bytes=*/100);
  TempDir out;
  ExpectFails("mnist", dir / "trunc", out.str(), SmallOptions(), {"train-images-idx3-ubyte.gz", "truncated"});
  ConvertOptions skip = SmallOptions();
  skip.on_error = OnError::kSkip;
  auto r = Convert("mnist", dir / "trunc", out / "m", skip);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, 29u);
  EXPECT_EQ(r->skipped.size(), 1u);

  fixtures::WriteMnist(dir / "count", "train", 30, false, 1);
  fixtures::WriteMnist(dir / "other", "train", 25, false, 1);
  fs::copy_file(dir / "other/train-labels-idx1-ubyte", dir / "count/train-labels-idx1-ubyte",
                fs::copy_options::overwrite_existing);
  TempDir out2;
  ExpectFails("mnist", dir / "count", out2.str(), SmallOptions(), {"train-images-idx3-ubyte", "counts disagree"});
}

// A gzipped idx file is read through access points, never inflated whole
// into memory: 512 MiB of images in 500 KB of gzip took 1 GB to convert
// (here the labels list 10 of them; the others are skipped as unmatched).
TEST(ConvertBadInputTest, AGzipIdxFileIsNotInflatedIntoMemory) {
  TempDir dir;
  fs::create_directories(dir / "mnist");
  constexpr uint32_t kImages = (512u << 20) / 784;
  auto be32 = [](uint32_t v) {
    return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                       static_cast<char>(v)};
  };
  gzFile gz = gzopen((dir / "mnist/train-images-idx3-ubyte.gz").c_str(), "wb1");
  ASSERT_NE(gz, nullptr);
  const std::string header = be32(0x803) + be32(kImages) + be32(28) + be32(28);
  ASSERT_EQ(gzwrite(gz, header.data(), header.size()), static_cast<int>(header.size()));
  const std::string zeros(1 << 20, '\0');
  for (uint64_t done = 0; done < uint64_t{kImages} * 784; done += zeros.size()) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(zeros.size(), uint64_t{kImages} * 784 - done));
    ASSERT_EQ(gzwrite(gz, zeros.data(), static_cast<unsigned>(n)), static_cast<int>(n));
  }
  ASSERT_EQ(gzclose(gz), Z_OK);
  fixtures::WriteFile(dir / "mnist/train-labels-idx1-ubyte", be32(0x801) + be32(10) + std::string(10, '\3'));
  std::string out;
  ASSERT_EQ(mindrecord::testing::RunCommand("/usr/bin/time -f 'maxrss=%M' '" + std::string(MINDRECORD_CLI_PATH) +
                                                "' convert mnist " + (dir / "mnist") + " " + (dir / "m") +
                                                " --on-error skip --encode raw",
                                            &out, /*merge_stderr=*/true),
            0)
      << out;
  EXPECT_NE(Slurp(dir / "m.skipped.txt").find("counts disagree"), std::string::npos) << out;
  const size_t at = out.find("maxrss=");
  ASSERT_NE(at, std::string::npos) << out;
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)  // the sanitizers' shadow memory adds to the RSS
  EXPECT_LT(std::stol(out.substr(at + 7)), 200 * 1024) << out;
#endif
  auto rows = ReadAll(dir / "m_train.mindrecord");
  ASSERT_EQ(rows.size(), 10u);
  EXPECT_EQ(rows[9].Get("label").as_int(), 3);
}

TEST(ConvertBadInputTest, TruncatedCifarBinary) {
  TempDir dir;
  fixtures::WriteCifarBinary(dir / "c", false, 2, 10, 5, 3);
  std::string path = dir / "c/data_batch_2.bin";
  fs::resize_file(path, fs::file_size(path) - 100);
  TempDir out;
  ExpectFails("cifar10", dir / "c", out.str(), SmallOptions(), {"data_batch_2.bin record 9", "truncated"});
  ConvertOptions skip = SmallOptions();
  skip.on_error = OnError::kSkip;
  auto r = Convert("cifar10", dir / "c", out / "c", skip);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(ReadAll(out / "c_train.mindrecord").size(), 19u);
  EXPECT_EQ(ReadAll(out / "c_test.mindrecord").size(), 5u);
}

TEST(ConvertBadInputTest, UndecodableAndMissingImages) {
  TempDir dir;
  auto files = fixtures::WriteImageFolder(dir / "if", 2, 3, 16, 16, 1);
  fixtures::WriteFile(dir / "if/class_00/bad_text.jpg", "this is not an image");
  fixtures::WriteFile(dir / "if/class_01/cut.jpg", files[0].bytes.substr(0, files[0].bytes.size() / 2));
  TempDir out;
  ExpectFails("imagefolder", dir / "if", out.str(), SmallOptions(), {"class_00/bad_text.jpg", "undecodable"});
  ConvertOptions skip = SmallOptions();
  skip.on_error = OnError::kSkip;
  auto r = Convert("imagefolder", dir / "if", out / "if.mindrecord", skip);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // (the cut JPEG's failed header read must not fail the images after it)
  ASSERT_EQ(r->skipped.size(), 2u) << ::testing::PrintToString(r->skipped);
  EXPECT_NE(r->skipped[1].find("class_01/cut.jpg: "), std::string::npos) << r->skipped[1];
  EXPECT_NE(r->skipped[1].find("JPEG"), std::string::npos) << r->skipped[1];
  EXPECT_EQ(ReadAll(out / "if.mindrecord").size(), 6u);

  // An ImageNet map file naming an image that is not there.
  fixtures::WriteFile(dir / "map/annotation.txt", "a.jpg,1\nmissing.jpg,2\n");
  fixtures::WriteFile(dir / "map/images/a.jpg", files[0].bytes);
  TempDir out2;
  ExpectFails("imagenet", dir / "map", out2.str(), SmallOptions(), {"images/missing.jpg", "no such file"});

  // Names that would leave the image folder: refused, the image outside not read.
  fixtures::WriteFile(dir / "outside.jpg", files[0].bytes);
  for (const std::string& name : {std::string(dir / "outside.jpg"), std::string("../../outside.jpg"),
                                  std::string("sub/../../../outside.jpg"), std::string("..")}) {
    fixtures::WriteFile(dir / "map/annotation.txt", "a.jpg,1\n" + name + ",2\n");
    TempDir out3;
    ExpectFails("imagenet", dir / "map", out3.str(), SmallOptions(),
                {"annotation.txt line 2", "the path leaves the image folder"});
  }
  // A name with dots that is not ".." is a name.
  fixtures::WriteFile(dir / "map/images/..a.jpg", files[0].bytes);
  fixtures::WriteFile(dir / "map/annotation.txt", "a.jpg,1\n..a.jpg,2\n");
  TempDir out4;
  auto ok = Convert("imagenet", dir / "map", out4 / "ok.mindrecord", SmallOptions());
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ReadAll(out4 / "ok.mindrecord").size(), 2u);
}

// Runs `convert` while a watchdog waits: a reader still blocked in open() on
// one of `fifos` after 20 s is released (the FIFO opened for writing, then
// closed) and the test fails, instead of hanging.
template <typename Fn>
void WithoutHanging(const std::vector<std::string>& fifos, Fn convert) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false, hung = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(mu);
    if (cv.wait_for(lock, std::chrono::seconds(20), [&] { return done; })) return;
    hung = true;
    for (const auto& f : fifos) {
      const int fd = ::open(f.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);  // succeeds only with a reader waiting
      if (fd >= 0) ::close(fd);
    }
  });
  convert();
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
  }
  cv.notify_all();
  watchdog.join();
  EXPECT_FALSE(hung) << "the convert waited on a FIFO";
}

// A FIFO where a dataset has a file (an image, an ImageSets list, a map
// file) is refused as not a regular file: opening one for reading waits for
// a writer that a hostile folder never provides.
TEST(ConvertBadInputTest, FifosInTheDatasetAreRefusedNotWaitedOn) {
  MR_REQUIRE_COMPAT(compat);
  TempDir dir;
  fs::copy(compat + "/sources/voc2012", dir / "voc", fs::copy_options::recursive);
  fs::remove(dir / "voc/JPEGImages/32.jpg");
  ASSERT_EQ(::mkfifo((dir / "voc/JPEGImages/32.jpg").c_str(), 0644), 0);
  ConvertOptions o = SmallOptions();
  o.split = "train";
  WithoutHanging({dir / "voc/JPEGImages/32.jpg"}, [&] {
    TempDir out;
    ExpectFails("voc", dir / "voc", out.str(), o, {"JPEGImages/32.jpg", "not a regular file"});
  });
  fs::remove(dir / "voc/ImageSets/Main/train.txt");
  ASSERT_EQ(::mkfifo((dir / "voc/ImageSets/Main/train.txt").c_str(), 0644), 0);
  WithoutHanging({dir / "voc/ImageSets/Main/train.txt"}, [&] {
    TempDir out;
    ExpectFails("voc", dir / "voc", out.str(), o, {"ImageSets/Main/train.txt", "not a regular file"});
  });
  fs::create_directories(dir / "map/images");
  ASSERT_EQ(::mkfifo((dir / "map/annotation.txt").c_str(), 0644), 0);
  WithoutHanging({dir / "map/annotation.txt"}, [&] {
    TempDir out;
    ExpectFails("imagenet", dir / "map", out.str(), SmallOptions(), {"map/annotation.txt", "not a regular file"});
  });
}

// A file larger than a row may hold (256 MiB) is refused before it is read:
// a sparse file claims any size for no disk space, and an 8 GB one was read
// into 8.4 GB of memory before its bytes were found not to be an image.
TEST(ConvertBadInputTest, ImageFilesLargerThanARowAreRefusedUnread) {
  TempDir dir;
  fixtures::WriteImageFolder(dir / "if", 2, 2, 16, 16, 1);
  fixtures::WriteFile(dir / "if/class_01/huge.jpg", "");
  fs::resize_file(dir / "if/class_01/huge.jpg", (uint64_t{256} << 20) + 1);  // sparse
  TempDir out;
  ExpectFails("imagefolder", dir / "if", out.str(), SmallOptions(),
              {"class_01/huge.jpg", "268435457 bytes, larger than a row may hold (256 MiB)"});
  ConvertOptions skip = SmallOptions();
  skip.on_error = OnError::kSkip;
  auto r = Convert("imagefolder", dir / "if", out / "if.mindrecord", skip);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->skipped.size(), 1u) << ::testing::PrintToString(r->skipped);
  EXPECT_NE(r->skipped[0].find("class_01/huge.jpg: "), std::string::npos) << r->skipped[0];
  EXPECT_EQ(ReadAll(out / "if.mindrecord").size(), 4u);
}

// A COCO file whose one image has an annotation and `bad` more annotations
// name no image ({} each: 3 bytes).
std::string CocoWithBadAnnotations(const std::string& dir, size_t bad) {
  uint8_t px[8 * 8 * 3] = {};
  fixtures::WriteFile(dir + "/images/0.jpg", *EncodePixels(px, 8, 8, 3, EncodeMode::kJpeg));
  std::string text = R"({"images":[{"id":0,"file_name":"0.jpg"}],"annotations":[{"image_id":0,"bbox":[1,2,3,4],"category_id":1})";
  text.reserve(text.size() + 3 * bad + 2);
  for (size_t i = 0; i < bad; ++i) text += ",{}";
  text += "]}";
  fixtures::WriteFile(dir + "/a.json", text);
  return dir + "/a.json";
}

// Past the first 10,000 skipped inputs the lines go to a temporary file:
// the report keeps those 10,000, counts them all, and the list has them all
// in order.
TEST(ConvertBadInputTest, SkippedInputsPastTheKeptOnesAreCountedAndAllListed) {
  TempDir dir;
  const std::string json = CocoWithBadAnnotations(dir / "coco", 25000);
  ConvertOptions o = SmallOptions();
  o.annotations = json;
  o.on_error = OnError::kSkip;
  auto r = Convert("coco", dir / "coco/images", dir / "out.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->skipped.size(), ConvertContext::kKeptSkipped);
  EXPECT_EQ(r->skipped_inputs.size(), ConvertContext::kKeptSkipped);
  EXPECT_EQ(r->skipped_count, 25000u);
  std::istringstream list(Slurp(r->skipped_file));
  std::string line;
  size_t n = 0;
  for (; std::getline(list, line); ++n) {
    ASSERT_EQ(line, json + " annotations[" + std::to_string(n + 1) + "]: 'image_id' names no entry of 'images'") << n;
    if (n < r->skipped.size()) ASSERT_EQ(line, r->skipped[n]);
  }
  EXPECT_EQ(n, 25000u);
  EXPECT_EQ(ReadAll(dir / "out.mindrecord").size(), 1u);
}

// Two million bad annotations of 3 bytes each, skipped: the parsed document
// and a kept line per skip took 1.2 GB (5.3 GB for ten million).
TEST(ConvertBadInputTest, MillionsOfSkippedInputsCostDiskNotMemory) {
  TempDir dir;
  const std::string json = CocoWithBadAnnotations(dir / "coco", 2000000);
  std::string out;
  ASSERT_EQ(mindrecord::testing::RunCommand("/usr/bin/time -f 'maxrss=%M' '" + std::string(MINDRECORD_CLI_PATH) +
                                                "' convert coco " + (dir / "coco/images") + " " + (dir / "out.mindrecord") +
                                                " --annotations " + json + " --on-error skip --json",
                                            &out, /*merge_stderr=*/true),
            0)
      << out.substr(0, 2000);
  EXPECT_NE(out.find("\"skipped_count\": 2000000"), std::string::npos) << out.substr(0, 2000);
  const size_t at = out.find("maxrss=");
  ASSERT_NE(at, std::string::npos);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)  // the sanitizers' shadow memory adds to the RSS
  EXPECT_LT(std::stol(out.substr(at + 7)), 150 * 1024) << out.substr(at);
#endif
  std::string list;
  ASSERT_EQ(mindrecord::testing::RunCommand("wc -l < " + (dir / "out.mindrecord.skipped.txt"), &list), 0);
  EXPECT_EQ(std::stol(list), 2000000);
}

TEST(ConvertBadInputTest, TfRecordTruncationAndChecksum) {
  TempDir dir;
  fixtures::WriteTfRecord(dir / "t.tfrecord", 10, 2);
  std::string bytes = Slurp(dir / "t.tfrecord");
  fixtures::WriteFile(dir / "cut.tfrecord", bytes.substr(0, bytes.size() - 10));
  TempDir out;
  ExpectFails("tfrecord", dir / "cut.tfrecord", out.str(), SmallOptions(), {"cut.tfrecord record 9", "truncated"});
  std::string flipped = bytes;
  flipped[40] = static_cast<char>(flipped[40] ^ 1);  // inside record 0's data
  fixtures::WriteFile(dir / "flip.tfrecord", flipped);
  ConvertOptions o = SmallOptions();
  o.fields = "image/class/label:int64";
  ExpectFails("tfrecord", dir / "flip.tfrecord", out.str(), o, {"flip.tfrecord record 0", "checksum"});
  o.on_error = OnError::kSkip;
  auto r = Convert("tfrecord", dir / "flip.tfrecord", out / "t.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, 9u);
}

TEST(ConvertBadInputTest, CsvRowWithWrongColumnCount) {
  TempDir dir;
  fixtures::WriteFile(dir / "x.csv", "a,b\n1,2\n3\n4,5\n");
  TempDir out;
  ExpectFails("csv", dir / "x.csv", out.str(), SmallOptions(), {"x.csv line 3", "1 columns"});
  fixtures::WriteFile(dir / "q.csv", "a,b\n1,\"open\n");
  ExpectFails("csv", dir / "q.csv", out.str(), SmallOptions(), {"q.csv", "unterminated"});
}

TEST(ConvertBadInputTest, ExistingOutputAndBadOptions) {
  TempDir dir;
  fixtures::WriteImageFolder(dir / "if", 1, 2, 8, 8, 1);
  ASSERT_TRUE(Convert("imagefolder", dir / "if", dir / "o.mindrecord", SmallOptions()).ok());
  std::string before = Slurp(dir / "o.mindrecord");
  auto again = Convert("imagefolder", dir / "if", dir / "o.mindrecord", SmallOptions());
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists) << again.status().ToString();
  EXPECT_EQ(Slurp(dir / "o.mindrecord"), before);
  ConvertOptions o = SmallOptions();
  o.overwrite = true;
  EXPECT_TRUE(Convert("imagefolder", dir / "if", dir / "o.mindrecord", o).ok());

  EXPECT_EQ(Convert("parquet", dir / "if", dir / "x", o).status().code(), StatusCode::kInvalidArgument);
  ConvertOptions bad = SmallOptions();
  bad.shards = 0;
  EXPECT_EQ(Convert("imagefolder", dir / "if", dir / "x", bad).status().code(), StatusCode::kInvalidArgument);
  bad = SmallOptions();
  bad.encode = EncodeMode::kRaw;
  fixtures::WriteFile(dir / "t.csv", "a\n1\n");
  EXPECT_EQ(Convert("csv", dir / "t.csv", dir / "x", bad).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Convert("mnist", dir / "nowhere", dir / "x", SmallOptions()).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(ParseOnError("maybe").ok());
  EXPECT_FALSE(ParseEncodeMode("gif").ok());
  EXPECT_EQ(SplitOutputPath("/a/b.mindrecord", "train"), "/a/b_train.mindrecord");
  EXPECT_EQ(SplitOutputPath("/a/b", "test"), "/a/b_test.mindrecord");
  EXPECT_EQ(SplitOutputPath("/a/b", ""), "/a/b");
}

// A source's row builder runs on worker threads: an exception it lets out
// (a JSON value of another type than a reader expected, or any other) is that
// item's error, under the on_error policy, instead of terminating the process.
TEST(ConvertEngineTest, ARowBuildersExceptionIsItsItemsError) {
  std::vector<Field> fields(1);
  fields[0] = {.name = "id", .type = DataType::kInt64};
  SplitPlan plan;
  plan.schema = *Schema::Make(fields, "ids");
  plan.num_items = 6;
  plan.item_name = [](size_t i) { return "item" + std::to_string(i) + ".json"; };
  plan.make_row = [](size_t i) -> Result<Row> {
    if (i == 2) return Row({{"id", Value::Int(nlohmann::json("seven").get<int64_t>())}});
    if (i == 4) throw std::runtime_error("a reader's own fault");
    return Row({{"id", Value::Int(static_cast<int64_t>(i))}});
  };
  TempDir dir;
  {
    ConvertContext ctx(SmallOptions());
    auto r = RunPlans({plan}, dir / "fail.mindrecord", ctx);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << r.status().ToString();
    EXPECT_NE(r.status().message().find("item2.json: unexpected JSON value: [json.exception.type_error.302]"),
              std::string::npos)
        << r.status().ToString();
    EXPECT_FALSE(std::filesystem::exists(dir / "fail.mindrecord"));
  }
  ConvertOptions o = SmallOptions();
  o.on_error = OnError::kSkip;
  ConvertContext ctx(o);
  auto r = RunPlans({plan}, dir / "skip.mindrecord", ctx);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<int64_t> ids;
  for (const Row& row : ReadAll(dir / "skip.mindrecord")) ids.push_back(row.Get("id").as_int());
  EXPECT_EQ(ids, (std::vector<int64_t>{0, 1, 3, 5}));
  ASSERT_EQ(ctx.skipped().size(), 2u);
  EXPECT_NE(ctx.skipped()[1].find("item4.json: building the row threw an exception: a reader's own fault"),
            std::string::npos)
      << ctx.skipped()[1];
}

}  // namespace
}  // namespace mindrecord::convert
