// Real servers on 127.0.0.1 for the remote-read tests, started by the tests
// themselves: nginx (Debian's) serving a folder, the fault-injecting file
// server (tests/servers/fault_server.py), and s3rver, an S3-protocol server
// (tests/servers, installed by .ci/setup with npm ci). A server that cannot
// start is a test failure, never a skip.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/util/test_util.h"

namespace mindrecord::testing {

// Thread safety: one test thread drives it.
class ServerProcess {
 public:
  ServerProcess() = default;
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;
  ~ServerProcess();  // SIGTERM, then SIGKILL after 5 s; waits for it

  // "http://127.0.0.1:PORT"; empty when it did not start (error() says why).
  const std::string& base_url() const { return base_url_; }
  const std::string& error() const { return error_; }
  uint16_t port() const { return port_; }
  // One line per request: nginx's access log or the fault server's JSON log.
  std::vector<std::string> LogLines() const;

  // Serves `root` with nginx (own config, pid, logs and temp paths in a
  // scratch folder). Its access log lines read
  // `METHOD URI "RANGE" STATUS BYTES_SENT`.
  static void StartNginx(const std::string& root, ServerProcess* out);
  // The fault server over `root`; `sigv4` "KEY:SECRET" makes it check AWS
  // SigV4 signatures (with botocore).
  static void StartFaultServer(const std::string& root, ServerProcess* out, const std::string& sigv4 = "");
  // s3rver with bucket `bucket` (access key S3RVER, secret S3RVER).
  static void StartS3rver(const std::string& bucket, ServerProcess* out);
  // PUTs `file` as s3://bucket/key (SigV4-signed, by the curl tool); false
  // with the reason in *why on failure.
  bool PutObject(const std::string& bucket, const std::string& key, const std::string& file, std::string* why);

 private:
  bool Spawn(const std::vector<std::string>& argv, const std::string& stdout_path);
  bool WaitReady(int seconds);
  pid_t pid_ = -1;
  uint16_t port_ = 0;
  std::string base_url_, error_, log_path_;
  TempDir scratch_;
};

// A free TCP port on 127.0.0.1 (bound, then released).
uint16_t FreePort();

}  // namespace mindrecord::testing
