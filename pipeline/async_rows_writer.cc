#include "pipeline/async_rows_writer.h"

#include <exception>
#include <utility>

namespace mindrecord {

AsyncRowsWriter::AsyncRowsWriter(ShardWriter* writer, uint64_t max_queued_bytes)
    : writer_(writer), max_bytes_(max_queued_bytes), thread_([this] { Run(); }) {}

AsyncRowsWriter::~AsyncRowsWriter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    queue_.clear();
  }
  cv_.notify_all();
  thread_.join();
}

Status AsyncRowsWriter::Write(std::vector<Row> rows, uint64_t bytes) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return !error_.ok() || queue_.empty() || queued_bytes_ + bytes <= max_bytes_; });
  if (!error_.ok()) return error_;
  queued_bytes_ += bytes;
  queue_.emplace_back(std::move(rows), bytes);
  lock.unlock();
  cv_.notify_all();
  return Status::OK();
}

Status AsyncRowsWriter::Finish() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return !error_.ok() || (queue_.empty() && !busy_); });
  return error_;
}

void AsyncRowsWriter::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    auto [rows, bytes] = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    Status st;
    try {
      st = writer_->WriteRows(std::move(rows));
    } catch (const std::exception& e) {  // no exception leaves this thread (allocation failures)
      st = Status::Internal(std::string("writing rows: ") + e.what());
    }
    rows = {};
    lock.lock();
    busy_ = false;
    queued_bytes_ -= bytes;
    if (!st.ok() && error_.ok()) {
      error_ = st;
      queue_.clear();
      queued_bytes_ = 0;
    }
    cv_.notify_all();
  }
}

}  // namespace mindrecord
