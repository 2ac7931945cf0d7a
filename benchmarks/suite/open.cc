// Workload 3: time to open a dataset of 1M small records and read one record
// (readers may load their index lazily), and the peak RSS it costs, for
// MindRecord, TFRecord (+ .idx, scanned, sequential) and LMDB (the same
// records under 8-byte big-endian row-id keys), each measured in a fresh child process (the suite's own binary,
// exec'ed with --open-child) so nothing of the parent is counted.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>

#include "benchmarks/baselines/lmdb_store.h"
#include "benchmarks/baselines/tf_example.h"
#include "benchmarks/baselines/tfrecord_io.h"
#include "benchmarks/suite/harness.h"
#include "readers/shard_reader.h"
#include "writers/shard_writer.h"

extern char** environ;

namespace mindrecord::bench {
namespace {

struct ChildResult {
  double open_s = 0;   // open + read one record from the middle
  double open_only_s = 0;
  uint64_t hwm_kb = 0;
};

// Runs the child and parses its one line of JSON.
ChildResult RunChild(const std::string& exe, const std::string& system, const std::string& path) {
  int fds[2];
  if (::pipe(fds) != 0) Check(Status::IOError("pipe failed"), "open workload");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  std::vector<std::string> args = {exe, "--open-child", system, path};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ) != 0)
    Check(Status::IOError("cannot start " + exe), "open workload");
  posix_spawn_file_actions_destroy(&fa);
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t got;
  while ((got = ::read(fds[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(got));
  ::close(fds[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) Check(Status::Internal("child failed for " + system), "open workload");
  auto j = nlohmann::json::parse(out);
  return {j["first_s"].get<double>(), j["open_s"].get<double>(), j["hwm_kb"].get<uint64_t>()};
}

}  // namespace

int OpenChildMain(const std::string& system, const std::string& path) {
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t rows = 0, probe = 0;
  // Each system opens and then reads one row from the middle (proves it works).
  std::unique_ptr<ShardReader> mr;
  std::unique_ptr<TfRecordRandomReader> tf;
  std::unique_ptr<TfRecordReader> tf_seq;
  std::unique_ptr<LmdbReader> lmdb;
  if (system == "none") {
  } else if (system == "LMDB") {
    lmdb = Unwrap(LmdbReader::Open(path), "open " + path);
    rows = lmdb->rows();
  } else if (system == "MindRecord (pread)" || system == "MindRecord (mmap)") {
    ReaderOptions ro;
    ro.io_mode = system == "MindRecord (mmap)" ? IoMode::kMmap : IoMode::kPread;
    mr = Unwrap(ShardReader::Open(path, ro), "open " + path);
    rows = mr->num_rows();
  } else if (system == "TFRecord + .idx") {
    tf = Unwrap(TfRecordRandomReader::Open(path, Unwrap(ReadIndexFile(path + ".idx"), "idx")), "open " + path);
    rows = tf->size();
  } else if (system == "TFRecord, index by scan") {
    tf = Unwrap(TfRecordRandomReader::Open(path, Unwrap(ScanIndex(path), "scan")), "open " + path);
    rows = tf->size();
  } else if (system == "TFRecord sequential") {
    tf_seq = Unwrap(TfRecordReader::Open(path), "open " + path);
  } else {
    std::fprintf(stderr, "unknown system %s\n", system.c_str());
    return 2;
  }
  const double open_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (mr) probe = Unwrap(mr->ReadRow(rows / 2), "read").Get("label").as_int();
  if (tf) {
    std::string scratch;
    tf::Example ex;
    Check(ParseExample(Unwrap(tf->Read(rows / 2, &scratch), "read"), &ex), "parse");
    probe = Unwrap(Int64Feature(ex, "label"), "label");
  }
  if (tf_seq) {
    std::string_view rec;
    Unwrap(tf_seq->Next(&rec), "read");
  }
  if (lmdb) {
    tf::Example ex;
    Check(ParseExample(Unwrap(lmdb->Get(rows / 2), "read"), &ex), "parse");
    probe = Unwrap(Int64Feature(ex, "label"), "label");
  }
  const double first_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("{\"open_s\": %.9f, \"first_s\": %.9f, \"hwm_kb\": %llu, \"rows\": %llu, \"probe\": %llu}\n",
              open_s, first_s,
              static_cast<unsigned long long>(ProcStatusKb("VmHWM")), static_cast<unsigned long long>(rows),
              static_cast<unsigned long long>(probe));
  return 0;
}

void RunOpenWorkload(const SuiteOptions& o, Results& results, const std::string& self_exe) {
  const uint64_t n = o.Scaled(1000000, 256);
  std::fprintf(stderr, "open: %llu small records\n", static_cast<unsigned long long>(n));
  const std::string dir = o.work_dir + "/open";
  RemoveAll(dir);
  std::filesystem::create_directories(dir);
  const std::string mr_path = dir + "/small.mindrecord", tf_path = dir + "/small.tfrecord";
  const std::string lmdb_path = dir + "/small.lmdb";
  {
    WriterOptions wo;
    wo.overwrite = true;
    auto schema = Schema::Make({{"label", DataType::kInt64, false, {}}, {"text", DataType::kBytes, false, {}}}).value();
    auto w = Unwrap(ShardWriter::Create(mr_path, schema, wo), "create");
    auto tw = Unwrap(TfRecordWriter::Create(tf_path, tf_path + ".idx"), "create");
    auto lw = Unwrap(LmdbWriter::Create(lmdb_path, uint64_t{1} << 34), "create " + lmdb_path);
    std::mt19937_64 rng(3);
    std::vector<Row> batch;
    for (uint64_t i = 0; i < n; ++i) {
      std::string text = "record " + std::to_string(i) + " of the open-time workload";  // ~40 bytes
      const int64_t label = static_cast<int64_t>(rng() % 1000);
      std::string ex = MakeExample("text", text, "label", label);
      Check(tw->Append(ex), "append");
      Check(lw->Append(ex), "append");
      batch.push_back(Row{{"label", Value::Int(label)}, {"text", Value::Bytes(std::move(text))}});
      if (batch.size() == 10000 || i + 1 == n) {
        Check(w->WriteRows(batch), "write");
        batch.clear();
      }
    }
    Check(w->Commit(), "commit");
    Check(tw->Close(), "close");
    Check(lw->Close(/*sync=*/false), "close");
  }
  results.Set("open", {{"rows", n}});
  struct Sys {
    const char* name;
    const char* role;
    std::string path;
  };
  const std::vector<Sys> systems = {{"none", "ceiling", mr_path},
                                    {"MindRecord (pread)", "ours", mr_path},
                                    {"MindRecord (mmap)", "ours", mr_path},
                                    {"TFRecord + .idx", "baseline", tf_path},
                                    {"LMDB", "baseline", lmdb_path},
                                    {"TFRecord, index by scan", "baseline", tf_path},
                                    {"TFRecord sequential", "baseline", tf_path}};
  for (const auto& s : systems) {
    std::vector<double> secs, open_only, hwm;
    for (int i = 0; i < o.warmup + o.runs; ++i) {
      ChildResult r = RunChild(self_exe, s.name, s.path);
      if (i < o.warmup) continue;
      secs.push_back(r.open_s);
      open_only.push_back(r.open_only_s);
      hwm.push_back(static_cast<double>(r.hwm_kb));
    }
    Measurement m{"open", "open + first read", std::string(s.name == std::string("none") ? "empty process" : s.name), s.role,
                  "opens", 1, 0, secs, {}, nlohmann::json::object()};
    m.extra["peak_rss_kb"] = Median(hwm);
    m.extra["open_only_s"] = Median(open_only);
    std::fprintf(stderr, "  open     peak RSS %-28s %10.0f kB\n", s.name, Median(hwm));
    results.Add(std::move(m));
  }
  RemoveAll(dir);
}

}  // namespace mindrecord::bench
