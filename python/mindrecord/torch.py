"""PyTorch adapter: a MindRecord dataset as a torch IterableDataset.

    ds = MindRecordDataset("train.mindrecord", columns=["image", "label"],
                           ops={"image": [vision.Decode(), vision.RandomResizedCrop(224), vision.HWC2CHW()]},
                           batch_size=256, seed=0)
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=4, pin_memory=True)
    for epoch in range(10):
        ds.set_epoch(epoch)
        for batch in loader: ...

Rows are split across torch.distributed ranks and DataLoader workers with
no duplicates and no gaps: each rank takes its share of the epoch's
(shuffled) order, cut into batches dealt to its workers in turn. Every split
computes the same order from (seed, epoch), so set_epoch() reshuffles.

Mid-epoch resume: StatefulDataLoader (torchdata's API) counts what the
DataLoader hands out; see _torch_resume.py. int32 columns come out as int64
(what torch losses take for class indices) unless int32_as_int64=False.

Inside a DataLoader worker, the C++ batcher builds each batch's large
numeric columns straight into a per-worker ring of reused shared-memory
buffers (_Ring), so passing the batch to the main process copies nothing
and no fresh segment is faulted in per batch. The main process maps each
ring buffer once and keeps it while the dataset object lives; workers
started afresh each epoch take those buffers over, and their batches then
cross without a file descriptor. Small columns are pickled by value.
"""
import json
import math
import mmap
import os
import functools
import itertools
import threading
import weakref
from multiprocessing.reduction import DupFd

import numpy as np

import torch
import torch.utils.data

from mindrecord import _core, _elastic, _mp_pool
from mindrecord._torch_resume import (EPOCH, GEN, START_EPOCH, START_POS, BY_LOADER, WORKER_ITERS, Progress,
                                      StartCells, StatefulDataLoader, worker_split)
from mindrecord.dataset import MindDataset, _io_mode, _io_plan_keys, _shuffle_mode
from mindrecord.iterators import abandon_in_forked_child
from mindrecord.dataset_tree import tree_of
from mindrecord._remote import remote_dict, remote_json, source_path
from mindrecord.filereader import warn_reader
from mindrecord.vision import TypeCast, to_specs

__all__ = ["MindRecordDataset", "StatefulDataLoader"]


_DTYPES = {"uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
           "int64": torch.int64, "float32": torch.float32, "float64": torch.float64, "bool": torch.bool}


def _shared_batch_buffer(dtype, shape):
    """Batch allocator for the C++ pipeline: a tensor in torch shared memory
    (as DataLoader's own collate makes in workers), its address and size."""
    t = torch.empty(0, dtype=_DTYPES[dtype])
    nbytes = math.prod(shape) * t.element_size()
    if nbytes == 0:
        t = torch.empty(shape, dtype=t.dtype)
    else:
        t.set_(torch.UntypedStorage._new_shared(nbytes), 0, shape)
    return t, t.data_ptr(), nbytes


# Columns at least this large are built in the worker's ring (_Ring).
_RING_MIN_BYTES = 64 << 10
# Ring buffers per worker process. In flight at once: the C++ pipeline's
# queue, DataLoader's prefetch_factor per worker, and what the consumer holds;
# past this, batches fall back to fresh torch shared memory (never a wait).
_RING_MAX_SLOTS = 12
# Each buffer starts with a control page: 64-bit counters of copies sent and
# released, and the pid of the worker that owns (writes) the buffer. Data
# follows at _CTRL.
_CTRL = 4096
_SENT, _RELEASED, _OWNER = 0, 8, 16
_POPULATE = getattr(mmap, "MAP_POPULATE", 0)
_MADV_POPULATE_WRITE = 23  # Linux >= 5.14; older kernels refuse it (then pages fault in on use)


def _ctrl_address(mapping):
    """Address of a buffer's control page (the start of its mapping)."""
    return np.frombuffer(mapping, np.uint8, count=_CTRL).ctypes.data


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists (another user's): not ours to take
    return True


class _Slot:
    """One buffer: a memfd of _CTRL + nbytes bytes and its mapping here."""

    def __init__(self, index, nbytes, fd=None, mapping=None):
        self.index, self.nbytes = index, nbytes
        if fd is None:
            fd = os.memfd_create("mindrecord-batch", os.MFD_CLOEXEC)
            try:
                os.ftruncate(fd, _CTRL + nbytes)
                # Populated in one call: cheaper than faulting 38 MB page by page.
                mapping = mmap.mmap(fd, _CTRL + nbytes, flags=mmap.MAP_SHARED | _POPULATE)
            except BaseException:
                os.close(fd)
                raise
        self.fd, self.map = fd, mapping
        self.ctrl = _ctrl_address(mapping)
        self.address = self.ctrl + _CTRL
        self.gen = 0
        self.local = False  # a tensor in this process still uses the buffer
        self.kept_ident = None  # (dev, ino, size) when taken over from the parent's kept buffers

    def free(self):
        """No tensor here uses it and every copy sent was released."""
        return not self.local and (_core._u64_load(self.ctrl + _RELEASED) == _core._u64_load(self.ctrl + _SENT))

    def close(self):
        try:
            self.map.close()
        except BufferError:
            pass  # an array over it still exists here (e.g. copied by fork): unmapped with it
        os.close(self.fd)


class _Ring:
    """Reused shared-memory batch buffers of one DataLoader worker process
    (per dataset and worker id).

    A buffer is handed out again only when no tensor over it is alive here
    and every copy sent to another process was released: the receiving side
    (_rebuild_ring_tensor) adds to the buffer's `released` counter when its
    tensor's storage is freed. Buffers never released (a batch dropped
    unread at shutdown) stay busy; once all _RING_MAX_SLOTS are busy the
    caller falls back to fresh memory.

    The receiving process keeps the buffers it has mapped (_kept) while the
    dataset object lives there. Workers started afresh for the next epoch
    are forked from it, inherit those buffers and adopt the ones whose owner
    has exited (compare-and-swap of the owner pid), so each epoch does not
    start with fresh memory to fault in."""

    def __init__(self, key):
        self.pid = os.getpid()
        self.slots = {}  # index -> _Slot
        self.adopted = 0
        self.lock = threading.RLock()  # allocator (C++ threads, GIL), finalizers, feeder thread
        with _kept_lock:
            inherited = dict(_kept.get(key, {}))
        for index, k in sorted(inherited.items()):
            if len(self.slots) >= _RING_MAX_SLOTS:
                break
            owner = _core._u64_load(k.ctrl + _OWNER)
            if owner == self.pid or (owner != 0 and _alive(owner)):
                continue  # another live worker writes this buffer
            if not _core._u64_cas(k.ctrl + _OWNER, owner, self.pid):
                continue
            try:
                k.map.madvise(_MADV_POPULATE_WRITE, _CTRL, k.size - _CTRL)
            except (OSError, ValueError):
                pass
            slot = self.slots[index] = _Slot(index, k.size - _CTRL, os.dup(k.fd), k.map)
            slot.kept_ident = k.ident  # the parent maps it already: batches in it cross without a descriptor
            self.adopted += 1

    def take(self, nbytes):
        """A free slot of at least nbytes (at most 2x, to keep large buffers
        for large columns), marked in use; None when every slot is busy."""
        with self.lock:
            free = [s for s in self.slots.values() if s.free()]
            fits = [s for s in free if nbytes <= s.nbytes <= 2 * nbytes]
            if fits:
                slot = min(fits, key=lambda s: s.nbytes)
            elif len(self.slots) < _RING_MAX_SLOTS:
                index = min(set(range(_RING_MAX_SLOTS)) - set(self.slots))
                slot = self.slots[index] = self._new_slot(index, nbytes)
            elif free:  # replace a free buffer of the wrong size
                old = free[0]
                old.close()
                slot = self.slots[old.index] = self._new_slot(old.index, nbytes)
            else:
                return None
            slot.gen += 1
            slot.local = True
            return slot

    def _new_slot(self, index, nbytes):
        slot = _Slot(index, nbytes)
        _core._u64_add(slot.ctrl + _OWNER, self.pid)
        return slot

    def _unlocal(self, slot, gen):
        with self.lock:
            if slot.gen == gen:
                slot.local = False


_rings: dict = {}  # (dataset token, worker id) -> _Ring of this process
_rings_pid = None


def _worker_ring(key):
    global _rings_pid
    if _rings_pid != os.getpid():
        _rings.clear()
        _rings_pid = os.getpid()
    ring = _rings.get(key)
    if ring is None:
        ring = _rings[key] = _Ring(key)
    return ring


class _RingTensor(torch.Tensor):
    """A batch column in a _Ring buffer. Pickling it (DataLoader sending it
    to the main process) passes the buffer's file descriptor (or, for a
    buffer taken over from the receiver, its name), not the data.
    Results of operations on it are plain tensors."""
    __torch_function__ = torch._C._disabled_torch_function_impl

    def __reduce_ex__(self, protocol):
        ring, slot, gen, key = self._mr_ring
        with ring.lock:
            mine = (slot.gen == gen and slot.address <= self.data_ptr() < slot.address + slot.nbytes)
            if mine:
                _core._u64_add(slot.ctrl + _SENT, 1)
        if not mine:  # its storage was replaced (e.g. share_memory_): send it as torch does
            from torch.multiprocessing.reductions import reduce_tensor
            return reduce_tensor(self.as_subclass(torch.Tensor))
        offset = self.data_ptr() - slot.address
        layout = (key, slot.index, str(self.dtype).split(".")[1], tuple(self.shape), self.stride(), offset)
        if slot.kept_ident is not None:
            return (_rebuild_adopted_tensor, (slot.kept_ident, os.getpid(), slot.fd) + layout)
        return (_rebuild_ring_tensor, (DupFd(slot.fd),) + layout)


class _InlineTensor(torch.Tensor):
    """A small batch column (under _RING_MIN_BYTES) built in a worker:
    pickled by value, so sending it passes no file descriptor (a connection
    to the worker's descriptor-sharing thread each, as torch shared memory
    needs) and maps nothing. Results of operations on it are plain tensors."""
    __torch_function__ = torch._C._disabled_torch_function_impl

    def __reduce_ex__(self, protocol):
        t = self.as_subclass(torch.Tensor).contiguous()
        return (_rebuild_inline_tensor, (t.numpy().tobytes(), str(t.dtype).split(".")[1], tuple(t.shape)))


def _rebuild_inline_tensor(data, dtype, shape):
    if not data:
        return torch.empty(shape, dtype=_DTYPES[dtype])
    return torch.frombuffer(bytearray(data), dtype=_DTYPES[dtype]).view(shape)


class _Kept:
    """A ring buffer as mapped by a receiving process."""

    def __init__(self, fd, st, mapping):
        self.fd, self.map, self.size = fd, mapping, st.st_size
        self.ident = (st.st_dev, st.st_ino, st.st_size)
        self.ctrl = _ctrl_address(mapping)

    def close(self):
        os.close(self.fd)  # the mapping goes when the last tensor over it does


_kept: dict = {}      # (dataset token, worker id) -> {slot index: _Kept}
_kept_tokens = set()  # datasets alive in this process: only their buffers are kept
_kept_lock = threading.Lock()


def _after_fork_in_child():
    global _kept_lock
    _kept_lock = threading.Lock()  # another thread may have held it at fork


os.register_at_fork(after_in_child=_after_fork_in_child)


def _forget(token):
    """The dataset is gone: drop the buffers kept for it."""
    with _kept_lock:
        _kept_tokens.discard(token)
        for key in [k for k in _kept if k[0] == token]:
            for k in _kept.pop(key).values():
                k.close()


def _release(mapping, ctrl):
    # `mapping` keeps the control page mapped until this has run.
    _core._u64_add(ctrl + _RELEASED, 1)


def _rebuild_ring_tensor(fd_dup, key, index, dtype, shape, stride, offset):
    """In the receiving process: a plain tensor over the worker's buffer.
    The buffer's mapping is kept and reused for later batches in it; when
    the tensor's storage is freed (no tensor or view uses it any more), the
    buffer's `released` counter tells the worker it may reuse it."""
    return _tensor_over(fd_dup.detach(), key, index, dtype, shape, stride, offset)


def _rebuild_adopted_tensor(ident, pid, worker_fd, key, index, dtype, shape, stride, offset):
    """As _rebuild_ring_tensor, for a buffer the worker took over from this
    process's kept buffers: mapped here already. A receiver that does not
    keep it (another process, or its kept buffer at `index` was replaced
    since) opens the worker's descriptor through /proc."""
    with _kept_lock:
        k = _kept.get(key, {}).get(index)
    if k is not None and k.ident == tuple(ident):
        return _tensor_over(None, key, index, dtype, shape, stride, offset, k)
    try:
        fd = os.open("/proc/%d/fd/%d" % (pid, worker_fd), os.O_RDWR | os.O_CLOEXEC)
    except OSError as e:
        raise RuntimeError("mindrecord.torch: cannot open the batch buffer of DataLoader worker %d (%s)"
                           % (pid, e)) from e
    return _tensor_over(fd, key, index, dtype, shape, stride, offset)


def _tensor_over(fd, key, index, dtype, shape, stride, offset, k=None):
    """A tensor over the kept buffer `k`, or over buffer `fd` (this takes
    it: kept with its mapping while the dataset lives here, else closed and
    mapped as long as the tensor lives)."""
    kept = k is not None
    if k is None:
        try:
            st = os.fstat(fd)
            with _kept_lock:
                slots = _kept.setdefault(key, {}) if key[0] in _kept_tokens else None
                k = slots.get(index) if slots is not None else None
                if k is None or k.ident != (st.st_dev, st.st_ino, st.st_size):
                    k = _Kept(fd, st, mmap.mmap(fd, st.st_size, flags=mmap.MAP_SHARED | _POPULATE))
                    fd = -1
                    if slots is not None:
                        old, slots[index] = slots.get(index), k
                        if old is not None:
                            old.close()
            kept = slots is not None
        finally:
            if fd >= 0:
                os.close(fd)
    item = torch.empty(0, dtype=_DTYPES[dtype]).element_size()
    view = np.frombuffer(k.map, np.uint8, count=(k.size - _CTRL) // item * item, offset=_CTRL)
    # torch.from_numpy keeps `view` referenced until the storage is freed.
    weakref.finalize(view, _release, k.map, k.ctrl).atexit = False
    if not kept:
        k.close()  # not kept: the mapping lives as long as the tensor
    return torch.from_numpy(view).view(_DTYPES[dtype]).as_strided(shape, stride, offset // item)


def _worker_batch_buffer(key, dtype, shape):
    """Batch allocator in DataLoader workers: large columns in the ring (in
    torch shared memory while the ring is busy), small ones pickled by value."""
    item = torch.empty(0, dtype=_DTYPES[dtype]).element_size()
    nbytes = math.prod(shape) * item
    if nbytes >= _RING_MIN_BYTES:
        ring = _worker_ring(key)
        slot = ring.take(nbytes)
        if slot is not None:
            base = np.frombuffer(slot.map, np.uint8, count=nbytes, offset=_CTRL)
            # Clears `local` once no tensor here uses the buffer any more.
            weakref.finalize(base, ring._unlocal, slot, slot.gen).atexit = False
            t = torch.from_numpy(base).view(_DTYPES[dtype]).view(shape).as_subclass(_RingTensor)
            t._mr_ring = (ring, slot, slot.gen, key)
            return t, slot.address, nbytes
        return _shared_batch_buffer(dtype, shape)
    t = torch.empty(shape, dtype=_DTYPES[dtype]).as_subclass(_InlineTensor)
    return t, t.data_ptr(), nbytes


def _tensor(value):
    if isinstance(value, list):
        if value and isinstance(value[0], (bytes, str)):
            return value  # a bytes / string column: its values as they are
        return [_tensor(v) for v in value]
    if isinstance(value, torch.Tensor):
        return value  # built by the C++ batcher in _shared_batch_buffer's memory
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        if value.dtype.kind == "U":
            return value  # an array of strings (text ops): torch has no tensor of them
        return torch.from_numpy(value)  # shares the C++ batch buffer
    return value


def _row_batch(reader, ops, remote):
    """Rows per pipeline batch when rows are handed out one by one (no
    batch_size): each batch crosses from the C++ workers to this thread in one
    handoff (a few futex calls, 20-30 us each on a virtual machine), so 256
    rows (1.1-1.2x as fast as 64 over shuffled ~1 KiB rows) when they take at
    most 16 KiB each as stored (the shards' bytes past their headers, per
    row); else, with ops (whose outputs, such as decoded images, can be much
    larger than what is stored) or remote shards, 64."""
    if ops or remote is not None or reader.num_rows == 0:
        return 64
    try:
        stored = sum(os.path.getsize(p) - reader.header_size for p in reader.shard_paths)
    except OSError:
        return 64
    return 256 if stored <= (16 << 10) * reader.num_rows else 64


def _rows(cols):
    """The rows of one batch as an iterator of dicts, made without a Python
    frame per row: tensor columns are split by Tensor.unbind (views of the
    batch's buffer, as batch[i] gives), lists are taken as they are."""
    keys = list(cols)
    per_column = [v.unbind(0) if isinstance(v, torch.Tensor) else v for v in map(_tensor, cols.values())]
    return map(dict, map(zip, itertools.repeat(keys), zip(*per_column)))


class MindRecordDataset(torch.utils.data.IterableDataset):
    """Yields dicts of torch tensors: one row each, or whole batches with
    `batch_size` (then use DataLoader(batch_size=None)); batching in C++ is
    much faster than the DataLoader's collate.

    `ops`: {column: [ops]} as MindDataset.map takes them (mindrecord.vision
    ops and Python callables). Callables are found by a per-process id, so
    with callables use DataLoader workers started by fork (Linux default),
    not spawn.

    `rank` / `world_size` default to torch.distributed's when it is
    initialized, else 0 / 1; spawned DataLoader workers (the default under
    torch.multiprocessing.spawn) take them from the process that made the
    DataLoader. `pad_ranks=True` gives every rank the same number of rows
    (ceil(rows / world_size)) by repeating rows at the end of the epoch's
    order, as torch's DistributedSampler does (DDP needs the same number of
    steps on every rank); off by default: each row read once.

    Each rank's rows are cut into batches of `batch_size` (without it, rows
    one by one) dealt to its DataLoader workers in turn, which the DataLoader interleaves back
    in order: a rank yields the same sequence for any num_workers, only its
    last batch can be short (dropped with drop_last), and len() counts
    batches with `batch_size`, rows without. `num_threads`: C++ threads (reading,
    decoding, ops) per DataLoader worker process, or in the main process
    with num_workers=0; default 1 in a worker (the workers are the
    parallelism) and 2 in the main process. bytes / string columns stay
    Python lists (bytes / str per row). In DataLoader workers, large batched
    numeric columns are built in shared memory (no copy to reach the main
    process); small ones (< 64 KiB) are pickled by value.

    Without `batch_size`, rows come from the pipeline's batches of 64, split
    into rows in C (Tensor.unbind, zip, dict) and chained, so no Python
    frame runs per row; each row's tensors are views of its batch, as
    `batch[i]` would give.

    `io_mode`: "auto" (default), "pread", "mmap" or "direct";
    `direct_fallback`, `auto_direct_above`: as in MindDataset; ValueError for
    other values. `remote`: as in MindDataset (datasets named by URL); the
    DataLoader workers of one machine share its page cache.

    set_epoch also reaches persistent DataLoader workers
    (persistent_workers=True, which saves starting the workers and opening
    the dataset every epoch).

    `int32_as_int64` (default True): int32 columns without ops come out as
    torch.int64, the type torch's losses (cross_entropy, nll_loss) take for
    class indices and what DataLoader's collate makes of Python ints, cast
    in the C++ pipeline. False keeps the stored int32, as MindSpore's
    MindDataset gives it (MindSpore's losses take int32 labels).

    state_dict() / load_state_dict(): where an iteration in this process
    (a loop over the dataset, or DataLoader(num_workers=0)) stands, in
    MindDataset's format; the next iteration of the state's epoch continues
    there. With DataLoader workers, only the DataLoader knows what the loop
    took: use StatefulDataLoader, whose state_dict() this state is.

    `dataset_files` may also be a mindrecord.MindDataset (unbatched: this
    class batches), with its maps, filters and combinators (concat, zip,
    mix, ...): its rows, in its order, are split across ranks and workers
    by position as above. `shuffle` and `int32_as_int64` are then the
    dataset's own (leave them None); `seed` defaults to the dataset's. With
    a filter in it, a rank's share of positions yields fewer rows: len()
    raises TypeError and mid-epoch resume (state_dict) NotImplementedError.

    Thread safety: configure (set_epoch, load_state_dict) from the main
    process between epochs; each DataLoader worker iterates its own copy.
    """

    def __init__(self, dataset_files: "str | list[str] | MindDataset", columns: list[str] | None = None,
                 ops: dict[str, list] | None = None, shuffle: bool | str | None = None, seed: int | None = None,
                 batch_size: int | None = None, drop_last: bool = False, num_threads: int | None = None,
                 rank: int | None = None, world_size: int | None = None, io_mode: str = "auto",
                 direct_fallback: bool = False, auto_direct_above: int | None = None,
                 pad_ranks: bool = False, int32_as_int64: bool | None = None,
                 remote: dict[str, object] | None = None) -> None:
        super().__init__()
        self._remote = remote_dict(remote)
        self._io_mode = _io_mode(io_mode)
        self._io_keys = _io_plan_keys(direct_fallback, auto_direct_above)
        self._columns = list(columns or [])
        self._ops = {c: to_specs(o) for c, o in (ops or {}).items()}
        self._tree = None
        self._drops = False
        if isinstance(dataset_files, MindDataset):
            self._init_tree(dataset_files, shuffle, seed, int32_as_int64)
            shuffle, int32_as_int64 = False, False
            seed = dataset_files._plan["seed"] if seed is None else seed
        else:
            files = [dataset_files] if isinstance(dataset_files, str) else list(dataset_files)
            self._source = [source_path(f) for f in files]
        shuffle = True if shuffle is None else shuffle
        int32_as_int64 = True if int32_as_int64 is None else int32_as_int64
        seed = 0 if seed is None else seed
        if not isinstance(int32_as_int64, bool):
            raise TypeError("int32_as_int64 must be a bool, got %r" % (int32_as_int64,))
        self._shuffle = _shuffle_mode(shuffle)
        self._seed = int(seed)
        self._batch_size = batch_size
        self._drop_last = bool(drop_last)
        self._threads = None if num_threads is None else int(num_threads)
        self._rank, self._world = rank, world_size
        if not isinstance(pad_ranks, bool):
            raise TypeError("pad_ranks must be a bool, got %r" % (pad_ranks,))
        self._pad = pad_ranks
        # An elastic epoch (the sampler's "elastic" object, see _elastic.py),
        # and its rows per (rank, world).
        self._elastic = None
        self._elastic_rows: dict = {}
        # The epoch and where iterations start, in shared memory, so that
        # persistent DataLoader workers (which keep the copy of this object
        # they started with) see set_epoch and resumes too.
        self._cells = StartCells()
        self._seen_gen = 0           # the start stamp this copy has used
        self._progress = None        # the last iteration in this process (Progress)
        self._worker_iters_seen = 0  # worker iterations begun when _progress was set
        self._row_batch = 64
        if self._tree is None:
            reader = _core.Reader(self._source[0], [], "pread", [], False, remote_json(self._remote))
            warn_reader(reader)
            self._total = reader.num_rows
            self._row_batch = _row_batch(reader, self._ops, self._remote)
        if int32_as_int64 and self._tree is None:
            schema = json.loads(reader.schema_json)
            for c in self._columns or sorted(schema):
                if schema.get(c, {}).get("type") == "int32" and c not in self._ops:
                    self._ops[c] = to_specs([TypeCast("int64")])
        # Names this dataset's buffer rings; the buffers the main process
        # keeps for them are dropped with this object.
        self._token = os.urandom(8).hex()
        with _kept_lock:
            _kept_tokens.add(self._token)
        weakref.finalize(self, _forget, self._token)

    def _init_tree(self, ds, shuffle, seed, int32_as_int64):
        """The rows of MindDataset `ds` (its execution tree)."""
        if ds._batched or ds._repeat_after != 1:
            raise ValueError("give MindRecordDataset the dataset before batch() (it batches: batch_size=)")
        if ds._callbacks:
            raise NotImplementedError("map callbacks run in MindDataset's own iterators, not in mindrecord.torch")
        if shuffle is not None:
            raise ValueError("shuffle is the dataset's own (MindDataset(shuffle=...), .shuffle()); leave it None")
        if int32_as_int64:
            raise NotImplementedError("int32_as_int64 with a dataset: the types are its maps' (cast with "
                                      "vision.TypeCast in a map); leave it None")
        tree = tree_of(ds)
        self._keep = list(getattr(ds, "_keep", []))  # what the tree's Python sources need alive
        if self._columns:
            tree = {"node": "project", "input": tree, "columns": self._columns}
        if self._ops:
            tree = {"node": "ops", "input": tree, "ops": self._ops}
        self._tree = tree
        self._io_keys = dict({k: ds._plan[k] for k in ("direct_fallback", "auto_direct_above") if k in ds._plan},
                             **self._io_keys)
        if self._io_mode == "auto":
            self._io_mode = ds._plan.get("io_mode", "auto")
        if self._remote is None and "remote" in ds._plan:
            self._remote = ds._plan["remote"]
        probe = {"tree": tree, "seed": ds._plan["seed"]}
        if self._remote is not None:
            probe["remote"] = self._remote
        info = _core.plan_info(json.dumps(probe))
        self._total = info["rows"]
        self._drops = info["drops_rows"] or info["counted"]

    def set_epoch(self, epoch: int) -> None:
        """Selects the epoch's order; call before each epoch to reshuffle."""
        self._cells[EPOCH] = int(epoch)

    @property
    def _epoch(self):
        return self._cells[EPOCH]

    def _rank_world(self):
        if self._world is not None:
            return int(self._rank or 0), int(self._world)
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            return torch.distributed.get_rank(), torch.distributed.get_world_size()
        return 0, 1

    def __getstate__(self):
        # Pickled for a spawned DataLoader worker (the start method of a
        # process made by torch.multiprocessing.spawn): the worker has no
        # process group, so it takes this process's rank and world size.
        state = self.__dict__.copy()
        state["_progress"] = None  # this process's iteration (it may hold a chunk of rows)
        if self._world is None:
            state["_rank"], state["_world"] = self._rank_world()
        return state

    def _rank_rows(self, epoch=None):
        rank, world = self._rank_world()
        el = self._elastic
        if el is not None and (self._epoch if epoch is None else epoch) == int(el["epoch"]):
            # The elastic epoch: this rank's share of the rows left.
            key = (rank, world, json.dumps(el, sort_keys=True))
            if key not in self._elastic_rows:
                plan = self._plan(rank, world, 0, 1, 1, int(el["epoch"]))
                self._elastic_rows[key] = int(_core.epoch_size(json.dumps(plan), int(el["epoch"])))
            return self._elastic_rows[key]
        if self._pad:
            return -(-self._total // world)
        return self._total // world + (1 if rank < self._total % world else 0)

    def __len__(self) -> int:
        """What this rank yields per epoch over all its workers: batches with
        `batch_size` (the last one dropped when short and drop_last), else
        rows; the same for any number of DataLoader workers."""
        if self._drops:
            raise TypeError("a dataset with a filter has no len(): its ranks' rows are known only once read")
        rows = self._rank_rows(self._epoch)
        if self._batch_size is None:
            return rows
        return rows // self._batch_size if self._drop_last else -(-rows // self._batch_size)

    def _plan(self, rank, world, worker, workers, threads, epoch=None):
        # The rank's rows are cut into batches dealt to its workers in turn
        # (rows one by one without batch_size); the DataLoader takes items
        # from its workers in the same turn, so the rank's sequence and its
        # one short last batch do not depend on the number of workers.
        split = {"num_shards": world, "shard_id": rank, "pad": self._pad, "worker_count": workers,
                 "worker_id": worker, "worker_batch": int(self._batch_size or 1)}
        el = self._elastic
        if el is not None and (self._epoch if epoch is None else epoch) == int(el["epoch"]):
            split["elastic"] = el  # the rest of an epoch begun with another world size
        batch = {"batch_size": int(self._batch_size or self._row_batch),
                 "drop_remainder": self._drop_last and self._batch_size is not None}
        plan = {
            "num_workers": threads,
            "queue_depth": max(2, threads),
            "seed": self._seed,
            "epochs": (self._epoch if epoch is None else epoch) + 1,
            "io_mode": self._io_mode,
        }
        if self._tree is not None:
            # A dataset's tree: the same split, over the positions of its rows.
            shard = dict(split, node="shard", input=self._tree)
            plan["tree"] = dict(batch, node="batch", input=shard)
        else:
            plan.update({"source": self._source, "columns": self._columns,
                         "sampler": dict(split, type="distributed", shuffle=self._shuffle),
                         "ops": self._ops, "batch": batch})
        if self._remote is not None:
            plan["remote"] = self._remote
        return dict(plan, **self._io_keys)

    def __getitem__(self, index: int) -> dict:
        """Row `index` of the dataset (its global row id; negative counts
        from the end) with the ops applied, as a dict of tensors: for looking
        at a sample and debugging ops. Iteration is the fast path."""
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError("MindRecordDataset indices are ints (global row ids), got %r" % (index,))
        row = index + self._total if index < 0 else index
        if not 0 <= row < self._total:
            raise IndexError("row %d is out of range: the dataset has %d rows" % (index, self._total))
        plan = self._plan(0, 1, 0, 1, 1)
        if self._tree is not None:  # position `index` of the dataset's first epoch
            one = {"node": "take", "count": 1, "input": {"node": "skip", "count": row, "input": self._tree}}
            plan["tree"] = {"node": "batch", "batch_size": 1, "input": one}
        else:
            plan["sampler"] = {"type": "subset", "indices": [row]}
            plan["batch"] = {"batch_size": 1, "drop_remainder": False}
        pools = _mp_pool.acquire_for(plan)
        try:
            pipe = _core.Pipeline(json.dumps(plan), None, None)
            try:
                item = pipe.next()
            finally:
                pipe.close()
        finally:
            _mp_pool.release(pools)
        if item is None:
            raise IndexError("row %d could not be read" % index)
        return next(_rows(item[0]))

    # ---- resume ----------------------------------------------------------------

    def _check_resumable(self):
        if self._drops:
            raise NotImplementedError("mid-epoch resume of a dataset with a filter is not supported by "
                                      "mindrecord.torch (an item is not a fixed number of positions); resume at "
                                      "an epoch's start with set_epoch")

    def _unit(self):
        """Rows per item: batch_size, or 1 without it."""
        return int(self._batch_size or 1)

    def _epoch_end(self, epoch=None):
        """The rank's position after its last item of `epoch` (its last short
        batch is not handed out with drop_last)."""
        rows = self._rank_rows(epoch)
        return rows // self._unit() * self._unit() if self._drop_last and self._batch_size else rows

    def _advance(self, start, items, epoch=None):
        return min(start + items * self._unit(), self._epoch_end(epoch))

    def _resume_state(self, epoch, position):
        rank, world = self._rank_world()
        fp = _core.plan_fingerprint(json.dumps(self._plan(rank, world, 0, 1, 1, epoch)))
        state = {"seed": self._seed, "epoch": int(epoch), "position": int(position), "rows": int(position),
                 "fingerprint": str(fp), "rank": rank, "world_size": world}
        if self._elastic is not None and int(epoch) == int(self._elastic["epoch"]):
            state["elastic"] = self._elastic
        return state

    def _pending_start(self):
        """(epoch, position) the next iteration in this process would start at."""
        c = self._cells
        epoch = c[EPOCH]
        if c[GEN] != self._seen_gen and c[START_EPOCH] == epoch:
            return epoch, c[START_POS]
        return epoch, 0

    def _take_start(self, in_worker):
        """As _pending_start, marking the stamp used by this copy."""
        c = self._cells
        epoch, start = self._pending_start()
        if start and in_worker and not c[BY_LOADER]:
            raise RuntimeError("MindRecordDataset.load_state_dict: a DataLoader with workers resumes through "
                               "mindrecord.torch.StatefulDataLoader (a plain DataLoader cannot tell its "
                               "workers which iteration the state is for)")
        self._seen_gen = c[GEN]
        return epoch, start

    def state_dict(self) -> dict:
        """Where the next item of this process's last iteration starts (or
        the start of the next iteration when none ran): {"seed", "epoch",
        "position" (rows of the rank's epoch order handed out), "rows",
        "fingerprint"}. RuntimeError after DataLoader workers read the
        dataset: they read ahead of what the loop took; StatefulDataLoader's
        state_dict() knows."""
        if torch.utils.data.get_worker_info() is not None:
            raise RuntimeError("MindRecordDataset.state_dict() is for the main process")
        self._check_resumable()
        if self._cells[WORKER_ITERS] != self._worker_iters_seen:
            raise RuntimeError("this dataset was read by DataLoader worker processes, which read ahead of what "
                               "the loop took: only the DataLoader knows where the loop stands. Iterate it with "
                               "mindrecord.torch.StatefulDataLoader and save that loader's state_dict()")
        p = self._progress
        if p is None:
            return self._resume_state(*self._pending_start())
        return self._resume_state(p.epoch, self._advance(p.start, p.taken(), p.epoch))

    def load_state_dict(self, state: "dict | list[dict]") -> None:
        """The next iteration of the state's epoch continues where `state`
        (from state_dict() of a dataset built the same way, same rank and
        world size; num_workers may differ) stands; the epoch becomes the
        state's.

        Elastic resume: `state` may be the list of the states of every rank
        of a run with another world size (gathered with
        torch.distributed.all_gather_object); this rank then continues that
        epoch with its share of the rows no old rank handed out, and the
        later epochs are those of a fresh run with this world size. Call it
        before the DataLoader's workers start (persistent workers keep the
        dataset they started with)."""
        self._check_resumable()
        if isinstance(state, (list, tuple)):
            self._load_elastic(state)
            return
        if isinstance(state, dict):
            self._elastic = state.get("elastic")
        if not isinstance(state, dict) or not {"seed", "epoch", "position", "fingerprint"} <= set(state):
            raise ValueError("state must be a dict from state_dict() (seed, epoch, position, fingerprint)")
        epoch, position = int(state["epoch"]), int(state["position"])
        if epoch < 0:
            raise ValueError("state: epoch %d is negative" % epoch)
        if int(state["fingerprint"]) != int(self._resume_state(epoch, 0)["fingerprint"]):
            raise ValueError("state belongs to another dataset (source, columns, ops, batch_size, drop_last, "
                             "shuffle, seed, pad_ranks, rank or world size differ)")
        end = self._epoch_end(epoch)
        if not 0 <= position <= end or (position % self._unit() and position != end):
            raise ValueError("state: position %d is not a start of an item of this rank's epoch (%d rows, items of "
                             "%d)" % (position, end, self._unit()))
        self._cells.stamp(epoch, position, by_loader=False)
        self._progress = None
        self._worker_iters_seen = self._cells[WORKER_ITERS]

    def _load_elastic(self, states):
        """load_state_dict of the old ranks' states (see _elastic.py)."""
        rank, world = self._rank_world()
        saved_elastic = self._elastic

        def old_elastic(el, epoch):
            return el if el is not None and int(el["epoch"]) == epoch else None

        def fingerprint_of(r, w, epoch, el):
            self._elastic = old_elastic(el, epoch)
            return int(_core.plan_fingerprint(json.dumps(self._plan(r, w, 0, 1, 1, epoch))))

        def rows_of(r, w, epoch, el):
            self._elastic = old_elastic(el, epoch)
            plan = self._plan(r, w, 0, 1, 1, epoch)
            rows = int(_core.epoch_size(json.dumps(plan), epoch))
            return rows // self._unit() * self._unit() if self._drop_last and self._batch_size else rows

        try:
            # The seed is this dataset's: the states' fingerprints (seed included) matched it.
            _, epoch, merged = _elastic.merge(states, "rank", "world_size", fingerprint_of, rows_of)
        except BaseException:
            self._elastic = saved_elastic
            raise
        self._elastic = None
        if merged is not None:
            base = self._plan(rank, world, 0, 1, 1, epoch)
            spec = base["tree"]["input"] if "tree" in base else base["sampler"]
            self._elastic = _elastic.sampler_elastic(merged, spec)
        self._cells.stamp(epoch, 0, by_loader=False)
        self._progress = None
        self._worker_iters_seen = self._cells[WORKER_ITERS]

    # ---- iteration ---------------------------------------------------------------

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        epoch, start = self._take_start(info is not None)
        if info is not None:
            self._cells.count_worker_iteration()
            batches = self._batches(epoch, start, info)
            if self._batch_size is not None:
                return batches
            # Rows: each batch of the pipeline is split into rows in C (see
            # _rows) and handed out through itertools.chain, so no Python
            # frame runs per row.
            return itertools.chain.from_iterable(map(_rows, batches))
        # In this process: the same, counting what is handed out.
        progress = self._progress = Progress(epoch, start)
        self._worker_iters_seen = self._cells[WORKER_ITERS]
        if self._batch_size is not None:
            return _counted(self._batches(epoch, start, info), progress)
        return itertools.chain.from_iterable(self._batches(epoch, start, info, progress))

    def _batches(self, epoch, start, info, rows_progress=None):
        """The split's batches (dicts of tensors / lists), in sampler order,
        from rank position `start` of `epoch` on (see _torch_resume.py).
        With `rows_progress`, each batch's rows instead, as a list iterator
        that rows_progress follows (no Python call per row or per chunk
        beyond the batch's own)."""
        rank, world = self._rank_world()
        wid, nworkers = (info.id, info.num_workers) if info is not None else (0, 1)
        threads = self._threads if self._threads is not None else (1 if info is not None else 2)
        if start >= self._epoch_end(epoch) > 0:
            return  # the epoch was taken whole
        split, before = worker_split(start // self._unit(), wid, nworkers)
        plan = self._plan(rank, world, split, nworkers, threads, epoch)
        text = json.dumps(plan)
        resume = {"seed": self._seed, "epoch": epoch, "position": before * self._unit(), "rows": 0,
                  "fingerprint": str(_core.plan_fingerprint(text))}
        # Batches cross to the main process: build them in shared memory.
        alloc = (functools.partial(_worker_batch_buffer, (self._token, wid))
                 if info is not None and self._batch_size is not None else None)
        pools = _mp_pool.acquire_for(plan)  # python_multiprocessing maps: workers for this pipeline
        try:
            pipe = _core.Pipeline(text, json.dumps(resume), alloc)
        except BaseException:
            _mp_pool.release(pools)
            raise
        owner = os.getpid()
        try:
            while True:
                item = pipe.next()
                if item is None:
                    return
                cols, _, _ = item
                if rows_progress is not None:
                    rows = list(_rows(cols))
                    p = rows_progress
                    p.items, p.chunk, p.chunk_len = p.items + p.chunk_len, iter(rows), len(rows)
                    yield p.chunk
                    continue
                if self._batch_size is not None:
                    cols = {k: _tensor(v) for k, v in cols.items()}
                yield cols
        finally:
            if os.getpid() == owner:
                pipe.close()
                _mp_pool.release(pools)
            else:  # a forked child collecting its copy of this generator
                abandon_in_forked_child(pipe)


def _counted(batches, progress):
    for b in batches:
        progress.items += 1
        yield b
