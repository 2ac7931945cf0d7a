#include "pipeline/nodes/mindrecord_source.h"

#include <algorithm>

#include "pipeline/row_vectors.h"

namespace mindrecord {

Result<std::unique_ptr<MindRecordSource>> MindRecordSource::Open(const nlohmann::json& node,
                                                                 const ReaderOptions& read) {
  std::unique_ptr<MindRecordSource> s(new MindRecordSource());
  std::vector<std::string> source = node.at("source").get<std::vector<std::string>>();
  if (source.empty()) return Status::InvalidArgument("plan: 'source' names no shard file");
  ReaderOptions o = read;
  o.shard_paths.clear();
  if (source.size() > 1 || node.value("source_list", false)) o.shard_paths = source;
  MR_ASSIGN_OR_RETURN(s->reader_, ShardReader::Open(source[0], o));
  const ShardReader& reader = *s->reader_;
  bool any_pread = false;
  for (uint32_t i = 0; i < reader.num_shards(); ++i) {
    const std::string mode = IoModeName(reader.shard_io_mode(i));
    any_pread = any_pread || reader.shard_io_mode(i) == IoMode::kPread;
    s->io_mode_ = i == 0 || s->io_mode_ == mode ? mode : "mixed";
    s->shard_io_modes_.push_back(mode);
  }
  // Direct scans read only the rows' span of a page once it is verified, and
  // mapped pages cost nothing to touch, so any run is worth a scan there.
  if (any_pread && reader.num_rows() > 0) {
    // Scan pays for the whole pages it touches: use it when the run's bytes
    // are at least a quarter of an average page.
    uint64_t bytes = 0, pages = 0;
    for (uint32_t i = 0; i < reader.num_shards(); ++i) {
      for (const auto& pg : reader.header(i).pages) {
        bytes += pg.used_bytes;
        pages++;
      }
    }
    const double per_row = static_cast<double>(bytes) / static_cast<double>(reader.num_rows());
    const double per_page = pages ? static_cast<double>(bytes) / static_cast<double>(pages) : 0;
    s->scan_min_rows_ = std::max<uint64_t>(2, static_cast<uint64_t>(per_page / 4 / std::max(per_row, 1.0)));
  }
  const Schema& schema = reader.schema();
  s->names_ = node.value("columns", std::vector<std::string>{});
  if (s->names_.empty()) {
    for (const auto& f : schema.fields()) s->names_.push_back(f.name);
  }
  MR_ASSIGN_OR_RETURN(s->projection_, reader.MakeProjection(s->names_));
  for (const auto& n : s->names_) {
    const Field* f = schema.Find(n);
    if (f == nullptr) return Status::NotFound("plan: column '" + n + "' is not in the schema");
    s->types_.push_back(f->type);
    const auto& ids = s->projection_.field_ids;
    s->view_slot_.push_back(
        static_cast<size_t>(std::lower_bound(ids.begin(), ids.end(), schema.FieldIndex(n)) - ids.begin()));
  }
  s->data_rows_ = reader.num_rows();
  if (node.contains("padded") && !node["padded"].is_null()) {
    MR_ASSIGN_OR_RETURN(s->padded_, ParsePadded(node["padded"], schema, s->names_));
  }
  return s;
}

Status MindRecordSource::ColumnsOf(const RowView& view, const std::shared_ptr<const void>& owner,
                                   std::vector<Tensor>* out) const {
  out->clear();
  out->reserve(names_.size());
  for (size_t c = 0; c < names_.size(); ++c) {
    const FieldView& f = view[view_slot_[c]];
    if (f.kind == Value::Kind::kNull) return Status::Corruption("column '" + names_[c] + "' missing from the row");
    out->push_back(Tensor::FromFieldView(f, owner));
  }
  return Status::OK();
}

Status MindRecordSource::ColumnsOf(const Row& row, std::vector<Tensor>* out) const {
  out->clear();
  out->reserve(names_.size());
  for (size_t c = 0; c < names_.size(); ++c) {
    const Value* v = row.Find(names_[c]);
    if (v == nullptr || v->is_null()) return Status::Corruption("column '" + names_[c] + "' missing from the row");
    out->push_back(Tensor::FromValue(*v, types_[c]));
  }
  return Status::OK();
}

Status MindRecordSource::Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const {
  // A row read as a view becomes its column tensors at once (the view's
  // bytes are valid only until the reader's callback returns, or, when
  // mapped, while the mapping lives, which the tensors then hold).
  // Each view tensor holds its mapping: rather than every row's tensor
  // counting on the mapping's own reference count (one cache line that all
  // workers and the consumer would write for every row), this call's
  // tensors share one holder of it per mapping.
  const void* held = nullptr;
  std::shared_ptr<const void> owner;
  auto deliver = [&](size_t k, const RowView& v) -> Status {
    if (v.mapping().get() != held) {
      held = v.mapping().get();
      owner = v.mapping() ? std::shared_ptr<const void>(std::make_shared<std::shared_ptr<const void>>(v.mapping()),
                                                        v.mapping().get())
                          : nullptr;
    }
    std::vector<Tensor> cols = TakeRowVector();
    Status st = ColumnsOf(v, owner, &cols);
    if (!st.ok()) return fn(k, st, {}, 0);
    return fn(k, Status::OK(), std::move(cols), v.value_bytes());
  };
  // Positions not in a run worth scanning, read together by one
  // ReadRowViews call (on a direct shard: several reads in flight).
  std::vector<size_t> single_idx;
  std::vector<uint64_t> single_ids;
  size_t i = 0;
  while (i < ids.size()) {
    if (ids[i] >= data_rows_) {
      std::vector<Tensor> cols = TakeRowVector();
      Status st = ColumnsOf(padded_.row, &cols);
      MR_RETURN_IF_ERROR(st.ok() ? fn(i, st, std::move(cols), padded_.row.value_bytes()) : fn(i, st, {}, 0));
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < ids.size() && ids[j] == ids[j - 1] + 1 && ids[j] < data_rows_) ++j;
    size_t first_single = i;
    if (j - i >= scan_min_rows_) {
      // A run of consecutive rows: one sequential scan reads their pages once.
      const uint64_t first = ids[i];
      size_t delivered = 0;
      Status fn_error;
      Status st = reader_->ScanViews(first, ids[j - 1] + 1, &projection_, [&](uint64_t row_id, const RowView& v) {
        Status s = deliver(i + (row_id - first), v);
        if (s.ok()) delivered++;
        else fn_error = s;
        return s;
      });
      if (!fn_error.ok()) return fn_error;
      // On a read error, the rows not handed out are read one by one to pin
      // down the bad row(s).
      first_single = st.ok() ? j : i + delivered;
    }
    for (size_t k = first_single; k < j; ++k) {
      single_idx.push_back(k);
      single_ids.push_back(ids[k]);
    }
    i = j;
  }
  if (single_ids.empty()) return Status::OK();
  return reader_->ReadRowViews(single_ids, &projection_, [&](size_t n, const Status& s, const RowView& v) {
    if (!s.ok()) return fn(single_idx[n], s, {}, 0);
    return deliver(single_idx[n], v);
  });
}

std::string MindRecordSource::Where(uint64_t id) const {
  std::string where = "row " + std::to_string(id);
  if (id >= data_rows_) {
    where += " (padded sample " + std::to_string(id - data_rows_) + ")";
  } else if (auto loc = reader_->Locate(id); loc.ok()) {
    where += " (shard " + std::to_string(loc->shard) + " '" + reader_->shard_paths()[loc->shard] + "', local row " +
             std::to_string(loc->local_row) + ")";
  }
  return where;
}

}  // namespace mindrecord
