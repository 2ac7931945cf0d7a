// MindSpore's encrypted and hashed file layouts (mindrecord/encryption.h):
// the bytes after the first are a stored shard or index file, opened with a
// fixed key, hash mode and decryption mode as the first byte's bits say, then read in
// pieces. Every outcome is an error or bytes: no crash, hang or allocation
// sized by a length field rather than by the file.
#include <algorithm>
#include <memory>
#include <string>
#include <string_view>

#include "mindrecord/encryption.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/mem_file.h"

namespace {
// make_seeds.py encrypts its seeds with this key.
constexpr char kFuzzKey[] = "mindrecord-fuzz!";  // 16 bytes: AES-128
}  // namespace

MINDRECORD_FUZZ_TARGET(encryption) {
  if (size < 1) return 0;
  const uint8_t mode = data[0];
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  mindrecord::CryptoConfig config;
  if (mode & 1) config.key = kFuzzKey;
  // Bits 5-6: the decryption mode (MindSpore's three).
  static const char* const kModes[] = {"AES-GCM", "AES-CBC", "SM4-CBC", "AES-GCM"};
  config.dec_mode = kModes[(mode >> 5) & 3];
  if (mode & 2) config.hash_mode = (mode & 4) ? "sha512" : "sha256";
  {
    const mindrecord::fuzz::MemFile probe(bytes, "fuzz");
    (void)mindrecord::IsEncryptedFile(probe);
    (void)mindrecord::RefuseProtected(probe, "appending to");  // IsHashedFile too
  }
  auto file = mindrecord::OpenProtectedFile(std::make_unique<mindrecord::fuzz::MemFile>(bytes, "fuzz"), config);
  if (!file.ok()) return 0;
  // Plaintext is never larger than what is stored.
  const uint64_t n = (*file)->size();
  if (n > bytes.size()) __builtin_trap();
  // Read it whole in pieces of a size the input picks (a piece may cross
  // blocks), then once from the end backwards.
  const size_t piece = 1 + (static_cast<size_t>(mode >> 3) * 331) % 4096;
  std::string buf(piece, '\0');
  for (uint64_t at = 0; at < n; at += piece) {
    const size_t len = static_cast<size_t>(std::min<uint64_t>(piece, n - at));
    if (!(*file)->ReadAt(at, len, buf.data()).ok()) return 0;
  }
  for (uint64_t end = n; end > 0;) {
    const size_t len = static_cast<size_t>(std::min<uint64_t>(piece, end));
    end -= len;
    if (!(*file)->ReadAt(end, len, buf.data()).ok()) return 0;
  }
  // Past the end is an error, not bytes.
  if ((*file)->ReadAt(n, 1, buf.data()).ok()) __builtin_trap();
  return 0;
}
