// CsvSource: the records of CSV files as rows (MindSpore's CSVDataset), read
// by MindSpore's CSV grammar: a record ends at '\r' or '\n' outside quotes
// (empty lines are skipped); a field is unquoted text without quotes, or
// "quoted" with "" for a quote and delimiters / line ends kept; a quote in
// an unquoted field, text after a closing quote, or a file ending inside
// quotes is an error naming the file and byte offset. With a header, each
// file's first line (up to '\n') is skipped. Each field becomes a scalar:
// int32 (parsed as std::stoi parses: leading blanks, a number prefix),
// float32 (std::stof), or the string; a record of another field count, a
// field that is no number where one is due, or one out of range is a row
// error naming the file and record offset. Every file is one shard of the
// layout. The files are scanned once at open for where records start (12
// bytes per record kept).
//
// The leaf: {"node": "source", "kind": "csv", "columns": [...], "rows": N,
// "args": {"files": [...], "delimiter": ",", "types": ["int32" | "float32"
// | "string", one per column], "header": bool}}.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/nodes/source.h"

namespace mindrecord {

// Records per file (after the header line when `header`); Corruption naming
// the file and offset where the grammar breaks.
Result<std::vector<uint64_t>> CountCsvRecords(const std::vector<std::string>& files, char delimiter, bool header);

// Thread safety: as Source.
Result<std::unique_ptr<Source>> OpenCsvSource(const nlohmann::json& node);

}  // namespace mindrecord
