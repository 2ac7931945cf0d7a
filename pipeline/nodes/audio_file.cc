#include "pipeline/nodes/audio_file.h"

#include <fcntl.h>
#include <sndfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "mindrecord/limits.h"

namespace mindrecord {

namespace {

// The bytes libsndfile reads: a file by pread, or memory.
struct AudioBytes {
  int fd = -1;
  const char* mem = nullptr;
  sf_count_t size = 0;
  sf_count_t pos = 0;
  int read_errno = 0;
};

sf_count_t VioLength(void* user) { return static_cast<AudioBytes*>(user)->size; }

sf_count_t VioSeek(sf_count_t offset, int whence, void* user) {
  auto* b = static_cast<AudioBytes*>(user);
  sf_count_t base = whence == SEEK_CUR ? b->pos : whence == SEEK_END ? b->size : 0;
  if ((offset > 0 && base > INT64_MAX - offset) || base + offset < 0) return -1;
  b->pos = base + offset;
  return b->pos;
}

sf_count_t VioRead(void* ptr, sf_count_t count, void* user) {
  auto* b = static_cast<AudioBytes*>(user);
  if (count <= 0 || b->pos >= b->size) return 0;
  count = std::min(count, b->size - b->pos);
  if (b->mem != nullptr) {
    std::memcpy(ptr, b->mem + b->pos, static_cast<size_t>(count));
    b->pos += count;
    return count;
  }
  sf_count_t done = 0;
  while (done < count) {
    ssize_t got = ::pread(b->fd, static_cast<char*>(ptr) + done, static_cast<size_t>(count - done), b->pos + done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) b->read_errno = errno;
    if (got <= 0) break;
    done += got;
  }
  b->pos += done;
  return done;
}

sf_count_t VioWrite(const void*, sf_count_t, void*) { return 0; }
sf_count_t VioTell(void* user) { return static_cast<AudioBytes*>(user)->pos; }

// libsndfile keeps the error of a failed open in one process-wide variable.
std::mutex& OpenMu() {
  static std::mutex mu;
  return mu;
}

// The containers read: checked on the first bytes before libsndfile's
// parsers (it knows some twenty more) see the file.
bool KnownContainer(const AudioBytes& b, std::string* what) {
  char head[12] = {};
  AudioBytes probe = b;
  probe.pos = 0;
  if (VioRead(head, sizeof(head), &probe) < 8) return false;
  const std::string_view h(head, sizeof(head));
  if ((h.substr(0, 4) == "RIFF" || h.substr(0, 4) == "RIFX" || h.substr(0, 4) == "RF64") && h.substr(8, 4) == "WAVE") {
    *what = "WAV";
    return true;
  }
  if (h.substr(0, 8) == "NIST_1A\n") {
    *what = "NIST SPHERE";
    return true;
  }
  return false;
}

// A RIFF/RIFX WAV file's 'data' chunk must fit the file: libsndfile reads a
// truncated one as a shorter recording, without an error. A size of 0 or
// 0xFFFFFFFF (a recorder that never went back to write it) means "to the
// end of the file", as libsndfile reads it. Returns the chunk's claimed and
// present bytes when it does not fit.
bool WavDataTruncated(const AudioBytes& b, uint64_t* claimed, uint64_t* present) {
  AudioBytes r = b;
  char head[4] = {};
  r.pos = 0;
  if (VioRead(head, 4, &r) != 4 || std::memcmp(head, "RF64", 4) == 0) return false;
  const bool big = std::memcmp(head, "RIFX", 4) == 0;
  for (sf_count_t at = 12; at + 8 <= b.size;) {
    unsigned char chunk[8];
    r.pos = at;
    if (VioRead(chunk, 8, &r) != 8) return false;
    const uint32_t size = big ? (uint32_t{chunk[4]} << 24 | uint32_t{chunk[5]} << 16 | uint32_t{chunk[6]} << 8 | chunk[7])
                              : (uint32_t{chunk[7]} << 24 | uint32_t{chunk[6]} << 16 | uint32_t{chunk[5]} << 8 | chunk[4]);
    if (std::memcmp(chunk, "data", 4) == 0) {
      *claimed = size;
      *present = static_cast<uint64_t>(b.size - at - 8);
      return size != 0 && size != 0xFFFFFFFFu && *claimed > *present;
    }
    at += 8 + static_cast<sf_count_t>(size) + (size & 1);
  }
  return false;
}

// A NIST SPHERE header's sample_count (per channel), when it has one:
// libsndfile takes the length from the file's size, so a truncated file
// would read as a shorter recording.
bool NistSampleCount(const AudioBytes& b, int64_t* count) {
  char head[1024] = {};
  AudioBytes r = b;
  r.pos = 0;
  const sf_count_t n = VioRead(head, sizeof(head) - 1, &r);
  const std::string_view h(head, static_cast<size_t>(std::max<sf_count_t>(n, 0)));
  constexpr std::string_view kKey = "\nsample_count -i ";
  const size_t at = h.find(kKey);
  if (at == std::string_view::npos || h.compare(0, 8, "NIST_1A\n") != 0) return false;
  const std::string_view digits = h.substr(at + kKey.size(), 19);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end == digits.data()) return false;
  *count = v;
  return true;
}

struct SndCloser {
  void operator()(SNDFILE* f) const { sf_close(f); }
};

Result<DecodedAudio> Decode(AudioBytes& bytes, const std::string& name, AudioSpan span) {
  auto bad = [&](const std::string& what) { return Status::Corruption(name + ": " + what); };
  std::string container;
  if (!KnownContainer(bytes, &container)) {
    return bad("not a WAV or NIST SPHERE file (the first bytes are neither 'RIFF'/'RIFX'/'RF64' ... 'WAVE' nor "
               "'NIST_1A')");
  }
  SF_VIRTUAL_IO vio{VioLength, VioSeek, VioRead, VioWrite, VioTell};
  SF_INFO info{};
  std::unique_ptr<SNDFILE, SndCloser> snd;
  {
    std::lock_guard<std::mutex> lock(OpenMu());
    snd.reset(sf_open_virtual(&vio, SFM_READ, &info, &bytes));
    if (!snd) {
      if (bytes.read_errno != 0) return Status::IOError(name + ": read failed: " + std::strerror(bytes.read_errno));
      return bad("not a readable " + container + " file (" + sf_error_number(sf_error(nullptr)) + ")");
    }
  }
  const int major = info.format & SF_FORMAT_TYPEMASK;
  if (major != SF_FORMAT_WAV && major != SF_FORMAT_WAVEX && major != SF_FORMAT_RF64 && major != SF_FORMAT_NIST) {
    return bad("not a WAV or NIST SPHERE file");
  }
  uint64_t claimed = 0, present = 0;
  if (WavDataTruncated(bytes, &claimed, &present)) {
    return bad("truncated: the data chunk holds " + std::to_string(present) + " of its " + std::to_string(claimed) +
               " bytes");
  }
  int64_t nist_count = 0;
  if (major == SF_FORMAT_NIST && NistSampleCount(bytes, &nist_count) && nist_count > info.frames) {
    return bad("truncated: the header's sample_count is " + std::to_string(nist_count) + ", the file holds " +
               std::to_string(info.frames) + " samples");
  }
  if (info.channels <= 0 || info.samplerate <= 0) {
    return bad("header gives " + std::to_string(info.channels) + " channels at " + std::to_string(info.samplerate) +
               " Hz");
  }
  const int64_t ch = info.channels;
  const int64_t max_frames = static_cast<int64_t>(kMaxDecompressedRowBytes / sizeof(float)) / ch;
  int64_t start = 0;
  int64_t want = info.frames;
  if (span.end_s >= 0) {
    // Truncated as MindSpore's int32 casts; the range check keeps the casts defined.
    if (!(span.start_s >= 0 && span.start_s <= span.end_s && span.end_s * info.samplerate < 9e18)) {
      return bad("segment " + std::to_string(span.start_s) + " s to " + std::to_string(span.end_s) + " s");
    }
    start = static_cast<int64_t>(span.start_s * info.samplerate);
    const int64_t end = static_cast<int64_t>(span.end_s * info.samplerate);
    if (end > info.frames) {
      return bad("the segment " + std::to_string(span.start_s) + " s to " + std::to_string(span.end_s) +
                 " s ends at frame " + std::to_string(end) + ", past the file's " + std::to_string(info.frames));
    }
    want = end - start;
  }
  if (want > max_frames) {
    return bad(std::to_string(want) + " frames of " + std::to_string(ch) + " channels, more than a row may hold (" +
               std::to_string(kMaxDecompressedRowBytes >> 20) + " MiB of float32)");
  }
  // No format read here decodes more than 8 samples a byte: a header
  // claiming more frames than that does not size the buffer.
  const int64_t room = std::min<int64_t>(want, bytes.size / ch * 8 + 1);
  if (start > 0 && want > 0 && sf_seek(snd.get(), start, SEEK_SET) < 0) {
    return bad("cannot seek to frame " + std::to_string(start) + " (" + sf_strerror(snd.get()) + ")");
  }
  // 16-bit PCM is scaled by 1 / 32767, as MindSpore's reader does (so its
  // values are MindSpore's to the bit); other encodings by libsndfile's
  // 1 / 2^(bits - 1).
  const bool pcm16 = (info.format & SF_FORMAT_SUBMASK) == SF_FORMAT_PCM_16;
  std::vector<float> fbuf;
  std::vector<int16_t> sbuf;
  int64_t got = 0;
  auto read_all = [&](auto& buf, auto readf) {
    buf.resize(static_cast<size_t>(room * ch));
    while (got < want) {
      if (got == static_cast<int64_t>(buf.size()) / ch) buf.resize(std::min<size_t>(buf.size() * 2, want * ch));
      const sf_count_t n = readf(snd.get(), buf.data() + got * ch, static_cast<sf_count_t>(buf.size()) / ch - got);
      if (n <= 0) break;
      got += n;
    }
  };
  if (want > 0) {
    if (pcm16) read_all(sbuf, sf_readf_short);
    else read_all(fbuf, sf_readf_float);
    if (bytes.read_errno != 0) return Status::IOError(name + ": read failed: " + std::strerror(bytes.read_errno));
    if (sf_error(snd.get()) != SF_ERR_NO_ERROR) return bad(std::string("decoding failed: ") + sf_strerror(snd.get()));
    if (span.end_s >= 0 && got < want) {
      return bad("the segment from frame " + std::to_string(start) + " holds " + std::to_string(got) + " of its " +
                 std::to_string(want) + " frames");
    }
  }
  DecodedAudio out;
  out.sample_rate = info.samplerate;
  out.waveform = Tensor::Make(TensorType::kFloat32, {ch, got});
  float* o = out.waveform.mutable_data_as<float>();
  for (int64_t c = 0; c < ch; ++c) {
    if (pcm16) {
      for (int64_t f = 0; f < got; ++f) o[c * got + f] = static_cast<float>(sbuf[f * ch + c]) / 32767.0f;
    } else {
      for (int64_t f = 0; f < got; ++f) o[c * got + f] = fbuf[f * ch + c];
    }
  }
  return out;
}

}  // namespace

Result<DecodedAudio> ReadAudioFile(const std::string& path, AudioSpan span) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (refused below).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return Status::NotFound(path + ": no such file");
    return Status::IOError(path + ": cannot open: " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::IOError(path + ": not a regular file");
  }
  AudioBytes bytes;
  bytes.fd = fd;
  bytes.size = st.st_size;
  auto out = Decode(bytes, path, span);
  ::close(fd);
  return out;
}

Result<DecodedAudio> DecodeAudio(std::string_view data, const std::string& name, AudioSpan span) {
  AudioBytes bytes;
  bytes.mem = data.data();
  bytes.size = static_cast<sf_count_t>(data.size());
  return Decode(bytes, name, span);
}

}  // namespace mindrecord
