// `mindrecord cat PATH [--rows A:B] [--columns c1,c2] [--format jsonl|table]`:
// rows in global row-id order.
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "cli/crypto_options.h"
#include "cli/row_format.h"
#include "cli/row_range.h"
#include "readers/shard_reader.h"

namespace mindrecord::cli {

namespace {

int RunCatCommand(const std::string& path, const std::string& rows, const std::string& columns, const std::string& format,
        const ReaderOptions& options) {
  if (format != "jsonl" && format != "table") {
    return ReportStatus("cat", Status::InvalidArgument("--format must be jsonl or table"));
  }
  auto reader = ShardReader::Open(path, options);
  if (!reader.ok()) return ReportStatus("cat", reader.status());
  const ShardReader& r = **reader;
  ReportWarnings("cat", r);
  std::vector<std::string> cols;
  std::stringstream ss(columns);
  for (std::string c; std::getline(ss, c, ',');) {
    if (!c.empty()) cols.push_back(c);
  }
  auto proj = r.MakeProjection(cols);
  if (!proj.ok()) return ReportStatus("cat", proj.status());
  uint64_t begin, end;
  Status st = ParseRowRange(rows, r.num_rows(), &begin, &end);
  if (!st.ok()) return ReportStatus("cat", st);
  std::vector<std::string> names;
  for (int id : proj->field_ids) names.push_back(r.schema().fields()[id].name);
  if (format == "table") {
    std::string head = "row_id";
    for (const auto& n : names) head += "\t" + n;
    std::printf("%s\n", head.c_str());
  }
  st = r.Scan(begin, end, &*proj, [&](uint64_t id, Row&& row) {
    if (format == "jsonl") {
      nlohmann::json obj = nlohmann::json::object();
      for (const auto& [name, v] : row.fields()) obj[name] = ValueToJson(v);
      std::string line = obj.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      std::fwrite(line.data(), 1, line.size(), stdout);
      std::fputc('\n', stdout);
    } else {
      std::string line = std::to_string(id);
      for (const auto& n : names) line += "\t" + ValueToCell(row.Get(n));
      std::printf("%s\n", line.c_str());
    }
    if (std::ferror(stdout)) return Status::IOError("writing to standard output failed");
    return Status::OK();
  });
  std::fflush(stdout);
  return ReportStatus("cat", st);
}

}  // namespace

void AddCatCommand(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("cat", "Print rows in global row-id order");
  AddReadCryptoOptions(sub);
  auto path = std::make_shared<std::string>();
  auto rows = std::make_shared<std::string>();
  auto columns = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("jsonl");
  sub->add_option("path", *path, "Any shard file of the dataset")->required();
  sub->add_option("--rows", *rows, "Row range A:B (B exclusive; either side may be empty)");
  sub->add_option("--columns", *columns, "Comma-separated columns (default: all)");
  sub->add_option("--format", *format, "jsonl (bytes as base64, arrays as nested lists) or table");
  auto options = std::make_shared<ReaderOptions>();
  AddRemoteOptions(sub, &options->remote);
  sub->callback([=] { *exit_code = RunCatCommand(*path, *rows, *columns, *format, *options); });
}

}  // namespace mindrecord::cli
