// CatalogSource: a dataset that its own list files describe, row by row
// (MindSpore's LFWDataset, KITTIDataset, ...): each row is some files read
// when the row is (images: their bytes, or with `decode` HWC RGB uint8) and
// some values the lists give (labels, boxes, captions). A layout's lister
// (catalog_layouts.h) reads the lists once, when the source opens; the
// files are read by the pipeline's workers.
//
// The leaf: {"node": "source", "kind": "catalog", "columns": [...], "rows":
// N, "args": {"layout": L, "dataset_dir": D, "decode": B, ...the layout's
// own args}}; `columns` and `rows` must be what DescribeCatalog gives.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/nodes/source.h"

namespace mindrecord {

// What a lister makes: `columns`, of which the first `file_columns` are
// files read per row; rows() rows, each file_columns paths and
// (columns - file_columns) values.
struct Catalog {
  std::vector<std::string> columns;
  size_t file_columns = 0;
  std::vector<std::string> paths;  // row-major, file_columns per row
  std::vector<Tensor> values;      // row-major, the other columns per row
  nlohmann::json meta = nlohmann::json::object();  // what the loader reports besides rows (class_indexing)

  uint64_t rows() const { return file_columns ? paths.size() / file_columns : values.size() / ValueColumns(); }
  size_t ValueColumns() const { return columns.size() - file_columns; }
};

// The columns and row count the leaf's args give: {"columns": [...],
// "rows": N, "meta": {...}}. Errors name the layout's file (and line) that is wrong.
Result<nlohmann::json> DescribeCatalog(const nlohmann::json& args);

// Thread safety: as Source.
Result<std::unique_ptr<Source>> OpenCatalogSource(const nlohmann::json& node);

}  // namespace mindrecord
