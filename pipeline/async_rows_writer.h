// AsyncRowsWriter: ShardWriter::WriteRows on a thread of its own, so that a
// producer (Dataset.save's loop over the pipeline's batches) makes the next
// rows while the last ones are encoded and written. Measured on 200k rows of
// ~1 KiB (benchmarks/python_code_bench.py --only save): see python/README.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "mindrecord/status.h"
#include "mindrecord/value.h"
#include "writers/shard_writer.h"

namespace mindrecord {

// Thread safety: Write and Finish come from one thread (the producer's); the
// writer handed in is used only by this object's thread until Finish returns
// or the object is destroyed. At most `max_queued_bytes` of rows wait (one
// batch more may be in the writer's hands); Write blocks while they do.
class AsyncRowsWriter {
 public:
  AsyncRowsWriter(ShardWriter* writer, uint64_t max_queued_bytes);
  // Joins the thread (dropping rows not yet written): the caller abandons
  // the writer after an error.
  ~AsyncRowsWriter();
  AsyncRowsWriter(const AsyncRowsWriter&) = delete;
  AsyncRowsWriter& operator=(const AsyncRowsWriter&) = delete;

  // Queues `rows` (`bytes`: their size, for the cap). Returns the writer's
  // first error so far, if any (the rows are then dropped).
  Status Write(std::vector<Row> rows, uint64_t bytes);
  // Waits until every queued row is written; the writer's first error.
  Status Finish();

 private:
  void Run();

  ShardWriter* writer_;
  const uint64_t max_bytes_;
  std::mutex mu_;
  std::condition_variable cv_;  // a batch was queued or written, or stop_
  std::deque<std::pair<std::vector<Row>, uint64_t>> queue_;
  uint64_t queued_bytes_ = 0;
  bool busy_ = false;  // the thread is writing a batch
  bool stop_ = false;
  Status error_;
  std::thread thread_;
};

}  // namespace mindrecord
