#include "readers/remote_url.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace mindrecord {

namespace {

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  }
  return true;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::string text;
  text.resize(1 << 20);  // AWS files are small; a larger one is read in part
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

std::string AwsFile(const char* env, const char* name) {
  std::string p = Env(env);
  if (!p.empty()) return p;
  const std::string home = Env("HOME");
  return home.empty() ? std::string() : home + "/.aws/" + name;
}

// Percent-encodes an S3 key for the request path (and so for SigV4's
// canonical URI): everything but unreserved characters and '/'.
std::string EncodeKey(std::string_view key) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : key) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

}  // namespace

bool IsRemotePath(std::string_view path) {
  return StartsWithNoCase(path, "http://") || StartsWithNoCase(path, "https://") || StartsWithNoCase(path, "s3://");
}

std::string AwsIniValue(std::string_view text, std::string_view section, std::string_view key) {
  std::istringstream in{std::string(text)};
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    std::string t = Trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[') {
      inside = t.back() == ']' && Trim(std::string_view(t).substr(1, t.size() - 2)) == section;
      continue;
    }
    if (!inside) continue;
    const size_t eq = t.find('=');
    if (eq == std::string::npos) continue;
    if (Trim(std::string_view(t).substr(0, eq)) == key) return Trim(std::string_view(t).substr(eq + 1));
  }
  return {};
}

Result<RemoteObject> ResolveRemote(const std::string& url, const RemoteOptions& options) {
  auto bad = [&](const std::string& why) { return Status::InvalidArgument(url + ": " + why); };
  if (!IsRemotePath(url)) return bad("not an http://, https:// or s3:// URL");
  if (url.find_first_of("?#") != std::string::npos) {
    return bad("URLs with a query or fragment are not supported (sibling shards are named from the path)");
  }
  for (unsigned char c : url) {
    if (c < 0x21 || c == 0x7f) return bad("holds a space or control character");
  }
  const size_t scheme_end = url.find("://") + 3;
  const size_t slash = url.find('/', scheme_end);
  if (slash == std::string::npos || slash == scheme_end || slash + 1 >= url.size() || url.back() == '/') {
    return bad(StartsWithNoCase(url, "s3://") ? "expected s3://BUCKET/KEY" : "expected a URL naming a file");
  }
  RemoteObject o;
  o.url = url;
  if (!StartsWithNoCase(url, "s3://")) {
    o.http_url = url;
    return o;
  }
  o.s3 = true;
  const std::string bucket = url.substr(scheme_end, slash - scheme_end);
  const std::string key = url.substr(slash + 1);
  const std::string profile = Env("AWS_PROFILE").empty() ? "default" : Env("AWS_PROFILE");
  const std::string config = ReadSmallFile(AwsFile("AWS_CONFIG_FILE", "config"));
  const std::string config_section = profile == "default" ? profile : "profile " + profile;
  auto from_config = [&](const char* k) { return AwsIniValue(config, config_section, k); };

  o.region = Env("AWS_REGION");
  if (o.region.empty()) o.region = Env("AWS_DEFAULT_REGION");
  if (o.region.empty()) o.region = from_config("region");
  if (o.region.empty()) o.region = "us-east-1";

  o.access_key = Env("AWS_ACCESS_KEY_ID");
  o.secret_key = Env("AWS_SECRET_ACCESS_KEY");
  o.session_token = Env("AWS_SESSION_TOKEN");
  if (o.access_key.empty()) {
    const std::string creds = ReadSmallFile(AwsFile("AWS_SHARED_CREDENTIALS_FILE", "credentials"));
    o.access_key = AwsIniValue(creds, profile, "aws_access_key_id");
    o.secret_key = AwsIniValue(creds, profile, "aws_secret_access_key");
    o.session_token = AwsIniValue(creds, profile, "aws_session_token");
    if (o.access_key.empty()) {
      o.access_key = from_config("aws_access_key_id");
      o.secret_key = from_config("aws_secret_access_key");
      o.session_token = from_config("aws_session_token");
    }
  }
  if (!o.access_key.empty() && o.secret_key.empty()) {
    return bad("AWS access key " + o.access_key + " has no secret key (AWS_SECRET_ACCESS_KEY or "
               "aws_secret_access_key)");
  }

  std::string endpoint = options.endpoint;
  if (endpoint.empty()) endpoint = Env("AWS_ENDPOINT_URL_S3");
  if (endpoint.empty()) endpoint = Env("AWS_ENDPOINT_URL");
  if (endpoint.empty()) endpoint = from_config("endpoint_url");
  if (endpoint.empty()) {
    o.http_url = "https://" + bucket + ".s3." + o.region + ".amazonaws.com/" + EncodeKey(key);
    return o;
  }
  if (!StartsWithNoCase(endpoint, "http://") && !StartsWithNoCase(endpoint, "https://")) {
    return bad("the S3 endpoint '" + endpoint + "' is not an http:// or https:// URL");
  }
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  o.http_url = endpoint + "/" + bucket + "/" + EncodeKey(key);  // path-style
  return o;
}

}  // namespace mindrecord
