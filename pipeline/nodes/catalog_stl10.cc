// STL10Dataset's binary files (catalog_layouts.h): {train,test}_X.bin with
// {train,test}_y.bin and unlabeled_X.bin (usage train, test, unlabeled,
// train+unlabeled, all: test, train, unlabeled, MindSpore's order by path).
// An image is 96x96x3 bytes stored a colour plane at a time, each plane
// column by column (uint8 [96, 96, 3] HWC here); a label one byte, 1-10
// (int32 0-9; unlabeled rows -1). Both files are read per row; their sizes
// are checked when the dataset is made.
#include <filesystem>

#include "mindrecord/file.h"
#include "pipeline/nodes/catalog_layouts.h"

namespace mindrecord {

namespace fs = std::filesystem;

Result<Catalog> ListStl10(const nlohmann::json& args) {
  const std::string who = "STL10Dataset";
  constexpr uint64_t kImageBytes = 96 * 96 * 3;
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"usage"}));
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "all"));
  std::vector<std::string> parts;
  if (usage == "test" || usage == "all") parts.push_back("test");
  if (usage == "train" || usage == "train+unlabeled" || usage == "all") parts.push_back("train");
  if (usage == "unlabeled" || usage == "train+unlabeled" || usage == "all") parts.push_back("unlabeled");
  if (parts.empty())
    return Status::InvalidArgument(who + ": usage must be 'train', 'test', 'unlabeled', 'train+unlabeled' or 'all', "
                                   "got '" + usage + "'");
  const fs::path dir = args["dataset_dir"].get<std::string>();
  Catalog c;
  c.columns = {"image", "label"};
  c.record_specs.push_back({[](std::string&& bytes, const std::string&) -> Result<Tensor> {
    Tensor t = Tensor::Make(TensorType::kUInt8, {96, 96, 3});
    uint8_t* out = t.MutableData();
    const auto* in = reinterpret_cast<const uint8_t*>(bytes.data());
    for (size_t ch = 0; ch < 3; ++ch)
      for (size_t col = 0; col < 96; ++col)
        for (size_t row = 0; row < 96; ++row) out[(row * 96 + col) * 3 + ch] = in[ch * 9216 + col * 96 + row];
    return t;
  }});
  std::vector<std::pair<uint64_t, bool>> labelled;  // rows per part, labelled
  for (const auto& part : parts) {
    const std::string x = (dir / (part + "_X.bin")).string();
    std::error_code ec;
    if (!fs::is_regular_file(x, ec)) return Status::NotFound(who + ": " + x + " is missing");
    const uint64_t x_size = fs::file_size(x, ec);
    if (ec) return Status::IOError(who + ": " + x + ": " + ec.message());
    if (x_size % kImageBytes != 0)
      return Status::Corruption(who + ": " + x + ": " + std::to_string(x_size) + " bytes, not whole 96x96x3 images");
    const uint64_t n = x_size / kImageBytes;
    const auto fx = static_cast<uint32_t>(c.record_files.size());
    c.record_files.push_back(x);
    for (uint64_t i = 0; i < n; ++i) c.records.push_back({fx, static_cast<uint32_t>(kImageBytes), i * kImageBytes});
    if (part == "unlabeled") {
      const Tensor none = CatalogInt32(-1);
      for (uint64_t i = 0; i < n; ++i) c.values.push_back(none);  // one shared buffer
      continue;
    }
    const std::string y = (dir / (part + "_y.bin")).string();
    if (!fs::is_regular_file(y, ec)) return Status::NotFound(who + ": " + y + " is missing");
    if (fs::file_size(y, ec) != n)
      return Status::Corruption(who + ": " + y + " holds " + std::to_string(fs::file_size(y, ec)) + " labels, " + x +
                                " " + std::to_string(n) + " images");
    MR_ASSIGN_OR_RETURN(auto file, FileSystem::Default()->OpenRead(y, false));
    std::string labels(n, '\0');
    MR_RETURN_IF_ERROR(file->ReadAt(0, n, labels.data()));
    for (uint64_t i = 0; i < n; ++i) {
      const auto b = static_cast<uint8_t>(labels[i]);
      if (b < 1 || b > 10)
        return Status::Corruption(who + ": " + y + ": label " + std::to_string(b) + " at byte " + std::to_string(i) +
                                  " is not 1-10");
      c.values.push_back(CatalogInt32(b - 1));
    }
  }
  return c;
}

}  // namespace mindrecord
