// Tokenizers that another extension module implements (python/native_tokenizer.h)
// as pipeline ops: {"op": "SentencePieceTokenizer", "_ref": id, "out_type":
// "string" | "int"}. text.SentencePieceTokenizer registers the capsule that
// mindrecord._sentencepiece_native made for its model; the op calls the
// capsule's table from the worker threads without the GIL, so it runs in
// parallel like the other text ops. One string in (MindSpore's rule); its
// pieces out as a 1-D array of strings, or their ids as int32 (an empty
// string gives an empty array, as MindSpore's kernel does).
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pipeline/op_registry.h"
#include "pipeline/ops/op_util.h"
#include "pipeline/ops/text_tokenizers.h"
#include "pipeline/strings.h"
#include "python/native_tokenizer.h"
#include "python/py_common.h"

namespace mindrecord::py_binding {

namespace {

// A registered tokenizer, kept for the life of the process (so its capsule
// is never released on a thread without the GIL).
struct Registered {
  py::object capsule;
  const MrNativeTokenizer* table = nullptr;
};

std::mutex& RegistryMutex() {
  static std::mutex mu;
  return mu;
}
std::map<uint64_t, std::shared_ptr<Registered>>& Registry() {
  static auto* r = new std::map<uint64_t, std::shared_ptr<Registered>>();
  return *r;
}

struct Collected {
  bool ids = false;
  bool failed = false;  // out of memory while collecting
  StringsBuilder pieces;
  std::vector<int32_t> id_values;
};

// Called by the other module for each token; never throws into it.
extern "C" void EmitToken(void* ctx, const char* piece, size_t len, int32_t id) {
  auto* c = static_cast<Collected*>(ctx);
  if (c->failed) return;
  try {
    if (c->ids) {
      c->id_values.push_back(id);
    } else {
      c->pieces.Add(std::string_view(piece, len));
    }
  } catch (...) {
    c->failed = true;
  }
}

class NativeTokenizerOp : public TensorOp {
 public:
  NativeTokenizerOp(std::shared_ptr<Registered> tokenizer, uint64_t ref, bool ids)
      : tokenizer_(std::move(tokenizer)), ref_(ref), ids_(ids) {}
  std::string name() const override { return "SentencePieceTokenizer"; }
  nlohmann::json ToJson() const override {
    return {{"op", name()}, {"_ref", ref_}, {"out_type", ids_ ? "int" : "string"}};
  }
  bool takes_strings() const override { return true; }

  Result<Tensor> Apply(Tensor input, std::mt19937_64&) const override {
    MR_ASSIGN_OR_RETURN(std::string_view s, ops::OneString(input, name()));
    Collected c;
    c.ids = ids_;
    char error[512] = {0};
    const MrNativeTokenizer* t = tokenizer_->table;
    if (t->encode(t->self, s.data(), s.size(), ids_ ? 1 : 0, &c, EmitToken, error, sizeof error) != 0) {
      return Status::InvalidArgument(name() + ": " + error);
    }
    if (c.failed) return Status::Internal(name() + ": out of memory collecting the tokens");
    if (!ids_) return c.pieces.Finish();
    Tensor out = Tensor::Make(TensorType::kInt32, {static_cast<int64_t>(c.id_values.size())});
    if (!c.id_values.empty()) std::memcpy(out.MutableData(), c.id_values.data(), c.id_values.size() * 4);
    return out;
  }

 private:
  std::shared_ptr<Registered> tokenizer_;
  uint64_t ref_;
  bool ids_;
};

Result<std::unique_ptr<TensorOp>> MakeNativeTokenizer(const nlohmann::json& spec) {
  const std::string op = "SentencePieceTokenizer";
  MR_RETURN_IF_ERROR(ops::CheckKeys(spec, op, {"_ref", "out_type"}));
  if (!spec.contains("_ref") || !spec["_ref"].is_number_unsigned()) {
    return Status::InvalidArgument(op + ": the spec has no '_ref' to a registered model");
  }
  MR_ASSIGN_OR_RETURN(const std::string out, ops::GetString(spec, op, "out_type", "string"));
  if (out != "string" && out != "int") {
    return Status::InvalidArgument(op + ": out_type must be \"string\" or \"int\", got \"" + out + "\"");
  }
  const uint64_t ref = spec["_ref"].get<uint64_t>();
  std::shared_ptr<Registered> tokenizer;
  {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    auto it = Registry().find(ref);
    if (it != Registry().end()) tokenizer = it->second;
  }
  if (!tokenizer) {
    return Status::InvalidArgument(op + ": no model #" + std::to_string(ref) +
                                   " in this process (plans with it run where they were built)");
  }
  return std::unique_ptr<TensorOp>(new NativeTokenizerOp(std::move(tokenizer), ref, out == "int"));
}

}  // namespace

void BindNativeTokenizer(py::module_& m) {
  RegisterOp("SentencePieceTokenizer", MakeNativeTokenizer);
  m.def(
      "register_native_tokenizer",
      [](py::capsule capsule) {
        if (std::strcmp(capsule.name(), kNativeTokenizerCapsule) != 0) {
          throw StatusError(Status::InvalidArgument(std::string("register_native_tokenizer: a capsule named ") +
                                                    kNativeTokenizerCapsule + " is needed, got " + capsule.name()));
        }
        auto r = std::make_shared<Registered>();
        r->table = capsule.get_pointer<MrNativeTokenizer>();
        r->capsule = capsule;
        std::lock_guard<std::mutex> lock(RegistryMutex());
        static uint64_t next_id = 1;  // under RegistryMutex
        const uint64_t id = next_id++;
        Registry()[id] = std::move(r);
        return id;
      },
      py::arg("capsule"),
      "The id of a native tokenizer's capsule for {\"op\": \"SentencePieceTokenizer\", \"_ref\": id}; kept for the "
      "life of the process.");
}

}  // namespace mindrecord::py_binding
