#include "mindrecord/opencv_codecs.h"

#include <dlfcn.h>

#include <opencv2/imgcodecs.hpp>

namespace mindrecord {
namespace {

// The two functions' C++ symbols (OpenCV 4's ABI; cv::String is std::string).
using DecodeFn = decltype(static_cast<cv::Mat (*)(cv::InputArray, int)>(&cv::imdecode));
using EncodeFn = decltype(&cv::imencode);
constexpr const char* kDecodeSymbol = "_ZN2cv8imdecodeERKNS_11_InputArrayEi";
constexpr const char* kEncodeSymbol =
    "_ZN2cv8imencodeERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEERKNS_11_InputArrayERSt6vectorIhSaIhEERKSB_"
    "IiSaIiEE";

struct Codecs {
  DecodeFn decode = nullptr;
  EncodeFn encode = nullptr;
  std::string error;  // why they are absent
};

const Codecs& Loaded() {
  static const Codecs codecs = [] {
    Codecs c;
    // Never closed: OpenCV's codecs keep global state until exit.
    void* lib = dlopen(MINDRECORD_IMGCODECS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      c.error = std::string("cannot load OpenCV's image codecs (") + MINDRECORD_IMGCODECS_SONAME + "): " + dlerror();
      return c;
    }
    c.decode = reinterpret_cast<DecodeFn>(dlsym(lib, kDecodeSymbol));
    c.encode = reinterpret_cast<EncodeFn>(dlsym(lib, kEncodeSymbol));
    if (c.decode == nullptr || c.encode == nullptr) {
      c.error = std::string(MINDRECORD_IMGCODECS_SONAME) + " has no cv::imdecode / cv::imencode of OpenCV " +
                CV_VERSION + "'s ABI";
    }
    return c;
  }();
  return codecs;
}

const Codecs& Require(const char* func) {
  const Codecs& c = Loaded();
  if (!c.error.empty()) throw cv::Exception(cv::Error::StsNotImplemented, c.error, func, __FILE__, __LINE__);
  return c;
}

}  // namespace

cv::Mat ImDecode(const cv::Mat& buf, int flags) { return Require("imdecode").decode(buf, flags); }

bool ImEncode(const std::string& ext, const cv::Mat& img, std::vector<uchar>& buf, const std::vector<int>& params) {
  return Require("imencode").encode(ext, img, buf, params);
}

}  // namespace mindrecord
