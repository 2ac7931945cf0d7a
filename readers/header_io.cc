#include "readers/header_io.h"

#include <mutex>
#include <optional>

#include "mindrecord/checksum.h"
#include "mindrecord/compression.h"
#include "mindrecord/constants.h"

namespace mindrecord {

namespace {

// The last header parsed in this process, by its exact text: opening a
// dataset reads its first header twice (to find and lock its shards, then
// under the lock), and a pipeline reopens it every epoch. Texts up to
// kMemoBytes only.
constexpr size_t kMemoBytes = 256 << 10;
std::mutex memo_mu;
std::string memo_text;
std::optional<ShardHeader> memo_header;

Result<ShardHeader> ParseMemoized(const std::string& text, const std::string& path) {
  if (text.size() <= kMemoBytes) {
    std::lock_guard<std::mutex> lock(memo_mu);
    if (memo_header && memo_text == text) return *memo_header;
  }
  MR_ASSIGN_OR_RETURN(ShardHeader h, ShardHeader::Parse(text, path));
  if (text.size() <= kMemoBytes) {
    std::lock_guard<std::mutex> lock(memo_mu);
    memo_text = text;
    memo_header = h;
  }
  return h;
}

}  // namespace

Result<ShardHeader> ReadShardHeader(const RandomAccessFile& f, bool verify) {
  const std::string& path = f.path();
  if (f.size() < kLengthPrefix) {
    return Status::Corruption(path + ": file is " + std::to_string(f.size()) +
                              " bytes, too short to hold a MindRecord header");
  }
  uint64_t len = 0;
  MR_RETURN_IF_ERROR(f.ReadAt(0, 8, reinterpret_cast<char*>(&len)));
  if (len == 0 || len > kMaxHeaderSize || len > f.size() - kLengthPrefix) {
    return Status::Corruption(path + ": header length " + std::to_string(len) + " runs past the end of the file (" +
                              std::to_string(f.size()) + " bytes); not a MindRecord file, or truncated");
  }
  std::string text(len, '\0');
  MR_RETURN_IF_ERROR(f.ReadAt(8, len, text.data()));
  if (verify) MR_RETURN_IF_ERROR(VerifyHeaderChecksum(text, path));
  MR_ASSIGN_OR_RETURN(ShardHeader h, ParseMemoized(text, path));
  h.json_bytes = len;
  if (verify && !h.extra.contains(kHeaderChecksumKey)) {
    // Our writer seals the header whenever it checksums pages; pages with
    // checksums under an unsealed header mean the header was damaged.
    for (const auto& p : h.pages) {
      if (p.extra.contains(kPageChecksumKey)) {
        return Status::Corruption(path + ": pages carry checksums but the header checksum is missing; the header "
                                  "was damaged");
      }
    }
  }
  if (len + kLengthPrefix > h.header_size) {
    return Status::Corruption(path + ": header JSON (" + std::to_string(len) + " bytes) overflows header_size " +
                              std::to_string(h.header_size));
  }
  for (const auto& p : h.pages) {
    const uint64_t off = h.PageOffset(p.page_id);
    if (off > f.size() || p.used_bytes > f.size() - off) {
      return Status::Corruption(path + ": page " + std::to_string(p.page_id) + " (offset " + std::to_string(off) +
                                ", " + std::to_string(p.used_bytes) + " bytes) extends past the end of the file (" +
                                std::to_string(f.size()) + " bytes); the file is truncated");
    }
  }
  return h;
}

Status CheckShardsAgree(const ShardHeader& a, const ShardHeader& b, const std::string& a_path, const std::string& b_path,
                        bool same_dataset) {
  auto differ = [&](const std::string& what) {
    return Status::Corruption(b_path + ": " + what + " differs from " + a_path + "; the shards are not one dataset");
  };
  if (a.header_size != b.header_size) return differ("header_size");
  if (a.page_size != b.page_size) return differ("page_size");
  if (a.version != b.version) return differ("version");
  if (!(a.schema == b.schema)) return differ("schema");
  if (a.index_fields != b.index_fields || a.index_fields_null != b.index_fields_null) return differ("index_fields");
  if (same_dataset && a.shard_addresses != b.shard_addresses) return differ("shard_addresses");
  auto ca = a.extra.find(kCompressionKey), cb = b.extra.find(kCompressionKey);
  if ((ca == a.extra.end()) != (cb == b.extra.end()) || (ca != a.extra.end() && *ca != *cb)) {
    return differ(std::string("\"") + kCompressionKey + "\" (codec or dictionary)");
  }
  return Status::OK();
}

}  // namespace mindrecord
