#include "writers/direct_page_writer.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace mindrecord {
namespace {

// All shards' chunk buffers together stay within this; a chunk below
// kMinChunk (with very many shards) is not worth it: such writers stay buffered.
constexpr uint64_t kMemoryBudget = 192ull << 20;
constexpr uint64_t kMinChunk = 64 << 10;

}  // namespace

DirectWriteQueue::DirectWriteQueue() {
  for (int i = 0; i < kThreads; ++i) threads_.emplace_back([this] { Run(); });
}

DirectWriteQueue::~DirectWriteQueue() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void DirectWriteQueue::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_, and nothing left
    Write w = queue_.front();
    queue_.pop_front();
    DirectPageWriter* o = w.owner;
    const bool skip = !o->error_.ok();  // the shard failed already: its later chunks do not matter
    lock.unlock();
    Status st = skip ? Status::OK() : o->file_->WriteDirect(w.offset, w.buf, w.n);
    lock.lock();
    if (!st.ok() && o->error_.ok()) o->error_ = st;
    o->free_.push_back(w.buf);
    --o->in_flight_;
    done_cv_.notify_all();
  }
}

std::unique_ptr<DirectPageWriter> DirectPageWriter::Create(WritableFile* file, DirectWriteQueue* queue,
                                                           uint64_t header_size, uint64_t page_size,
                                                           uint32_t shard_count, size_t max_chunk) {
  const size_t alignment = file->direct_alignment();
  if (alignment == 0 || header_size % alignment != 0 || page_size % alignment != 0) return nullptr;
  const uint64_t share = kMemoryBudget / (kBuffers * std::max(shard_count, 1u));
  if (share < std::min(kMinChunk, page_size)) return nullptr;
  uint64_t chunk = std::min<uint64_t>({max_chunk, page_size, share});
  chunk -= chunk % alignment;
  if (chunk == 0) return nullptr;
  return std::unique_ptr<DirectPageWriter>(
      new DirectPageWriter(file, queue, header_size, page_size, alignment, static_cast<size_t>(chunk)));
}

DirectPageWriter::DirectPageWriter(WritableFile* file, DirectWriteQueue* queue, uint64_t header_size,
                                   uint64_t page_size, size_t alignment, size_t chunk)
    : file_(file), queue_(queue), header_size_(header_size), page_size_(page_size), alignment_(alignment), chunk_(chunk) {}

DirectPageWriter::~DirectPageWriter() {
  std::unique_lock<std::mutex> lock(queue_->mu_);
  queue_->done_cv_.wait(lock, [this] { return in_flight_ == 0; });
}

Status DirectPageWriter::Error() {
  std::lock_guard<std::mutex> lock(queue_->mu_);
  return error_;
}

Result<char*> DirectPageWriter::Acquire() {
  {
    std::unique_lock<std::mutex> lock(queue_->mu_);
    queue_->done_cv_.wait(lock, [this] { return !free_.empty() || owned_.size() < kBuffers; });
    if (!free_.empty()) {
      char* b = free_.back();
      free_.pop_back();
      return b;
    }
  }
  // owned_ is touched by this thread only.
  void* p = nullptr;
  if (posix_memalign(&p, alignment_, chunk_) != 0) {
    return Status::IOError(file_->path() + ": cannot allocate a " + std::to_string(chunk_) +
                           "-byte buffer for direct writes");
  }
  owned_.emplace_back(static_cast<char*>(p), &std::free);
  return static_cast<char*>(p);
}

void DirectPageWriter::Submit(uint64_t offset, char* buf, size_t n) {
  {
    std::lock_guard<std::mutex> lock(queue_->mu_);
    ++in_flight_;
    queue_->queue_.push_back({this, offset, buf, n});
  }
  queue_->work_cv_.notify_one();
}

Status DirectPageWriter::Append(int slot, uint64_t page_id, uint64_t at, const std::vector<std::string_view>& pieces) {
  MR_RETURN_IF_ERROR(Error());
  Slot& s = slots_[slot];
  if (s.page != static_cast<int64_t>(page_id)) {
    if (at != 0) {
      return Status::Internal(file_->path() + ": direct writes: page " + std::to_string(page_id) +
                              " is not open and the write starts at byte " + std::to_string(at));
    }
    if (s.page >= 0) MR_RETURN_IF_ERROR(Leave(s));
    s.page = static_cast<int64_t>(page_id);
  } else if (at != s.fill) {
    return Status::Internal(file_->path() + ": direct writes: page " + std::to_string(page_id) + " ends at byte " +
                            std::to_string(s.fill) + ", not " + std::to_string(at));
  }
  for (std::string_view p : pieces) {
    while (!p.empty()) {
      if (!s.buf) {
        MR_ASSIGN_OR_RETURN(s.buf, Acquire());
      }
      const size_t used = static_cast<size_t>(s.fill - s.chunk_start);
      const size_t n = std::min(p.size(), chunk_ - used);
      std::memcpy(s.buf + used, p.data(), n);
      p.remove_prefix(n);
      s.fill += n;
      if (used + n == chunk_) {
        Submit(PageOffset(page_id) + s.chunk_start, s.buf, chunk_);
        s.buf = nullptr;
        s.chunk_start += chunk_;
      }
    }
  }
  end_ = std::max(end_, PageOffset(page_id) + s.fill);
  return Status::OK();
}

size_t DirectPageWriter::PadStaged(Slot& s) {
  const size_t used = static_cast<size_t>(s.fill - s.chunk_start);
  if (!s.buf || used == 0) return 0;
  const size_t padded = AlignUp(used);
  std::memset(s.buf + used, 0, padded - used);
  return padded;
}

Status DirectPageWriter::Leave(Slot& s) {
  if (const size_t padded = PadStaged(s)) {
    Submit(PageOffset(static_cast<uint64_t>(s.page)) + s.chunk_start, s.buf, padded);
  } else if (s.buf) {
    std::lock_guard<std::mutex> lock(queue_->mu_);
    free_.push_back(s.buf);
  }
  s = Slot();
  return Status::OK();
}

Status DirectPageWriter::Flush() {
  {
    std::unique_lock<std::mutex> lock(queue_->mu_);
    queue_->done_cv_.wait(lock, [this] { return in_flight_ == 0; });
    MR_RETURN_IF_ERROR(error_);
  }
  // Nothing of ours is in flight: write the partial chunks from this thread.
  for (Slot& s : slots_) {
    const size_t padded = PadStaged(s);
    if (padded == 0) continue;
    Status st = file_->WriteDirect(PageOffset(static_cast<uint64_t>(s.page)) + s.chunk_start, s.buf, padded);
    if (!st.ok()) {
      std::lock_guard<std::mutex> lock(queue_->mu_);
      if (error_.ok()) error_ = st;
      return st;
    }
  }
  return Status::OK();
}

}  // namespace mindrecord
