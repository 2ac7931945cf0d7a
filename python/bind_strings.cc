// String arrays (TensorType::kStrings) to and from numpy str arrays (dtype
// '<U n': fixed-width UCS-4, trailing NULs not part of a string), as
// MindSpore's text ops take and give them. Bytes that are not UTF-8 come out
// as lone surrogates (Python's "surrogateescape") and go back as the bytes.
#include <cstring>
#include <string>
#include <vector>

#include "pipeline/strings.h"
#include "python/py_common.h"

namespace mindrecord::py_binding {

namespace {

// Appends code point `cp` as UTF-8; false for one that has no UTF-8 form
// (a surrogate other than surrogateescape's U+DC80..U+DCFF, or past U+10FFFF).
bool AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp >= 0xDC80 && cp <= 0xDCFF) {
    out->push_back(static_cast<char>(cp - 0xDC00));  // an undecodable byte, escaped
  } else if (cp >= 0xD800 && cp <= 0xDFFF) {
    return false;
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp <= 0x10FFFF) {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    return false;
  }
  return true;
}

}  // namespace

Result<Tensor> StrArrayToStrings(const py::array& array, const std::string& who) {
  py::array a = py::module_::import("numpy").attr("ascontiguousarray")(array);
  const py::dtype dt = a.dtype();
  if (dt.kind() != 'U') return Status::InvalidArgument(who + ": not a str array");
  const size_t width = static_cast<size_t>(dt.itemsize()) / 4;
  const bool swap = dt.byteorder() == '>';
  const auto n = static_cast<size_t>(a.size());
  const auto* p = static_cast<const uint8_t*>(a.data());
  StringsBuilder b;
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* item = p + i * width * 4;
    size_t len = width;
    auto at = [&](size_t k) {
      uint32_t cp = 0;
      std::memcpy(&cp, item + k * 4, 4);
      return swap ? __builtin_bswap32(cp) : cp;
    };
    while (len > 0 && at(len - 1) == 0) --len;
    s.clear();
    for (size_t k = 0; k < len; ++k) {
      if (!AppendUtf8(at(k), &s))
        return Status::InvalidArgument(who + ": string " + std::to_string(i) + " holds code point U+" +
                                       std::to_string(at(k)) + ", which UTF-8 cannot hold");
    }
    b.Add(s);
  }
  return b.Finish(Shape(std::vector<int64_t>(a.shape(), a.shape() + a.ndim())));
}

namespace {

// A numpy str array of `shape` holding `items` (decoded as UTF-8 with
// surrogateescape).
py::array MakeStrArray(const std::vector<std::string_view>& items, const std::vector<ssize_t>& shape) {
  std::vector<py::object> decoded(items.size());
  Py_ssize_t width = 1;
  for (size_t i = 0; i < items.size(); ++i) {
    PyObject* u = PyUnicode_DecodeUTF8(items[i].data(), static_cast<Py_ssize_t>(items[i].size()), "surrogateescape");
    if (u == nullptr) throw py::error_already_set();
    decoded[i] = py::reinterpret_steal<py::object>(u);
    width = std::max(width, PyUnicode_GET_LENGTH(u));
  }
  py::array a = py::module_::import("numpy").attr("zeros")(py::tuple(py::cast(shape)),
                                                          "<U" + std::to_string(width));
  auto* out = static_cast<Py_UCS4*>(a.mutable_data());
  for (size_t i = 0; i < decoded.size(); ++i) {
    if (PyUnicode_AsUCS4(decoded[i].ptr(), out + i * static_cast<size_t>(width), width, 0) == nullptr)
      throw py::error_already_set();
  }
  return a;
}

}  // namespace

py::array StringsToArray(const Tensor& t) {
  const std::vector<std::string_view> items = ValueOrThrow(ReadStrings(t));
  return MakeStrArray(items, std::vector<ssize_t>(t.shape().begin(), t.shape().end()));
}

py::object StackedStrings(const std::vector<Tensor>& rows) {
  if (rows.empty() || rows.front().type() != TensorType::kStrings) return py::object();
  std::vector<ssize_t> shape = {static_cast<ssize_t>(rows.size())};
  shape.insert(shape.end(), rows.front().shape().begin(), rows.front().shape().end());
  std::vector<std::string_view> items;
  for (const Tensor& t : rows) {
    if (t.type() != TensorType::kStrings || t.shape() != rows.front().shape()) return py::object();
    const std::vector<std::string_view> row = ValueOrThrow(ReadStrings(t));
    items.insert(items.end(), row.begin(), row.end());
  }
  return MakeStrArray(items, shape);
}

}  // namespace mindrecord::py_binding
