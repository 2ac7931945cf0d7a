// Index inserts off the writer's thread: the SQLite inserts of closed row
// groups run on one background thread while the writer goes on encoding and
// writing pages (and, at Finish, while the data file is fsynced). On the
// 1 KiB-record workload they were ~45% of the writer's instructions, all on
// its own thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "index/index_writer.h"
#include "mindrecord/constants.h"
#include "mindrecord/status.h"

namespace mindrecord {

// One background thread inserting the queued rows of any number of
// IndexWriters, in queue order (so each writer's rows go in as added).
// Queued rows are capped in bytes: Add blocks while the cap is reached.
// Thread safety: Add/Drain/Discard for one IndexWriter come from one thread
// (its ShardWriter's); different writers may use it from different threads.
// A writer handed to Add is touched only by the queue's thread until Drain or
// Discard returns. Destroy the queue after every writer using it is drained
// or discarded.
class IndexQueue {
 public:
  using Rows = std::vector<std::pair<RowLocator, Row>>;
  explicit IndexQueue(uint64_t max_bytes = 32 * kMiB);
  ~IndexQueue();
  IndexQueue(const IndexQueue&) = delete;
  IndexQueue& operator=(const IndexQueue&) = delete;

  // Queues `rows` for `w`. Returns the first error of w's earlier inserts
  // (the rows are then dropped).
  Status Add(IndexWriter* w, Rows rows);
  // Queues IndexWriter::MoveRaw for w, after its rows queued so far.
  Status MoveRaw(IndexWriter* w, uint64_t first_row, uint64_t end_row, uint64_t page, uint64_t shift);
  // Waits until all of w's rows are inserted; returns its first error.
  Status Drain(IndexWriter* w);
  // Drops w's queued rows and waits for its insert in progress, if any
  // (before w is destroyed unfinished).
  void Discard(IndexWriter* w);

 private:
  struct Job {
    IndexWriter* w;
    Rows rows;
    uint64_t bytes;
    bool move = false;  // a MoveRaw instead of inserts
    uint64_t first_row = 0, end_row = 0, page = 0, shift = 0;
  };
  Status Push(Job job);
  struct State {
    uint64_t pending = 0;  // jobs queued or running
    Status error;
  };
  void Run();
  static uint64_t BytesOf(const Rows& rows);

  const uint64_t max_bytes_;
  std::mutex mu_;
  std::condition_variable work_cv_;  // a job was queued, or stop_
  std::condition_variable done_cv_;  // a job finished
  std::deque<Job> queue_;
  std::map<IndexWriter*, State> states_;
  uint64_t queued_bytes_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace mindrecord
