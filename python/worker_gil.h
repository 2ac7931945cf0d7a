// WorkerGil: the GIL held on a pipeline thread (one Python did not start),
// like py::gil_scoped_acquire, except that the thread keeps its Python
// thread state from one hold to the next until the thread ends.
// gil_scoped_acquire makes a thread state and destroys it at each hold on
// such a thread; with Python 3.11 that maps and unmaps its frame stack every
// time, and the unmap's TLB shootdown interrupts every core the process runs
// on: a per-row Python map spent more than a third of its time there.
//
// A hold made with keep = true (Python ops) leaves the GIL with the thread
// when it ends, for the thread's next op (pipeline/interpreter_lock.h); the
// runtime releases it through ReleaseKeptGil, installed by InstallKeptGil.
#pragma once

#include <optional>

#include <pybind11/pybind11.h>

namespace mindrecord::py_binding {

// Thread safety: a scope object of the thread that made it. The kept state
// is dropped (under the GIL) when its thread exits while Python still runs;
// threads that join pipeline threads must not hold the GIL (they do not).
class WorkerGil {
 public:
  explicit WorkerGil(bool keep = false);
  ~WorkerGil();
  WorkerGil(const WorkerGil&) = delete;
  WorkerGil& operator=(const WorkerGil&) = delete;

 private:
  bool keep_;
  bool restored_ = false;                              // this scope took the GIL with the kept state
  std::optional<pybind11::gil_scoped_acquire> other_;  // any other case: pybind11's way
};

// Releases the GIL if the calling thread kept it (a keep = true hold ended).
void ReleaseKeptGil();

// Makes the pipeline runtime call ReleaseKeptGil (SetInterpreterLockRelease).
void InstallKeptGil();

}  // namespace mindrecord::py_binding
