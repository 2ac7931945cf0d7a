#include "tests/util/test_servers.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace mindrecord::testing {

uint16_t FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  uint16_t port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  close(fd);
  return port;
}

ServerProcess::~ServerProcess() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 50; ++i) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
}

bool ServerProcess::Spawn(const std::vector<std::string>& argv, const std::string& stdout_path) {
  pid_ = fork();
  if (pid_ < 0) {
    error_ = "fork failed";
    return false;
  }
  if (pid_ == 0) {
    int out = open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out >= 0) {
      dup2(out, 1);
      dup2(out, 2);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  return true;
}

bool ServerProcess::WaitReady(int seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      error_ = "the server exited at start (status " + std::to_string(status) + ")";
      return false;
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port_);
    const bool up = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    close(fd);
    if (up) {
      base_url_ = "http://127.0.0.1:" + std::to_string(port_);
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  error_ = "the server did not listen on port " + std::to_string(port_) + " within " + std::to_string(seconds) + " s";
  return false;
}

std::vector<std::string> ServerProcess::LogLines() const {
  std::vector<std::string> lines;
  std::ifstream in(log_path_);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

void ServerProcess::StartNginx(const std::string& root, ServerProcess* out) {
  out->port_ = FreePort();
  const std::string d = out->scratch_.path();
  out->log_path_ = d + "/access.log";
  std::ostringstream conf;
  if (geteuid() == 0) conf << "user root;\n";
  conf << "daemon off;\nmaster_process off;\nworker_processes 1;\npid " << d << "/nginx.pid;\n"
       << "error_log " << d << "/error.log;\nevents { worker_connections 256; }\nhttp {\n"
       << "  log_format ranges '$request_method $uri \"$http_range\" $status $body_bytes_sent';\n"
       << "  access_log " << out->log_path_ << " ranges;\n"
       << "  client_body_temp_path " << d << "/body;\n  proxy_temp_path " << d << "/proxy;\n"
       << "  fastcgi_temp_path " << d << "/fastcgi;\n  uwsgi_temp_path " << d << "/uwsgi;\n"
       << "  scgi_temp_path " << d << "/scgi;\n"
       << "  server {\n    listen 127.0.0.1:" << out->port_ << ";\n    root " << root << ";\n  }\n}\n";
  WriteFile(d + "/nginx.conf", conf.str());
  if (!out->Spawn({"nginx", "-p", d, "-c", d + "/nginx.conf", "-e", d + "/error.log"}, d + "/stdout")) return;
  if (!out->WaitReady(20)) out->error_ = "nginx: " + out->error_ + ": " + ReadFile(d + "/error.log");
}

void ServerProcess::StartFaultServer(const std::string& root, ServerProcess* out, const std::string& sigv4) {
  out->port_ = FreePort();
  const std::string d = out->scratch_.path();
  out->log_path_ = d + "/requests.jsonl";
  std::vector<std::string> argv = {"/usr/bin/python3", std::string(MINDRECORD_SOURCE_DIR) + "/tests/servers/fault_server.py",
                                   "--root", root, "--port", std::to_string(out->port_), "--log", out->log_path_};
  if (!sigv4.empty()) {
    argv.push_back("--sigv4");
    argv.push_back(sigv4);
  }
  if (!out->Spawn(argv, d + "/stdout")) return;
  if (!out->WaitReady(20)) out->error_ = "fault server: " + out->error_ + ": " + ReadFile(d + "/stdout");
}

void ServerProcess::StartS3rver(const std::string& bucket, ServerProcess* out) {
  out->port_ = FreePort();
  const std::string d = out->scratch_.path();
  const std::string js = std::string(MINDRECORD_SOURCE_DIR) + "/tests/servers/node_modules/s3rver/bin/s3rver.js";
  if (access(js.c_str(), R_OK) != 0) {
    out->error_ = js + " is missing: install the test servers with `npm ci --prefix tests/servers` (.ci/setup does)";
    return;
  }
  RunCommand("mkdir -p " + d + "/data");
  if (!out->Spawn({"node", js, "-d", d + "/data", "-a", "127.0.0.1", "-p", std::to_string(out->port_),
                   "--configure-bucket", bucket},
                  d + "/stdout")) {
    return;
  }
  out->log_path_ = d + "/stdout";
  if (!out->WaitReady(30)) out->error_ = "s3rver: " + out->error_ + ": " + ReadFile(d + "/stdout");
}

bool ServerProcess::PutObject(const std::string& bucket, const std::string& key, const std::string& file,
                              std::string* why) {
  std::string output;
  const std::string cmd = "curl -s -S -o /dev/null -w '%{http_code}' --aws-sigv4 'aws:amz:us-east-1:s3' "
                          "--user S3RVER:S3RVER -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -T '" + file + "' '" +
                          base_url_ + "/" + bucket + "/" + key + "'";
  int rc = RunCommand(cmd, &output, true);
  if (rc != 0 || output != "200") {
    *why = "PUT " + key + " failed: exit " + std::to_string(rc) + ", " + output;
    return false;
  }
  return true;
}

}  // namespace mindrecord::testing
