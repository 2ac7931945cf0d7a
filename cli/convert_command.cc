// `mindrecord convert SOURCE INPUT OUTPUT`: the CLI face of writers/convert.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/crypto_options.h"
#include "cli/mpi_rank_group.h"
#include "writers/convert/converter.h"
#include "writers/convert/launch.h"
#include "writers/convert/rank_group.h"

namespace mindrecord::cli {
namespace {

struct ConvertArgs {
  std::string source, input, output;
  std::string on_error = "fail";
  std::string encode = "default";
  std::string classes;
  std::string columns;
  bool quiet = false;
  bool json = false;
  convert::ConvertOptions options;
  std::string compress = "none";
  std::optional<uint32_t> rank, world_size;
  WriteCryptoArgs write;  // the output's encryption and digest
};

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The class -> label map a converter stored in the description, or null.
nlohmann::json Classes(const std::string& description) {
  const nlohmann::json d = nlohmann::json::parse(description, nullptr, /*allow_exceptions=*/false);
  if (d.is_object() && d.contains("class_to_label") && d["class_to_label"].is_object()) return d["class_to_label"];
  return nullptr;
}

// Every rank's rows, bytes and seconds (one entry without ranks).
nlohmann::json RankStatsJson(const convert::ConvertReport& r) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : r.ranks) {
    out.push_back({{"rows", s.rows}, {"bytes", s.bytes}, {"seconds", s.seconds},
                   {"mb_per_s", s.seconds > 0 ? static_cast<double>(s.bytes) / 1e6 / s.seconds : 0.0}});
  }
  return out;
}

// Shards a --resume run kept, per output.
nlohmann::json Kept(const convert::ConvertReport& r) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& o : r.outputs) out.push_back(o.kept);
  return out;
}

// `--json`: the run's summary as one object (what the summary line, the
// notes and OUTPUT.skipped.txt tell, for scripts).
nlohmann::json JsonSummary(const ConvertArgs& a, const convert::ConvertReport& r) {
  nlohmann::json outputs = nlohmann::json::array(), skipped = nlohmann::json::array();
  size_t shards = 0;
  nlohmann::json classes = nullptr;
  for (const auto& o : r.outputs) {
    shards += o.files.size();
    if (classes.is_null()) classes = Classes(o.description);
    outputs.push_back({{"split", o.split}, {"files", o.files}, {"rows", o.rows}, {"bytes", o.bytes}});
  }
  for (size_t i = 0; i < r.skipped.size(); ++i) {
    const std::string& input = i < r.skipped_inputs.size() ? r.skipped_inputs[i] : std::string();
    const bool split = !input.empty() && r.skipped[i].compare(0, input.size() + 2, input + ": ") == 0;
    skipped.push_back({{"input", split ? input : r.skipped[i]},
                       {"reason", split ? r.skipped[i].substr(input.size() + 2) : std::string()}});
  }
  return {{"source", a.source},
          {"input", a.input},
          {"output", a.output},
          {"rows", r.rows},
          {"shards", shards},
          {"bytes", r.bytes},
          {"seconds", r.seconds},
          {"outputs", outputs},
          {"classes", classes},
          {"skipped", skipped},
          {"skipped_count", r.skipped_count},
          {"skipped_file", r.skipped_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.skipped_file)},
          {"notes", r.notes},
          {"world_size", r.world_size},
          {"ranks", RankStatsJson(r)},
          {"kept", Kept(r)},
          {"parts_only", r.parts_only}};
}

// How this process takes part in the conversion: one process (null), or
// a rank of a distributed one, from --rank/--world-size or the launcher's
// variables. The ranks of an MPI launcher are joined through MPI; ranks given
// by flags without one write their shards as parts, finished by `--resume`.
Result<std::unique_ptr<convert::RankGroup>> RanksFor(const ConvertArgs& a) {
  if (a.rank.has_value() != a.world_size.has_value()) {
    return Status::InvalidArgument("--rank and --world-size go together");
  }
  MR_ASSIGN_OR_RETURN(std::optional<convert::Launch> launch, convert::DetectLaunch());
  if (a.rank) {
    if (*a.world_size == 0 || *a.rank >= *a.world_size) {
      return Status::InvalidArgument("--rank " + std::to_string(*a.rank) + " must be below --world-size " +
                                     std::to_string(*a.world_size));
    }
    const bool mpi = launch && launch->mpi && launch->size > 1;
    if (mpi && (launch->rank != *a.rank || launch->size != *a.world_size)) {
      return Status::InvalidArgument("--rank " + std::to_string(*a.rank) + " --world-size " +
                                     std::to_string(*a.world_size) + " disagrees with " + launch->by + " (rank " +
                                     std::to_string(launch->rank) + " of " + std::to_string(launch->size) + ")");
    }
    if (!mpi) launch = convert::Launch{*a.rank, *a.world_size, "--rank/--world-size", false};
  }
  if (!launch) return std::unique_ptr<convert::RankGroup>();
  if (launch->size == 1) return std::unique_ptr<convert::RankGroup>(new convert::LocalRankGroup());
  if (launch->mpi) return JoinMpiRanks(*launch);
  if (a.rank) return std::unique_ptr<convert::RankGroup>(new convert::LocalRankGroup(launch->rank, launch->size));
  return Status::InvalidArgument(
      launch->by + " says this is rank " + std::to_string(launch->rank) + " of " + std::to_string(launch->size) +
      ", but no MPI launcher started the ranks, so they cannot work together. Start them with mpirun (or srun "
      "--mpi=pmix); under torchrun convert from Python (mindrecord.convert joins the ranks through "
      "torch.distributed); or give each process --rank R --world-size W to write its shards as parts and finish "
      "the dataset with one `--resume` run after them");
}

int RunConvert(ConvertArgs& a) {
  auto on_error = convert::ParseOnError(a.on_error);
  if (!on_error.ok()) return ReportStatus("convert", on_error.status());
  auto encode = convert::ParseEncodeMode(a.encode);
  if (!encode.ok()) return ReportStatus("convert", encode.status());
  auto compression = ParseCompression(a.compress);
  if (!compression.ok()) return ReportStatus("convert", compression.status());
  a.options.compression = *compression;
  if (a.options.append && (a.options.overwrite || compression->enabled())) {
    return ReportStatus("convert", Status::InvalidArgument(
                                       "--append adds to a dataset as it is: it takes neither --overwrite nor "
                                       "--compress (the dataset keeps its own)"));
  }
  auto protection = WriteProtection(a.write);
  if (!protection.ok()) return ReportStatus("convert", protection.status());
  a.options.protection = *protection;
  a.options.on_error = *on_error;
  a.options.encode = *encode;
  a.options.classes = SplitComma(a.classes);
  a.options.csv_columns = SplitComma(a.columns);
  a.options.progress = !a.quiet && !a.json && isatty(STDERR_FILENO);
  auto ranks = RanksFor(a);
  if (!ranks.ok()) return ReportStatus("convert", ranks.status());
  a.options.ranks = ranks->get();
  if (Protects(a.options.protection) && (a.options.append || a.options.ranks != nullptr || a.options.resume)) {
    return ReportStatus("convert", Status::InvalidArgument(
                                       "--encrypt-key-file and --write-hash-mode write a new dataset in one process: "
                                       "not with --append, --resume or ranks (protect it afterwards with `mindrecord "
                                       "copy`)"));
  }
  const bool lead = a.options.ranks == nullptr || a.options.ranks->rank() == 0;
  if (!lead) a.options.progress = false;
  auto report = convert::Convert(a.source, a.input, a.output, a.options);
  if (!report.ok()) return ReportStatus("convert", report.status());
  if (report->parts_only) {
    std::fprintf(stderr,
                 "convert %s: rank %u of %u wrote its shards as parts (%llu rows, %.1f MB, %.2f s); when every rank "
                 "has, run this command once more without --rank/--world-size and with --resume to finish the "
                 "dataset\n",
                 a.source.c_str(), report->rank, report->world_size, static_cast<unsigned long long>(report->rank_rows),
                 static_cast<double>(report->rank_bytes) / 1e6, report->seconds);
    return kExitOk;
  }
  if (a.options.ranks != nullptr && !a.quiet && !a.json) {
    const auto& me = report->ranks.at(report->rank);
    std::fprintf(stderr, "convert %s: rank %u of %u: %llu rows, %.1f MB in %.2f s (%.1f MB/s)\n", a.source.c_str(),
                 report->rank, report->world_size, static_cast<unsigned long long>(me.rows),
                 static_cast<double>(me.bytes) / 1e6, me.seconds,
                 me.seconds > 0 ? static_cast<double>(me.bytes) / 1e6 / me.seconds : 0.0);
  }
  if (!lead) return kExitOk;
  if (a.json) {
    std::cout << JsonSummary(a, *report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  if (!a.quiet) {
    for (const auto& note : report->notes) std::fprintf(stdout, "%s\n", note.c_str());
    for (const auto& out : report->outputs) {
      std::fprintf(stdout, "wrote %s: %llu rows in %zu shard(s)\n", out.files.empty() ? "" : out.files[0].c_str(),
                   static_cast<unsigned long long>(out.rows), out.files.size());
    }
  }
  size_t shards = 0;
  for (const auto& out : report->outputs) shards += out.files.size();
  double mb = static_cast<double>(report->bytes) / 1e6;
  std::fprintf(stderr, "convert %s: %llu rows, %zu shards, %.1f MB, %.2f s (%.1f MB/s), %llu skipped%s%s\n",
               a.source.c_str(), static_cast<unsigned long long>(report->rows), shards, mb, report->seconds,
               report->seconds > 0 ? mb / report->seconds : 0.0, static_cast<unsigned long long>(report->skipped_count),
               report->skipped_file.empty() ? "" : ", list in ", report->skipped_file.c_str());
  return kExitOk;
}

}  // namespace

void AddConvertCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ConvertArgs>();
  std::string sources;
  for (const auto& s : convert::ConvertSources()) sources += (sources.empty() ? "" : ", ") + s;
  CLI::App* cmd = app.add_subcommand("convert", "Convert a dataset in a common layout into MindRecord");
  cmd->add_option("SOURCE", args->source, "Source layout: " + sources)->required();
  cmd->add_option("INPUT", args->input, "Root folder of the source layout, or the file (tfrecord, csv)")->required();
  cmd->add_option("OUTPUT", args->output,
                  "Output dataset path; sources with splits write OUTPUT_train.mindrecord, OUTPUT_test.mindrecord")
      ->required();
  auto& o = args->options;
  cmd->add_option("--shards", o.shards, "Shard files per dataset (1-1000)")->capture_default_str();
  cmd->add_option("--workers", o.workers, "Worker threads (0 = all cores)")->capture_default_str();
  cmd->add_option("--header-size", o.header_size, "Header bytes per shard")->capture_default_str();
  cmd->add_option("--page-size", o.page_size, "Page bytes")->capture_default_str();
  cmd->add_flag("--overwrite", o.overwrite, "Replace existing output files");
  AddWriteModeOption(cmd, &o.direct_writes);
  cmd->add_option("--rank", args->rank,
                  "This process's rank in a distributed convert (default: from mpirun/srun/torchrun variables)");
  cmd->add_option("--world-size", args->world_size, "The number of ranks (with --rank); --shards must be at least this");
  cmd->add_flag("--resume", o.resume,
                "Finish an interrupted distributed convert: keep the shards it completed (verified by their "
                "checksums), write the others");
  cmd->add_flag("--append", o.append,
                "Add the rows to the existing output dataset(s) (same schema and class map); see `append`");
  cmd->add_option("--compress", args->compress,
                  "Per-row compression: none (plain MindSpore output), lz4, zstd:LEVEL, zstd:LEVEL+dict; "
                  "+raw compresses the non-blob part too (e.g. zstd:3+dict+raw)")
      ->capture_default_str();
  cmd->add_option("--on-error", args->on_error, "fail (default): stop, leave no output; skip: list and go on");
  cmd->add_option("--encode", args->encode,
                  "keep|jpeg|png|raw; default: image files as they are, MNIST/CIFAR pixels as JPEG; "
                  "raw: decoded HWC uint8 pixels (image files: RGB, plus image_shape)");
  cmd->add_flag("--quiet", args->quiet, "No progress and no notes, only the summary line");
  cmd->add_flag("--json", args->json,
                "Print only a JSON summary to stdout: rows, shards, bytes, seconds, outputs, classes, skipped "
                "inputs with reasons, notes (no progress)");
  cmd->add_option("--batch-rows", o.batch_rows, "Rows per writer batch")->capture_default_str();
  cmd->add_option("--task", o.task, "voc: detection|segmentation; coco: detection|keypoint|panoptic|captioning");
  cmd->add_option("--split", o.split, "voc: the ImageSets list to convert (default train); mnist, cifar10, cifar100: only train or test");
  cmd->add_option("--annotations", o.annotations, "coco: annotation JSON; imagenet: map file");
  cmd->add_option("--panoptic-dir", o.panoptic_dir,
                  "coco --task panoptic: folder of panoptic PNGs (default: beside the JSON, named after it)");
  cmd->add_option("--image-dir", o.image_dir, "imagenet: image folder (default INPUT/images)");
  cmd->add_option("--classes", args->classes, "voc: comma-separated class names (default: the 20 VOC classes)");
  cmd->add_flag("--strict-boxes", o.strict_boxes,
                "voc: refuse a box that runs past the image edge (default: keep it, with a warning)");
  cmd->add_option("--fields", o.fields, "tfrecord/csv: name:type[:shape],... (default: inferred)");
  cmd->add_option("--delimiter", o.csv_delimiter, "csv: field delimiter");
  cmd->add_option("--columns", args->columns, "csv: comma-separated columns to convert, types inferred (default: all)");
  cmd->add_option("--infer-records", o.infer_records, "tfrecord: records read to infer the feature spec");
  AddWriteCryptoOptions(cmd, &args->write);
  cmd->callback([args, exit_code]() { *exit_code = RunConvert(*args); });
}

}  // namespace mindrecord::cli
