// ObjectSource: what the sources over Python objects (bind_pysource.cc,
// bind_numpy_source.cc) share: a name, columns and a row count, one shard.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pipeline/nodes/source.h"

namespace mindrecord::py_binding {

// Thread safety: immutable; as Source.
class ObjectSource : public Source {
 public:
  const std::vector<std::string>& columns() const override { return columns_; }
  uint64_t num_rows() const override { return rows_; }
  DatasetLayout Layout() const override {
    DatasetLayout l;
    l.shard_rows = {rows_};
    return l;
  }
  // "row 3 of GeneratorDataset source 'Pairs'"
  std::string Where(uint64_t id) const override { return "row " + std::to_string(id) + " of " + name_; }

 protected:
  ObjectSource(std::string name, std::vector<std::string> columns, uint64_t rows)
      : name_(std::move(name)), columns_(std::move(columns)), rows_(rows) {}
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::vector<std::string> columns_;
  uint64_t rows_;
};

}  // namespace mindrecord::py_binding
