#include "mindrecord/crypto_util.h"

#include <algorithm>
#include <vector>

#include "mindrecord/constants.h"

namespace mindrecord {

const EVP_CIPHER* AesGcm(size_t key_len) {
  return key_len == 16 ? EVP_aes_128_gcm() : key_len == 24 ? EVP_aes_192_gcm() : key_len == 32 ? EVP_aes_256_gcm()
                                                                                                : nullptr;
}
const EVP_CIPHER* AesCtr(size_t key_len) {
  return key_len == 16 ? EVP_aes_128_ctr() : key_len == 24 ? EVP_aes_192_ctr() : key_len == 32 ? EVP_aes_256_ctr()
                                                                                                : nullptr;
}
const EVP_CIPHER* AesEcb(size_t key_len) {
  return key_len == 16 ? EVP_aes_128_ecb() : key_len == 24 ? EVP_aes_192_ecb() : key_len == 32 ? EVP_aes_256_ecb()
                                                                                                : nullptr;
}

Status CheckKeyLength(const std::string& key, const std::string& path) {
  if (key.size() == 16 || key.size() == 24 || key.size() == 32) return Status::OK();
  return Status::InvalidArgument(path + ": The length of input enc_key is not 16, 24, 32 (got " +
                                 std::to_string(key.size()) + " bytes)");
}

uint32_t ModeMagic(const std::string& mode) {
  return mode == "AES-GCM" ? kGcmMagic : mode == "AES-CBC" ? kCbcMagic : mode == "SM4-CBC" ? kSm4Magic : 0;
}

const EVP_CIPHER* CbcCipher(const std::string& mode, size_t key_len) {
  if (mode == "SM4-CBC") return key_len == 16 ? EVP_sm4_cbc() : nullptr;
  if (mode != "AES-CBC") return nullptr;
  return key_len == 16 ? EVP_aes_128_cbc() : key_len == 24 ? EVP_aes_192_cbc() : key_len == 32 ? EVP_aes_256_cbc()
                                                                                                : nullptr;
}

Status CheckModeKey(const std::string& mode, const std::string& key, const std::string& path) {
  if (ModeMagic(mode) == 0) {
    return Status::InvalidArgument(path + ": enc_mode / dec_mode " + mode + " is not one of AES-GCM, AES-CBC, SM4-CBC");
  }
  MR_RETURN_IF_ERROR(CheckKeyLength(key, path));
  if (mode == "SM4-CBC" && key.size() != 16) {
    return Status::InvalidArgument(path + ": SM4-CBC takes a key of 16 bytes (got " + std::to_string(key.size()) + ")");
  }
  return Status::OK();
}

bool InitGcm(EVP_CIPHER_CTX* ctx, const std::string& key, const uint8_t iv[16], bool encrypt) {
  const EVP_CIPHER* c = AesGcm(key.size());
  if (c == nullptr) return false;
  const auto* k = reinterpret_cast<const unsigned char*>(key.data());
  if (EVP_CipherInit_ex(ctx, c, nullptr, nullptr, nullptr, encrypt ? 1 : 0) != 1) return false;
  if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, 16, nullptr) != 1) return false;
  return EVP_CipherInit_ex(ctx, nullptr, nullptr, k, iv, encrypt ? 1 : 0) == 1;
}

Status GcmFirstCounter(const std::string& key, const uint8_t iv[16], uint8_t counter[16], const std::string& path) {
  unsigned char zeros[16] = {}, keystream[16];
  int outl = 0;
  CipherCtx gcm;
  if (!gcm.ok() || !InitGcm(gcm.get(), key, iv, true) ||
      EVP_EncryptUpdate(gcm.get(), keystream, &outl, zeros, 16) != 1 || outl != 16) {
    return Status::Internal(path + ": OpenSSL AES-GCM failed");
  }
  CipherCtx ecb;
  if (!ecb.ok() ||
      EVP_DecryptInit_ex(ecb.get(), AesEcb(key.size()), nullptr, reinterpret_cast<const unsigned char*>(key.data()),
                         nullptr) != 1 ||
      EVP_CIPHER_CTX_set_padding(ecb.get(), 0) != 1 ||
      EVP_DecryptUpdate(ecb.get(), counter, &outl, keystream, 16) != 1 || outl != 16) {
    return Status::Internal(path + ": OpenSSL AES-ECB failed");
  }
  return Status::OK();
}

const EVP_MD* DigestFor(const std::string& m) {
  if (m == "sha224") return EVP_sha224();
  if (m == "sha256") return EVP_sha256();
  if (m == "sha384") return EVP_sha384();
  if (m == "sha512") return EVP_sha512();
  if (m == "sha3_224") return EVP_sha3_224();
  if (m == "sha3_256") return EVP_sha3_256();
  if (m == "sha3_384") return EVP_sha3_384();
  if (m == "sha3_512") return EVP_sha3_512();
  return nullptr;
}

Result<size_t> DigestSize(const std::string& hash_mode) {
  const EVP_MD* md = DigestFor(hash_mode);
  if (md == nullptr) {
    return Status::InvalidArgument("hash mode '" + hash_mode +
                                   "' is not one of sha256, sha384, sha512, sha3_256, sha3_384, sha3_512, sha224, "
                                   "sha3_224");
  }
  return static_cast<size_t>(EVP_MD_get_size(md));
}

Result<std::string> DigestOfFile(const RandomAccessFile& f, uint64_t n, const std::string& hash_mode) {
  const EVP_MD* md = DigestFor(hash_mode);
  if (md == nullptr) return DigestSize(hash_mode).status();
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (ctx == nullptr || EVP_DigestInit_ex(ctx, md, nullptr) != 1) {
    EVP_MD_CTX_free(ctx);
    return Status::Internal(f.path() + ": OpenSSL digest init failed");
  }
  constexpr uint64_t kPiece = uint64_t{1} << 20;
  std::vector<char> buf(static_cast<size_t>(std::min(n, kPiece)));
  Status st;
  for (uint64_t done = 0; done < n && st.ok();) {
    const size_t piece = static_cast<size_t>(std::min(n - done, kPiece));
    st = f.ReadAt(done, piece, buf.data());
    if (st.ok() && EVP_DigestUpdate(ctx, buf.data(), piece) != 1) st = Status::Internal(f.path() + ": digest failed");
    done += piece;
  }
  std::string out(EVP_MAX_MD_SIZE, '\0');
  unsigned int len = 0;
  if (st.ok() && EVP_DigestFinal_ex(ctx, reinterpret_cast<unsigned char*>(out.data()), &len) != 1) {
    st = Status::Internal(f.path() + ": digest failed");
  }
  EVP_MD_CTX_free(ctx);
  if (!st.ok()) return st;
  out.resize(len);
  return out;
}

}  // namespace mindrecord
