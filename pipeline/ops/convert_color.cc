#include "pipeline/ops/convert_color.h"

#include <opencv2/imgproc.hpp>

#include "pipeline/ops/cv_util.h"

namespace mindrecord::ops {

namespace {

struct Mode {
  const char* name;
  int code;
  int in, out;  // channels
};

constexpr Mode kModes[] = {
    {"COLOR_BGR2BGRA", cv::COLOR_BGR2BGRA, 3, 4},   {"COLOR_RGB2RGBA", cv::COLOR_RGB2RGBA, 3, 4},
    {"COLOR_BGRA2BGR", cv::COLOR_BGRA2BGR, 4, 3},   {"COLOR_RGBA2RGB", cv::COLOR_RGBA2RGB, 4, 3},
    {"COLOR_BGR2RGBA", cv::COLOR_BGR2RGBA, 3, 4},   {"COLOR_RGB2BGRA", cv::COLOR_RGB2BGRA, 3, 4},
    {"COLOR_RGBA2BGR", cv::COLOR_RGBA2BGR, 4, 3},   {"COLOR_BGRA2RGB", cv::COLOR_BGRA2RGB, 4, 3},
    {"COLOR_BGR2RGB", cv::COLOR_BGR2RGB, 3, 3},     {"COLOR_RGB2BGR", cv::COLOR_RGB2BGR, 3, 3},
    {"COLOR_BGRA2RGBA", cv::COLOR_BGRA2RGBA, 4, 4}, {"COLOR_RGBA2BGRA", cv::COLOR_RGBA2BGRA, 4, 4},
    {"COLOR_BGR2GRAY", cv::COLOR_BGR2GRAY, 3, 1},   {"COLOR_RGB2GRAY", cv::COLOR_RGB2GRAY, 3, 1},
    {"COLOR_GRAY2BGR", cv::COLOR_GRAY2BGR, 1, 3},   {"COLOR_GRAY2RGB", cv::COLOR_GRAY2RGB, 1, 3},
    {"COLOR_GRAY2BGRA", cv::COLOR_GRAY2BGRA, 1, 4}, {"COLOR_GRAY2RGBA", cv::COLOR_GRAY2RGBA, 1, 4},
    {"COLOR_BGRA2GRAY", cv::COLOR_BGRA2GRAY, 4, 1}, {"COLOR_RGBA2GRAY", cv::COLOR_RGBA2GRAY, 4, 1},
};

// cvtColor of `img` (d.c == in) with `code` into a new tensor of `out` channels.
Result<Tensor> Convert(const Tensor& img, const ImageDims& d, int code, int out, const std::string& op) {
  ImageDims od = d;
  od.c = out;
  od.has_channel_dim = out != 1;
  Tensor t = MakeImage(img.type(), od, d.h, d.w);
  t.MutableData();
  MR_RETURN_IF_ERROR(CatchCv(op, [&] {
    cv::Mat dst = AsMat(t, od);
    cv::cvtColor(AsMat(img, d), dst, code);
  }));
  return t;
}

}  // namespace

Result<std::unique_ptr<TensorOp>> ConvertColorOp::Make(const nlohmann::json& spec) {
  const std::string op = "ConvertColor";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"convert_mode"}));
  MR_ASSIGN_OR_RETURN(std::string name, GetString(spec, op, "convert_mode", ""));
  for (const Mode& m : kModes) {
    if (name != m.name) continue;
    auto o = std::make_unique<ConvertColorOp>();
    o->mode_ = m.name;
    o->code_ = m.code;
    o->in_channels_ = m.in;
    o->out_channels_ = m.out;
    return std::unique_ptr<TensorOp>(std::move(o));
  }
  std::string known;
  for (const Mode& m : kModes) known += (known.empty() ? "" : ", ") + std::string(m.name);
  return Status::InvalidArgument(op + ": parameter 'convert_mode' must be one of " + known + ", got '" + name + "'");
}

Result<Tensor> ConvertColorOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  const std::string op = "ConvertColor";
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, op, true));
  if (d.c != in_channels_)
    return Status::InvalidArgument(op + ": " + mode_ + " takes an image with " + std::to_string(in_channels_) +
                                   " channel(s), got " + input.DebugString());
  return Convert(input, d, code_, out_channels_, op);
}

Result<std::unique_ptr<TensorOp>> GrayscaleOp::Make(const nlohmann::json& spec) {
  const std::string op = "Grayscale";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"num_output_channels"}));
  MR_ASSIGN_OR_RETURN(double c, GetNumber(spec, op, "num_output_channels", 1));
  if (c != 1 && c != 3) return Status::InvalidArgument(op + ": parameter 'num_output_channels' must be 1 or 3");
  return std::unique_ptr<TensorOp>(new GrayscaleOp(static_cast<int>(c)));
}

Result<Tensor> GrayscaleOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  const std::string op = "Grayscale";
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, op, true));
  if (!d.has_channel_dim || d.c != 3)
    return Status::InvalidArgument(op + ": expected an HWC RGB image with 3 channels, got " + input.DebugString());
  MR_ASSIGN_OR_RETURN(Tensor gray, Convert(input, d, cv::COLOR_RGB2GRAY, 1, op));
  if (channels_ == 1) return gray;
  ImageDims gd = d;
  gd.c = 1;
  gd.has_channel_dim = false;
  return Convert(gray, gd, cv::COLOR_GRAY2RGB, 3, op);
}

}  // namespace mindrecord::ops
