// `mindrecord export PATH OUTDIR [--rows A:B] [--columns c1,c2] [--contact-sheet N]`:
// rows as files to look at.
#include <cstdio>
#include <sstream>

#include "cli/command.h"
#include "cli/crypto_options.h"
#include "cli/contact_sheet.h"
#include "cli/images.h"
#include "cli/out_folder.h"
#include "cli/row_format.h"
#include "cli/row_range.h"
#include "readers/shard_reader.h"

namespace mindrecord::cli {

namespace {

struct ExportArgs {
  std::string path, out, rows, columns;
  bool overwrite = false;
  int sheet = 0;  // --contact-sheet N
  SheetOptions sheet_options;
  ReaderOptions read;  // remote options
};

// Row `id` as files: each image value as OUTDIR/<id>.<column>.<jpg|png|...>
// (its bytes as stored; raw pixels encoded as PNG), other bytes as .bin, and
// OUTDIR/<id>.json with every value (file values by their file name).
Status ExportRow(uint64_t id, const Row& row, const std::string& stem, OutFolder& folder) {
  nlohmann::json doc = {{"row_id", id}};
  for (const auto& [name, v] : row.fields()) {
    if (v.kind() != Value::Kind::kBytes) {
      doc[name] = ValueToJson(v);
      continue;
    }
    std::string file, png;
    if (const char* ext = SniffImage(v.bytes())) {
      file = stem + "." + name + "." + ext;
      MR_RETURN_IF_ERROR(folder.Write(file, v.bytes()));
    } else if (HasRawPixels(row, name)) {
      MR_ASSIGN_OR_RETURN(cv::Mat img, RowImage(row, name));
      MR_ASSIGN_OR_RETURN(png, EncodePng(img));
      file = stem + "." + name + ".png";
      MR_RETURN_IF_ERROR(folder.Write(file, png));
    } else {
      file = stem + "." + name + ".bin";
      MR_RETURN_IF_ERROR(folder.Write(file, v.bytes()));
    }
    doc[name] = file;
  }
  return folder.Write(stem + ".json", doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

int RunExportCommand(ExportArgs& a) {
  auto reader = ShardReader::Open(a.path, a.read);
  if (!reader.ok()) return ReportStatus("export", reader.status());
  const ShardReader& r = **reader;
  ReportWarnings("export", r);
  std::vector<std::string> cols;
  std::stringstream ss(a.columns);
  for (std::string c; std::getline(ss, c, ',');) {
    if (!c.empty()) cols.push_back(c);
  }
  auto proj = r.MakeProjection(cols);
  if (!proj.ok()) return ReportStatus("export", proj.status());
  uint64_t begin = 0, end = 0;
  const bool rows = !a.rows.empty() || a.sheet == 0;  // with only --contact-sheet, no rows
  if (Status st = ParseRowRange(a.rows, r.num_rows(), &begin, &end); !st.ok()) return ReportStatus("export", st);
  auto folder = OutFolder::Open(a.out, a.overwrite);
  if (!folder.ok()) return ReportStatus("export", folder.status());
  if (rows) {
    const size_t width = std::to_string(r.num_rows() ? r.num_rows() - 1 : 0).size();
    Status st = r.Scan(begin, end, &*proj, [&](uint64_t id, Row&& row) {
      std::string stem = std::to_string(id);
      stem.insert(0, width - std::min(width, stem.size()), '0');
      return ExportRow(id, row, stem, *folder);
    });
    if (!st.ok()) return ReportStatus("export", st);
    std::printf("exported rows %llu to %llu into %s (%llu files)\n", static_cast<unsigned long long>(begin),
                static_cast<unsigned long long>(end), a.out.c_str(),
                static_cast<unsigned long long>(folder->files_written()));
  }
  if (a.sheet > 0) {
    a.sheet_options.per_class = a.sheet;
    auto sheet = MakeContactSheet(r, a.sheet_options);
    if (!sheet.ok()) return ReportStatus("export", sheet.status());
    if (Status st = folder->Write("contact_sheet.png", sheet->png); !st.ok()) return ReportStatus("export", st);
    std::printf("wrote %s/contact_sheet.png: %zu images of column %s", a.out.c_str(), sheet->samples,
                sheet->image_column.c_str());
    if (sheet->label_column != "-") {
      std::printf(", %zu classes of %s", sheet->classes, sheet->label_column.c_str());
      if (sheet->classes < sheet->classes_total) std::printf(" (the first %zu of %zu)", sheet->classes, sheet->classes_total);
    }
    std::printf("\n");
  }
  return kExitOk;
}

}  // namespace

void AddExportCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<ExportArgs>();
  auto* sub = app.add_subcommand("export", "Write rows as files to look at: images as .jpg/.png, the rest as JSON");
  sub->add_option("path", a->path, "Any shard file of the dataset")->required();
  AddReadCryptoOptions(sub);
  sub->add_option("outdir", a->out, "Output folder (created; nothing is written outside it)")->required();
  AddRemoteOptions(sub, &a->read.remote);
  sub->add_option("--rows", a->rows, "Row range A:B (B exclusive; default: all rows, or none with --contact-sheet)");
  sub->add_option("--columns", a->columns, "Comma-separated columns (default: all)");
  sub->add_flag("--overwrite", a->overwrite, "Replace files that exist in the output folder");
  sub->add_option("--contact-sheet", a->sheet,
                  "Also write OUTDIR/contact_sheet.png: N samples (1-64) per class in a grid, with their labels");
  sub->add_option("--image-column", a->sheet_options.image_column,
                  "Contact sheet: the image column (default: the first bytes column holding an image)");
  sub->add_option("--label-column", a->sheet_options.label_column,
                  "Contact sheet: the label column (default: label when present; '-': no classes)");
  sub->callback([=] { *exit_code = RunExportCommand(*a); });
}

}  // namespace mindrecord::cli
