"""MindSpore's python_multiprocessing=True: a map's (or batch's
per_batch_map's) Python callables run in worker processes.

map() points each Python callable's PyFunc op (nested ones too) at a
ProcessCallable, registered as a PyFunc (python/bind_pyfunc.cc), so the plan, the row order and
state_dict() are those of the thread path. When a pipeline worker thread
calls it, it takes a free worker process of the map's ProcessPool, copies
the arguments into that worker's input slot (shared memory, see _mp_shm),
sends the layout, and blocks on the pipe without the GIL until the worker
answers; the results are copied out of the worker's output slot. So N
pipeline threads keep N worker processes busy, and a callable runs on every
core while the C++ ops run without the GIL.

Processes are started with "spawn" (the parent has threads, so fork is
unsafe): callables must be picklable (map() checks, naming the callable).
Slots: `max_rowsize` MB each (MindSpore's max_rowsize; [input, output] when
a list); a row that does not fit is an error naming max_rowsize. None or -1
(the default): slots grow to the largest row (MindSpore's -1). With
config.set_enable_shared_mem(False) before map(), a pool makes no slots:
arguments and results are pickled through the pipes (MindSpore's switch
for machines with a small /dev/shm).

Lifetime: an iterator starts the pools of its plan (acquire) and stops them
when it is closed or collected (release): workers are joined and the slots
unlinked. A pipeline started elsewhere (the torch adapter) starts them on
first use and they stop when the process exits. Workers never outlive the
parent: they exit at end of file on a lifeline pipe only the parent holds
(mindrecord._mp_worker), and a segment left by a killed parent is unlinked
by multiprocessing's resource tracker once the workers have exited.

Thread safety: ProcessCallable and ProcessPool may be called from any number
of threads; acquire/release are locked. A forked child (a DataLoader worker)
starts its own workers on first use and never touches its parent's.
"""
import atexit
import itertools
import logging
import multiprocessing
import multiprocessing.util
import os
import pickle
import queue
import signal
import threading
import weakref
from multiprocessing import shared_memory

from mindrecord import _core, _mp_shm, _mp_worker
from mindrecord import config as _config

_MB = 1 << 20
_log = logging.getLogger("mindrecord")
_FIRST_SLOT = 1 * _MB           # a growing slot's first size
_pools_by_ref: "dict[int, ProcessPool]" = {}   # registered callable id -> its ProcessPool
_all_pools: "weakref.WeakSet[ProcessPool]" = weakref.WeakSet()
_segment_ids = itertools.count()


class _RemoteTraceback(Exception):
    """The worker process's traceback, chained as the cause of its exception."""

    def __str__(self):
        return self.args[0]


def rowsize_arg(max_rowsize):
    """MindSpore's max_rowsize as (input bytes, output bytes), 0 for a
    slot that grows; ValueError naming it otherwise."""
    def one(v):
        if v is None or v == -1:
            return 0
        if isinstance(v, int) and not isinstance(v, bool) and v >= 1:
            return v * _MB
        raise ValueError("max_rowsize must be an int >= 1 (MB), -1 or None, or a list of two of them "
                         "[input, output], got %r" % (max_rowsize,))
    if isinstance(max_rowsize, (list, tuple)):
        if len(max_rowsize) != 2:
            raise ValueError("max_rowsize as a list is [input MB, output MB], got %r" % (max_rowsize,))
        return one(max_rowsize[0]), one(max_rowsize[1])
    size = one(max_rowsize)
    return size, size


def workers_arg(num_parallel_workers):
    if num_parallel_workers is None:
        return _config.get_num_parallel_workers()
    return num_parallel_workers


def _name_of(fn):
    return str(getattr(fn, "__qualname__", None) or type(fn).__qualname__)


def _new_segment(size):
    name = "mr_mp_%d_%d" % (os.getpid(), next(_segment_ids))
    return shared_memory.SharedMemory(name=name, create=True, size=max(size, 1))


def _drop_segment(shm):
    shm.close()
    try:
        shm.unlink()
    except FileNotFoundError:
        pass


def _start_process(proc):
    """Starts `proc`, also from a daemonic process (a DataLoader worker),
    which multiprocessing otherwise refuses: the workers are stopped by this
    process and exit with it through their lifeline."""
    config = multiprocessing.current_process()._config
    daemonic = config.get("daemon")
    if daemonic:
        config["daemon"] = False
    try:
        proc.start()
    finally:
        if daemonic:
            config["daemon"] = True


def _exit_text(proc):
    proc.join(5)
    code = proc.exitcode
    if code is None:
        return "stopped answering"
    if code < 0:
        try:
            return "killed by signal %s" % signal.Signals(-code).name
        except ValueError:
            return "killed by signal %d" % -code
    return "exited with code %d" % code


class _Worker:
    """One worker process, its pipes and its two slots."""

    def __init__(self, pool, ctx):
        self.pool = pool
        self.in_shm = _new_segment(pool.in_bytes or _FIRST_SLOT) if pool.shared else None
        self.out_shm = _new_segment(pool.out_bytes or _FIRST_SLOT) if pool.shared else None
        self.conn, child = ctx.Pipe()
        life_r, self.lifeline = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_mp_worker.main, daemon=True, name="mindrecord-mp-" + pool.name,
                                args=(child, life_r, self.out_shm.name if self.out_shm else None, os.getpid()))
        self.ready = False
        self.dead = None  # the error once the process is gone
        _start_process(self.proc)
        child.close()
        life_r.close()
        # The callables follow on the pipe, not as the process's arguments:
        # spawn writes those into a pipe this process still reads from, so a
        # child that dies while starting (a script without the __main__
        # guard) left start() blocked for good on more than a pipe's worth.
        try:
            self.conn.send_bytes(pool.payload)
        except OSError:  # it is gone; the first call says how
            pass

    def _recv(self, who):
        try:
            interval = _config.get_multiprocessing_timeout_interval()
            waited = 0
            while not self.conn.poll(interval):
                waited += interval
                if not self.proc.is_alive():
                    self._died(who)
                _log.warning("%s: python_multiprocessing worker process %d has not answered for %d s (still "
                             "waiting; config.set_multiprocessing_timeout_interval sets how often this is "
                             "logged)", who, self.proc.pid, waited)
            return self.conn.recv()
        except (EOFError, OSError):
            self._died(who)

    def _send(self, msg, who):
        try:
            self.conn.send(msg)
        except (BrokenPipeError, OSError):
            self._died(who)

    def _died(self, who):
        self.dead = "python_multiprocessing worker process %d of %s %s" % (self.proc.pid, who,
                                                                            _exit_text(self.proc))
        if not self.ready:
            self.dead += (" while starting (its own error is on stderr; spawn imports the main script again "
                          "in each worker, so a script's top level must run under "
                          "`if __name__ == \"__main__\":`)")
        raise RuntimeError(self.dead)

    def _too_big(self, who, need, which):
        limit = self.pool.in_bytes if which == "input" else self.pool.out_bytes
        raise ValueError("%s: the row's %s takes %d bytes, more than max_rowsize (%d MB) allows; raise "
                         "max_rowsize or set it to -1 (slots sized to the data)" % (who, which, need, limit // _MB))

    def call(self, op, args, who):
        if self.dead:
            raise RuntimeError(self.dead)
        if not self.ready:
            msg = self._recv(who)
            if msg[0] == "err":
                self.dead = "%s could not be loaded in a worker process: %s: %s" % (who, msg[2], msg[3])
                _raise_remote(msg, "%s could not be loaded in a worker process" % who)
            self.ready = True
        if self.in_shm is None:
            self._send(("call", op, None, ("p", args)), who)
            msg = self._recv(who)
            if msg[0] == "err":
                _raise_remote(msg, None)
            return _mp_shm.read(None, msg[1])
        layout, need = _mp_shm.plan(args)
        if need > self.in_shm.size:
            if self.pool.in_bytes:
                self._too_big(who, need, "input")
            _drop_segment(self.in_shm)
            self.in_shm = _new_segment(max(need, 2 * self.in_shm.size))
        _mp_shm.write(self.in_shm.buf, layout, args)
        self._send(("call", op, self.in_shm.name, layout), who)
        msg = self._recv(who)
        if msg[0] == "grow":
            if self.pool.out_bytes:
                self._send(("drop",), who)
                self._too_big(who, msg[1], "output")
            old, self.out_shm = self.out_shm, _new_segment(max(msg[1], 2 * self.out_shm.size))
            _drop_segment(old)
            self._send(("out", self.out_shm.name), who)
            msg = self._recv(who)
        if msg[0] == "err":
            _raise_remote(msg, None)
        return _mp_shm.read(self.out_shm.buf, msg[1])

    def stop(self):
        try:
            self.conn.send(("stop",))
        except (OSError, ValueError):
            pass
        self.lifeline.close()  # a busy worker exits too
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(5)
        self.conn.close()
        if self.in_shm is not None:
            _drop_segment(self.in_shm)
            _drop_segment(self.out_shm)


def _raise_remote(msg, context):
    _, blob, type_name, text, tb = msg
    exc = None
    if blob is not None and context is None:
        try:
            exc = pickle.loads(blob)
        except Exception:  # noqa: BLE001 (it travels as text then)
            exc = None
    if exc is None:
        exc = RuntimeError("%s%s: %s" % (context + ": " if context else "", type_name, text))
    raise exc from _RemoteTraceback("\n\nIn the worker process:\n" + tb)


class ProcessPool:
    """The worker processes of one map's (or per_batch_map's) callables."""

    def __init__(self, fns, num_workers, max_rowsize):
        self.name = "+".join(_name_of(f) for f in fns)
        self.payload = pickle.dumps(list(fns))
        self.num_workers = num_workers
        self.in_bytes, self.out_bytes = max_rowsize
        # config.set_enable_shared_mem(False): values are pickled through the
        # pipes and no slot is made (max_rowsize then has nothing to bound).
        self.shared = _config.get_enable_shared_mem()
        self._reset()
        _all_pools.add(self)

    def _reset(self):
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._users = 0
        self._workers = []
        self._free = queue.Queue()

    def _start(self):
        """Starts the workers if this process has none (lock held)."""
        if self._pid != os.getpid():
            self._reset_in_child()
        if not self._workers:
            _hook_exit()
            ctx = multiprocessing.get_context("spawn")
            for _ in range(self.num_workers):
                w = _Worker(self, ctx)
                self._workers.append(w)
                self._free.put(w)

    def _reset_in_child(self):
        # A fork copied the parent's workers: leave them to the parent, and
        # drop this process's copies of their pipes (so that the lifelines
        # still end with the parent).
        for w in self._workers:
            w.lifeline.close()
            w.conn.close()
        self._lock = threading.Lock()
        self._pid, self._users, self._workers, self._free = os.getpid(), 0, [], queue.Queue()

    def acquire(self):
        with self._lock:
            self._users += 1
            self._start()

    def release(self):
        with self._lock:
            self._users = max(0, self._users - 1)
            if self._users == 0 and self._pid == os.getpid():
                self._stop()

    def _stop(self):
        workers, self._workers, self._free = self._workers, [], queue.Queue()
        for w in workers:
            w.stop()

    def shutdown(self):
        with self._lock:
            if self._pid == os.getpid():
                self._stop()

    def pids(self):
        with self._lock:
            return [w.proc.pid for w in self._workers]

    def call(self, op, args, who):
        with self._lock:
            if self._pid != os.getpid() or not self._workers:
                self._start()  # used by a pipeline no iterator owns: stops at exit
            free = self._free
        w = free.get()
        try:
            return w.call(op, args, who)
        finally:
            free.put(w)


class ProcessCallable:
    """A callable of a python_multiprocessing map: runs `index`'s callable
    of `pool` in a worker process. Named as the callable it runs."""

    def __init__(self, pool, index, name):
        self._pool, self._index = pool, index
        self.__qualname__ = name
        self._who = "Python callable '%s'" % name

    def __call__(self, *args):
        return self._pool.call(self._index, args, self._who)


def _check_picklable(fn, what):
    try:
        pickle.dumps(fn)
    except Exception as e:  # noqa: BLE001 (any pickling failure)
        raise TypeError("%s(python_multiprocessing=True): %r cannot be sent to the worker processes: they are "
                        "started with 'spawn' (the pipeline's threads make fork unsafe), so a callable must "
                        "pickle (a module-level function, or an instance of a module-level class); %s: %s"
                        % (what, _name_of(fn), type(e).__name__, e)) from e


def _callables_in(operations, found):
    """The Python callables of an operations list, nested ones (inside
    Compose, RandomApply, ...) included, each once, in order."""
    from mindrecord._ops_base import TensorOperation
    for op in operations if isinstance(operations, (list, tuple)) else [operations]:
        if isinstance(op, TensorOperation):
            _callables_in(getattr(op, "transforms", []), found)
        elif callable(op) and not any(op is f for f in found):
            found.append(op)
    return found


def wrap_specs(operations, specs, num_workers, max_rowsize, what="map"):
    """`specs` (to_specs(operations)) with each Python callable's PyFunc
    pointing at a ProcessCallable of one new pool instead; mindrecord ops
    stay as they are (C++, in the pipeline's threads)."""
    fns = _callables_in(operations, [])
    if not fns:
        return specs
    for fn in fns:
        _check_picklable(fn, what)
    pool = ProcessPool(fns, num_workers, max_rowsize)
    remap = {}
    for k, fn in enumerate(fns):
        ref = _core.register_callable(ProcessCallable(pool, k, _name_of(fn)))
        _pools_by_ref[ref] = pool
        remap[_core.register_callable(fn)] = ref

    for node in _dicts_in(specs):
        if node.get("op") == "PyFunc" and node.get("_ref") in remap:
            node["_ref"] = remap[node["_ref"]]
    return specs


def wrap_batch_map(fn, num_workers, max_rowsize):
    """A per_batch_map run in worker processes."""
    _check_picklable(fn, "batch")
    pool = ProcessPool([fn], num_workers, max_rowsize)
    proxy = ProcessCallable(pool, 0, _name_of(fn))
    proxy._who = "per_batch_map '%s'" % _name_of(fn)
    return proxy, pool


def note_ref(ref, pool):
    _pools_by_ref[ref] = pool


def forget_ref(ref):
    _pools_by_ref.pop(ref, None)


def pools_in(plan):
    """The pools of the python_multiprocessing callables a plan (JSON-like)
    uses."""
    found = []
    for node in _dicts_in(plan):
        ref = node.get("_ref")
        pool = _pools_by_ref.get(ref) if isinstance(ref, int) else None
        if pool is not None and pool not in found:
            found.append(pool)
    return found


def _dicts_in(node):
    """Every dict in a JSON-like tree, outermost first."""
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from _dicts_in(v)
    elif isinstance(node, list):
        for v in node:
            yield from _dicts_in(v)


def acquire_for(plan):
    """Starts the worker processes `plan` needs; returns the pools to
    release() when the pipeline is closed."""
    pools = pools_in(plan)
    done = []
    try:
        for p in pools:
            p.acquire()
            done.append(p)
    except BaseException:
        release(done)
        raise
    return pools


def release(pools):
    for p in pools:
        p.release()


@atexit.register
def _shutdown_all():
    for p in list(_all_pools):
        p.shutdown()


def _after_fork_in_child():
    for p in list(_all_pools):
        p._reset_in_child()


os.register_at_fork(after_in_child=_after_fork_in_child)
_hooked_pid: "int | None" = None


def _hook_exit():
    """A multiprocessing child (a DataLoader worker) ends through os._exit
    after multiprocessing's finalizers, not atexit: stop the workers there
    too (registered per process: a child starts with no finalizers)."""
    global _hooked_pid
    if _hooked_pid != os.getpid():
        _hooked_pid = os.getpid()
        multiprocessing.util.Finalize(None, _shutdown_all, exitpriority=10)
