// OpenSSL helpers shared by the reading and writing sides of encryption.h:
// cipher contexts, AES-GCM set-up with MindSpore's 16-byte IVs, the GCM
// counter of a block's first 16 bytes, digests by MindSpore's hash-mode
// names, and fixed-width integer coding. Internal to mindrecord/.
#pragma once

#include <openssl/evp.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "mindrecord/file.h"
#include "mindrecord/status.h"

namespace mindrecord {

// Thread safety: a CipherCtx belongs to one thread.
class CipherCtx {
 public:
  CipherCtx() : ctx_(EVP_CIPHER_CTX_new()) {}
  ~CipherCtx() { EVP_CIPHER_CTX_free(ctx_); }
  CipherCtx(const CipherCtx&) = delete;
  CipherCtx& operator=(const CipherCtx&) = delete;
  bool ok() const { return ctx_ != nullptr; }
  EVP_CIPHER_CTX* get() const { return ctx_; }

 private:
  EVP_CIPHER_CTX* ctx_;
};

inline uint32_t LoadBe32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}
inline uint32_t LoadLe32(const unsigned char* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}
inline void StoreBe32(unsigned char* p, uint32_t v) {
  p[0] = static_cast<unsigned char>(v >> 24);
  p[1] = static_cast<unsigned char>(v >> 16);
  p[2] = static_cast<unsigned char>(v >> 8);
  p[3] = static_cast<unsigned char>(v);
}
inline void StoreLe32(unsigned char* p, uint32_t v) {
  p[0] = static_cast<unsigned char>(v);
  p[1] = static_cast<unsigned char>(v >> 8);
  p[2] = static_cast<unsigned char>(v >> 16);
  p[3] = static_cast<unsigned char>(v >> 24);
}

// AES-128/192/256 by key length (16/24/32 bytes); nullptr otherwise.
const EVP_CIPHER* AesGcm(size_t key_len);
const EVP_CIPHER* AesCtr(size_t key_len);
const EVP_CIPHER* AesEcb(size_t key_len);

// InvalidArgument naming `path` unless the key has 16, 24 or 32 bytes.
Status CheckKeyLength(const std::string& key, const std::string& path);

// MindSpore's cipher modes: "AES-GCM", "AES-CBC" (AES-128/192/256 by key
// length) and "SM4-CBC" (16-byte keys only). The magic of a mode's blocks
// (0: not a mode); the CBC cipher of a CBC mode and key length (nullptr:
// none); InvalidArgument naming `path` unless `key` fits `mode`.
uint32_t ModeMagic(const std::string& mode);
const EVP_CIPHER* CbcCipher(const std::string& mode, size_t key_len);
Status CheckModeKey(const std::string& mode, const std::string& key, const std::string& path);

// Initializes `ctx` for AES-GCM with a 16-byte IV (MindSpore's), no padding.
bool InitGcm(EVP_CIPHER_CTX* ctx, const std::string& key, const uint8_t iv[16], bool encrypt);

// The counter block GCM uses for the first 16 bytes of plaintext under
// (key, iv), i.e. inc32(J0): got from OpenSSL by encrypting 16 zero bytes
// with AES-GCM (giving E(inc32(J0))) and decrypting that with AES-ECB.
Status GcmFirstCounter(const std::string& key, const uint8_t iv[16], uint8_t counter[16], const std::string& path);

// Digest size of a hash mode ("sha256", "sha3_512", ...); InvalidArgument
// for other names.
Result<size_t> DigestSize(const std::string& hash_mode);
// The digest of f's first `n` bytes, read in pieces of 1 MiB.
Result<std::string> DigestOfFile(const RandomAccessFile& f, uint64_t n, const std::string& hash_mode);
// The EVP digest of a hash mode; nullptr for other names.
const EVP_MD* DigestFor(const std::string& hash_mode);

}  // namespace mindrecord
