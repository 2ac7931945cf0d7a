#include "writers/convert/convert_engine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

#include <nlohmann/json.hpp>

#include "mindrecord/file.h"
#include "writers/shard_writer.h"

namespace mindrecord::convert {
namespace {

using Clock = std::chrono::steady_clock;

// Payload bytes of a row: what the user's data weighs, for batching and MB/s.
uint64_t RowBytes(const Row& row) {
  uint64_t n = 0;
  for (const auto& [name, v] : row.fields()) {
    n += (v.kind() == Value::Kind::kInt || v.kind() == Value::Kind::kFloat) ? 8 : v.bytes().size();
  }
  return n;
}

// Batches also end at this many payload bytes, so huge images do not pile up.
constexpr uint64_t kMaxBatchBytes = 64 * kMiB;

// Prints "\rconvert[ split]: rows/total, MB/s, ETA" to stderr at most 4 times a second.
class Progress {
 public:
  Progress(bool on, std::string label, size_t total) : on_(on), label_(std::move(label)), total_(total) {}
  void Update(size_t rows, uint64_t bytes, bool last = false) {
    if (!on_) return;
    auto now = Clock::now();
    if (!last && now - last_print_ < std::chrono::milliseconds(250)) return;
    last_print_ = now;
    double secs = std::chrono::duration<double>(now - start_).count();
    double mbps = secs > 0 ? static_cast<double>(bytes) / 1e6 / secs : 0;
    double eta = rows > 0 ? secs * static_cast<double>(total_ - rows) / static_cast<double>(rows) : 0;
    std::fprintf(stderr, "\rconvert%s: %zu/%zu rows, %.1f MB/s, ETA %.0f s   %s", label_.c_str(), rows, total_,
                 mbps, eta, last ? "\n" : "");
    std::fflush(stderr);
  }

 private:
  bool on_;
  std::string label_;
  size_t total_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_print_{};
};

}  // namespace

Result<Row> SplitPlan::MakeRow(size_t i) const {
  try {
    return make_row(i);
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(std::string("unexpected JSON value: ") + e.what());
  } catch (const std::bad_alloc&) {
    return Status::Internal("out of memory building the row");
  } catch (const std::exception& e) {
    return Status::Internal(std::string("building the row threw an exception: ") + e.what());
  } catch (...) {
    return Status::Internal("building the row threw an exception of an unknown type");
  }
}

// Rows are built on `workers` threads into a window of ordered slots; the
// calling thread takes them in order and hands batches to the sink.
Status RunSegments(const SplitPlan& plan, const std::vector<Segment>& segments, const RowSink& sink,
                   ConvertContext& ctx, OutputReport* out) {
  const ConvertOptions& opt = ctx.options();
  // Position p of the run is item `items[p]`.
  std::vector<size_t> items;
  for (const Segment& seg : segments) {
    for (size_t i = seg.begin; i < seg.end; ++i) items.push_back(i);
  }
  const size_t n = items.size();
  const unsigned workers = std::min<size_t>(EffectiveWorkers(opt.workers), std::max<size_t>(n, 1));
  const size_t window = std::max<size_t>(64, workers * 16);
  // Workers claim this many consecutive items at a time and hand their rows
  // over under one lock; the consumer takes every row ready in one lock and
  // frees their slots once it has handed them on. Cheap rows (a CSV record,
  // a few microseconds) otherwise cost a lock round and a wake-up each.
  const size_t claim = std::clamp<size_t>(window / (4 * workers), 1, 16);
  std::vector<std::optional<Result<Row>>> slots(window);
  std::mutex mu;
  std::condition_variable ready_cv, space_cv;
  std::atomic<size_t> next{0};
  size_t consumed = 0;        // guarded by mu: the slots of rows before it may be refilled
  size_t space_waiters = 0;   // guarded by mu
  bool stop = false;          // guarded by mu
  // A waiting consumer is woken once all the rows [wait_from, wait_to] are
  // ready, not per row: a wake-up is a futex call and a context switch on
  // each side (2.5 per image with 1 worker), and on a VM a cross-CPU one.
  constexpr size_t kWakeRows = 8;
  size_t wait_from = SIZE_MAX, wait_to = 0;  // guarded by mu; none while wait_from is SIZE_MAX
  auto ready = [&] {                         // under mu
    for (size_t q = wait_from; q <= wait_to; ++q)
      if (!slots[q % window].has_value()) return false;
    return true;
  };

  auto work = [&]() {
    std::vector<Result<Row>> made;
    for (;;) {
      const size_t p0 = next.fetch_add(claim);
      if (p0 >= n) return;
      const size_t p1 = std::min(p0 + claim, n);
      {
        std::unique_lock<std::mutex> lock(mu);
        ++space_waiters;
        space_cv.wait(lock, [&] { return stop || p1 - 1 < consumed + window; });
        --space_waiters;
        if (stop) return;
      }
      made.clear();
      for (size_t p = p0; p < p1; ++p) made.push_back(plan.MakeRow(items[p]));
      bool wake = false;
      {
        std::lock_guard<std::mutex> lock(mu);
        for (size_t p = p0; p < p1; ++p) slots[p % window].emplace(std::move(made[p - p0]));
        wake = wait_from != SIZE_MAX && p1 > wait_from && p0 <= wait_to && ready();
      }
      if (wake) ready_cv.notify_one();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (unsigned t = 0; t < workers; ++t) threads.emplace_back(work);

  Progress progress(opt.progress, plan.split.empty() ? std::string() : " " + plan.split, n);
  Status status;
  std::vector<Row> batch;
  uint64_t batch_bytes = 0;
  const size_t batch_rows = std::max<uint32_t>(opt.batch_rows, 1);
  auto flush = [&](uint32_t shard) -> Status {
    if (batch.empty()) return Status::OK();
    Status st = sink.write(shard, std::move(batch));
    batch.clear();
    batch_bytes = 0;
    if (st.ok() && sink.poll) st = sink.poll();
    return st;
  };
  size_t p = 0;
  size_t taken_end = 0;  // the rows [p, taken_end) are ready, taken without the lock
  for (const Segment& seg : segments) {
    if (!status.ok()) break;
    if (sink.begin) status = sink.begin(seg);
    for (size_t i = seg.begin; i < seg.end && status.ok(); ++i, ++p) {
      if (p == taken_end) {
        // The rows before p are handed on: their slots go back to the
        // workers. Then the rows ready from p on, at most half the window
        // (the workers keep the other half to fill meanwhile).
        bool waiters;
        {
          std::unique_lock<std::mutex> lock(mu);
          consumed = p;
          waiters = space_waiters > 0;
          if (!slots[p % window].has_value()) {
            // The rows from p up to kWakeRows ahead (all within the window,
            // which workers may fill: p == consumed).
            wait_from = p;
            wait_to = std::min(p + kWakeRows, n) - 1;
            if (waiters) space_cv.notify_all();
            waiters = false;
            ready_cv.wait(lock, ready);
            wait_from = SIZE_MAX;
          }
          taken_end = p;
          while (taken_end < n && taken_end < p + window / 2 && slots[taken_end % window].has_value()) ++taken_end;
        }
        if (waiters) space_cv.notify_all();
      }
      // Slot p is not written again before consumed passes p (under mu).
      std::optional<Result<Row>> item;
      item.swap(slots[p % window]);
      if (!item->ok()) {
        status = ctx.BadInput(plan.item_name(i), item->status());
        continue;
      }
      Row row = std::move(*item).value();
      uint64_t bytes = RowBytes(row);
      out->rows++;
      out->bytes += bytes;
      batch_bytes += bytes;
      batch.push_back(std::move(row));
      if (batch.size() >= batch_rows || batch_bytes >= kMaxBatchBytes) status = flush(seg.shard);
      progress.Update(p + 1, out->bytes);
    }
    if (status.ok()) status = flush(seg.shard);
    if (status.ok() && sink.end) status = sink.end(seg);
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    stop = true;
  }
  space_cv.notify_all();
  for (auto& t : threads) t.join();
  if (status.ok()) progress.Update(n, out->bytes, /*last=*/true);
  return status;
}

std::vector<size_t> ShardBoundaries(const std::vector<uint64_t>& weights, uint32_t shards) {
  const size_t m = weights.size();
  std::vector<size_t> b(shards + 1, 0);
  b[shards] = m;
  if (m <= shards) {  // one item per shard, the last shards empty
    for (uint32_t s = 1; s < shards; ++s) b[s] = std::min<size_t>(s, m);
    return b;
  }
  std::vector<unsigned __int128> cum(m + 1, 0);  // cum[i]: weight of items [0, i)
  for (size_t i = 0; i < m; ++i) cum[i + 1] = cum[i] + weights[i];
  if (cum[m] == 0) {  // nothing measured: balance the count
    for (size_t i = 0; i <= m; ++i) cum[i] = i;
  }
  for (uint32_t s = 1; s < shards; ++s) {
    // The boundary nearest to s/shards of the total weight (exact integers).
    const unsigned __int128 target_n = cum[m] * s;  // target = target_n / shards
    size_t lo = 0, hi = m;                          // first i with cum[i] * shards >= target_n
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (cum[mid] * shards >= target_n) hi = mid; else lo = mid + 1;
    }
    size_t at = lo;  // or the one before it when that is as near (ties go to the earlier shard)
    if (at > 0 && target_n - cum[at - 1] * shards <= cum[at] * shards - target_n) --at;
    // Every shard keeps at least one item.
    b[s] = std::min(std::max(at, b[s - 1] + 1), m - (shards - s));
  }
  return b;
}

std::vector<uint64_t> ItemWeights(const SplitPlan& plan, size_t begin, size_t end) {
  std::vector<uint64_t> w(end - begin, 1);
  if (plan.item_bytes) {
    for (size_t i = begin; i < end; ++i) w[i - begin] = plan.item_bytes(i);
  }
  return w;
}

unsigned EffectiveWorkers(uint32_t requested) {
  if (requested > 0) return requested;
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

// The existing dataset at `path` (shard 0 is `path` or `path` + a zero-padded
// 0), opened for append after checking it takes rows of `schema`.
Result<std::unique_ptr<ShardWriter>> OpenForAppend(const std::string& path, const Schema& schema) {
  std::string first;
  for (const std::string& c : {path, path + "0", path + "00", path + "000"}) {
    if (FileSystem::Default()->Exists(c)) {
      first = c;
      break;
    }
  }
  if (first.empty()) return Status::NotFound("no dataset to append to (neither the file nor its shard 0 exists)");
  MR_ASSIGN_OR_RETURN(auto w, ShardWriter::OpenForAppend(first));
  if (!(w->schema() == schema)) {
    return Status::InvalidArgument("the converted rows' schema " + schema.ToUserJson().dump() +
                                   " differs from the dataset's " + w->schema().ToUserJson().dump());
  }
  if (w->schema().desc() != schema.desc()) {
    return Status::InvalidArgument("the converted rows' description (\"" + schema.desc() +
                                   "\") differs from the dataset's (\"" + w->schema().desc() +
                                   "\"), e.g. another class map; labels would not agree");
  }
  return w;
}

Result<std::vector<OutputReport>> RunPlans(const std::vector<SplitPlan>& plans, const std::string& output,
                                           ConvertContext& ctx) {
  const ConvertOptions& opt = ctx.options();
  std::vector<std::unique_ptr<ShardWriter>> writers;
  std::vector<OutputReport> reports;
  auto abandon_all = [&]() {
    for (auto& w : writers) w->Abandon();
  };
  for (const SplitPlan& plan : plans) {
    WriterOptions wo;
    wo.shard_count = opt.shards;
    wo.header_size = opt.header_size;
    wo.page_size = opt.page_size;
    wo.index_fields = plan.index_fields;
    wo.overwrite = opt.overwrite;
    wo.compression = opt.compression;
    wo.direct_writes = opt.direct_writes;
    wo.protection = opt.protection;
    auto named = opt.split_outputs.find(plan.split);
    std::string path = named != opt.split_outputs.end() ? named->second : SplitOutputPath(output, plan.split);
    auto writer = opt.append ? OpenForAppend(path, plan.schema) : ShardWriter::Create(path, plan.schema, wo);
    if (!writer.ok()) {
      abandon_all();
      return writer.status().WithContext(path);
    }
    writers.push_back(std::move(writer).value());
    ShardWriter* w = writers.back().get();
    OutputReport report;
    report.split = plan.split;
    report.description = plan.schema.desc();
    std::vector<Segment> segments;
    if (opt.append) {
      segments.push_back({kWriterPlacement, 0, plan.num_items});  // the dataset's own placement
    } else {
      const uint32_t n = w->options().shard_count;
      const std::vector<size_t> b =
          n == 1 ? std::vector<size_t>{0, plan.num_items} : ShardBoundaries(ItemWeights(plan, 0, plan.num_items), n);
      for (uint32_t s = 0; s < n; ++s) segments.push_back({s, b[s], b[s + 1]});
    }
    RowSink sink;
    sink.write = [w](uint32_t shard, std::vector<Row>&& rows) {
      return shard == kWriterPlacement ? w->WriteRows(std::move(rows)) : w->WriteRowsToShard(shard, std::move(rows));
    };
    Status st = RunSegments(plan, segments, sink, ctx, &report);
    if (!st.ok()) {
      abandon_all();
      return st;
    }
    report.files = writers.back()->shard_paths();
    reports.push_back(std::move(report));
  }
  // Commit only when every split is complete, so a failure leaves nothing.
  for (size_t i = 0; i < writers.size(); ++i) {
    Status st = writers[i]->Commit();
    if (!st.ok()) {
      for (size_t j = i + 1; j < writers.size(); ++j) writers[j]->Abandon();
      return st.WithContext(writers[i]->shard_paths().front());
    }
  }
  return reports;
}

}  // namespace mindrecord::convert
