// Source images are untrusted input: a converter that decodes them (--encode
// raw, jpeg, png) refuses a JPEG or PNG whose header claims more than
// kMaxImagePixels before allocating (a 633-byte JPEG claiming 20000 x 20000
// was decoded into 1.2 GB). Kept as they are (the default), such files are
// only bytes and still convert.
#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>

#include "fixtures/convert_fixtures.h"
#include "tests/convert/convert_test_util.h"

namespace mindrecord::convert {
namespace {

using namespace testing;  // NOLINT

std::string Encode(const char* ext) {
  cv::Mat img(16, 16, CV_8UC3, cv::Scalar(10, 200, 30));
  std::vector<uchar> out;
  EXPECT_TRUE(cv::imencode(ext, img, out));
  return std::string(out.begin(), out.end());
}

// A 16 x 16 JPEG whose frame header (SOF0) claims 20000 x 20000.
std::string JpegClaiming20000() {
  std::string j = Encode(".jpg");
  const size_t sof = j.find("\xFF\xC0");
  EXPECT_NE(sof, std::string::npos);
  for (size_t at : {sof + 5, sof + 7}) {  // height, then width, big-endian
    j[at] = static_cast<char>(20000 >> 8);
    j[at + 1] = static_cast<char>(20000 & 0xFF);
  }
  return j;
}

// A 16 x 16 PNG whose IHDR claims 30000 x 30000.
std::string PngClaiming30000() {
  std::string p = Encode(".png");
  for (size_t at : {size_t{16}, size_t{20}}) {
    p[at] = 0, p[at + 1] = 0, p[at + 2] = static_cast<char>(30000 >> 8), p[at + 3] = static_cast<char>(30000 & 0xFF);
  }
  return p;
}

// The same with chroma sampled 1x2 under a 2x2 luma: libturbojpeg's header
// call refuses it, libjpeg (OpenCV's decoder) reads it.
std::string OddSampledJpegClaiming20000() {
  std::string j = JpegClaiming20000();
  const size_t sof = j.find("\xFF\xC0");
  j[sof + 14] = 0x12;  // the second component's sampling factors
  return j;
}

// A PNG whose IHDR sizes are near 2^32 each (their product needs 64 bits).
std::string PngClaimingNear2To32() {
  std::string p = Encode(".png");
  for (size_t i = 0; i < 8; ++i) p[16 + i] = static_cast<char>(0xFF);
  p[23] = static_cast<char>(0x1F);
  return p;
}

// Converts a two-image folder holding `file` as a third: refused with an
// error holding `words` and the file's name; under on_error skip, the other
// two are converted. Returns the refusal.
Status RefusedThenSkipped(const char* file, const std::string& bytes, EncodeMode mode, const char* words) {
  TempDir dir;
  fixtures::WriteImageFolder(dir / "src", 1, 2, 8, 8, 1);
  fixtures::WriteFile(dir / "src/class_00/" + file, bytes);
  ConvertOptions o = SmallOptions();
  o.encode = mode;
  auto r = Convert("imagefolder", dir / "src", dir / "out.mindrecord", o);
  EXPECT_FALSE(r.ok()) << file;
  if (r.ok()) return Status::OK();
  EXPECT_NE(r.status().message().find(words), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find(file), std::string::npos) << r.status().ToString();
  o.on_error = OnError::kSkip;
  auto skipped = Convert("imagefolder", dir / "src", dir / "skip.mindrecord", o);
  EXPECT_TRUE(skipped.ok()) << skipped.status().ToString();
  if (skipped.ok()) EXPECT_EQ(ReadAll(dir / "skip.mindrecord").size(), 2u) << file;
  return r.status();
}

TEST(UntrustedImagesTest, DecodingConvertsRefuseImageBombs) {
  struct Case {
    const char* file;
    std::string bytes;
    const char* words;
    const char* raw_words = nullptr;  // --encode raw, when it differs (raw checks the JPEG first)
  } cases[] = {{"bomb.jpg", JpegClaiming20000(), "JPEG header claims 20000 x 20000 pixels, more than the 178956970"},
               {"bomb.png", PngClaiming30000(), "PNG header claims 30000 x 30000 pixels, more than the 178956970"},
               {"odd.jpg", OddSampledJpegClaiming20000(), "JPEG header claims 20000 x 20000 pixels",
                "undecodable JPEG: tjDecompressHeader3(): Could not determine subsampling type"},
               {"huge.png", PngClaimingNear2To32(), "PNG header claims 4294967295 x 4294967071 pixels"}};
  for (const Case& c : cases) {
    for (EncodeMode mode : {EncodeMode::kRaw, EncodeMode::kJpeg, EncodeMode::kPng}) {
      const char* words = mode == EncodeMode::kRaw && c.raw_words ? c.raw_words : c.words;
      EXPECT_FALSE(RefusedThenSkipped(c.file, c.bytes, mode, words).ok());
    }
  }
  // Kept as they are, the bytes are stored (no decode: nothing to bound).
  TempDir dir;
  fixtures::WriteImageFolder(dir / "src", 1, 1, 8, 8, 1);
  fixtures::WriteFile(dir / "src/class_00/bomb.jpg", JpegClaiming20000());
  auto r = Convert("imagefolder", dir / "src", dir / "keep.mindrecord", SmallOptions());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(ReadAll(dir / "keep.mindrecord").size(), 2u);
}

// Other formats are decoded to be checked even when kept as they are; their
// headers are sized first. A 9.8 KB lossless WebP of 16000 x 16000 pixels
// made OpenCV hold 933 MB.
TEST(UntrustedImagesTest, OtherFormatsAreSizedBeforeTheyAreDecoded) {
  std::string webp = Encode(".webp");
  ASSERT_EQ(webp.substr(12, 4), "VP8L");
  const uint32_t sizes = 16383u | (16383u << 14);  // width - 1 and height - 1, 14 bits each
  for (int i = 0; i < 4; ++i) webp[21 + i] = static_cast<char>((sizes >> (8 * i)) & 0xFF);
  std::string bmp = Encode(".bmp");
  for (size_t at : {18, 22}) bmp[at] = static_cast<char>(0x20), bmp[at + 1] = static_cast<char>(0x4E);  // 20000
  struct Case {
    const char* file;
    std::string bytes;
    const char* words;
  } cases[] = {{"bomb.webp", webp, "WebP header claims 16384 x 16384 pixels, more than the 178956970"},
               {"bomb.bmp", bmp, "BMP header claims 20000 x 20000 pixels"},
               {"picture.tif", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 4 +X 4\n" + std::string(64, '\x80'),
                "Radiance HDR images are not decoded"}};
  for (const Case& c : cases) {
    for (EncodeMode mode : {EncodeMode::kDefault, EncodeMode::kRaw, EncodeMode::kJpeg}) {
      const Status refused = RefusedThenSkipped(c.file, c.bytes, mode, c.words);
      EXPECT_EQ(refused.code(), StatusCode::kCorruption) << refused.ToString();
      EXPECT_EQ(refused.message().find("--encode keep"), std::string::npos) << refused.ToString();
    }
  }
}

}  // namespace
}  // namespace mindrecord::convert
