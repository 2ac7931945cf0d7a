"""MindDataset's iterators: one C++ pipeline (or, for plain rows, one C++
row stream) handed out one epoch per loop, with MindSpore's value types.

Values are those MindSpore's MindDataset gives: numeric columns as numpy
arrays (a scalar field as a 0-d array of its dtype), bytes as 1-D uint8
arrays, strings as 0-d numpy str arrays; in a batch, bytes of equal length
as a 2-D uint8 array and strings as a 1-D str array. Where MindSpore cannot
batch (rows of different shapes or byte lengths) we give a list of arrays.
"""
import ctypes
import itertools
import json
import operator
import os

import numpy as np

from mindrecord import _core, _mp_pool
from mindrecord.callback import CallbackRunner

# Unbatched iteration without map ops reads rows ahead in chunks of at most
# 4,096 rows (256 at first, doubling), holding two chunks (the one handed out, the next one read
# meanwhile) of at most half this many bytes of row data each, as stored and
# as read (compressed rows count decompressed).
ROW_READ_AHEAD_BYTES = 16 << 20


class Tensor(np.ndarray):
    """A numpy array with MindSpore's Tensor.asnumpy(): the values of
    create_dict_iterator / create_tuple_iterator with output_numpy=False."""

    def asnumpy(self) -> np.ndarray:
        return self.view(np.ndarray)


def _as_tensor(v):
    if isinstance(v, np.ndarray):
        return v.view(Tensor)
    return v  # lists of ragged arrays


def _row_value(v):
    """One row's value out of a batch of one (pipeline path, MindSpore's
    batched values: see _core.Pipeline's "mindspore" style)."""
    if isinstance(v, np.ndarray):
        return v[0, ...]
    return v[0]  # a list column: the row's array


def epochs_arg(num_epochs):
    if not isinstance(num_epochs, int) or isinstance(num_epochs, bool) or num_epochs == 0 or num_epochs < -1:
        raise ValueError("num_epochs must be an int >= 1 or -1, got %r" % (num_epochs,))
    return num_epochs


def bool_arg(name, value):
    if not isinstance(value, bool):
        raise TypeError("%s must be a bool, got %r" % (name, value))
    return value


def abandon_in_forked_child(pipe):
    """A forked child (a DataLoader worker) holds a copy of its parent's
    pipeline object, whose threads live only in the parent: closing or
    destroying it there would join threads that do not exist. Keep the copy
    alive for the child's life instead (one reference never released)."""
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(pipe))


class DictIterator:
    """Runs one C++ pipeline over all its epochs and hands them out one epoch
    per loop, as MindSpore's iterators do: at an epoch's end __next__ raises
    StopIteration (having read the next epoch's first chunk or batch ahead)
    and the next loop continues with the next epoch. With repeat() after
    batch(), `repeat` pipeline epochs make one epoch here (0: endless).
    Updates the dataset's resume state per batch. Thread safety: one thread
    at a time."""

    def __init__(self, ds, num_epochs, columns, tuples, tensors, do_copy):
        bool_arg("do_copy", do_copy)
        self._pid = os.getpid()
        self._pipe = None
        self._last_stats = None
        if ds._live is not None:
            ds._live.close()  # one iteration at a time (see close() for where the new one starts)
        self._ds = ds
        self._repeat = ds._repeat_after
        self._begin = dict(ds._state) if ds._state is not None else None  # where this one starts
        self._finished = False  # the pipeline ran out (num_epochs done)
        start = ds._start_epoch()
        outer = self._outer(start)
        if num_epochs == -1 or self._repeat == 0:
            total = 0
        else:
            total = (outer + num_epochs) * self._repeat
        plan = ds._full_plan(total)
        resume = ds._start_state()
        if resume is None and start:
            resume = {"seed": plan["seed"], "epoch": start, "position": 0, "rows": 0}
        if resume is not None:
            resume = dict(resume, fingerprint=str(_core.plan_fingerprint(json.dumps(plan))))
        resume = None if resume is None else json.dumps(resume)
        # Rows without map ops or padding: read a chunk at a time in C++ (no
        # worker threads, no per-row handoff) with the same order, types and
        # resume state as the pipeline.
        self._rows = (not ds._batched and "tree" not in plan and not plan["ops"] and "padded" not in plan
                      and "elastic" not in plan["sampler"]  # RowStream's epochs are all one size
                      and plan.get("on_error", "fail") == "fail")  # the pipeline skips rows
        self._epoch = outer      # the epoch being handed out
        self._ahead = None       # (chunk or batch, pipeline epoch, rows) of the next epoch, read ahead
        self._chunk = iter(())   # rows path: the rows of the current chunk not yet handed out
        self._shape = None
        if columns is not None or tuples or tensors:
            self._shape = (columns, tuples, tensors)
        # python_multiprocessing maps: their worker processes live as long
        # as this iterator's pipeline.
        self._pools = _mp_pool.acquire_for(plan)
        try:
            if self._rows:
                # Lists and Tensors made in C++ too, unless the columns are
                # reordered or selected.
                in_cxx = columns is None or columns == ds.get_col_names()
                if in_cxx:
                    self._shape = None
                self._pipe = _core.RowStream(json.dumps(plan), resume, ROW_READ_AHEAD_BYTES, "mindspore",
                                             not do_copy, lists=tuples and in_cxx,
                                             array_type=Tensor if tensors and in_cxx else None)
            else:
                # Bytes and string columns come out as MindSpore batches them
                # (made in C++: uint8 arrays, stacked when their lengths agree;
                # with do_copy=False, rows in a mapped shard as views of it).
                self._pipe = _core.Pipeline(json.dumps(plan), resume, None, "mindspore", not do_copy)
        except BaseException:
            self._release_pools()
            raise
        ds._live = self
        self._batched = ds._batched
        self._callbacks = CallbackRunner(ds._callbacks) if ds._callbacks else None
        self.last_row_ids = None
        self.last_epoch = None

    def _outer(self, epoch):
        """The epoch handed out that pipeline epoch `epoch` belongs to."""
        return 0 if self._repeat == 0 else epoch // self._repeat

    def __iter__(self):
        if self._rows and self._shape is None:
            # Rows from C++ lists through itertools.chain: no Python frame per
            # row. The chain's generator holds this iterator until the end.
            return itertools.chain.from_iterable(self._epoch_chunks())
        return self

    def _next_in_epoch(self):
        """The next chunk (rows path) or batch of the epoch being handed out;
        None at its end."""
        if self._ahead is None:
            if self._pipe is None:
                return None
            try:
                item = self._pipe.next_chunk() if self._rows else self._pipe.next()
            except BaseException:
                # An error ends the iteration: stop the workers now rather than
                # when the iterator is collected (a traceback may keep it alive).
                self.close()
                raise
            if item is None:
                self._finished = True
                self.close()
                return None
            if self._rows:
                self._ahead = (item, json.loads(self._pipe.state())["epoch"], len(item))
            else:
                self._ahead = (item, item[2], len(item[1]))
        item, epoch, _ = self._ahead
        if self._outer(epoch) != self._epoch:
            return None  # kept for the next epoch's loop
        self._ahead = None
        return item

    def _end_epoch(self):
        if self._callbacks is not None:
            self._callbacks.epoch_end(self._epoch)
        self._epoch = self._outer(self._ahead[1]) if self._ahead is not None else self._epoch + 1

    def _epoch_chunks(self):
        yield self._chunk  # what __next__ left of the current chunk
        while (rows := self._next_in_epoch()) is not None:
            self._chunk = iter(rows)
            yield self._chunk
        self._end_epoch()

    def state(self):
        """The resume state after the rows handed out (JSON-like dict)."""
        state = json.loads(self._pipe.state())
        if self._ahead is not None:
            # Read ahead: the first chunk or batch of the next epoch.
            state["epoch"] = self._ahead[1]
            state["position"] = 0
            state["rows"] -= self._ahead[2]
            if "counts" in state:
                state["counts"] = [0] * len(state["counts"])
        elif self._rows:
            # The stream counts its last chunk as handed out; take back the
            # rows of it not yet taken (a chunk never spans two epochs).
            left = operator.length_hint(self._chunk)
            state["position"] -= left
            state["rows"] -= left
        return state

    def __next__(self):
        if self._rows:
            while True:
                row = next(self._chunk, None)
                if row is not None:
                    return self._shaped(row)
                rows = self._next_in_epoch()
                if rows is None:
                    self._end_epoch()
                    raise StopIteration
                self._chunk = iter(rows)
        item = self._next_in_epoch()
        if item is None:
            self._end_epoch()
            raise StopIteration
        cols, row_ids, epoch = item
        self.last_row_ids, self.last_epoch = row_ids, epoch
        if self._callbacks is not None:
            self._callbacks.item(self._epoch, len(row_ids))
        if not self._batched:
            cols = {k: _row_value(v) for k, v in cols.items()}
        return self._shaped(cols)

    def _shaped(self, d):
        if self._shape is None:
            return d
        columns, tuples, tensors = self._shape
        if tensors:
            d = {k: _as_tensor(v) for k, v in d.items()}
        if tuples:
            return [d[c] for c in columns] if columns else list(d.values())
        return d

    def stats(self) -> dict[str, object]:
        """The pipeline's per-stage statistics (dict); after the iteration
        ended, those at its end."""
        if self._pipe is not None:
            return json.loads(self._pipe.stats())
        return self._last_stats

    def close(self):
        """Stops the pipeline. The dataset's state_dict() keeps exactly where
        it stopped; the dataset's next iterator starts, as a new MindSpore
        iterator does, at the start of the epoch this one left unfinished
        (where this one started, if that was in the same epoch: a
        load_state_dict() state), or after a finished epoch at the next one."""
        if self._pipe is not None and self._pid != os.getpid():
            abandon_in_forked_child(self._pipe)
            self._pipe = None
            return
        if self._pipe is not None:
            state = self.state()
            self._ds._stopped = state
            self._ds._state = state if self._finished else self._restart(state)
            self._last_stats = json.loads(self._pipe.stats())
            self._pipe.close()
            self._pipe = None
            if self._ds._live is self:
                self._ds._live = None
        self._release_pools()

    def _restart(self, state):
        """Where the next iterator starts after this one stopped at `state`."""
        epoch = int(state["epoch"])
        at_start = int(state["position"]) == 0 and (epoch == 0 if self._repeat == 0 else epoch % self._repeat == 0)
        if at_start:
            return state  # an epoch's start (the next epoch's first item may have been read ahead)
        outer = self._outer(epoch)
        if self._begin is not None and self._outer(int(self._begin["epoch"])) == outer:
            return dict(self._begin)
        return {"seed": state["seed"], "epoch": outer * self._repeat, "position": 0, "rows": 0}

    def _release_pools(self):
        pools, self._pools = getattr(self, "_pools", ()), ()
        _mp_pool.release(pools)

    def __del__(self):
        self.close()
