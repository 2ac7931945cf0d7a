// Direct (O_DIRECT) page writes for new shards: the bytes appended to a
// shard's open pages are staged in aligned chunks, and full chunks are written
// past the page cache by a background I/O thread while the writer goes on
// reading and encoding. The buffered alternative (pwritev) copies every byte
// into freshly allocated page-cache pages in the writer's own thread.
//
// The file's bytes come out as the buffered writes leave them: a page's
// unused tail is zeros either way (a hole there, written zeros here, up to the
// direct-I/O alignment), and the file is cut to its logical end at Finish (see
// DirectPageWriter::end()).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "mindrecord/file.h"
#include "mindrecord/status.h"

namespace mindrecord {

class DirectPageWriter;

// Background threads performing the queued chunk writes of any number of
// DirectPageWriters, taken in queue order, kThreads at a time (no two queued
// writes cover the same bytes, so their order does not matter). Thread safety: used only through
// DirectPageWriter (which may live in different threads); the destructor
// joins the threads and must run after every DirectPageWriter using it is gone.
class DirectWriteQueue {
 public:
  // Writes in flight at once. More than one keeps this VM's disk busier:
  // converts onto it took 1.6-1.9 s with 3 against 1.5-2.4 s with 1 (880 MB).
  static constexpr int kThreads = 3;
  DirectWriteQueue();
  ~DirectWriteQueue();
  DirectWriteQueue(const DirectWriteQueue&) = delete;
  DirectWriteQueue& operator=(const DirectWriteQueue&) = delete;

 private:
  friend class DirectPageWriter;
  struct Write {
    DirectPageWriter* owner;
    uint64_t offset;
    char* buf;
    size_t n;
  };
  void Run();

  std::mutex mu_;
  std::condition_variable work_cv_;  // queue_ got a write, or stop_
  std::condition_variable done_cv_;  // a write finished (an owner's buffer came back)
  std::deque<Write> queue_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

// Stages and writes the pages of one new shard file. Pages are written as
// appended: each page is one run of appends from its offset 0, and at most two
// pages are open at once (the last blob page and the last raw page: `slot`
// 0 and 1). Thread safety: not thread-safe; one thread (the shard's writer)
// calls it, and the queue's threads write its chunks.
class DirectPageWriter {
 public:
  // Bytes per chunk, at most. The chunk is also capped by the page size (and
  // smaller with many shards: see Create).
  static constexpr size_t kChunkBytes = 4 << 20;
  // Chunk buffers per shard: two staged (one per open page) and the rest in
  // flight (or queued).
  static constexpr size_t kBuffers = 6;

  // A writer for `file`, or nullptr when the file takes no direct writes or
  // header_size / page_size are not multiples of its alignment.
  // `shard_count` shards share the memory budget (kBuffers chunks each);
  // `max_chunk` (rounded down to the alignment) lets tests use small chunks.
  static std::unique_ptr<DirectPageWriter> Create(WritableFile* file, DirectWriteQueue* queue, uint64_t header_size,
                                                  uint64_t page_size, uint32_t shard_count,
                                                  size_t max_chunk = kChunkBytes);
  // Waits for this writer's chunks in flight (their buffers are its own).
  ~DirectPageWriter();
  DirectPageWriter(const DirectPageWriter&) = delete;
  DirectPageWriter& operator=(const DirectPageWriter&) = delete;

  // Appends `pieces` at byte `at` of page `page_id`, the open page of `slot`
  // (continuing it: `at` is where it ends) or a new page (`at` 0: the slot's
  // previous page is done and its last chunk is written). Returns an earlier
  // background write's error, if any.
  Status Append(int slot, uint64_t page_id, uint64_t at, const std::vector<std::string_view>& pieces);
  // Writes the open pages' partial chunks (zero-padded to the alignment; they
  // stay staged, so later appends rewrite them) and waits for every write:
  // the file then holds all bytes appended so far, readable with ReadAt.
  Status Flush();
  // The file's length as buffered writes of the same bytes leave it: the end
  // of the furthest byte appended (the file itself may be longer, padded to
  // the alignment, until cut to this).
  uint64_t end() const { return end_; }
  size_t chunk_bytes() const { return chunk_; }

 private:
  friend class DirectWriteQueue;
  DirectPageWriter(WritableFile* file, DirectWriteQueue* queue, uint64_t header_size, uint64_t page_size,
                   size_t alignment, size_t chunk);
  struct Slot {
    int64_t page = -1;         // open page id; -1: none
    uint64_t fill = 0;         // bytes appended to the page
    uint64_t chunk_start = 0;  // page offset of the staged chunk
    char* buf = nullptr;       // the staged chunk; nullptr: none yet
  };
  uint64_t PageOffset(uint64_t page) const { return header_size_ + page * page_size_; }
  size_t AlignUp(size_t v) const { return (v + alignment_ - 1) / alignment_ * alignment_; }
  // A free chunk buffer; waits while all are in flight.
  Result<char*> Acquire();
  // Queues a chunk write; the buffer comes back to free_ when written.
  void Submit(uint64_t offset, char* buf, size_t n);
  // Zero-pads the slot's staged partial chunk to the alignment; its padded
  // length, 0 when nothing is staged.
  size_t PadStaged(Slot& s);
  // Writes the slot's partial chunk (padded) and closes the page.
  Status Leave(Slot& s);
  Status Error();  // the first background error (locks)

  WritableFile* file_;
  DirectWriteQueue* queue_;
  const uint64_t header_size_, page_size_;
  const size_t alignment_, chunk_;
  Slot slots_[2];
  uint64_t end_ = 0;
  std::vector<std::unique_ptr<char, void (*)(void*)>> owned_;  // every buffer allocated
  // Guarded by queue_->mu_:
  std::vector<char*> free_;
  size_t in_flight_ = 0;
  Status error_;
};

}  // namespace mindrecord
