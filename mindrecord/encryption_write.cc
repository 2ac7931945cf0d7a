// Writing MindSpore's hashed and encrypted files (encryption.h AppendFileDigest, EncryptFileTo).
#include <openssl/rand.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "mindrecord/crypto_util.h"
#include "mindrecord/encryption.h"

namespace mindrecord {

namespace {

constexpr uint64_t kHashPieceBytes = uint64_t{1} << 20;

// Appends digest | len (uint32 BE) | "HASH" to `path` (MindSpore's
// append_hash_to_file), fsynced.
Status AppendDigest(const std::string& path, const std::string& hash_mode, FileSystem* fs) {
  uint64_t size = 0;
  std::string digest;
  {
    MR_ASSIGN_OR_RETURN(auto in, fs->OpenRead(path));
    size = in->size();
    MR_ASSIGN_OR_RETURN(digest, DigestOfFile(*in, size, hash_mode));
  }
  std::string trailer = digest;
  unsigned char len[4];
  StoreBe32(len, static_cast<uint32_t>(digest.size()));
  trailer.append(reinterpret_cast<char*>(len), 4);
  trailer.append("HASH");
  MR_ASSIGN_OR_RETURN(auto out, fs->OpenUpdate(path));
  Status st = out->WriteAt(size, trailer);
  if (st.ok()) st = out->Sync();
  Status closed = out->Close();
  if (st.ok()) st = closed;
  return st.WithContext(path + ": appending the " + hash_mode + " digest");
}

// Writes one CBC record of `n` plaintext bytes of `in` from `begin` at *pos:
// BE length | LE magic | LE 24 + c | LE 16 | IV | LE c | c bytes, c the
// plaintext with its PKCS#7 padding, streamed in pieces of 1 MiB.
Status EncryptCbcRecord(const RandomAccessFile& in, uint64_t begin, uint32_t n, WritableFile* out, uint64_t* pos,
                        const CryptoConfig& config, std::vector<unsigned char>& plain,
                        std::vector<unsigned char>& cipher) {
  const std::string& mode = config.enc_mode;
  const uint32_t c = (n / 16 + 1) * 16;
  uint8_t iv[16];
  if (RAND_bytes(iv, sizeof(iv)) != 1) return Status::Internal(in.path() + ": OpenSSL RAND_bytes failed");
  unsigned char head[36] = {};
  StoreBe32(head, 32 + c);  // record length
  StoreLe32(head + 4, ModeMagic(mode));
  StoreLe32(head + 8, 24 + c);  // MindSpore's block size: IV length, IV, cipher length, cipher
  StoreLe32(head + 12, 16);
  std::memcpy(head + 16, iv, 16);
  StoreLe32(head + 32, c);
  MR_RETURN_IF_ERROR(out->WriteAt(*pos, std::string_view(reinterpret_cast<char*>(head), sizeof(head))));
  *pos += sizeof(head);
  CipherCtx ctx;
  if (!ctx.ok() || EVP_EncryptInit_ex(ctx.get(), CbcCipher(mode, config.key.size()), nullptr,
                                      reinterpret_cast<const unsigned char*>(config.key.data()), iv) != 1) {
    return Status::Internal(in.path() + ": " + mode + " init failed");
  }
  uint64_t written = 0;
  for (uint64_t done = 0; done <= n;) {
    const size_t piece = static_cast<size_t>(std::min<uint64_t>(n - done, kHashPieceBytes));
    int outl = 0;
    if (piece > 0) {
      MR_RETURN_IF_ERROR(in.ReadAt(begin + done, piece, reinterpret_cast<char*>(plain.data())));
      if (EVP_EncryptUpdate(ctx.get(), cipher.data(), &outl, plain.data(), static_cast<int>(piece)) != 1) {
        return Status::Internal(in.path() + ": " + mode + " encrypt failed");
      }
    } else if (EVP_EncryptFinal_ex(ctx.get(), cipher.data(), &outl) != 1) {  // the padding
      return Status::Internal(in.path() + ": " + mode + " final failed");
    }
    MR_RETURN_IF_ERROR(out->WriteAt(*pos, std::string_view(reinterpret_cast<char*>(cipher.data()), outl)));
    *pos += static_cast<uint64_t>(outl);
    written += static_cast<uint64_t>(outl);
    if (piece == 0) break;
    done += piece;
  }
  if (written != c) return Status::Internal(in.path() + ": " + mode + " wrote " + std::to_string(written) + " bytes");
  return Status::OK();
}

// Writes the encryption of `in` to `out` in MindSpore's layout: one record
// per 64 MiB of plaintext, then the end marker, the mode and "ENCRYPT".
// AES-GCM records are streamed in pieces of 1 MiB with the tag written back
// into the header; CBC ones by EncryptCbcRecord.
Status EncryptInto(const RandomAccessFile& in, WritableFile* out, const CryptoConfig& config) {
  const std::string& key = config.key;
  const uint64_t size = in.size();
  std::vector<unsigned char> plain(static_cast<size_t>(std::min(std::max<uint64_t>(size, 1), kHashPieceBytes)));
  std::vector<unsigned char> cipher(plain.size() + 32);
  uint64_t pos = 0;  // in `out`
  for (uint64_t begin = 0; begin < size; begin += kCryptoBlockBytes) {
    const uint32_t n = static_cast<uint32_t>(std::min(size - begin, kCryptoBlockBytes));
    if (config.enc_mode != "AES-GCM") {
      MR_RETURN_IF_ERROR(EncryptCbcRecord(in, begin, n, out, &pos, config, plain, cipher));
      continue;
    }
    uint8_t iv[16];
    if (RAND_bytes(iv, sizeof(iv)) != 1) return Status::Internal(in.path() + ": OpenSSL RAND_bytes failed");
    unsigned char head[52] = {};
    StoreBe32(head, 48 + n);       // record length
    StoreLe32(head + 4, kGcmMagic);
    // head + 8: the tag, written once the block is encrypted
    StoreLe32(head + 24, 24 + n);  // MindSpore's block size: IV length, IV, cipher length, cipher
    StoreLe32(head + 28, 16);
    std::memcpy(head + 32, iv, 16);
    StoreLe32(head + 48, n);
    MR_RETURN_IF_ERROR(out->WriteAt(pos, std::string_view(reinterpret_cast<char*>(head), sizeof(head))));
    const uint64_t tag_at = pos + 8;
    pos += sizeof(head);
    CipherCtx ctx;
    if (!ctx.ok() || !InitGcm(ctx.get(), key, iv, true)) return Status::Internal(in.path() + ": AES-GCM init failed");
    for (uint64_t done = 0; done < n;) {
      const size_t piece = static_cast<size_t>(std::min<uint64_t>(n - done, kHashPieceBytes));
      MR_RETURN_IF_ERROR(in.ReadAt(begin + done, piece, reinterpret_cast<char*>(plain.data())));
      int outl = 0;
      if (EVP_EncryptUpdate(ctx.get(), cipher.data(), &outl, plain.data(), static_cast<int>(piece)) != 1) {
        return Status::Internal(in.path() + ": AES-GCM encrypt failed");
      }
      MR_RETURN_IF_ERROR(out->WriteAt(pos, std::string_view(reinterpret_cast<char*>(cipher.data()), outl)));
      pos += static_cast<uint64_t>(outl);
      done += piece;
    }
    int outl = 0;
    unsigned char tag[16];
    if (EVP_EncryptFinal_ex(ctx.get(), cipher.data(), &outl) != 1 || outl != 0 ||
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, 16, tag) != 1) {
      return Status::Internal(in.path() + ": AES-GCM final failed");
    }
    MR_RETURN_IF_ERROR(out->WriteAt(tag_at, std::string_view(reinterpret_cast<char*>(tag), 16)));
  }
  std::string trailer(4, '\0');
  trailer += config.enc_mode;
  trailer += kEncryptFlag;
  return out->WriteAt(pos, trailer);
}

}  // namespace

Status CheckProtection(const CryptoConfig& config, const std::string& what) {
  if (!config.key.empty()) MR_RETURN_IF_ERROR(CheckModeKey(config.enc_mode, config.key, what));
  if (!config.hash_mode.empty()) MR_RETURN_IF_ERROR(DigestSize(config.hash_mode).status().WithContext(what));
  return Status::OK();
}

Status AppendFileDigest(const std::string& path, const std::string& hash_mode, FileSystem* fs) {
  MR_RETURN_IF_ERROR(DigestSize(hash_mode).status());
  return AppendDigest(path, hash_mode, fs);
}

Status EncryptFileTo(const std::string& path, const std::string& out_path, const CryptoConfig& config,
                     FileSystem* fs) {
  MR_RETURN_IF_ERROR(CheckModeKey(config.enc_mode, config.key, path));
  Status st;
  {
    MR_ASSIGN_OR_RETURN(auto in, fs->OpenRead(path));
    MR_ASSIGN_OR_RETURN(auto out, fs->OpenWrite(out_path));
    st = EncryptInto(*in, out.get(), config);
    if (st.ok()) st = out->Sync();
    Status closed = out->Close();
    if (st.ok()) st = closed;
  }
  if (!st.ok()) (void)fs->Remove(out_path);
  return st.WithContext(path + ": encrypting");
}

Result<std::string> Digest(const std::string& hash_mode, std::string_view data) {
  const EVP_MD* md = DigestFor(hash_mode);
  if (md == nullptr) return DigestSize(hash_mode).status();
  std::string out(EVP_MAX_MD_SIZE, '\0');
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), reinterpret_cast<unsigned char*>(out.data()), &len, md, nullptr) != 1) {
    return Status::Internal("OpenSSL digest failed");
  }
  out.resize(len);
  return out;
}

}  // namespace mindrecord
