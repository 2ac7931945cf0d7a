"""The main loop of a python_multiprocessing worker process (started with
the "spawn" method by mindrecord._mp_pool; the child imports the mindrecord
package and the callables' own modules).

It runs the map's callables on the rows the parent hands it, one call at a
time: the parent writes the arguments into the input slot (shared memory),
sends ("call", op, slot name, layout), and the worker replies ("ok",
layout) with the results in the output slot, ("grow", bytes) when they do
not fit it (the parent answers with a larger slot, ("out", name), or
("drop",) when max_rowsize fixes the size), or ("err", pickled exception,
type, message, traceback) when the callable raised. Without shared memory
(no slot names) the values travel pickled in the layouts ("p"). The worker never
outlives the parent: it exits when the request pipe or the lifeline pipe
(whose write end only the parent holds) reaches end of file, or when its
parent process changes (the parent died and it was re-parented).

Thread safety: one process per worker; its watchdog thread only exits it.
"""
import os
import pickle
import signal
import threading
import traceback
from multiprocessing import shared_memory

from mindrecord import _mp_shm


def _watch(lifeline, ppid):
    while True:
        try:
            if lifeline.poll(1.0):
                lifeline.recv()
        except (EOFError, OSError):
            os._exit(0)
        if os.getppid() != ppid:
            os._exit(0)


class _Slot:
    """A shared-memory segment the parent created, attached by name."""

    def __init__(self):
        self.name, self.shm = None, None

    def attach(self, name):
        if name != self.name:
            if self.shm is not None:
                self.shm.close()
            # The parent's resource tracker (shared with spawned children)
            # already knows the name; the parent alone unlinks it.
            self.shm = shared_memory.SharedMemory(name=name)
            self.name = name
        return self.shm.buf


def _error_reply(exc):
    try:
        blob = pickle.dumps(exc)
        pickle.loads(blob)
    except Exception:  # an exception that does not pickle travels as text
        blob = None
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return ("err", blob, type(exc).__qualname__, str(exc), tb)


def _serve(conn, fns, in_slot, out_slot):
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg[0] == "stop":
            return
        _, op, in_name, layout = msg
        try:
            args = _mp_shm.read(in_slot.attach(in_name) if in_name else None, layout)
            result = fns[op](*args)
            if out_slot is None:  # no shared memory: the result is pickled
                conn.send(("ok", ("p", result)))
                continue
            out_layout, need = _mp_shm.plan(result)
        except BaseException as e:  # noqa: B902 (SystemExit too: it becomes the caller's error)
            conn.send(_error_reply(e))
            continue
        if need > out_slot.shm.size:
            conn.send(("grow", need))
            answer = conn.recv()
            if answer[0] != "out":
                continue  # dropped: the result does not fit max_rowsize
            out_slot.attach(answer[1])
        try:
            _mp_shm.write(out_slot.shm.buf, out_layout, result)
        except BaseException as e:  # noqa: B902
            conn.send(_error_reply(e))
            continue
        conn.send(("ok", out_layout))


def main(conn, lifeline, out_name, ppid):
    """Entry point of a worker: the map's callables, pickled, come first on `conn`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    threading.Thread(target=_watch, args=(lifeline, ppid), daemon=True, name="mindrecord-mp-watchdog").start()
    try:
        fns = pickle.loads(conn.recv_bytes())
        out_slot = None  # no shared memory (config.set_enable_shared_mem(False))
        if out_name is not None:
            out_slot = _Slot()
            out_slot.attach(out_name)
    except BaseException as e:  # noqa: B902
        conn.send(_error_reply(e))
        return
    conn.send(("ready", os.getpid()))
    _serve(conn, fns, _Slot(), out_slot)
