#include "cli/crypto_options.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace mindrecord::cli {

namespace {

// The ciphers and hash modes (mindrecord/crypto_util.h), as CLI11 checks and shows them.
CLI::Option* Modes(CLI::Option* o) {
  return o->check(CLI::IsMember({"AES-GCM", "AES-CBC", "SM4-CBC"}))->option_text("AES-GCM|AES-CBC|SM4-CBC");
}
CLI::Option* HashModes(CLI::Option* o) {
  return o->check(CLI::IsMember({"sha224", "sha256", "sha384", "sha512", "sha3_224", "sha3_256", "sha3_384", "sha3_512"}))
      ->option_text("sha224|sha256|sha384|sha512|sha3_224|sha3_256|sha3_384|sha3_512");
}

// The key in `path` (`option` names it in errors): its bytes less one
// trailing newline. A key file others may read is used with a warning.
Result<std::string> ReadKeyFile(const std::string& option, const std::string& path) {
  // At most a few bytes more than a key: a key file is small (and may be a
  // device or a FIFO that never ends).
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::InvalidArgument(option + " " + path + ": " + std::strerror(errno));
  char buf[64];
  const size_t n = std::fread(buf, 1, sizeof(buf), f);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return Status::InvalidArgument(option + " " + path + ": cannot be read");
  std::string key(buf, n);
  if (!key.empty() && key.back() == '\n') key.pop_back();
  if (!key.empty() && key.back() == '\r') key.pop_back();
  if (key.size() != 16 && key.size() != 24 && key.size() != 32) {
    const std::string holds = n == sizeof(buf) ? "more than 32" : std::to_string(key.size());
    return Status::InvalidArgument(option + " " + path + ": a key has 16, 24 or 32 bytes, this file holds " + holds +
                                   " (one trailing newline aside)");
  }
  struct stat sb;
  if (::stat(path.c_str(), &sb) == 0 && (sb.st_mode & (S_IRGRP | S_IROTH)) != 0) {
    std::fprintf(stderr, "mindrecord: warning: %s %s can be read by other users (chmod 600 it)\n", option.c_str(),
                 path.c_str());
  }
  return key;
}

}  // namespace

ReadCryptoArgs& ProcessReadCrypto() {
  static ReadCryptoArgs args;
  return args;
}

void AddReadCryptoOptions(CLI::App* cmd) {
  ReadCryptoArgs* a = &ProcessReadCrypto();
  cmd->add_option("--key-file", a->key_file,
                  "File holding the key (16, 24 or 32 bytes) of an encrypted dataset, as MindSpore's set_enc_key")
      ->option_text("FILE");
  Modes(cmd->add_option("--dec-mode", a->dec_mode, "Cipher the dataset is encrypted with (default AES-GCM)"));
  HashModes(cmd->add_option("--hash-mode", a->hash_mode,
                            "Check every file's digest (MindSpore's set_hash_mode); a file without one is an error"));
}

void AddWriteCryptoOptions(CLI::App* cmd, WriteCryptoArgs* out) {
  cmd->add_option("--encrypt-key-file", out->key_file,
                  "Encrypt the new dataset's files with the key in FILE (16, 24 or 32 bytes), as MindSpore's "
                  "FileWriter does after set_enc_key")
      ->option_text("FILE");
  Modes(cmd->add_option("--enc-mode", out->enc_mode,
                        "Cipher for --encrypt-key-file (default AES-GCM; SM4-CBC: 16-byte keys)"));
  HashModes(cmd->add_option("--write-hash-mode", out->hash_mode,
                            "Append this digest to each new file (before encryption), as MindSpore's set_hash_mode"));
}

Status ApplyReadCrypto(const ReadCryptoArgs& args) {
  CryptoConfig c;
  c.dec_mode = args.dec_mode;
  c.hash_mode = args.hash_mode;
  if (!args.key_file.empty()) {
    MR_ASSIGN_OR_RETURN(c.key, ReadKeyFile("--key-file", args.key_file));
    MR_RETURN_IF_ERROR(CheckProtection(CryptoConfig{c.key, c.dec_mode, c.dec_mode, ""}, "--key-file " + args.key_file));
  } else if (args.dec_mode != "AES-GCM") {
    return Status::InvalidArgument("--dec-mode needs --key-file");
  }
  SetCryptoConfig(c);
  return Status::OK();
}

Result<CryptoConfig> WriteProtection(const WriteCryptoArgs& args) {
  CryptoConfig c;
  c.enc_mode = args.enc_mode;
  c.hash_mode = args.hash_mode;
  if (!args.key_file.empty()) {
    MR_ASSIGN_OR_RETURN(c.key, ReadKeyFile("--encrypt-key-file", args.key_file));
  } else if (args.enc_mode != "AES-GCM") {
    return Status::InvalidArgument("--enc-mode needs --encrypt-key-file");
  }
  MR_RETURN_IF_ERROR(CheckProtection(c, "--encrypt-key-file " + args.key_file));
  return c;
}

}  // namespace mindrecord::cli
