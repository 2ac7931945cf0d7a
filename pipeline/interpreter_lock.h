// The lock of an interpreter that ops call into (Python's GIL). Taking and
// releasing it for every row costs more than a small callable's work: while
// the consumer thread waits for it, each release wakes that thread, which
// finds the lock taken again by the next row and sleeps (a per-row Python map
// of a trivial callable spent a quarter of its time in those wake-ups). So a
// pipeline thread that took the lock for an op that says so
// (TensorOp::uses_interpreter) keeps it for the next such ops, rows included;
// the runtime releases it before any other op and before the thread may wait
// for another thread (the end of a task's rows, a helper's rows, a claim).
#pragma once

namespace mindrecord {

// Releases the calling thread's kept lock, if it keeps one.
using InterpreterLockRelease = void (*)();

// Installed once by the binding that embeds the interpreter (before any
// pipeline runs); nullptr (the default): no interpreter, nothing to release.
void SetInterpreterLockRelease(InterpreterLockRelease fn);

// Releases the lock if the calling thread keeps it. Cheap when it does not.
// Thread safety: acts on the calling thread's state only.
void ReleaseInterpreterLock();

}  // namespace mindrecord
