#include "pipeline/runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <optional>

#include "mindrecord/prefetch.h"
#include "pipeline/interpreter_lock.h"

namespace mindrecord {

namespace {
using Clock = std::chrono::steady_clock;
constexpr size_t kDirect = SIZE_MAX;  // a read into the row's columns (its only read)

// The source of a row's first read: the row named in errors.
uint32_t FirstSource(const RowProgram& prog) {
  for (const Instr& in : prog)
    if (in.kind == Instr::Kind::kRead) return in.arg;
  return 0;
}

uint64_t TensorBytes(const std::vector<Tensor>& ts) {
  uint64_t n = 0;
  for (const auto& t : ts) n += t.size_bytes();
  return n;
}

uint64_t TensorBytes(const Batch& b) {
  uint64_t n = 0;
  for (const auto& c : b.columns) n += c.data.size_bytes() + TensorBytes(c.list);
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
  if (plan_.tree.is_null() && plan_.source.empty()) return Status::InvalidArgument("plan: 'source' names no shard file");
  if (plan_.batch.batch_size == 0) return Status::InvalidArgument("plan: 'batch.batch_size' must be >= 1");
  if (plan_.num_workers == 0 || plan_.queue_depth == 0) {
    return Status::InvalidArgument("plan: 'num_workers' and 'queue_depth' must be >= 1");
  }
  if (!plan_.read.shard_paths.empty()) {
    return Status::InvalidArgument("plan: read.shard_paths is not used by a pipeline: name the files in 'source'");
  }
  MR_ASSIGN_OR_RETURN(tree_, CompileTree(plan_.Tree(), plan_.read, plan_.seed, plan_.on_error == ErrorPolicy::kSkip));
  for (const auto& src : tree_.sources) {
    const std::string mode = src->io_mode();
    if (mode.empty()) continue;
    io_mode_ = io_mode_.empty() || io_mode_ == mode ? mode : "mixed";
    for (const auto& m : src->shard_io_modes()) shard_io_modes_.push_back(m);
  }
  // The worker makes whole batches unless the consumer counts rows, or must
  // number the batches of a per_batch_map after rows went missing.
  worker_batches_ = tree_.row_stream.empty() && !(tree_.drops_rows && tree_.batch_map) && !tree_.bucket &&
                    !tree_.batch_size_map;
  counting_ = !tree_.row_stream.empty() || !tree_.batch_stream.empty() || (tree_.batch_map && tree_.drops_rows) ||
              tree_.batch_size_map;
  // Batches of rows taken from in-memory arrays as they are (no steps, one
  // source, nothing padded or counted per row) are gathered by the source
  // straight into the batch's buffers. (Unbatched rows stay views of them.)
  if (worker_batches_ && tree_.batch.batch_size > 1 && tree_.steps.empty() && tree_.caches.empty() && tree_.num_tags == 0 && !tree_.batch_map &&
      !tree_.drops_rows && tree_.sources.size() == 1 && tree_.batch.ragged.empty() &&
      plan_.on_error == ErrorPolicy::kFail) {
    gather_rows_ = tree_.sources[0]->FixedRows();
    if (gather_rows_.size() != tree_.root->columns().size()) gather_rows_.clear();
  }
  row_counts_.assign(tree_.row_stream.size(), 0);
  batch_counts_.assign(tree_.batch_stream.size(), 0);
  tag_rows_.assign(tree_.num_tags, 0);
  last_epoch_ = plan_.epochs * tree_.passes;
  fingerprint_ = plan_.SequenceFingerprint();

  state_.seed = plan_.seed;
  state_.fingerprint = fingerprint_;
  if (counting_) state_.counts = ZeroCounts();
  if (resume != nullptr) {
    if (resume->fingerprint != fingerprint_ || resume->seed != plan_.seed) {
      return Status::InvalidArgument(
          "resume state belongs to another plan (source, columns, sampler, ops, batch, seed or on_error differ)");
    }
    MR_ASSIGN_OR_RETURN(uint64_t size, tree_.root->Size(resume->epoch));
    if (resume->position > size) {
      return Status::InvalidArgument("resume state: position " + std::to_string(resume->position) +
                                     " is past the epoch's " + std::to_string(size) + " rows");
    }
    state_ = *resume;
    if (!counting_ && !state_.counts.empty()) {
      return Status::InvalidArgument("resume state: it has counts, which this plan does not keep");
    }
    if (counting_ && state_.counts.empty()) {
      if (state_.position != 0) return Status::InvalidArgument("resume state: it lacks the counts this plan keeps");
      state_.counts = ZeroCounts();
    }
    if (!tree_.bucket && state_.absorbed != 0) {
      return Status::InvalidArgument("resume state: it has rows in buckets, and this plan batches by no bucket");
    }
    if (state_.absorbed > size) {
      return Status::InvalidArgument("resume state: 'absorbed' " + std::to_string(state_.absorbed) +
                                     " is past the epoch's " + std::to_string(size) + " rows");
    }
    if (tree_.bucket) {
      uint64_t held = 0;
      for (uint64_t b : tree_.bucket->batch_sizes) held += b - 1;
      if (state_.bucketed.size() > held) {
        return Status::InvalidArgument("resume state: " + std::to_string(state_.bucketed.size()) +
                                       " rows in buckets, more than the buckets hold (" + std::to_string(held) + ")");
      }
    }
    if (state_.counts.size() != NumCounts()) {
      return Status::InvalidArgument("resume state: " + std::to_string(state_.counts.size()) + " counts, the plan keeps " +
                                     std::to_string(NumCounts()));
    }
    std::lock_guard<std::mutex> lock(mu_);
    MR_ASSIGN_OR_RETURN(uint64_t end, ClaimEnd(state_.epoch));
    if (end > 0 && state_.position >= end) {
      // Only a dropped remainder is left of that epoch.
      state_.epoch++;
      state_.position = 0;
      state_.counts = ZeroCounts();
      state_.absorbed = 0;
      state_.bucketed.clear();
    }
    // Rows the consumer took before the state: those not in buckets are dropped when read again.
    replay_end_ = absorbed_ = state_.absorbed;
    replay_keep_ = state_.bucketed;
    if (counting_) {
      for (size_t k = 0; k < row_counts_.size(); ++k) row_counts_[k] = state_.counts[k];
      epoch_batches_ = state_.counts[row_counts_.size()];
      for (size_t k = 0; k < batch_counts_.size(); ++k) batch_counts_[k] = state_.counts[row_counts_.size() + 1 + k];
    }
  }
  claim_epoch_ = state_.epoch;
  claim_pos_ = state_.position;
  consumer_epoch_ = state_.epoch;
  ragged_ = std::make_unique<std::atomic<bool>[]>(tree_.root->columns().size());
  if (tree_.bucket) buckets_.resize(tree_.bucket->num_buckets());
  uint32_t threads = plan_.num_workers;
  active_workers_ = plan_.num_workers;
  depth_ = plan_.queue_depth;
  if (plan_.autotune.enabled) {
    // The budget's threads, or num_workers when it asks for more: autotune
    // starts where the plan does and only keeps what measurably pays.
    const uint32_t budget = plan_.autotune.cpu_budget != 0 ? plan_.autotune.cpu_budget : AffinityCores();
    threads = std::max(budget, plan_.num_workers);
    const uint32_t slots = std::max<uint32_t>(plan_.queue_depth, 2 * threads);
    tuner_ = std::make_unique<Autotuner>(plan_.autotune, threads, slots, plan_.num_workers, budget);
    active_workers_ = tuner_->setting().workers;
    depth_ = tuner_->setting().queue_depth;
    slots_.resize(slots);
    // MindSpore's verbosity variable: its INFO level (GLOG_v 0 or 1) shows autotune's decisions.
    const char* v = std::getenv("GLOG_v");
    tune_log_ = v != nullptr && (v[0] == '0' || v[0] == '1') && v[1] == '\0';
  } else {
    slots_.resize(plan_.queue_depth);
  }
  spent_.reserve(kMaxSpent);
  for (uint32_t i = 0; i < threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
  return Status::OK();
}

Runtime::~Runtime() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  park_cv_.notify_all();
  consumer_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

bool Runtime::OnWorkerThread() const {
  const auto self = std::this_thread::get_id();
  for (const auto& t : workers_)
    if (t.get_id() == self) return true;
  return false;
}

Result<uint64_t> Runtime::ClaimEnd(uint64_t epoch) {
  auto it = claim_ends_.find(epoch);
  if (it != claim_ends_.end()) return it->second;
  MR_ASSIGN_OR_RETURN(uint64_t n, tree_.root->Size(epoch));
  // Rows of a dropped remainder are never read (when none can go missing,
  // the remainder is known in advance).
  if (tree_.batch.drop_remainder && !tree_.drops_rows && tree_.row_stream.empty() && !tree_.bucket &&
      !tree_.batch_size_map) {
    n = n / tree_.batch.batch_size * tree_.batch.batch_size;
  }
  while (!claim_ends_.empty() && claim_ends_.begin()->first + 1 < epoch) claim_ends_.erase(claim_ends_.begin());
  claim_ends_[epoch] = n;
  return n;
}

Runtime::Claim Runtime::ClaimWork(uint32_t index, Task* task, SharedRows** help) {
  ReleaseInterpreterLock();  // the wait below may be for a thread that needs it
  std::unique_lock<std::mutex> lock(mu_);
  Status size_error;
  for (;;) {
    if (stop_) return Claim::kStop;
    if (index >= active_workers_) {
      // Parked by autotune: not counted as blocked (it is not working).
      park_cv_.wait(lock);
      continue;
    }
    if (!claims_done_) {
      auto end = ClaimEnd(claim_epoch_);
      if (end.ok() && *end > 0 && claim_pos_ >= *end) {
        claim_epoch_++;
        claim_pos_ = 0;
        end = last_epoch_ != 0 && claim_epoch_ >= last_epoch_ ? Result<uint64_t>(uint64_t{0}) : ClaimEnd(claim_epoch_);
      }
      if (last_epoch_ != 0 && claim_epoch_ >= last_epoch_) {
        claims_done_ = true;
      } else if (!end.ok()) {
        size_error = end.status();  // handed to the consumer as the next task's error
        claims_done_ = true;
        break;
      } else if (*end == 0) {
        claims_done_ = true;  // an epoch without rows ends the run
      }
      if (claims_done_) consumer_cv_.notify_all();
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
  task->status = size_error;
  if (size_error.ok()) {
    const uint64_t end = *ClaimEnd(claim_epoch_);
    task->end = std::min(end, claim_pos_ + tree_.batch.batch_size);
    task->last_in_epoch = task->end == end;
  } else {
    task->end = task->begin;
    task->last_in_epoch = true;
  }
  claim_pos_ = task->end;
  max_in_flight_ = std::max<uint32_t>(max_in_flight_, static_cast<uint32_t>(claim_seq_ - consumed_seq_));
  reading_++;
  return Claim::kTask;
}

void Runtime::Help(SharedRows* w) {
  const auto t0 = Clock::now();
  for (size_t i; (i = w->next.fetch_add(1, std::memory_order_relaxed)) < w->raw->size();) {
    w->done[i] = Transform(&(*w->raw)[i], nullptr);
  }
  ReleaseInterpreterLock();
  transform_ns_ += NanosSince(t0);
  std::lock_guard<std::mutex> lock(mu_);
  if (--w->helpers == 0) helpers_cv_.notify_all();
}

bool Runtime::MayClaim() const {
  const uint64_t in_flight = claim_seq_ - consumed_seq_;
  if (in_flight == 0) return true;  // the task the consumer needs next
  if (in_flight >= depth_) return false;
  // Until a chunk is finished its size is unknown: each worker prepares one.
  if (est_chunk_bytes_ == 0) return true;
  if (held_bytes_ >= plan_.queue_bytes) return false;
  const uint64_t preparing = in_flight - done_unconsumed_;
  return preparing + 1 <= (plan_.queue_bytes - held_bytes_) / est_chunk_bytes_;
}

void Runtime::WorkerLoop(uint32_t index) {
  Task task;
  for (;;) {
    SharedRows* help = nullptr;
    const Claim claim = ClaimWork(index, &task, &help);
    if (claim == Claim::kStop) return;
    if (claim == Claim::kHelp) {
      Help(help);
      continue;
    }
    Chunk chunk = RunTask(task);
    ReleaseInterpreterLock();
    std::vector<Batch> spent;  // released after the lock (declared before it)
    std::vector<RowTensors> spent_rows;
    bool wake_consumer = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
      for (Batch& b : spent_) spent.push_back(std::move(b));
      spent_.clear();
      spent_rows.swap(spent_rows_);
      spent_bytes_ = 0;
      chunk.ready = true;
      // A failed task ends the run at its place: the consumer stops there, so
      // no task after it is claimed (those claimed before it still finish).
      if (!chunk.status.ok()) claims_done_ = true;
      // The estimate follows the largest recent chunks up at once and down
      // slowly, so a run of small batches does not let big ones overshoot.
      est_chunk_bytes_ = std::max(chunk.bytes, est_chunk_bytes_ - est_chunk_bytes_ / 4 + chunk.bytes / 4);
      held_bytes_ += chunk.bytes;
      max_held_bytes_ = std::max(max_held_bytes_, held_bytes_);
      done_unconsumed_++;
      slots_[task.seq % slots_.size()] = std::move(chunk);
      // The consumer takes chunks in order: one finished ahead of the one it
      // waits for does not wake it.
      wake_consumer = consumer_waits_for_ == task.seq;
    }
    // Woken after the unlock, so the woken thread does not block on mu_ at once.
    if (wake_consumer) consumer_cv_.notify_one();
    work_cv_.notify_all();
  }
}

Status Runtime::BatchTooLarge(const Task& task, const std::string& where, uint64_t bytes, const char* what) const {
  return Status::InvalidArgument(
      "the batch of epoch " + std::to_string(task.epoch) + " positions [" + std::to_string(task.begin) + ", " +
      std::to_string(task.end) + ") holds " + std::to_string(bytes) + " bytes " + what + " at " + where +
      ", more than max_batch_bytes (" + std::to_string(plan_.max_batch_bytes) +
      "): rows far larger than expected (e.g. blobs that decompress to much more than they store), or a limit "
      "too low for this data (raise max_batch_bytes or lower batch_size)");
}

Status Runtime::RowError(const std::string& where, const Status& st, Chunk* chunk) const {
  // Sources that name the row themselves (CSV, TFRecord) are not named twice.
  Status ctx = st.message().rfind(where, 0) == 0 ? st : st.WithContext(where);
  if (plan_.on_error == ErrorPolicy::kFail) return ctx;
  chunk->skipped++;
  if (chunk->errors.size() < kMaxReportedErrors) chunk->errors.push_back(ctx.ToString());
  return Status::OK();
}

Status Runtime::ReadRows(const Task& task, std::vector<PendingRow>* rows, Chunk* chunk) {
  const size_t n = task.end - task.begin;
  std::vector<RowProgram> programs(n);
  MR_RETURN_IF_ERROR(tree_.root->Resolve(task.epoch, task.begin, task.end, programs.data()));
  // Each source's reads: the row ids and where each goes (row, read slot).
  struct Reads {
    std::vector<uint64_t> ids;
    std::vector<std::pair<size_t, size_t>> to;
  };
  std::vector<Reads> reads(tree_.sources.size());
  if (reads.size() == 1) {
    reads[0].ids.reserve(n);
    reads[0].to.reserve(n);
  }
  rows->resize(n);
  for (size_t i = 0; i < n; ++i) {
    PendingRow& r = (*rows)[i];
    r.out.position = task.begin + i;
    r.program = std::move(programs[i]);
    size_t count = 0;
    for (const Instr& in : r.program) count += in.kind == Instr::Kind::kRead;
    // A row of one read (the common case) is read straight into its columns.
    if (count > 1) r.reads.resize(count);
    size_t slot = 0;
    bool cached = false;  // between a cache_get and its put: served from the cache, not read now
    for (const Instr& in : r.program) {
      if (in.kind == Instr::Kind::kCacheGet) cached = true;
      if (in.kind == Instr::Kind::kCachePut) cached = false;
      if (in.kind != Instr::Kind::kRead) continue;
      if (slot == 0) r.out.row_id = in.a;
      if (cached) {
        slot++;
        continue;
      }
      reads[in.arg].ids.push_back(in.a);
      reads[in.arg].to.emplace_back(i, count > 1 ? slot : kDirect);
      slot++;
    }
  }
  // Bytes of the rows read so far, checked against max_batch_bytes as each
  // arrives (a row itself is bounded by the reader's per-row limits).
  uint64_t read_bytes = 0;
  for (size_t s = 0; s < reads.size(); ++s) {
    if (reads[s].ids.empty()) continue;
    const Source& src = *tree_.sources[s];
    const Reads& rd = reads[s];
    const auto t0 = Clock::now();
    Status st = src.Read(rd.ids, [&](size_t k, const Status& row_st, std::vector<Tensor>&& cols, uint64_t bytes) {
      PendingRow& r = (*rows)[rd.to[k].first];
      if (r.failed) return Status::OK();
      if (!row_st.ok()) {
        r.failed = true;
        return RowError(src.Where(rd.ids[k]), row_st, chunk);
      }
      read_bytes += bytes;
      if (read_bytes > plan_.max_batch_bytes) return BatchTooLarge(task, src.Where(rd.ids[k]), read_bytes, "once read");
      (rd.to[k].second == kDirect ? r.out.columns : r.reads[rd.to[k].second]) = std::move(cols);
      return Status::OK();
    });
    io_ns_ += NanosSince(t0);
    MR_RETURN_IF_ERROR(st);
  }
  rows->erase(std::remove_if(rows->begin(), rows->end(), [](const PendingRow& r) { return r.failed; }), rows->end());
  return Status::OK();
}

Status Runtime::ReadOne(const Instr& in, std::vector<Tensor>* cols) const {
  const Source& src = *tree_.sources[in.arg];
  Status row_st;
  MR_RETURN_IF_ERROR(src.Read({in.a}, [&](size_t, const Status& st, std::vector<Tensor>&& c, uint64_t) {
    row_st = st;
    *cols = std::move(c);
    return Status::OK();
  }));
  return row_st;
}

bool Runtime::CacheGet(const Instr& in, std::vector<Tensor>* cols) const {
  auto got = tree_.caches[in.arg]->Get(in.a);
  if (!got.ok()) return false;  // missing or corrupt: the row is made again, and its put replaces the entry
  *cols = std::move(got).value();
  return true;
}

Status Runtime::CachePut(const Instr& in, const std::vector<Tensor>& cols) const {
  CacheStore& c = *tree_.caches[in.arg];
  c.CountMiss();
  return c.Put(in.a, cols);
}

Status Runtime::Transform(PendingRow* row, BatchBuilder* builder) const {
  try {
    return RunProgram(row, builder);
  } catch (const std::bad_alloc&) {
    return Status::Internal("out of memory transforming the row");
  } catch (const std::exception& e) {
    return Status::Internal(std::string("an op threw an exception: ") + e.what());
  } catch (...) {
    return Status::Internal("an op threw an exception of an unknown type");
  }
}

Status Runtime::RunProgram(PendingRow* row, BatchBuilder* builder) const {
  const RowProgram& prog = row->program;
  // A step, on the frame `cols`; false in *keep: a filter dropped the row.
  auto step = [&](size_t pc, std::vector<Tensor>* cols, bool* keep) {
    const Instr& in = prog[pc];
    // The rows' last step may write straight into the row's place in the batch.
    BatchBuilder* b =
        builder && pc + 1 == prog.size() && static_cast<int>(in.arg) == tree_.final_step ? builder : nullptr;
    return tree_.steps[in.arg]->Apply(in.a, in.b, cols, keep, b);
  };
  if (row->reads.empty()) {
    // One read (no zip): its columns are the row's, stepped in place.
    for (size_t pc = 0; pc < prog.size(); ++pc) {
      const Instr& in = prog[pc];
      if (in.kind == Instr::Kind::kStep) {
        bool keep = true;
        MR_RETURN_IF_ERROR(step(pc, &row->out.columns, &keep));
        if (!keep) {
          row->kept = false;
          return Status::OK();
        }
      } else if (in.kind == Instr::Kind::kTag) {
        row->out.tags.push_back(in.arg);
      } else if (in.kind == Instr::Kind::kCacheGet) {
        if (CacheGet(in, &row->out.columns)) {
          pc += in.b;
        } else {
          // The read was left to the cache: read the row now.
          const Instr& rd = prog[pc + 1];
          MR_RETURN_IF_ERROR(ReadOne(rd, &row->out.columns));
        }
      } else if (in.kind == Instr::Kind::kCachePut) {
        MR_RETURN_IF_ERROR(CachePut(in, row->out.columns));
      } else if (in.kind == Instr::Kind::kZip) {
        return Status::Internal("a row program zips a single read");
      }
    }
    return Status::OK();
  }
  // Several reads: a stack of frames (indices into row->reads); a zip merges
  // the top frames into the lowest of them.
  thread_local std::vector<size_t> stack;
  stack.clear();
  size_t next_read = 0;
  bool fallback = false;  // a cache_get missed: its read happens here
  for (size_t pc = 0; pc < prog.size(); ++pc) {
    const Instr& in = prog[pc];
    switch (in.kind) {
      case Instr::Kind::kRead:
        if (fallback) {
          MR_RETURN_IF_ERROR(ReadOne(in, &row->reads[next_read]));
          fallback = false;
        }
        stack.push_back(next_read++);
        break;
      case Instr::Kind::kCacheGet:
        if (CacheGet(in, &row->reads[next_read])) {
          stack.push_back(next_read++);
          pc += in.b;
        } else {
          fallback = true;
        }
        break;
      case Instr::Kind::kCachePut:
        MR_RETURN_IF_ERROR(CachePut(in, row->reads[stack.back()]));
        break;
      case Instr::Kind::kStep: {
        bool keep = true;
        MR_RETURN_IF_ERROR(step(pc, &row->reads[stack.back()], &keep));
        if (!keep) {
          row->kept = false;
          return Status::OK();
        }
        break;
      }
      case Instr::Kind::kZip: {
        std::vector<Tensor>& into = row->reads[stack[stack.size() - in.arg]];
        for (size_t f = stack.size() - in.arg + 1; f < stack.size(); ++f) {
          for (auto& t : row->reads[stack[f]]) into.push_back(std::move(t));
        }
        stack.resize(stack.size() - in.arg + 1);
        break;
      }
      case Instr::Kind::kTag:
        row->out.tags.push_back(in.arg);
        break;
    }
  }
  if (stack.size() != 1) return Status::Internal("a row program left " + std::to_string(stack.size()) + " frames");
  row->out.columns = std::move(row->reads[stack[0]]);
  row->reads.clear();
  return Status::OK();
}

BatchInfo Runtime::InfoFor(uint64_t epoch, uint64_t batch_num) const {
  return BatchInfo{epoch / tree_.passes, batch_num};
}

Result<Batch> Runtime::GatherRows(const Task& task) {
  const auto t0 = Clock::now();
  const size_t n = task.end - task.begin;
  std::vector<RowProgram> programs(n);
  MR_RETURN_IF_ERROR(tree_.root->Resolve(task.epoch, task.begin, task.end, programs.data()));
  Batch b;
  b.epoch = task.epoch;
  b.row_ids.resize(n);
  b.positions.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const RowProgram& p = programs[i];
    if (p.size() != 1 || p[0].kind != Instr::Kind::kRead || p[0].arg != 0)
      return Status::Internal("a row program of a gathered batch is not one read");
    b.row_ids[i] = p[0].a;
    b.positions[i] = task.begin + i;
  }
  const Source& src = *tree_.sources[0];
  const std::vector<std::string>& names = tree_.root->columns();
  uint64_t row_bytes = 0;
  for (const RowSpec& s : gather_rows_) row_bytes += s.bytes;
  if (n > 0 && row_bytes > plan_.max_batch_bytes / n) {
    return BatchTooLarge(task, src.Where(b.row_ids[0]), row_bytes * n, "once read");
  }
  std::vector<uint8_t*> out(names.size());
  b.columns.resize(names.size());
  for (size_t k = 0; k < names.size(); ++k) {
    std::vector<int64_t> shape = {static_cast<int64_t>(n)};
    shape.insert(shape.end(), gather_rows_[k].shape.begin(), gather_rows_[k].shape.end());
    b.columns[k].name = names[k];
    MR_ASSIGN_OR_RETURN(b.columns[k].data, NewColumn(alloc_, gather_rows_[k].type, shape, names[k]));
    out[k] = b.columns[k].data.MutableData();
  }
  MR_RETURN_IF_ERROR(src.Gather(b.row_ids, out));
  io_ns_ += NanosSince(t0);
  gathered_++;
  return b;
}

void Runtime::FinishBatch(Result<Batch> b, Chunk* c) const {
  if (b.ok() && !tree_.drops_rows) {
    // Every task is then a batch of its own: the nodes above the batch run here.
    for (const auto& step : tree_.batch_steps) {
      Status st = step->Apply(&*b);
      if (!st.ok()) {
        b = st;
        break;
      }
    }
    c->batch_steps_done = true;
  }
  if (b.ok()) c->batch = std::move(b).value();
  else c->status = b.status();
}

Runtime::Chunk Runtime::RunTask(const Task& task) {
  Chunk c;
  c.epoch = task.epoch;
  c.begin = task.begin;
  c.end = task.end;
  c.last_in_epoch = task.last_in_epoch;
  std::vector<PendingRow> raw;
  SharedRows shared;
  const bool work = !tree_.steps.empty();
  Result<Batch> gathered = Status::Internal("unset");
  if (!task.status.ok()) {
    c.status = task.status;
  } else if (!gather_rows_.empty() && task.end > task.begin) {
    gathered = GatherRows(task);
    c.status = gathered.status();
  } else {
    c.status = ReadRows(task, &raw, &c);
  }
  bool wake_workers = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    reading_--;
    if (c.status.ok() && raw.size() > 1 && work) {
      // The rows are open to idle workers from here on.
      shared.task = &task;
      shared.raw = &raw;
      shared.done.resize(raw.size());
      open_.push_back(&shared);
      wake_workers = true;
    } else if (claims_done_ && reading_ == 0) {
      wake_workers = true;  // idle workers waiting for rows to open may stop
    }
  }
  if (wake_workers) work_cv_.notify_all();
  if (!c.status.ok()) return c;
  if (gathered.ok()) {
    c.bytes = TensorBytes(*gathered);
    FinishBatch(std::move(gathered), &c);
    return c;
  }
  const auto t0 = Clock::now();
  const std::vector<std::string>& names = tree_.root->columns();
  // Each row is batched as soon as it is transformed (see BatchBuilder);
  // columns seen ragged before, padded to a fixed shape, or given to a
  // per_batch_map are kept per row from the start.
  std::vector<bool> stream(names.size());
  for (size_t k = 0; k < names.size(); ++k) {
    auto r = tree_.batch.ragged.find(names[k]);
    const bool fixed_pad = r != tree_.batch.ragged.end() && !r->second.pad_shape.empty();
    stream[k] = c.skipped == 0 && worker_batches_ && !tree_.batch_map && !fixed_pad &&
                !ragged_[k].load(std::memory_order_relaxed);
  }
  BatchBuilder builder(names, raw.size(), task.epoch, tree_.batch, alloc_, std::move(stream));
  if (plan_.copy_views) builder.CopyViews();
  // Batches row `i` once transformed by `t`, applying the byte cap, the
  // error policy and the filters.
  auto accept = [&](size_t i, const Status& t) {
    PendingRow& row = raw[i];
    if (!t.ok()) {
      // A row's program starts with its first read: the row named in errors.
      const std::string where = tree_.sources[FirstSource(row.program)]->Where(row.out.row_id);
      row = PendingRow();
      return RowError(where, t, &c);
    }
    if (!row.kept) {
      c.filtered++;
      row = PendingRow();
      return Status::OK();
    }
    c.bytes += TensorBytes(row.out.columns);
    if (c.bytes > plan_.max_batch_bytes) {
      return BatchTooLarge(task, tree_.sources[FirstSource(row.program)]->Where(row.out.row_id), c.bytes,
                           "once transformed");
    }
    if (tree_.num_tags > 0) c.batch_tags.push_back(row.out.tags);
    return builder.Add(std::move(row.out));
  };
  // Rows read as views of a mapped shard with no step to run (`work`
  // false: no helper touches `raw`) are copied into the batch buffer one
  // after another: their bytes lie at random places, so each copy would wait
  // for memory unless the rows a few ahead are already on their way.
  auto prefetch = [&](size_t i) {
    if (work || i >= raw.size()) return;
    const std::vector<Tensor>& cols = raw[i].out.columns;
    for (size_t k = 0; k < cols.size(); ++k) {
      const Tensor& t = cols[k];
      if (t.defined() && t.read_only() && builder.streamed(k)) PrefetchValue(t.data(), t.size_bytes());
    }
  };
  for (size_t i = 0; i < kPrefetchValuesAhead; ++i) prefetch(i);
  // Rows [0, added) are batched; rows past a helper's wait in `done` first.
  size_t added = 0;
  for (size_t i; c.status.ok() && (i = shared.next.fetch_add(1, std::memory_order_relaxed)) < raw.size();) {
    prefetch(i + kPrefetchValuesAhead);
    if (i == added) {
      c.status = accept(i, Transform(&raw[i], &builder));
      added++;
    } else {
      shared.done[i] = Transform(&raw[i], nullptr);
    }
  }
  ReleaseInterpreterLock();  // its helpers may need it for their rows
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
    if (c.skipped == 0 && c.filtered == 0 && builder.size() > 0 && worker_batches_) {
      Result<Batch> b = Status::Internal("unset");
      if (tree_.batch_map) {
        // No row can go missing here, so the batch's number is its position's.
        b = AssembleMappedBatch(names, std::move(builder).TakeRows(), task.epoch, tree_.batch, alloc_,
                                *tree_.batch_map, tree_.batch_map_layout,
                                InfoFor(task.epoch, task.begin / tree_.batch.batch_size));
      } else {
        for (size_t k = 0; k < names.size(); ++k)
          if (!builder.streamed(k)) ragged_[k].store(true, std::memory_order_relaxed);
        b = std::move(builder).Finish();
      }
      FinishBatch(std::move(b), &c);
    } else {
      c.rows = std::move(builder).TakeRows();
      c.batch_tags.clear();
    }
  }
  transform_ns_ += NanosSince(t0);
  return c;
}

}  // namespace mindrecord
