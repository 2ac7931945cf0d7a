#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <turbojpeg.h>

#include "pipeline/ops/fuse.h"
#include "pipeline/ops/jpeg.h"
#include "tests/pipeline/ops_test_util.h"

namespace mindrecord {
namespace {

using testing::EncodeRgb;
using testing::MatToTensor;
using testing::MeanAbsDiff;
using testing::SyntheticRgb;
using testing::TensorToMat;

using testing::Op;
using testing::RunOp;

TEST(OpsDecodeTest, JpegMatchesOpenCv) {
  cv::Mat rgb = SyntheticRgb(120, 160);
  Tensor jpg = EncodeRgb(rgb, ".jpg");
  Tensor out = RunOp(*Op({{"op", "Decode"}}), jpg);
  ASSERT_EQ(out.shape(), (std::vector<int64_t>{120, 160, 3}));
  EXPECT_EQ(out.type(), TensorType::kUInt8);
  // OpenCV's own decode (BGR) of the same bytes, converted to RGB.
  cv::Mat buf(1, static_cast<int>(jpg.size_bytes()), CV_8UC1, const_cast<uint8_t*>(jpg.data()));
  cv::Mat bgr = cv::imdecode(buf, cv::IMREAD_COLOR), ref;
  cv::cvtColor(bgr, ref, cv::COLOR_BGR2RGB);
  EXPECT_LT(MeanAbsDiff(out, MatToTensor(ref)), 1.0);
  // And close to the original pixels (JPEG loss only).
  EXPECT_LT(MeanAbsDiff(out, MatToTensor(rgb)), 3.0);
}

TEST(OpsDecodeTest, PngIsExact) {
  cv::Mat rgb = SyntheticRgb(37, 53);
  Tensor out = RunOp(*Op({{"op", "Decode"}}), EncodeRgb(rgb, ".png"));
  ASSERT_EQ(out.shape(), (std::vector<int64_t>{37, 53, 3}));
  EXPECT_TRUE(testing::SameBytes(out, MatToTensor(rgb)));
}

TEST(OpsDecodeTest, GrayAndAlphaBecomeRgb) {
  cv::Mat rgb = SyntheticRgb(40, 50), gray, rgba;
  cv::cvtColor(rgb, gray, cv::COLOR_RGB2GRAY);
  std::vector<uchar> buf;
  cv::imencode(".jpg", gray, buf);
  Tensor out = RunOp(*Op({{"op", "Decode"}}), Tensor::FromString(TensorType::kBytes, std::string(buf.begin(), buf.end())));
  ASSERT_EQ(out.shape(), (std::vector<int64_t>{40, 50, 3}));
  for (int i = 0; i < 40 * 50; ++i) {
    ASSERT_EQ(out.data()[3 * i], out.data()[3 * i + 1]);
    ASSERT_EQ(out.data()[3 * i], out.data()[3 * i + 2]);
  }
  cv::cvtColor(rgb, rgba, cv::COLOR_RGB2BGRA);
  cv::imencode(".png", rgba, buf);
  Tensor png = RunOp(*Op({{"op", "Decode"}}), Tensor::FromString(TensorType::kUInt8, std::string(buf.begin(), buf.end())));
  ASSERT_EQ(png.shape(), (std::vector<int64_t>{40, 50, 3}));
  EXPECT_TRUE(testing::SameBytes(png, MatToTensor(rgb)));
}

TEST(OpsDecodeTest, DctScaledDecode) {
  cv::Mat rgb = SyntheticRgb(480, 640);
  Tensor jpg = EncodeRgb(rgb, ".jpg");
  // Needs >= 100x150: 1/4 gives 120x160, 1/8 (60x80) is too small.
  Tensor out = RunOp(*Op({{"op", "Decode"}, {"target_size", {100, 150}}}), jpg);
  ASSERT_EQ(out.shape(), (std::vector<int64_t>{120, 160, 3}));
  cv::Mat ref;
  cv::resize(rgb, ref, cv::Size(160, 120), 0, 0, cv::INTER_AREA);
  EXPECT_LT(MeanAbsDiff(out, MatToTensor(ref)), 4.0);
  // Shorter side >= 200: 1/2 (240x320).
  Tensor half = RunOp(*Op({{"op", "Decode"}, {"target_size", 200}}), jpg);
  EXPECT_EQ(half.shape(), (std::vector<int64_t>{240, 320, 3}));
  // Larger than the image: full size.
  Tensor full = RunOp(*Op({{"op", "Decode"}, {"target_size", {1000, 1000}}}), jpg);
  EXPECT_EQ(full.shape(), (std::vector<int64_t>{480, 640, 3}));
  // All 1/8 steps: 3/8 gives 180x240 >= 150x200.
  Tensor fine = RunOp(*Op({{"op", "Decode"}, {"target_size", {150, 200}}, {"all_factors", true}}), jpg);
  EXPECT_EQ(fine.shape(), (std::vector<int64_t>{180, 240, 3}));
}

TEST(OpsDecodeTest, ChooseJpegScale) {
  EXPECT_EQ(ops::ChooseJpegScale(4032, 2268, 224, 224).denom, 8);  // 504x284
  EXPECT_EQ(ops::ChooseJpegScale(640, 480, 224, 224).denom, 2);    // 320x240
  EXPECT_EQ(ops::ChooseJpegScale(640, 480, 0, 0).denom, 8);
  EXPECT_EQ(ops::ChooseJpegScale(200, 200, 224, 224).denom, 1);
}

// A JPEG whose header does not parse must not spoil the thread's decoder for
// the images after it (same DCT-scaled output as on a fresh thread).
TEST(OpsDecodeTest, BadJpegDoesNotSpoilTheNextDecode) {
  Tensor good = EncodeRgb(SyntheticRgb(480, 640), ".jpg");
  const std::string bytes(reinterpret_cast<const char*>(good.data()), good.size_bytes());
  auto dec = Op({{"op", "Decode"}, {"target_size", {112, 112}}});
  std::mt19937_64 rng(0);
  Tensor fresh;
  std::thread([&] { fresh = RunOp(*dec, good); }).join();
  ASSERT_EQ(fresh.shape(), (std::vector<int64_t>{120, 160, 3}));  // 1/4 scale
  std::thread([&] {
    // Cut inside the entropy tables: libturbojpeg fails while reading the header.
    for (size_t cut : {size_t{200}, size_t{400}, bytes.size() / 2}) {
      (void)dec->Apply(Tensor::FromString(TensorType::kBytes, bytes.substr(0, cut)), rng);
      Tensor again = RunOp(*dec, good);
      ASSERT_EQ(again.shape(), fresh.shape()) << "after a JPEG cut at " << cut;
      EXPECT_TRUE(testing::SameBytes(again, fresh)) << "after a JPEG cut at " << cut;
    }
  }).join();
}

// A window decoded alone holds exactly the pixels of the full decode, for
// every scale, chroma subsampling and window position (edges included).
TEST(OpsDecodeTest, WindowDecodeMatchesFullDecode) {
  std::mt19937_64 rng(5);
  cv::Mat rgb = SyntheticRgb(301, 419);
  // Every chroma subsampling libjpeg-turbo writes, and grayscale.
  std::vector<Tensor> jpegs;
  tjhandle enc = tjInitCompress();
  for (int sub : {TJSAMP_444, TJSAMP_422, TJSAMP_420, TJSAMP_440, TJSAMP_411, TJSAMP_GRAY}) {
    unsigned char* buf = nullptr;
    unsigned long n = 0;
    ASSERT_EQ(tjCompress2(enc, rgb.data, rgb.cols, static_cast<int>(rgb.step), rgb.rows, TJPF_RGB, &buf, &n, sub, 90,
                          0),
              0);
    jpegs.push_back(Tensor::FromString(TensorType::kBytes, std::string(reinterpret_cast<char*>(buf), n)));
    tjFree(buf);
  }
  tjDestroy(enc);
  for (const Tensor& jpg : jpegs) {
    for (ops::JpegScale s : {ops::JpegScale{1, 1}, ops::JpegScale{1, 2}, ops::JpegScale{3, 8}, ops::JpegScale{1, 4}}) {
      auto full = ops::DecodeJpeg(jpg.data(), jpg.size_bytes(), s);
      ASSERT_TRUE(full.ok());
      const int h = static_cast<int>(full->shape()[0]), w = static_cast<int>(full->shape()[1]);
      for (int k = 0; k < 25; ++k) {
        int ww = 1 + static_cast<int>(rng() % w), wh = 1 + static_cast<int>(rng() % h);
        if (k == 0) ww = w, wh = h;  // the whole image
        const int x = static_cast<int>(rng() % (w - ww + 1)), y = static_cast<int>(rng() % (h - wh + 1));
        auto win = ops::DecodeJpegWindow(jpg.data(), jpg.size_bytes(), s, x, y, ww, wh);
        ASSERT_TRUE(win.ok()) << win.status().ToString();
        ASSERT_EQ(win->shape(), (std::vector<int64_t>{wh, ww, 3}));
        size_t bad = 0;
        for (int r = 0; r < wh; ++r) {
          bad += std::memcmp(win->data() + static_cast<size_t>(r) * ww * 3,
                             full->data() + (static_cast<size_t>(y + r) * w + x) * 3, static_cast<size_t>(ww) * 3) != 0;
        }
        EXPECT_EQ(bad, 0u) << "scale " << s.num << "/" << s.denom << " window " << x << "," << y << " " << ww << "x"
                           << wh << " of " << w << "x" << h;
      }
      EXPECT_FALSE(ops::DecodeJpegWindow(jpg.data(), jpg.size_bytes(), s, w - 1, 0, 2, 1).ok());  // outside
    }
  }
  // A truncated stream is refused (the caller then decodes it whole).
  const std::string cut(reinterpret_cast<const char*>(jpegs[0].data()), jpegs[0].size_bytes() / 2);
  EXPECT_FALSE(ops::DecodeJpegWindow(reinterpret_cast<const uint8_t*>(cut.data()), cut.size(), {1, 1}, 0, 0, 100,
                                     280).ok());
}

TEST(OpsDecodeTest, RejectsBadInput) {
  auto dec = Op({{"op", "Decode"}});
  std::mt19937_64 rng(0);
  auto garbage = dec->Apply(Tensor::FromString(TensorType::kBytes, "not an image at all"), rng);
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(garbage.status().message().find("Decode"), std::string::npos);
  std::string trunc("\xFF\xD8\xFF\xE0\x00\x10JFIF", 10);
  EXPECT_FALSE(dec->Apply(Tensor::FromString(TensorType::kBytes, trunc), rng).ok());
  auto img = dec->Apply(Tensor::Make(TensorType::kFloat32, {4, 4}), rng);
  ASSERT_FALSE(img.ok());
  EXPECT_NE(img.status().message().find("Decode"), std::string::npos);
  EXPECT_FALSE(MakeOp({{"op", "Decode"}, {"target_size", -3}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "Decode"}, {"bogus", 1}}).ok());
}

// A few hundred bytes can claim a huge image: such headers are refused before
// a buffer is allocated, by every decoding op and fused path.
TEST(OpsDecodeTest, RefusesImagesClaimingTooManyPixels) {
  auto patch = [](Tensor enc, size_t at, uint32_t h, uint32_t w, bool big_endian32) {
    std::string b(reinterpret_cast<const char*>(enc.data()), enc.size_bytes());
    if (big_endian32) {
      for (int i = 0; i < 4; ++i) b[at + i] = static_cast<char>((w >> (24 - 8 * i)) & 0xFF);
      for (int i = 0; i < 4; ++i) b[at + 4 + i] = static_cast<char>((h >> (24 - 8 * i)) & 0xFF);
    } else {  // JPEG SOF: height then width, 16 bits each
      b[at] = static_cast<char>(h >> 8), b[at + 1] = static_cast<char>(h & 0xFF);
      b[at + 2] = static_cast<char>(w >> 8), b[at + 3] = static_cast<char>(w & 0xFF);
    }
    return Tensor::FromString(TensorType::kBytes, b);
  };
  const cv::Mat rgb = SyntheticRgb(16, 16);
  Tensor jpeg = EncodeRgb(rgb, ".jpg");
  const std::string jb(reinterpret_cast<const char*>(jpeg.data()), jpeg.size_bytes());
  const size_t sof = jb.find("\xFF\xC0");
  ASSERT_NE(sof, std::string::npos);
  // 20000 x 20000 = 4e8 pixels (1.2 GB decoded), from ~700 bytes.
  const Tensor big_jpeg = patch(jpeg, sof + 5, 20000, 20000, false);
  const Tensor big_png = patch(EncodeRgb(rgb, ".png"), 16, 20000, 20000, true);
  std::mt19937_64 rng(0);
  for (const nlohmann::json& spec : std::vector<nlohmann::json>{
           {{"op", "Decode"}},
           {{"op", "Decode"}, {"target_size", 224}},
           {{"op", "DecodeResize"}, {"size", 224}},
           {{"op", "DecodeRandomResizedCrop"}, {"size", 224}}}) {
    SCOPED_TRACE(spec.dump());
    auto op = MakeOp(spec);
    ASSERT_TRUE(op.ok()) << op.status().ToString();
    for (const auto* img : {&big_jpeg, &big_png}) {
      auto r = (*op)->Apply(*img, rng);
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
      EXPECT_NE(r.status().message().find("claims 20000 x 20000 pixels, more than the 178956970"),
                std::string::npos)
          << r.status().ToString();
    }
  }
  // A JPEG whose header libturbojpeg refuses (chroma sampled 1x2 under a 2x2
  // luma: no subsampling type it knows) goes to the OpenCV fallback, whose
  // libjpeg reads it: refused from libjpeg's reading of the header.
  std::string odd(reinterpret_cast<const char*>(big_jpeg.data()), big_jpeg.size_bytes());
  ASSERT_EQ(static_cast<uint8_t>(odd[sof + 9]), 3);  // three components
  odd[sof + 14] = 0x12;
  for (const nlohmann::json& spec : std::vector<nlohmann::json>{{{"op", "Decode"}}, {{"op", "DecodeResize"}, {"size", 224}}}) {
    auto r = Op(spec)->Apply(Tensor::FromString(TensorType::kBytes, odd), rng);
    ASSERT_FALSE(r.ok()) << spec.dump();
    EXPECT_NE(r.status().message().find("claims 20000 x 20000 pixels"), std::string::npos) << r.status().ToString();
  }
  // A PNG header's two 32-bit sizes at their largest: their product does not
  // fit 64 bits, and the check still refuses them itself.
  auto dec = Op({{"op", "Decode"}});
  auto huge = dec->Apply(patch(EncodeRgb(rgb, ".png"), 16, 0xFFFFFF1Fu, 0xFFFFFFFFu, true), rng);
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("claims 4294967295 x 4294967071 pixels"), std::string::npos)
      << huge.status().ToString();
  // At the limit's scale an ordinary image still decodes.
  EXPECT_TRUE(dec->Apply(jpeg, rng).ok());
}

// Every format reaches its decoder only after its header was read here: the
// formats OpenCV decodes in memory are sized as their decoders size them, the
// ones its decoders read through a temporary file are refused, and so are
// bytes of no known format.
std::string EncodeMat(const cv::Mat& m, const char* ext) {
  std::vector<uchar> buf;
  EXPECT_TRUE(cv::imencode(ext, m, buf)) << ext;
  return std::string(buf.begin(), buf.end());
}

void PutLittle(std::string& b, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
void PutBig(std::string& b, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b[at + i] = static_cast<char>((v >> (8 * (bytes - 1 - i))) & 0xFF);
}

// A little-endian TIFF's first-directory entry for a tag (SHORT or LONG) set to v.
std::string PatchTiffTag(std::string b, uint16_t tag, uint32_t v) {
  const uint32_t ifd = static_cast<uint8_t>(b[4]) | static_cast<uint8_t>(b[5]) << 8;
  const int entries = static_cast<uint8_t>(b[ifd]) | static_cast<uint8_t>(b[ifd + 1]) << 8;
  for (int i = 0; i < entries; ++i) {
    const size_t e = ifd + 2 + 12 * i;
    if ((static_cast<uint8_t>(b[e]) | static_cast<uint8_t>(b[e + 1]) << 8) != tag) continue;
    const bool is_short = b[e + 2] == 3;
    PutLittle(b, e + 8, v, is_short ? 2 : 4);
    return b;
  }
  ADD_FAILURE() << "no tag " << tag;
  return b;
}

// A JPEG 2000 codestream's SIZ marker (and a JP2 file's ihdr box) set to a w
// x h image in one tile.
std::string PatchJpeg2000Size(std::string b, uint32_t w, uint32_t h) {
  const size_t siz = b.find("\xFF\x51");
  EXPECT_NE(siz, std::string::npos);
  PutBig(b, siz + 6, w, 4), PutBig(b, siz + 10, h, 4);    // Xsiz, Ysiz
  PutBig(b, siz + 22, w, 4), PutBig(b, siz + 26, h, 4);   // XTsiz, YTsiz
  if (const size_t ihdr = b.find("ihdr"); ihdr != std::string::npos) {  // a JP2 file's header box agrees
    PutBig(b, ihdr + 4, h, 4), PutBig(b, ihdr + 8, w, 4);
  }
  return b;
}

TEST(OpsDecodeTest, EveryFormatIsSizedBeforeItsDecoder) {
  const cv::Mat rgb = SyntheticRgb(64, 48);
  cv::Mat bgr, gray, bgra16;
  cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
  cv::cvtColor(rgb, gray, cv::COLOR_RGB2GRAY);
  cv::cvtColor(bgr, bgra16, cv::COLOR_BGR2BGRA);
  bgra16.convertTo(bgra16, CV_16UC4, 257);
  auto decode = Op({{"op", "Decode"}});
  auto resize = Op({{"op", "DecodeResize"}, {"size", 24}});
  std::mt19937_64 rng(0);

  // Ordinary images of every format read here still decode.
  for (const auto& [ext, image] : std::vector<std::pair<const char*, cv::Mat>>{
           {".bmp", bgr}, {".ppm", bgr}, {".pgm", gray}, {".pam", bgr}, {".tiff", bgr}, {".tiff", bgra16},
           {".webp", bgr}, {".jp2", bgr}}) {
    SCOPED_TRACE(ext);
    const Tensor bytes = Tensor::FromString(TensorType::kBytes, EncodeMat(image, ext));
    auto r = decode->Apply(bytes, rng);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->shape(), (std::vector<int64_t>{64, 48, 3}));
    ASSERT_TRUE(resize->Apply(bytes, rng).ok());
    auto hdr = ops::ReadImageHeader(bytes.data(), bytes.size_bytes());  // from the header alone
    ASSERT_TRUE(hdr.ok()) << hdr.status().ToString();
    EXPECT_EQ(hdr->width, 48);
    EXPECT_EQ(hdr->height, 64);
  }
  EXPECT_TRUE(testing::SameBytes(RunOp(*decode, Tensor::FromString(TensorType::kBytes, EncodeMat(bgr, ".bmp"))),
                                 MatToTensor(rgb)));

  std::string bmp = EncodeMat(bgr, ".bmp");
  PutLittle(bmp, 18, 20000, 4), PutLittle(bmp, 22, static_cast<uint32_t>(-20000), 4);  // top-down rows
  const std::string tiff = EncodeMat(bgr, ".tiff");
  std::string tiff16 = EncodeMat(bgra16, ".tiff");
  std::string webp = EncodeMat(bgr, ".webp");
  ASSERT_EQ(webp.substr(12, 4), "VP8L");
  PutLittle(webp, 21, (16383u) | (16383u << 14), 4);  // width - 1 and height - 1, 14 bits each
  const std::string jp2 = EncodeMat(bgr, ".jp2");
  const std::string j2k = jp2.substr(jp2.find("\xFF\x4F\xFF\x51"));
  struct Case {
    const char* what;
    std::string bytes;
    const char* words;
  } cases[] = {
      {"BMP", bmp, "BMP header claims 20000 x 20000 pixels, more than the 178956970"},
      {"PPM", "P6\n# a comment\n20000 20000\n255\n" + std::string(64, 'x'), "PNM header claims 20000 x 20000 pixels"},
      {"PAM of 8 16-bit channels", "P7\nWIDTH 10000\nHEIGHT 10000\nDEPTH 8\nMAXVAL 65535\nENDHDR\n" + std::string(64, 'x'),
       "PAM header claims 10000 x 10000 pixels of 8 x 2 bytes, more than the 715827880 bytes"},
      {"TIFF", PatchTiffTag(PatchTiffTag(tiff, 256, 20000), 257, 20000), "TIFF header claims 20000 x 20000 pixels"},
      {"16-bit RGBA TIFF", PatchTiffTag(PatchTiffTag(tiff16, 256, 10000), 257, 10000),
       "TIFF header claims 10000 x 10000 pixels of 4 x 2 bytes"},
      {"WebP", webp, "WebP header claims 16384 x 16384 pixels, more than the 178956970"},
      {"JPEG 2000 codestream", PatchJpeg2000Size(j2k, 20000, 20000), "JPEG 2000 header claims 20000 x 20000 pixels"},
      {"JP2", PatchJpeg2000Size(jp2, 8000, 8000), "JPEG 2000 header claims 8000 x 8000 pixels of 3 x 4 bytes"},
      {"PAM without ENDHDR", "P7\nWIDTH 4\nHEIGHT 4\nDEPTH 3\nMAXVAL 255\n", "unreadable PAM header: truncated"},
      {"PAM WIDTH twice", "P7\nWIDTH 4\nWIDTH 40000\nHEIGHT 4\nDEPTH 3\nMAXVAL 255\nENDHDR\n",
       "unreadable PAM header: WIDTH given twice"},
      {"PPM with a size past 2^31", "P6\n4294967296 1\n255\n", "unreadable PNM header"},
      {"Radiance HDR", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 4 +X 4\n" + std::string(64, '\x80'),
       "Radiance HDR images are not decoded (OpenCV's decoder for them writes the bytes to a temporary file)"},
      {"Sun raster", std::string("\x59\xA6\x6A\x95", 4) + std::string(64, '\0'), "Sun raster images are not decoded"},
      {"PFM", "PF\n4 4\n-1.0\n" + std::string(192, '\0'), "PFM images are not decoded"},
      {"DICOM", std::string(128, '\0') + "DICM" + std::string(64, '\0'), "DICOM images are not decoded"},
      {"OpenEXR", std::string("\x76\x2F\x31\x01", 4) + std::string(64, '\0'), "OpenEXR images are not decoded"},
      {"GIF", "GIF89a" + std::string(64, '\0'), "not an image format that is decoded"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    for (const auto* op : {decode.get(), resize.get()}) {
      auto r = op->Apply(Tensor::FromString(TensorType::kBytes, c.bytes), rng);
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
      EXPECT_NE(r.status().message().find(c.words), std::string::npos) << r.status().ToString();
    }
  }
}

TEST(OpsDecodeTest, DecodeResizeCloseToDecodeThenResize) {
  cv::Mat rgb = SyntheticRgb(600, 800);
  Tensor jpg = EncodeRgb(rgb, ".jpg");
  for (nlohmann::json size : {nlohmann::json(224), nlohmann::json({100, 120})}) {
    Tensor fused = RunOp(*Op({{"op", "DecodeResize"}, {"size", size}}), jpg);
    Tensor plain = RunOp(*Op({{"op", "Resize"}, {"size", size}}), RunOp(*Op({{"op", "Decode"}}), jpg));
    ASSERT_EQ(fused.shape(), plain.shape()) << size.dump();
    EXPECT_LT(MeanAbsDiff(fused, plain), 4.0) << size.dump();
  }
  // Non-JPEG takes the plain path: identical.
  Tensor png = EncodeRgb(rgb, ".png");
  Tensor fused = RunOp(*Op({{"op", "DecodeResize"}, {"size", 224}}), png);
  Tensor plain = RunOp(*Op({{"op", "Resize"}, {"size", 224}}), RunOp(*Op({{"op", "Decode"}}), png));
  EXPECT_TRUE(testing::SameBytes(fused, plain));
}

TEST(OpsDecodeTest, FusedRandomResizedCropMatchesUnfused) {
  cv::Mat rgb = SyntheticRgb(768, 1024);
  Tensor jpg = EncodeRgb(rgb, ".jpg");
  nlohmann::json rrc = {{"op", "RandomResizedCrop"}, {"size", {64, 64}}, {"scale", {0.08, 1.0}}};
  nlohmann::json frrc = rrc;
  frrc["op"] = "DecodeRandomResizedCrop";
  auto fused = Op(frrc);
  auto crop = Op(rrc);
  auto dec = Op({{"op", "Decode"}});
  ASSERT_TRUE(fused->is_random());
  Tensor decoded = RunOp(*dec, jpg);
  for (uint64_t seed = 0; seed < 8; ++seed) {
    std::mt19937_64 r1(seed), r2(seed);
    auto a = fused->Apply(jpg, r1);
    auto b = crop->Apply(decoded, r2);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->shape(), (std::vector<int64_t>{64, 64, 3}));
    EXPECT_LT(MeanAbsDiff(*a, *b), 6.0) << "seed " << seed;
    EXPECT_EQ(r1(), r2()) << "both consumed the same draws";
  }
}

TEST(OpsDecodeTest, FuseOps) {
  std::vector<nlohmann::json> specs = {
      {{"op", "Decode"}},
      {{"op", "RandomResizedCrop"}, {"size", 224}},
      {{"op", "RandomHorizontalFlip"}},
  };
  auto fused = FuseOps(specs);
  ASSERT_EQ(fused.size(), 2u);
  EXPECT_EQ(fused[0]["op"], "DecodeRandomResizedCrop");
  EXPECT_EQ(fused[0]["size"], 224);
  EXPECT_EQ(fused[1]["op"], "RandomHorizontalFlip");
  EXPECT_TRUE(MakeOp(fused[0]).ok());

  auto r = FuseOps({{{"op", "Decode"}, {"all_factors", true}}, {{"op", "Resize"}, {"size", {32, 48}}}});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], (nlohmann::json{{"op", "DecodeResize"}, {"size", {32, 48}}, {"all_factors", true}}));

  // Not adjacent, or nothing to fuse: unchanged.
  std::vector<nlohmann::json> keep = {{{"op", "Decode"}}, {{"op", "HWC2CHW"}}, {{"op", "Resize"}, {"size", 8}}};
  EXPECT_EQ(FuseOps(keep), keep);
  std::vector<nlohmann::json> last = {{{"op", "Resize"}, {"size", 8}}, {{"op", "Decode"}}};
  EXPECT_EQ(FuseOps(last), last);
}

TEST(OpsDecodeTest, ConcurrentApplyMatchesSerial) {
  std::vector<Tensor> jpgs;
  for (int i = 0; i < 4; ++i) jpgs.push_back(EncodeRgb(SyntheticRgb(200 + 40 * i, 300, i), ".jpg"));
  auto fused = Op({{"op", "DecodeRandomResizedCrop"}, {"size", 48}});
  auto dec = Op({{"op", "Decode"}, {"target_size", 64}});
  auto work = [&](int row) {
    Tensor a = RunOp(*fused, jpgs[row % 4], row);
    Tensor b = RunOp(*dec, jpgs[row % 4], row);
    return std::make_pair(a, b);
  };
  std::vector<std::pair<Tensor, Tensor>> serial;
  for (int row = 0; row < 32; ++row) serial.push_back(work(row));
  std::vector<std::pair<Tensor, Tensor>> par(32);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int row = t; row < 32; row += 4) par[row] = work(row);
    });
  for (auto& th : threads) th.join();
  for (int row = 0; row < 32; ++row) {
    EXPECT_TRUE(testing::SameBytes(serial[row].first, par[row].first)) << row;
    EXPECT_TRUE(testing::SameBytes(serial[row].second, par[row].second)) << row;
  }
}

}  // namespace
}  // namespace mindrecord
