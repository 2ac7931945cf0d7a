// `convert imagefolder` throughput against the ceiling of reading the same
// files (what `cat FILES > /dev/null` does), with 1 and 2 workers, images
// stored as they are. The input is a generated ImageFolder of ~100 KB JPEGs
// (crops of the compat photos, scaled to 800x600 and re-encoded, or synthetic ones without compat).
//
//   convert_bench [--images N (10000)] [--dir D (/tmp/mr_convert_bench)] [--runs R (3)] [--keep]
//                 [--write-mode auto|buffered|both (auto)]
//
// Prints one line per measurement (median of --runs, default 3): MB/s and the
// ratio to two ceilings, both on a warm page cache: `cat` (the real command,
// `find INPUT -type f -print0 | xargs -0 cat > /dev/null`, the issue's
// ceiling: a process that opens and reads every file) and a tight in-process
// read loop (open + read into one 1 MiB buffer + close: stricter, no process
// or per-file buffer costs); and, per output, the write ceiling (the same
// number of bytes written and fsynced there). Output datasets are written with the default
// header/page sizes and committed (fsync included), as a user's convert would:
// once into D (disk: the writer's page writes and fsync count) and once into
// /dev/shm (memory: what the converter itself costs). Each run writes a new
// output (the previous one is removed before the clock starts). --write-mode
// both measures direct (auto) and buffered page writes side by side.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "fixtures/convert_fixtures.h"
#include "tests/util/compat_dir.h"
#include "writers/convert/converter.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<cv::Mat> CompatPhotos() {
  std::vector<cv::Mat> out;
  const std::string dir = mindrecord::testing::CompatDir();
  if (dir.empty()) return out;
  const fs::path compat = fs::path(dir) / "sources";
  for (const char* sub : {"coco/train", "voc2012/JPEGImages", "imagenet_map/images"}) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(compat / sub, ec)) {
      cv::Mat m = cv::imread(e.path().string(), cv::IMREAD_COLOR);
      if (!m.empty() && m.cols >= 320 && m.rows >= 240) out.push_back(m);
    }
  }
  return out;
}

// INPUT/class_XX/img_YYYYY.jpg, 10 classes; returns total bytes.
uint64_t Generate(const std::string& dir, size_t n) {
  std::vector<cv::Mat> photos = CompatPhotos();
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    char rel[64];
    std::snprintf(rel, sizeof(rel), "/class_%02zu/img_%05zu.jpg", i % 10, i);
    std::string bytes;
    if (photos.empty()) {
      bytes = mindrecord::fixtures::MakeJpeg(256, 192, static_cast<uint32_t>(i));
    } else {
      const cv::Mat& p = photos[i % photos.size()];
      int w = std::min(p.cols, 480), h = std::min(p.rows, 360);
      int x = static_cast<int>((i * 37) % static_cast<size_t>(p.cols - w + 1));
      int y = static_cast<int>((i * 53) % static_cast<size_t>(p.rows - h + 1));
      // Scaled to 800x600 at quality 98: about 100 KB per image.
      cv::Mat img;
      cv::resize(p(cv::Rect(x, y, w, h)), img, cv::Size(800, 600), 0, 0, cv::INTER_LINEAR);
      std::vector<uchar> buf;
      cv::imencode(".jpg", img, buf, {cv::IMWRITE_JPEG_QUALITY, 98});
      bytes.assign(buf.begin(), buf.end());
    }
    mindrecord::fixtures::WriteFile(dir + rel, bytes);
    total += bytes.size();
  }
  return total;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// `cat` of every file into /dev/null, as a user would run it.
double RealCatSeconds(const std::string& dir) {
  const std::string cmd = "find '" + dir + "' -type f -print0 | xargs -0 cat > /dev/null";
  auto t0 = Clock::now();
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "'%s' failed\n", cmd.c_str());
    std::exit(2);
  }
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Writes `bytes` bytes in 32 MiB pieces into a new file in `dir` and fsyncs
// it: what any writer of the output pays on that file system. Starts after a
// sync(), as each convert run does, so both meet the disk in the same state.
double WriteSeconds(const std::string& dir, uint64_t bytes) {
  const std::string path = dir + "/write_ceiling.bin";
  std::vector<char> buf(32 << 20, 'x');
  ::sync();  // as before each convert: the previous run's file is gone and its blocks freed
  auto t0 = Clock::now();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  for (uint64_t done = 0; fd >= 0 && done < bytes;) {
    ssize_t w = ::write(fd, buf.data(), std::min<uint64_t>(buf.size(), bytes - done));
    if (w <= 0) break;
    done += static_cast<uint64_t>(w);
  }
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  ::unlink(path.c_str());
  return s;
}

// Reads every file once into one buffer and drops it: the in-process loop.
double ReadLoopSeconds(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(e.path().string());
  std::vector<char> buf(1 << 20);
  auto t0 = Clock::now();
  for (const auto& f : files) {
    int fd = ::open(f.c_str(), O_RDONLY);
    while (::read(fd, buf.data(), buf.size()) > 0) {
    }
    ::close(fd);
  }
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  size_t n = 10000;
  std::string dir = "/tmp/mr_convert_bench";
  bool keep = false;
  int runs = 3;
  std::string write_mode = "auto";  // WriterOptions::direct_writes; both: a line for each
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--images") && i + 1 < argc) n = std::stoul(argv[++i]);
    else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--keep")) keep = true;
    else if (!std::strcmp(argv[i], "--write-mode") && i + 1 < argc) write_mode = argv[++i];
    else {
      const bool help = !std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h");
      if (!help) std::fprintf(stderr, "convert_bench: unknown or incomplete argument '%s'\n", argv[i]);
      std::fprintf(help ? stdout : stderr,
                   "usage: convert_bench [--images N] [--dir DIR] [--runs N] [--keep] "
                   "[--write-mode auto|buffered|both]\n");
      return help ? 0 : 1;
    }
  }
  std::vector<bool> modes;  // direct_writes
  if (write_mode == "auto" || write_mode == "both") modes.push_back(true);
  if (write_mode == "buffered" || write_mode == "both") modes.push_back(false);
  if (modes.empty()) {
    std::fprintf(stderr, "--write-mode must be auto, buffered or both\n");
    return 1;
  }
  const std::string input = dir + "/input";
  uint64_t bytes = 0;
  if (!fs::exists(input)) {
    bytes = Generate(input, n);
  } else {
    for (const auto& e : fs::recursive_directory_iterator(input))
      if (e.is_regular_file()) bytes += e.file_size();
  }
  const double mb = static_cast<double>(bytes) / 1e6;
  std::printf("input: %zu images, %.1f MB (%.1f KB/image)\n", n, mb, mb * 1e3 / static_cast<double>(n));
  ReadLoopSeconds(input);  // warm the page cache
  std::vector<double> cat_runs, loop_runs;
  for (int r = 0; r < runs; ++r) {
    cat_runs.push_back(RealCatSeconds(input));
    loop_runs.push_back(ReadLoopSeconds(input));
  }
  const double cat_s = Median(cat_runs), loop_s = Median(loop_runs);
  std::printf("ceiling cat:          %8.1f MB/s (%.2f s)\n", mb / cat_s, cat_s);
  std::printf("ceiling read loop:    %8.1f MB/s (%.2f s)\n", mb / loop_s, loop_s);
  std::vector<std::string> outs = {dir};
  std::error_code ec;
  if (fs::is_directory("/dev/shm", ec)) outs.push_back("/dev/shm/mr_convert_bench_out");
  for (const std::string& out : outs) {
    fs::create_directories(out);
    std::vector<double> w_runs;
    for (int r = 0; r < runs; ++r) w_runs.push_back(WriteSeconds(out, bytes));
    const double write_s = Median(w_runs);
    std::printf("write ceiling into %-10s %8.1f MB/s (%.2f s): the same bytes written and fsynced\n",
                (out == dir ? "disk:" : "/dev/shm:"), mb / write_s, write_s);
    for (uint32_t workers : {1u, 2u}) {
      // Runs alternate between the modes, so the disk's changes of pace
      // (e.g. right after the write ceiling's runs) fall on both alike.
      std::vector<std::vector<double>> times(modes.size());
      for (int r = 0; r < runs; ++r) {
        for (size_t m = 0; m < modes.size(); ++m) {
          mindrecord::convert::ConvertOptions o;
          o.workers = workers;
          o.overwrite = true;
          o.direct_writes = modes[m];
          // The previous run's output goes first, untimed: replacing it would
          // charge this run for freeing (and, with `discard`, trimming) its blocks.
          for (const char* suffix : {"", ".db"}) fs::remove(out + "/out.mindrecord" + suffix, ec);
          ::sync();
          auto t0 = Clock::now();
          auto res = mindrecord::convert::Convert("imagefolder", input, out + "/out.mindrecord", o);
          times[m].push_back(std::chrono::duration<double>(Clock::now() - t0).count());
          if (!res.ok()) {
            std::fprintf(stderr, "convert failed: %s\n", res.status().ToString().c_str());
            return 2;
          }
        }
      }
      for (size_t m = 0; m < modes.size(); ++m) {
        const double s = Median(times[m]);
        std::printf("convert workers=%u %-8s into %-10s %8.1f MB/s (%.2f s): %.0f%% of cat, %.0f%% of the read loop, "
                    "%.0f%% of the write ceiling\n",
                    workers, modes[m] ? "auto" : "buffered", (out == dir ? "disk:" : "/dev/shm:"), mb / s, s,
                    100.0 * cat_s / s, 100.0 * loop_s / s, 100.0 * write_s / s);
      }
    }
    if (out != dir) fs::remove_all(out);
  }
  if (!keep) fs::remove_all(dir);
  return 0;
}
