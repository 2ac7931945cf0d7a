// OpenCV's image codecs (cv::imdecode, cv::imencode of libopencv_imgcodecs),
// loaded the first time one is called instead of linked. Debian's
// libopencv_imgcodecs needs ~120 more shared libraries (GDAL, GDCM, poppler,
// HDF5, ...) whose loading and static initialisers cost every process about
// 80 ms at start: `mindrecord --version` took 100 ms of CPU with it linked
// and 18 ms without. Only images that are not JPEG (libturbojpeg decodes
// those) and the encoders need it.
// Thread safety: thread-safe (the library is loaded once).
#pragma once

#include <string>
#include <vector>

#include <opencv2/core.hpp>

namespace mindrecord {

// As cv::imdecode / cv::imencode, which they call: the same results and
// cv::Exception errors. If the library cannot be loaded they throw a
// cv::Exception naming it and dlopen's reason.
cv::Mat ImDecode(const cv::Mat& buf, int flags);
bool ImEncode(const std::string& ext, const cv::Mat& img, std::vector<uchar>& buf,
              const std::vector<int>& params = std::vector<int>());

}  // namespace mindrecord
