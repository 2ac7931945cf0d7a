#include "pipeline/nodes/cache_node.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

#include "mindrecord/checksum.h"
#include "pipeline/op_registry.h"
#include "pipeline/nodes/tree_spec.h"

namespace mindrecord {

namespace {

using json = nlohmann::json;

constexpr uint64_t kMaxHeaderBytes = uint64_t{128} << 20;  // the format's largest header_size

// One shard's identity: path, size, mtime and the XXH3 of its header JSON.
Result<json> ShardIdentity(const std::string& path) {
  // O_NONBLOCK: a FIFO in the shard's place must not block the open.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Status::IOError("cache: cannot open '" + path + "' to identify the dataset");
  struct stat st;
  uint8_t len8[8] = {};
  uint64_t len = 0;
  std::string header;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::pread(fd, len8, 8, 0) == 8;
  for (int i = 7; ok && i >= 0; --i) len = (len << 8) | len8[i];
  if (ok && len <= kMaxHeaderBytes && len + 8 <= static_cast<uint64_t>(st.st_size)) {
    header.resize(len);
    ok = ::pread(fd, header.data(), len, 8) == static_cast<ssize_t>(len);
  }
  ::close(fd);
  if (!ok) return Status::IOError("cache: cannot read '" + path + "' to identify the dataset");
  return json{{"path", path},
              {"size", static_cast<uint64_t>(st.st_size)},
              {"mtime_ns", static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ull + st.st_mtim.tv_nsec},
              {"header_xxh3", ChecksumHex(Xxh3(header))}};
}

// Checks that `ops` (op specs) are deterministic and not Python callables.
Status CheckOps(const std::vector<json>& specs, const std::string& path, const std::string& where) {
  for (const auto& s : specs) {
    if (s.dump().find("\"op\":\"PyFunc\"") != std::string::npos) {
      return PlanNodeError(path, "a cache over " + where +
                                 " with a Python callable is refused: its results may differ from run to run, and a "
                                 "persistent cache cannot tell two callables apart; cache before it");
    }
  }
  MR_ASSIGN_OR_RETURN(auto ops, BuildColumnOps(specs));
  for (const auto& op : ops) {
    if (op->is_random()) {
      return PlanNodeError(path, "a cache over " + where + " with the random op " + op->name() +
                                 " is refused: its rows differ every epoch; cache the deterministic ops before it (a "
                                 "map of its own) and apply the random ops after the cache");
    }
  }
  return Status::OK();
}

}  // namespace

CacheNode::CacheNode(std::unique_ptr<RowNode> input, uint32_t cache_index, CacheStore* store)
    : input_(std::move(input)), index_(cache_index), store_(store) {
  columns_ = input_->columns();
}

Status CacheNode::Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const {
  std::vector<RowProgram> in(end - begin);
  MR_RETURN_IF_ERROR(input_->Resolve(epoch, begin, end, in.data()));
  for (size_t i = 0; i < in.size(); ++i) {
    const RowProgram& p = in[i];
    if (p.empty() || p.front().kind != Instr::Kind::kRead) return Status::Internal("a cached row does not start with its read");
    const uint64_t key = p.front().a;
    if (store_->Contains(key)) out[i].push_back(Instr{Instr::Kind::kCacheGet, index_, key, p.size() + 1});
    for (const Instr& x : p) out[i].push_back(x);
    out[i].push_back(Instr{Instr::Kind::kCachePut, index_, key, 0});
  }
  return Status::OK();
}

Result<uint64_t> CacheFingerprint(const json& node, const std::string& path, const Source& source, json* meta) {
  json chain = node["input"];
  std::string p = path + ".input";
  // Walk the chain down to the leaf, checking every node and dropping what
  // does not change a row's content (samplers, seeds).
  for (json* n = &chain;; n = &(*n)["input"], p += ".input") {
    const std::string type = (*n)["node"].get<std::string>();
    n->erase("seed");
    if (type == "mindrecord") {
      n->erase("sampler");
      break;
    }
    if (type == "map") {
      MR_RETURN_IF_ERROR(CheckOps(std::vector<json>((*n)["operations"].begin(), (*n)["operations"].end()), p,
                                  "a map"));
    } else if (type == "ops") {
      for (const auto& [col, specs] : (*n)["ops"].items()) {
        MR_RETURN_IF_ERROR(CheckOps(std::vector<json>(specs.begin(), specs.end()), p, "the ops of column '" + col + "'"));
      }
    } else if (type != "project" && type != "rename") {
      return PlanNodeError(path, "a cache over a '" + type +
                                 "' node is not supported: a cache goes on a mindrecord leaf or on maps (project, "
                                 "rename) over one");
    }
  }
  json files = json::array();
  for (const auto& f : source.files()) {
    MR_ASSIGN_OR_RETURN(json id, ShardIdentity(f));
    files.push_back(std::move(id));
  }
  const std::string key = files.dump() + "\n" + chain.dump();
  const uint64_t fp = Xxh3(key);
  *meta = json{{"fingerprint", ChecksumHex(fp)}, {"dataset", files}, {"chain", chain}};
  return fp;
}

json WithoutCaches(json tree) {
  if (tree.is_object()) {
    if (tree.value("node", json()) == "cache" && tree.contains("input")) return WithoutCaches(std::move(tree["input"]));
    for (auto& [k, v] : tree.items()) {
      if (k == "input" || k == "inputs") v = WithoutCaches(std::move(v));
    }
  } else if (tree.is_array()) {
    for (auto& v : tree) v = WithoutCaches(std::move(v));
  }
  return tree;
}

}  // namespace mindrecord
