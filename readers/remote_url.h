// Remote dataset names: which paths are URLs, and what a URL resolves to for
// HTTP (the request URL, and for s3:// the region and credentials that sign
// it, from the standard AWS environment variables and ~/.aws files).
#pragma once

#include <string>
#include <string_view>

#include "mindrecord/status.h"
#include "readers/remote_options.h"

namespace mindrecord {

// "http://", "https://" or "s3://" (case-insensitive scheme).
bool IsRemotePath(std::string_view path);

// Thread safety: a value type.
struct RemoteObject {
  std::string url;       // as named by the user: errors name this
  std::string http_url;  // what is requested
  bool s3 = false;
  // s3:// only: SigV4 signing. Empty access_key: unsigned (public) requests.
  std::string region, access_key, secret_key, session_token;
};

// InvalidArgument naming `url` when it is not http(s):// or s3://, has no
// object name, or holds a query or fragment (siblings could not be named).
Result<RemoteObject> ResolveRemote(const std::string& url, const RemoteOptions& options);

// An AWS shared config/credentials file's `key` in section `section`
// ("default", "profile NAME"); empty when absent. INI as the AWS CLI reads
// it: `[section]`, `key = value`, '#' and ';' comments.
std::string AwsIniValue(std::string_view text, std::string_view section, std::string_view key);

}  // namespace mindrecord
