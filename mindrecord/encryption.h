// MindSpore 2.3+'s encrypted and hashed MindRecord files (its Python
// mindrecord/config.py over the AES-GCM block format of its C++ crypto
// utilities), read in place behind the file seam and written.
//
// A hashed file is the file, then its digest, the digest's length (uint32
// big-endian) and "HASH". An encrypted file is the (hashed) file cut into
// blocks of at most 64 MiB, each stored as
//   uint32 BE L | uint32 LE magic 0x7F3A5ED8 | 16-byte GCM tag |
//   int32 LE 24 + n | int32 LE 16 | 16-byte IV | int32 LE n | n bytes AES-GCM
// (L = 48 + n; no additional data; the IV is 16 bytes), or with AES-CBC
// (magic 0x7F3A5ED9) and SM4-CBC (0x7F3A5EDA) the same without the tag and
// c = n rounded up to the next multiple of 16 bytes of ciphertext (PKCS#7
// padding; L = 32 + c), then uint32 BE 0, the mode as 7 characters
// ("AES-GCM") and "ENCRYPT". FileWriter hashes, then encrypts, every shard
// and every .db. See mindrecord/FORMAT.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "mindrecord/constants.h"  // kGcmMagic, kCbcMagic, kSm4Magic, kEncryptFlag
#include "mindrecord/file.h"
#include "mindrecord/status.h"

namespace mindrecord {

// MindSpore's process-wide settings (set_enc_key, set_enc_mode,
// set_dec_mode, set_hash_mode).
struct CryptoConfig {
  std::string key;                    // 16, 24 or 32 bytes (AES-128/192/256); empty: no key
  std::string enc_mode = "AES-GCM";   // what writers encrypt with
  std::string dec_mode = "AES-GCM";   // what readers expect
  std::string hash_mode;              // "sha256", "sha384", "sha512", "sha3_256", ...; empty: none
};

// Thread safety: both may be called from any thread; readers take a copy
// when they open files.
void SetCryptoConfig(const CryptoConfig& config);
CryptoConfig CurrentCryptoConfig();

inline constexpr uint64_t kCryptoBlockBytes = uint64_t{64} << 20;  // plaintext per block

// Opens `file` (a shard or index file as stored) for reading its contents,
// as MindSpore's readers decrypt and check it:
// - encrypted: the returned file is the plaintext, decrypted by range on each
//   read; each block's tag is checked the first time any of its bytes is
//   read (a wrong key fails at the first read, naming the file). No key set,
//   or another dec_mode: an error naming the file with MindSpore's message.
// - a key set but the file is not encrypted: MindSpore's error.
// - config.hash_mode set: the file must end with a digest of that kind,
//   checked now over the whole (decrypted) contents; a hashed file read
//   without a hash mode is read as is (its trailer is trailing bytes).
// Plain files without a key or hash mode come back unchanged.
Result<std::unique_ptr<RandomAccessFile>> OpenProtectedFile(std::unique_ptr<RandomAccessFile> file,
                                                            const CryptoConfig& config);

// For an index (.db) file, which SQLite reads itself: checks it as
// OpenProtectedFile does and returns its decrypted bytes when encrypted (to
// open in memory), nothing when SQLite can open the file as it is.
Result<std::optional<std::string>> ReadProtectedIndex(FileSystem* fs, const std::string& path,
                                                      const CryptoConfig& config);

// True when `file` is laid out as an encrypted file (its trailer and the
// first block's magic), without a key.
Result<bool> IsEncryptedFile(const RandomAccessFile& file);
// True when `file` ends as a hashed file does: "HASH" after a big-endian
// length that one of the hash modes' digests has.
Result<bool> IsHashedFile(const RandomAccessFile& file);
// NotSupported for an encrypted or hashed `file`, which a tool that writes
// in place (an append, an index rebuild) would break: "<path>: <doing> an
// encrypted dataset is not supported (...)", `doing` e.g. "appending to".
Status RefuseProtected(const RandomAccessFile& file, const std::string& doing);

// MindSpore's FileWriter.commit protects each file it wrote: first its
// digest (config.hash_mode), then its encryption (config.key). Our writers
// take these two steps on their temporaries, before the files get their
// final names (WriterOptions::protection): AppendFileDigest appends the
// digest of `path` to it (fsynced); EncryptFileTo writes the encryption of
// `path` to `out_path` (a new file, fsynced; removed on failure).
Status AppendFileDigest(const std::string& path, const std::string& hash_mode, FileSystem* fs);
Status EncryptFileTo(const std::string& path, const std::string& out_path, const CryptoConfig& config,
                     FileSystem* fs);

// Checks what the two steps would check before they start: the mode and the
// key's length when a key is set, the hash mode when one is set (errors name
// `what`).
Status CheckProtection(const CryptoConfig& config, const std::string& what);

// A key or a hash mode set: a writer has files to protect.
inline bool Protects(const CryptoConfig& config) { return !config.key.empty() || !config.hash_mode.empty(); }

// The digest `hash_mode` gives for `data` (for tests and tools).
Result<std::string> Digest(const std::string& hash_mode, std::string_view data);

}  // namespace mindrecord
