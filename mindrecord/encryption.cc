// Reading MindSpore's encrypted and hashed files in place (encryption.h).
#include "mindrecord/encryption.h"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#include "mindrecord/crypto_util.h"

namespace mindrecord {

namespace {

std::mutex g_config_mu;
CryptoConfig g_config;  // guarded by g_config_mu

constexpr size_t kFlagLen = 7;
constexpr size_t kTrailerLen = 4 + 7 + kFlagLen;  // end marker, mode, flag
constexpr size_t kBlockHeaderLen = 48;            // AES-GCM: magic .. cipher length, after the 4-byte record length
constexpr size_t kCbcHeaderLen = 32;              // AES-CBC / SM4-CBC: the same without the tag

const char kNoKeyMessage[] =
    "The mindrecord file is encrypted. You need to configure 'mindrecord.set_enc_key(...)' and "
    "'mindrecord.set_enc_mode(...)' for decryption.";
const char kNotEncryptedMessage[] =
    "The mindrecord file is not encrypted. You can set 'mindrecord.set_enc_key(None)' to disable the decryption.";

// One encrypted block: plaintext [plain_begin, plain_begin + n) is the
// ciphertext at cipher_offset.
struct Block {
  uint64_t plain_begin = 0;
  uint64_t cipher_offset = 0;
  uint32_t n = 0;
  uint32_t c = 0;  // ciphertext bytes: n (GCM), or n and its PKCS#7 padding (CBC)
  uint8_t tag[16] = {};
  uint8_t iv[16] = {};
  uint8_t counter1[16] = {};  // the GCM counter block of the first 16 bytes (inc32 of J0)
};

// `cbc`: the blocks' CBC cipher (AES-CBC, SM4-CBC); nullptr: AES-GCM.
// Thread safety: ReadAt may be called from any number of threads at once;
// each call uses its own cipher contexts, and blocks are marked verified
// atomically (two threads may verify one block at once, to the same end).
class EncryptedFile : public RandomAccessFile {
 public:
  EncryptedFile(std::unique_ptr<RandomAccessFile> base, std::string key, const EVP_CIPHER* cbc,
                std::vector<Block> blocks, uint64_t size)
      : base_(std::move(base)), key_(std::move(key)), cbc_(cbc), blocks_(std::move(blocks)), size_(size),
        verified_(new std::atomic<bool>[blocks_.size()]()) {}

  Status ReadAt(uint64_t offset, size_t n, char* out) const override {
    if (offset > size_ || n > size_ - offset) {
      return Status::Corruption(path() + ": read of " + std::to_string(n) + " bytes at offset " +
                                std::to_string(offset) + " is past the end of the decrypted file (" +
                                std::to_string(size_) + " bytes)");
    }
    // The first block holding `offset`.
    size_t b = std::upper_bound(blocks_.begin(), blocks_.end(), offset,
                                [](uint64_t o, const Block& blk) { return o < blk.plain_begin; }) -
               blocks_.begin() - 1;
    while (n > 0) {
      const Block& blk = blocks_[b];
      // (CBC carries no tag: its padding was checked at open.)
      if (cbc_ == nullptr) MR_RETURN_IF_ERROR(Verify(b));
      const uint64_t in_block = offset - blk.plain_begin;
      const size_t take = static_cast<size_t>(std::min<uint64_t>(n, blk.n - in_block));
      MR_RETURN_IF_ERROR(cbc_ ? DecryptRangeCbc(blk, in_block, take, out) : DecryptRange(blk, in_block, take, out));
      out += take;
      offset += take;
      n -= take;
      ++b;
    }
    return Status::OK();
  }
  uint64_t size() const override { return size_; }
  const std::string& path() const override { return base_->path(); }

 private:
  // Authenticates block b once: its whole ciphertext through AES-GCM, in
  // pieces of 1 MiB (the plaintext is discarded).
  Status Verify(size_t b) const {
    if (verified_[b].load(std::memory_order_acquire)) return Status::OK();
    const Block& blk = blocks_[b];
    CipherCtx ctx;
    if (!ctx.ok() || !InitGcm(ctx.get(), key_, blk.iv, /*encrypt=*/false)) return CryptoError("AES-GCM init");
    std::vector<unsigned char> in(std::min<uint64_t>(blk.n, kPieceBytes)), out(in.size() + 16);
    for (uint64_t done = 0; done < blk.n;) {
      const size_t piece = static_cast<size_t>(std::min<uint64_t>(blk.n - done, kPieceBytes));
      MR_RETURN_IF_ERROR(base_->ReadAt(blk.cipher_offset + done, piece, reinterpret_cast<char*>(in.data())));
      int outl = 0;
      if (EVP_DecryptUpdate(ctx.get(), out.data(), &outl, in.data(), static_cast<int>(piece)) != 1) {
        return CryptoError("AES-GCM decrypt");
      }
      done += piece;
    }
    int outl = 0;
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, 16, const_cast<uint8_t*>(blk.tag)) != 1 ||
        EVP_DecryptFinal_ex(ctx.get(), out.data(), &outl) != 1) {
      return Status::Corruption(path() + ": encrypted block " + std::to_string(b) + " (plaintext bytes " +
                                std::to_string(blk.plain_begin) + ".." + std::to_string(blk.plain_begin + blk.n) +
                                ") fails its AES-GCM tag check: Failed to decrypt data, please check if enc_key and "
                                "enc_mode / dec_mode is valid (or the file was altered)");
    }
    verified_[b].store(true, std::memory_order_release);
    return Status::OK();
  }

  // Plaintext [at, at + n) of `blk` into out: the ciphertext read there and
  // run through AES-CTR from the GCM counter of its first 16-byte block.
  // GCM increments only the counter's low 32 bits (wrapping), OpenSSL's CTR
  // all 128, so a range is cut where the low word wraps.
  Status DecryptRange(const Block& blk, uint64_t at, size_t n, char* out) const {
    MR_RETURN_IF_ERROR(base_->ReadAt(blk.cipher_offset + at, n, out));
    const uint32_t low1 = LoadBe32(blk.counter1 + 12);
    while (n > 0) {
      const uint64_t q = at / 16;
      const size_t skip = static_cast<size_t>(at % 16);
      const uint32_t low = static_cast<uint32_t>(low1 + q);
      const uint64_t before_wrap = ((uint64_t{1} << 32) - low) * 16 - skip;
      const size_t take = static_cast<size_t>(std::min<uint64_t>(n, before_wrap));
      uint8_t counter[16];
      std::memcpy(counter, blk.counter1, 12);
      StoreBe32(counter + 12, low);
      CipherCtx ctx;
      if (!ctx.ok() || EVP_DecryptInit_ex(ctx.get(), AesCtr(key_.size()), nullptr,
                                          reinterpret_cast<const unsigned char*>(key_.data()), counter) != 1) {
        return CryptoError("AES-CTR init");
      }
      unsigned char scratch[16];
      int outl = 0;
      if (skip > 0 && EVP_DecryptUpdate(ctx.get(), scratch, &outl, scratch, static_cast<int>(skip)) != 1) {
        return CryptoError("AES-CTR");
      }
      auto* p = reinterpret_cast<unsigned char*>(out);
      for (size_t done = 0; done < take;) {  // EVP lengths are int: pieces of at most 1 GiB
        const int piece = static_cast<int>(std::min<size_t>(take - done, size_t{1} << 30));
        if (EVP_DecryptUpdate(ctx.get(), p + done, &outl, p + done, piece) != 1) return CryptoError("AES-CTR");
        done += static_cast<size_t>(piece);
      }
      out += take;
      at += take;
      n -= take;
    }
    return Status::OK();
  }

  // Plaintext [at, at + n) of a CBC block into out. P_i = D(C_i) xor C_i-1
  // (C_-1 the IV): the range's 16-byte blocks decrypt as a CBC run of their
  // own with the ciphertext block before them as its IV; in pieces of 1 MiB.
  Status DecryptRangeCbc(const Block& blk, uint64_t at, size_t n, char* out) const {
    if (n == 0) return Status::OK();
    const uint64_t first = at / 16 * 16, end = (at + n + 15) / 16 * 16;  // end <= blk.c
    unsigned char iv[16];
    if (first == 0) {
      std::memcpy(iv, blk.iv, 16);
    } else {
      MR_RETURN_IF_ERROR(base_->ReadAt(blk.cipher_offset + first - 16, 16, reinterpret_cast<char*>(iv)));
    }
    CipherCtx ctx;
    if (!ctx.ok() ||
        EVP_DecryptInit_ex(ctx.get(), cbc_, nullptr, reinterpret_cast<const unsigned char*>(key_.data()), iv) != 1 ||
        EVP_CIPHER_CTX_set_padding(ctx.get(), 0) != 1) {
      return CryptoError("CBC init");
    }
    std::vector<unsigned char> in(static_cast<size_t>(std::min<uint64_t>(end - first, kPieceBytes)));
    std::vector<unsigned char> plain(in.size() + 16);
    for (uint64_t pos = first; pos < end;) {
      const size_t piece = static_cast<size_t>(std::min<uint64_t>(end - pos, kPieceBytes));
      MR_RETURN_IF_ERROR(base_->ReadAt(blk.cipher_offset + pos, piece, reinterpret_cast<char*>(in.data())));
      int outl = 0;
      if (EVP_DecryptUpdate(ctx.get(), plain.data(), &outl, in.data(), static_cast<int>(piece)) != 1 ||
          outl != static_cast<int>(piece)) {
        return CryptoError("CBC decrypt");
      }
      const uint64_t lo = std::max<uint64_t>(pos, at), hi = std::min<uint64_t>(pos + piece, at + n);
      std::memcpy(out + (lo - at), plain.data() + (lo - pos), static_cast<size_t>(hi - lo));
      pos += piece;
    }
    return Status::OK();
  }

  Status CryptoError(const char* what) const { return Status::Internal(path() + ": OpenSSL " + what + " failed"); }

  static constexpr uint64_t kPieceBytes = uint64_t{1} << 20;
  std::unique_ptr<RandomAccessFile> base_;
  std::string key_;
  const EVP_CIPHER* cbc_;
  std::vector<Block> blocks_;
  uint64_t size_;
  std::unique_ptr<std::atomic<bool>[]> verified_;
};

std::string Hex32(uint32_t v) {
  char b[9];
  std::snprintf(b, sizeof b, "%08x", static_cast<unsigned>(v));
  return b;
}

// The PKCS#7 padding of a CBC block: its last 16 bytes decrypted (with the
// ciphertext block before them, or the IV) must end in p bytes of value p,
// 1 <= p <= 16. The only check CBC allows (MindSpore's too): a wrong key or
// damaged last block fails it (but for a 1 in ~256 chance).
Result<uint32_t> CbcPadding(const RandomAccessFile& f, const EVP_CIPHER* cipher, const std::string& key,
                            const Block& b, uint64_t record) {
  unsigned char in[32];
  if (b.c == 16) {
    std::memcpy(in, b.iv, 16);
    MR_RETURN_IF_ERROR(f.ReadAt(b.cipher_offset, 16, reinterpret_cast<char*>(in + 16)));
  } else {
    MR_RETURN_IF_ERROR(f.ReadAt(b.cipher_offset + b.c - 32, 32, reinterpret_cast<char*>(in)));
  }
  CipherCtx ctx;
  unsigned char p[32];
  int outl = 0;
  if (!ctx.ok() ||
      EVP_DecryptInit_ex(ctx.get(), cipher, nullptr, reinterpret_cast<const unsigned char*>(key.data()), in) != 1 ||
      EVP_CIPHER_CTX_set_padding(ctx.get(), 0) != 1 || EVP_DecryptUpdate(ctx.get(), p, &outl, in + 16, 16) != 1 ||
      outl != 16) {
    return Status::Internal(f.path() + ": OpenSSL CBC decrypt failed");
  }
  const uint32_t pad = p[15];
  bool ok = pad >= 1 && pad <= 16;
  for (uint32_t i = 16 - std::min<uint32_t>(pad, 16); ok && i < 16; ++i) ok = p[i] == pad;
  if (!ok) {
    return Status::Corruption(f.path() + ": encrypted block at offset " + std::to_string(record) +
                              " fails its padding check: Failed to decrypt data, please check if enc_key and "
                              "enc_mode / dec_mode is valid (or the file was altered)");
  }
  return pad;
}

// The encrypted file's blocks in `mode`, each header checked against the
// file size. AES-GCM: magic | tag | LE 24 + n | LE 16 | IV | LE n | n bytes;
// AES-CBC / SM4-CBC: magic | LE 24 + c | LE 16 | IV | LE c | c bytes (the
// plaintext and its PKCS#7 padding: c = n rounded up to the next multiple
// of 16).
Result<std::vector<Block>> ParseBlocks(const RandomAccessFile& f, const std::string& key, const std::string& mode,
                                       uint64_t* plain_size) {
  const std::string& path = f.path();
  const uint64_t end = f.size() - kTrailerLen + 4;  // where the records and the end marker end
  const EVP_CIPHER* cbc = CbcCipher(mode, key.size());
  const uint32_t want_magic = ModeMagic(mode);
  const uint64_t header = cbc ? kCbcHeaderLen : kBlockHeaderLen;
  const uint64_t min_len = cbc ? header + 16 : header + 1;
  const uint64_t max_len = header + kCryptoBlockBytes + (cbc ? 16 : 0);
  std::vector<Block> blocks;
  uint64_t off = 0, plain = 0;
  for (;;) {
    if (off + 4 > end) {
      return Status::Corruption(path + ": encrypted file ends inside the record at offset " + std::to_string(off));
    }
    unsigned char len_be[4];
    MR_RETURN_IF_ERROR(f.ReadAt(off, 4, reinterpret_cast<char*>(len_be)));
    const uint32_t len = LoadBe32(len_be);
    if (len == 0) {
      if (off + 4 != end) {
        return Status::Corruption(path + ": end marker at offset " + std::to_string(off) + ", expected at " +
                                  std::to_string(end - 4));
      }
      break;
    }
    if (len < min_len || len > max_len || off + 4 + len > end) {
      return Status::Corruption(path + ": encrypted record at offset " + std::to_string(off) + " has length " +
                                std::to_string(len) + " (expected " + std::to_string(min_len) + ".." +
                                std::to_string(max_len) + " and within the file)");
    }
    unsigned char h[kBlockHeaderLen];
    MR_RETURN_IF_ERROR(f.ReadAt(off + 4, header, reinterpret_cast<char*>(h)));
    const uint32_t magic = LoadLe32(h);
    if (magic != want_magic) {
      return Status::InvalidArgument(path + ": the block at offset " + std::to_string(off + 4) +
                                     " is not an encrypted " + mode + " block and cannot be decrypted (magic 0x" +
                                     Hex32(magic) + ")");
    }
    Block b;
    b.cipher_offset = off + 4 + header;
    b.plain_begin = plain;
    if (cbc) {
      const uint32_t c = len - kCbcHeaderLen;
      if (c % 16 != 0 || LoadLe32(h + 4) != 24 + c || LoadLe32(h + 8) != 16 || LoadLe32(h + 28) != c) {
        return Status::Corruption(path + ": encrypted block at offset " + std::to_string(off + 4) +
                                  " has a bad header (block size, IV length or cipher length)");
      }
      b.c = c;
      std::memcpy(b.iv, h + 12, 16);
      MR_ASSIGN_OR_RETURN(const uint32_t pad, CbcPadding(f, cbc, key, b, off));
      b.n = c - pad;
    } else {
      const uint32_t n = len - kBlockHeaderLen;
      if (LoadLe32(h + 20) != 24 + n || LoadLe32(h + 24) != 16 || LoadLe32(h + 44) != n) {
        return Status::Corruption(path + ": encrypted block at offset " + std::to_string(off + 4) +
                                  " has a bad header (magic, block size, IV length or cipher length)");
      }
      b.n = b.c = n;
      std::memcpy(b.tag, h + 4, 16);
      std::memcpy(b.iv, h + 28, 16);
      MR_RETURN_IF_ERROR(GcmFirstCounter(key, b.iv, b.counter1, path));
    }
    blocks.push_back(b);
    plain += b.n;
    off += 4 + uint64_t{len};
  }
  if (blocks.empty()) return Status::Corruption(path + ": encrypted file holds no block");
  *plain_size = plain;
  return blocks;
}

// Verified digests, so a dataset reopened in this process (auto I/O mode
// reopens every shard) is not hashed twice: "path|dev|inode|size|mtime".
std::mutex g_verified_mu;
std::set<std::string> g_verified;  // guarded by g_verified_mu

std::string IdentityKey(const std::string& path, const std::string& hash_mode) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return "";
  return path + "|" + std::to_string(st.st_dev) + "|" + std::to_string(st.st_ino) + "|" + std::to_string(st.st_size) +
         "|" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + "|" + hash_mode;
}

// MindSpore's hash check of a file's contents (its verify_file_hash).
Status CheckDigest(const RandomAccessFile& f, const std::string& hash_mode) {
  const std::string& path = f.path();
  const uint64_t size = f.size();
  char tail[8];
  if (size < 8 || !f.ReadAt(size - 8, 8, tail).ok() || std::memcmp(tail + 4, "HASH", 4) != 0) {
    return Status::InvalidArgument(path + ": The mindrecord file is not hashed. You can set "
                                          "'mindrecord.set_hash_mode(None)' to disable the hash check.");
  }
  const uint32_t len = LoadBe32(reinterpret_cast<unsigned char*>(tail));
  MR_ASSIGN_OR_RETURN(size_t want, DigestSize(hash_mode));
  const std::string fail = path + ": The input file: " + path + " hash check fail. The file may be damaged. Or "
                           "configure a correct hash mode.";
  if (len != want || uint64_t{len} + 8 > size) {
    return Status::Corruption(fail + " (the stored digest has " + std::to_string(len) + " bytes, " + hash_mode +
                              " gives " + std::to_string(want) + ")");
  }
  const uint64_t data = size - 8 - len;
  std::string stored(len, '\0');
  MR_RETURN_IF_ERROR(f.ReadAt(data, len, stored.data()));
  MR_ASSIGN_OR_RETURN(std::string got, DigestOfFile(f, data, hash_mode));
  if (got != stored) return Status::Corruption(fail);
  return Status::OK();
}

}  // namespace

void SetCryptoConfig(const CryptoConfig& config) {
  std::lock_guard<std::mutex> l(g_config_mu);
  g_config = config;
}

CryptoConfig CurrentCryptoConfig() {
  std::lock_guard<std::mutex> l(g_config_mu);
  return g_config;
}

Result<bool> IsEncryptedFile(const RandomAccessFile& f) {
  const uint64_t size = f.size();
  if (size < 4 + kBlockHeaderLen + kTrailerLen) return false;
  // A plain shard starts with its 8-byte LE header length, so bytes 4..8
  // are zero there; an encrypted file has its first block's magic. The head
  // first: a plain file is told apart without reading its end (for a remote
  // file, the bytes its header request fetched anyway).
  unsigned char head[8];
  MR_RETURN_IF_ERROR(f.ReadAt(0, 8, reinterpret_cast<char*>(head)));
  const uint32_t magic = LoadLe32(head + 4);
  if (magic != kGcmMagic && magic != kCbcMagic && magic != kSm4Magic) return false;
  char tail[kTrailerLen];
  MR_RETURN_IF_ERROR(f.ReadAt(size - kTrailerLen, kTrailerLen, tail));
  return std::memcmp(tail + 11, kEncryptFlag, kFlagLen) == 0 && std::memcmp(tail, "\0\0\0\0", 4) == 0;
}

Result<bool> IsHashedFile(const RandomAccessFile& f) {
  const uint64_t size = f.size();
  if (size < 8) return false;
  unsigned char tail[8];
  MR_RETURN_IF_ERROR(f.ReadAt(size - 8, 8, reinterpret_cast<char*>(tail)));
  if (std::memcmp(tail + 4, "HASH", 4) != 0) return false;
  const uint32_t len = LoadBe32(tail);
  return (len == 28 || len == 32 || len == 48 || len == 64) && uint64_t{len} + 8 <= size;
}

Status RefuseProtected(const RandomAccessFile& f, const std::string& doing) {
  MR_ASSIGN_OR_RETURN(const bool encrypted, IsEncryptedFile(f));
  MR_ASSIGN_OR_RETURN(const bool hashed, IsHashedFile(f));
  if (!encrypted && !hashed) return Status::OK();
  return Status::NotSupported(f.path() + ": " + doing + " an " + (encrypted ? "encrypted" : "hashed") +
                              " dataset is not supported (copy it into a new dataset instead)");
}

Result<std::unique_ptr<RandomAccessFile>> OpenProtectedFile(std::unique_ptr<RandomAccessFile> file,
                                                            const CryptoConfig& config) {
  const std::string path = file->path();
  MR_ASSIGN_OR_RETURN(bool encrypted, IsEncryptedFile(*file));
  if (encrypted) {
    if (config.key.empty()) return Status::InvalidArgument(path + ": " + kNoKeyMessage);
    char mode[7];
    MR_RETURN_IF_ERROR(file->ReadAt(file->size() - 14, 7, mode));
    if (std::string(mode, 7) != config.dec_mode) {
      return Status::InvalidArgument(path + ": Failed to decrypt data, please check if enc_key and enc_mode / "
                                     "dec_mode is valid (the file is encrypted with " + std::string(mode, 7) +
                                     ", the decryption mode is " + config.dec_mode + ")");
    }
    MR_RETURN_IF_ERROR(CheckModeKey(config.dec_mode, config.key, path));
    uint64_t plain = 0;
    MR_ASSIGN_OR_RETURN(std::vector<Block> blocks, ParseBlocks(*file, config.key, config.dec_mode, &plain));
    file = std::make_unique<EncryptedFile>(std::move(file), config.key, CbcCipher(config.dec_mode, config.key.size()),
                                           std::move(blocks), plain);
  } else if (!config.key.empty()) {
    return Status::InvalidArgument(path + ": " + kNotEncryptedMessage);
  }
  if (!config.hash_mode.empty()) {
    const std::string key = IdentityKey(path, config.hash_mode);
    bool known = false;
    {
      std::lock_guard<std::mutex> l(g_verified_mu);
      known = !key.empty() && g_verified.count(key) > 0;
    }
    if (!known) {
      MR_RETURN_IF_ERROR(CheckDigest(*file, config.hash_mode));
      std::lock_guard<std::mutex> l(g_verified_mu);
      if (!key.empty()) g_verified.insert(key);
    }
  }
  return file;
}

Result<std::optional<std::string>> ReadProtectedIndex(FileSystem* fs, const std::string& path,
                                                      const CryptoConfig& config) {
  if (config.key.empty() && config.hash_mode.empty()) {
    MR_ASSIGN_OR_RETURN(auto f, fs->OpenRead(path));
    MR_ASSIGN_OR_RETURN(bool encrypted, IsEncryptedFile(*f));
    if (encrypted) return Status::InvalidArgument(path + ": " + kNoKeyMessage);
    return std::optional<std::string>();
  }
  MR_ASSIGN_OR_RETURN(auto f, fs->OpenRead(path));
  MR_ASSIGN_OR_RETURN(bool encrypted, IsEncryptedFile(*f));
  MR_ASSIGN_OR_RETURN(auto view, OpenProtectedFile(std::move(f), config));
  if (!encrypted) return std::optional<std::string>();
  std::string image(static_cast<size_t>(view->size()), '\0');
  MR_RETURN_IF_ERROR(view->ReadAt(0, image.size(), image.data()));
  return std::optional<std::string>(std::move(image));
}

}  // namespace mindrecord
