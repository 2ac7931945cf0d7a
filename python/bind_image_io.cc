// The image file and encoding functions of mindrecord.vision (MindSpore's
// read_file, read_image, write_file, write_jpeg, write_png, encode_jpeg,
// encode_png): numpy in and out, the work in pipeline/ops/image_codec.h and
// image_file.h with the GIL released. The Python wrappers (_vision_io.py)
// check the argument types; these check dtypes and shapes.
#include <cstring>
#include <string>

#include "pipeline/ops/image_codec.h"
#include "pipeline/ops/image_file.h"
#include "python/py_common.h"

namespace mindrecord::py_binding {

namespace {

// A copy of a uint8 array as a tensor of its shape; any other dtype is
// InvalidArgument "<type_error> <dtype>." (MindSpore's message, which names
// the numpy dtype, e.g. uint16, that our tensors cannot hold).
Tensor Uint8Tensor(const py::array& a, const std::string& type_error) {
  if (!a.dtype().is(py::dtype::of<uint8_t>()))
    throw StatusError(Status::InvalidArgument(type_error + std::string(py::str(a.dtype())) + "."));
  auto c = py::array_t<uint8_t, py::array::c_style>::ensure(a);
  if (!c) throw py::error_already_set();
  Shape shape;
  for (py::ssize_t i = 0; i < c.ndim(); ++i) shape.push_back(c.shape(i));
  Tensor t = Tensor::Make(TensorType::kUInt8, shape);
  if (t.size_bytes() > 0) std::memcpy(t.MutableData(), c.data(), t.size_bytes());
  return t;
}

ops::ImageReadMode ReadMode(int mode) {
  if (mode < 0 || mode > 2)
    throw StatusError(Status::InvalidArgument("ReadImage: Unsupported ImageReadMode " + std::to_string(mode) +
                                              ", only support UNCHANGED, GRAYSCALE and COLOR."));
  return static_cast<ops::ImageReadMode>(mode);
}

}  // namespace

void BindImageIo(py::module_& m) {
  m.def(
      "encode_jpeg",
      [](const py::array& image, int quality) {
        Tensor t = Uint8Tensor(image, "EncodeJpeg: The type of the image data should be UINT8, but got ");
        Result<Tensor> r = [&] {
          py::gil_scoped_release nogil;
          return ops::EncodeJpeg(t, quality);
        }();
        return TensorToArray(ValueOrThrow(std::move(r)));
      },
      py::arg("image"), py::arg("quality"), "JPEG bytes of an HW/HWC uint8 image (1-D uint8 array).");
  m.def(
      "encode_png",
      [](const py::array& image, int level) {
        Tensor t = Uint8Tensor(image, "EncodePng: The type of the image data should be UINT8, but got ");
        Result<Tensor> r = [&] {
          py::gil_scoped_release nogil;
          return ops::EncodePng(t, level);
        }();
        return TensorToArray(ValueOrThrow(std::move(r)));
      },
      py::arg("image"), py::arg("compression_level"), "PNG bytes of an HW/HWC uint8 image (1-D uint8 array).");
  m.def(
      "write_jpeg",
      [](const std::string& filename, const py::array& image, int quality) {
        Tensor t = Uint8Tensor(image, "WriteJpeg: The type of the elements of image should be UINT8, but got ");
        py::gil_scoped_release nogil;
        ThrowIfError(ops::WriteJpeg(filename, t, quality));
      },
      py::arg("filename"), py::arg("image"), py::arg("quality"));
  m.def(
      "write_png",
      [](const std::string& filename, const py::array& image, int level) {
        Tensor t = Uint8Tensor(image, "WritePng: The type of the elements of image should be UINT8, but got ");
        py::gil_scoped_release nogil;
        ThrowIfError(ops::WritePng(filename, t, level));
      },
      py::arg("filename"), py::arg("image"), py::arg("compression_level"));
  m.def(
      "write_file",
      [](const std::string& filename, const py::array& data) {
        Tensor t = Uint8Tensor(data, "WriteFile: The type of the elements of data should be UINT8, but got ");
        py::gil_scoped_release nogil;
        ThrowIfError(ops::WriteFile(filename, t));
      },
      py::arg("filename"), py::arg("data"));
  m.def(
      "read_file",
      [](const std::string& filename) {
        Result<Tensor> r = [&] {
          py::gil_scoped_release nogil;
          return ops::ReadWholeFile(filename, "ReadFile");
        }();
        return TensorToArray(ValueOrThrow(std::move(r)));
      },
      py::arg("filename"), "The bytes of a file as a 1-D uint8 array.");
  m.def(
      "read_image",
      [](const std::string& filename, int mode) {
        const ops::ImageReadMode read_mode = ReadMode(mode);
        Result<ops::DecodedImageFile> r = [&] {
          py::gil_scoped_release nogil;
          return ops::ReadImage(filename, read_mode);
        }();
        ops::DecodedImageFile img = ValueOrThrow(std::move(r));
        py::array bytes = TensorToArray(std::move(img.bytes));
        if (img.sample_bytes == 2) bytes = bytes.attr("view")(py::dtype::of<uint16_t>());
        return bytes.attr("reshape")(py::make_tuple(img.height, img.width, img.channels));
      },
      py::arg("filename"), py::arg("mode"),
      "An image file decoded as MindSpore's read_image: HWC uint8 (uint16 for 16-bit files read UNCHANGED).");
}

}  // namespace mindrecord::py_binding
