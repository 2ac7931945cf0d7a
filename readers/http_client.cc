#include "readers/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <mutex>
#include <thread>

#include <pugixml.hpp>

namespace mindrecord {

namespace {

std::atomic<uint64_t> g_requests{0}, g_bytes{0}, g_retries{0};

// Bytes of an error response kept for its message.
constexpr size_t kMaxErrorBody = 64 << 10;
// The longest wait between two attempts.
constexpr uint32_t kMaxBackoffMs = 10000;

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string RangeText(const ByteRange& r) {
  return "bytes [" + std::to_string(r.begin) + ", " + std::to_string(r.end) + ")";
}

std::string HeaderValue(CURL* h, const char* name) {
  curl_header* hdr = nullptr;
  if (curl_easy_header(h, name, 0, CURLH_HEADER, -1, &hdr) != CURLHE_OK || hdr == nullptr) return {};
  return hdr->value ? std::string(hdr->value) : std::string();
}

// Transport failures worth another attempt (the server or the path may
// recover); the others (a malformed URL, an unsupported scheme) are not.
bool RetryableCurl(CURLcode c) {
  switch (c) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_WRITE_ERROR:  // our callback refused a body longer than asked
      return true;
    default:
      return false;
  }
}

// One request in flight and what came back.
struct Transfer {
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  size_t index = 0;
  ByteRange range;
  bool head = false;
  uint64_t expected = 0;
  std::string body;       // 2xx bytes, at most `expected`
  std::string error_body; // >= 300, at most kMaxErrorBody
  bool overflow = false;
  char errbuf[CURL_ERROR_SIZE] = {};
};

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t bytes = size * n;
  long code = 0;
  curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
  if (code >= 300) {
    t->error_body.append(data, std::min(bytes, kMaxErrorBody - std::min(kMaxErrorBody, t->error_body.size())));
    return bytes;
  }
  if (t->body.size() + bytes > t->expected) {
    t->overflow = true;  // more than asked: the server ignored the range
    return 0;
  }
  t->body.append(data, bytes);
  return bytes;
}

enum class Verdict { kOk, kRetry, kFatal };
struct Outcome {
  Verdict verdict = Verdict::kOk;
  Status status;  // kFatal: the error; kRetry: why (for the last attempt's message)
};

Outcome Retry(std::string why) { return {Verdict::kRetry, Status::IOError(std::move(why))}; }

}  // namespace

HttpCounters GetHttpCounters() { return {g_requests.load(), g_bytes.load(), g_retries.load()}; }
void CountRetries(uint64_t n) { g_retries += n; }

std::optional<ContentRange> ParseContentRange(std::string_view v) {
  constexpr std::string_view kUnit = "bytes ";
  if (v.substr(0, kUnit.size()) != kUnit) return std::nullopt;
  v.remove_prefix(kUnit.size());
  auto number = [&](uint64_t* out, char stop) {
    const char* end = v.data() + v.size();
    auto [p, ec] = std::from_chars(v.data(), end, *out);
    if (ec != std::errc() || p == v.data()) return false;
    v.remove_prefix(static_cast<size_t>(p - v.data()));
    if (stop == 0) return v.empty();
    if (v.empty() || v[0] != stop) return false;
    v.remove_prefix(1);
    return true;
  };
  uint64_t first = 0, last = 0, total = 0;
  if (!number(&first, '-') || !number(&last, '/') || !number(&total, 0)) return std::nullopt;
  if (last < first || last >= total) return std::nullopt;
  return ContentRange{first, last + 1, total};
}

std::string ParseS3Error(std::string_view body) {
  pugi::xml_document doc;
  if (!doc.load_buffer(body.data(), body.size(), pugi::parse_default, pugi::encoding_utf8)) return {};
  pugi::xml_node err = doc.child("Error");
  if (!err) return {};
  std::string code = err.child_value("Code");
  std::string message = err.child_value("Message");
  if (code.empty() && message.empty()) return {};
  // Keep the message printable and short: it is the server's text.
  std::string out = code + (message.empty() ? "" : ": " + message);
  if (out.size() > 300) out.resize(300);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return out;
}

struct HttpClient::Shared {
  CURLSH* share = nullptr;
  std::mutex locks[CURL_LOCK_DATA_LAST];
  static void Lock(CURL*, curl_lock_data d, curl_lock_access, void* user) {
    static_cast<Shared*>(user)->locks[d].lock();
  }
  static void Unlock(CURL*, curl_lock_data d, void* user) { static_cast<Shared*>(user)->locks[d].unlock(); }
};

HttpClient::HttpClient(const RemoteOptions& options) : options_(options), shared_(new Shared) {
  GlobalInit();
  shared_->share = curl_share_init();
  curl_share_setopt(shared_->share, CURLSHOPT_LOCKFUNC, &Shared::Lock);
  curl_share_setopt(shared_->share, CURLSHOPT_UNLOCKFUNC, &Shared::Unlock);
  curl_share_setopt(shared_->share, CURLSHOPT_USERDATA, shared_.get());
  curl_share_setopt(shared_->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
  curl_share_setopt(shared_->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  curl_share_setopt(shared_->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
}

HttpClient::~HttpClient() { curl_share_cleanup(shared_->share); }

namespace {

void ConfigureTransfer(Transfer* t, const RemoteObject& o, const ObjectStat* stat, const RemoteOptions& opt, CURLSH* share) {
  CURL* h = t->easy;
  curl_easy_setopt(h, CURLOPT_URL, o.http_url.c_str());
  curl_easy_setopt(h, CURLOPT_SHARE, share);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, t->errbuf);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, static_cast<long>(opt.timeout_s));
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, static_cast<long>(opt.timeout_s));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, t);
  if (!o.s3) {
    // A signed request is never sent on to another host.
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  }
  if (t->head) {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else {
    const std::string range = std::to_string(t->range.begin) + "-" + std::to_string(t->range.end - 1);
    curl_easy_setopt(h, CURLOPT_RANGE, range.c_str());  // curl copies it
    if (stat && !stat->etag.empty() && stat->etag.rfind("W/", 0) != 0) {
      t->headers = curl_slist_append(t->headers, ("If-Match: " + stat->etag).c_str());
    }
  }
  if (o.s3 && !o.access_key.empty()) {
    const std::string sigv4 = "aws:amz:" + o.region + ":s3";
    curl_easy_setopt(h, CURLOPT_AWS_SIGV4, sigv4.c_str());
    curl_easy_setopt(h, CURLOPT_USERNAME, o.access_key.c_str());
    curl_easy_setopt(h, CURLOPT_PASSWORD, o.secret_key.c_str());
    // S3 wants the payload's hash named; a GET or HEAD has an empty payload.
    t->headers = curl_slist_append(
        t->headers, "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    if (!o.session_token.empty()) {
      t->headers = curl_slist_append(t->headers, ("x-amz-security-token: " + o.session_token).c_str());
    }
  }
  if (t->headers) curl_easy_setopt(h, CURLOPT_HTTPHEADER, t->headers);
}

// What one finished transfer means.
Outcome Judge(Transfer* t, CURLcode rc, const RemoteObject& o, const ObjectStat* stat) {
  const std::string what = t->head ? o.url : o.url + ": " + RangeText(t->range);
  if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && t->overflow)) {
    std::string why = what + ": " + (rc == CURLE_PARTIAL_FILE ? "truncated: " : "") + curl_easy_strerror(rc) +
                      (t->errbuf[0] ? std::string(" (") + t->errbuf + ")" : "");
    if (RetryableCurl(rc)) return Retry(why);
    return {Verdict::kFatal, Status::IOError(why)};
  }
  long code = 0;
  curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
  const std::string s3 = ParseS3Error(t->error_body);
  const std::string detail = "HTTP " + std::to_string(code) + (s3.empty() ? "" : ", " + s3);
  if (code == 404 || code == 410) {
    return {Verdict::kFatal, Status::NotFound(o.url + ": not found (" + detail + ")")};
  }
  if (code == 401 || code == 403) {
    return {Verdict::kFatal,
            Status::IOError(o.url + ": access denied (" + detail + "); check the credentials and the endpoint")};
  }
  if (code == 412) {
    return {Verdict::kFatal, Status::IOError(o.url + ": the object changed while it was being read (ETag " +
                                             (stat ? stat->etag : std::string()) + " no longer matches; " +
                                             detail + "); open it again")};
  }
  if (code == 408 || code == 429 || code >= 500) return Retry(what + ": " + detail);
  if (t->head) {
    if (code != 200) return {Verdict::kFatal, Status::IOError(what + ": HEAD answered " + detail)};
    return {};
  }
  if (t->overflow) {
    if (code == 200) {
      return {Verdict::kFatal, Status::NotSupported(o.url + ": the server ignores Range requests (HTTP 200 with the "
                                                    "whole object); ranged reads need a server that honours them")};
    }
    return Retry(what + ": the server sent more bytes than asked");
  }
  const bool whole = stat && t->range.begin == 0 && t->range.end == stat->size;
  if (code == 206) {
    auto cr = ParseContentRange(HeaderValue(t->easy, "Content-Range"));
    if (!cr || cr->begin != t->range.begin || cr->end != t->range.end || (stat && cr->total != stat->size)) {
      return Retry(what + ": the response's Content-Range '" + HeaderValue(t->easy, "Content-Range") +
                   "' is not the range asked for");
    }
  } else if (!(code == 200 && whole)) {
    return {Verdict::kFatal, Status::IOError(what + ": unexpected " + detail)};
  }
  if (t->body.size() != t->expected) {
    return Retry(what + ": truncated: " + std::to_string(t->body.size()) + " of " + std::to_string(t->expected) +
                 " bytes arrived");
  }
  return {};
}

void Backoff(const RemoteOptions& o, uint32_t attempt) {
  uint64_t ms = static_cast<uint64_t>(o.backoff_ms) << std::min<uint32_t>(attempt, 16);
  std::this_thread::sleep_for(std::chrono::milliseconds(std::min<uint64_t>(ms, kMaxBackoffMs)));
}

}  // namespace

Result<ObjectStat> HttpClient::Stat(const RemoteObject& object) const {
  for (uint32_t attempt = 0;; ++attempt) {
    Transfer t;
    t.head = true;
    t.easy = curl_easy_init();
    if (!t.easy) return Status::Internal("curl_easy_init failed");
    ConfigureTransfer(&t, object, nullptr, options_, shared_->share);
    g_requests++;
    CURLcode rc = curl_easy_perform(t.easy);
    Outcome out = Judge(&t, rc, object, nullptr);
    ObjectStat st;
    if (out.verdict == Verdict::kOk) {
      curl_off_t len = -1;
      curl_easy_getinfo(t.easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &len);
      st.etag = HeaderValue(t.easy, "ETag");
      st.last_modified = HeaderValue(t.easy, "Last-Modified");
      if (len < 0) out = {Verdict::kFatal, Status::IOError(object.url + ": the server gives no Content-Length")};
      st.size = static_cast<uint64_t>(len);
    }
    curl_slist_free_all(t.headers);
    curl_easy_cleanup(t.easy);
    if (out.verdict == Verdict::kOk) return st;
    if (out.verdict == Verdict::kFatal) return out.status;
    if (attempt >= options_.retries) {
      return Status::IOError(out.status.message() + " (gave up after " + std::to_string(attempt + 1) + " attempts)");
    }
    g_retries++;
    Backoff(options_, attempt);
  }
}

Status HttpClient::Fetch(const RemoteObject& object, const ObjectStat& stat, const std::vector<ByteRange>& ranges,
                         std::vector<std::string>* out, const Check& check) const {
  out->assign(ranges.size(), std::string());
  for (const ByteRange& r : ranges) {
    if (r.begin >= r.end || r.end > stat.size) {
      return Status::Internal(object.url + ": " + RangeText(r) + " is not inside the object (" +
                              std::to_string(stat.size) + " bytes)");
    }
  }
  std::vector<size_t> todo(ranges.size());
  for (size_t i = 0; i < todo.size(); ++i) todo[i] = i;
  CURLM* multi = curl_multi_init();
  if (!multi) return Status::Internal("curl_multi_init failed");
  Status result;
  for (uint32_t attempt = 0; !todo.empty(); ++attempt) {
    std::vector<std::unique_ptr<Transfer>> live;
    std::vector<size_t> again;
    Status last_retry;
    size_t next = 0, running = 0;
    auto start = [&] {
      while (next < todo.size() && running < std::max<uint32_t>(1, options_.parallel)) {
        auto t = std::make_unique<Transfer>();
        t->index = todo[next++];
        t->range = ranges[t->index];
        t->expected = t->range.end - t->range.begin;
        t->body.reserve(t->expected);
        t->easy = curl_easy_init();
        ConfigureTransfer(t.get(), object, &stat, options_, shared_->share);
        curl_easy_setopt(t->easy, CURLOPT_PRIVATE, t.get());
        curl_multi_add_handle(multi, t->easy);
        g_requests++;
        ++running;
        live.push_back(std::move(t));
      }
    };
    start();
    while (running > 0) {
      int still = 0;
      curl_multi_perform(multi, &still);
      int queued = 0;
      while (CURLMsg* m = curl_multi_info_read(multi, &queued)) {
        if (m->msg != CURLMSG_DONE) continue;
        Transfer* t = nullptr;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
        Outcome o = Judge(t, m->data.result, object, &stat);
        if (o.verdict == Verdict::kOk && check) {
          Status c = check(t->index, t->body);
          if (!c.ok()) o = Retry(object.url + ": " + RangeText(t->range) + ": " + c.message());
        }
        curl_multi_remove_handle(multi, t->easy);
        --running;
        if (o.verdict == Verdict::kOk) {
          g_bytes += t->body.size();
          (*out)[t->index] = std::move(t->body);
        } else if (o.verdict == Verdict::kRetry) {
          again.push_back(t->index);
          last_retry = o.status;
        } else if (result.ok()) {
          result = o.status;
        }
        curl_easy_cleanup(t->easy);
        t->easy = nullptr;
        curl_slist_free_all(t->headers);
        t->headers = nullptr;
      }
      if (!result.ok()) break;
      start();
      if (running > 0) curl_multi_poll(multi, nullptr, 0, 100, nullptr);
    }
    for (auto& t : live) {
      if (t->easy) {
        curl_multi_remove_handle(multi, t->easy);
        curl_easy_cleanup(t->easy);
      }
      curl_slist_free_all(t->headers);
    }
    if (!result.ok()) break;
    todo = std::move(again);
    if (todo.empty()) break;
    if (attempt >= options_.retries) {
      result = Status::IOError(last_retry.message() + " (gave up after " + std::to_string(attempt + 1) + " attempts)");
      break;
    }
    g_retries += todo.size();
    Backoff(options_, attempt);
  }
  curl_multi_cleanup(multi);
  if (!result.ok()) out->clear();  // nothing partial is handed out
  return result;
}

}  // namespace mindrecord
