// CIFAR-10 / CIFAR-100, binary or python-pickle distribution -> one dataset
// per split with MindSpore's fields: `id: int64`, `data: bytes` (the 32x32
// image, JPEG by default) and `label: int64` (CIFAR-10) or `fine_label`,
// `coarse_label: int64` (CIFAR-100).
#include <algorithm>
#include <filesystem>
#include <memory>

#include "writers/convert/image_codec.h"
#include "writers/convert/pickle_reader.h"
#include "writers/convert/sources.h"

namespace mindrecord::convert {
namespace fs = std::filesystem;
namespace {

constexpr size_t kPixels = 32 * 32 * 3;  // CHW, R then G then B planes

struct CifarSplit {
  std::string pixels;  // N * kPixels
  std::vector<int64_t> fine, coarse;  // coarse only for CIFAR-100
  std::vector<std::pair<size_t, std::string>> origins;  // (first item, file)
  size_t count() const { return fine.size(); }
  std::string Name(size_t i) const {
    auto it = std::upper_bound(origins.begin(), origins.end(), i,
                               [](size_t v, const auto& o) { return v < o.first; });
    --it;
    return it->second + " record " + std::to_string(i - it->first);
  }
};

bool IsFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The official archives unpack into a subfolder; accept its parent too.
std::string ResolveRoot(const std::string& input, bool cifar100) {
  for (const char* sub : cifar100 ? std::vector<const char*>{"cifar-100-binary", "cifar-100-python"}
                                  : std::vector<const char*>{"cifar-10-batches-bin", "cifar-10-batches-py"}) {
    std::error_code ec;
    if (fs::is_directory(fs::path(input) / sub, ec)) return (fs::path(input) / sub).string();
  }
  return input;
}

// data_batch_1..N, ordered by number (data_batch_10 after data_batch_9).
std::vector<std::string> Cifar10TrainFiles(const std::string& root, const std::string& ext) {
  std::vector<std::pair<long, std::string>> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("data_batch_", 0) != 0 || e.path().extension().string() != ext || !e.is_regular_file()) continue;
    std::string num = e.path().stem().string().substr(11);
    if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos) continue;
    found.emplace_back(std::stol(num), e.path().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found) out.push_back(f.second);
  return out;
}

Status AppendBinary(const std::string& path, bool cifar100, CifarSplit& s, ConvertContext& ctx) {
  auto read = ReadWholeFile(path);
  if (!read.ok()) return read.status().WithContext(path);
  const std::string& data = *read;
  const size_t rec = (cifar100 ? 2 : 1) + kPixels;
  size_t n = data.size() / rec;
  if (data.size() % rec != 0) {
    MR_RETURN_IF_ERROR(ctx.BadInput(path + " record " + std::to_string(n), Status::Corruption(
        "truncated: " + std::to_string(data.size()) + " bytes is not a whole number of " + std::to_string(rec) +
        "-byte records")));
  }
  s.origins.emplace_back(s.count(), path);
  for (size_t i = 0; i < n; ++i) {
    const char* r = data.data() + i * rec;
    if (cifar100) {
      s.coarse.push_back(static_cast<uint8_t>(r[0]));
      s.fine.push_back(static_cast<uint8_t>(r[1]));
    } else {
      s.fine.push_back(static_cast<uint8_t>(r[0]));
    }
    s.pixels.append(r + rec - kPixels, kPixels);
  }
  return Status::OK();
}

Status AppendPickle(const std::string& path, bool cifar100, CifarSplit& s, ConvertContext& ctx) {
  auto data = ReadWholeFile(path);
  if (!data.ok()) return data.status().WithContext(path);
  MR_ASSIGN_OR_RETURN(PickleRef root, ParsePickle(*data, path));
  if (root->kind != PickleValue::Kind::kDict) return Status::Corruption(path + ": pickle is not a dict (not a CIFAR batch)");
  MR_ASSIGN_OR_RETURN(NdArrayU8 arr, PickleToNdArrayU8(root->Get("data"), path + " 'data'"));
  if (arr.shape.size() != 2 || arr.shape[1] != static_cast<int64_t>(kPixels))
    return Status::Corruption(path + ": 'data' must be an N x 3072 uint8 array");
  std::vector<int64_t> fine, coarse;
  if (cifar100) {
    MR_ASSIGN_OR_RETURN(fine, PickleToIntList(root->Get("fine_labels"), path + " 'fine_labels'"));
    MR_ASSIGN_OR_RETURN(coarse, PickleToIntList(root->Get("coarse_labels"), path + " 'coarse_labels'"));
  } else {
    MR_ASSIGN_OR_RETURN(fine, PickleToIntList(root->Get("labels"), path + " 'labels'"));
  }
  size_t n = static_cast<size_t>(arr.shape[0]);
  size_t labels = fine.size();
  if (cifar100) labels = std::min(labels, coarse.size());
  if (labels != n || (cifar100 && fine.size() != coarse.size())) {
    MR_RETURN_IF_ERROR(ctx.BadInput(path, Status::Corruption(
        "counts disagree: " + std::to_string(n) + " images, " + std::to_string(fine.size()) + " labels" +
        (cifar100 ? ", " + std::to_string(coarse.size()) + " coarse labels" : std::string()) +
        "; the unmatched items are left out")));
    n = std::min(n, labels);
  }
  s.origins.emplace_back(s.count(), path);
  s.pixels.append(arr.data.data(), n * kPixels);
  s.fine.insert(s.fine.end(), fine.begin(), fine.begin() + static_cast<long>(n));
  if (cifar100) s.coarse.insert(s.coarse.end(), coarse.begin(), coarse.begin() + static_cast<long>(n));
  return Status::OK();
}

PlanResult PlanCifar(const std::string& input, ConvertContext& ctx, bool cifar100) {
  const std::string root = ResolveRoot(input, cifar100);
  // Which distribution: binary files win when both are present.
  std::vector<std::string> train, test;
  bool binary = false;
  if (cifar100) {
    if (IsFile(fs::path(root) / "train.bin") || IsFile(fs::path(root) / "test.bin")) {
      binary = true;
      for (auto [name, dst] : {std::pair{"train.bin", &train}, std::pair{"test.bin", &test}})
        if (IsFile(fs::path(root) / name)) dst->push_back((fs::path(root) / name).string());
    } else {
      for (auto [name, dst] : {std::pair{"train", &train}, std::pair{"test", &test}})
        if (IsFile(fs::path(root) / name)) dst->push_back((fs::path(root) / name).string());
    }
  } else {
    train = Cifar10TrainFiles(root, ".bin");
    binary = !train.empty() || IsFile(fs::path(root) / "test_batch.bin");
    if (binary) {
      if (IsFile(fs::path(root) / "test_batch.bin")) test.push_back((fs::path(root) / "test_batch.bin").string());
    } else {
      train = Cifar10TrainFiles(root, "");
      if (IsFile(fs::path(root) / "test_batch")) test.push_back((fs::path(root) / "test_batch").string());
    }
  }
  if (train.empty() && test.empty()) {
    return Status::NotFound(input + (cifar100 ? ": no CIFAR-100 files (train.bin/test.bin or python train/test)"
                                              : ": no CIFAR-10 files (data_batch_N[.bin], test_batch[.bin])"));
  }
  std::vector<Field> fields = {{"id", DataType::kInt64, false, {}}, {"data", DataType::kBytes, false, {}}};
  std::vector<std::string> index;
  if (cifar100) {
    fields.push_back({"fine_label", DataType::kInt64, false, {}});
    fields.push_back({"coarse_label", DataType::kInt64, false, {}});
    index = {"fine_label", "coarse_label"};
  } else {
    fields.push_back({"label", DataType::kInt64, false, {}});
    index = {"label"};
  }
  MR_ASSIGN_OR_RETURN(Schema schema, Schema::Make(fields, "img_schema"));
  std::vector<SplitPlan> plans;
  for (auto [split, files] : {std::pair<std::string, std::vector<std::string>*>{"train", &train}, {"test", &test}}) {
    if (files->empty() || (!ctx.options().split.empty() && ctx.options().split != split)) continue;
    auto s = std::make_shared<CifarSplit>();
    for (const auto& f : *files) {
      MR_RETURN_IF_ERROR(binary ? AppendBinary(f, cifar100, *s, ctx) : AppendPickle(f, cifar100, *s, ctx));
    }
    SplitPlan plan;
    plan.split = split;
    plan.schema = schema;
    plan.index_fields = index;
    plan.num_items = s->count();
    plan.item_name = [s](size_t i) { return s->Name(i); };
    const EncodeMode mode = ctx.options().encode;
    plan.make_row = [s, mode, cifar100](size_t i) -> Result<Row> {
      const int64_t fine = s->fine[i];
      if (fine >= (cifar100 ? 100 : 10))
        return Status::Corruption((cifar100 ? "fine label " : "label ") + std::to_string(fine) + " out of range");
      if (cifar100 && s->coarse[i] >= 20)
        return Status::Corruption("coarse label " + std::to_string(s->coarse[i]) + " out of range");
      // CHW planes -> HWC pixels.
      const auto* chw = reinterpret_cast<const uint8_t*>(s->pixels.data()) + i * kPixels;
      uint8_t hwc[kPixels];
      for (size_t p = 0; p < 1024; ++p) {
        hwc[3 * p] = chw[p];
        hwc[3 * p + 1] = chw[1024 + p];
        hwc[3 * p + 2] = chw[2048 + p];
      }
      MR_ASSIGN_OR_RETURN(std::string data, EncodePixels(hwc, 32, 32, 3, mode));
      Row row;
      row.Set("id", Value::Int(static_cast<int64_t>(i)));
      row.Set("data", Value::Bytes(std::move(data)));
      if (cifar100) {
        row.Set("fine_label", Value::Int(fine));
        row.Set("coarse_label", Value::Int(s->coarse[i]));
      } else {
        row.Set("label", Value::Int(fine));
      }
      return row;
    };
    plans.push_back(std::move(plan));
  }
  return plans;
}

}  // namespace

PlanResult PlanCifar10(const std::string& input, ConvertContext& ctx) { return PlanCifar(input, ctx, false); }
PlanResult PlanCifar100(const std::string& input, ConvertContext& ctx) { return PlanCifar(input, ctx, true); }

}  // namespace mindrecord::convert
