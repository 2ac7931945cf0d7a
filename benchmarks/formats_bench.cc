// The format benchmark suite: MindRecord against a TFRecord-style baseline,
// plain files and hardware ceilings, on three workloads
// (records, images, open; see benchmarks/README.md). benchmarks/run.sh drives
// it and writes the report.
//
//   formats_bench [--scale F] [--runs N] [--warmup N] [--work DIR] [--out FILE]
//                 (no --out: the table on stdout only)
//                 [--workloads records,images,open] [--max-workers N]
//                 [--records-write-only]
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sstream>
#include <string>

#include "benchmarks/suite/harness.h"

namespace {

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string part; std::getline(ss, part, ',');)
    if (!part.empty()) out.push_back(part);
  return out;
}

int Usage() {
  std::fprintf(stderr,
               "usage: formats_bench [--scale F] [--runs N] [--warmup N] [--work DIR] [--out FILE]\n"
               "                     [--workloads records,images,open] [--max-workers N]\n"
               "                     [--records-write-only]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  namespace b = mindrecord::bench;
  if (argc == 4 && std::strcmp(argv[1], "--open-child") == 0) return b::OpenChildMain(argv[2], argv[3]);
  b::SuiteOptions o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--records-write-only") {
      o.records_write_only = true;
      continue;
    }
    if (i + 1 >= argc) return Usage();
    const std::string v = argv[++i];
    if (a == "--scale") o.scale = std::atof(v.c_str());
    else if (a == "--runs") o.runs = std::atoi(v.c_str());
    else if (a == "--warmup") o.warmup = std::atoi(v.c_str());
    else if (a == "--work") o.work_dir = v;
    else if (a == "--out") o.out = v;
    else if (a == "--workloads") o.workloads = Split(v);
    else if (a == "--max-workers") o.max_workers = std::atoi(v.c_str());
    else return Usage();
  }
  if (o.scale <= 0 || o.runs < 1 || o.warmup < 0 || o.max_workers < 1) return Usage();
  char exe[4096];
  const ssize_t len = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (len <= 0) return 1;
  exe[len] = '\0';

  b::Results results;
  struct utsname u;
  ::uname(&u);
  double load[3] = {0, 0, 0};
  ::getloadavg(load, 3);
  results.Set("options", {{"scale", o.scale}, {"runs", o.runs}, {"warmup", o.warmup}, {"max_workers", o.max_workers}});
  results.Set("kernel", std::string(u.sysname) + " " + u.release);
  results.Set("load_before", {load[0], load[1], load[2]});
  results.Set("started", static_cast<int64_t>(std::time(nullptr)));
  for (const auto& w : o.workloads) {
    if (w == "records") b::RunRecordsWorkload(o, results);
    else if (w == "images") b::RunImagesWorkload(o, results);
    else if (w == "open") b::RunOpenWorkload(o, results, exe);
    else return Usage();
    ::getloadavg(load, 3);
    results.Set("load_after_" + w, {load[0], load[1], load[2]});
  }
  if (!o.out.empty()) {
    b::Check(results.Save(o.out), "save");
    std::fprintf(stderr, "formats_bench: wrote %s\n", o.out.c_str());
  }
  return 0;
}
