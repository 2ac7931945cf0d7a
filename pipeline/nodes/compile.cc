#include "pipeline/nodes/compile.h"

#include <algorithm>
#include <set>

#include "pipeline/nodes/cache_node.h"
#include "pipeline/nodes/mindrecord_source.h"
#include "pipeline/nodes/mix.h"
#include "pipeline/nodes/positional.h"
#include "pipeline/nodes/audio_source.h"
#include "pipeline/nodes/raw_source.h"
#include "pipeline/nodes/source_registry.h"
#include "pipeline/sampler.h"
#include "pipeline/nodes/tree_spec.h"

namespace mindrecord {

namespace {

using json = nlohmann::json;

constexpr uint64_t kShuffleSalt = 0x73687566;  // "shuf"

struct Ctx {
  const ReaderOptions& read;
  uint64_t seed;
  ExecTree* out;
  uint64_t next_node = 0;  // preorder number of the next node (its seed salt)
};

std::string List(const std::vector<std::string>& names) {
  std::string s = "[";
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", '" : "'") + names[i] + "'";
  return s + "]";
}

Status Unique(const std::vector<std::string>& names, const std::string& path) {
  std::set<std::string> seen;
  for (const auto& n : names) {
    if (!seen.insert(n).second) return PlanNodeError(path, "its columns " + List(names) + " name '" + n + "' twice");
  }
  return Status::OK();
}

uint64_t SeedOf(const json& node, const Ctx& ctx) { return node.value("seed", ctx.seed); }

std::vector<std::string> NamesOr(const json& node, const char* key, const std::vector<std::string>& def) {
  auto v = node.value(key, std::vector<std::string>{});
  return v.empty() ? def : v;
}

int AddStep(Ctx& ctx, std::unique_ptr<RowStep> step) {
  ctx.out->steps.push_back(std::move(step));
  return static_cast<int>(ctx.out->steps.size() - 1);
}

// Builds the row-level node at `path`. `spine`: the node's output reaches the
// batch (or the end) through map / ops / project / rename / take / skip only,
// so a take or skip over a filter here can be counted by the consumer.
Result<std::unique_ptr<RowNode>> Build(const json& node, const std::string& path, bool spine, Ctx& ctx) {
  const std::string type = node["node"].get<std::string>();
  ExecTree& out = *ctx.out;
  if (type == "cache") {
    MR_ASSIGN_OR_RETURN(auto input, Build(node["input"], path + ".input", spine, ctx));
    const std::vector<std::string> cols = input->columns();
    // The leaf under the chain is the last source built. A cache takes no
    // node number: the seeds of the other nodes are those without it.
    nlohmann::json meta;
    MR_ASSIGN_OR_RETURN(uint64_t fp, CacheFingerprint(node, path, *out.sources.back(), &meta));
    meta["columns"] = cols;
    meta["session_id"] = node["session_id"];
    CacheOptions co;
    co.session_id = node["session_id"].get<std::string>();
    co.size_bytes = node["size_bytes"].get<uint64_t>();
    co.dir = node["dir"].get<std::string>();
    auto store = CacheStore::Open(co, fp, meta, cols.size(), out.sources.back()->num_rows());
    if (!store.ok()) return store.status().WithContext(path);
    out.caches.push_back(std::move(store).value());
    return std::unique_ptr<RowNode>(
        new CacheNode(std::move(input), static_cast<uint32_t>(out.caches.size() - 1), out.caches.back().get()));
  }
  const uint64_t id = ctx.next_node++;
  if (type == "mindrecord" || type == "raw" || type == "audio" || type == "source") {
    std::unique_ptr<Source> src;
    if (type == "source") {
      auto made = MakeRegisteredSource(node);
      if (!made.ok()) return made.status().WithContext(path);
      src = std::move(made).value();
    } else if (type == "raw") {
      auto raw = RawSource::Open(node);
      if (!raw.ok()) return raw.status().WithContext(path);
      src = std::move(raw).value();
    } else if (type == "audio") {
      auto audio = OpenAudioSource(node);
      if (!audio.ok()) return audio.status().WithContext(path);
      src = std::move(audio).value();
    } else {
      auto mr = MindRecordSource::Open(node, ctx.read);
      if (!mr.ok()) return mr.status().WithContext(path);
      src = std::move(mr).value();
    }
    const Source* s = src.get();
    auto sampler = MakeSampler(node["sampler"], s->Layout());
    if (!sampler.ok()) return sampler.status().WithContext("plan");
    out.sources.push_back(std::move(src));
    return std::unique_ptr<RowNode>(new LeafNode(static_cast<uint32_t>(out.sources.size() - 1), s,
                                                 std::move(sampler).value(), SeedOf(node, ctx)));
  }
  if (type == "batch") {
    return PlanNodeError(path, "a batch under another node than map, project, rename, take, skip or repeat (concat, zip or mix "
                               "of batched datasets) is not supported: batch after combining");
  }
  if (type == "concat" || type == "zip" || type == "mix") {
    std::vector<std::unique_ptr<RowNode>> inputs;
    for (size_t k = 0; k < node["inputs"].size(); ++k) {
      MR_ASSIGN_OR_RETURN(auto in, Build(node["inputs"][k], path + ".inputs[" + std::to_string(k) + "]", false, ctx));
      if (type != "zip" && !inputs.empty() && in->columns() != inputs[0]->columns()) {
        return PlanNodeError(path, type + " needs the same columns in every input: input " + std::to_string(k) + " has " +
                                   List(in->columns()) + ", input 0 " + List(inputs[0]->columns()));
      }
      if (type != "concat" && in->drops_rows()) {
        return PlanNodeError(path, type + " of a filtered input (input " + std::to_string(k) +
                                   ") is not supported: it would pair or draw rows by their position before the "
                                   "filter; filter after the " + type);
      }
      inputs.push_back(std::move(in));
    }
    if (type == "concat") return std::unique_ptr<RowNode>(new ConcatNode(std::move(inputs)));
    if (type == "zip") {
      auto z = std::unique_ptr<RowNode>(new ZipNode(std::move(inputs)));
      MR_RETURN_IF_ERROR(Unique(z->columns(), path + " (zip: rename the inputs' columns apart first)"));
      return z;
    }
    std::vector<double> weights;
    for (const auto& w : node["weights"]) weights.push_back(w.get<double>());
    const std::string p = node["policy"].get<std::string>();
    const MixPolicy policy = p == "restart" ? MixPolicy::kRestart : p == "drop" ? MixPolicy::kDrop : MixPolicy::kStop;
    const uint32_t base = out.num_tags;
    out.mixes.push_back(MixStatsSlot{base, static_cast<uint32_t>(inputs.size())});
    out.num_tags += static_cast<uint32_t>(inputs.size());
    return std::unique_ptr<RowNode>(new MixNode(std::move(inputs), std::move(weights), policy,
                                                node["num_samples"].get<uint64_t>(), MixSeed({SeedOf(node, ctx), id}),
                                                base));
  }
  // A filter's input is not on the way to the batch: a take or skip under
  // it cannot be counted over rows the filter has not dropped yet.
  const bool child_spine = spine && (type == "map" || type == "ops" || type == "project" || type == "rename" ||
                                     type == "take" || type == "skip");
  MR_ASSIGN_OR_RETURN(auto input, Build(node["input"], path + ".input", child_spine, ctx));
  const std::vector<std::string> cols = input->columns();
  if (type == "map") {
    const auto in_names = NamesOr(node, "input_columns", cols);
    MR_ASSIGN_OR_RETURN(auto in_idx, ColumnIndices(cols, in_names, "plan: " + path));
    const auto out_names = NamesOr(node, "output_columns", in_names);
    std::vector<size_t> kept;
    auto names = MapColumnOrder(cols, in_idx, out_names, &kept);
    MR_RETURN_IF_ERROR(Unique(names, path));
    std::string label = "map of column" + std::string(in_names.size() > 1 ? "s " : " ");
    for (size_t i = 0; i < in_names.size(); ++i) label += (i ? ", '" : "'") + in_names[i] + "'";
    MR_ASSIGN_OR_RETURN(auto step, MakeMapStep(cols, std::move(in_idx), out_names, node["operations"],
                                               SeedOf(node, ctx), id, label));
    return std::unique_ptr<RowNode>(new StepNode(std::move(input), AddStep(ctx, std::move(step)), names, false));
  }
  if (type == "ops") {
    MR_ASSIGN_OR_RETURN(auto step, MakeColumnOpsStep(cols, node["ops"], SeedOf(node, ctx)));
    return std::unique_ptr<RowNode>(new StepNode(std::move(input), AddStep(ctx, std::move(step)), cols, false));
  }
  if (type == "filter") {
    const auto in_names = NamesOr(node, "input_columns", cols);
    MR_ASSIGN_OR_RETURN(auto in_idx, ColumnIndices(cols, in_names, "plan: " + path));
    std::string label = "filter of column" + std::string(in_names.size() > 1 ? "s " : " ");
    for (size_t i = 0; i < in_names.size(); ++i) label += (i ? ", '" : "'") + in_names[i] + "'";
    MR_ASSIGN_OR_RETURN(auto step, MakeFilterStep(std::move(in_idx), node["predicate"], SeedOf(node, ctx), id, label));
    return std::unique_ptr<RowNode>(new StepNode(std::move(input), AddStep(ctx, std::move(step)), cols, true));
  }
  if (type == "project") {
    const auto names = node["columns"].get<std::vector<std::string>>();
    MR_ASSIGN_OR_RETURN(auto idx, ColumnIndices(cols, names, "plan: " + path));
    return std::unique_ptr<RowNode>(new StepNode(std::move(input), AddStep(ctx, MakeProjectStep(std::move(idx))), names,
                                                 false));
  }
  if (type == "rename") {
    const auto from = node["input_columns"].get<std::vector<std::string>>();
    const auto to = node["output_columns"].get<std::vector<std::string>>();
    MR_ASSIGN_OR_RETURN(auto idx, ColumnIndices(cols, from, "plan: " + path));
    std::vector<std::string> names = cols;
    for (size_t i = 0; i < idx.size(); ++i) names[idx[i]] = to[i];
    MR_RETURN_IF_ERROR(Unique(names, path));
    return std::unique_ptr<RowNode>(new StepNode(std::move(input), -1, names, false));
  }
  if (type == "take" || type == "skip") {
    const uint64_t count = node["count"].get<uint64_t>();
    if (!input->drops_rows()) return std::unique_ptr<RowNode>(new SliceNode(std::move(input), type == "take", count));
    if (!spine) {
      return PlanNodeError(path, type + " of a filtered dataset is supported only on the way to the batch (with map, project "
                                 "or rename between): here its positions are those before the filter");
    }
    out.row_stream.push_back(StreamOp{type == "take", count});
    return input;
  }
  if (type == "repeat") {
    return std::unique_ptr<RowNode>(new RepeatNode(std::move(input), node["count"].get<uint64_t>()));
  }
  if (type == "shuffle") {
    json spec = {{"type", "buffer_shuffle"}, {"buffer_size", node["buffer_size"]}, {"sampler", {{"type", "sequential"}}}};
    return std::unique_ptr<RowNode>(new PermuteNode(std::move(input), spec, MixSeed({SeedOf(node, ctx), kShuffleSalt, id})));
  }
  if (type == "shard") {
    json spec = {{"type", "distributed"}, {"num_shards", node["num_shards"]}, {"shard_id", node["shard_id"]},
                 {"shuffle", false}, {"pad", node["pad"]}, {"split", node["split"]}};
    if (node["worker_count"].get<uint64_t>() > 1) {
      spec["worker_count"] = node["worker_count"];
      spec["worker_id"] = node["worker_id"];
      spec["worker_batch"] = node["worker_batch"];
    }
    if (node.contains("elastic")) spec["elastic"] = node["elastic"];
    return std::unique_ptr<RowNode>(new PermuteNode(std::move(input), spec, ctx.seed));
  }
  return PlanNodeError(path, "node type '" + type + "' is not a row-level node");
}

bool IsBatchLevel(const std::string& type) {
  return type == "map" || type == "project" || type == "rename" || type == "take" || type == "skip" ||
         type == "repeat";
}

}  // namespace

Result<ExecTree> CompileTree(const json& tree, const ReaderOptions& read, uint64_t seed, bool skip_errors) {
  ExecTree out;
  Ctx ctx{read, seed, &out};
  // The nodes above the batch, from the root down, if the root's chain of
  // single-input nodes reaches a batch.
  std::vector<const json*> above;
  const json* batch = nullptr;
  for (const json* n = &tree;; n = &(*n)["input"]) {
    const std::string type = (*n)["node"].get<std::string>();
    if (type == "batch") {
      batch = n;
      break;
    }
    if (!IsBatchLevel(type)) break;
    above.push_back(n);
  }
  if (batch == nullptr) above.clear();
  const json& row_top = batch ? (*batch)["input"] : tree;
  std::string path = "tree";
  for (size_t i = 0; i < above.size(); ++i) path += ".input";
  MR_ASSIGN_OR_RETURN(out.root, Build(row_top, batch ? path + ".input" : path, true, ctx));
  out.drops_rows = out.root->drops_rows() || skip_errors;
  if (auto* s = dynamic_cast<StepNode*>(out.root.get())) out.final_step = s->step();
  std::vector<std::string> cols = out.root->columns();
  if (batch != nullptr) {
    MR_ASSIGN_OR_RETURN(out.batch, BatchOptions::FromJson(json{{"batch_size", batch->value("batch_size", json(1))},
                                                                {"drop_remainder", (*batch)["drop_remainder"]},
                                                                {"ragged", (*batch)["ragged"]}}));
    if (batch->contains("bucket")) {
      MR_ASSIGN_OR_RETURN(auto bucket, BucketSpec::FromJson((*batch)["bucket"]));
      if (bucket.length_map.is_null()) {
        MR_ASSIGN_OR_RETURN(auto idx, ColumnIndices(cols, {bucket.column}, "plan: " + path + ": bucket"));
        out.bucket_column = idx[0];
      } else {
        MR_ASSIGN_OR_RETURN(out.bucket_length_columns,
                            ColumnIndices(cols, bucket.length_columns, "plan: " + path + ": bucket"));
        MR_ASSIGN_OR_RETURN(out.bucket_length_map, MakeBatchMap(bucket.length_map));
      }
      out.batch.batch_size = *std::max_element(bucket.batch_sizes.begin(), bucket.batch_sizes.end());
      out.bucket = std::move(bucket);
    }
    if (batch->contains("batch_size_map")) {
      MR_ASSIGN_OR_RETURN(out.batch_size_map, MakeBatchMap((*batch)["batch_size_map"]));
    }
    if (batch->contains("per_batch_map")) {
      MR_ASSIGN_OR_RETURN(out.batch_map, MakeBatchMap((*batch)["per_batch_map"]));
      BatchMapLayout& l = out.batch_map_layout;
      const auto in_names = NamesOr(*batch, "input_columns", cols);
      MR_ASSIGN_OR_RETURN(l.in_idx, ColumnIndices(cols, in_names, "plan: " + path));
      l.out_names = NamesOr(*batch, "output_columns", in_names);
      l.names = MapColumnOrder(cols, l.in_idx, l.out_names, &l.kept);
      MR_RETURN_IF_ERROR(Unique(l.names, path));
      cols = l.names;
      out.final_step = -1;  // the rows go through the map before the batch buffer
    }
  }
  out.batch_columns = cols;
  // Above the batch, from the batch up.
  bool repeated = false;
  for (size_t i = above.size(); i-- > 0;) {
    const json& node = *above[i];
    const std::string type = node["node"].get<std::string>();
    std::string npath = "tree";
    for (size_t k = 0; k < i; ++k) npath += ".input";
    const uint64_t id = ctx.next_node++;
    if (type == "map") {
      const auto in_names = NamesOr(node, "input_columns", cols);
      MR_ASSIGN_OR_RETURN(auto in_idx, ColumnIndices(cols, in_names, "plan: " + npath));
      const auto out_names = NamesOr(node, "output_columns", in_names);
      std::vector<size_t> kept;
      auto names = MapColumnOrder(cols, in_idx, out_names, &kept);
      MR_RETURN_IF_ERROR(Unique(names, npath));
      std::string label = "map (after batch) of column" + std::string(in_names.size() > 1 ? "s " : " ");
      for (size_t k = 0; k < in_names.size(); ++k) label += (k ? ", '" : "'") + in_names[k] + "'";
      MR_ASSIGN_OR_RETURN(auto step, MakeBatchMapStep(cols, std::move(in_idx), out_names, node["operations"],
                                                      SeedOf(node, ctx), id, label));
      out.batch_steps.push_back(std::move(step));
      cols = names;
    } else if (type == "project") {
      const auto names = node["columns"].get<std::vector<std::string>>();
      MR_ASSIGN_OR_RETURN(auto idx, ColumnIndices(cols, names, "plan: " + npath));
      out.batch_steps.push_back(MakeBatchSelectStep(std::move(idx), names));
      cols = names;
    } else if (type == "rename") {
      const auto from = node["input_columns"].get<std::vector<std::string>>();
      const auto to = node["output_columns"].get<std::vector<std::string>>();
      MR_ASSIGN_OR_RETURN(auto idx, ColumnIndices(cols, from, "plan: " + npath));
      std::vector<std::string> names = cols;
      for (size_t k = 0; k < idx.size(); ++k) names[idx[k]] = to[k];
      MR_RETURN_IF_ERROR(Unique(names, npath));
      std::vector<size_t> all(cols.size());
      for (size_t k = 0; k < all.size(); ++k) all[k] = k;
      out.batch_steps.push_back(MakeBatchSelectStep(std::move(all), names));
      cols = names;
    } else if (type == "repeat") {
      out.passes *= node["count"].get<uint64_t>();
      repeated = true;
    } else {  // take / skip of batches
      if (repeated) {
        return PlanNodeError(npath, type + " above a repeat above the batch is not supported (batches are counted per pass); "
                                    "take or skip before the repeat");
      }
      const StreamOp op{type == "take", node["count"].get<uint64_t>()};
      if (!out.drops_rows && !out.batch_map && !out.bucket && !out.batch_size_map && out.row_stream.empty() &&
          out.batch_stream.empty()) {
        // Whole batches of known rows: the same as taking / skipping their rows.
        out.root.reset(new SliceNode(std::move(out.root), op.take, op.count * out.batch.batch_size));
      } else {
        out.batch_stream.push_back(op);
      }
    }
  }
  out.columns = cols;
  return out;
}

}  // namespace mindrecord
