// RemoteOptions: how datasets named by URL (https://, http://, s3://bucket/key)
// are read: the S3 endpoint, the bounded local page cache shared by the
// processes of one machine, and the HTTP client's parallelism, retries and
// timeouts. ReaderOptions holds one; the CLI's --endpoint / --cache-dir /
// --cache-size, the plan's "remote" object and Python's remote_* keywords
// map onto it. See readers/README.md ("Remote datasets").
#pragma once

#include <cstdint>
#include <string>

namespace mindrecord {

// Thread safety: a value type.
struct RemoteOptions {
  // s3:// endpoint, e.g. "http://127.0.0.1:9000" (path-style requests:
  // ENDPOINT/BUCKET/KEY). Empty: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the
  // profile's endpoint_url in ~/.aws/config, else AWS
  // (https://BUCKET.s3.REGION.amazonaws.com/KEY). Region and credentials
  // always come from the standard AWS variables and files.
  std::string endpoint;
  // The page cache's folder. Empty: $XDG_CACHE_HOME/mindrecord, else
  // ~/.cache/mindrecord. Shared by every process of the user that names it.
  std::string cache_dir;
  // Most bytes the page cache's entries hold on disk; least recently used
  // entries are removed past it. 0: no disk cache (pages are fetched again by
  // each process, and kept only in memory_bytes).
  uint64_t cache_bytes = 4ull << 30;
  // Verified pieces kept in this process's memory (shared by every remote
  // reader of the process), least recently used dropped first. One piece
  // larger than this is still held while it is read.
  uint64_t memory_bytes = 256ull << 20;
  // Pages without a checksum (MindSpore's files, or verify_checksums off) are
  // fetched and cached in pieces of this many bytes (aligned within the page)
  // rather than whole: a random row then costs a piece, not a page. Pages
  // with a checksum are fetched whole: the checksum covers the page.
  uint64_t block_bytes = 1ull << 20;
  // Range requests in flight at once per read (curl multi).
  uint32_t parallel = 8;
  // A sequential read that misses also fetches this many bytes of the next
  // pieces in the same round of requests.
  uint64_t read_ahead_bytes = 32ull << 20;
  // Attempts per request after the first (timeouts, connection resets, 5xx,
  // 429, truncated or wrong bytes); the wait doubles from backoff_ms.
  uint32_t retries = 4;
  uint32_t backoff_ms = 200;
  // Seconds to connect, and seconds a transfer may go without receiving a
  // byte, before the attempt counts as timed out.
  uint32_t timeout_s = 30;
};

}  // namespace mindrecord
