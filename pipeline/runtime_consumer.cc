// The consumer side of Runtime: the thread calling Next() takes finished
// chunks in sequence order, re-batches rows a filter or the error policy
// dropped, keeps the counts of the take / skip nodes it evaluates, numbers
// batches, runs the nodes above the batch where workers could not, and
// ends epochs (runtime.h).
#include <ctime>
#include <algorithm>
#include <limits>

#include "pipeline/interpreter_lock.h"
#include "pipeline/runtime.h"

namespace mindrecord {
namespace {

// Bytes of the buffers a batch's tensors own (views of a mapping own none).
uint64_t OwnedBytes(const Batch& b) {
  uint64_t n = 0;
  for (const BatchColumn& c : b.columns) {
    if (!c.data.read_only()) n += c.data.size_bytes();
    for (const Tensor& t : c.list) {
      if (!t.read_only()) n += t.size_bytes();
    }
  }
  return n;
}

// The same for rows handed on to be released.
uint64_t OwnedBytes(const std::vector<RowTensors>& rows) {
  uint64_t n = 0;
  for (const RowTensors& r : rows) {
    for (const Tensor& t : r.columns) {
      if (!t.read_only()) n += t.size_bytes();
    }
  }
  return n;
}

// Rows per statistic tag among `rows`.
std::vector<uint64_t> TagRows(const std::vector<RowTensors>& rows, uint32_t num_tags) {
  std::vector<uint64_t> tags(num_tags, 0);
  for (const auto& r : rows) {
    for (uint32_t t : r.tags) tags[t]++;
  }
  return tags;
}

// What a batch map giving one integer (a batch size map, a bucket's length
// map) gives for `in`; `what` names it in the error.
Result<int64_t> MapInteger(const BatchMap& map, std::vector<std::vector<Tensor>> in, const BatchInfo& info,
                           const std::string& what) {
  MR_ASSIGN_OR_RETURN(auto out, map.Apply(std::move(in), info));
  const Tensor& t = out.size() == 1 ? out[0].batched : Tensor();
  if (!t.defined() || t.num_elements() != 1 || t.type() != TensorType::kInt64) {
    return Status::InvalidArgument(what + " must give one integer");
  }
  return *t.data_as<int64_t>();
}

}  // namespace

using Clock = std::chrono::steady_clock;

size_t Runtime::NumCounts() const { return counting_ ? tree_.row_stream.size() + 1 + tree_.batch_stream.size() : 0; }

std::vector<uint64_t> Runtime::ZeroCounts() const { return std::vector<uint64_t>(NumCounts(), 0); }

std::vector<uint64_t> Runtime::CountsNow() const {
  if (!counting_) return {};
  std::vector<uint64_t> c;
  // Rows still in carry_ are read again after a resume: not counted yet.
  size_t held = carry_.size();
  for (const auto& b : buckets_) held += b.size();
  for (uint64_t n : row_counts_) c.push_back(n - std::min<uint64_t>(n, held));
  c.push_back(epoch_batches_);
  c.insert(c.end(), batch_counts_.begin(), batch_counts_.end());
  return c;
}

std::vector<uint64_t> Runtime::BucketedNow() const {
  std::vector<uint64_t> p;
  for (const auto& b : buckets_) {
    for (const RowTensors& r : b) p.push_back(r.position);
  }
  std::sort(p.begin(), p.end());
  return p;
}

bool Runtime::Replayed(uint64_t epoch, uint64_t position) const {
  return epoch == consumer_epoch_ && position < replay_end_ &&
         !std::binary_search(replay_keep_.begin(), replay_keep_.end(), position);
}

Status Runtime::Emit(Batch&& b, bool steps_done, std::vector<uint64_t> tag_rows, uint64_t epoch_after,
                     uint64_t position_after, bool* cut) {
  epoch_batches_++;
  for (size_t k = 0; k < tree_.batch_stream.size(); ++k) {
    const StreamOp& op = tree_.batch_stream[k];
    const uint64_t seen = batch_counts_[k]++;
    if (op.take) {
      if (seen >= op.count) {
        *cut = true;
        return Status::OK();
      }
      if (seen + 1 == op.count) *cut = true;
    } else if (seen < op.count) {
      return Status::OK();  // skipped
    }
  }
  if (!steps_done) {
    for (const auto& step : tree_.batch_steps) MR_RETURN_IF_ERROR(step->Apply(&b));
  }
  Ready r{std::move(b), epoch_after, position_after, CountsNow(), 0, {}, std::move(tag_rows)};
  if (tree_.bucket && epoch_after == consumer_epoch_) {
    r.bucketed_after = BucketedNow();
    r.absorbed_after = absorbed_;
    r.position_after = r.bucketed_after.empty() ? absorbed_ : r.bucketed_after.front();
  }
  ready_.push_back(std::move(r));
  return Status::OK();
}

Result<size_t> Runtime::BucketOfRow(const RowTensors& row, uint64_t epoch) {
  if (!tree_.bucket_length_map) return tree_.bucket->BucketOf(row.columns[tree_.bucket_column]);
  std::vector<std::vector<Tensor>> in;
  for (size_t c : tree_.bucket_length_columns) in.push_back({row.columns[c]});
  MR_ASSIGN_OR_RETURN(const int64_t length,
                      MapInteger(*tree_.bucket_length_map, std::move(in), InfoFor(epoch, epoch_batches_),
                                 "bucket: the length map " + tree_.bucket_length_map->name()));
  return tree_.bucket->BucketForLength(length);
}

Status Runtime::Bucket(RowTensors&& row, uint64_t epoch, bool* cut) {
  Result<size_t> b = BucketOfRow(row, epoch);
  if (!b.ok()) {
    return Status::InvalidArgument(b.status().message() + " (the row at position " + std::to_string(row.position) +
                                   " of epoch " + std::to_string(epoch) + ")");
  }
  buckets_[*b].push_back(std::move(row));
  if (buckets_[*b].size() < tree_.bucket->batch_sizes[*b]) return Status::OK();
  return EmitBucket(*b, epoch, cut);
}

Status Runtime::EmitBucket(size_t b, uint64_t epoch, bool* cut) {
  std::vector<RowTensors> rows = std::move(buckets_[b]);
  buckets_[b].clear();
  std::vector<uint64_t> tags = TagRows(rows, tree_.num_tags);
  MR_ASSIGN_OR_RETURN(BatchOptions opts, tree_.bucket->OptionsFor(b, tree_.batch));
  MR_ASSIGN_OR_RETURN(Batch batch, AssembleBatch(tree_.root->columns(), std::move(rows), epoch, opts, alloc_));
  Spend(std::move(rows));
  if (plan_.copy_views) CopyListViews(batch);
  // Where a resume starts is set by Emit from the buckets (this epoch).
  return Emit(std::move(batch), false, std::move(tags), epoch, 0, cut);
}

void Runtime::Spend(std::vector<RowTensors>&& rows) {
  const uint64_t bytes = OwnedBytes(rows);
  if (claims_done_ || spent_rows_.size() + rows.size() > kMaxSpentRows ||
      spent_bytes_ + bytes > std::min(kMaxSpentBytes, plan_.queue_bytes / 4)) {
    return;  // released by the caller
  }
  spent_bytes_ += bytes;
  for (RowTensors& r : rows) spent_rows_.push_back(std::move(r));
}

Result<uint64_t> Runtime::NextBatchSize(uint64_t epoch) {
  if (!tree_.batch_size_map) return tree_.batch.batch_size;
  if (next_batch_size_ != 0) return next_batch_size_;
  const BatchInfo info = InfoFor(epoch, epoch_batches_);
  const std::string where = "batch_size " + tree_.batch_size_map->name() + " (epoch " +
                            std::to_string(info.epoch_num) + ", batch " + std::to_string(info.batch_num) + ")";
  MR_ASSIGN_OR_RETURN(const int64_t n, MapInteger(*tree_.batch_size_map, {}, info, where));
  if (n < 1 || n > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument(where + " gave " + std::to_string(n) + ", not a batch size in [1, 2^31 - 1]");
  }
  next_batch_size_ = static_cast<uint64_t>(n);
  return next_batch_size_;
}

Status Runtime::EmitCarry(size_t n, uint64_t epoch, uint64_t epoch_after, uint64_t position_after, bool* cut) {
  next_batch_size_ = 0;
  std::vector<RowTensors> take(std::make_move_iterator(carry_.begin()), std::make_move_iterator(carry_.begin() + n));
  carry_.erase(carry_.begin(), carry_.begin() + n);
  if (!carry_.empty()) {
    epoch_after = epoch;
    position_after = carry_.front().position;
  }
  std::vector<uint64_t> tags = TagRows(take, tree_.num_tags);
  Result<Batch> b = Status::Internal("unset");
  if (tree_.batch_map) {
    b = AssembleMappedBatch(tree_.root->columns(), std::move(take), epoch, tree_.batch, alloc_, *tree_.batch_map,
                            tree_.batch_map_layout, InfoFor(epoch, epoch_batches_));
  } else {
    b = AssembleBatch(tree_.root->columns(), std::move(take), epoch, tree_.batch, alloc_);
  }
  MR_RETURN_IF_ERROR(b.status());
  if (plan_.copy_views) CopyListViews(*b);
  return Emit(std::move(b).value(), false, std::move(tags), epoch_after, position_after, cut);
}

void Runtime::EndEpoch(uint64_t epoch) {
  // What is handed out last (or already was) is followed by the next epoch:
  // the rest of this one is dropped (a remainder, filtered rows, a take's end).
  if (!ready_.empty()) {
    Ready& r = ready_.back();
    r.epoch_after = epoch + 1;
    r.position_after = 0;
    r.counts_after = ZeroCounts();
    r.absorbed_after = 0;
    r.bucketed_after.clear();
  } else {
    state_.epoch = epoch + 1;
    state_.position = 0;
    state_.counts = ZeroCounts();
    state_.absorbed = 0;
    state_.bucketed.clear();
  }
  consumer_epoch_ = epoch + 1;
  carry_.clear();
  next_batch_size_ = 0;
  for (auto& b : buckets_) b.clear();
  absorbed_ = replay_end_ = 0;
  replay_keep_.clear();
  std::fill(row_counts_.begin(), row_counts_.end(), 0);
  epoch_batches_ = 0;
  std::fill(batch_counts_.begin(), batch_counts_.end(), 0);
  if (claim_epoch_ <= epoch) {
    // A take ended the epoch early: its tasks not yet claimed are never read.
    claim_epoch_ = epoch + 1;
    claim_pos_ = 0;
    work_cv_.notify_all();
  }
}

Status Runtime::Absorb(Chunk&& c) {
  const uint64_t bs = tree_.batch.batch_size;
  const bool drop = tree_.batch.drop_remainder;
  const uint64_t next_epoch = c.last_in_epoch ? c.epoch + 1 : c.epoch;
  const uint64_t next_pos = c.last_in_epoch ? 0 : c.end;
  std::lock_guard<std::mutex> lock(mu_);
  skipped_ += c.skipped;
  filtered_ += c.filtered;
  for (auto& e : c.errors) {
    if (skipped_errors_.size() < kMaxReportedErrors) skipped_errors_.push_back(std::move(e));
  }
  if (c.epoch < consumer_epoch_) return Status::OK();  // a take ended its epoch before it
  bool cut = false;
  if (carry_.empty() && c.batch && tree_.row_stream.empty()) {
    if (c.batch->size() == bs || !drop) {
      std::vector<uint64_t> tags(tree_.num_tags, 0);
      for (const auto& row : c.batch_tags) {
        for (uint32_t t : row) tags[t]++;
      }
      MR_RETURN_IF_ERROR(Emit(std::move(*c.batch), c.batch_steps_done, std::move(tags), next_epoch, next_pos, &cut));
    }
    if (cut || c.last_in_epoch) EndEpoch(c.epoch);
    return Status::OK();
  }
  std::vector<RowTensors> rows;
  if (c.batch) {
    rows = SplitBatch(std::move(*c.batch));
    for (size_t i = 0; i < rows.size() && i < c.batch_tags.size(); ++i) rows[i].tags = std::move(c.batch_tags[i]);
  } else {
    rows = std::move(c.rows);
  }
  // Rows through the take / skip nodes the consumer counts.
  bool row_cut = false;
  for (auto& r : rows) {
    if (tree_.bucket) {
      if (Replayed(c.epoch, r.position)) continue;  // in a batch before the state this run resumed from
      absorbed_ = std::max(absorbed_, r.position + 1);
    }
    bool pass = true;
    for (size_t k = 0; k < tree_.row_stream.size() && pass; ++k) {
      const StreamOp& op = tree_.row_stream[k];
      const uint64_t seen = row_counts_[k]++;
      if (op.take) {
        if (seen >= op.count) {
          row_cut = true;
          pass = false;
        } else if (seen + 1 == op.count) {
          row_cut = true;
        }
      } else if (seen < op.count) {
        pass = false;
      }
    }
    if (pass && tree_.bucket) {
      MR_RETURN_IF_ERROR(Bucket(std::move(r), c.epoch, &cut));
      if (cut) break;
    } else if (pass) {
      carry_.push_back(std::move(r));
    }
    if (row_cut) break;
  }
  const bool ends = row_cut || c.last_in_epoch;
  for (;;) {
    MR_ASSIGN_OR_RETURN(const uint64_t n, NextBatchSize(c.epoch));
    if (carry_.size() < n || cut) break;
    MR_RETURN_IF_ERROR(EmitCarry(n, c.epoch, ends ? c.epoch + 1 : next_epoch, ends ? 0 : next_pos, &cut));
  }
  if (ends && !cut && !carry_.empty() && !drop) {
    MR_RETURN_IF_ERROR(EmitCarry(carry_.size(), c.epoch, c.epoch + 1, 0, &cut));
  }
  for (size_t b = 0; ends && !drop && b < buckets_.size() && !cut; ++b) {
    if (!buckets_[b].empty()) MR_RETURN_IF_ERROR(EmitBucket(b, c.epoch, &cut));
  }
  if (ends || cut) EndEpoch(c.epoch);
  return Status::OK();
}

Result<bool> Runtime::Next(Batch* out) {
  // Batch maps may run here: a consumer thread that is not Python's keeps
  // no interpreter lock past the call (pipeline/interpreter_lock.h).
  struct ReleaseAtReturn {
    ~ReleaseAtReturn() { ReleaseInterpreterLock(); }
  } release;
  if (!error_.ok()) return error_;
  // Counted before taking the lock: *out is the caller's alone.
  const uint64_t out_owned = out->columns.empty() ? 0 : OwnedBytes(*out);
  for (;;) {
    Chunk chunk;
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (!ready_.empty()) {
        Ready r = std::move(ready_.front());
        ready_.pop_front();
        rows_out_ += r.batch.size();
        batches_out_++;
        state_.epoch = r.epoch_after;
        state_.position = r.position_after;
        state_.counts = std::move(r.counts_after);
        state_.absorbed = r.absorbed_after;
        state_.bucketed = std::move(r.bucketed_after);
        state_.rows = rows_out_;
        for (size_t t = 0; t < r.tag_rows.size() && t < tag_rows_.size(); ++t) tag_rows_[t] += r.tag_rows[t];
        if (!out->columns.empty() && spent_.size() < kMaxSpent && !claims_done_ &&
            spent_bytes_ + out_owned <= std::min(kMaxSpentBytes, plan_.queue_bytes / 4)) {
          spent_bytes_ += out_owned;
          spent_.push_back(std::move(*out));
        }
        *out = std::move(r.batch);
        if (tuner_) Tune();
        return true;
      }
      if (finished_) return false;
      const auto t0 = Clock::now();
      Chunk& slot = slots_[consumed_seq_ % slots_.size()];
      consumer_waits_for_ = consumed_seq_;
      consumer_cv_.wait(lock, [&] { return slot.ready || (claims_done_ && consumed_seq_ == claim_seq_) || stop_; });
      consumer_waits_for_ = kNotWaiting;
      wait_ns_ += NanosSince(t0);
      if (!slot.ready) {
        finished_ = true;
        continue;
      }
      chunk = std::move(slot);
      slot = Chunk();
      consumed_seq_++;
      held_bytes_ -= chunk.bytes;
      done_unconsumed_--;
      if (chunk.epoch < consumer_epoch_) {
        // A take ended its epoch before it: not needed, whatever it holds.
        work_cv_.notify_all();
        continue;
      }
    }
    // One slot freed: one blocked worker may claim a task (a worker that
    // finishes one wakes the others again).
    work_cv_.notify_one();
    if (!chunk.status.ok()) {
      error_ = chunk.status;
      return error_;
    }
    Status st = Absorb(std::move(chunk));
    if (!st.ok()) {
      error_ = st;
      return error_;
    }
  }
}

void Runtime::Tune() {
  AutotuneSample sample;
  sample.t_s = static_cast<double>(NanosSince(start_)) * 1e-9;
  sample.rows = rows_out_;
  sample.batches = batches_out_;
  sample.consumer_wait_s = static_cast<double>(wait_ns_.load()) * 1e-9;
  sample.workers_blocked_s = static_cast<double>(blocked_ns_.load()) * 1e-9;
  timespec cpu{};
  if (::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu) == 0) sample.cpu_s = cpu.tv_sec + cpu.tv_nsec * 1e-9;
  const std::optional<AutotuneSetting> next = tuner_->Observe(sample);
  if (!next) return;
  active_workers_ = next->workers;
  depth_ = next->queue_depth;
  work_cv_.notify_all();
  park_cv_.notify_all();
  if (tune_log_) std::fprintf(stderr, "[INFO] MD mindrecord autotune: %s\n", tuner_->decisions().back().c_str());
}

PipelineState Runtime::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

void Runtime::AddSinkTime(double s) { sink_ns_ += static_cast<uint64_t>(s * 1e9); }

PipelineStats Runtime::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  PipelineStats s;
  s.elapsed_s = static_cast<double>(NanosSince(start_)) * 1e-9;
  s.rows = rows_out_;
  s.batches = batches_out_;
  s.rows_skipped = skipped_;
  s.rows_filtered = filtered_;
  s.rows_per_s = s.elapsed_s > 0 ? static_cast<double>(rows_out_) / s.elapsed_s : 0;
  s.batches_gathered = gathered_.load();
  s.io_s = static_cast<double>(io_ns_.load()) * 1e-9;
  s.transform_s = static_cast<double>(transform_ns_.load()) * 1e-9;
  s.workers_blocked_s = static_cast<double>(blocked_ns_.load()) * 1e-9;
  s.consumer_wait_s = static_cast<double>(wait_ns_.load()) * 1e-9;
  s.sink_s = static_cast<double>(sink_ns_.load()) * 1e-9;
  s.io_mode = io_mode_;
  s.shard_io_modes = shard_io_modes_;
  s.num_workers = active_workers_;
  s.queue_depth = depth_;
  if (tuner_) {
    s.autotune = true;
    s.autotune_max_workers = tuner_->max_workers();
    s.autotune_changes = tuner_->num_decisions();
    s.autotune_decisions = tuner_->decisions();
  }
  s.in_flight = static_cast<uint32_t>(claim_seq_ - consumed_seq_);
  s.max_in_flight = max_in_flight_;
  s.queue_bytes = plan_.queue_bytes;
  s.bytes_in_queue = held_bytes_;
  s.max_bytes_in_queue = max_held_bytes_;
  s.skipped_errors = skipped_errors_;
  for (const auto& m : tree_.mixes) {
    s.mix_rows.emplace_back(tag_rows_.begin() + m.tag_base, tag_rows_.begin() + m.tag_base + m.inputs);
  }
  for (const auto& c : tree_.caches) s.caches.push_back(c->counters());
  return s;
}

}  // namespace mindrecord
