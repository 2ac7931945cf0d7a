#include "pipeline/ops/tensor_ops.h"

#include <cstring>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "pipeline/ops/layout.h"
#include "pipeline/strings.h"

namespace mindrecord::ops {

namespace {

constexpr std::pair<const char*, Relational> kRelations[] = {
    {"EQ", Relational::kEQ}, {"NE", Relational::kNE}, {"GT", Relational::kGT},
    {"GE", Relational::kGE}, {"LT", Relational::kLT}, {"LE", Relational::kLE},
};

template <typename T>
bool Compare(Relational rel, const T& x, const T& c) {
  switch (rel) {
    case Relational::kEQ:
      return x == c;
    case Relational::kNE:
      return x != c;
    case Relational::kGT:
      return x > c;
    case Relational::kGE:
      return x >= c;
    case Relational::kLT:
      return x < c;
    default:
      return x <= c;
  }
}

std::string_view Text(const Tensor& t) { return {reinterpret_cast<const char*>(t.data()), t.size_bytes()}; }

// A multi-column op's one input, checked.
Result<Tensor> OneInput(std::vector<Tensor>& inputs, const std::string& op) {
  if (inputs.size() != 1) return Status::InvalidArgument(op + ": takes 1 column, got " + std::to_string(inputs.size()));
  if (!inputs[0].defined()) return Status::InvalidArgument(op + ": input tensor is undefined");
  return std::move(inputs[0]);
}

template <typename T>
Status UniqueOf(const Tensor& in, std::vector<Tensor>* out) {
  if constexpr (std::is_same_v<T, bool>) {
    return Status::Internal("Unique: bool input reached the kernel");
  } else {
    const int64_t n = in.num_elements();
    Tensor idx = Tensor::Make(TensorType::kInt32, {n});
    int32_t* ix = idx.mutable_data_as<int32_t>();
    std::unordered_map<T, int32_t> seen;
    seen.reserve(static_cast<size_t>(n));
    std::vector<T> values;  // in first-occurrence order
    const T* x = in.data_as<T>();
    for (int64_t i = 0; i < n; ++i) {
      auto [it, added] = seen.emplace(x[i], static_cast<int32_t>(values.size()));
      if (added) values.push_back(x[i]);
      ix[i] = it->second;
    }
    const auto u = static_cast<int64_t>(values.size());
    Tensor uniq = Tensor::Make(in.type(), {u});
    if (u > 0) std::memcpy(uniq.MutableData(), values.data(), values.size() * sizeof(T));
    Tensor cnt = Tensor::Make(TensorType::kInt32, {u});
    int32_t* c = cnt.mutable_data_as<int32_t>();
    std::fill(c, c + u, 0);
    for (int64_t i = 0; i < n; ++i) ++c[ix[i]];
    out->push_back(std::move(uniq));
    out->push_back(std::move(idx));
    out->push_back(std::move(cnt));
    return Status::OK();
  }
}

}  // namespace

// ---- Fill -------------------------------------------------------------------

Result<std::unique_ptr<TensorOp>> FillOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "Fill", {"fill_value"}));
  if (!spec.contains("fill_value")) return Status::InvalidArgument("Fill: parameter 'fill_value' is required");
  MR_ASSIGN_OR_RETURN(Scalar v, ParseScalar(spec["fill_value"], "Fill", "fill_value"));
  return std::unique_ptr<TensorOp>(new FillOp(std::move(v)));
}

Result<Tensor> FillOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  if (!input.defined()) return Status::InvalidArgument("Fill: input tensor is undefined");
  const Tensor in = AsMindSporeArray(input);
  if (in.type() == TensorType::kString) {
    if (!value_.is_text())
      return Status::InvalidArgument("Fill: fill_value " + value_.DebugString() +
                                     " is not a string, but the input is a string");
    return Tensor::FromString(TensorType::kString, value_.text);
  }
  if (in.type() == TensorType::kStrings) {
    if (!value_.is_text())
      return Status::InvalidArgument("Fill: fill_value " + value_.DebugString() +
                                     " is not a string, but the input is an array of strings");
    std::vector<std::string_view> items(static_cast<size_t>(in.num_elements()), value_.text);
    return MakeStrings(in.shape(), std::span<const std::string_view>(items));
  }
  if (value_.is_text())
    return Status::InvalidArgument("Fill: fill_value is a string, but the input is " + in.DebugString() + " (numeric)");
  Tensor out = Tensor::Make(in.type(), in.shape());
  VisitNumeric(in.type(), [&](auto tag) {
    using T = decltype(tag);
    FillElements<T>(out.MutableData(), out.num_elements(), value_.As<T>());
  });
  return out;
}

// ---- Mask -------------------------------------------------------------------

Result<std::unique_ptr<TensorOp>> MaskOp::Make(const nlohmann::json& spec) {
  const std::string op = "Mask";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"operator", "constant", "dtype"}));
  MR_ASSIGN_OR_RETURN(std::string name, GetString(spec, op, "operator", ""));
  const Relational* rel = nullptr;
  for (const auto& [n, r] : kRelations)
    if (name == n) rel = &r;
  if (rel == nullptr)
    return Status::InvalidArgument(op + ": parameter 'operator' must be one of EQ, NE, GT, GE, LT, LE, got " +
                                   (spec.contains("operator") ? spec["operator"].dump() : std::string("nothing")));
  if (!spec.contains("constant")) return Status::InvalidArgument(op + ": parameter 'constant' is required");
  MR_ASSIGN_OR_RETURN(Scalar constant, ParseScalar(spec["constant"], op, "constant"));
  MR_ASSIGN_OR_RETURN(TensorType dtype, GetNumericType(spec, op, "dtype", "bool"));
  return std::unique_ptr<TensorOp>(new MaskOp(*rel, std::move(constant), dtype));
}

nlohmann::json MaskOp::ToJson() const {
  std::string rel;
  for (const auto& [n, r] : kRelations)
    if (r == rel_) rel = n;
  return {{"op", "Mask"}, {"operator", rel}, {"constant", constant_.ToJson()}, {"dtype", TensorTypeName(dtype_)}};
}

Result<Tensor> MaskOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  if (!input.defined()) return Status::InvalidArgument("Mask: input tensor is undefined");
  const Tensor in = AsMindSporeArray(input);
  const bool text = in.type() == TensorType::kString || in.type() == TensorType::kStrings;
  if (text != constant_.is_text())
    return Status::InvalidArgument("Mask: the input (" + in.DebugString() + ") and the constant (" +
                                   constant_.DebugString() + ") must both be numeric or both be strings");
  Tensor mask;
  if (in.type() == TensorType::kString) {
    mask = Tensor::Make(TensorType::kBool, {});
    mask.MutableData()[0] = Compare<std::string_view>(rel_, Text(in), constant_.text);
  } else if (text) {
    MR_ASSIGN_OR_RETURN(std::vector<std::string_view> items, ReadStrings(in));
    mask = Tensor::Make(TensorType::kBool, in.shape());
    for (size_t i = 0; i < items.size(); ++i)
      mask.MutableData()[i] = Compare<std::string_view>(rel_, items[i], constant_.text);
  } else {
    mask = Tensor::Make(TensorType::kBool, in.shape());
    uint8_t* m = mask.MutableData();
    const uint8_t* x = in.data();
    const int64_t n = in.num_elements();
    VisitNumeric(in.type(), [&](auto tag) {
      using T = decltype(tag);
      const T c = constant_.As<T>();
      for (int64_t i = 0; i < n; ++i) m[i] = Compare<T>(rel_, LoadElement<T>(x, i), c);
    });
  }
  if (dtype_ == TensorType::kBool) return mask;
  return CastTensor(mask, dtype_, "Mask");
}

// ---- Duplicate --------------------------------------------------------------

Result<std::unique_ptr<TensorOp>> DuplicateOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "Duplicate", {}));
  return std::unique_ptr<TensorOp>(new DuplicateOp());
}

Result<Tensor> DuplicateOp::Apply(Tensor /*input*/, std::mt19937_64& /*rng*/) const {
  return Status::InvalidArgument(
      "Duplicate: gives 2 columns; map it with two output_columns (e.g. output_columns=[\"x\", \"y\"])");
}

Result<std::vector<Tensor>> DuplicateOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& /*rng*/) const {
  MR_ASSIGN_OR_RETURN(Tensor in, OneInput(inputs, "Duplicate"));
  // The copy is a tensor of its own, as MindSpore's: arrays handed to Python
  // without a copy (eager calls, unbatched rows) must not alias each other.
  Tensor copy = in.Copy();
  std::vector<Tensor> out;
  out.push_back(std::move(in));
  out.push_back(std::move(copy));
  return out;
}

// ---- Unique -----------------------------------------------------------------

Result<std::unique_ptr<TensorOp>> UniqueOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "Unique", {}));
  return std::unique_ptr<TensorOp>(new UniqueOp());
}

Result<Tensor> UniqueOp::Apply(Tensor /*input*/, std::mt19937_64& /*rng*/) const {
  return Status::InvalidArgument("Unique: gives 3 columns (values, indices, counts); map it with three output_columns");
}

Result<std::vector<Tensor>> UniqueOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& /*rng*/) const {
  MR_ASSIGN_OR_RETURN(Tensor raw, OneInput(inputs, "Unique"));
  const Tensor in = AsMindSporeArray(raw);
  if (!IsNumericType(in.type()) || in.type() == TensorType::kBool)
    return Status::InvalidArgument("Unique: only numeric input (not bool) is supported, got " + in.DebugString());
  if (in.shape().size() < 2)
    return Status::InvalidArgument(
        "Unique: input must be at least 2-D (batch the column first, as MindSpore "
        "requires), got " +
        in.DebugString());
  if (in.num_elements() > std::numeric_limits<int32_t>::max())
    return Status::InvalidArgument("Unique: input has more than 2^31 - 1 elements: " + in.DebugString());
  std::vector<Tensor> out;
  MR_RETURN_IF_ERROR(VisitNumeric(in.type(), [&](auto tag) { return UniqueOf<decltype(tag)>(in, &out); }));
  return out;
}

}  // namespace mindrecord::ops
