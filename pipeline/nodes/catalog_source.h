// CatalogSource: a dataset that its own list files describe, row by row
// (MindSpore's LFWDataset, KITTIDataset, ...): each row is some files read
// when the row is (images: their bytes, or with `decode` HWC RGB uint8) and
// some values the lists give (labels, boxes, captions), or records: byte
// ranges of the dataset's files read when the row is (MNIST-style images). A layout's lister
// (catalog_layouts.h) reads the lists once, when the source opens; the
// files are read by the pipeline's workers.
//
// The leaf: {"node": "source", "kind": "catalog", "columns": [...], "rows":
// N, "args": {"layout": L, "dataset_dir": D, "decode": B, ...the layout's
// own args}}; `columns` and `rows` must be what DescribeCatalog gives.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/file.h"
#include "pipeline/nodes/source.h"

namespace mindrecord {

// A record: bytes of one of the catalog's record files, read when the row
// is and decoded by its column's `decode`.
struct CatalogRecord {
  uint32_t file = 0;    // index into Catalog::record_files
  uint32_t length = 0;  // bytes
  uint64_t offset = 0;
};

struct CatalogRecordColumn {
  // The row's tensor from its record's bytes (`where` names the record in
  // errors).
  std::function<Result<Tensor>(std::string&& bytes, const std::string& where)> decode;
};

// What a lister makes: `columns`, of which the first `file_columns` are
// files read per row, the next record_specs.size() records read per row,
// the next generated.size() computed per row from the row's id, the rest
// values; rows() rows.
struct Catalog {
  std::vector<std::string> columns;
  size_t file_columns = 0;
  // Per file column, how its file becomes the row's tensor; none (or an
  // empty function): an image, its bytes or with `decode` HWC RGB uint8.
  std::vector<std::function<Result<Tensor>(const std::string& path)>> file_readers;
  std::vector<CatalogRecordColumn> record_specs;
  std::vector<std::string> paths;           // row-major, file_columns per row
  std::vector<std::string> record_files;
  // Per record file, the file the lister opened already (a view of part of
  // a file, a decompressed stream); null: opened by path.
  std::vector<std::shared_ptr<const RandomAccessFile>> record_opened;
  std::vector<CatalogRecord> records;       // row-major, record_specs.size() per row
  std::vector<std::function<Result<Tensor>(uint64_t row)>> generated;
  uint64_t generated_rows = 0;  // the row count when every column is generated
  std::vector<Tensor> values;               // row-major, the other columns per row
  nlohmann::json meta = nlohmann::json::object();  // what the loader reports besides rows (class_indexing)
  // The order the source gives the columns in: output column k is
  // columns[order[k]] (empty: as listed).
  std::vector<size_t> order;

  size_t RecordColumns() const { return record_specs.size(); }
  size_t ValueColumns() const { return columns.size() - file_columns - RecordColumns() - generated.size(); }
  uint64_t rows() const {
    if (file_columns) return paths.size() / file_columns;
    if (RecordColumns()) return records.size() / RecordColumns();
    return ValueColumns() ? values.size() / ValueColumns() : generated_rows;
  }
};

// The columns and row count the leaf's args give: {"columns": [...],
// "rows": N, "meta": {...}}. Errors name the layout's file (and line) that is wrong.
Result<nlohmann::json> DescribeCatalog(const nlohmann::json& args);

// Thread safety: as Source.
Result<std::unique_ptr<Source>> OpenCatalogSource(const nlohmann::json& node);

// The source over catalog `c` as a lister made it (`decode`: images
// decoded), for the sources that list their rows themselves
// (image_list_source.h). Thread safety: as Source.
Result<std::unique_ptr<Source>> MakeCatalogSource(Catalog c, bool decode);

}  // namespace mindrecord
