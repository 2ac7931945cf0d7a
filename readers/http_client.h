// HttpClient: ranged GETs and HEADs of remote objects through libcurl (S3
// requests signed with SigV4 by curl itself), several requests in flight
// (curl multi) over connections shared by every request of the client.
// Every response is checked before its bytes are handed out: the status, the
// Content-Range against the range asked for and the object's size, the body's
// length, and the caller's own check (a page checksum). Timeouts, connection
// resets, 5xx, 429 and bad bodies are retried with doubling waits; 403, 404
// and a changed object (If-Match) are errors at once, naming the URL.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mindrecord/status.h"
#include "readers/remote_options.h"
#include "readers/remote_url.h"

namespace mindrecord {

struct ByteRange {
  uint64_t begin = 0, end = 0;  // [begin, end)
};

// What a HEAD says of an object: its size and the validator that names this
// version of it (ETag, else Last-Modified; empty when the server gives none).
struct ObjectStat {
  uint64_t size = 0;
  std::string etag;
  std::string last_modified;
  std::string Version() const { return etag.empty() ? last_modified : etag; }
};

// Requests and bytes over the wire since the process started (all clients).
struct HttpCounters {
  uint64_t requests = 0;      // GETs and HEADs sent, retries included
  uint64_t bytes = 0;         // body bytes received by successful GETs
  uint64_t retries = 0;       // attempts repeated after a retryable failure
};
HttpCounters GetHttpCounters();
// Counts attempts repeated above this layer (a header fetched again after
// its bytes failed their checks).
void CountRetries(uint64_t n);

// Content-Range "bytes FIRST-LAST/TOTAL" as [begin, end) and total; nullopt
// when the value is not exactly that (or LAST < FIRST, or LAST >= TOTAL).
struct ContentRange {
  uint64_t begin = 0, end = 0, total = 0;
};
std::optional<ContentRange> ParseContentRange(std::string_view value);

// An S3 error body (<Error><Code>..</Code><Message>..</Message></Error>) as
// "Code: Message"; empty when the body is not such XML. Parsed by pugixml.
std::string ParseS3Error(std::string_view body);

// Thread safety: every method may be called from any number of threads at
// once; each call runs its own transfers, connections are shared under
// curl's share-handle locks.
class HttpClient {
 public:
  explicit HttpClient(const RemoteOptions& options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // HEAD: the object's size and version. NotFound (404) or IOError naming
  // the URL.
  Result<ObjectStat> Stat(const RemoteObject& object) const;

  // Checks one range's bytes once they are whole (e.g. page checksums); an
  // error makes the range be fetched again, and after the last attempt is
  // reported with the URL and range.
  using Check = std::function<Status(size_t index, std::string_view bytes)>;
  // GETs `ranges` (each inside [0, stat.size), never open-ended), up to
  // options.parallel at once, into (*out)[i]. Requests carry If-Match with
  // the stat's strong ETag, so a replaced object is an error, not a mix.
  Status Fetch(const RemoteObject& object, const ObjectStat& stat, const std::vector<ByteRange>& ranges,
               std::vector<std::string>* out, const Check& check = nullptr) const;

 private:
  struct Shared;
  RemoteOptions options_;
  std::unique_ptr<Shared> shared_;
};

}  // namespace mindrecord
