#include "pipeline/row_vectors.h"

#include <utility>

namespace mindrecord {

namespace {
// What one thread keeps, in bytes of the vectors' storage: a batch of 256
// rows of one column holds ~30 KB.
constexpr size_t kMaxSpareBytes = size_t{1} << 20;

struct Spares {
  std::vector<std::vector<Tensor>> vectors;
  size_t bytes = 0;
};
Spares& ThreadSpares() {
  thread_local Spares spares;
  return spares;
}
}  // namespace

std::vector<Tensor> TakeRowVector() {
  Spares& s = ThreadSpares();
  if (s.vectors.empty()) return {};
  std::vector<Tensor> v = std::move(s.vectors.back());
  s.vectors.pop_back();
  s.bytes -= v.capacity() * sizeof(Tensor);
  return v;
}

void GiveRowVector(std::vector<Tensor>&& v) {
  const size_t bytes = v.capacity() * sizeof(Tensor);
  Spares& s = ThreadSpares();
  if (bytes == 0 || s.bytes + bytes > kMaxSpareBytes) return;
  v.clear();
  s.vectors.push_back(std::move(v));
  s.bytes += bytes;
}

}  // namespace mindrecord
