// MNIST: idx files (gzipped or plain) -> `label: int64`, `data: bytes` (the
// 28x28 image, JPEG by default as MindSpore's MnistToMR), one dataset per split.
#include <filesystem>
#include <memory>

#include "mindrecord/file.h"
#include "mindrecord/inflated_file.h"
#include "writers/convert/image_codec.h"
#include "writers/convert/sources.h"

namespace mindrecord::convert {
namespace fs = std::filesystem;
namespace {

constexpr uint32_t kImagesMagic = 0x00000803;
constexpr uint32_t kLabelsMagic = 0x00000801;

// An idx file as a file of its decompressed bytes, never whole in memory: a
// gzipped one (by its magic) is inflated once to check it and index access
// points, then read through them (mindrecord/inflated_file.h). A few
// kilobytes of gzip inflate to gigabytes, which the whole file held.
Result<std::shared_ptr<const RandomAccessFile>> OpenIdx(const std::string& path) {
  MR_ASSIGN_OR_RETURN(std::shared_ptr<const RandomAccessFile> file, FileSystem::Default()->OpenRead(path));
  unsigned char magic[2] = {};
  if (file->size() >= 2) MR_RETURN_IF_ERROR(file->ReadAt(0, 2, reinterpret_cast<char*>(magic)));
  if (magic[0] != 0x1f || magic[1] != 0x8b) return file;
  MR_ASSIGN_OR_RETURN(auto index, InflateScan(*file, StreamCompression::kGzip, [](const char*, size_t) {
                        return Status::OK();
                      }));
  return std::shared_ptr<const RandomAccessFile>(std::make_shared<InflatedFile>(file, index));
}

uint32_t Be32(const char* d) {
  const auto* p = reinterpret_cast<const uint8_t*>(d);
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// Locates "<prefix>-<kind>-idxN-ubyte" or the same with ".gz".
std::string FindIdx(const std::string& dir, const std::string& stem) {
  for (const char* ext : {".gz", ""}) {
    fs::path p = fs::path(dir) / (stem + ext);
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return "";
}

struct MnistSplit {
  std::string images_path, labels_path;
  std::shared_ptr<const RandomAccessFile> images, labels;  // decompressed
  uint32_t rows = 0, cols = 0;
  size_t count = 0;            // images with a label and complete pixels
};

Status LoadSplit(MnistSplit& s, ConvertContext& ctx) {
  MR_ASSIGN_OR_RETURN(s.images, OpenIdx(s.images_path));
  MR_ASSIGN_OR_RETURN(s.labels, OpenIdx(s.labels_path));
  char ih[16] = {}, lh[8] = {};
  if (s.images->size() >= 16) MR_RETURN_IF_ERROR(s.images->ReadAt(0, 16, ih));
  if (s.labels->size() >= 8) MR_RETURN_IF_ERROR(s.labels->ReadAt(0, 8, lh));
  if (s.images->size() < 16 || Be32(ih) != kImagesMagic)
    return Status::Corruption(s.images_path + ": not an idx3 image file (expected magic 0x00000803 and a 16-byte header)");
  if (s.labels->size() < 8 || Be32(lh) != kLabelsMagic)
    return Status::Corruption(s.labels_path + ": not an idx1 label file (expected magic 0x00000801 and an 8-byte header)");
  uint64_t n_images = Be32(ih + 4);
  s.rows = Be32(ih + 8);
  s.cols = Be32(ih + 12);
  uint64_t n_labels = Be32(lh + 4);
  if (s.rows == 0 || s.cols == 0 || s.rows > 4096 || s.cols > 4096)
    return Status::Corruption(s.images_path + ": implausible image size " + std::to_string(s.rows) + "x" +
                              std::to_string(s.cols));
  const uint64_t image_bytes = uint64_t{s.rows} * s.cols;
  const uint64_t have_images = (s.images->size() - 16) / image_bytes;
  const uint64_t have_labels = s.labels->size() - 8;
  uint64_t n = std::min(n_images, n_labels);
  if (n_images != n_labels) {
    MR_RETURN_IF_ERROR(ctx.BadInput(s.images_path, Status::Corruption(
        "counts disagree: " + std::to_string(n_images) + " images but " + s.labels_path + " has " +
        std::to_string(n_labels) + " labels; the unmatched items are left out")));
  }
  if (have_images < n) {
    MR_RETURN_IF_ERROR(ctx.BadInput(s.images_path, Status::Corruption(
        "truncated: header says " + std::to_string(n_images) + " images of " + std::to_string(image_bytes) +
        " bytes, the file holds " + std::to_string(have_images) + " whole images; to convert the " +
        std::to_string(have_images) + " images there, leaving out images " + std::to_string(have_images) + ".." +
        std::to_string(n - 1) + ", pass on_error=\"skip\" (CLI: --on-error skip)")));
    n = have_images;
  }
  if (have_labels < n) {
    MR_RETURN_IF_ERROR(ctx.BadInput(s.labels_path, Status::Corruption(
        "truncated: header says " + std::to_string(n_labels) + " labels, the file holds " +
        std::to_string(have_labels) + "; to convert the " + std::to_string(have_labels) +
        " labelled images, pass on_error=\"skip\" (CLI: --on-error skip)")));
    n = have_labels;
  }
  s.count = static_cast<size_t>(n);
  return Status::OK();
}

}  // namespace

PlanResult PlanMnist(const std::string& input, ConvertContext& ctx) {
  return PlanIdxFiles(input, ctx, {{"train", "train"}, {"test", "t10k"}});
}

PlanResult PlanIdxFiles(const std::string& input, ConvertContext& ctx,
                        const std::vector<std::pair<std::string, std::string>>& split_prefixes) {
  std::vector<SplitPlan> plans;
  for (const auto& [split, prefix] : split_prefixes) {
    if (!ctx.options().split.empty() && ctx.options().split != split) continue;  // only that split's files
    auto s = std::make_shared<MnistSplit>();
    s->images_path = FindIdx(input, prefix + "-images-idx3-ubyte");
    s->labels_path = FindIdx(input, prefix + "-labels-idx1-ubyte");
    if (s->images_path.empty() && s->labels_path.empty()) continue;
    if (s->images_path.empty())
      return Status::NotFound(input + ": " + prefix + "-images-idx3-ubyte[.gz] is missing (labels are present)");
    if (s->labels_path.empty())
      return Status::NotFound(input + ": " + prefix + "-labels-idx1-ubyte[.gz] is missing (images are present)");
    MR_RETURN_IF_ERROR(LoadSplit(*s, ctx));
    auto schema = Schema::Make({Field{"data", DataType::kBytes, false, {}}, Field{"label", DataType::kInt64, false, {}}},
                               "mnist_schema");
    if (!schema.ok()) return schema.status();
    SplitPlan plan;
    plan.split = split;
    plan.schema = *schema;
    plan.index_fields = std::vector<std::string>{"label"};
    plan.num_items = s->count;
    plan.item_name = [s](size_t i) { return s->images_path + " image " + std::to_string(i); };
    const EncodeMode mode = ctx.options().encode;
    plan.make_row = [s, mode](size_t i) -> Result<Row> {
      const size_t image_bytes = size_t{s->rows} * s->cols;
      std::string px(image_bytes, '\0');
      char label = 0;
      MR_RETURN_IF_ERROR(s->images->ReadAt(16 + i * image_bytes, image_bytes, px.data()));
      MR_RETURN_IF_ERROR(s->labels->ReadAt(8 + i, 1, &label));
      MR_ASSIGN_OR_RETURN(std::string data, EncodePixels(reinterpret_cast<const uint8_t*>(px.data()), static_cast<int>(s->rows),
                                                         static_cast<int>(s->cols), 1, mode));
      Row row;
      row.Set("data", Value::Bytes(std::move(data)));
      row.Set("label", Value::Int(static_cast<uint8_t>(label)));
      return row;
    };
    plans.push_back(std::move(plan));
  }
  if (plans.empty()) {
    std::string expected;
    for (const auto& [split, prefix] : split_prefixes) {
      if (!ctx.options().split.empty() && ctx.options().split != split) continue;
      expected += (expected.empty() ? "" : ", ") + prefix + "-images-idx3-ubyte[.gz], " + prefix +
                  "-labels-idx1-ubyte[.gz]";
    }
    return Status::NotFound(input + ": no MNIST idx files (expected " + expected + ")");
  }
  return plans;
}

}  // namespace mindrecord::convert
