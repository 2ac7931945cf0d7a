#include "writers/convert/converter.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "writers/convert/convert_context.h"
#include "writers/convert/convert_engine.h"
#include "writers/convert/distributed_convert.h"
#include "writers/convert/rank_group.h"
#include "writers/convert/sources.h"

namespace mindrecord::convert {
namespace fs = std::filesystem;

Result<OnError> ParseOnError(const std::string& text) {
  if (text == "fail") return OnError::kFail;
  if (text == "skip") return OnError::kSkip;
  return Status::InvalidArgument("--on-error must be fail or skip, got '" + text + "'");
}

Result<EncodeMode> ParseEncodeMode(const std::string& text) {
  if (text == "default" || text.empty()) return EncodeMode::kDefault;
  if (text == "keep") return EncodeMode::kKeep;
  if (text == "jpeg" || text == "jpg") return EncodeMode::kJpeg;
  if (text == "png") return EncodeMode::kPng;
  if (text == "raw") return EncodeMode::kRaw;
  return Status::InvalidArgument("--encode must be keep, jpeg, png or raw, got '" + text + "'");
}

const std::vector<std::string>& ConvertSources() {
  static const std::vector<std::string> kSources = {"imagefolder", "imagenet", "cifar10", "cifar100", "mnist",
                                                    "voc",         "coco",     "tfrecord", "csv"};
  return kSources;
}

std::string SplitOutputPath(const std::string& output, const std::string& split) {
  if (split.empty()) return output;
  std::string base = output;
  const std::string ext = ".mindrecord";
  if (base.size() > ext.size() && base.compare(base.size() - ext.size(), ext.size(), ext) == 0) {
    base.resize(base.size() - ext.size());
  }
  return base + "_" + split + ext;
}

namespace {

Status ValidateOptions(const std::string& source, const std::string& input, const std::string& output,
                       const ConvertOptions& o) {
  if (output.empty()) return Status::InvalidArgument("OUTPUT is empty");
  if (o.shards < kMinShardCount || o.shards > kMaxShardCount)
    return Status::InvalidArgument("--shards must be in [1, 1000], got " + std::to_string(o.shards));
  if (o.header_size < kMinHeaderSize || o.header_size > kMaxHeaderSize || o.header_size % 4 != 0)
    return Status::InvalidArgument("--header-size must be a multiple of 4 in [16 KiB, 128 MiB], got " +
                                   std::to_string(o.header_size));
  if (o.page_size < kMinPageSize || o.page_size > kMaxPageSize || o.page_size % 4 != 0)
    return Status::InvalidArgument("--page-size must be a multiple of 4 in [32 KiB, 256 MiB], got " +
                                   std::to_string(o.page_size));
  if (o.workers > 1024) return Status::InvalidArgument("--workers must be at most 1024");
  if (Protects(o.protection)) {
    if (o.append || o.ranks != nullptr || o.resume) {
      return Status::InvalidArgument("a hashed or encrypted output is written by one process as a new dataset: not "
                                     "with append, ranks or resume");
    }
    MR_RETURN_IF_ERROR(CheckProtection(o.protection, output));
  }
  std::error_code ec;
  if (!fs::exists(input, ec)) return Status::NotFound(input + ": no such file or folder");
  if (o.ranks != nullptr || o.resume) {
    const uint32_t w = o.ranks ? o.ranks->size() : 1;
    if (o.ranks && (w == 0 || o.ranks->rank() >= w)) {
      return Status::InvalidArgument("rank " + std::to_string(o.ranks->rank()) + " is not below the " +
                                     std::to_string(w) + " ranks");
    }
    if (o.shards < w) {
      return Status::InvalidArgument("--shards " + std::to_string(o.shards) + " is fewer than the " + std::to_string(w) +
                                     " ranks: each rank writes whole shards, so give at least as many shards as "
                                     "ranks (e.g. --shards " + std::to_string(w) + ")");
    }
    if (o.append) return Status::InvalidArgument("--append adds to a dataset from one process; it takes no ranks or --resume");
    if (o.compression.enabled() && o.compression.dictionary) {
      return Status::InvalidArgument("--compress " + CompressionSpec(o.compression) +
                                     " trains one dictionary from the first rows of the whole dataset, which a "
                                     "distributed or resumed conversion does not do; use zstd:LEVEL or lz4");
    }
  }
  const bool file_source = source == "tfrecord" || source == "csv";
  if (o.encode == EncodeMode::kRaw && file_source)
    return Status::InvalidArgument("--encode raw applies to image and pixel sources, not to " + source);
  return Status::OK();
}

// Creates OUTPUT's folder and its missing parents, as `mkdir -p` would, so
// that a new user's `convert ... out/data/train` does not stop at "output
// folder does not exist". An append needs its dataset, hence its folder.
Status CreateOutputFolder(const std::string& output) {
  const fs::path dir = fs::path(output).parent_path();
  if (dir.empty()) return Status::OK();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IOError(dir.string() + ": cannot create the output folder: " + ec.message());
  return Status::OK();
}

}  // namespace

Result<ConvertReport> Convert(const std::string& source, const std::string& input, const std::string& output,
                              const ConvertOptions& options) {
  using Planner = PlanResult (*)(const std::string&, ConvertContext&);
  static const std::map<std::string, Planner> kPlanners = {
      {"imagefolder", &PlanImageFolder}, {"imagenet", &PlanImageNet}, {"cifar10", &PlanCifar10},
      {"cifar100", &PlanCifar100},       {"mnist", &PlanMnist},       {"voc", &PlanVoc},
      {"coco", &PlanCoco},               {"tfrecord", &PlanTfRecord}, {"csv", &PlanCsv}};
  const auto start = std::chrono::steady_clock::now();
  ConvertContext ctx(options);
  // Everything up to the plans. A rank that fails here still takes part in
  // the ranks' first exchange, so that none waits for it.
  std::vector<SplitPlan> plans;
  Status setup = [&]() -> Status {
    auto it = kPlanners.find(source);
    if (it == kPlanners.end()) {
      std::string list;
      for (const auto& s : ConvertSources()) list += (list.empty() ? "" : ", ") + s;
      return Status::InvalidArgument("unknown source '" + source + "' (one of: " + list + ")");
    }
    MR_RETURN_IF_ERROR(ValidateOptions(source, input, output, options));
    MR_ASSIGN_OR_RETURN(plans, it->second(input, ctx));
    return options.append ? Status::OK() : CreateOutputFolder(output);
  }();
  ConvertReport report;
  if (options.ranks != nullptr || options.resume) {
    LocalRankGroup one;
    RankGroup& group = options.ranks ? *options.ranks : one;
    MR_ASSIGN_OR_RETURN(DistributedResult d, RunPlansDistributed(plans, output, ctx, group, setup));
    report.outputs = std::move(d.outputs);
    for (const auto& o : report.outputs) {
      report.rows += o.rows;
      report.bytes += o.bytes;
    }
    report.skipped = std::move(d.skipped);
    report.skipped_inputs = std::move(d.skipped_inputs);
    report.skipped_count = d.skipped_count;
    report.skipped_file = std::move(d.skipped_file);
    report.notes = ctx.notes();
    report.rank = group.rank();
    report.world_size = group.size();
    report.rank_rows = d.rank_rows;
    report.rank_bytes = d.rank_bytes;
    report.parts_only = d.parts_only;
    report.ranks = std::move(d.ranks);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
  }
  MR_RETURN_IF_ERROR(setup);
  MR_ASSIGN_OR_RETURN(std::vector<OutputReport> outputs, RunPlans(plans, output, ctx));
  report.outputs = std::move(outputs);
  for (const auto& o : report.outputs) {
    report.rows += o.rows;
    report.bytes += o.bytes;
  }
  report.rank_rows = report.rows;
  report.rank_bytes = report.bytes;
  report.skipped = ctx.skipped();
  report.skipped_inputs = ctx.skipped_inputs();
  report.skipped_count = ctx.skipped_count();
  report.notes = ctx.notes();
  if (report.skipped_count > 0) {
    report.skipped_file = output + ".skipped.txt";
    MR_RETURN_IF_ERROR(ctx.WriteSkipped(report.skipped_file));
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.ranks = {{report.rows, report.bytes, report.seconds}};
  return report;
}

}  // namespace mindrecord::convert
