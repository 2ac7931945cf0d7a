// String-array tensors: building and reading their offsets and characters.
#include "pipeline/strings.h"

#include <cstring>

namespace mindrecord {

namespace {

template <class S>
Tensor Make(Shape shape, std::span<const S> items) {
  StringsBuilder b;
  for (const auto& s : items) b.Add(s);
  return b.Finish(shape);
}

}  // namespace

Tensor MakeStrings(Shape shape, std::span<const std::string_view> items) { return Make(std::move(shape), items); }
Tensor MakeStrings(Shape shape, std::span<const std::string> items) { return Make(std::move(shape), items); }

void StringsBuilder::Add(std::string_view s) {
  chars_.append(s);
  ends_.push_back(chars_.size());
}

Tensor StringsBuilder::Finish(const Shape& shape) {
  const size_t n = ends_.size();
  const size_t head = (n + 1) * sizeof(uint64_t);
  Tensor bytes = Tensor::Make(TensorType::kUInt8, {static_cast<int64_t>(head + chars_.size())});
  uint8_t* p = bytes.MutableData();
  const uint64_t zero = 0;
  std::memcpy(p, &zero, sizeof zero);
  if (n) std::memcpy(p + sizeof(uint64_t), ends_.data(), n * sizeof(uint64_t));
  if (!chars_.empty()) std::memcpy(p + head, chars_.data(), chars_.size());
  chars_.clear();
  ends_.clear();
  return bytes.AsStrings(shape);
}

Result<std::vector<std::string_view>> ReadStrings(const Tensor& t) {
  if (t.type() != TensorType::kStrings)
    return Status::InvalidArgument(std::string("expected strings, got ") + TensorTypeName(t.type()));
  const int64_t count = t.num_elements();
  const size_t n = count > 0 ? static_cast<size_t>(count) : 0;
  const size_t size = t.size_bytes();
  if (n >= size / sizeof(uint64_t))
    return Status::InvalidArgument("strings tensor of " + std::to_string(n) + " strings has only " +
                                   std::to_string(size) + " bytes");
  const size_t head = (n + 1) * sizeof(uint64_t);
  const uint8_t* p = t.data();
  const char* chars = reinterpret_cast<const char*>(p + head);
  std::vector<std::string_view> out(n);
  uint64_t prev = 0;
  std::memcpy(&prev, p, sizeof prev);
  if (prev != 0) return Status::InvalidArgument("strings tensor: first offset is not 0");
  for (size_t i = 0; i < n; ++i) {
    uint64_t end = 0;
    std::memcpy(&end, p + (i + 1) * sizeof(uint64_t), sizeof end);
    if (end < prev || end > size - head)
      return Status::InvalidArgument("strings tensor: offset " + std::to_string(i + 1) + " (" + std::to_string(end) +
                                     ") outside " + std::to_string(prev) + ".." + std::to_string(size - head));
    out[i] = std::string_view(chars + prev, end - prev);
    prev = end;
  }
  if (prev != size - head) return Status::InvalidArgument("strings tensor: characters do not end at the buffer's end");
  return out;
}

}  // namespace mindrecord
