"""PyTorch adapter: a MindRecord dataset as a torch IterableDataset.

    ds = MindRecordDataset("train.mindrecord", columns=["image", "label"],
                           ops={"image": [vision.Decode(), vision.RandomResizedCrop(224), vision.HWC2CHW()]},
                           batch_size=256, seed=0)
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=4, pin_memory=True)
    for epoch in range(10):
        ds.set_epoch(epoch)
        for batch in loader: ...

Rows are split across torch.distributed ranks and DataLoader workers with
no duplicates and no gaps: split k of the world_size * num_workers splits
takes positions k, k+S, ... of the epoch's (shuffled) order. Every split
computes the same order from (seed, epoch), so set_epoch() reshuffles.

Inside a DataLoader worker, the C++ batcher builds each batch's numeric
columns straight into shared memory, so passing the batch to the main
process copies nothing (only a file descriptor crosses). Large columns go to
a per-worker ring of reused shared-memory buffers (_Ring), which saves the
page faults of a fresh segment per batch; small ones to torch shared memory.
"""
import json
import math
import mmap
import os
import struct
import threading
import weakref
from multiprocessing.reduction import DupFd

import numpy as np

import torch
import torch.utils.data

from mindrecord import _core
from mindrecord.dataset import _io_mode, _io_plan_keys, _shuffle_mode
from mindrecord.vision import to_specs


_DTYPES = {"uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
           "int64": torch.int64, "float32": torch.float32, "float64": torch.float64}


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
_TOKEN = struct.Struct("<IQ")  # release token: slot index, generation


class _Slot:
    def __init__(self, index, nbytes):
        self.index, self.nbytes = index, nbytes
        self.fd = os.memfd_create("mindrecord-batch", os.MFD_CLOEXEC)
        os.ftruncate(self.fd, nbytes)
        self.map = mmap.mmap(self.fd, nbytes)
        self.address = np.frombuffer(self.map, np.uint8).ctypes.data
        self.gen = 0
        self.local = False  # a tensor in this process still uses the buffer
        self.pending = 0    # sent copies the consumer has not released yet

    def free(self):
        return not self.local and self.pending == 0

    def close(self):
        self.map.close()
        os.close(self.fd)


class _Ring:
    """Reused shared-memory batch buffers of one DataLoader worker process.

    A buffer is handed out again only when no tensor over it is alive here
    and every process it was sent to has released it: the receiving side
    (_rebuild_ring_tensor) writes a token into this ring's pipe when its
    tensor's storage is freed. Tokens carry the slot's generation, so a late
    or duplicate token never frees a newer use. Buffers never released (a
    batch dropped unread at shutdown) stay busy; once all _RING_MAX_SLOTS are
    busy the caller falls back to fresh memory."""

    def __init__(self):
        self.pid = os.getpid()
        self.read_end, self.write_end = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.slots = []
        self.lock = threading.RLock()  # allocator (C++ threads, GIL), finalizers, feeder thread

    def _collect_releases(self):
        data = b""
        while True:
            try:
                chunk = os.read(self.read_end, 4096)
            except BlockingIOError:
                break
            if not chunk:
                break
            data += chunk
        for index, gen in _TOKEN.iter_unpack(data[:len(data) - len(data) % _TOKEN.size]):
            slot = self.slots[index] if index < len(self.slots) else None
            if slot is not None and slot.gen == gen and slot.pending > 0:
                slot.pending -= 1

    def take(self, nbytes):
        """A free slot of at least nbytes (at most 2x, to keep large buffers
        for large columns), marked in use; None when every slot is busy."""
        with self.lock:
            self._collect_releases()
            free = [s for s in self.slots if s.free()]
            fits = [s for s in free if nbytes <= s.nbytes <= 2 * nbytes]
            if fits:
                slot = min(fits, key=lambda s: s.nbytes)
            elif len(self.slots) < _RING_MAX_SLOTS:
                slot = _Slot(len(self.slots), nbytes)
                self.slots.append(slot)
            elif free:  # replace a free buffer of the wrong size
                old = free[0]
                old.close()
                slot = self.slots[old.index] = _Slot(old.index, nbytes)
            else:
                return None
            slot.gen += 1
            slot.local, slot.pending = True, 0
            return slot

    def _unlocal(self, slot, gen):
        with self.lock:
            if slot.gen == gen:
                slot.local = False

    def _sent(self, slot, gen):
        with self.lock:
            if slot.gen == gen:
                slot.pending += 1


_ring = None


def _worker_ring():
    global _ring
    if _ring is None or _ring.pid != os.getpid():
        _ring = _Ring()
    return _ring


class _RingTensor(torch.Tensor):
    """A batch column in a _Ring buffer. Pickling it (DataLoader sending it
    to the main process) passes the buffer's file descriptor, not the data.
    Results of operations on it are plain tensors."""
    __torch_function__ = torch._C._disabled_torch_function_impl

    def __reduce_ex__(self, protocol):
        ring, slot, gen = self._mr_ring
        with ring.lock:
            mine = (slot.gen == gen and slot.address <= self.data_ptr() < slot.address + slot.nbytes)
            if mine:
                ring._sent(slot, gen)
        if not mine:  # its storage was replaced (e.g. share_memory_): send it as torch does
            from torch.multiprocessing.reductions import reduce_tensor
            return reduce_tensor(self.as_subclass(torch.Tensor))
        offset = self.data_ptr() - slot.address
        return (_rebuild_ring_tensor, (DupFd(slot.fd), DupFd(ring.write_end), slot.index, gen,
                                       str(self.dtype).split(".")[1], tuple(self.shape), self.stride(), offset))


def _release(write_end, index, gen):
    try:
        os.write(write_end, _TOKEN.pack(index, gen))
    except OSError:
        pass  # the worker is gone: nothing to tell
    finally:
        os.close(write_end)


def _rebuild_ring_tensor(fd_dup, pipe_dup, index, gen, dtype, shape, stride, offset):
    """In the receiving process: maps the worker's buffer and returns a
    plain tensor over it; when the tensor's storage is freed (no tensor or
    view uses it any more), tells the worker's ring the buffer is free."""
    fd = fd_dup.detach()
    write_end = pipe_dup.detach()
    try:
        size = os.fstat(fd).st_size
        m = mmap.mmap(fd, size, flags=mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0))
    except BaseException:
        os.close(write_end)
        raise
    finally:
        os.close(fd)
    item = torch.empty(0, dtype=_DTYPES[dtype]).element_size()
    base = np.frombuffer(m, np.uint8, count=size // item * item)
    # torch.from_numpy keeps `base` referenced until the storage is freed.
    weakref.finalize(base, _release, write_end, index, gen).atexit = False
    return torch.from_numpy(base).view(_DTYPES[dtype]).as_strided(shape, stride, offset // item)


def _worker_batch_buffer(dtype, shape):
    """Batch allocator in DataLoader workers: large columns in the ring,
    the rest (and everything while the ring is busy) in torch shared memory."""
    item = torch.empty(0, dtype=_DTYPES[dtype]).element_size()
    nbytes = math.prod(shape) * item
    if nbytes >= _RING_MIN_BYTES:
        ring = _worker_ring()
        slot = ring.take(nbytes)
        if slot is not None:
            base = np.frombuffer(slot.map, np.uint8, count=nbytes)
            # Clears `local` once no tensor here uses the buffer any more.
            weakref.finalize(base, ring._unlocal, slot, slot.gen).atexit = False
            t = torch.from_numpy(base).view(_DTYPES[dtype]).view(shape).as_subclass(_RingTensor)
            t._mr_ring = (ring, slot, slot.gen)
            return t, slot.address, nbytes
    return _shared_batch_buffer(dtype, shape)


def _tensor(value):
    if isinstance(value, list):
        return [_tensor(v) for v in value]
    if isinstance(value, torch.Tensor):
        return value  # built by the C++ batcher in _shared_batch_buffer's memory
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return torch.from_numpy(value)  # shares the C++ batch buffer
    return value


class MindRecordDataset(torch.utils.data.IterableDataset):
    """Yields dicts of torch tensors: one row each, or whole batches with
    `batch_size` (then use DataLoader(batch_size=None)); batching in C++ is
    much faster than the DataLoader's collate.

    `ops`: {column: [ops]} as MindDataset.map takes them (mindrecord.vision
    ops and Python callables). Callables are found by a per-process id, so
    with callables use DataLoader workers started by fork (Linux default),
    not spawn.

    `rank` / `world_size` default to torch.distributed's when it is
    initialized, else 0 / 1. `num_threads`: C++ threads (reading,
    decoding, ops) per DataLoader worker process, or in the main process
    with num_workers=0; default 1 in a worker (the workers are the
    parallelism) and 2 in the main process. bytes / string columns stay
    Python lists. In DataLoader workers, batched numeric columns are built in
    shared memory (no copy to reach the main process).

    `io_mode`: "auto" (default), "pread", "mmap" or "direct";
    `direct_fallback`, `auto_direct_above`: as in MindDataset; ValueError for
    other values.

    set_epoch also reaches persistent DataLoader workers
    (persistent_workers=True, which saves starting the workers and opening
    the dataset every epoch).

    Thread safety: configure (set_epoch) from the main process between
    epochs; each DataLoader worker iterates its own copy.
    """

    def __init__(self, dataset_files, columns=None, ops=None, shuffle=True, seed=0, batch_size=None,
                 drop_last=False, num_threads=None, rank=None, world_size=None, io_mode="auto",
                 direct_fallback=False, auto_direct_above=None):
        super().__init__()
        self._io_mode = _io_mode(io_mode)
        self._io_keys = _io_plan_keys(direct_fallback, auto_direct_above)
        files = [dataset_files] if isinstance(dataset_files, str) else list(dataset_files)
        self._source = [os.path.abspath(f) for f in files]
        self._columns = list(columns or [])
        self._ops = {c: to_specs(o) for c, o in (ops or {}).items()}
        self._shuffle = _shuffle_mode(shuffle)
        self._seed = int(seed)
        self._batch_size = batch_size
        self._drop_last = bool(drop_last)
        self._threads = None if num_threads is None else int(num_threads)
        self._rank, self._world = rank, world_size
        # In shared memory, so that persistent DataLoader workers (which keep
        # the copy of this object they started with) see set_epoch too.
        self._epoch_cell = torch.zeros((), dtype=torch.int64).share_memory_()
        self._total = _core.Reader(self._source[0], [], "pread").num_rows

    def set_epoch(self, epoch):
        """Selects the epoch's order; call before each epoch to reshuffle."""
        self._epoch_cell.fill_(int(epoch))

    @property
    def _epoch(self):
        return int(self._epoch_cell)

    def _rank_world(self):
        if self._world is not None:
            return int(self._rank or 0), int(self._world)
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            return torch.distributed.get_rank(), torch.distributed.get_world_size()
        return 0, 1

    def __len__(self):
        """Rows this rank yields per epoch (over all its workers)."""
        rank, world = self._rank_world()
        return self._total // world + (1 if rank < self._total % world else 0)

    def _plan(self, split, splits, threads):
        return dict({
            "source": self._source,
            "columns": self._columns,
            "sampler": {"type": "distributed", "num_shards": splits, "shard_id": split,
                        "shuffle": self._shuffle, "pad": False},
            "ops": self._ops,
            "batch": {"batch_size": int(self._batch_size or 64),
                      "drop_remainder": self._drop_last and self._batch_size is not None},
            "num_workers": threads,
            "queue_depth": max(2, threads),
            "seed": self._seed,
            "epochs": self._epoch + 1,
            "io_mode": self._io_mode,
        }, **self._io_keys)

    def __iter__(self):
        rank, world = self._rank_world()
        info = torch.utils.data.get_worker_info()
        wid, nworkers = (info.id, info.num_workers) if info is not None else (0, 1)
        splits = world * nworkers  # splits beyond the row count simply yield nothing
        threads = self._threads if self._threads is not None else (1 if info is not None else 2)
        plan = self._plan(rank * nworkers + wid, splits, threads)
        text = json.dumps(plan)
        resume = {"seed": self._seed, "epoch": self._epoch, "position": 0, "rows": 0,
                  "fingerprint": str(_core.plan_fingerprint(text))}
        # Batches cross to the main process: build them in shared memory.
        alloc = _worker_batch_buffer if info is not None and self._batch_size is not None else None
        pipe = _core.Pipeline(text, json.dumps(resume), alloc)
        try:
            while True:
                item = pipe.next()
                if item is None:
                    return
                cols, row_ids, _ = item
                batch = {k: _tensor(v) for k, v in cols.items()}
                if self._batch_size is not None:
                    yield batch
                else:
                    for i in range(len(row_ids)):
                        yield {k: v[i] for k, v in batch.items()}
        finally:
            pipe.close()
