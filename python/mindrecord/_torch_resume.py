"""Mid-epoch resume for the PyTorch adapter (mindrecord.torch).

Only the DataLoader sees which batches the training loop took: its workers
read ahead (prefetch_factor batches each), so a worker's own position says
nothing about what was consumed. As in torchdata's StatefulDataLoader, the
loader counts the items it hands out; since a rank's sequence is the same for
any number of workers (batches dealt to the workers in turn, interleaved back
in order by the DataLoader), "k items of epoch e taken" is the whole state,
saved in the pipeline's own resume format {seed, epoch, position, rows,
fingerprint} (position: rows of the rank's epoch order handed out).

A resumed iteration deals the rest of the epoch from batch k on to the
workers in turn again: worker w takes the batches k + w, k + w + W, ...,
which are split (k + w) % W of the uninterrupted run, so it runs that split's
plan resumed at the split's own position (the per-row seeds of random ops
are those of the uninterrupted run).

StartCells carries where the next iteration starts to the DataLoader workers:
forked or spawned workers copy the dataset when an iteration begins,
persistent ones keep the copy of the first iteration, so the cells live in
shared memory, and a generation counter makes a stamped start apply to one
iteration only.
"""
import operator
from typing import Any

import torch
import torch.utils.data

from mindrecord import _core

# Cells: the epoch set_epoch selected; the generation, epoch and position of
# the start stamped last; whether a StatefulDataLoader stamped it (for one of
# its iterations) or load_state_dict did; iterations begun in worker processes.
EPOCH, GEN, START_EPOCH, START_POS, BY_LOADER, WORKER_ITERS = range(6)


class StartCells:
    """Where a dataset's iterations start, in shared memory. Written by the
    main process only, apart from WORKER_ITERS (atomic adds by workers)."""

    def __init__(self) -> None:
        self.t = torch.zeros(6, dtype=torch.int64).share_memory_()

    def __getitem__(self, i: int) -> int:
        return int(self.t[i])

    def __setitem__(self, i: int, value: int) -> None:
        self.t[i] = int(value)

    def stamp(self, epoch: int, position: int, by_loader: bool) -> int:
        """The next iteration of `epoch` starts at `position`; returns the
        stamp's generation."""
        self[START_EPOCH], self[START_POS], self[BY_LOADER] = epoch, position, int(by_loader)
        self[EPOCH] = epoch
        self[GEN] = self[GEN] + 1
        return self[GEN]

    def count_worker_iteration(self) -> None:
        _core._u64_add(self.t.data_ptr() + 8 * WORKER_ITERS, 1)


class Progress:
    """What an iteration has handed out: `items` whole items (batches, or
    rows of finished chunks) and, for rows, the part of the current chunk
    taken (its list iterator's length hint)."""

    def __init__(self, epoch: int, start: int) -> None:
        self.epoch, self.start, self.items = epoch, start, 0
        self.chunk, self.chunk_len = None, 0

    def taken(self) -> int:
        if self.chunk is None:
            return self.items
        return self.items + self.chunk_len - operator.length_hint(self.chunk)


def worker_split(k: int, worker: int, workers: int) -> tuple[int, int]:
    """(split, units before k in it): the split of the uninterrupted run whose
    next unit is k + worker (k units taken, units dealt to `workers` workers
    in turn), and how many of that split's units come before unit k."""
    split = (k + worker) % workers
    return split, (k - split + workers - 1) // workers


class _Counted:
    """A DataLoader iterator that counts what it hands out."""

    def __init__(self, base, progress: Progress) -> None:
        self._base, self._progress = base, progress

    def __iter__(self):
        return self

    def __next__(self):
        item = next(self._base)
        self._progress.items += 1
        return item

    def __len__(self) -> int:
        return len(self._base)


class StatefulDataLoader(torch.utils.data.DataLoader):
    """torch.utils.data.DataLoader over a mindrecord.torch.MindRecordDataset,
    with torchdata's StatefulDataLoader API: state_dict() says where the
    training loop stands (what the last iterator handed out), and
    load_state_dict(state) makes the next iteration continue exactly there,
    with workers or without, persistent or not, and with another num_workers.

        loader = StatefulDataLoader(ds, num_workers=2)
        for step, batch in enumerate(loader):
            ...
            if step % 1000 == 0:
                torch.save({"loader": loader.state_dict(), "model": ...}, path)
        # after a restart:
        loader.load_state_dict(torch.load(path)["loader"])

    Items are the dataset's own (its batches, or rows), so batch_size is None
    (the default here) or 1; other DataLoader arguments are passed through.
    The state is that of this process's rank. Thread safety: one thread
    iterates and saves state at a time."""

    def __init__(self, dataset: Any, batch_size: int | None = None, **kwargs: Any) -> None:
        if not hasattr(dataset, "_resume_state"):
            raise TypeError("StatefulDataLoader takes a mindrecord.torch.MindRecordDataset, got %r"
                            % type(dataset).__name__)
        if batch_size not in (None, 1):
            raise ValueError("StatefulDataLoader hands out the dataset's items: batch_size must be None or 1 "
                             "(batch with MindRecordDataset(batch_size=...)), got %r" % (batch_size,))
        super().__init__(dataset, batch_size=batch_size, **kwargs)
        self._mr: Any = dataset  # the MindRecordDataset (DataLoader types .dataset as a plain Dataset)
        self._progress: Progress | None = None

    def __iter__(self):
        ds = self._mr
        epoch, start = ds._pending_start()
        gen = ds._cells.stamp(epoch, start, by_loader=True)
        it = super().__iter__()  # workers copy the dataset (or read the cells) with the stamp unseen
        ds._seen_gen = gen       # later copies and iterations of this process start afresh
        self._progress = Progress(epoch, start)
        return _Counted(it, self._progress)

    def state_dict(self) -> dict:
        """Where the next item of the last iterator starts (the dataset's
        start when no iterator ran yet): {seed, epoch, position, rows,
        fingerprint}, as MindDataset's state_dict."""
        ds = self._mr
        if self._progress is None:
            return ds._resume_state(*ds._pending_start())
        p = self._progress
        return ds._resume_state(p.epoch, ds._advance(p.start, p.taken(), p.epoch))

    def load_state_dict(self, state: dict) -> None:
        """The next iteration continues at `state` (from state_dict() of a
        loader over a dataset built the same way)."""
        self._mr.load_state_dict(state)
        self._progress = None
