// QMnistDataset's idx files (catalog_layouts.h): qmnist-{train,test}-
// images-idx3-ubyte with qmnist-{train,test}-labels-idx2-int, and NIST's
// xnist-images-idx3-ubyte / xnist-labels-idx2-int (usage train, test,
// test10k: the test file's first 10,000 rows, test50k: the rest, nist; all:
// train, test, nist). Images 28x28 (uint8 [28, 28, 1], every non-zero pixel
// 255, as MindSpore's), labels 8 big-endian uint32 fields a row: with
// `compat` the first (the class, 0-d), else all 8. Both files are read per
// row; their headers and sizes are checked when the dataset is made.
#include <filesystem>

#include "mindrecord/file.h"
#include "pipeline/nodes/catalog_layouts.h"

namespace mindrecord {

namespace fs = std::filesystem;

namespace {

constexpr const char* kQmnistWho = "QMnistDataset";
constexpr uint64_t kImageBytes = 28 * 28, kLabelBytes = 8 * 4;

uint32_t QmnistBe32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// The row count of an idx file whose header is `header_bytes` long, holds
// `magic` then the count, then `dims`, and each row `row_bytes`.
Result<uint64_t> IdxRows(const std::string& path, uint32_t magic, std::vector<uint32_t> dims, uint64_t row_bytes) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return Status::NotFound(std::string(kQmnistWho) + ": " + path + " is missing");
  MR_ASSIGN_OR_RETURN(auto file, FileSystem::Default()->OpenRead(path, false));
  const uint64_t header = 8 + 4 * dims.size();
  unsigned char h[16] = {};
  if (file->size() < header)
    return Status::Corruption(std::string(kQmnistWho) + ": " + path + ": shorter than its " + std::to_string(header) +
                              "-byte header");
  MR_RETURN_IF_ERROR(file->ReadAt(0, header, reinterpret_cast<char*>(h)));
  if (QmnistBe32(h) != magic)
    return Status::Corruption(std::string(kQmnistWho) + ": " + path + ": magic " + std::to_string(QmnistBe32(h)) +
                              ", expected " + std::to_string(magic));
  for (size_t d = 0; d < dims.size(); ++d)
    if (QmnistBe32(h + 8 + 4 * d) != dims[d])
      return Status::Corruption(std::string(kQmnistWho) + ": " + path + ": dimension " + std::to_string(d + 1) + " is " +
                                std::to_string(QmnistBe32(h + 8 + 4 * d)) + ", expected " + std::to_string(dims[d]));
  const uint64_t n = QmnistBe32(h + 4);
  if (file->size() - header != n * row_bytes)
    return Status::Corruption(std::string(kQmnistWho) + ": " + path + ": the header says " + std::to_string(n) + " rows of " +
                              std::to_string(row_bytes) + " bytes, the file holds " +
                              std::to_string(file->size() - header) + " bytes after it");
  return n;
}

}  // namespace

Result<Catalog> ListQmnist(const nlohmann::json& args) {
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"usage", "compat"}));
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "all"));
  const nlohmann::json compat_j = args.value("compat", nlohmann::json(true));
  if (!compat_j.is_boolean()) return Status::InvalidArgument(std::string(kQmnistWho) + ": compat must be a bool");
  const bool compat = compat_j.get<bool>();
  struct Part {
    std::string prefix;
    uint64_t first, last;  // rows [first, last) of the files, clipped to their count
  };
  std::vector<Part> parts;
  const uint64_t all = UINT64_MAX;
  if (usage == "train" || usage == "all") parts.push_back({"qmnist-train", 0, all});
  if (usage == "test" || usage == "all") parts.push_back({"qmnist-test", 0, all});
  if (usage == "test10k") parts.push_back({"qmnist-test", 0, 10000});
  if (usage == "test50k") parts.push_back({"qmnist-test", 10000, all});
  if (usage == "nist" || usage == "all") parts.push_back({"xnist", 0, all});
  if (parts.empty())
    return Status::InvalidArgument(std::string(kQmnistWho) + ": usage must be 'train', 'test', 'test10k', 'test50k', "
                                   "'nist' or 'all', got '" + usage + "'");
  const fs::path dir = args["dataset_dir"].get<std::string>();
  Catalog c;
  c.columns = {"image", "label"};
  c.record_specs.push_back({[](std::string&& bytes, const std::string&) -> Result<Tensor> {
    Tensor t = Tensor::Make(TensorType::kUInt8, {28, 28, 1});
    uint8_t* px = t.MutableData();
    for (size_t i = 0; i < kImageBytes; ++i) px[i] = bytes[i] ? 255 : 0;
    return t;
  }});
  c.record_specs.push_back({[compat](std::string&& bytes, const std::string& where) -> Result<Tensor> {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    std::vector<int32_t> v;
    for (size_t f = 0; f < (compat ? 1 : 8); ++f) {
      const uint32_t x = QmnistBe32(p + 4 * f);
      if (x > INT32_MAX)
        return Status::Corruption(std::string(kQmnistWho) + ": " + where + ": label field " + std::to_string(f) + " is " +
                                  std::to_string(x) + ", past int32");
      v.push_back(static_cast<int32_t>(x));
    }
    return compat ? CatalogInt32(v[0]) : CatalogInt32s({8}, v);
  }});
  for (const auto& part : parts) {
    const std::string images = (dir / (part.prefix + "-images-idx3-ubyte")).string();
    const std::string labels = (dir / (part.prefix + "-labels-idx2-int")).string();
    MR_ASSIGN_OR_RETURN(uint64_t n_images, IdxRows(images, 2051, {28, 28}, kImageBytes));
    MR_ASSIGN_OR_RETURN(uint64_t n_labels, IdxRows(labels, 3074, {8}, kLabelBytes));
    if (n_images != n_labels)
      return Status::Corruption(std::string(kQmnistWho) + ": " + images + " holds " + std::to_string(n_images) +
                                " images, " + labels + " " + std::to_string(n_labels) + " labels");
    const auto fi = static_cast<uint32_t>(c.record_files.size());
    c.record_files.push_back(images);
    c.record_files.push_back(labels);
    for (uint64_t i = part.first; i < std::min(part.last, n_images); ++i) {
      c.records.push_back({fi, static_cast<uint32_t>(kImageBytes), 16 + i * kImageBytes});
      c.records.push_back({fi + 1, static_cast<uint32_t>(kLabelBytes), 12 + i * kLabelBytes});
    }
  }
  return c;
}

}  // namespace mindrecord
