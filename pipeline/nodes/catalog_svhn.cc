// SVHNDataset's MATLAB files (catalog_layouts.h): {train,test,extra}_32x32.mat
// (usage train, test, extra; all: train, test, extra, as MindSpore's), each
// holding X (uint8 32 x 32 x 3 x N) and y (N labels 1-10). A row is image n
// of X (uint8 [32, 32, 3] HWC) and y[n] with 10 as 0 (int32), as
// MindSpore's. MindSpore (scipy) loads X whole; here y is read through
// libmatio, and X's element is found in the file and read per row: in place
// when stored plain, through an index of access points into its zlib
// stream when compressed (mindrecord/inflated_file.h; built once per file
// and process), so memory stays bounded whatever N.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "mindrecord/inflated_file.h"
#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/mat_file.h"

namespace mindrecord {

namespace fs = std::filesystem;

namespace {

constexpr const char* kSvhnWho = "SVHNDataset";
constexpr uint64_t kSvhnImageBytes = 32 * 32 * 3;
constexpr uint32_t kSvhnMiUint8 = 2, kSvhnMiMatrix = 14, kSvhnMiCompressed = 15;
constexpr uint8_t kSvhnUint8Class = 9;

// `n` bytes of a file, from `offset`.
class FileSlice : public RandomAccessFile {
 public:
  FileSlice(std::shared_ptr<const RandomAccessFile> raw, uint64_t offset, uint64_t n)
      : raw_(std::move(raw)), offset_(offset), n_(n) {}
  Status ReadAt(uint64_t offset, size_t n, char* out) const override {
    if (offset > n_ || n > n_ - offset)
      return Status::Corruption(raw_->path() + ": a read past the end of the element at byte " +
                                std::to_string(offset_));
    return raw_->ReadAt(offset_ + offset, n, out);
  }
  uint64_t size() const override { return n_; }
  const std::string& path() const override { return raw_->path(); }

 private:
  std::shared_ptr<const RandomAccessFile> raw_;
  uint64_t offset_, n_;
};

struct SvhnImages {
  std::shared_ptr<const RandomAccessFile> file;  // X's bytes: the .mat file or its inflated element
  uint64_t first = 0;                            // image 0's offset in `file`
  uint64_t count = 0;
};

// Compressed elements' indexes, per file as it was (path, size, mtime): a
// pipeline opens its source each epoch, and indexing inflates all of X.
struct SvhnIndexKey {
  std::string path;
  uint64_t size, offset;
  int64_t mtime;
  bool operator<(const SvhnIndexKey& o) const {
    return std::tie(path, size, offset, mtime) < std::tie(o.path, o.size, o.offset, o.mtime);
  }
};

Result<std::shared_ptr<const InflateIndex>> IndexElement(const std::shared_ptr<const RandomAccessFile>& slice,
                                                         SvhnIndexKey key) {
  static std::mutex mu;
  static std::map<SvhnIndexKey, std::shared_ptr<const InflateIndex>> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  MR_ASSIGN_OR_RETURN(auto index, InflateScan(*slice, StreamCompression::kZlib, [](const char*, size_t) {
                        return Status::OK();
                      }));
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() >= 16) cache.clear();  // a few datasets' files; their indexes are bounded in bytes
  cache[key] = index;
  return index;
}

// Finds variable X in the top-level elements of the .mat file at `path`.
Result<SvhnImages> FindImages(const std::string& path) {
  MR_ASSIGN_OR_RETURN(std::shared_ptr<const RandomAccessFile> file, FileSystem::Default()->OpenRead(path, false));
  unsigned char header[128];
  if (file->size() < 128) return Status::Corruption(std::string(kSvhnWho) + ": " + path + ": not a MATLAB 5 file");
  MR_RETURN_IF_ERROR(file->ReadAt(0, 128, reinterpret_cast<char*>(header)));
  if (header[126] != 'I' || header[127] != 'M')
    return Status::Corruption(std::string(kSvhnWho) + ": " + path +
                              ": not a little-endian MATLAB 5 file (MATLAB 7.3 / HDF5 files are not read)");
  uint64_t offset = 128;
  while (offset + 8 <= file->size()) {
    unsigned char tag[8];
    MR_RETURN_IF_ERROR(file->ReadAt(offset, 8, reinterpret_cast<char*>(tag)));
    const uint32_t type = MatLe32(tag);
    const uint64_t nbytes = MatLe32(tag + 4);
    if (nbytes > file->size() - offset - 8)
      return Status::Corruption(std::string(kSvhnWho) + ": " + path + ": the element at byte " +
                                std::to_string(offset) + " runs past the end of the file");
    const std::string where = std::string(kSvhnWho) + ": " + path + ": the element at byte " + std::to_string(offset);
    std::string head;
    if (type == kSvhnMiCompressed) {
      std::string raw(static_cast<size_t>(std::min<uint64_t>(nbytes, 64 << 10)), '\0');
      MR_RETURN_IF_ERROR(file->ReadAt(offset + 8, raw.size(), raw.data()));
      MR_ASSIGN_OR_RETURN(head, InflateMatElement(raw, 256, where, true));
    } else if (type == kSvhnMiMatrix) {
      head.resize(static_cast<size_t>(std::min<uint64_t>(nbytes + 8, 256)));
      MR_RETURN_IF_ERROR(file->ReadAt(offset, head.size(), head.data()));
    }
    if (!head.empty()) {
      MR_ASSIGN_OR_RETURN(MatArrayHeader h, ParseMatArrayHeader(head, where));
      if (h.name == "X") {
        if (h.cls != kSvhnUint8Class || h.complex || h.data_type != kSvhnMiUint8 || h.dims.size() != 4 || h.dims[0] != 32 ||
            h.dims[1] != 32 || h.dims[2] != 3)
          return Status::Corruption(where + ": X is not a uint8 32 x 32 x 3 x N array");
        SvhnImages out;
        out.count = static_cast<uint64_t>(h.dims[3]);
        if (h.data_bytes != out.count * kSvhnImageBytes)
          return Status::Corruption(where + ": X's data holds " + std::to_string(h.data_bytes) + " bytes, its " +
                                    std::to_string(out.count) + " images " +
                                    std::to_string(out.count * kSvhnImageBytes));
        out.first = h.data_offset;
        if (type == kSvhnMiMatrix) {
          if (h.data_offset + h.data_bytes > nbytes + 8)
            return Status::Corruption(where + ": X's data runs past its element");
          out.first += offset;
          out.file = file;
        } else {
          auto slice = std::make_shared<FileSlice>(file, offset + 8, nbytes);
          std::error_code ec;
          const auto mtime = fs::last_write_time(path, ec).time_since_epoch().count();
          MR_ASSIGN_OR_RETURN(auto index, IndexElement(slice, {path, file->size(), offset, mtime}));
          if (index->size < h.data_offset + h.data_bytes)
            return Status::Corruption(where + ": X's compressed element inflates to fewer bytes than its data");
          out.file = std::make_shared<InflatedFile>(slice, index);
        }
        return out;
      }
    }
    offset += 8 + (type == kSvhnMiCompressed ? nbytes : (nbytes + 7) / 8 * 8);
  }
  return Status::Corruption(std::string(kSvhnWho) + ": " + path + ": no variable X");
}

}  // namespace

Result<Catalog> ListSvhn(const nlohmann::json& args) {
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"usage"}));
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "all"));
  std::vector<std::string> parts;
  if (usage == "train" || usage == "all") parts.push_back("train");
  if (usage == "test" || usage == "all") parts.push_back("test");
  if (usage == "extra" || usage == "all") parts.push_back("extra");
  if (parts.empty())
    return Status::InvalidArgument(std::string(kSvhnWho) + ": usage must be 'train', 'test', 'extra' or 'all', got '" +
                                   usage + "'");
  const fs::path dir = args["dataset_dir"].get<std::string>();
  Catalog c;
  c.columns = {"image", "label"};
  c.record_specs.push_back({[](std::string&& bytes, const std::string&) -> Result<Tensor> {
    // MATLAB's column-major [32, 32, 3] (rows fastest) -> HWC.
    Tensor t = Tensor::Make(TensorType::kUInt8, {32, 32, 3});
    uint8_t* out = t.MutableData();
    const auto* in = reinterpret_cast<const uint8_t*>(bytes.data());
    for (int ch = 0; ch < 3; ++ch)
      for (int col = 0; col < 32; ++col)
        for (int row = 0; row < 32; ++row) out[(row * 32 + col) * 3 + ch] = in[ch * 1024 + col * 32 + row];
    return t;
  }});
  for (const auto& part : parts) {
    const std::string path = (dir / (part + "_32x32.mat")).string();
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return Status::NotFound(std::string(kSvhnWho) + ": " + path + " is missing");
    MR_ASSIGN_OR_RETURN(MatArray y, ReadMatArray(path, "y", uint64_t{1} << 26));
    MR_ASSIGN_OR_RETURN(SvhnImages x, FindImages(path));
    if (y.values.size() != x.count)
      return Status::Corruption(std::string(kSvhnWho) + ": " + path + ": " + std::to_string(x.count) +
                                " images in X, " + std::to_string(y.values.size()) + " labels in y");
    const auto fi = static_cast<uint32_t>(c.record_files.size());
    c.record_files.push_back(path);
    c.record_opened.resize(c.record_files.size());
    c.record_opened.back() = x.file;
    for (uint64_t i = 0; i < x.count; ++i) {
      const double v = y.values[i];
      if (!(v >= 0 && v <= 10) || v != std::floor(v))
        return Status::Corruption(std::string(kSvhnWho) + ": " + path + ": y[" + std::to_string(i) + "] is " +
                                  std::to_string(v) + ", not a digit label 1-10");
      c.records.push_back({fi, static_cast<uint32_t>(kSvhnImageBytes), x.first + i * kSvhnImageBytes});
      c.values.push_back(CatalogInt32(v == 10 ? 0 : static_cast<int32_t>(v)));
    }
  }
  return c;
}

}  // namespace mindrecord
