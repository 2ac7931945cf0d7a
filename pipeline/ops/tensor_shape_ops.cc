#include "pipeline/ops/tensor_shape_ops.h"

#include <cstring>
#include <limits>
#include <numeric>

#include "pipeline/strings.h"

namespace mindrecord::ops {

namespace {

constexpr int64_t kMaxOutputBytes = int64_t{1} << 40;

std::string ShapeText(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + (s[i] < 0 ? std::string("None") : std::to_string(s[i]));
  return out + "]";
}

bool IsInt64(const nlohmann::json& v) {
  return v.is_number_integer() &&
         (!v.is_number_unsigned() || v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
}

Result<SliceDim> ParseSliceDim(const nlohmann::json& j, size_t k) {
  const std::string where = "Slice: parameter 'slices' entry " + std::to_string(k);
  SliceDim d;
  if (j.is_boolean()) {
    if (!j.get<bool>())
      return Status::InvalidArgument(where + " is false, which selects nothing (MindSpore refuses it too)");
    return d;
  }
  if (j.is_array()) {
    if (j.empty()) return Status::InvalidArgument(where + " is an empty list of indices");
    d.kind = SliceDim::Kind::kIndices;
    for (const auto& v : j) {
      if (!IsInt64(v)) return Status::InvalidArgument(where + ": indices must be int64 integers, got " + j.dump());
      d.indices.push_back(v.get<int64_t>());
    }
    return d;
  }
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.key() != "start" && it.key() != "stop" && it.key() != "step")
        return Status::InvalidArgument(where + ": unknown key '" + it.key() + "' (start, stop, step)");
    if (!j.contains("start") || !j.contains("stop") || !IsInt64(j["start"]) || !IsInt64(j["stop"]) ||
        (j.contains("step") && !IsInt64(j["step"])))
      return Status::InvalidArgument(where + ": a range needs integer start and stop (and step), got " + j.dump());
    d.kind = SliceDim::Kind::kRange;
    d.start = j["start"].get<int64_t>();
    d.stop = j["stop"].get<int64_t>();
    d.step = j.value("step", int64_t{1});
    if (d.step == 0) return Status::InvalidArgument(where + ": step must not be 0");
    return d;
  }
  return Status::InvalidArgument(where + " must be true, a list of indices or {\"start\", \"stop\", \"step\"}, got " +
                                 j.dump());
}

// The indices `d` takes along a dimension of size n (MindSpore's bounds rules).
Result<std::vector<int64_t>> Indices(const SliceDim* d, int64_t n, size_t dim) {
  std::vector<int64_t> out;
  if (d == nullptr || d->kind == SliceDim::Kind::kAll) {
    out.resize(static_cast<size_t>(n));
    std::iota(out.begin(), out.end(), int64_t{0});
  } else if (d->kind == SliceDim::Kind::kIndices) {
    for (int64_t v : d->indices) {
      const int64_t w = v < 0 ? v + n : v;
      if (w < 0 || w >= n)
        return Status::InvalidArgument("Slice: index " + std::to_string(v) + " is out of bounds for dimension " +
                                       std::to_string(dim) + " of size " + std::to_string(n));
      out.push_back(w);
    }
  } else {
    auto bound = [n](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + n : v, 0, n); };
    int64_t a = bound(d->start);
    const int64_t b = bound(d->stop);
    if (d->step > 0) {
      for (int64_t i = a; i < b; i += d->step) {
        out.push_back(i);
        if (d->step >= b - i) break;  // the next index is past the end (and i + step may overflow)
      }
    } else {
      a = std::min(a, n - 1);
      for (int64_t i = a; i > b; i += d->step) out.push_back(i);
    }
  }
  return out;
}

// Copies the leading block min(src, dst) along every dimension of `src` into
// `dst` (both row-major, elements of `es` bytes).
void CopyBlock(const uint8_t* src, const std::vector<int64_t>& s, uint8_t* dst, const std::vector<int64_t>& d,
               size_t es, size_t dim) {
  const int64_t n = std::min(s[dim], d[dim]);
  if (dim + 1 == s.size()) {
    if (n > 0) std::memcpy(dst, src, static_cast<size_t>(n) * es);
    return;
  }
  int64_t ss = 1, ds = 1;
  for (size_t k = dim + 1; k < s.size(); ++k) ss *= s[k], ds *= d[k];
  for (int64_t i = 0; i < n; ++i)
    CopyBlock(src + i * ss * static_cast<int64_t>(es), s, dst + i * ds * static_cast<int64_t>(es), d, es, dim + 1);
}

Result<Tensor> ParseArray(const nlohmann::json& j, const std::string& key) {
  const std::string where = "Concatenate: parameter '" + key + "'";
  if (!j.is_object() || !j.contains("dtype") || !j["dtype"].is_string() || !j.contains("values") ||
      !j["values"].is_array() || j.size() != 2)
    return Status::InvalidArgument(where + " must be {\"dtype\": name, \"values\": [...]}, got " + j.dump());
  if (j["dtype"].get<std::string>() == "strings") {  // an array of strings (MindSpore's "[CLS]" / "[SEP]")
    std::vector<std::string> items;
    for (const auto& v : j["values"]) {
      if (!v.is_string()) return Status::InvalidArgument(where + ": strings values must be strings, got " + v.dump());
      items.push_back(v.get<std::string>());
    }
    return MakeStrings(Shape{static_cast<int64_t>(items.size())}, std::span<const std::string>(items));
  }
  auto type = ParseTensorType(j["dtype"].get<std::string>());
  if (!type.ok()) return type.status().WithContext(where);
  if (!IsNumericType(*type))
    return Status::InvalidArgument(where + ": dtype must be numeric, got " + j["dtype"].dump());
  const auto& values = j["values"];
  Tensor t = Tensor::Make(*type, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) {
    MR_ASSIGN_OR_RETURN(Scalar s, ParseScalar(values[i], "Concatenate", key));
    if (s.is_text())
      return Status::InvalidArgument(where + ": values must be numbers or bools, got " + values[i].dump());
    VisitNumeric(*type, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool>)
        t.MutableData()[i] = s.As<bool>();
      else
        t.mutable_data_as<T>()[i] = s.As<T>();
    });
  }
  return t;
}

nlohmann::json ArrayJson(const Tensor& t) {
  nlohmann::json values = nlohmann::json::array();
  if (t.type() == TensorType::kStrings) {
    const Result<std::vector<std::string_view>> items = ReadStrings(t);  // made by ParseArray: well formed
    if (items.ok())
      for (std::string_view x : items.value()) values.push_back(std::string(x));
    return {{"dtype", "strings"}, {"values", values}};
  }
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    Scalar s;
    VisitNumeric(t.type(), [&](auto tag) {
      using T = decltype(tag);
      const T v = LoadElement<T>(t.data(), i);
      if constexpr (std::is_same_v<T, bool>) {
        s.kind = Scalar::Kind::kBool;
        s.b = v;
      } else if constexpr (std::is_floating_point_v<T>) {
        s.kind = Scalar::Kind::kFloat;
        s.f = v;
      } else {
        s.i = v;
      }
    });
    values.push_back(s.ToJson());
  }
  return {{"dtype", TensorTypeName(t.type())}, {"values", values}};
}

}  // namespace

// ---- Slice ------------------------------------------------------------------

nlohmann::json SliceDim::ToJson() const {
  switch (kind) {
    case Kind::kAll:
      return true;
    case Kind::kIndices:
      return indices;
    default:
      return {{"start", start}, {"stop", stop}, {"step", step}};
  }
}

namespace {

// Slice of an array of strings: the strings at the indices idx[d] along each
// dimension (input strides `stride`, in elements).
Result<Tensor> SliceStrings(const Tensor& in, const std::vector<std::vector<int64_t>>& idx,
                            const std::vector<int64_t>& stride, const std::vector<int64_t>& out_shape) {
  MR_ASSIGN_OR_RETURN(std::vector<std::string_view> items, ReadStrings(in));
  StringsBuilder b;
  const size_t rank = idx.size();
  const bool empty = std::any_of(idx.begin(), idx.end(), [](const auto& v) { return v.empty(); });
  std::vector<size_t> pos(rank, 0);  // odometer over the output
  while (!empty) {
    int64_t at = 0;
    for (size_t d = 0; d < rank; ++d) at += idx[d][pos[d]] * stride[d];
    b.Add(items[static_cast<size_t>(at)]);
    size_t d = rank;
    while (d > 0 && ++pos[d - 1] == idx[d - 1].size()) pos[--d] = 0;
    if (d == 0) break;
  }
  return b.Finish(Shape(out_shape));
}

// PadEnd of an array of strings: `target` holds `shape`'s strings at the
// same indices and `pad` elsewhere.
Result<Tensor> PadStrings(const Tensor& in, const std::vector<int64_t>& shape, const std::vector<int64_t>& target,
                          std::string_view pad) {
  MR_ASSIGN_OR_RETURN(std::vector<std::string_view> items, ReadStrings(in));
  const size_t rank = shape.size();
  int64_t total = 1;
  for (int64_t d : target) total *= d;
  StringsBuilder b;
  std::vector<int64_t> pos(rank, 0);
  for (int64_t k = 0; k < total; ++k) {
    bool inside = true;
    int64_t at = 0;
    for (size_t d = 0; d < rank; ++d) {
      inside = inside && pos[d] < shape[d];
      at = at * shape[d] + pos[d];
    }
    b.Add(inside ? items[static_cast<size_t>(at)] : pad);
    for (size_t d = rank; d-- > 0;) {
      if (++pos[d] < target[d]) break;
      pos[d] = 0;
    }
  }
  return b.Finish(Shape(target));
}

}  // namespace

Result<std::unique_ptr<TensorOp>> SliceOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "Slice", {"slices"}));
  std::vector<SliceDim> dims;
  if (spec.contains("slices")) {
    if (!spec["slices"].is_array())
      return Status::InvalidArgument("Slice: parameter 'slices' must be a list, got " + spec["slices"].dump());
    for (size_t k = 0; k < spec["slices"].size(); ++k) {
      MR_ASSIGN_OR_RETURN(SliceDim d, ParseSliceDim(spec["slices"][k], k));
      dims.push_back(std::move(d));
    }
  }
  return std::unique_ptr<TensorOp>(new SliceOp(std::move(dims)));
}

nlohmann::json SliceOp::ToJson() const {
  nlohmann::json slices = nlohmann::json::array();
  for (const auto& d : dims_) slices.push_back(d.ToJson());
  return {{"op", "Slice"}, {"slices", slices}};
}

Result<Tensor> SliceOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  if (!input.defined()) return Status::InvalidArgument("Slice: input tensor is undefined");
  if (dims_.empty()) return input;  // every dimension whole
  const Tensor in = AsMindSporeArray(input);
  if (in.type() == TensorType::kString)
    return Status::InvalidArgument("Slice: a string value is a scalar; it has no dimension to slice");
  const std::vector<int64_t> shape(in.shape().begin(), in.shape().end());
  const size_t rank = shape.size();
  if (dims_.size() > rank)
    return Status::InvalidArgument("Slice: " + std::to_string(dims_.size()) + " slices for " + in.DebugString() +
                                   " of rank " + std::to_string(rank));
  std::vector<std::vector<int64_t>> idx(rank);
  std::vector<int64_t> out_shape(rank);
  for (size_t d = 0; d < rank; ++d) {
    MR_ASSIGN_OR_RETURN(idx[d], Indices(d < dims_.size() ? &dims_[d] : nullptr, shape[d], d));
    out_shape[d] = static_cast<int64_t>(idx[d].size());
  }
  std::vector<int64_t> stride(rank, 1);  // of the input, in elements
  for (size_t d = rank - 1; d > 0; --d) stride[d - 1] = stride[d] * shape[d];
  if (in.type() == TensorType::kStrings) return SliceStrings(in, idx, stride, out_shape);
  Tensor out = Tensor::Make(in.type(), out_shape);
  if (out.num_elements() == 0) return out;
  const size_t es = TensorTypeSize(in.type());
  const std::vector<int64_t>& last = idx[rank - 1];
  const bool run = last.back() - last.front() + 1 == static_cast<int64_t>(last.size()) &&
                   std::is_sorted(last.begin(), last.end());  // consecutive: one memcpy per row
  const uint8_t* src = in.data();
  uint8_t* dst = out.MutableData();
  std::vector<size_t> pos(rank, 0);  // odometer over the output's leading dimensions
  while (true) {
    int64_t base = 0;
    for (size_t d = 0; d + 1 < rank; ++d) base += idx[d][pos[d]] * stride[d];
    if (run) {
      std::memcpy(dst, src + (base + last.front()) * static_cast<int64_t>(es), last.size() * es);
      dst += last.size() * es;
    } else {
      for (int64_t i : last) {
        std::memcpy(dst, src + (base + i) * static_cast<int64_t>(es), es);
        dst += es;
      }
    }
    size_t d = rank - 1;
    while (d > 0 && ++pos[d - 1] == idx[d - 1].size()) pos[--d] = 0;
    if (d == 0) break;
  }
  return out;
}

// ---- PadEnd -----------------------------------------------------------------

Result<std::unique_ptr<TensorOp>> PadEndOp::Make(const nlohmann::json& spec) {
  const std::string op = "PadEnd";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"pad_shape", "pad_value"}));
  if (!spec.contains("pad_shape") || !spec["pad_shape"].is_array())
    return Status::InvalidArgument(op + ": parameter 'pad_shape' must be a list of sizes (or null), got " +
                                   (spec.contains("pad_shape") ? spec["pad_shape"].dump() : std::string("nothing")));
  std::vector<int64_t> shape;
  for (const auto& v : spec["pad_shape"]) {
    if (v.is_null()) {
      shape.push_back(-1);
    } else if (IsInt64(v) && v.get<int64_t>() >= 1) {
      shape.push_back(v.get<int64_t>());
    } else {
      return Status::InvalidArgument(op + ": parameter 'pad_shape' must hold integers >= 1 or null, got " +
                                     spec["pad_shape"].dump());
    }
  }
  Scalar value;
  const bool has_value = spec.contains("pad_value") && !spec["pad_value"].is_null();
  if (has_value) {
    MR_ASSIGN_OR_RETURN(value, ParseScalar(spec["pad_value"], op, "pad_value"));
  }
  return std::unique_ptr<TensorOp>(new PadEndOp(std::move(shape), has_value, std::move(value)));
}

nlohmann::json PadEndOp::ToJson() const {
  nlohmann::json shape = nlohmann::json::array();
  for (int64_t d : shape_) shape.push_back(d < 0 ? nlohmann::json(nullptr) : nlohmann::json(d));
  return {
      {"op", "PadEnd"}, {"pad_shape", shape}, {"pad_value", has_value_ ? value_.ToJson() : nlohmann::json(nullptr)}};
}

Result<Tensor> PadEndOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  if (!input.defined()) return Status::InvalidArgument("PadEnd: input tensor is undefined");
  const Tensor in = AsMindSporeArray(input);
  const bool text = in.type() == TensorType::kString || in.type() == TensorType::kStrings;
  if (has_value_ && text != value_.is_text())
    return Status::InvalidArgument("PadEnd: pad_value " + value_.DebugString() + " and the input (" + in.DebugString() +
                                   ") must both be numeric or both be strings");
  const std::vector<int64_t> shape(in.shape().begin(), in.shape().end());
  if (in.type() == TensorType::kString || shape.empty()) return input;  // scalars: nothing to pad
  if (shape_.size() != shape.size())
    return Status::InvalidArgument("PadEnd: pad_shape " + ShapeText(shape_) + " has " + std::to_string(shape_.size()) +
                                   " dimensions, the input " + in.DebugString() + " " + std::to_string(shape.size()));
  std::vector<int64_t> target(shape.size());
  int64_t elems = 1;
  const auto es = static_cast<int64_t>(TensorTypeSize(in.type()));
  for (size_t d = 0; d < shape.size(); ++d) {
    target[d] = shape_[d] < 0 ? shape[d] : shape_[d];
    if (target[d] > 0 && elems > kMaxOutputBytes / es / target[d])
      return Status::InvalidArgument("PadEnd: pad_shape " + ShapeText(shape_) + " makes a tensor over 1 TiB");
    elems *= target[d];
  }
  if (target == shape) return input;
  if (text) return PadStrings(in, shape, target, has_value_ ? std::string_view(value_.text) : std::string_view());
  Tensor out = Tensor::Make(in.type(), target);
  const float v = has_value_ ? value_.As<float>() : 0.0f;  // MindSpore casts pad_value to float32 first
  VisitNumeric(in.type(), [&](auto tag) {
    using T = decltype(tag);
    FillElements<T>(out.MutableData(), elems, CastElement<T>(v));
  });
  if (in.num_elements() > 0 && elems > 0) CopyBlock(in.data(), shape, out.MutableData(), target, es, 0);
  return out;
}

// ---- Concatenate ------------------------------------------------------------

Result<std::unique_ptr<TensorOp>> ConcatenateOp::Make(const nlohmann::json& spec) {
  const std::string op = "Concatenate";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"axis", "prepend", "append"}));
  int axis = 0;
  if (spec.contains("axis")) {
    if (!IsInt64(spec["axis"]) || (spec["axis"].get<int64_t>() != 0 && spec["axis"].get<int64_t>() != -1))
      return Status::InvalidArgument(op + ": parameter 'axis' must be 0 or -1 (1-D concatenation only), got " +
                                     spec["axis"].dump());
    axis = static_cast<int>(spec["axis"].get<int64_t>());
  }
  Tensor ends[2];
  const char* keys[2] = {"prepend", "append"};
  for (int k = 0; k < 2; ++k) {
    if (spec.contains(keys[k]) && !spec[keys[k]].is_null()) {
      MR_ASSIGN_OR_RETURN(ends[k], ParseArray(spec[keys[k]], keys[k]));
    }
  }
  return std::unique_ptr<TensorOp>(new ConcatenateOp(axis, std::move(ends[0]), std::move(ends[1])));
}

nlohmann::json ConcatenateOp::ToJson() const {
  return {{"op", "Concatenate"},
          {"axis", axis_},
          {"prepend", prepend_.defined() ? ArrayJson(prepend_) : nlohmann::json(nullptr)},
          {"append", append_.defined() ? ArrayJson(append_) : nlohmann::json(nullptr)}};
}

Result<Tensor> ConcatenateOp::Apply(Tensor input, std::mt19937_64& rng) const {
  std::vector<Tensor> one;
  one.push_back(std::move(input));
  MR_ASSIGN_OR_RETURN(auto out, ApplyColumns(std::move(one), rng));
  return std::move(out[0]);
}

Result<std::vector<Tensor>> ConcatenateOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& /*rng*/) const {
  if (inputs.empty()) return Status::InvalidArgument("Concatenate: takes one column or more, got none");
  std::vector<Tensor> parts;
  if (prepend_.defined()) parts.push_back(prepend_);
  for (const Tensor& t : inputs) {
    if (!t.defined()) return Status::InvalidArgument("Concatenate: input tensor is undefined");
    parts.push_back(AsMindSporeArray(t));
  }
  if (append_.defined()) parts.push_back(append_);
  const Tensor& first = parts[prepend_.defined() ? 1 : 0];
  const TensorType type = first.type();
  int64_t total = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Tensor& t = parts[i];
    const bool is_prepend = prepend_.defined() && i == 0, is_append = append_.defined() && i + 1 == parts.size();
    const std::string what = is_prepend ? "prepend" : is_append ? "append" : "input " + t.DebugString();
    if (t.type() == TensorType::kString)
      return Status::InvalidArgument("Concatenate: " + what + " is a string value, a scalar; only 1-D arrays join");
    if (t.shape().size() != 1)
      return Status::InvalidArgument("Concatenate: only 1-D inputs are supported (axis " + std::to_string(axis_) +
                                     "), got " + what);
    if (t.type() != type)
      return Status::InvalidArgument("Concatenate: " + what + " is " + TensorTypeName(t.type()) +
                                     "; every input must have the first input's type, " + TensorTypeName(type));
    total += t.shape()[0];
  }
  if (type == TensorType::kStrings) {
    StringsBuilder b;
    for (const Tensor& t : parts) {
      MR_ASSIGN_OR_RETURN(std::vector<std::string_view> items, ReadStrings(t));
      for (std::string_view x : items) b.Add(x);
    }
    std::vector<Tensor> result;
    result.push_back(b.Finish());
    return result;
  }
  Tensor out = Tensor::Make(type, {total});
  uint8_t* dst = out.MutableData();
  for (const Tensor& t : parts) {
    if (t.size_bytes() > 0) std::memcpy(dst, t.data(), t.size_bytes());
    dst += t.size_bytes();
  }
  std::vector<Tensor> result;
  result.push_back(std::move(out));
  return result;
}

}  // namespace mindrecord::ops
