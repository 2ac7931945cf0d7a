#include "pipeline/runtime.h"

#include <algorithm>
#include <optional>

#include "pipeline/op_registry.h"

namespace mindrecord {

namespace {
using Clock = std::chrono::steady_clock;
uint64_t NanosSince(Clock::time_point t) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count());
}
constexpr size_t kMaxReportedErrors = 16;

uint64_t TensorBytes(const std::vector<Tensor>& ts) {
  uint64_t n = 0;
  for (const auto& t : ts) n += t.size_bytes();
  return n;
}
}  // namespace

Result<std::unique_ptr<Runtime>> Runtime::Build(const Plan& plan, const PipelineState* resume,
                                                BatchAllocator alloc) {
  std::unique_ptr<Runtime> rt(new Runtime());
  rt->alloc_ = std::move(alloc);
  MR_RETURN_IF_ERROR(rt->Init(plan, resume));
  return rt;
}

Status Runtime::Init(const Plan& plan, const PipelineState* resume) {
  plan_ = plan;
  start_ = Clock::now();
  if (plan_.source.empty()) return Status::InvalidArgument("plan: 'source' names no shard file");
  if (plan_.batch.batch_size == 0) return Status::InvalidArgument("plan: 'batch.batch_size' must be >= 1");
  if (plan_.num_workers == 0 || plan_.queue_depth == 0) {
    return Status::InvalidArgument("plan: 'num_workers' and 'queue_depth' must be >= 1");
  }
  if (!plan_.read.shard_paths.empty()) {
    return Status::InvalidArgument("plan: read.shard_paths is not used by a pipeline: name the files in 'source'");
  }
  MR_ASSIGN_OR_RETURN(reader_, ShardReader::Open(plan_.source[0], plan_.ReaderOptionsForSource()));
  bool any_pread = false;
  for (uint32_t s = 0; s < reader_->num_shards(); ++s) {
    const std::string mode = IoModeName(reader_->shard_io_mode(s));
    any_pread = any_pread || reader_->shard_io_mode(s) == IoMode::kPread;
    io_mode_ = s == 0 || io_mode_ == mode ? mode : "mixed";
    shard_io_modes_.push_back(mode);
  }

  // Direct scans read only the rows' span of a page once it is verified, and
  // mapped pages cost nothing to touch, so any run is worth a scan there.
  if (any_pread && reader_->num_rows() > 0) {
    // Scan pays for the whole pages it touches: use it when the run's bytes
    // are at least a quarter of an average page.
    uint64_t bytes = 0, pages = 0;
    for (uint32_t s = 0; s < reader_->num_shards(); ++s) {
      for (const auto& pg : reader_->header(s).pages) {
        bytes += pg.used_bytes;
        pages++;
      }
    }
    const double per_row = static_cast<double>(bytes) / static_cast<double>(reader_->num_rows());
    const double per_page = pages ? static_cast<double>(bytes) / static_cast<double>(pages) : 0;
    scan_min_rows_ = std::max<uint64_t>(2, static_cast<uint64_t>(per_page / 4 / std::max(per_row, 1.0)));
  }
  const Schema& schema = reader_->schema();
  names_ = plan_.columns;
  if (names_.empty()) {
    for (const auto& f : schema.fields()) names_.push_back(f.name);
  }
  MR_ASSIGN_OR_RETURN(projection_, reader_->MakeProjection(names_));
  for (const auto& n : names_) {
    const Field* f = schema.Find(n);
    if (f == nullptr) return Status::NotFound("plan: column '" + n + "' is not in the schema");
    types_.push_back(f->type);
    const auto& ids = projection_.field_ids;
    view_slot_.push_back(static_cast<size_t>(std::lower_bound(ids.begin(), ids.end(), schema.FieldIndex(n)) - ids.begin()));
  }
  ops_.resize(names_.size());
  for (const auto& [col, specs] : plan_.ops) {
    auto it = std::find(names_.begin(), names_.end(), col);
    if (it == names_.end()) return Status::InvalidArgument("plan: ops given for column '" + col + "', which is not read");
    auto ops = BuildColumnOps(specs);
    if (!ops.ok()) return ops.status().WithContext("plan: ops of column '" + col + "'");
    ops_[it - names_.begin()] = std::move(ops).value();
    any_ops_ = any_ops_ || !ops_[it - names_.begin()].empty();
  }
  data_rows_ = reader_->num_rows();
  if (!plan_.padded.is_null()) {
    MR_ASSIGN_OR_RETURN(padded_, ParsePadded(plan_.padded, schema, names_));
  }
  auto sampler = MakeSampler(plan_.sampler, LayoutOf(*reader_, padded_.count));
  if (!sampler.ok()) return sampler.status().WithContext("plan");
  sampler_ = std::move(sampler).value();
  epoch_size_ = sampler_->size();
  fingerprint_ = plan_.SequenceFingerprint();

  state_.seed = plan_.seed;
  state_.fingerprint = fingerprint_;
  if (resume != nullptr) {
    if (resume->fingerprint != fingerprint_ || resume->seed != plan_.seed) {
      return Status::InvalidArgument(
          "resume state belongs to another plan (source, columns, sampler, ops, batch, seed or on_error differ)");
    }
    if (resume->position > epoch_size_) {
      return Status::InvalidArgument("resume state: position " + std::to_string(resume->position) +
                                     " is past the epoch's " + std::to_string(epoch_size_) + " rows");
    }
    state_ = *resume;
    if (epoch_size_ > 0 && state_.position == epoch_size_) {
      state_.epoch++;
      state_.position = 0;
    }
  }
  claim_epoch_ = state_.epoch;
  claim_pos_ = state_.position;
  carry_epoch_ = state_.epoch;
  ragged_ = std::make_unique<std::atomic<bool>[]>(names_.size());
  slots_.resize(plan_.queue_depth);
  for (uint32_t i = 0; i < plan_.num_workers; ++i) workers_.emplace_back([this] { WorkerLoop(); });
  return Status::OK();
}

Runtime::~Runtime() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  consumer_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

Result<std::shared_ptr<const std::vector<uint64_t>>> Runtime::EpochIds(uint64_t epoch) {
  auto it = epoch_ids_.find(epoch);
  if (it != epoch_ids_.end()) return it->second;
  MR_ASSIGN_OR_RETURN(std::vector<uint64_t> ids, sampler_->Epoch(plan_.seed, epoch));
  if (ids.size() != epoch_size_) return Status::Internal("sampler returned a different count than its size()");
  const uint64_t rows = data_rows_ + padded_.count;
  for (uint64_t id : ids) {
    if (id >= rows) return Status::Internal("sampler returned row id " + std::to_string(id) + " past the dataset");
  }
  auto p = std::make_shared<const std::vector<uint64_t>>(std::move(ids));
  // Keep this epoch and the one before (tasks in flight hold their own reference).
  while (!epoch_ids_.empty() && epoch_ids_.begin()->first + 1 < epoch) epoch_ids_.erase(epoch_ids_.begin());
  epoch_ids_[epoch] = p;
  return p;
}

Runtime::Claim Runtime::ClaimWork(Task* task, SharedRows** help) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (stop_) return Claim::kStop;
    if (!claims_done_) {
      if (epoch_size_ > 0 && claim_pos_ >= epoch_size_) {
        claim_epoch_++;
        claim_pos_ = 0;
      }
      if (epoch_size_ == 0 || (plan_.epochs != 0 && claim_epoch_ >= plan_.epochs)) {
        claims_done_ = true;
        consumer_cv_.notify_all();
      }
    }
    if (!claims_done_ && MayClaim()) break;
    // Nothing to claim (for now): help with a task's rows instead of waiting.
    for (SharedRows* w : open_) {
      if (w->next.load(std::memory_order_relaxed) < w->raw->size()) {
        w->helpers++;
        *help = w;
        return Claim::kHelp;
      }
    }
    // No task will ever open again: done.
    if (claims_done_ && reading_ == 0 && open_.empty()) return Claim::kStop;
    const auto t0 = Clock::now();
    work_cv_.wait(lock);
    blocked_ns_ += NanosSince(t0);
  }
  task->seq = claim_seq_++;
  task->epoch = claim_epoch_;
  task->begin = claim_pos_;
  task->end = std::min(epoch_size_, claim_pos_ + plan_.batch.batch_size);
  claim_pos_ = task->end;
  auto ids = EpochIds(task->epoch);
  task->status = ids.status();
  task->ids = ids.ok() ? ids.value() : nullptr;
  max_in_flight_ = std::max<uint32_t>(max_in_flight_, static_cast<uint32_t>(claim_seq_ - consumed_seq_));
  reading_++;
  return Claim::kTask;
}

void Runtime::Help(SharedRows* w) {
  const auto t0 = Clock::now();
  for (size_t i; (i = w->next.fetch_add(1, std::memory_order_relaxed)) < w->raw->size();) {
    w->done[i] = Transform(w->task->epoch, &(*w->raw)[i], nullptr);
  }
  transform_ns_ += NanosSince(t0);
  std::lock_guard<std::mutex> lock(mu_);
  if (--w->helpers == 0) helpers_cv_.notify_all();
}

bool Runtime::MayClaim() const {
  const uint64_t in_flight = claim_seq_ - consumed_seq_;
  if (in_flight == 0) return true;  // the task the consumer needs next
  if (in_flight >= plan_.queue_depth) return false;
  // Until a chunk is finished its size is unknown: each worker prepares one.
  if (est_chunk_bytes_ == 0) return true;
  if (held_bytes_ >= plan_.queue_bytes) return false;
  const uint64_t preparing = in_flight - done_unconsumed_;
  return preparing + 1 <= (plan_.queue_bytes - held_bytes_) / est_chunk_bytes_;
}

void Runtime::WorkerLoop() {
  Task task;
  for (;;) {
    SharedRows* help = nullptr;
    const Claim claim = ClaimWork(&task, &help);
    if (claim == Claim::kStop) return;
    if (claim == Claim::kHelp) {
      Help(help);
      continue;
    }
    Chunk chunk = RunTask(task);
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    chunk.ready = true;
    // The estimate follows the largest recent chunks up at once and down
    // slowly, so a run of small batches does not let big ones overshoot.
    est_chunk_bytes_ = std::max(chunk.bytes, est_chunk_bytes_ - est_chunk_bytes_ / 4 + chunk.bytes / 4);
    held_bytes_ += chunk.bytes;
    max_held_bytes_ = std::max(max_held_bytes_, held_bytes_);
    done_unconsumed_++;
    slots_[task.seq % slots_.size()] = std::move(chunk);
    consumer_cv_.notify_all();
    work_cv_.notify_all();
  }
}

std::string Runtime::Where(uint64_t row_id) const {
  std::string where = "row " + std::to_string(row_id);
  if (row_id >= data_rows_) {
    where += " (padded sample " + std::to_string(row_id - data_rows_) + ")";
  } else if (auto loc = reader_->Locate(row_id); loc.ok()) {
    where += " (shard " + std::to_string(loc->shard) + " '" + reader_->shard_paths()[loc->shard] + "', local row " +
             std::to_string(loc->local_row) + ")";
  }
  return where;
}

Status Runtime::BatchTooLarge(const Task& task, uint64_t row_id, uint64_t bytes, const char* what) const {
  return Status::InvalidArgument(
      "the batch of epoch " + std::to_string(task.epoch) + " positions [" + std::to_string(task.begin) + ", " +
      std::to_string(task.end) + ") holds " + std::to_string(bytes) + " bytes " + what + " at " + Where(row_id) +
      ", more than max_batch_bytes (" + std::to_string(plan_.max_batch_bytes) +
      "): rows far larger than expected (e.g. blobs that decompress to much more than they store), or a limit "
      "too low for this data (raise max_batch_bytes or lower batch_size)");
}

Status Runtime::RowError(uint64_t row_id, const Status& st, Chunk* chunk) const {
  Status ctx = st.WithContext(Where(row_id));
  if (plan_.on_error == ErrorPolicy::kFail) return ctx;
  chunk->skipped++;
  if (chunk->errors.size() < kMaxReportedErrors) chunk->errors.push_back(ctx.ToString());
  return Status::OK();
}

Status Runtime::ColumnsOf(const RowView& view, std::vector<Tensor>* out) const {
  out->clear();
  out->reserve(names_.size());
  for (size_t c = 0; c < names_.size(); ++c) {
    const FieldView& f = view[view_slot_[c]];
    if (f.kind == Value::Kind::kNull) return Status::Corruption("column '" + names_[c] + "' missing from the row");
    out->push_back(Tensor::FromFieldView(f, view.mapping()));
  }
  return Status::OK();
}

Status Runtime::ColumnsOf(const Row& row, std::vector<Tensor>* out) const {
  out->clear();
  out->reserve(names_.size());
  for (size_t c = 0; c < names_.size(); ++c) {
    const Value* v = row.Find(names_[c]);
    if (v == nullptr || v->is_null()) return Status::Corruption("column '" + names_[c] + "' missing from the row");
    out->push_back(Tensor::FromValue(*v, types_[c]));
  }
  return Status::OK();
}

Status Runtime::ReadRows(const Task& task, std::vector<RowTensors>* rows, Chunk* chunk) {
  const std::vector<uint64_t>& ids = *task.ids;
  // Bytes of the rows read so far, checked against max_batch_bytes as each
  // arrives (a row itself is bounded by the reader's per-row limits). Views
  // count as the copies they replace (RowView::value_bytes).
  uint64_t read_bytes = 0;
  Status too_large;
  auto count = [&](uint64_t row_id, uint64_t bytes) {
    read_bytes += bytes;
    if (read_bytes > plan_.max_batch_bytes) too_large = BatchTooLarge(task, row_id, read_bytes, "once read");
    return too_large;
  };
  // A row read as a view becomes its column tensors at once (the view's
  // bytes are valid only until the reader's callback returns, or, when
  // mapped, while the mapping lives, which the tensors then hold).
  auto add = [&](uint64_t pos, uint64_t row_id, const RowView& view) -> Status {
    MR_RETURN_IF_ERROR(count(row_id, view.value_bytes()));
    RowTensors r;
    r.row_id = row_id;
    r.position = pos;
    Status st = ColumnsOf(view, &r.columns);
    if (!st.ok()) return RowError(row_id, st, chunk);
    rows->push_back(std::move(r));
    return Status::OK();
  };
  // Positions not in a run worth scanning, read together by one
  // ShardReader::ReadRowViews call (on a direct shard: several reads in flight).
  std::vector<uint64_t> single_pos, single_ids;
  uint64_t i = task.begin;
  while (i < task.end) {
    if (ids[i] >= data_rows_) {
      RowTensors r;
      r.row_id = ids[i];
      r.position = i;
      MR_RETURN_IF_ERROR(count(ids[i], padded_.row.value_bytes()));
      Status st = ColumnsOf(padded_.row, &r.columns);
      if (st.ok()) rows->push_back(std::move(r));
      else MR_RETURN_IF_ERROR(RowError(ids[i], st, chunk));
      ++i;
      continue;
    }
    uint64_t j = i + 1;
    while (j < task.end && ids[j] == ids[j - 1] + 1 && ids[j] < data_rows_) ++j;
    if (j - i >= scan_min_rows_) {
      // A run of consecutive rows: one sequential scan reads their pages once.
      const size_t mark = rows->size();
      const uint64_t first = ids[i];
      const auto t0 = Clock::now();
      const uint64_t mark_bytes = read_bytes;
      const uint64_t mark_skipped = chunk->skipped;
      const size_t mark_errors = chunk->errors.size();
      Status st = reader_->ScanViews(first, ids[j - 1] + 1, &projection_, [&](uint64_t row_id, const RowView& v) {
        return add(i + (row_id - first), row_id, v);
      });
      io_ns_ += NanosSince(t0);
      if (!too_large.ok()) return too_large;
      if (st.ok()) {
        i = j;
        continue;
      }
      // Read the run row by row to pin down the bad row(s).
      read_bytes = mark_bytes;
      chunk->skipped = mark_skipped;
      chunk->errors.resize(mark_errors);
      rows->resize(mark);
    }
    for (uint64_t k = i; k < j; ++k) {
      single_pos.push_back(k);
      single_ids.push_back(ids[k]);
    }
    i = j;
  }
  if (single_ids.empty()) return Status::OK();
  const auto t0 = Clock::now();
  Status st = reader_->ReadRowViews(single_ids, &projection_, [&](size_t n, const Status& s, const RowView& v) {
    if (!s.ok()) return RowError(single_ids[n], s, chunk);
    return add(single_pos[n], single_ids[n], v);
  });
  io_ns_ += NanosSince(t0);
  MR_RETURN_IF_ERROR(st);
  auto by_pos = [](const RowTensors& a, const RowTensors& b) { return a.position < b.position; };
  if (!std::is_sorted(rows->begin(), rows->end(), by_pos)) {
    std::sort(rows->begin(), rows->end(), by_pos);
  }
  return Status::OK();
}

Status Runtime::Transform(uint64_t epoch, RowTensors* row, BatchBuilder* builder) const {
  if (!any_ops_) return Status::OK();
  // Made at the first op: seeding an mt19937_64 costs ~3k instructions, more
  // than reading a 1 KiB row, and rows without ops never use it.
  std::optional<std::mt19937_64> rng;
  for (size_t c = 0; c < names_.size(); ++c) {
    Tensor& t = row->columns[c];
    for (size_t k = 0; k < ops_[c].size(); ++k) {
      const TensorOp& op = *ops_[c][k];
      if (!rng) rng.emplace();
      if (op.is_random()) rng->seed(MixSeed({plan_.seed, epoch, row->position, c, k}));
      // The last op may write straight into the row's place in the batch.
      const OutputSlot* slot = builder && k + 1 == ops_[c].size() ? builder->Slot(c) : nullptr;
      auto r = slot ? op.ApplyInto(std::move(t), *rng, *slot) : op.Apply(std::move(t), *rng);
      if (!r.ok()) return r.status().WithContext("column '" + names_[c] + "', op " + op.name());
      t = std::move(r).value();
    }
  }
  return Status::OK();
}

Runtime::Chunk Runtime::RunTask(const Task& task) {
  Chunk c;
  c.epoch = task.epoch;
  c.begin = task.begin;
  c.end = task.end;
  c.last_in_epoch = task.end == epoch_size_;
  std::vector<RowTensors> raw;
  SharedRows shared;
  if (task.status.ok()) {
    raw.reserve(task.end - task.begin);
    c.status = ReadRows(task, &raw, &c);
  } else {
    c.status = task.status;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    reading_--;
    if (c.status.ok() && raw.size() > 1 && any_ops_) {
      // The rows are open to idle workers from here on.
      shared.task = &task;
      shared.raw = &raw;
      shared.done.resize(raw.size());
      open_.push_back(&shared);
      work_cv_.notify_all();
    } else if (claims_done_ && reading_ == 0) {
      work_cv_.notify_all();  // idle workers waiting for rows to open may stop
    }
  }
  if (!c.status.ok()) return c;
  const auto t0 = Clock::now();
  // Each row is batched as soon as it is transformed (see BatchBuilder);
  // columns seen ragged before are kept per row from the start.
  std::vector<bool> stream(names_.size());
  for (size_t k = 0; k < names_.size(); ++k) stream[k] = c.skipped == 0 && !ragged_[k].load(std::memory_order_relaxed);
  BatchBuilder builder(names_, raw.size(), task.epoch, plan_.batch, alloc_, std::move(stream));
  // Batches row `i` once transformed by `t`, applying the byte cap and the
  // error policy.
  auto accept = [&](size_t i, const Status& t) {
    RowTensors& row = raw[i];
    const uint64_t row_id = row.row_id;
    if (!t.ok()) {
      row = RowTensors();
      return RowError(row_id, t, &c);
    }
    c.bytes += TensorBytes(row.columns);
    if (c.bytes > plan_.max_batch_bytes) return BatchTooLarge(task, row_id, c.bytes, "once transformed");
    return builder.Add(std::move(row));
  };
  // Rows [0, added) are batched; rows past a helper's wait in `done` first.
  size_t added = 0;
  for (size_t i; c.status.ok() && (i = shared.next.fetch_add(1, std::memory_order_relaxed)) < raw.size();) {
    if (i == added) {
      c.status = accept(i, Transform(task.epoch, &raw[i], &builder));
      added++;
    } else {
      shared.done[i] = Transform(task.epoch, &raw[i], nullptr);
    }
  }
  if (shared.raw) {
    // Close the task (no more claims) and wait for its helpers' rows.
    shared.next.store(raw.size(), std::memory_order_relaxed);
    std::unique_lock<std::mutex> lock(mu_);
    open_.erase(std::find(open_.begin(), open_.end(), &shared));
    helpers_cv_.wait(lock, [&] { return shared.helpers == 0; });
  }
  for (; c.status.ok() && added < raw.size(); ++added) {
    if (!shared.done[added]) return c.status = Status::Internal("a row of the task was never transformed"), c;
    c.status = accept(added, *shared.done[added]);
  }
  if (c.status.ok()) {
    if (c.skipped == 0 && builder.size() > 0) {
      for (size_t k = 0; k < names_.size(); ++k)
        if (!builder.streamed(k)) ragged_[k].store(true, std::memory_order_relaxed);
      auto b = std::move(builder).Finish();
      if (b.ok()) c.batch = std::move(b).value();
      else c.status = b.status();
    } else {
      c.rows = std::move(builder).TakeRows();
    }
  }
  transform_ns_ += NanosSince(t0);
  return c;
}

Status Runtime::Absorb(Chunk&& c) {
  const uint64_t bs = plan_.batch.batch_size;
  const bool drop = plan_.batch.drop_remainder;
  const uint64_t next_epoch = c.last_in_epoch ? c.epoch + 1 : c.epoch;
  const uint64_t next_pos = c.last_in_epoch ? 0 : c.end;
  std::lock_guard<std::mutex> lock(mu_);
  skipped_ += c.skipped;
  for (auto& e : c.errors) {
    if (skipped_errors_.size() < kMaxReportedErrors) skipped_errors_.push_back(std::move(e));
  }
  if (carry_.empty() && c.batch) {
    if (c.batch->size() == bs || !drop) ready_.push_back(Ready{std::move(*c.batch), next_epoch, next_pos});
    return Status::OK();
  }
  std::vector<RowTensors> rows = c.batch ? SplitBatch(std::move(*c.batch)) : std::move(c.rows);
  carry_epoch_ = c.epoch;
  for (auto& r : rows) carry_.push_back(std::move(r));
  while (carry_.size() >= bs) {
    std::vector<RowTensors> take(std::make_move_iterator(carry_.begin()), std::make_move_iterator(carry_.begin() + bs));
    carry_.erase(carry_.begin(), carry_.begin() + bs);
    MR_ASSIGN_OR_RETURN(Batch b, AssembleBatch(names_, std::move(take), c.epoch, plan_.batch, alloc_));
    if (carry_.empty()) ready_.push_back(Ready{std::move(b), next_epoch, next_pos});
    else ready_.push_back(Ready{std::move(b), c.epoch, carry_.front().position});
  }
  if (c.last_in_epoch && !carry_.empty()) {
    std::vector<RowTensors> rest = std::move(carry_);
    carry_.clear();
    if (!drop) {
      MR_ASSIGN_OR_RETURN(Batch b, AssembleBatch(names_, std::move(rest), c.epoch, plan_.batch, alloc_));
      ready_.push_back(Ready{std::move(b), next_epoch, next_pos});
    }
  }
  return Status::OK();
}

Result<bool> Runtime::Next(Batch* out) {
  if (!error_.ok()) return error_;
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
        state_.rows = rows_out_;
        *out = std::move(r.batch);
        return true;
      }
      if (finished_) return false;
      const auto t0 = Clock::now();
      Chunk& slot = slots_[consumed_seq_ % slots_.size()];
      consumer_cv_.wait(lock, [&] { return slot.ready || (claims_done_ && consumed_seq_ == claim_seq_) || stop_; });
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
    }
    work_cv_.notify_all();
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
  s.rows_per_s = s.elapsed_s > 0 ? static_cast<double>(rows_out_) / s.elapsed_s : 0;
  s.io_s = static_cast<double>(io_ns_.load()) * 1e-9;
  s.transform_s = static_cast<double>(transform_ns_.load()) * 1e-9;
  s.workers_blocked_s = static_cast<double>(blocked_ns_.load()) * 1e-9;
  s.consumer_wait_s = static_cast<double>(wait_ns_.load()) * 1e-9;
  s.sink_s = static_cast<double>(sink_ns_.load()) * 1e-9;
  s.io_mode = io_mode_;
  s.shard_io_modes = shard_io_modes_;
  s.num_workers = plan_.num_workers;
  s.queue_depth = plan_.queue_depth;
  s.in_flight = static_cast<uint32_t>(claim_seq_ - consumed_seq_);
  s.max_in_flight = max_in_flight_;
  s.queue_bytes = plan_.queue_bytes;
  s.bytes_in_queue = held_bytes_;
  s.max_bytes_in_queue = max_held_bytes_;
  s.skipped_errors = skipped_errors_;
  return s;
}

}  // namespace mindrecord
