// A tokenizer that another extension module implements, handed to _core as a
// table of C functions in a capsule named kNativeTokenizerCapsule. The
// SentencePiece module (python/sentencepiece/) is one: libsentencepiece
// carries its own protobuf, which cannot be linked into _core beside
// libprotobuf, while Python loads each extension module with its own symbols.
// _core calls the table from its worker threads without the GIL.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

inline constexpr const char* kNativeTokenizerCapsule = "mindrecord.native_tokenizer_v1";

struct MrNativeTokenizer {
  void* self;
  // Splits the `len` bytes of UTF-8 at `text` and calls `emit(ctx, piece,
  // piece_len, id)` for each token in order: with `want_ids` the token's id
  // (piece null), otherwise its text (id -1). Returns 0, or non-zero with a
  // NUL-terminated message in `error` (`error_cap` bytes). Safe to call from
  // several threads at once.
  int (*encode)(void* self, const char* text, size_t len, int want_ids, void* ctx,
                void (*emit)(void* ctx, const char* piece, size_t piece_len, int32_t id), char* error,
                size_t error_cap);
};

}  // extern "C"
