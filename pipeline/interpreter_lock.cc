#include "pipeline/interpreter_lock.h"

#include <atomic>

namespace mindrecord {

namespace {
std::atomic<InterpreterLockRelease> g_release{nullptr};
}  // namespace

void SetInterpreterLockRelease(InterpreterLockRelease fn) { g_release.store(fn, std::memory_order_release); }

void ReleaseInterpreterLock() {
  if (InterpreterLockRelease fn = g_release.load(std::memory_order_acquire)) fn();
}

}  // namespace mindrecord
