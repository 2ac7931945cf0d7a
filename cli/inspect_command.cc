// `mindrecord inspect PATH [--json] [--pages] [--histogram COLUMN]`: what a
// dataset holds.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>

#include "cli/command.h"
#include "cli/crypto_options.h"
#include "cli/label_histogram.h"
#include "mindrecord/compression.h"
#include "readers/shard_reader.h"

namespace mindrecord::cli {

using nlohmann::json;

namespace {

json ValueJson(const Value& v) {
  if (v.kind() == Value::Kind::kString) return v.bytes();
  if (v.kind() == Value::Kind::kInt) return v.as_int();
  return v.as_float();
}

// The dataset's blob compression: codec, dictionary, blob bytes before and
// after compression and their ratio. Corruption naming `path` when the
// header's numbers are not unsigned integers.
Result<json> DescribeCompression(const ShardHeader& h, const std::string& path) {
  const CompressionOptions o = CompressionFromHeader(h);
  json j = {{"codec", CompressionSpec(o)}};
  auto it = h.extra.find(kCompressionKey);
  if (!o.enabled() || it == h.extra.end()) return j;
  const json& c = *it;
  j["dict_id"] = 0;
  if (c.contains("dict_id")) {
    if (!c["dict_id"].is_number_unsigned() || c["dict_id"].get<uint64_t>() > UINT32_MAX)
      return Status::Corruption(path + ": header \"" + std::string(kCompressionKey) + "\".dict_id is " +
                                c["dict_id"].dump() + ", not a dictionary id");
    j["dict_id"] = c["dict_id"];
  }
  if (c.contains("dictionary") && c["dictionary"].is_string()) {
    const std::string& b64 = c["dictionary"].get<std::string>();
    j["dict_bytes"] = b64.size() / 4 * 3 - static_cast<size_t>(std::count(b64.end() - std::min<size_t>(2, b64.size()), b64.end(), '='));
  }
  uint64_t raw = 0, stored = 0;
  MR_RETURN_IF_ERROR(ReadBlobByteCounts(c, path, &raw, &stored));
  j["raw_bytes"] = raw;
  j["stored_bytes"] = stored;
  j["ratio"] = stored ? static_cast<double>(raw) / static_cast<double>(stored) : 0.0;
  return j;
}

json DescribeShard(const ShardReader& r, uint32_t s, bool pages) {
  const ShardHeader& h = r.header(s);
  uint64_t blob_pages = 0, raw_pages = 0, blob_bytes = 0, raw_bytes = 0;
  for (const auto& p : h.pages) {
    (p.is_blob ? blob_pages : raw_pages)++;
    (p.is_blob ? blob_bytes : raw_bytes) += p.used_bytes;
  }
  json j = {{"path", r.shard_paths()[s]}, {"rows", h.num_rows()}, {"first_row", r.shard_first_row(s)},
            {"blob_pages", blob_pages}, {"raw_pages", raw_pages}, {"blob_bytes", blob_bytes},
            {"raw_bytes", raw_bytes}};
  if (pages) {
    json list = json::array();
    for (const auto& p : h.pages) list.push_back(p.ToJson());
    j["pages"] = list;
  }
  return j;
}

json HistogramJson(const Histogram& h, const std::map<int64_t, std::string>& names) {
  json counts = json::array();
  for (const auto& c : h.counts) {
    json e = {{"value", ValueJson(c.value)}, {"rows", c.rows}};
    if (c.value.kind() == Value::Kind::kInt && names.count(c.value.as_int())) e["class"] = names.at(c.value.as_int());
    counts.push_back(e);
  }
  return {{"column", h.column}, {"source", h.from_index ? "index" : "rows"}, {"counts", counts}};
}

void PrintHistogram(const Histogram& h, const std::map<int64_t, std::string>& names) {
  uint64_t most = 1, total = 0;
  size_t width = 1;
  for (const auto& c : h.counts) {
    most = std::max(most, c.rows);
    total += c.rows;
    width = std::max(width, LabelText(c.value, names).size());
  }
  std::printf("histogram of %s (%zu values, counted from the %s):\n", h.column.c_str(), h.counts.size(),
              h.from_index ? "index" : "rows");
  for (const auto& c : h.counts) {
    const std::string label = LabelText(c.value, names);
    std::printf("  %-*s %10llu  %5.1f%%  %s\n", static_cast<int>(width), label.c_str(),
                static_cast<unsigned long long>(c.rows), total ? 100.0 * c.rows / total : 0.0,
                std::string(static_cast<size_t>(40.0 * c.rows / most + 0.5), '#').c_str());
  }
}

int RunInspectCommand(const std::string& path, bool as_json, bool pages, const std::string& histogram,
        const ReaderOptions& options) {
  auto reader = ShardReader::Open(path, options);
  if (!reader.ok()) return ReportStatus("inspect", reader.status());
  const ShardReader& r = **reader;
  ReportWarnings("inspect", r);
  std::optional<Histogram> hist;
  if (!histogram.empty()) {
    auto h = CountLabels(r, histogram);
    if (!h.ok()) return ReportStatus("inspect", h.status());
    hist = std::move(h).value();
  }
  const auto names = ClassNames(r.schema());
  json shards = json::array();
  for (uint32_t s = 0; s < r.num_shards(); ++s) shards.push_back(DescribeShard(r, s, pages));
  const ShardHeader& h0 = r.header(0);
  auto comp = DescribeCompression(h0, r.shard_paths()[0]);
  if (!comp.ok()) return ReportStatus("inspect", comp.status());
  if (as_json) {
    json out = {{"version", r.version()},
                {"num_rows", r.num_rows()},
                {"num_shards", r.num_shards()},
                {"shards", shards},
                {"schema", r.schema().ToUserJson()},
                {"desc", r.schema().desc()},
                {"blob_fields", r.schema().blob_field_names()},
                {"index_fields", r.index_fields()},
                {"header_size", r.header_size()},
                {"page_size", r.page_size()},
                {"compression_size", h0.compression_size},
                {"compression", *comp},
                {"warnings", r.warnings()}};
    if (hist) out["histogram"] = HistogramJson(*hist, names);
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("dataset:      %s\n", path.c_str());
  std::printf("version:      %s\n", r.version().c_str());
  std::printf("rows:         %llu\n", static_cast<unsigned long long>(r.num_rows()));
  std::printf("header_size:  %llu\npage_size:    %llu\n", static_cast<unsigned long long>(r.header_size()),
              static_cast<unsigned long long>(r.page_size()));
  if (comp->contains("raw_bytes")) {
    const json& c = *comp;
    std::string dict = c["dict_id"].get<uint32_t>() ? ", dictionary " + c["dict_id"].dump() + " (" +
                                                          c.value("dict_bytes", json(0)).dump() + " bytes)"
                                                    : "";
    const bool raw_too = CompressionFromHeader(h0).raw;
    std::printf("compression:  %s%s; %s bytes %llu -> %llu (ratio %.2f)\n", c["codec"].get<std::string>().c_str(),
                dict.c_str(), raw_too ? "row" : "blob", c["raw_bytes"].get<unsigned long long>(),
                c["stored_bytes"].get<unsigned long long>(), c["ratio"].get<double>());
  } else {
    std::printf("compression:  none\n");
  }
  if (!r.schema().desc().empty()) std::printf("description:  %s\n", r.schema().desc().c_str());
  std::printf("schema:\n");
  for (const Field& f : r.schema().fields()) {
    std::string shape;
    if (f.has_shape) {
      shape = " shape [";
      for (size_t i = 0; i < f.shape.size(); ++i) shape += (i ? "," : "") + std::to_string(f.shape[i]);
      shape += "]";
    }
    std::printf("  %-24s %s%s%s\n", f.name.c_str(), DataTypeName(f.type), shape.c_str(),
                f.is_blob() ? "  (blob)" : "");
  }
  std::string idx;
  for (const auto& f : r.index_fields()) idx += (idx.empty() ? "" : ", ") + f;
  std::printf("blob fields:  %s\n", json(r.schema().blob_field_names()).dump().c_str());
  std::printf("index fields: %s\n", idx.empty() ? "(none)" : idx.c_str());
  std::printf("shards:       %u\n", r.num_shards());
  for (const auto& s : shards) {
    std::printf("  %s: %llu rows, %llu blob pages (%llu bytes), %llu raw pages (%llu bytes)\n",
                s["path"].get<std::string>().c_str(), s["rows"].get<unsigned long long>(),
                s["blob_pages"].get<unsigned long long>(), s["blob_bytes"].get<unsigned long long>(),
                s["raw_pages"].get<unsigned long long>(), s["raw_bytes"].get<unsigned long long>());
    if (pages) {
      for (const auto& p : s["pages"]) std::printf("    %s\n", p.dump().c_str());
    }
  }
  if (hist) PrintHistogram(*hist, names);
  return kExitOk;
}

}  // namespace

void AddInspectCommand(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("inspect", "Show a dataset's version, schema, shards, rows and pages");
  AddReadCryptoOptions(sub);
  auto path = std::make_shared<std::string>();
  auto as_json = std::make_shared<bool>(false);
  auto pages = std::make_shared<bool>(false);
  auto histogram = std::make_shared<std::string>();
  sub->add_option("path", *path, "Any shard file of the dataset")->required();
  sub->add_flag("--json", *as_json, "Print one JSON object");
  sub->add_flag("--pages", *pages, "List every page");
  sub->add_option("--histogram", *histogram,
                  "Rows per value of a label column (e.g. label), from the index when it has the column");
  auto options = std::make_shared<ReaderOptions>();
  AddRemoteOptions(sub, &options->remote);
  sub->callback([=] { *exit_code = RunInspectCommand(*path, *as_json, *pages, *histogram, *options); });
}

}  // namespace mindrecord::cli
