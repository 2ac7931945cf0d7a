// TfRecordSource: the tf.train.Example records of TFRecord files as rows
// (MindSpore's TFRecordDataset). Each file is walked once at open along its
// framing (uint64 length, masked CRC32C of the length, data, masked CRC32C
// of the data; 12 bytes kept per record); a length whose checksum fails, or
// a record running past the end of its file, makes the open fail naming the
// file and byte offset. A record is read by position, its data checksum
// checked and parsed as a tf.train.Example; each column is its feature of
// the same name:
//   bytes_list -> "uint8" / "int8": the values' bytes, each padded with
//                 zeros to the longest (or to the product of the shape's
//                 dimensions after a leading -1), one after another;
//                 "string": one value, UTF-8 text;
//   float_list -> "float32";
//   int64_list -> "int8" / "int16" / "int32" / "int64" / "uint8", each value
//                 cast as C++ casts it (wrapping, as MindSpore does).
// A column's shape is null (a 1-D tensor of all the elements), [] (a scalar:
// one element), or dimensions of which at most one is -1 (filled from the
// element count); elements that do not fill it are a row error. A missing
// feature, a feature of another kind, a data checksum mismatch or bytes that
// are no Example are row errors naming the file and record offset. Every
// file is one shard of the layout.
//
// Files compressed whole as gzip or zlib (TensorFlow's and MindSpore's
// compression_type GZIP / ZLIB) are inflated once by the scan, which keeps
// an index of access points into each (mindrecord/inflated_file.h; the windows of all
// the source's files at most 64 MiB, of one file 32 MiB), then read through
// it, a segment between two points at a time, inflated once into a cache of
// 64 MiB for the process: in file order each byte is inflated once more,
// in any order too while the segments fit the cache; past it a record read
// at random costs inflating its segment (64 KiB for a file of up to 64 MiB
// decompressed when alone, doubling as files grow or share the budget).
//
// The leaf: {"node": "source", "kind": "tfrecord", "columns": [...],
// "rows": N, "args": {"files": [...], "types": [one per column], "shapes":
// [null | [dims], one per column], "compression": "" | "gzip" | "zlib"}}.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/inflated_file.h"
#include "pipeline/nodes/source.h"

namespace mindrecord {

// Records per file (the files of one source, compressed as `c`); Corruption
// naming the file and offset where the framing or the compressed stream breaks.
Result<std::vector<uint64_t>> CountTfRecords(const std::vector<std::string>& files,
                                             StreamCompression c = StreamCompression::kNone);

// MindSpore's columns for a TFRecord dataset given no schema: the features of
// the first record of `file`, sorted by name, as (name, type) with type
// "uint8" (bytes_list), "float32" or "int64". Corruption naming the file when
// it has no record or its first is no Example.
Result<std::vector<std::pair<std::string, std::string>>> TfRecordColumns(const std::string& file,
                                                                        StreamCompression c = StreamCompression::kNone);

// Thread safety: as Source.
Result<std::unique_ptr<Source>> OpenTfRecordSource(const nlohmann::json& node);

}  // namespace mindrecord
