// MindRecordSource: MindRecord shards (with their padded rows) as a leaf's
// Source. Reads consecutive ids with one page scan, the others together
// through ShardReader::ReadRowViews; a mapped shard's bytes and arrays become
// tensors over the mapping (Tensor::FromFieldView), not copies.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/nodes/source.h"
#include "pipeline/padded.h"
#include "readers/shard_reader.h"

namespace mindrecord {

// Thread safety: as Source (the reader's reads are thread-safe).
class MindRecordSource : public Source {
 public:
  // From a "mindrecord" node (source, source_list, columns, padded), its
  // files read with `read` (the plan's reader options).
  static Result<std::unique_ptr<MindRecordSource>> Open(const nlohmann::json& node, const ReaderOptions& read);

  const std::vector<std::string>& columns() const override { return names_; }
  uint64_t num_rows() const override { return data_rows_ + padded_.count; }
  DatasetLayout Layout() const override { return LayoutOf(*reader_, padded_.count); }
  Status Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const override;
  std::string Where(uint64_t id) const override;
  std::string io_mode() const override { return io_mode_; }
  std::vector<std::string> shard_io_modes() const override { return shard_io_modes_; }
  std::vector<std::string> files() const override { return reader_->shard_paths(); }

 private:
  MindRecordSource() = default;
  // Views of a mapped shard hold `owner` (the view's mapping, or an alias
  // of it: see Read).
  Status ColumnsOf(const RowView& view, const std::shared_ptr<const void>& owner, std::vector<Tensor>* out) const;
  Status ColumnsOf(const Row& row, std::vector<Tensor>* out) const;

  std::unique_ptr<ShardReader> reader_;
  Projection projection_;
  std::vector<std::string> names_;
  std::vector<DataType> types_;
  std::vector<size_t> view_slot_;  // per column: its field's index in a RowView of projection_
  uint64_t data_rows_ = 0;         // ids >= data_rows_ are padded rows
  PaddedRows padded_;
  // Shortest run of consecutive rows read with a scan (whole pages) rather
  // than row by row.
  uint64_t scan_min_rows_ = 2;
  std::string io_mode_;
  std::vector<std::string> shard_io_modes_;
};

}  // namespace mindrecord
