// A JSON file read as a stream of events (nlohmann's SAX interface) in 1 MiB
// pieces, with the byte offset of each event, so a planner can keep where
// the parts it needs lie instead of the whole document (which nlohmann holds
// in several times the file's size). Internal to writers/convert.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "mindrecord/file.h"
#include "mindrecord/status.h"

namespace mindrecord::convert {

// The events of one file. The JSON text grammar is nlohmann's (strict, no
// comments): the same file parses here as with nlohmann::json::parse, and
// the text between an object's brackets parses alone to the same value.
class JsonFileHandler : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool binary(binary_t&) override { return true; }  // never raised for JSON text
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override;

  // Bytes of the file read so far: in start_object / start_array, the
  // offset just past the opening bracket; in end_object / end_array, just
  // past the closing one.
  uint64_t offset() const { return position_->base + position_->at; }

  // Where the reader is: byte `at` of the piece that starts at `base`.
  struct Position {
    uint64_t base = 0;
    size_t at = 0;
  };

 private:
  friend Status ParseJsonFile(const RandomAccessFile& file, JsonFileHandler& handler);
  const Position* position_ = nullptr;
  std::string error_;
};

// Streams `file` through `handler`. Corruption "invalid JSON: <where and
// what>" for text that is not one JSON value (nlohmann's message, as its
// parse gives it); a read error as it is. A handler stopping the parse (an
// event returning false) gets Cancelled.
Status ParseJsonFile(const RandomAccessFile& file, JsonFileHandler& handler);

}  // namespace mindrecord::convert
