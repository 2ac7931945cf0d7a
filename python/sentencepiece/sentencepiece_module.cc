// mindrecord._sentencepiece_native: a SentencePiece model as a native
// tokenizer (python/native_tokenizer.h) for _core's SentencePieceTokenizer
// op. A module of its own, linked against libsentencepiece: that library
// exports its own copy of protobuf-lite, which must not meet the libprotobuf
// that _core links (Python loads each extension module with RTLD_LOCAL).
#include <sentencepiece_processor.h>

#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "python/native_tokenizer.h"

namespace py = pybind11;

namespace {

struct Model {
  MrNativeTokenizer table;
  sentencepiece::SentencePieceProcessor processor;
};

void Fail(const std::string& message, char* error, size_t cap) {
  if (cap == 0) return;
  const size_t n = std::min(message.size(), cap - 1);
  std::memcpy(error, message.data(), n);
  error[n] = '\0';
}

int Encode(void* self, const char* text, size_t len, int want_ids, void* ctx,
           void (*emit)(void*, const char*, size_t, int32_t), char* error, size_t cap) {
  try {
    const auto& processor = static_cast<Model*>(self)->processor;
    const std::string_view input(text, len);
    if (want_ids) {
      std::vector<int> ids;
      const auto status = processor.Encode(input, &ids);
      if (!status.ok()) {
        Fail(status.ToString(), error, cap);
        return 1;
      }
      for (int id : ids) emit(ctx, nullptr, 0, id);
      return 0;
    }
    std::vector<std::string> pieces;
    const auto status = processor.Encode(input, &pieces);
    if (!status.ok()) {
      Fail(status.ToString(), error, cap);
      return 1;
    }
    for (const auto& piece : pieces) emit(ctx, piece.data(), piece.size(), -1);
    return 0;
  } catch (const std::exception& e) {
    Fail(e.what(), error, cap);
    return 1;
  }
}

}  // namespace

PYBIND11_MODULE(_sentencepiece_native, m) {
  m.doc() = "A SentencePiece model as a native tokenizer for mindrecord._core (see python/native_tokenizer.h).";
  m.def(
      "load",
      [](py::bytes model) {
        auto* h = new Model();
        const std::string bytes = model;
        const auto status = h->processor.LoadFromSerializedProto(bytes);
        if (!status.ok()) {
          delete h;
          throw py::value_error(status.ToString());
        }
        h->table.self = h;
        h->table.encode = Encode;
        return py::capsule(&h->table, kNativeTokenizerCapsule, [](PyObject* capsule) {
          auto* table = static_cast<MrNativeTokenizer*>(PyCapsule_GetPointer(capsule, kNativeTokenizerCapsule));
          delete static_cast<Model*>(table->self);
        });
      },
      py::arg("model"), "A capsule of the tokenizer table for the serialized model (ValueError if it does not load).");
}
