#include "writers/convert/shard_record.h"

#include "mindrecord/checksum.h"
#include "mindrecord/file.h"

namespace mindrecord::convert {

using json = nlohmann::json;

std::string PlanFingerprint(const SplitPlan& plan, const ConvertOptions& o, const std::string& path) {
  Xxh3Stream h;
  auto add = [&](const std::string& s) {
    const uint64_t n = s.size();
    h.Update(std::string_view(reinterpret_cast<const char*>(&n), sizeof n));
    h.Update(s);
  };
  add(BaseName(path));
  add(plan.schema.ToUserJson().dump());
  add(plan.schema.desc());
  add(plan.index_fields ? json(*plan.index_fields).dump() : "default");
  add(std::to_string(plan.num_items));
  for (size_t i = 0; i < plan.num_items; ++i) add(plan.item_name(i));
  add(json{o.shards, o.header_size, o.page_size, CompressionSpec(o.compression), static_cast<int>(o.encode),
           static_cast<int>(o.on_error), o.batch_rows, o.strict_boxes}
          .dump());
  return ChecksumHex(h.Digest());
}

std::string ShardFingerprint(const std::string& plan_fp, uint32_t shard, size_t begin, size_t end,
                             const std::vector<uint64_t>& sizes) {
  const std::string_view range(reinterpret_cast<const char*>(sizes.data() + begin), (end - begin) * sizeof(uint64_t));
  return ChecksumHex(Xxh3(plan_fp + ":" + std::to_string(shard) + ":" + std::to_string(begin) + "-" +
                          std::to_string(end) + ":" + ChecksumHex(Xxh3(range))));
}

json ToJson(const ShardDone& d) {
  return {{"plan", d.plan},   {"shard", d.shard},   {"rows", d.rows},         {"bytes", d.bytes},
          {"kept", d.kept},   {"final", d.final},   {"totals", d.totals.ToJson()}, {"skipped", d.skipped},
          {"skipped_unlisted", d.skipped_unlisted}};
}

Result<ShardDone> ShardDoneFromJson(const json& j) {
  ShardDone d;
  try {
    d.plan = j.at("plan").get<size_t>();
    d.shard = j.at("shard").get<uint32_t>();
    d.rows = j.at("rows").get<uint64_t>();
    d.bytes = j.at("bytes").get<uint64_t>();
    d.kept = j.at("kept").get<bool>();
    d.final = j.at("final").get<bool>();
    d.skipped = j.at("skipped");
    d.skipped_unlisted = j.at("skipped_unlisted").get<uint64_t>();
  } catch (const json::exception& e) {
    return Status::Internal(std::string("a rank's shard report does not parse: ") + e.what());
  }
  MR_ASSIGN_OR_RETURN(d.totals, PartTotals::FromJson(j.at("totals")));
  return d;
}

namespace {
// A part's list of skipped inputs, [[input, "input: reason"], ...], as its
// writer records it (anything else: the part is written again).
bool SkippedListIsWellFormed(const json& info) {
  auto it = info.find("skipped");
  if (it == info.end()) return true;
  if (!it->is_array()) return false;
  for (const json& s : *it)
    if (!s.is_array() || s.size() != 2 || !s[0].is_string() || !s[1].is_string()) return false;
  auto more = info.find("skipped_unlisted");
  return more == info.end() || more->is_number_unsigned();
}
}  // namespace

std::optional<ShardDone> KeepShard(const SplitPlan& plan, const std::vector<std::string>& paths, uint32_t s,
                                   const std::string& fingerprint, bool keep_final, ConvertContext& ctx) {
  FileSystem* fs = FileSystem::Default();
  const std::string part = ShardPartPath(paths[s]);
  if (fs->Exists(part)) {
    auto c = VerifyShardFile(part, BaseName(paths[s]), fs);
    if (!c.ok()) {
      ctx.Note("shard " + std::to_string(s) + ": its part does not verify (" + c.status().message() +
               "); writing it again");
    } else if (!c->info.is_object() || !c->info.contains("fingerprint") || c->info["fingerprint"] != fingerprint ||
               !SkippedListIsWellFormed(c->info)) {
      ctx.Note("shard " + std::to_string(s) + ": its part was written from other inputs or options; writing it again");
    } else {
      ShardDone d;
      d.shard = s;
      d.rows = c->header.num_rows();
      d.totals = c->totals;
      d.kept = true;
      d.skipped = c->info.value("skipped", json::array());
      d.skipped_unlisted = c->info.value("skipped_unlisted", uint64_t{0});
      return d;
    }
  }
  if (keep_final && fs->Exists(paths[s])) {
    auto c = VerifyShardFile(paths[s], BaseName(paths[s]), fs);
    std::vector<std::string> names;
    for (const auto& p : paths) names.push_back(BaseName(p));
    if (c.ok() && c->header.shard_id == s && c->header.shard_addresses == names && c->header.schema == plan.schema &&
        c->header.schema.desc() == plan.schema.desc()) {
      ShardDone d;
      d.shard = s;
      d.rows = c->header.num_rows();
      d.totals = c->totals;
      d.kept = d.final = true;
      return d;
    }
    ctx.Note("shard " + std::to_string(s) + ": " + paths[s] + " is not a shard of this conversion (" +
             (c.ok() ? std::string("another header") : c.status().message()) + "); writing it again");
  }
  return std::nullopt;
}

}  // namespace mindrecord::convert
