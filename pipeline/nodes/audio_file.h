// Sound files as float32 samples, for the audio datasets (audio_source.h):
// WAV (RIFF/RIFX, WAVE_FORMAT_EXTENSIBLE, RF64) and NIST SPHERE, decoded by
// libsndfile. Integer samples are scaled by 1 / 2^(bits - 1) (16-bit: / 32768,
// as MindSpore's reader), float samples kept. Any other container is refused
// before libsndfile parses it. The file is untrusted input: a header that
// does not parse, a format other than these, or more decoded samples than a
// row may hold (kMaxDecompressedRowBytes) is a Corruption error naming the
// file; memory follows the samples actually decoded, never a header's claim.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mindrecord/status.h"
#include "pipeline/tensor.h"

namespace mindrecord {

struct DecodedAudio {
  Tensor waveform;  // float32 [channels, frames]
  int32_t sample_rate = 0;
};

// A part of a file, in seconds: frames [start_s * rate, end_s * rate), each
// truncated toward zero (as MindSpore's TED-LIUM reader); end_s < 0: the
// whole file. A segment that ends past the file's last frame is an error.
struct AudioSpan {
  double start_s = 0;
  double end_s = -1;
};

// The file's samples (a segment reads only that segment's bytes).
// Thread safety: any thread.
Result<DecodedAudio> ReadAudioFile(const std::string& path, AudioSpan span = {});

// The same for a file's bytes in memory; `name` names it in errors.
Result<DecodedAudio> DecodeAudio(std::string_view bytes, const std::string& name, AudioSpan span = {});

}  // namespace mindrecord
