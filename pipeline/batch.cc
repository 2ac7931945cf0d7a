#include "pipeline/batch.h"

#include <algorithm>
#include <cstring>

#include "mindrecord/prefetch.h"
#include "pipeline/row_vectors.h"

namespace mindrecord {

namespace {

template <typename T>
void FillAs(uint8_t* dst, size_t n, double v) {
  const T x = static_cast<T>(v);
  T* p = reinterpret_cast<T*>(dst);
  std::fill(p, p + n, x);
}

void Fill(TensorType type, uint8_t* dst, size_t n, double v) {
  switch (type) {
    case TensorType::kUInt8: case TensorType::kBytes: case TensorType::kString: FillAs<uint8_t>(dst, n, v); break;
    case TensorType::kInt8: FillAs<int8_t>(dst, n, v); break;
    case TensorType::kInt16: FillAs<int16_t>(dst, n, v); break;
    case TensorType::kInt32: FillAs<int32_t>(dst, n, v); break;
    case TensorType::kInt64: FillAs<int64_t>(dst, n, v); break;
    case TensorType::kFloat32: FillAs<float>(dst, n, v); break;
    case TensorType::kFloat64: FillAs<double>(dst, n, v); break;
    case TensorType::kBool: FillAs<uint8_t>(dst, n, v != 0); break;
    case TensorType::kStrings: break;  // never padded (AssembleColumn)
  }
}

// Copies the region `r` (same rank) from the top-left corner of `src` (shape
// `s`) to the top-left corner of `dst` (shape `d`).
void CopyRegion(const uint8_t* src, const Shape& s, uint8_t* dst, const Shape& d, const Shape& r, size_t elem,
                size_t dim) {
  if (r.empty()) {
    std::memcpy(dst, src, elem);
    return;
  }
  size_t src_inner = elem, dst_inner = elem;
  for (size_t i = dim + 1; i < r.size(); ++i) {
    src_inner *= static_cast<size_t>(s[i]);
    dst_inner *= static_cast<size_t>(d[i]);
  }
  if (dim + 1 == r.size()) {
    std::memcpy(dst, src, src_inner * static_cast<size_t>(r[dim]));
    return;
  }
  for (int64_t i = 0; i < r[dim]; ++i) {
    CopyRegion(src + i * src_inner, s, dst + i * dst_inner, d, r, elem, dim + 1);
  }
}
}  // namespace

const BatchColumn* Batch::column(const std::string& name) const {
  for (const auto& c : columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

nlohmann::json BatchOptions::ToJson() const {
  nlohmann::json r = nlohmann::json::object();
  for (const auto& [name, spec] : ragged) {
    if (spec.mode == RaggedMode::kPad) {
      r[name] = {{"pad", spec.pad_value}};
      if (!spec.pad_shape.empty()) r[name]["shape"] = spec.pad_shape;
    }
    else r[name] = spec.mode == RaggedMode::kList ? "list" : "error";
  }
  return {{"batch_size", batch_size}, {"drop_remainder", drop_remainder}, {"ragged", r}};
}

Result<BatchOptions> BatchOptions::FromJson(const nlohmann::json& j) {
  BatchOptions o;
  if (j.is_null()) return o;
  if (!j.is_object()) return Status::InvalidArgument("plan 'batch' must be an object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() != "batch_size" && it.key() != "drop_remainder" && it.key() != "ragged") {
      return Status::InvalidArgument("plan 'batch': unknown parameter '" + it.key() + "'");
    }
  }
  if (j.contains("batch_size")) {
    if (!j["batch_size"].is_number_integer() || j["batch_size"].get<int64_t>() < 1) {
      return Status::InvalidArgument("plan 'batch': 'batch_size' must be an integer >= 1");
    }
    o.batch_size = j["batch_size"].get<uint64_t>();
  }
  if (j.contains("drop_remainder")) {
    if (!j["drop_remainder"].is_boolean()) return Status::InvalidArgument("plan 'batch': 'drop_remainder' must be a bool");
    o.drop_remainder = j["drop_remainder"].get<bool>();
  }
  if (j.contains("ragged")) {
    if (!j["ragged"].is_object()) return Status::InvalidArgument("plan 'batch': 'ragged' must be an object");
    for (auto it = j["ragged"].begin(); it != j["ragged"].end(); ++it) {
      RaggedSpec s;
      const auto& v = it.value();
      if (v == "list") {
        s.mode = RaggedMode::kList;
      } else if (v == "error") {
        s.mode = RaggedMode::kError;
      } else if (v.is_object() && v.contains("pad") && v["pad"].is_number() &&
                 v.size() == (v.contains("shape") ? 2u : 1u)) {
        s.mode = RaggedMode::kPad;
        s.pad_value = v["pad"].get<double>();
        if (v.contains("shape")) {
          bool ok = v["shape"].is_array() && !v["shape"].empty();
          for (const auto& d : v["shape"]) {
            ok = ok && d.is_number_integer() && (d.get<int64_t>() >= 1 || d.get<int64_t>() == -1);
            if (ok) s.pad_shape.push_back(d.get<int64_t>());
          }
          if (!ok) {
            return Status::InvalidArgument("plan 'batch': ragged column '" + it.key() +
                                           "': 'shape' must be a list of dims >= 1 or -1, got " + v["shape"].dump());
          }
        }
      } else {
        return Status::InvalidArgument("plan 'batch': ragged column '" + it.key() +
                                       "' must be \"list\", \"error\" or {\"pad\": number, \"shape\": [dims]}");
      }
      o.ragged[it.key()] = s;
    }
  }
  return o;
}

Result<Tensor> NewColumn(const BatchAllocator& alloc, TensorType type, const std::vector<int64_t>& shape,
                         const std::string& name) {
  if (!alloc) return Tensor::Make(type, shape);
  MR_ASSIGN_OR_RETURN(Tensor t, alloc(type, shape));
  if (!t.defined() || t.type() != type || t.shape() != shape)
    return Status::Internal("batch column '" + name + "': the allocator returned " + t.DebugString() + ", not " +
                            TensorTypeName(type) + ShapeString(shape));
  return t;
}

namespace {

// Batches column c of `rows` (n >= 1) into `col`.
Status AssembleColumn(const std::vector<std::string>& names, size_t c, std::vector<RowTensors>& rows,
                      const BatchOptions& options, const BatchAllocator& alloc, BatchColumn& col) {
  const size_t n = rows.size();
  {
    col.name = names[c];
    const Tensor& first = rows[0].columns[c];
    bool same = true;
    for (size_t i = 1; i < n && same; ++i) {
      const Tensor& t = rows[i].columns[c];
      same = t.type() == first.type() && t.shape() == first.shape();
    }
    auto it = options.ragged.find(names[c]);
    const RaggedSpec spec = it == options.ragged.end() ? RaggedSpec{} : it->second;
    // Arrays of strings batch as a list of their rows (the consumer stacks
    // rows of one shape): they have no fixed element size to stack by.
    const bool strings = std::any_of(rows.begin(), rows.end(),
                                     [c](const RowTensors& r) { return r.columns[c].type() == TensorType::kStrings; });
    if (strings && spec.mode == RaggedMode::kPad)
      return Status::InvalidArgument("batch column '" + names[c] + "': padding arrays of strings is not supported");
    if (strings && (same || spec.mode != RaggedMode::kError)) {
      for (size_t i = 0; i < n; ++i) col.list.push_back(std::move(rows[i].columns[c]));
      return Status::OK();
    }
    const size_t elem = TensorTypeSize(first.type());
    const bool fixed_pad = spec.mode == RaggedMode::kPad && !spec.pad_shape.empty();
    if (same && !fixed_pad) {
      std::vector<int64_t> shape = {static_cast<int64_t>(n)};
      shape.insert(shape.end(), first.shape().begin(), first.shape().end());
      MR_ASSIGN_OR_RETURN(col.data, NewColumn(alloc, first.type(), shape, names[c]));
      const size_t row_bytes = first.size_bytes();
      uint8_t* dst = col.data.MutableData();
      if (row_bytes) {
        CopyEachPrefetched(
            n,
            [&](size_t i) {
              return std::string_view(reinterpret_cast<const char*>(rows[i].columns[c].data()), row_bytes);
            },
            [&](size_t i) { std::memcpy(dst + i * row_bytes, rows[i].columns[c].data(), row_bytes); });
      }
    } else if (spec.mode == RaggedMode::kPad) {
      std::vector<int64_t> maxs = first.shape().vec();
      for (size_t i = 0; i < n; ++i) {
        const Tensor& t = rows[i].columns[c];
        if (t.type() != first.type() || t.shape().size() != maxs.size()) {
          return Status::InvalidArgument("batch column '" + names[c] + "': cannot pad " +
                                         std::string(TensorTypeName(t.type())) + ShapeString(t.shape()) + " with " +
                                         TensorTypeName(first.type()) + ShapeString(first.shape()) +
                                         " (type or rank differs)");
        }
        for (size_t d = 0; d < maxs.size(); ++d) maxs[d] = std::max(maxs[d], t.shape()[d]);
      }
      if (fixed_pad) {
        if (spec.pad_shape.size() != maxs.size()) {
          return Status::InvalidArgument("batch column '" + names[c] + "': pad shape " + ShapeString(spec.pad_shape) +
                                         " has rank " + std::to_string(spec.pad_shape.size()) + ", its rows " +
                                         ShapeString(maxs) + " rank " + std::to_string(maxs.size()));
        }
        for (size_t d = 0; d < maxs.size(); ++d) {
          if (spec.pad_shape[d] == -1) continue;
          if (spec.pad_shape[d] < maxs[d]) {
            return Status::InvalidArgument("batch column '" + names[c] + "': a row of shape up to " +
                                           ShapeString(maxs) + " is larger than the pad shape " +
                                           ShapeString(spec.pad_shape));
          }
          maxs[d] = spec.pad_shape[d];
        }
      }
      std::vector<int64_t> shape = {static_cast<int64_t>(n)};
      shape.insert(shape.end(), maxs.begin(), maxs.end());
      MR_ASSIGN_OR_RETURN(col.data, NewColumn(alloc, first.type(), shape, names[c]));
      uint8_t* dst = col.data.MutableData();
      size_t row_elems = 1;
      for (int64_t d : maxs) row_elems *= static_cast<size_t>(d);
      const Shape padded(maxs);
      const size_t row_bytes = row_elems * elem;
      col.row_shapes.reserve(n);
      // Rows (often views of a mapped shard, at random places) are copied
      // with the next ones prefetched. A row whose dims past the first are
      // the padded ones is a prefix of its slot: only the rest is filled.
      CopyEachPrefetched(
          n,
          [&](size_t i) {
            const Tensor& t = rows[i].columns[c];
            return std::string_view(reinterpret_cast<const char*>(t.data()), t.size_bytes());
          },
          [&](size_t i) {
            const Tensor& t = rows[i].columns[c];
            col.row_shapes.push_back(t.shape().vec());
            uint8_t* slot = dst + i * row_bytes;
            if (std::equal(t.shape().begin() + (t.shape().empty() ? 0 : 1), t.shape().end(),
                           maxs.begin() + (maxs.empty() ? 0 : 1))) {
              const size_t have = t.size_bytes();
              if (have) std::memcpy(slot, t.data(), have);
              Fill(first.type(), slot + have, (row_bytes - have) / elem, spec.pad_value);
            } else {
              Fill(first.type(), slot, row_elems, spec.pad_value);
              if (t.num_elements() > 0) CopyRegion(t.data(), t.shape(), slot, padded, t.shape(), elem, 0);
            }
          });
    } else if (spec.mode == RaggedMode::kError) {
      for (size_t i = 1; i < n; ++i) {
        const Tensor& t = rows[i].columns[c];
        if (t.shape() != first.shape() || t.type() != first.type()) {
          return Status::InvalidArgument("batch column '" + names[c] + "': row " + std::to_string(rows[i].row_id) +
                                         " has " + TensorTypeName(t.type()) + ShapeString(t.shape()) + ", row " +
                                         std::to_string(rows[0].row_id) + " has " + TensorTypeName(first.type()) +
                                         ShapeString(first.shape()));
        }
      }
    } else {
      for (size_t i = 0; i < n; ++i) col.list.push_back(std::move(rows[i].columns[c]));
    }
  }
  return Status::OK();
}

// Copies the rows of list column `col` that are views one after another
// into one new buffer, each from a multiple of its element size, and makes
// each such row a writable tensor over its bytes there. The bytes are all
// copied before any tensor is re-pointed: re-pointing one takes an atomic
// reference on the buffer, which waits for every copy still in flight
// (stores to memory not in cache), so interleaving the two serialises them.
void CopyViewsIntoBlock(BatchColumn& col) {
  size_t total = 0;
  auto at = [](size_t off, const Tensor& t) {
    const size_t a = TensorTypeSize(t.type());
    return (off + a - 1) / a * a;
  };
  // (Arrays of strings stay views: the consumer converts them with a copy.)
  const auto copied = [](const Tensor& t) { return t.read_only() && t.type() != TensorType::kStrings; };
  for (const Tensor& t : col.list)
    if (copied(t)) total = at(total, t) + t.size_bytes();
  if (total == 0) return;
  Tensor block = Tensor::Make(TensorType::kUInt8, {static_cast<int64_t>(total)});
  uint8_t* dst = block.MutableData();
  size_t off = 0;
  CopyEachPrefetched(
      col.list.size(),
      [&](size_t i) {
        const Tensor& t = col.list[i];
        return copied(t) ? std::string_view(reinterpret_cast<const char*>(t.data()), t.size_bytes())
                             : std::string_view();
      },
      [&](size_t i) {
        const Tensor& t = col.list[i];
        if (!copied(t)) return;
        off = at(off, t);
        if (t.size_bytes()) std::memcpy(dst + off, t.data(), t.size_bytes());
        off += t.size_bytes();
      });
  off = 0;
  for (Tensor& t : col.list) {
    if (!copied(t)) continue;
    off = at(off, t);
    t = block.Region(off, t.type(), t.shape());
    off += t.size_bytes();
  }
}

Status CheckRow(const std::vector<std::string>& names, const RowTensors& r) {
  if (r.columns.size() != names.size()) return Status::Internal("AssembleBatch: row has the wrong column count");
  return Status::OK();
}
}  // namespace

Result<Batch> AssembleBatch(const std::vector<std::string>& names, std::vector<RowTensors>&& rows, uint64_t epoch,
                            const BatchOptions& options, const BatchAllocator& alloc) {
  Batch b;
  b.epoch = epoch;
  if (rows.empty()) return Status::Internal("AssembleBatch: no rows");
  for (const auto& r : rows) {
    b.row_ids.push_back(r.row_id);
    b.positions.push_back(r.position);
    MR_RETURN_IF_ERROR(CheckRow(names, r));
  }
  b.columns.resize(names.size());
  for (size_t c = 0; c < names.size(); ++c) MR_RETURN_IF_ERROR(AssembleColumn(names, c, rows, options, alloc, b.columns[c]));
  return b;
}

BatchBuilder::BatchBuilder(const std::vector<std::string>& names, size_t rows, uint64_t epoch,
                           const BatchOptions& options, const BatchAllocator& alloc, std::vector<bool> stream)
    : names_(names), expected_(rows), epoch_(epoch), options_(options), alloc_(alloc) {
  streaming_ = stream.empty() ? std::vector<bool>(names.size(), true) : std::move(stream);
  streaming_.resize(names.size(), false);
  data_.resize(names.size());
  base_.resize(names.size(), nullptr);
  slots_.resize(names.size());
  rows_.reserve(rows);
}

const OutputSlot* BatchBuilder::Slot(size_t c) {
  const size_t i = rows_.size();
  if (!streaming_[c] || base_[c] == nullptr || i >= expected_) return nullptr;
  OutputSlot& s = slots_[c];
  s.view = data_[c].Subtensor(static_cast<int64_t>(i));
  s.data = base_[c] + i * s.view.size_bytes();
  return &s;
}

void BatchBuilder::Unstream(size_t c) {
  if (!streaming_[c]) return;
  streaming_[c] = false;
  if (!data_[c].defined()) return;
  const size_t row_bytes = rows_.empty() ? 0 : data_[c].size_bytes() / expected_;
  const std::vector<int64_t> shape(data_[c].shape().begin() + 1, data_[c].shape().end());
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (rows_[i].columns[c].defined()) continue;  // a view Add kept
    Tensor t = Tensor::Make(data_[c].type(), shape);
    if (row_bytes) std::memcpy(t.MutableData(), data_[c].data() + i * row_bytes, row_bytes);
    rows_[i].columns[c] = std::move(t);
  }
  data_[c] = Tensor();
  base_[c] = nullptr;
  slots_[c] = OutputSlot();
}

Status BatchBuilder::Add(RowTensors&& row) {
  // The slots handed out for this row are used: drop their views, so the
  // batch buffer has one owner again.
  for (auto& s : slots_) s = OutputSlot();
  MR_RETURN_IF_ERROR(CheckRow(names_, row));
  const size_t i = rows_.size();
  if (i >= expected_) return Status::Internal("BatchBuilder: more rows than promised");
  for (size_t c = 0; c < names_.size(); ++c) {
    if (!streaming_[c]) continue;
    Tensor& t = row.columns[c];
    if (t.type() == TensorType::kStrings) {  // batched as a list (AssembleColumn)
      Unstream(c);
      continue;
    }
    if (i == 0) {
      std::vector<int64_t> shape = {static_cast<int64_t>(expected_)};
      shape.insert(shape.end(), t.shape().begin(), t.shape().end());
      if (expected_ == 1 && t.read_only() && !alloc_ && !copy_views_) {
        // A batch of one view (unbatched rows of a mapped shard): the view
        // itself, not a copy of it.
        data_[c] = t.Reshaped(shape);
        continue;
      }
      // An allocator error is left to Finish (AssembleBatch reports it there,
      // and only when the rows are batched at all).
      auto col = NewColumn(alloc_, t.type(), shape, names_[c]);
      if (!col.ok()) {
        streaming_[c] = false;
        continue;
      }
      data_[c] = std::move(col).value();
      base_[c] = data_[c].MutableData();
    } else {
      const Shape& s = data_[c].shape();
      if (t.type() != data_[c].type() || t.shape().size() + 1 != s.size() ||
          !std::equal(t.shape().begin(), t.shape().end(), s.begin() + 1)) {
        Unstream(c);
        continue;
      }
    }
    const size_t row_bytes = t.size_bytes();
    uint8_t* dst = base_[c] + i * row_bytes;
    if (row_bytes && t.data() != dst) std::memcpy(dst, t.data(), row_bytes);
    // A view (e.g. of a mapped shard) costs nothing to keep: should the
    // column stop streaming, Unstream hands the row its view, not a copy.
    if (!t.read_only()) t = Tensor();
  }
  rows_.push_back(std::move(row));
  return Status::OK();
}

Result<Batch> BatchBuilder::Finish() && {
  if (rows_.size() != expected_ || expected_ == 0)
    return Status::Internal("BatchBuilder: " + std::to_string(rows_.size()) + " rows added, " +
                            std::to_string(expected_) + " promised");
  Batch b;
  b.epoch = epoch_;
  for (const auto& r : rows_) {
    b.row_ids.push_back(r.row_id);
    b.positions.push_back(r.position);
  }
  b.columns.resize(names_.size());
  for (size_t c = 0; c < names_.size(); ++c) {
    if (streaming_[c]) {
      b.columns[c].name = names_[c];
      b.columns[c].data = std::move(data_[c]);
    } else {
      MR_RETURN_IF_ERROR(AssembleColumn(names_, c, rows_, options_, alloc_, b.columns[c]));
    }
  }
  if (copy_views_) CopyListViews(b);
  // The rows' tensors are in the batch now: their vectors go back to this
  // thread's spares (the worker that read them reads the next rows).
  for (auto& r : rows_) GiveRowVector(std::move(r.columns));
  return b;
}

std::vector<RowTensors> BatchBuilder::TakeRows() && {
  for (size_t c = 0; c < names_.size(); ++c) Unstream(c);
  return std::move(rows_);
}

void CopyListViews(Batch& batch) {
  for (auto& col : batch.columns)
    if (col.is_list()) CopyViewsIntoBlock(col);
}

std::vector<RowTensors> SplitBatch(Batch&& batch) {
  const size_t n = batch.size();
  std::vector<RowTensors> rows(n);
  for (size_t i = 0; i < n; ++i) {
    rows[i].row_id = batch.row_ids[i];
    rows[i].position = batch.positions[i];
  }
  for (auto& col : batch.columns) {
    if (col.is_list()) {
      for (size_t i = 0; i < n; ++i) rows[i].columns.push_back(std::move(col.list[i]));
      continue;
    }
    const Shape row_shape(col.data.shape().begin() + 1, col.data.shape().end());
    const size_t elem = TensorTypeSize(col.data.type());
    const size_t row_bytes = n ? col.data.size_bytes() / n : 0;
    for (size_t i = 0; i < n; ++i) {
      const Shape shape = col.row_shapes.empty() ? row_shape : Shape(col.row_shapes[i]);
      Tensor t = Tensor::Make(col.data.type(), shape);
      if (t.num_elements() > 0) {
        CopyRegion(col.data.data() + i * row_bytes, row_shape, t.MutableData(), shape, shape, elem, 0);
      }
      rows[i].columns.push_back(std::move(t));
    }
  }
  return rows;
}

}  // namespace mindrecord
