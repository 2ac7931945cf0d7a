// Checksums of our MindSpore-compatible integrity extension: XXH3-64 of each
// page's used bytes, stored as the page object's "mr_xxh3" key, and of the
// header JSON, stored as the top-level "mr_header_xxh3" key (computed over
// the header text with that value's 16 hex digits written as zeros).
// MindSpore's reader ignores both keys.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "mindrecord/constants.h"  // kPageChecksumKey, kHeaderChecksumKey
#include "mindrecord/status.h"

namespace mindrecord {


uint64_t Xxh3(std::string_view bytes);
std::string ChecksumHex(uint64_t v);  // 16 lowercase hex digits

// XXH3-64 fed piece by piece: Digest() equals Xxh3() of everything Update()
// was given. Thread safety: a value type; one thread at a time.
class Xxh3Stream {
 public:
  Xxh3Stream();
  ~Xxh3Stream();
  Xxh3Stream(Xxh3Stream&&) noexcept;
  Xxh3Stream& operator=(Xxh3Stream&&) noexcept;
  void Update(std::string_view bytes);
  uint64_t Digest() const;
  void Reset();  // as new

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Fills in the header checksum of `json_text` (which holds the key with a
// placeholder value); no-op if the key is absent.
void SealHeaderChecksum(std::string* json_text);
// OK when the text has no header checksum or it matches; Corruption (naming
// `what`) otherwise.
Status VerifyHeaderChecksum(std::string_view json_text, const std::string& what);

}  // namespace mindrecord
