#include "writers/index_queue.h"

namespace mindrecord {

IndexQueue::IndexQueue(uint64_t max_bytes) : max_bytes_(max_bytes), thread_([this] { Run(); }) {}

IndexQueue::~IndexQueue() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  thread_.join();
}

uint64_t IndexQueue::BytesOf(const Rows& rows) {
  uint64_t b = 0;
  for (const auto& [loc, values] : rows) {
    b += sizeof(loc) + sizeof(values);
    for (const auto& [name, v] : values.fields()) b += sizeof(name) + sizeof(v) + name.capacity() + v.bytes().capacity();
  }
  return b;
}

Status IndexQueue::Add(IndexWriter* w, Rows rows) {
  if (rows.empty()) {
    std::lock_guard<std::mutex> lock(mu_);
    return states_[w].error;
  }
  const uint64_t bytes = BytesOf(rows);
  return Push(Job{w, std::move(rows), bytes});
}

Status IndexQueue::MoveRaw(IndexWriter* w, uint64_t first_row, uint64_t end_row, uint64_t page, uint64_t shift) {
  Job job{w, {}, 0};
  job.move = true;
  job.first_row = first_row;
  job.end_row = end_row;
  job.page = page;
  job.shift = shift;
  return Push(std::move(job));
}

Status IndexQueue::Push(Job job) {
  std::unique_lock<std::mutex> lock(mu_);
  State& s = states_[job.w];
  // A job larger than the cap waits for an empty queue, then goes alone.
  done_cv_.wait(lock, [&] { return queued_bytes_ == 0 || queued_bytes_ + job.bytes <= max_bytes_ || !s.error.ok(); });
  if (!s.error.ok()) return s.error;
  s.pending++;
  queued_bytes_ += job.bytes;
  queue_.push_back(std::move(job));
  work_cv_.notify_one();
  return Status::OK();
}

Status IndexQueue::Drain(IndexWriter* w) {
  std::unique_lock<std::mutex> lock(mu_);
  State& s = states_[w];
  done_cv_.wait(lock, [&] { return s.pending == 0; });
  Status st = s.error;
  states_.erase(w);
  return st;
}

void IndexQueue::Discard(IndexWriter* w) {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = states_.find(w);
  if (it == states_.end()) return;
  for (auto q = queue_.begin(); q != queue_.end();) {
    if (q->w == w) {
      queued_bytes_ -= q->bytes;
      it->second.pending--;
      q = queue_.erase(q);
    } else {
      ++q;
    }
  }
  done_cv_.notify_all();
  done_cv_.wait(lock, [&] { return it->second.pending == 0; });
  states_.erase(it);
}

void IndexQueue::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_
    Job job = std::move(queue_.front());
    queue_.pop_front();
    const bool skip = !states_[job.w].error.ok();
    lock.unlock();
    Status st;
    if (!skip && job.move) {
      st = job.w->MoveRaw(job.first_row, job.end_row, job.page, job.shift);
    } else if (!skip) {
      for (const auto& [loc, values] : job.rows) {
        st = job.w->Add(loc, values);
        if (!st.ok()) break;
      }
    }
    job.rows.clear();
    lock.lock();
    State& s = states_[job.w];
    if (s.error.ok() && !st.ok()) s.error = st;
    s.pending--;
    queued_bytes_ -= job.bytes;
    done_cv_.notify_all();
  }
}

}  // namespace mindrecord
