// Encrypted and hashed datasets from the command line (MindSpore's
// set_enc_key / set_dec_mode / set_enc_mode / set_hash_mode as options):
// written by convert and copy, read by every verb, refused where a verb
// would write in place.
#include <sys/stat.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "mindrecord/encryption.h"
#include "mindrecord/file.h"
#include "tests/util/test_util.h"

namespace fs = std::filesystem;

namespace mindrecord {
namespace {

using testing::Cli;
using testing::TempDir;
using testing::WriteFile;

bool Encrypted(const std::string& path) {
  auto f = FileSystem::Default()->OpenRead(path);
  if (!f.ok()) return false;
  auto encrypted = IsEncryptedFile(**f);
  return encrypted.ok() && *encrypted;
}

class EncryptedCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(dir_.Join("in.csv"), "id,name\n1,a\n2,b\n3,c\n");
    WriteFile(dir_.Join("key"), "0123456789abcdef\n");  // one trailing newline is not part of the key
    ::chmod(dir_.Join("key").c_str(), 0600);
  }
  std::string Path(const std::string& name) const { return dir_.Join(name); }
  TempDir dir_;
};

constexpr const char* kRows = "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b\"}\n{\"id\":3,\"name\":\"c\"}\n";

TEST_F(EncryptedCliTest, ConvertEncryptsAndEveryVerbReadsWithTheKey) {
  const std::string out = Path("enc.mindrecord"), key = " --key-file " + Path("key");
  std::string log;
  ASSERT_EQ(Cli("convert csv " + Path("in.csv") + " " + out + " --quiet --encrypt-key-file " + Path("key") +
                    " --write-hash-mode sha256",
                &log),
            0)
      << log;
  EXPECT_TRUE(Encrypted(out));
  EXPECT_TRUE(Encrypted(out + ".db"));
  // Without the key: MindSpore's message, and the option that gives the key.
  EXPECT_EQ(Cli("inspect " + out, &log), 1);
  EXPECT_NE(log.find("is encrypted"), std::string::npos) << log;
  EXPECT_NE(log.find("--key-file"), std::string::npos) << log;
  EXPECT_EQ(Cli("cat " + out + key + " --hash-mode sha256", &log, false), 0) << log;
  EXPECT_EQ(log, kRows);
  EXPECT_EQ(Cli("inspect " + out + key, &log), 0) << log;
  EXPECT_NE(log.find("rows:         3"), std::string::npos) << log;
  EXPECT_EQ(Cli("verify " + out + key + " --hash-mode sha256", &log), 0) << log;
  EXPECT_NE(log.find("clean"), std::string::npos) << log;
  EXPECT_EQ(Cli("verify " + out, &log), 2) << log;
  EXPECT_EQ(Cli("export " + out + " " + Path("exported") + key, &log), 0) << log;
  EXPECT_TRUE(fs::exists(Path("exported/0.json")));
  // A wrong key fails the blocks' tag check: a data error.
  WriteFile(Path("other"), "fedcba9876543210");
  ::chmod(Path("other").c_str(), 0600);
  EXPECT_EQ(Cli("cat " + out + " --key-file " + Path("other"), &log), 2) << log;
  EXPECT_NE(log.find("tag check"), std::string::npos) << log;
  // Writing in place would break the cipher: refused, the files untouched.
  const auto size = fs::file_size(out);
  EXPECT_EQ(Cli("append " + out + " " + out + key, &log), 2) << log;
  EXPECT_NE(log.find("appending to an encrypted dataset is not supported"), std::string::npos) << log;
  EXPECT_EQ(Cli("index rebuild " + out + " --force", &log), 2) << log;
  EXPECT_NE(log.find("rebuilding the index of an encrypted dataset"), std::string::npos) << log;
  EXPECT_EQ(fs::file_size(out), size);
  EXPECT_EQ(Cli("cat " + out + key, &log, false), 0) << log;
  EXPECT_EQ(log, kRows);
}

TEST_F(EncryptedCliTest, CopyDecryptsAndReEncrypts) {
  const std::string enc = Path("enc.mindrecord"), key = Path("key");
  std::string log;
  ASSERT_EQ(Cli("convert csv " + Path("in.csv") + " " + enc + " --quiet --encrypt-key-file " + key, &log), 0) << log;
  // Read with the key, written plain: readable without one.
  ASSERT_EQ(Cli("copy " + enc + " " + Path("plain.mindrecord") + " --key-file " + key, &log), 0) << log;
  EXPECT_FALSE(Encrypted(Path("plain.mindrecord")));
  EXPECT_EQ(Cli("cat " + Path("plain.mindrecord"), &log, false), 0) << log;
  EXPECT_EQ(log, kRows);
  // A key for a plain dataset is MindSpore's error, not ignored.
  EXPECT_EQ(Cli("cat " + Path("plain.mindrecord") + " --key-file " + key, &log), 1) << log;
  EXPECT_NE(log.find("not encrypted"), std::string::npos) << log;
  // Plain to SM4-CBC, read back with its mode.
  ASSERT_EQ(Cli("copy " + Path("plain.mindrecord") + " " + Path("sm4.mindrecord") + " --encrypt-key-file " + key +
                    " --enc-mode SM4-CBC",
                &log),
            0)
      << log;
  EXPECT_TRUE(Encrypted(Path("sm4.mindrecord")));
  EXPECT_EQ(Cli("cat " + Path("sm4.mindrecord") + " --key-file " + key + " --dec-mode SM4-CBC", &log, false), 0)
      << log;
  EXPECT_EQ(log, kRows);
  EXPECT_EQ(Cli("cat " + Path("sm4.mindrecord") + " --key-file " + key, &log), 1) << log;
  EXPECT_NE(log.find("encrypted with SM4-CBC"), std::string::npos) << log;
}

TEST_F(EncryptedCliTest, BadKeysAndOptionsAreUsageErrorsThatWriteNothing) {
  const std::string in = Path("in.csv"), out = " " + Path("o/x.mindrecord");
  std::string log;
  WriteFile(Path("short"), "abc\n");
  EXPECT_EQ(Cli("convert csv " + in + out + " --encrypt-key-file " + Path("short"), &log), 1);
  EXPECT_NE(log.find("a key has 16, 24 or 32 bytes, this file holds 3"), std::string::npos) << log;
  EXPECT_EQ(Cli("convert csv " + in + out + " --encrypt-key-file " + Path("missing"), &log), 1);
  EXPECT_NE(log.find("No such file"), std::string::npos) << log;
  EXPECT_EQ(Cli("convert csv " + in + out + " --enc-mode AES-CBC", &log), 1);
  EXPECT_NE(log.find("--enc-mode needs --encrypt-key-file"), std::string::npos) << log;
  WriteFile(Path("k24"), "0123456789abcdef01234567");
  ::chmod(Path("k24").c_str(), 0600);
  EXPECT_EQ(Cli("convert csv " + in + out + " --encrypt-key-file " + Path("k24") + " --enc-mode SM4-CBC", &log), 1);
  EXPECT_NE(log.find("SM4-CBC takes a key of 16 bytes"), std::string::npos) << log;
  EXPECT_EQ(Cli("convert csv " + in + out + " --write-hash-mode md5", &log), 1) << log;
  EXPECT_EQ(Cli("cat " + in + " --key-file " + Path("short"), &log), 1);
  EXPECT_NE(log.find("--key-file"), std::string::npos) << log;
  EXPECT_EQ(Cli("cat " + in + " --dec-mode SM4-CBC", &log), 1);
  EXPECT_NE(log.find("--dec-mode needs --key-file"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(Path("o/x.mindrecord")));
  // A key file others can read works, with a warning.
  ASSERT_EQ(Cli("convert csv " + in + out + " --quiet --encrypt-key-file " + Path("k24"), &log), 0) << log;
  ::chmod(Path("k24").c_str(), 0644);
  EXPECT_EQ(Cli("cat" + out + " --key-file " + Path("k24"), &log), 0) << log;
  EXPECT_NE(log.find("can be read by other users"), std::string::npos) << log;
}

}  // namespace
}  // namespace mindrecord
