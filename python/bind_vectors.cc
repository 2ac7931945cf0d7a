// Pretrained word vectors (mindrecord.text.Vectors and its kinds): a loaded
// table held by the Python object, so ToVectors ops built while it lives
// share it (pipeline/ops/vector_table.h).
#include <memory>

#include "pipeline/ops/vector_table.h"
#include "python/py_common.h"

namespace mindrecord::py_binding {

namespace {

// Thread safety: immutable.
struct LoadedVectors {
  std::shared_ptr<const ops::VectorTable> table;
};

}  // namespace

void BindVectors(py::module_& m) {
  py::class_<LoadedVectors>(m, "LoadedVectors")
      .def_property_readonly("dim", [](const LoadedVectors& v) { return v.table->dim(); })
      .def("__len__", [](const LoadedVectors& v) { return v.table->size(); });
  m.def(
      "load_vectors",
      [](const std::string& path, const std::string& kind, int64_t max_vectors) {
        ops::VectorsKind k = ValueOrThrow(ops::ParseVectorsKind(kind));
        py::gil_scoped_release nogil;
        return LoadedVectors{ValueOrThrow(ops::LoadVectorTable(path, k, max_vectors))};
      },
      py::arg("path"), py::arg("kind"), py::arg("max_vectors"),
      "The vectors file at path loaded as kind (Vectors, GloVe, FastText, CharNGram); max_vectors 0: all lines.");
}

}  // namespace mindrecord::py_binding
