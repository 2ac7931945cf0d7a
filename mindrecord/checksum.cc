#include "mindrecord/checksum.h"

#if defined(__x86_64__)
// Replaces XXH3_64bits* with entry points that pick the widest vector unit
// the CPU has (AVX2 / AVX-512) at run time; the plain ones use SSE2 only.
#include <xxh_x86dispatch.h>
#else
#include <xxhash.h>
#endif

#include <new>

namespace mindrecord {

uint64_t Xxh3(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

struct Xxh3Stream::State {
  XXH3_state_t* s = XXH3_createState();
  ~State() { XXH3_freeState(s); }
};
Xxh3Stream::Xxh3Stream() : state_(std::make_unique<State>()) {
  if (!state_->s) throw std::bad_alloc();
  XXH3_64bits_reset(state_->s);
}
Xxh3Stream::~Xxh3Stream() = default;
Xxh3Stream::Xxh3Stream(Xxh3Stream&&) noexcept = default;
Xxh3Stream& Xxh3Stream::operator=(Xxh3Stream&&) noexcept = default;
void Xxh3Stream::Update(std::string_view bytes) { XXH3_64bits_update(state_->s, bytes.data(), bytes.size()); }
uint64_t Xxh3Stream::Digest() const { return XXH3_64bits_digest(state_->s); }
void Xxh3Stream::Reset() { XXH3_64bits_reset(state_->s); }

std::string ChecksumHex(uint64_t v) {
  // Not snprintf: a fresh process's first header check would page in and
  // run its formatting code for 16 digits.
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) out[i] = kDigits[v & 0xf];
  return out;
}

namespace {
// Position of the 16 hex digits of the header checksum value, or npos.
size_t DigitsAt(std::string_view text) {
  std::string key = "\"";  // appended: GCC 12 warns falsely about an operator+ chain (-Wstringop-overflow)
  key += kHeaderChecksumKey;
  key += "\":\"";
  size_t pos = text.rfind(key);
  if (pos == std::string_view::npos) return pos;
  pos += key.size();
  if (pos + 17 > text.size() || text[pos + 16] != '"') return std::string_view::npos;
  return pos;
}
}  // namespace

void SealHeaderChecksum(std::string* text) {
  size_t at = DigitsAt(*text);
  if (at == std::string::npos) return;
  text->replace(at, 16, std::string(16, '0'));
  text->replace(at, 16, ChecksumHex(Xxh3(*text)));
}

Status VerifyHeaderChecksum(std::string_view text, const std::string& what) {
  size_t at = DigitsAt(text);
  if (at == std::string_view::npos) {
    if (text.find(kHeaderChecksumKey) != std::string_view::npos) {
      return Status::Corruption(what + ": header checksum field is malformed");
    }
    return Status::OK();
  }
  std::string zeroed(text);
  const std::string stored = zeroed.substr(at, 16);
  zeroed.replace(at, 16, std::string(16, '0'));
  const std::string computed = ChecksumHex(Xxh3(zeroed));
  if (stored != computed) {
    return Status::Corruption(what + ": header checksum mismatch (stored " + stored + ", computed " + computed +
                              "): the header was modified or damaged");
  }
  return Status::OK();
}

}  // namespace mindrecord
