#include "python/worker_gil.h"

#include "pipeline/interpreter_lock.h"

namespace mindrecord::py_binding {

namespace {

// The Python thread state this thread keeps; deleted as the thread ends.
struct KeptThreadState {
  PyThreadState* ts = nullptr;
  bool held = false;  // the GIL is kept by this thread past a hold's end
  ~KeptThreadState() {
    if (ts == nullptr || !Py_IsInitialized() || _Py_IsFinalizing()) return;  // Python is gone: it took them all
    if (!held) PyEval_RestoreThread(ts);
    PyThreadState_Clear(ts);
    PyThreadState_DeleteCurrent();  // and releases the GIL
  }
};

thread_local KeptThreadState t_kept;

}  // namespace

WorkerGil::WorkerGil(bool keep) : keep_(keep) {
  if (t_kept.held) return;  // this thread has it
  if (t_kept.ts == nullptr && PyGILState_GetThisThreadState() == nullptr) {
    // A thread without a state of Python's or pybind11's: make the one it keeps.
    // Made on this thread, so that PyGILState_Ensure and pybind11 find it
    // here too; its count of holders starts at 1 (ours), so that theirs
    // never drops it.
    PyThreadState* ts = PyThreadState_New(PyInterpreterState_Main());
    if (ts != nullptr) {
      ts->gilstate_counter = 1;
      t_kept.ts = ts;
    }
  }
  if (t_kept.ts != nullptr && PyGILState_GetThisThreadState() == t_kept.ts &&
      _PyThreadState_UncheckedGet() != t_kept.ts) {
    PyEval_RestoreThread(t_kept.ts);
    restored_ = true;
    return;
  }
  other_.emplace();  // a Python thread, or the GIL already held here
}

WorkerGil::~WorkerGil() {
  if (!restored_) return;
  if (keep_) {
    t_kept.held = true;
  } else {
    PyEval_SaveThread();
  }
}

void ReleaseKeptGil() {
  if (!t_kept.held) return;
  t_kept.held = false;
  PyEval_SaveThread();
}

void InstallKeptGil() { SetInterpreterLockRelease(ReleaseKeptGil); }

}  // namespace mindrecord::py_binding
