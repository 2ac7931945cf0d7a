// Encrypted and hashed datasets on the command line: MindSpore's
// set_enc_key / set_dec_mode / set_enc_mode / set_hash_mode as options
// (mindrecord/encryption.h).
// - Reading (every verb that opens a MindRecord dataset): --key-file FILE,
//   --dec-mode MODE, --hash-mode MODE, set for the whole process before the
//   verb runs, as mindrecord.config sets them for Python.
// - Writing (convert, copy): --encrypt-key-file FILE, --enc-mode MODE,
//   --write-hash-mode MODE: the new dataset's WriterOptions::protection.
// A key file holds the key's 16, 24 or 32 bytes (one trailing newline is
// not part of it). Keys are not taken as arguments, which other users of
// the machine can read in the process list.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "mindrecord/encryption.h"
#include "mindrecord/status.h"

namespace mindrecord::cli {

struct ReadCryptoArgs {
  std::string key_file;            // empty: no key
  std::string dec_mode = "AES-GCM";
  std::string hash_mode;           // empty: no hash check
};

struct WriteCryptoArgs {
  std::string key_file;            // empty: not encrypted
  std::string enc_mode = "AES-GCM";
  std::string hash_mode;           // empty: no digest
};

// The reading options of the verb being run: every verb's options fill this
// one (one verb runs per process).
ReadCryptoArgs& ProcessReadCrypto();

// Adds --key-file, --dec-mode and --hash-mode to `cmd`, into ProcessReadCrypto().
void AddReadCryptoOptions(CLI::App* cmd);
// Adds --encrypt-key-file, --enc-mode and --write-hash-mode to `cmd`.
void AddWriteCryptoOptions(CLI::App* cmd, WriteCryptoArgs* out);

// Sets the process's reading settings (SetCryptoConfig) from `args`; an
// InvalidArgument error names the option and what is wrong.
Status ApplyReadCrypto(const ReadCryptoArgs& args);
// What a writer protects its files with (WriterOptions::protection).
Result<CryptoConfig> WriteProtection(const WriteCryptoArgs& args);

}  // namespace mindrecord::cli
