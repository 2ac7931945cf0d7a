// Workload 1: ~1 KiB text-like records with an int label. Write, sequential
// scan, shuffled epoch and batches of 256 random ids, for MindRecord, the
// TFRecord and LMDB baselines (the same serialized tf.train.Example records)
// and plain files, against memcpy / cat ceilings.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <random>

#include "benchmarks/baselines/lmdb_store.h"
#include "benchmarks/baselines/plain_files.h"
#include "benchmarks/baselines/tf_example.h"
#include "benchmarks/baselines/tfrecord_io.h"
#include "benchmarks/suite/harness.h"
#include "readers/shard_reader.h"
#include "writers/shard_writer.h"

namespace mindrecord::bench {
namespace {

constexpr const char* kRecordsWorkload = "records";

// Texts in one arena: record i is [off[i], off[i+1]).
struct Corpus {
  std::string arena;
  std::vector<uint64_t> off;
  std::vector<int64_t> label;
  size_t size() const { return label.size(); }
  std::string_view text(size_t i) const { return std::string_view(arena).substr(off[i], off[i + 1] - off[i]); }
};

Corpus MakeCorpus(uint64_t n) {
  static const char* words[] = {"the ",    "model ", "trains ", "on ",      "a ",       "dataset ", "of ",    "images ",
                                "and ",    "text ",  "which ",  "reads ",   "quickly ", "from ",    "disk ",  "while ",
                                "worker ", "thread ", "decode ", "batches ", "label ",   "sample ",  "epoch ", "shuffle ",
                                "page ",   "shard ", "index ",  "record ",  "value ",   "field ",   "schema ", "bytes "};
  Corpus c;
  std::mt19937_64 rng(42);
  c.off.push_back(0);
  for (uint64_t i = 0; i < n; ++i) {
    const size_t len = 896 + rng() % 257;  // 896..1152 bytes, ~1 KiB
    const size_t start = c.arena.size();
    while (c.arena.size() - start < len) c.arena += words[rng() % 32];
    c.arena.resize(start + len);
    c.off.push_back(c.arena.size());
    c.label.push_back(static_cast<int64_t>(rng() % 1000));
  }
  return c;
}

// What every reader returns for a set of ids: sum of labels and text bytes;
// the figures are only recorded when all systems agree.
struct Digest {
  uint64_t labels = 0, bytes = 0;
  bool operator==(const Digest&) const = default;
};

struct Paths {
  std::string mr, tf, idx, lmdb, plain;
};

Schema RecordSchema() {
  return Schema::Make({{"label", DataType::kInt64, false, {}}, {"text", DataType::kBytes, false, {}}}, "records").value();
}

void WriteMindRecord(const Corpus& c, const std::string& path) {
  WriterOptions wo;
  wo.overwrite = true;
  auto w = Unwrap(ShardWriter::Create(path, RecordSchema(), wo), "create " + path);
  std::vector<Row> batch;
  for (size_t i = 0; i < c.size(); ++i) {
    // Each record's text copied once into its row, then moved into the
    // writer (WriteRows of an rvalue takes the bytes over), as MakeExample
    // copies it once into the protobuf for TFRecord.
    Row row;
    row.Set("label", Value::Int(c.label[i]));
    row.Set("text", Value::Bytes(std::string(c.text(i))));
    batch.push_back(std::move(row));
    if (batch.size() == 1000 || i + 1 == c.size()) {
      Check(w->WriteRows(std::move(batch)), "write " + path);
      batch.clear();
    }
  }
  Check(w->Commit(), "commit " + path);
}

void WriteTfRecord(const Corpus& c, const Paths& p) {
  auto w = Unwrap(TfRecordWriter::Create(p.tf, p.idx), "create " + p.tf);
  for (size_t i = 0; i < c.size(); ++i) Check(w->Append(MakeExample("text", c.text(i), "label", c.label[i])), p.tf);
  Check(w->Close(/*sync=*/true), "close " + p.tf);
}

// One write transaction, made durable at the end as the other writers are;
// the map may grow to 4x the records' bytes.
void WriteLmdb(const Corpus& c, const std::string& path) {
  auto w = Unwrap(LmdbWriter::Create(path, 4 * (c.arena.size() + 64 * c.size()) + (64 << 20)), "create " + path);
  for (size_t i = 0; i < c.size(); ++i) Check(w->Append(MakeExample("text", c.text(i), "label", c.label[i])), path);
  Check(w->Close(/*sync=*/true), "close " + path);
}

void WritePlain(const Corpus& c, const std::string& root) {
  for (size_t i = 0; i < c.size(); ++i)
    Check(WriteWholeFile(PlainFilePath(root, i, c.label[i], ".txt"), c.text(i)), "write plain file");
}

void AddRecordResult(Results& r, const std::string& task, const std::string& system, const std::string& role,
         const std::string& unit, uint64_t items, uint64_t bytes, std::vector<double> secs, std::vector<double> cpu = {}) {
  r.Add({kRecordsWorkload, task, system, role, unit, items, bytes, std::move(secs), std::move(cpu), nlohmann::json::object()});
}

}  // namespace

void RunRecordsWorkload(const SuiteOptions& o, Results& results) {
  const uint64_t n = o.Scaled(200000, 256);
  std::fprintf(stderr, "records: %llu records of ~1 KiB\n", static_cast<unsigned long long>(n));
  const Corpus c = MakeCorpus(n);
  const std::string dir = o.work_dir + "/records";
  RemoveAll(dir);
  std::filesystem::create_directories(dir);
  const Paths p{dir + "/records.mindrecord", dir + "/records.tfrecord", dir + "/records.tfrecord.idx",
                dir + "/records.lmdb", dir + "/plain"};
  const uint64_t payload = c.arena.size() + 8 * n;
  results.Set("records", {{"rows", n}, {"payload_bytes", payload}});

  // ---- write ----
  {
    // Interleaved: the writers' ratios are what the report compares, and a
    // shared machine's load drifts between runs. Each writer starts, untimed,
    // with its earlier output deleted (deleting a 200 MB file is the file
    // system's work, done inside the rename that commits MindRecord's file or
    // the O_TRUNC open of TFRecord's) and nothing left to write back (sync):
    // otherwise one writer's fsync also waits for what the previous one or an
    // earlier workload left to the disk.
    const std::vector<std::vector<std::string>> outputs = {
        {p.mr, p.mr + ".db"}, {p.tf, p.idx}, {p.lmdb, p.lmdb + "-lock"}};
    auto settle = [&](size_t k) {
      for (const auto& f : outputs[k]) RemoveAll(f);
      ::sync();
    };
    std::vector<std::vector<double>> cpu;
    auto secs = TimeInterleaved(o, {[&] { WriteMindRecord(c, p.mr); }, [&] { WriteTfRecord(c, p); },
                                    [&] { WriteLmdb(c, p.lmdb); }}, &cpu, settle);
    AddRecordResult(results, "write", "MindRecord", "ours", "rows", n, payload, secs[0], cpu[0]);
    AddRecordResult(results, "write", "TFRecord + .idx", "baseline", "rows", n, payload, secs[1], cpu[1]);
    AddRecordResult(results, "write", "LMDB", "baseline", "rows", n, payload, secs[2], cpu[2]);
  }
  if (o.records_write_only) {
    RemoveAll(dir);
    return;
  }
  AddRecordResult(results, "write", "plain files (no fsync)", "baseline", "rows", n, payload,
      TimeRuns(o, [&] { WritePlain(c, p.plain); }, [&] { RemoveAll(p.plain); }));
  {
    std::string dst(c.arena.size(), '\0');
    AddRecordResult(results, "write", "memcpy", "ceiling", "rows", n, payload, TimeRuns(o, [&] {
          for (size_t i = 0; i < n; ++i) std::memcpy(dst.data() + c.off[i], c.text(i).data(), c.text(i).size());
        }));
  }

  // ---- file sizes ----
  {
    const std::vector<std::string> plain_files = ListFiles(p.plain);
    const DiskUsage mr = UsageOf({p.mr, p.mr + ".db"}), tf = UsageOf({p.tf, p.idx}), pl = UsageOf(plain_files);
    auto j = [](const DiskUsage& u) { return nlohmann::json{{"files", u.files}, {"bytes", u.bytes}, {"allocated", u.allocated}}; };
    results.Set("records_sizes", {{"payload", payload}, {"MindRecord (.mindrecord + .db)", j(mr)},
                                  {"MindRecord data file", j(UsageOf({p.mr}))},
                                  {"TFRecord + .idx", j(tf)}, {"LMDB", j(UsageOf({p.lmdb}))},
                                  {"plain files", j(pl)}});
  }

  // ---- readers ----
  auto mr_pread = Unwrap(ShardReader::Open(p.mr), "open " + p.mr);
  ReaderOptions mmo;
  mmo.io_mode = IoMode::kMmap;
  auto mr_mmap = Unwrap(ShardReader::Open(p.mr, mmo), "open " + p.mr);
  auto tf_rand = Unwrap(TfRecordRandomReader::Open(p.tf, Unwrap(ReadIndexFile(p.idx), p.idx)), "open " + p.tf);
  auto lmdb = Unwrap(LmdbReader::Open(p.lmdb), "open " + p.lmdb);
  std::vector<std::string> plain_path(n);
  for (size_t i = 0; i < n; ++i) plain_path[i] = PlainFilePath(p.plain, i, c.label[i], ".txt");

  auto read_mr = [&](const ShardReader& r, uint64_t id, Digest& d) {
    Row row = Unwrap(r.ReadRow(id), "read row");
    d.labels += static_cast<uint64_t>(row.Get("label").as_int());
    d.bytes += row.Get("text").bytes().size();
  };
  tf::Example ex;
  std::string scratch;
  auto digest_example = [&](std::string_view rec, Digest& d) {
    Check(ParseExample(rec, &ex), "parse");
    d.labels += static_cast<uint64_t>(Unwrap(Int64Feature(ex, "label"), "label"));
    d.bytes += Unwrap(BytesFeature(ex, "text"), "text").size();
  };
  auto read_tf = [&](uint64_t id, Digest& d) { digest_example(Unwrap(tf_rand->Read(id, &scratch), "read tfrecord"), d); };
  auto read_lmdb = [&](uint64_t id, Digest& d) { digest_example(Unwrap(lmdb->Get(id), "read lmdb"), d); };
  auto read_plain = [&](uint64_t id, Digest& d) {
    Check(ReadWholeFile(plain_path[id], &scratch), "read plain");
    d.labels += static_cast<uint64_t>(c.label[id]);  // from the folder name
    d.bytes += scratch.size();
  };
  std::string sink(2048, '\0');
  auto copy_ceiling = [&](uint64_t id, Digest& d) {
    std::string_view t = c.text(id);
    std::memcpy(sink.data(), t.data(), t.size());
    asm volatile("" : : "r"(sink.data()) : "memory");
    d.labels += static_cast<uint64_t>(c.label[id]);
    d.bytes += t.size();
  };

  // Zero-copy reads: each row a RowView whose text points into the mapping.
  auto digest_view = [](const RowView& v, Digest& d) {
    d.labels += static_cast<uint64_t>(v[0].i);  // fields in schema order: label, text
    d.bytes += v[1].data.size();
  };
  auto read_views = [&](const ShardReader& r, const std::vector<uint64_t>& ids, Digest& d) {
    Check(r.ReadRowViews(ids, nullptr, [&](size_t, const Status& st, const RowView& v) {
      MR_RETURN_IF_ERROR(st);
      digest_view(v, d);
      return Status::OK();
    }), "read row views");
  };

  // Runs `one` over `ids` and records the figure when its digest agrees.
  auto measure = [&](const std::string& task, const std::string& system, const std::string& role,
                     const std::vector<uint64_t>& ids, const std::function<void(uint64_t, Digest&)>& one,
                     const std::string& unit, uint64_t items) {
    Digest want, got;
    for (uint64_t id : ids) copy_ceiling(id, want);
    auto secs = TimeRuns(o, [&] {
      got = {};
      for (uint64_t id : ids) one(id, got);
    });
    if (!(got == want)) Check(Status::Internal(system + " read other data than the source"), task);
    AddRecordResult(results, task, system, role, unit, items, want.bytes + 8 * ids.size(), std::move(secs));
  };

  // As `measure`, for a reader that takes `ids` a list of `per` at a time
  // (ShardReader::ReadRowViews: a sampler's batch, or a chunk of an epoch).
  auto measure_lists = [&](const std::string& task, const std::string& system, const std::vector<uint64_t>& ids,
                           size_t per, const std::function<void(const std::vector<uint64_t>&, Digest&)>& read,
                           const std::string& unit, uint64_t items) {
    std::vector<std::vector<uint64_t>> lists;
    for (size_t i = 0; i < ids.size(); i += per)
      lists.emplace_back(ids.begin() + static_cast<ptrdiff_t>(i), ids.begin() + static_cast<ptrdiff_t>(std::min(ids.size(), i + per)));
    Digest want, got;
    for (uint64_t id : ids) copy_ceiling(id, want);
    auto secs = TimeRuns(o, [&] {
      got = {};
      for (const auto& l : lists) read(l, got);
    });
    if (!(got == want)) Check(Status::Internal(system + " read other data than the source"), task);
    AddRecordResult(results, task, system, "ours", unit, items, want.bytes + 8 * ids.size(), std::move(secs));
  };

  // Sequential scan.
  {
    Digest want;
    for (uint64_t i = 0; i < n; ++i) copy_ceiling(i, want);
    auto scan_mr = [&](const ShardReader& r) {
      Digest d;
      Check(r.Scan(0, n, nullptr, [&](uint64_t, Row&& row) {
        d.labels += static_cast<uint64_t>(row.Get("label").as_int());
        d.bytes += row.Get("text").bytes().size();
        return Status::OK();
      }), "scan");
      if (!(d == want)) Check(Status::Internal("scan read other data"), "scan");
    };
    auto scan_views = [&](const ShardReader& r) {
      Digest d;
      Check(r.ScanViews(0, n, nullptr, [&](uint64_t, const RowView& v) {
        digest_view(v, d);
        return Status::OK();
      }), "scan views");
      if (!(d == want)) Check(Status::Internal("view scan read other data"), "scan");
    };
    const uint64_t b = payload;
    AddRecordResult(results, "sequential scan", "MindRecord (pread)", "ours", "rows", n, b, TimeRuns(o, [&] { scan_mr(*mr_pread); }));
    AddRecordResult(results, "sequential scan", "MindRecord (mmap)", "ours", "rows", n, b, TimeRuns(o, [&] { scan_mr(*mr_mmap); }));
    AddRecordResult(results, "sequential scan", "MindRecord (mmap, views)", "ours", "rows", n, b,
        TimeRuns(o, [&] { scan_views(*mr_mmap); }));
    AddRecordResult(results, "sequential scan", "TFRecord", "baseline", "rows", n, b, TimeRuns(o, [&] {
          auto r = Unwrap(TfRecordReader::Open(p.tf), p.tf);
          Digest d;
          std::string_view rec;
          while (Unwrap(r->Next(&rec), p.tf)) digest_example(rec, d);
          if (!(d == want)) Check(Status::Internal("TFRecord scan read other data"), "scan");
        }));
    AddRecordResult(results, "sequential scan", "LMDB (cursor)", "baseline", "rows", n, b, TimeRuns(o, [&] {
          Digest d;
          Check(lmdb->Scan([&](std::string_view rec) {
            digest_example(rec, d);
            return Status::OK();
          }), "lmdb scan");
          if (!(d == want)) Check(Status::Internal("LMDB scan read other data"), "scan");
        }));
    const std::vector<std::string> listed = ListFiles(p.plain);  // ImageFolder order
    AddRecordResult(results, "sequential scan", "plain files", "baseline", "rows", n, b, TimeRuns(o, [&] {
          for (const auto& f : listed) Check(ReadWholeFile(f, &scratch), f);
        }));
    std::vector<uint64_t> seq(n);
    std::iota(seq.begin(), seq.end(), 0);
    measure("sequential scan", "memcpy", "ceiling", seq, copy_ceiling, "rows", n);
    AddRecordResult(results, "sequential scan", "cat TFRecord file", "ceiling", "rows", n, b,
        TimeRuns(o, [&] { Check(CatFiles({p.tf}).status(), "cat"); }));
    AddRecordResult(results, "sequential scan", "cat plain files", "ceiling", "rows", n, b,
        TimeRuns(o, [&] { Check(CatFiles(listed).status(), "cat"); }));
  }

  // Shuffled epoch: one permutation, the same for every system.
  {
    std::vector<uint64_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), std::mt19937_64(7));
    const std::string t = "shuffled epoch";
    measure(t, "MindRecord (pread)", "ours", perm, [&](uint64_t id, Digest& d) { read_mr(*mr_pread, id, d); }, "rows", n);
    measure(t, "MindRecord (mmap)", "ours", perm, [&](uint64_t id, Digest& d) { read_mr(*mr_mmap, id, d); }, "rows", n);
    measure_lists(t, "MindRecord (mmap, views)", perm, 1024, [&](const std::vector<uint64_t>& ids, Digest& d) {
      read_views(*mr_mmap, ids, d);
    }, "rows", n);
    measure(t, "TFRecord + .idx", "baseline", perm, read_tf, "rows", n);
    measure(t, "LMDB", "baseline", perm, read_lmdb, "rows", n);
    measure(t, "plain files", "baseline", perm, read_plain, "rows", n);
    measure(t, "memcpy", "ceiling", perm, copy_ceiling, "rows", n);
  }

  // Batches of 256 uniformly random ids (with replacement), as many rows as an epoch.
  {
    const uint64_t batches = std::max<uint64_t>(1, n / 256);
    std::vector<uint64_t> ids(batches * 256);
    std::mt19937_64 rng(11);
    for (auto& id : ids) id = rng() % n;
    const std::string t = "random batches of 256";
    const std::string u = "batches";
    measure(t, "MindRecord (pread)", "ours", ids, [&](uint64_t id, Digest& d) { read_mr(*mr_pread, id, d); }, u, batches);
    measure(t, "MindRecord (mmap)", "ours", ids, [&](uint64_t id, Digest& d) { read_mr(*mr_mmap, id, d); }, u, batches);
    measure_lists(t, "MindRecord (mmap, views)", ids, 256, [&](const std::vector<uint64_t>& b, Digest& d) {
      read_views(*mr_mmap, b, d);
    }, u, batches);
    measure(t, "TFRecord + .idx", "baseline", ids, read_tf, u, batches);
    measure(t, "LMDB", "baseline", ids, read_lmdb, u, batches);
    measure(t, "plain files", "baseline", ids, read_plain, u, batches);
    measure(t, "memcpy", "ceiling", ids, copy_ceiling, u, batches);
  }
  RemoveAll(dir);
}

}  // namespace mindrecord::bench
