// FakeImageDataset's rows (catalog_layouts.h): num_images rows of an image
// (uint8 image_size) and a label (int32 in [0, num_classes)), both drawn from
// a std::mt19937 seeded with base_seed + the row's id, as MindSpore's: the
// label one std::uniform_int_distribution draw, the image the bytes of
// std::normal_distribution<double> draws clamped to [0, 255] (MindSpore
// hands the doubles' memory to its uint8 tensor, so its pixels are those
// bytes, not the values). The same C++ library gives MindSpore's values.
// Nothing is read; an image is made when its row is.
#include <algorithm>
#include <cstring>
#include <random>

#include "pipeline/nodes/catalog_layouts.h"

namespace mindrecord {

Result<Catalog> ListFakeImage(const nlohmann::json& args) {
  const std::string who = "FakeImageDataset";
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"num_images", "image_size", "num_classes", "base_seed"}));
  const nlohmann::json n_j = args.value("num_images", nlohmann::json(1000));
  const nlohmann::json c_j = args.value("num_classes", nlohmann::json(10));
  const nlohmann::json s_j = args.value("base_seed", nlohmann::json(0));
  const nlohmann::json size_j = args.value("image_size", nlohmann::json::array({224, 224, 3}));
  if (!n_j.is_number_integer() || n_j.get<int64_t>() < 1 || n_j.get<int64_t>() > INT32_MAX)
    return Status::InvalidArgument(who + ": num_images must be an int from 1 to 2^31-1");
  if (!c_j.is_number_integer() || c_j.get<int64_t>() < 1 || c_j.get<int64_t>() > INT32_MAX)
    return Status::InvalidArgument(who + ": num_classes must be an int from 1 to 2^31-1");
  if (!s_j.is_number_integer()) return Status::InvalidArgument(who + ": base_seed must be an int");
  if (!size_j.is_array() || size_j.size() != 3)
    return Status::InvalidArgument(who + ": image_size must be 3 ints (height, width, channels)");
  Shape shape;
  int64_t pixels = 1;
  for (const auto& d : size_j) {
    if (!d.is_number_integer() || d.get<int64_t>() < 1 || d.get<int64_t>() > INT32_MAX)
      return Status::InvalidArgument(who + ": image_size must be 3 ints from 1 to 2^31-1");
    shape.push_back(d.get<int64_t>());
    pixels *= d.get<int64_t>();
    if (pixels > INT32_MAX) return Status::InvalidArgument(who + ": image_size holds more than 2^31-1 values");
  }
  const auto n = n_j.get<uint64_t>();
  const auto classes = c_j.get<int32_t>();
  const auto seed = s_j.get<int64_t>();
  Catalog c;
  c.columns = {"image", "label"};
  c.generated.push_back([shape, pixels, seed](uint64_t row) -> Result<Tensor> {
    std::mt19937 gen(static_cast<uint32_t>(seed + static_cast<int64_t>(row)));
    std::normal_distribution<double> normal(0, 1);
    // MindSpore draws every value, then copies the first `pixels` bytes.
    std::vector<double> draws(static_cast<size_t>(pixels));
    for (auto& d : draws) d = std::clamp(normal(gen), 0.0, 255.0);
    Tensor t = Tensor::Make(TensorType::kUInt8, shape);
    std::memcpy(t.MutableData(), draws.data(), static_cast<size_t>(pixels));
    return t;
  });
  for (uint64_t i = 0; i < n; ++i) {
    std::mt19937 gen(static_cast<uint32_t>(seed + static_cast<int64_t>(i)));
    std::uniform_int_distribution<int32_t> label(0, classes - 1);
    c.values.push_back(CatalogInt32(label(gen)));
  }
  return c;
}

}  // namespace mindrecord
