// The floor under any loop that hands out its own copy of shuffled rows
// (Python's default do_copy=True): copying ~1 KiB rows in a shuffled order
// out of a mapped file into blocks of 256 rows, taken in turn from a ring
// of 64 allocated up front (as the pipeline's recycled batch buffers are,
// and as a consumer holding its last batches leaves them: not in cache),
// against touching each row's first bytes only (what a zero-copy
// consumer's views cost).
// No pipeline, no format: the memory system's own figure on this machine.
// Rows: MR_BENCH_ROWS (default 200000), each 1024 +- 64 bytes.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr size_t kBatch = 256, kKept = 64;

struct Rows {
  uint8_t* base = nullptr;
  size_t bytes = 0;
  std::vector<uint64_t> offset, size;  // per row
  // Shuffled epochs, taken in turn: a thread's share of the rows changes
  // from epoch to epoch, as a pipeline worker's does (with one order, each
  // core's cache would keep its own half of the rows).
  std::vector<std::vector<uint32_t>> orders;
};

// A file of the rows, mapped read-only and faulted in once (page cache and
// page tables warm, as a mapped shard is after its first epoch).
const Rows& TheRows() {
  static Rows* r = [] {
    auto* rows = new Rows();
    const char* env = std::getenv("MR_BENCH_ROWS");
    const size_t n = env ? std::strtoull(env, nullptr, 10) : 200000;
    std::mt19937_64 rng(7);
    for (size_t i = 0; i < n; ++i) {
      rows->offset.push_back(rows->bytes);
      rows->size.push_back(1024 - 64 + rng() % 129);
      rows->bytes += rows->size.back() + 8;  // a length prefix apart, as in a page
    }
    char path[] = "/tmp/gather_bench_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(rows->bytes)) != 0) std::abort();
    unlink(path);
    std::vector<uint8_t> chunk(1 << 20);
    for (size_t done = 0; done < rows->bytes; done += chunk.size()) {
      for (auto& b : chunk) b = static_cast<uint8_t>(rng());
      if (pwrite(fd, chunk.data(), std::min(chunk.size(), rows->bytes - done), static_cast<off_t>(done)) < 0)
        std::abort();
    }
    void* p = mmap(nullptr, rows->bytes, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) std::abort();
    rows->base = static_cast<uint8_t*>(p);
    uint64_t sum = 0;
    for (size_t i = 0; i < rows->bytes; i += 4096) sum += rows->base[i];
    benchmark::DoNotOptimize(sum);
    rows->orders.assign(8, std::vector<uint32_t>(n));
    for (auto& order : rows->orders) {
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng);
    }
    return rows;
  }();
  return *r;
}

// Each thread takes its share of one shuffled epoch.
std::pair<size_t, size_t> Share(const benchmark::State& state, size_t n) {
  const size_t per = n / static_cast<size_t>(state.threads());
  const size_t lo = per * static_cast<size_t>(state.thread_index());
  return {lo, state.thread_index() + 1 == state.threads() ? n : lo + per};
}

void BM_GatherCopy(benchmark::State& state) {
  const Rows& r = TheRows();
  const auto [lo, hi] = Share(state, r.orders[0].size());
  size_t epoch = 0;
  constexpr size_t kBlockBytes = kBatch * (1024 + 64);
  std::vector<std::vector<uint8_t>> ring(kKept, std::vector<uint8_t>(kBlockBytes, 1));
  size_t k = 0;
  for (auto _ : state) {
    const std::vector<uint32_t>& order = r.orders[epoch++ % r.orders.size()];
    for (size_t b = lo; b < hi; b += kBatch) {
      uint8_t* dst = ring[k++ % kKept].data();
      for (size_t i = b; i < std::min(hi, b + kBatch); ++i) {
        const uint32_t row = order[i];
        std::memcpy(dst, r.base + r.offset[row], r.size[row]);
        dst += r.size[row];
      }
      benchmark::DoNotOptimize(dst);
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * (hi - lo)));
}

void BM_GatherTouch(benchmark::State& state) {
  const Rows& r = TheRows();
  const auto [lo, hi] = Share(state, r.orders[0].size());
  size_t epoch = 0;
  for (auto _ : state) {
    const std::vector<uint32_t>& order = r.orders[epoch++ % r.orders.size()];
    uint64_t sum = 0;
    for (size_t i = lo; i < hi; ++i) {
      uint64_t v;
      std::memcpy(&v, r.base + r.offset[order[i]], sizeof v);
      sum += v;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * (hi - lo)));
}

BENCHMARK(BM_GatherCopy)->Threads(1)->Threads(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GatherTouch)->Threads(1)->Threads(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
