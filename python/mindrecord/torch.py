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
columns straight into torch shared memory, so passing the batch to the main
process copies nothing (torch sends the segment's file descriptor).
"""
import json
import math
import os

import torch
import torch.utils.data

from mindrecord import _core
from mindrecord.dataset import _io_mode, _shuffle_mode
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

    `io_mode`: "auto" (default), "pread", "mmap" or "direct", as in
    MindDataset; ValueError for other values.

    Thread safety: configure (set_epoch) from the main process between
    epochs; each DataLoader worker iterates its own copy.
    """

    def __init__(self, dataset_files, columns=None, ops=None, shuffle=True, seed=0, batch_size=None,
                 drop_last=False, num_threads=None, rank=None, world_size=None, io_mode="auto"):
        super().__init__()
        self._io_mode = _io_mode(io_mode)
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
        self._epoch = 0
        self._total = _core.Reader(self._source[0], [], "pread").num_rows

    def set_epoch(self, epoch):
        """Selects the epoch's order; call before each epoch to reshuffle."""
        self._epoch = int(epoch)

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
        return {
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
        }

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
        alloc = _shared_batch_buffer if info is not None and self._batch_size is not None else None
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
