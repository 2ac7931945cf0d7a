#include "writers/convert/distributed_convert.h"

#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "mindrecord/file.h"
#include "writers/convert/shard_record.h"
#include "writers/shard_part.h"
#include "writers/shard_writer.h"

namespace mindrecord::convert {
namespace {

using json = nlohmann::json;

// `j` as JSON text, and `s`, with each byte that is not part of UTF-8
// replaced by U+FFFD: what the ranks exchange, and a part's header, are
// JSON, which holds only UTF-8, and a file name need not be (one in a
// skipped input's line aborted its rank; in an error, the rank left the
// others waiting).
std::string Utf8Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }
std::string ValidUtf8(const std::string& s) { return json::parse(Utf8Dump(json(s))).get<std::string>(); }

// Every rank's message, parsed; a rank's error (its "error" key) becomes the
// returned error, naming the rank.
Result<std::vector<json>> Exchange(RankGroup& group, const json& mine) {
  MR_ASSIGN_OR_RETURN(std::vector<std::string> all, group.AllGather(Utf8Dump(mine)));
  if (all.size() != group.size()) return Status::Internal("a rank exchange returned " + std::to_string(all.size()) +
                                                          " messages for " + std::to_string(group.size()) + " ranks");
  std::vector<json> out;
  for (const auto& text : all) {
    json j = json::parse(text, nullptr, false);
    if (!j.is_object()) return Status::Internal("a rank's message does not parse");
    out.push_back(std::move(j));
  }
  for (size_t r = 0; r < out.size(); ++r) {
    if (out[r].value("error", std::string()).empty()) continue;
    const std::string who = out.size() > 1 ? "rank " + std::to_string(r) + " of " + std::to_string(out.size()) + ": " : "";
    return Status(static_cast<StatusCode>(out[r].value("code", static_cast<int>(StatusCode::kInternal))),
                  who + out[r]["error"].get<std::string>());
  }
  return out;
}

json ErrorMessage(const Status& st) {
  if (st.ok()) return json::object();
  return {{"error", ValidUtf8(st.message())}, {"code", static_cast<int>(st.code())}};
}

// Every input's size (SplitPlan::item_bytes; 1 each without it): each
// rank measures those of its slice of the items and the ranks share them.
Result<std::vector<uint64_t>> InputSizes(const SplitPlan& plan, RankGroup& group) {
  if (!plan.item_bytes || !group.connected() || group.size() == 1) return ItemWeights(plan, 0, plan.num_items);
  const size_t m = plan.num_items, w = group.size(), r = group.rank();
  const std::vector<uint64_t> mine = ItemWeights(plan, m * r / w, m * (r + 1) / w);
  MR_ASSIGN_OR_RETURN(std::vector<std::string> all,
                      group.AllGather(std::string(reinterpret_cast<const char*>(mine.data()), mine.size() * 8)));
  std::vector<uint64_t> weights;
  weights.reserve(m);
  for (const auto& part : all) {
    const size_t k = weights.size();
    weights.resize(k + part.size() / 8);
    std::memcpy(weights.data() + k, part.data(), part.size() / 8 * 8);
  }
  if (weights.size() != m) return Status::Internal("the ranks measured " + std::to_string(weights.size()) +
                                                   " input sizes for " + std::to_string(m) + " inputs");
  return weights;
}

// OUTPUT.skipped.txt of a distributed convert: what the plans left out (this
// rank's, the same on every rank), then each shard's list; a shard that
// skipped more than it lists says how many more.
Status WriteSkippedList(const std::string& path, ConvertContext& ctx, const ConvertContext::SkippedMark& planned,
                        const std::vector<std::vector<ShardDone>>& per_plan, const std::vector<std::string>& paths_of) {
  std::ofstream f(path, std::ios::trunc | std::ios::binary);
  MR_RETURN_IF_ERROR(ctx.ForEachSkipped({}, planned, [&](const std::string&, const std::string& line) {
    f << line << '\n';
    return Status::OK();
  }));
  for (size_t p = 0; p < per_plan.size(); ++p) {
    for (const ShardDone& d : per_plan[p]) {
      for (const auto& s : d.skipped) f << s.at(1).get<std::string>() << '\n';
      if (d.skipped_unlisted > 0) {
        f << ShardFileNames(paths_of[p], static_cast<uint32_t>(per_plan[p].size()))[d.shard] << ": "
          << d.skipped_unlisted << " more skipped inputs, not listed (a shard lists at most "
          << ConvertContext::kKeptSkipped << ", in 4 MiB)\n";
      }
    }
  }
  f.close();
  return f ? Status::OK() : Status::IOError(path + ": cannot write the list of skipped inputs");
}

}  // namespace

Result<DistributedResult> RunPlansDistributed(const std::vector<SplitPlan>& plans, const std::string& output,
                                              ConvertContext& ctx, RankGroup& group, const Status& setup) {
  const ConvertOptions& opt = ctx.options();
  const auto start = std::chrono::steady_clock::now();
  // Inputs the plans left out: the same on every rank (each plans the same
  // inputs), listed first, as a one-process convert lists them.
  const ConvertContext::SkippedMark planned = ctx.MarkSkipped();
  const uint32_t n = opt.shards, w = group.size(), r = group.rank();
  const uint32_t first = static_cast<uint32_t>(uint64_t{n} * r / w), last = static_cast<uint32_t>(uint64_t{n} * (r + 1) / w);
  FileSystem* fs = FileSystem::Default();
  std::vector<std::string> paths_of;  // output path per plan
  for (const SplitPlan& plan : plans) {
    auto named = opt.split_outputs.find(plan.split);
    paths_of.push_back(named != opt.split_outputs.end() ? named->second : SplitOutputPath(output, plan.split));
  }

  // 1. Same inputs on every rank, and nothing in the way, before anything is written.
  std::vector<std::string> fps;
  Status problem = setup;
  for (size_t p = 0; p < plans.size() && problem.ok(); ++p) {
    fps.push_back(PlanFingerprint(plans[p], opt, paths_of[p]));
    const std::vector<std::string> paths = ShardFileNames(paths_of[p], n);
    if (first == 0 && opt.resume && !opt.overwrite && fs->Exists(paths[0])) {
      problem = Status::AlreadyExists(paths[0] + ": the dataset is complete; --resume finishes an interrupted "
                                      "conversion (use --overwrite to write it again)");
    }
    for (uint32_t s = first; s < last && problem.ok() && !opt.resume && !opt.overwrite; ++s) {
      for (const auto& f : {paths[s], paths[s] + kIndexSuffix}) {
        if (fs->Exists(f)) problem = Status::AlreadyExists(f + ": already exists (use --overwrite to replace it, or "
                                                           "--resume to finish an interrupted conversion)");
      }
    }
  }
  if (group.connected()) {
    json mine = ErrorMessage(problem);
    mine["plans"] = fps;
    MR_ASSIGN_OR_RETURN(std::vector<json> all, Exchange(group, mine));
    for (size_t k = 1; k < all.size(); ++k) {
      if (all[k]["plans"] != all[0]["plans"]) {
        return Status::InvalidArgument("rank " + std::to_string(k) + " sees other inputs or options than rank 0 "
                                       "(plan fingerprints " + all[k]["plans"].dump() + " and " +
                                       all[0]["plans"].dump() + "): every rank must convert the same INPUT with "
                                       "the same options (a process converting alone: --rank 0 --world-size 1, Python rank=0, "
                                       "world_size=1)");
      }
    }
  } else {
    MR_RETURN_IF_ERROR(problem);
  }
  // Every plan's shard ranges, before any rank starts writing (the only
  // exchange after that is the outcome's).
  std::vector<std::vector<size_t>> bounds_of;
  std::vector<std::vector<uint64_t>> sizes_of;
  for (const SplitPlan& plan : plans) {
    MR_ASSIGN_OR_RETURN(std::vector<uint64_t> sizes, InputSizes(plan, group));
    bounds_of.push_back(n == 1 ? std::vector<size_t>{0, plan.num_items} : ShardBoundaries(sizes, n));
    sizes_of.push_back(std::move(sizes));
  }

  // 2. This rank's shards, written as parts.
  WriterOptions base;
  base.shard_count = n;
  base.header_size = opt.header_size;
  base.page_size = opt.page_size;
  base.overwrite = true;  // parts are hidden; the final names were checked above
  base.compression = opt.compression;
  base.direct_writes = opt.direct_writes;
  DistributedResult result;
  std::vector<ShardDone> done;
  bool stopped = false;  // by another rank's failure, not by this rank's own
  Status status;
  for (size_t p = 0; p < plans.size() && status.ok(); ++p) {
    const SplitPlan& plan = plans[p];
    const std::vector<std::string> paths = ShardFileNames(paths_of[p], n);
    const std::vector<size_t>& b = bounds_of[p];
    std::vector<Segment> segments;
    for (uint32_t s = first; s < last; ++s) {
      const std::string sfp = ShardFingerprint(fps[p], s, b[s], b[s + 1], sizes_of[p]);
      std::optional<ShardDone> kept;
      if (opt.resume) kept = KeepShard(plan, paths, s, sfp, /*keep_final=*/!opt.overwrite, ctx);
      if (kept) {
        kept->plan = p;
        done.push_back(std::move(*kept));
      } else {
        segments.push_back({s, b[s], b[s + 1]});
      }
    }
    OutputReport report;
    std::unique_ptr<ShardWriter> writer;
    ConvertContext::SkippedMark skipped_before;
    uint64_t rows_before = 0, bytes_before = 0;
    RowSink sink;
    sink.begin = [&](const Segment& seg) -> Status {
      WriterOptions wo = base;
      wo.index_fields = plan.index_fields;
      wo.only_shard = seg.shard;
      MR_ASSIGN_OR_RETURN(writer, ShardWriter::Create(paths_of[p], plan.schema, wo));
      skipped_before = ctx.MarkSkipped();
      rows_before = report.rows;
      bytes_before = report.bytes;
      return Status::OK();
    };
    sink.write = [&](uint32_t shard, std::vector<Row>&& rows) { return writer->WriteRowsToShard(shard, std::move(rows)); };
    sink.end = [&](const Segment& seg) -> Status {
      ShardDone d;
      d.plan = p;
      d.shard = seg.shard;
      d.rows = report.rows - rows_before;
      d.bytes = report.bytes - bytes_before;
      // The list rides in the part's header (16 MiB by default): at most
      // kKeptSkipped lines and 4 MiB of them.
      uint64_t listed_bytes = 0;
      MR_RETURN_IF_ERROR(ctx.ForEachSkipped(skipped_before, ctx.MarkSkipped(), [&](const std::string& in, const std::string& line) {
        listed_bytes += in.size() + line.size();
        if (d.skipped.size() < ConvertContext::kKeptSkipped && listed_bytes <= (uint64_t{4} << 20)) {
          d.skipped.push_back({ValidUtf8(in), ValidUtf8(line)});
        } else {
          ++d.skipped_unlisted;
        }
        return Status::OK();
      }));
      json info = {{"fingerprint", ShardFingerprint(fps[p], seg.shard, seg.begin, seg.end, sizes_of[p])},
                   {"skipped", d.skipped}};
      if (d.skipped_unlisted > 0) info["skipped_unlisted"] = d.skipped_unlisted;
      MR_ASSIGN_OR_RETURN(d.totals, writer->CommitPart(info));
      writer.reset();
      done.push_back(std::move(d));
      return Status::OK();
    };
    sink.poll = [&]() -> Status {
      std::optional<std::string> other = group.PollFailure();
      if (!other) return Status::OK();
      stopped = true;
      return Status::Cancelled("stopped because " + *other);
    };
    status = RunSegments(plan, segments, sink, ctx, &report);
    writer.reset();  // an unfinished shard leaves nothing
    result.rank_rows += report.rows;
    result.rank_bytes += report.bytes;
  }
  bool announced = false;
  if (!status.ok() && !stopped && group.connected() && w > 1) {
    group.AnnounceFailure("rank " + std::to_string(r) + " failed: " + status.message());
    announced = true;
  }
  if (!group.connected()) {
    MR_RETURN_IF_ERROR(status);
    result.parts_only = true;
    result.ranks.resize(w);
    result.ranks[r] = {result.rank_rows, result.rank_bytes,
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
    for (const SplitPlan& plan : plans) {
      OutputReport o;
      o.split = plan.split;
      o.description = plan.schema.desc();
      result.outputs.push_back(std::move(o));
    }
    for (const ShardDone& d : done) {
      result.outputs[d.plan].files.push_back(ShardPartPath(ShardFileNames(paths_of[d.plan], n)[d.shard]));
      result.outputs[d.plan].rows += d.rows;
      result.outputs[d.plan].bytes += d.bytes;
      if (d.kept) result.outputs[d.plan].kept.push_back(d.shard);
    }
    return result;
  }

  // 3. Every rank's outcome; a failure anywhere stops them all, parts kept.
  json mine = ErrorMessage(status);
  mine["rows"] = result.rank_rows;
  mine["bytes"] = result.rank_bytes;
  mine["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  mine["stopped"] = stopped;
  mine["announced"] = announced;
  mine["shards"] = json::array();
  for (const ShardDone& d : done) mine["shards"].push_back(ToJson(d));
  MR_ASSIGN_OR_RETURN(std::vector<std::string> texts, group.AllGather(Utf8Dump(mine)));
  std::vector<json> all;
  std::vector<uint32_t> announcers;
  for (size_t k = 0; k < texts.size(); ++k) {
    all.push_back(json::parse(texts[k], nullptr, false));
    if (!all.back().is_object()) return Status::Internal("a rank's report does not parse");
    if (all.back().value("announced", false)) announcers.push_back(static_cast<uint32_t>(k));
    result.ranks.push_back({all.back().value("rows", uint64_t{0}), all.back().value("bytes", uint64_t{0}),
                            all.back().value("seconds", 0.0)});
  }
  MR_RETURN_IF_ERROR(group.SettleFailures(announcers));
  // The first rank that failed by itself names the cause.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t k = 0; k < all.size(); ++k) {
      if (all[k].value("error", std::string()).empty() || (pass == 0 && all[k].value("stopped", false))) continue;
      size_t parts = 0;
      for (const auto& a : all) parts += a["shards"].size();
      const std::string who = w > 1 ? "rank " + std::to_string(k) + " of " + std::to_string(w) + " failed: " : "";
      return Status(static_cast<StatusCode>(all[k].value("code", static_cast<int>(StatusCode::kInternal))),
                    who + all[k]["error"].get<std::string>() + (w > 1 ? "; every rank stopped. " : ". ") +
                        std::to_string(parts) +
                        " shard(s) were completed and are kept as hidden parts (." + BaseName(paths_of[0]) +
                        "*" + kPartSuffix + "): rerun with --resume to keep them and write the others");
    }
  }

  // 4. The parts become the datasets: the dataset's totals in every header,
  // every shard but 0 renamed into place, then (rank 0) shard 0.
  std::vector<std::vector<ShardDone>> per_plan(plans.size(), std::vector<ShardDone>(n));
  for (const auto& a : all) {
    for (const auto& j : a["shards"]) {
      MR_ASSIGN_OR_RETURN(ShardDone d, ShardDoneFromJson(j));
      if (d.plan >= plans.size() || d.shard >= n) return Status::Internal("a rank reported an unknown shard");
      per_plan[d.plan][d.shard] = std::move(d);
    }
  }
  // The report keeps the first kKeptSkipped; the file lists them all.
  auto report_skipped = [&](const std::string& in, const std::string& line) {
    if (result.skipped.size() < ConvertContext::kKeptSkipped) {
      result.skipped_inputs.push_back(in);
      result.skipped.push_back(line);
    }
    ++result.skipped_count;
  };
  MR_RETURN_IF_ERROR(ctx.ForEachSkipped({}, planned, [&](const std::string& in, const std::string& line) {
    report_skipped(in, line);
    return Status::OK();
  }));
  std::vector<PartTotals> totals(plans.size());
  bool any_final = false;
  for (size_t p = 0; p < plans.size(); ++p) {
    OutputReport o;
    o.split = plans[p].split;
    o.description = plans[p].schema.desc();
    o.files = ShardFileNames(paths_of[p], n);
    std::optional<PartTotals> from_final;
    for (const ShardDone& d : per_plan[p]) {
      o.rows += d.rows;
      o.bytes += d.bytes;
      if (d.kept) o.kept.push_back(d.shard);
      if (d.final) {
        any_final = true;
        if (from_final && from_final->ToJson() != d.totals.ToJson()) {
          return Status::Corruption(o.files[d.shard] + ": its header's totals differ from another shard's; the "
                                    "shards in place come from different conversions (use --overwrite)");
        }
        from_final = d.totals;
      } else {
        totals[p] += d.totals;
      }
      for (const auto& s : d.skipped) report_skipped(s.at(0).get<std::string>(), s.at(1).get<std::string>());
      result.skipped_count += d.skipped_unlisted;
    }
    if (from_final) totals[p] = *from_final;  // an interrupted finish wrote the dataset's totals already
    result.outputs.push_back(std::move(o));
  }
  Status finish;
  if (result.skipped_count > 0) {
    result.skipped_file = output + ".skipped.txt";
    if (r == 0 && !(any_final && fs->Exists(result.skipped_file))) finish = WriteSkippedList(result.skipped_file, ctx, planned, per_plan, paths_of);
  }
  for (size_t p = 0; p < plans.size() && finish.ok(); ++p) {
    for (uint32_t s = std::max<uint32_t>(first, 1); s < last && finish.ok(); ++s) {
      if (!per_plan[p][s].final) finish = FinishShardPart(result.outputs[p].files[s], totals[p], fs);
    }
  }
  MR_RETURN_IF_ERROR(Exchange(group, ErrorMessage(finish)).status());
  if (r == 0) {
    for (size_t p = 0; p < plans.size() && finish.ok(); ++p) {
      if (!per_plan[p][0].final) finish = FinishShardPart(result.outputs[p].files[0], totals[p], fs);
    }
  }
  MR_RETURN_IF_ERROR(Exchange(group, ErrorMessage(finish)).status());
  return result;
}

}  // namespace mindrecord::convert
