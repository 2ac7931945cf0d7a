// Truncate, TruncateSequencePair, SlidingWindow, Ngram, AddToken, ToNumber.
#include "pipeline/ops/text_sequence.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "pipeline/ops/layout.h"
#include "pipeline/ops/op_util.h"
#include "pipeline/ops/text_tokenizers.h"
#include "pipeline/strings.h"

namespace mindrecord::ops {

namespace {

bool IsSequence(const Tensor& t) {
  return t.type() != TensorType::kBytes && t.type() != TensorType::kString && t.defined();
}

// The elements idx[k] of `t` (flattened) as a tensor of `shape`, of t's type:
// strings or numbers.
Result<Tensor> Gather(const Tensor& t, const std::vector<int64_t>& idx, const Shape& shape) {
  if (t.type() == TensorType::kStrings) {
    MR_ASSIGN_OR_RETURN(std::vector<std::string_view> s, ReadStrings(t));
    StringsBuilder b;
    for (int64_t i : idx) b.Add(s[static_cast<size_t>(i)]);
    return b.Finish(shape);
  }
  const size_t es = TensorTypeSize(t.type());
  Tensor out = Tensor::Make(t.type(), shape);
  uint8_t* dst = out.MutableData();
  for (size_t k = 0; k < idx.size(); ++k) std::memcpy(dst + k * es, t.data() + static_cast<size_t>(idx[k]) * es, es);
  return out;
}

Status Expect(bool ok, const std::string& op, const std::string& what, const Tensor& t) {
  return ok ? Status::OK() : Status::InvalidArgument(op + ": expected " + what + ", got " + t.DebugString());
}

Result<int64_t> GetCount(const nlohmann::json& spec, const std::string& op, const char* key, int64_t lo) {
  if (!spec.contains(key)) return Status::InvalidArgument(op + ": parameter '" + key + "' is required");
  const nlohmann::json& v = spec[key];
  if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > INT32_MAX)
    return BadParameter(op, key, "must be an integer in [" + std::to_string(lo) + ", 2^31), got " + v.dump());
  return v.get<int64_t>();
}

}  // namespace

Result<std::unique_ptr<TensorOp>> TruncateOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "Truncate", {"max_seq_len"}));
  MR_ASSIGN_OR_RETURN(int64_t n, GetCount(spec, "Truncate", "max_seq_len", 1));
  return std::unique_ptr<TensorOp>(new TruncateOp(n));
}

Result<Tensor> TruncateOp::Apply(Tensor input, std::mt19937_64&) const {
  const size_t rank = input.shape().size();
  MR_RETURN_IF_ERROR(Expect(IsSequence(input) && (rank == 1 || rank == 2), "Truncate",
                            "a 1-D or 2-D array of strings or numbers", input));
  const int64_t rows = rank == 1 ? 1 : input.shape()[0], cols = input.shape()[rank - 1];
  const int64_t keep = std::min(cols, max_);
  if (keep == cols) return input;
  std::vector<int64_t> idx;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < keep; ++c) idx.push_back(r * cols + c);
  Shape shape = input.shape();
  shape[rank - 1] = keep;
  return Gather(input, idx, shape);
}

Result<std::unique_ptr<TensorOp>> TruncateSequencePairOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "TruncateSequencePair", {"max_length"}));
  MR_ASSIGN_OR_RETURN(int64_t n, GetCount(spec, "TruncateSequencePair", "max_length", 0));
  return std::unique_ptr<TensorOp>(new TruncateSequencePairOp(n));
}

Result<Tensor> TruncateSequencePairOp::Apply(Tensor, std::mt19937_64&) const {
  return Status::InvalidArgument("TruncateSequencePair: takes two columns");
}

Result<std::vector<Tensor>> TruncateSequencePairOp::ApplyColumns(std::vector<Tensor> in, std::mt19937_64&) const {
  if (in.size() != 2) return Status::InvalidArgument("TruncateSequencePair: takes two columns");
  for (const Tensor& t : in)
    MR_RETURN_IF_ERROR(Expect(IsSequence(t) && t.shape().size() == 1, "TruncateSequencePair",
                              "1-D arrays of strings or numbers", t));
  int64_t a = in[0].shape()[0], b = in[1].shape()[0];
  while (a + b > max_) {
    if (a > b)
      --a;
    else
      --b;
  }
  std::vector<Tensor> out;
  for (size_t i = 0; i < 2; ++i) {
    const int64_t keep = i == 0 ? a : b;
    if (keep == in[i].shape()[0]) {
      out.push_back(std::move(in[i]));
      continue;
    }
    std::vector<int64_t> idx(static_cast<size_t>(keep));
    for (int64_t k = 0; k < keep; ++k) idx[static_cast<size_t>(k)] = k;
    MR_ASSIGN_OR_RETURN(Tensor t, Gather(in[i], idx, Shape{keep}));
    out.push_back(std::move(t));
  }
  return out;
}

Result<std::unique_ptr<TensorOp>> SlidingWindowOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "SlidingWindow", {"width", "axis"}));
  MR_ASSIGN_OR_RETURN(int64_t w, GetCount(spec, "SlidingWindow", "width", 1));
  MR_ASSIGN_OR_RETURN(int axis, GetIntIn(spec, "SlidingWindow", "axis", -1, 0, 0));
  (void)axis;  // 0 and -1 both name the one axis of the 1-D input
  return std::unique_ptr<TensorOp>(new SlidingWindowOp(w));
}

Result<Tensor> SlidingWindowOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_RETURN_IF_ERROR(Expect(IsSequence(input) && input.shape().size() == 1, "SlidingWindow",
                            "a 1-D array of strings or numbers", input));
  const int64_t n = input.shape()[0];
  if (n < width_) return Gather(input, {}, Shape{0});
  std::vector<int64_t> idx;
  for (int64_t s = 0; s + width_ <= n; ++s)
    for (int64_t k = 0; k < width_; ++k) idx.push_back(s + k);
  return Gather(input, idx, Shape{n - width_ + 1, width_});
}

Result<std::unique_ptr<TensorOp>> NgramOp::Make(const nlohmann::json& spec) {
  const std::string op = "Ngram";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"n", "left_pad", "right_pad", "separator"}));
  auto ngram = std::unique_ptr<NgramOp>(new NgramOp());
  if (!spec.contains("n") || !spec["n"].is_array() || spec["n"].empty())
    return BadParameter(op, "n", "must be a non-empty list of integers");
  for (const auto& v : spec["n"]) {
    if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > INT32_MAX)
      return BadParameter(op, "n", "must hold integers in [1, 2^31), got " + v.dump());
    ngram->n_.push_back(static_cast<int>(v.get<int64_t>()));
  }
  auto pad = [&](const char* key, std::string* token, int* width) -> Status {
    if (!spec.contains(key)) return Status::OK();
    const nlohmann::json& p = spec[key];
    if (!p.is_array() || p.size() != 2 || !p[0].is_string() || !p[1].is_number_integer() || p[1].get<int64_t>() < 0 ||
        p[1].get<int64_t>() > INT32_MAX)
      return BadParameter(op, key, "must be [token, width >= 0], got " + p.dump());
    *token = p[0].get<std::string>();
    *width = static_cast<int>(p[1].get<int64_t>());
    return Status::OK();
  };
  MR_RETURN_IF_ERROR(pad("left_pad", &ngram->left_, &ngram->left_width_));
  MR_RETURN_IF_ERROR(pad("right_pad", &ngram->right_, &ngram->right_width_));
  MR_ASSIGN_OR_RETURN(ngram->separator_, GetString(spec, op, "separator", " "));
  return std::unique_ptr<TensorOp>(std::move(ngram));
}

nlohmann::json NgramOp::ToJson() const {
  return {{"op", "Ngram"},
          {"n", n_},
          {"left_pad", {left_, left_width_}},
          {"right_pad", {right_, right_width_}},
          {"separator", separator_}};
}

Result<Tensor> NgramOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_RETURN_IF_ERROR(Expect(input.type() == TensorType::kStrings && input.shape().size() == 1, "Ngram",
                            "a 1-D array of strings", input));
  MR_ASSIGN_OR_RETURN(std::vector<std::string_view> words, ReadStrings(input));
  StringsBuilder out;
  std::string gram;
  const auto len = static_cast<int64_t>(words.size());
  for (int n : n_) {
    // The padded sequence: min(n - 1, width) pads on each side.
    const int64_t lp = std::min<int64_t>(n - 1, left_width_), rp = std::min<int64_t>(n - 1, right_width_);
    const int64_t total = lp + len + rp;
    if (total < n) {
      out.Add("");
      continue;
    }
    auto at = [&](int64_t i) -> std::string_view {
      if (i < lp) return left_;
      if (i < lp + len) return words[static_cast<size_t>(i - lp)];
      return right_;
    };
    for (int64_t s = 0; s + n <= total; ++s) {
      gram.clear();
      for (int64_t k = 0; k < n; ++k) {
        if (k) gram += separator_;
        gram += at(s + k);
      }
      out.Add(gram);
    }
  }
  return out.Finish();
}

Result<std::unique_ptr<TensorOp>> AddTokenOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "AddToken", {"token", "begin"}));
  if (!spec.contains("token") || !spec["token"].is_string())
    return BadParameter("AddToken", "token", "must be a string");
  MR_ASSIGN_OR_RETURN(bool begin, GetBool(spec, "AddToken", "begin", true));
  return std::unique_ptr<TensorOp>(new AddTokenOp(spec["token"].get<std::string>(), begin));
}

Result<Tensor> AddTokenOp::Apply(Tensor input, std::mt19937_64&) const {
  const size_t rank = input.shape().size();
  MR_RETURN_IF_ERROR(Expect(input.type() == TensorType::kStrings && (rank == 1 || rank == 2), "AddToken",
                            "a 1-D or 2-D array of strings", input));
  MR_ASSIGN_OR_RETURN(std::vector<std::string_view> s, ReadStrings(input));
  const int64_t rows = rank == 1 ? 1 : input.shape()[0], cols = input.shape()[rank - 1];
  StringsBuilder b;
  for (int64_t r = 0; r < rows; ++r) {
    if (begin_) b.Add(token_);
    for (int64_t c = 0; c < cols; ++c) b.Add(s[static_cast<size_t>(r * cols + c)]);
    if (!begin_) b.Add(token_);
  }
  Shape shape = input.shape();
  shape[rank - 1] = cols + 1;
  return b.Finish(shape);
}

Result<std::unique_ptr<TensorOp>> ToNumberOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "ToNumber", {"data_type"}));
  MR_ASSIGN_OR_RETURN(TensorType type, GetNumericType(spec, "ToNumber", "data_type", ""));
  if (type == TensorType::kBool) return BadParameter("ToNumber", "data_type", "must be an integer or float type");
  return std::unique_ptr<TensorOp>(new ToNumberOp(type));
}

namespace {

// `s` as a number of `type` (stored at `dst`); false when it is not one or
// lies outside the type's range.
template <typename T>
bool ParseInt(std::string_view s, uint8_t* dst) {
  int64_t v = 0;
  const char* first = s.data();
  if (!s.empty() && s[0] == '+') ++first;
  auto [end, ec] = std::from_chars(first, s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || first == end) return false;
  if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) return false;
  const T x = static_cast<T>(v);
  std::memcpy(dst, &x, sizeof x);
  return true;
}

template <typename T>
bool ParseFloat(std::string_view s, uint8_t* dst) {
  const std::string z(s);  // strtod needs the terminating NUL
  if (z.empty() || std::isspace(static_cast<unsigned char>(z[0]))) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(z.c_str(), &end);
  if (end != z.c_str() + z.size()) return false;
  if (std::isfinite(v) && (errno == ERANGE || std::fabs(v) > std::numeric_limits<T>::max())) return false;
  const T x = static_cast<T>(v);
  std::memcpy(dst, &x, sizeof x);
  return true;
}

}  // namespace

Result<Tensor> ToNumberOp::Apply(Tensor input, std::mt19937_64&) const {
  Shape shape;
  MR_ASSIGN_OR_RETURN(std::vector<std::string_view> items, StringsOf(input, "ToNumber", &shape));
  Tensor out = Tensor::Make(type_, shape);
  uint8_t* dst = out.MutableData();
  const size_t es = TensorTypeSize(type_);
  for (size_t i = 0; i < items.size(); ++i) {
    bool ok = false;
    switch (type_) {
      case TensorType::kUInt8: ok = ParseInt<uint8_t>(items[i], dst + i * es); break;
      case TensorType::kInt8: ok = ParseInt<int8_t>(items[i], dst + i * es); break;
      case TensorType::kInt16: ok = ParseInt<int16_t>(items[i], dst + i * es); break;
      case TensorType::kInt32: ok = ParseInt<int32_t>(items[i], dst + i * es); break;
      case TensorType::kInt64: ok = ParseInt<int64_t>(items[i], dst + i * es); break;
      case TensorType::kFloat32: ok = ParseFloat<float>(items[i], dst + i * es); break;
      case TensorType::kFloat64: ok = ParseFloat<double>(items[i], dst + i * es); break;
      default: break;
    }
    if (!ok)
      return Status::InvalidArgument("ToNumber: \"" + std::string(items[i]) + "\" is not a number of type " +
                                     TensorTypeName(type_) + " (or lies outside its range)");
  }
  return out;
}

}  // namespace mindrecord::ops
