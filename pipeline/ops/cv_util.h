// Internal to the ops library: OpenCV views of tensors and the exception
// boundary. Not installed API (keeps OpenCV headers out of public headers).
#pragma once

#include <opencv2/core.hpp>

#include "pipeline/ops/op_util.h"
#include "pipeline/ops/pad.h"

namespace mindrecord::ops {

int ToCvInterpolation(Interpolation i);
// cv::BorderTypes of a padding mode (pad.h).
int ToCvBorder(PaddingMode m);

// OpenCV header over the tensor's bytes (no copy). uint8 or float32 only.
cv::Mat AsMat(const Tensor& t, const ImageDims& d);

// Runs `fn` and converts an OpenCV (or any std) exception into InvalidArgument.
template <typename Fn>
Status CatchCv(const std::string& op, Fn&& fn) {
  try {
    fn();
    return Status::OK();
  } catch (const cv::Exception& e) {
    return Status::InvalidArgument(op + ": OpenCV: " + e.what());
  } catch (const std::exception& e) {
    return Status::Internal(op + ": " + e.what());
  }
}

}  // namespace mindrecord::ops
