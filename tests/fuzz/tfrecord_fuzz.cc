// TFRecord files: the input is the .tfrecord file (framing, CRCs,
// tf.train.Example protobufs), read by the converter (the feature spec
// inferred, then the rows built) and by TFRecordDataset's source (the records
// counted, the columns of the first record inferred, every row read with
// those columns and with other types and shapes); then the same bytes
// gzip-compressed (the converter finding it compressed; compression_type
// GZIP: the inflating scan and reads from access points), and the input
// itself as a gzip and as a zlib stream.
#include <zlib.h>

#include "pipeline/nodes/tfrecord_source.h"
#include "tests/fuzz/fuzz_util.h"
#include "writers/convert/sources.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mindrecord;

namespace {

// `data` as one gzip stream, flushed fully every 4 KiB (block boundaries
// that become access points).
std::string Gzip(const uint8_t* data, size_t size) {
  z_stream zs{};
  if (deflateInit2(&zs, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::string out(deflateBound(&zs, size) + size / 64 + 64, '\0');
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  for (size_t at = 0;;) {
    const size_t n = std::min<size_t>(4096, size - at);
    zs.next_in = const_cast<Bytef*>(data + at);
    zs.avail_in = static_cast<uInt>(n);
    at += n;
    if (deflate(&zs, at == size ? Z_FINISH : Z_FULL_FLUSH) == Z_STREAM_END || at == size) break;
  }
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

void DriveSource(const std::string& file, const char* compression = "") {
  const StreamCompression c = *ParseStreamCompression(compression);
  auto counts = CountTfRecords({file}, c);
  if (!counts.ok()) return;
  auto inferred = TfRecordColumns(file, c);
  if (!inferred.ok() || inferred->empty()) return;
  nlohmann::json names = nlohmann::json::array();
  for (const auto& [name, type] : *inferred) names.push_back(name);
  // The inferred types, then every column as each other type and shape.
  std::vector<std::pair<std::string, nlohmann::json>> variants = {{"", nullptr}};
  for (const char* t : {"uint8", "int8", "int16", "int32", "float32", "string"}) {
    variants.push_back({t, nullptr});
    variants.push_back({t, nlohmann::json::array({-1, 3})});
    variants.push_back({t, nlohmann::json::array()});
  }
  for (const auto& [type, shape] : variants) {
    nlohmann::json types = nlohmann::json::array(), shapes = nlohmann::json::array();
    for (const auto& [name, inferred_type] : *inferred) {
      types.push_back(type.empty() ? inferred_type : type);
      shapes.push_back(shape);
    }
    nlohmann::json node = {{"node", "source"}, {"kind", "tfrecord"}, {"columns", names}, {"rows", (*counts)[0]},
                           {"args", {{"files", {file}}, {"types", types}, {"shapes", shapes},
                                     {"compression", compression}}}};
    auto src = OpenTfRecordSource(node);
    if (!src.ok()) continue;
    std::vector<uint64_t> ids;
    for (uint64_t i = (*counts)[0]; i-- > 0 && ids.size() < 64;) ids.push_back(i);
    (void)(*src)->Read(ids, [](size_t, const Status&, std::vector<Tensor>&&, uint64_t) { return Status::OK(); });
  }
}

}  // namespace

MINDRECORD_FUZZ_TARGET(tfrecord) {
  const auto dir = fuzz::FreshScratch();
  const std::string file = (dir / "in.tfrecord").string();
  fuzz::WriteFile(dir / "in.tfrecord", std::string_view(reinterpret_cast<const char*>(data), size));
  const std::string gz = (dir / "in.tfrecord.gz").string();
  fuzz::WriteFile(dir / "in.tfrecord.gz", Gzip(data, size));
  for (const std::string& input : {file, gz}) {
    for (auto on_error : {convert::OnError::kFail, convert::OnError::kSkip}) {
      convert::ConvertOptions o;
      o.on_error = on_error;
      o.infer_records = 16;
      convert::ConvertContext ctx(o);
      fuzz::DrivePlans(convert::PlanTfRecord(input, ctx), 64);
    }
  }
  DriveSource(file);
  DriveSource(gz, "gzip");
  DriveSource(file, "gzip");
  DriveSource(file, "zlib");
  return 0;
}
