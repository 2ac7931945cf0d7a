// MindSpore's encryption and hash settings (mindrecord.config; the writer
// applies them at commit: mindrecord/encryption.h).
#include <optional>

#include <pybind11/stl.h>

#include "mindrecord/encryption.h"
#include "mindrecord/file.h"
#include "python/py_common.h"

namespace mindrecord::py_binding {

void BindCrypto(py::module_& m) {
  m.def(
      "set_crypto_config",
      [](const std::optional<py::bytes>& key, const std::string& enc_mode, const std::string& dec_mode,
         const std::string& hash_mode) {
        CryptoConfig c;
        if (key) c.key = *key;
        c.enc_mode = enc_mode;
        c.dec_mode = dec_mode;
        c.hash_mode = hash_mode;
        SetCryptoConfig(c);
      },
      py::arg("key"), py::arg("enc_mode"), py::arg("dec_mode"), py::arg("hash_mode"),
      "Sets the process-wide key (None: none), modes and hash mode ('' : none).");
  m.def(
      "digest",
      [](const std::string& hash_mode, const py::bytes& data) {
        return py::bytes(ValueOrThrow(Digest(hash_mode, std::string(data))));
      },
      py::arg("hash_mode"), py::arg("data"));
  m.def(
      "protection_of",
      [](const std::string& path) -> std::string {
        auto f = FileSystem::Default()->OpenRead(path);
        if (!f.ok()) return "";  // the caller's own open names the problem
        if (ValueOrThrow(IsEncryptedFile(**f))) return "encrypted";
        return ValueOrThrow(IsHashedFile(**f)) ? "hashed" : "";
      },
      py::arg("path"), "'encrypted', 'hashed', or '' (a plain file, or one that does not open).");
}

}  // namespace mindrecord::py_binding
