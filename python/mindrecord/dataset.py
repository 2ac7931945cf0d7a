"""MindDataset: MindSpore's training-loop dataset over the C++ pipeline.

    ds = MindDataset("train.mindrecord", columns_list=["image", "label"], shuffle=True, seed=1)
    ds = ds.map([vision.Decode(), vision.RandomResizedCrop(224), vision.HWC2CHW()], input_columns="image")
    ds = ds.batch(256, drop_remainder=True)
    for batch in ds:            # one epoch; the next loop runs the next epoch
        batch["image"]          # numpy uint8 [256, 3, 224, 224] over the C++ batch buffer

Reading, decoding and transforming run in C++ worker threads without the
GIL; batches come out in sampler order whatever num_parallel_workers is, so
the same seed gives the same sequence. state_dict()/load_state_dict() resume
exactly where a run stopped (also with another worker count).
"""
from collections.abc import Iterator
import copy
import itertools
import json
import operator
import os

import numpy as np

from mindrecord import _core
from mindrecord.filereader import warn_reader
from mindrecord.vision import to_specs


class Shuffle:
    """MindDataset shuffle modes (MindSpore's dataset.Shuffle)."""
    GLOBAL = "global"    # a permutation of all rows
    FILES = "files"      # shard order shuffled, rows in order
    INFILE = "infile"    # shard order kept, rows shuffled within each shard
    PARTIAL = "partial"  # rows shuffled within blocks of 1M rows
    ADAPTIVE = "adaptive"


# ---- samplers (thin descriptions of the C++ samplers' JSON specs) ----------
# Samplers (and Shuffle) are immutable values: share them freely across threads.

class _Sampler:
    def __init__(self, **spec):
        self._spec = spec

    def to_json(self):
        return dict(self._spec)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, self._spec)


def _nsamples(num_samples):
    if num_samples is None:
        return 0
    if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples < 0:
        raise ValueError("num_samples must be an int >= 0 or None, got %r" % (num_samples,))
    return num_samples


class SequentialSampler(_Sampler):
    def __init__(self, start_index: int | None = None, num_samples: int | None = None) -> None:
        super().__init__(type="sequential", start=int(start_index or 0), num_samples=_nsamples(num_samples))


class RandomSampler(_Sampler):
    def __init__(self, replacement: bool = False, num_samples: int | None = None) -> None:
        super().__init__(type="random", replacement=bool(replacement), num_samples=_nsamples(num_samples))


class SubsetSampler(_Sampler):
    def __init__(self, indices: list[int], num_samples: int | None = None) -> None:
        super().__init__(type="subset", indices=[int(i) for i in indices], num_samples=_nsamples(num_samples))


class SubsetRandomSampler(_Sampler):
    def __init__(self, indices: list[int], num_samples: int | None = None) -> None:
        super().__init__(type="subset_random", indices=[int(i) for i in indices], num_samples=_nsamples(num_samples))


class WeightedRandomSampler(_Sampler):
    def __init__(self, weights: list[float], num_samples: int | None = None, replacement: bool = True) -> None:
        super().__init__(type="weighted_random", weights=[float(w) for w in weights],
                         num_samples=_nsamples(num_samples), replacement=bool(replacement))


class PKSampler(_Sampler):
    """num_val rows of each class of index field `class_column`."""

    def __init__(self, num_val: int, num_class: int | None = None, shuffle: bool = False, class_column: str = "label",
                 num_samples: int | None = None) -> None:
        super().__init__(type="pk", field=class_column, k=int(num_val), num_classes=int(num_class or 0),
                         shuffle=bool(shuffle), num_samples=_nsamples(num_samples))


class DistributedSampler(_Sampler):
    """Rank `shard_id` of `num_shards`: rows i, i+N, ... of the shuffled order;
    ranks are disjoint and cover every row once."""

    def __init__(self, num_shards: int, shard_id: int, shuffle: bool | str | None = True, num_samples: int | None = None,
                 pad: bool = False) -> None:
        if num_samples:
            raise ValueError("DistributedSampler(num_samples=...) is not supported")
        mode = _shuffle_mode(shuffle)
        super().__init__(type="distributed", num_shards=int(num_shards), shard_id=int(shard_id), shuffle=mode,
                         pad=bool(pad))


def _shuffle_mode(shuffle):
    if shuffle is None or shuffle is True:
        return Shuffle.GLOBAL
    if shuffle is False:
        return "off"
    name = getattr(shuffle, "value", shuffle)
    name = str(name).lower()
    if name not in ("global", "files", "infile", "partial", "adaptive", "off"):
        raise ValueError("shuffle must be a bool or one of Shuffle.GLOBAL / FILES / INFILE / PARTIAL, got %r"
                         % (shuffle,))
    return name


IO_MODES = ("auto", "pread", "mmap", "direct")

# Unbatched iteration without map ops reads rows ahead in chunks of at most
# 1,024 rows and at most this many bytes of row data, as stored and as read
# (compressed rows count decompressed).
ROW_READ_AHEAD_BYTES = 16 << 20


def _io_plan_keys(direct_fallback, auto_direct_above):
    """Checks the direct_fallback / auto_direct_above keywords (see
    MindDataset); returns the plan keys they set."""
    if not isinstance(direct_fallback, bool):
        raise ValueError("direct_fallback must be True or False, got %r" % (direct_fallback,))
    if auto_direct_above is not None and (not isinstance(auto_direct_above, int) or
                                          isinstance(auto_direct_above, bool) or auto_direct_above < 0):
        raise ValueError("auto_direct_above must be a byte count >= 0 or None, got %r" % (auto_direct_above,))
    keys = {}
    if direct_fallback:
        keys["direct_fallback"] = True
    if auto_direct_above:
        keys["auto_direct_above"] = auto_direct_above
    return keys


def _io_mode(io_mode):
    """Checks an io_mode keyword (see MindDataset)."""
    if not isinstance(io_mode, str) or io_mode not in IO_MODES:
        raise ValueError("io_mode must be one of %s, got %r" % (", ".join(repr(m) for m in IO_MODES), io_mode))
    return io_mode


def _mindspore_kwargs(method, kwargs, supported):
    """MindSpore keywords this API takes only at the value that means what we
    do (e.g. python_multiprocessing=False); any other value, or a keyword
    MindSpore does not have either, is an error naming it."""
    for name, value in kwargs.items():
        if name not in supported:
            raise TypeError("%s() got an unexpected keyword argument %r" % (method, name))
        ok = supported[name]
        if not (ok(value) if callable(ok) else value == ok and type(value) is type(ok)):
            raise NotImplementedError("%s(%s=%r) is not supported by mindrecord (%s)"
                                      % (method, name, value, _UNSUPPORTED_WHY.get(name, "only its default")))


_UNSUPPORTED_WHY = {
    "python_multiprocessing": "Python callables run on the pipeline's threads; only False",
    "cache": "no dataset cache server; only None",
    "callbacks": "no map callbacks; only None",
    "offload": "no offload to the device; only None or False",
    "per_batch_map": "no batch maps yet; only None",
    "input_columns": "only with per_batch_map; only None",
    "output_columns": "only with per_batch_map; only None",
}
_MAP_KWARGS = {
    "python_multiprocessing": False,
    "cache": lambda v: v is None,
    "callbacks": lambda v: v is None,
    "offload": lambda v: v is None or v is False,
    # Shared-memory size per row for python_multiprocessing workers: unused
    # without them, as in MindSpore.
    "max_rowsize": lambda v: isinstance(v, (int, list)),
}
_BATCH_KWARGS = {
    "python_multiprocessing": False,
    "per_batch_map": lambda v: v is None,
    "input_columns": lambda v: v is None,
    "output_columns": lambda v: v is None,
    "max_rowsize": lambda v: isinstance(v, (int, list)),
}


def _positive(name, value):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError("%s must be an int >= 1, got %r" % (name, value))
    return value


class MindDataset:
    """A MindRecord dataset as batches (or rows) of numpy arrays.

    Arguments follow mindspore.dataset.MindDataset. `dataset_files`: one
    shard path (its siblings are found through the header) or the list of
    all shard paths. `shuffle`: None/True (global), False, or a Shuffle mode.
    `num_shards`/`shard_id`: this rank's share (disjoint, covering every
    row). `sampler`: one of this module's samplers (not with shuffle or
    num_shards). `seed`: None draws a random seed (kept in state_dict()).
    `padded_sample` (a dict with exactly the columns read) and `num_padded`
    (given together, with num_shards / shard_id): num_padded copies of the
    sample are appended after the dataset's rows (row ids num_rows ..
    num_rows + num_padded - 1), so that rows + num_padded divides evenly among
    num_shards (else ValueError). They are shuffled, sharded, mapped and
    batched like real rows.

    `io_mode`: how shard files are read. "auto" (default): "direct" when the
    shard files together are larger than the memory available for the page
    cache (MemAvailable, or the memory cgroup's room when smaller), with pread
    where the file system refuses O_DIRECT; else "mmap". "mmap", "pread", or
    "direct" (O_DIRECT + libaio, bypassing the page cache; a file system that
    refuses O_DIRECT is an error naming the shard, unless `direct_fallback`
    is True: then such shards are read with pread). `auto_direct_above`: the
    byte size above which "auto" reads directly (None: the available memory).
    ValueError for other values. The iterator's stats() report what each
    shard uses.

    Numeric columns come out as numpy arrays that share the C++ batch
    buffer; bytes / string columns as lists of bytes / str; columns whose
    rows differ in shape as lists of arrays.

    Thread safety: map/batch return new datasets and never change this one.
    One iteration at a time per dataset object (an iterator is used by one
    thread); state_dict() may be called between batches.
    """

    def __init__(self, dataset_files: str | list[str], columns_list: list[str] | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | str | None = None,
                 num_shards: int | None = None, shard_id: int | None = None, sampler: "_Sampler | None" = None,
                 num_samples: int | None = None, padded_sample: dict[str, object] | None = None,
                 num_padded: int | None = None, seed: int | None = None, io_mode: str = "auto",
                 direct_fallback: bool = False, auto_direct_above: int | None = None) -> None:
        _io_mode(io_mode)
        io_keys = _io_plan_keys(direct_fallback, auto_direct_above)
        if isinstance(dataset_files, str):
            source = [dataset_files]
        elif isinstance(dataset_files, (list, tuple)) and dataset_files and all(
                isinstance(f, str) for f in dataset_files):
            source = list(dataset_files)
        else:
            raise ValueError("dataset_files must be a str or a non-empty list of str")
        if columns_list is not None and (not isinstance(columns_list, (list, tuple)) or not columns_list or
                                         not all(isinstance(c, str) for c in columns_list)):
            raise ValueError("columns_list must be a non-empty list of str or None")
        if num_parallel_workers is None:
            num_parallel_workers = min(4, os.cpu_count() or 1)
        _positive("num_parallel_workers", num_parallel_workers)
        if (num_shards is None) != (shard_id is None):
            raise ValueError("num_shards and shard_id must be given together")
        if sampler is not None and (shuffle is not None or num_shards is not None or num_samples is not None):
            raise ValueError("sampler cannot be combined with shuffle, num_shards / shard_id or num_samples "
                             "(give num_samples to the sampler)")
        samples = _nsamples(num_samples)
        if sampler is not None:
            if not hasattr(sampler, "to_json"):
                raise TypeError("sampler must be one of mindrecord's samplers")
            spec = sampler.to_json()
        elif num_shards is not None:
            _positive("num_shards", num_shards)
            if not isinstance(shard_id, int) or not 0 <= shard_id < num_shards:
                raise ValueError("shard_id must be an int in [0, %d), got %r" % (num_shards, shard_id))
            if samples:
                raise ValueError("num_samples cannot be combined with num_shards")
            spec = DistributedSampler(num_shards, shard_id, shuffle).to_json()
        else:
            mode = _shuffle_mode(shuffle)
            if mode == "off":
                spec = {"type": "sequential", "num_samples": samples}
            else:
                spec = {"type": "shuffle", "mode": mode, "num_samples": samples}
        if seed is None:
            seed = int.from_bytes(os.urandom(7), "little")
        if not isinstance(seed, int) or seed < 0:
            raise ValueError("seed must be an int >= 0")
        padded = self._padded_spec(source[0], columns_list, padded_sample, num_padded, num_shards, sampler)
        self._plan = {
            "source": [os.path.abspath(p) for p in source],
            "columns": list(columns_list or []),
            "sampler": spec,
            "ops": {},
            "batch": {"batch_size": 1, "drop_remainder": False},
            "num_workers": num_parallel_workers,
            "queue_depth": max(2, num_parallel_workers),
            "seed": seed,
            "io_mode": io_mode,
        }
        self._plan.update(io_keys)
        if padded is not None:
            self._plan["padded"] = padded
        self._batched = False
        self._state: dict | None = None  # resume state for the next iteration
        self._live = None       # the running iterator, if any
        self._epoch_rows = None
        # Open now so that bad paths and columns fail here, not at iteration.
        warn_reader(_core.Reader(self._plan["source"][0], self._plan["columns"],
                                 "direct" if io_mode == "direct" and not direct_fallback else "pread"))
        _core.sampler_size(json.dumps(self._full_plan(1)))

    @staticmethod
    def _padded_spec(path, columns_list, padded_sample, num_padded, num_shards, sampler):
        """The plan's "padded" object (None without padding), after MindSpore's checks."""
        if padded_sample is None and num_padded is None:
            return None
        if padded_sample is None:
            raise ValueError("num_padded needs padded_sample (the row to append num_padded times)")
        if num_padded is None:
            raise ValueError("padded_sample needs num_padded (how many copies to append)")
        if not isinstance(padded_sample, dict):
            raise ValueError("padded_sample must be a dict of column -> value, got %s" % type(padded_sample).__name__)
        if not isinstance(num_padded, int) or isinstance(num_padded, bool) or num_padded < 0:
            raise ValueError("num_padded must be an int >= 0, got %r" % (num_padded,))
        if sampler is not None or num_shards is None:
            raise ValueError("padded_sample / num_padded need num_shards and shard_id (padding evens out the "
                             "rows per shard); they cannot be combined with sampler")
        reader = _core.Reader(os.path.abspath(path), [], "pread")
        columns = list(columns_list) if columns_list else sorted(json.loads(reader.schema_json))
        missing = [c for c in columns if c not in padded_sample]
        extra = sorted(str(k) for k in padded_sample if k not in columns)
        if missing or extra:
            raise ValueError("padded_sample columns %s do not match the columns read %s (missing %s, not read %s)"
                             % (sorted(str(k) for k in padded_sample), columns, missing, extra))
        rows = reader.num_rows
        # Padding evens out shards; the pipeline keeps per-row state for
        # rows + num_padded ids, so an absurd count must not reach it.
        if num_padded > rows + num_shards:
            raise ValueError("num_padded %d is more than the dataset's %d rows plus num_shards %d; padding only "
                             "evens out the rows per shard" % (num_padded, rows, num_shards))
        if (rows + num_padded) % num_shards:
            raise ValueError("the dataset's %d rows plus num_padded %d = %d rows do not divide evenly among "
                             "num_shards %d" % (rows, num_padded, rows + num_padded, num_shards))
        row = json.loads(_core.padded_row_json(reader.schema_json, columns, padded_sample))
        return {"count": num_padded, "row": row}

    # ---- chaining ---------------------------------------------------------

    def map(self, operations: object = None, input_columns: str | list[str] | None = None,
            output_columns: str | list[str] | None = None, num_parallel_workers: int | None = None,
            **kwargs: object) -> "MindDataset":
        """Applies ops to one column, in order: ops from mindrecord.vision
        (C++, without the GIL) and Python callables, mixed in one list.

        A callable takes the column's value as a numpy array (bytes columns
        as 1-D uint8, strings as a 0-d str array) and returns a numpy array
        (any numeric dtype and shape: bool, uint8, int8..int64, float32,
        float64), bytes or str. It runs on the pipeline's worker threads
        holding the GIL, so callables run one at a time; the output order is
        the same for any num_parallel_workers. Use deterministic callables
        (the pipeline seeds only its own random ops). An exception raised
        inside it stops the iteration with RuntimeError naming the callable,
        column and row, chained to the original exception. Callables are kept
        alive for the life of the process. MindSpore's other keywords are taken
        at their defaults only (python_multiprocessing=False, cache=None, ...);
        other values raise NotImplementedError naming them."""
        _mindspore_kwargs("map", kwargs, _MAP_KWARGS)
        if isinstance(input_columns, (list, tuple)):
            if len(input_columns) != 1:
                raise ValueError("input_columns must name exactly one column (ops apply to one column)")
            input_columns = input_columns[0]
        if not isinstance(input_columns, str):
            raise ValueError("input_columns must be a column name")
        if output_columns not in (None, input_columns, [input_columns]):
            raise ValueError("output_columns must be the input column (ops transform in place)")
        out = self._copy()
        out._plan["ops"].setdefault(input_columns, []).extend(to_specs(operations))
        if num_parallel_workers:
            out._plan["num_workers"] = max(out._plan["num_workers"], _positive("num_parallel_workers",
                                                                              num_parallel_workers))
        _core.normalize_plan(json.dumps(out._full_plan(1)))
        return out

    def batch(self, batch_size: int, drop_remainder: bool = False, num_parallel_workers: int | None = None,
              pad_columns: dict | None = None, **kwargs: object) -> "MindDataset":
        """Rows per batch. Columns whose rows differ in shape come out as lists
        of arrays, or padded with `pad_columns={"col": pad_value}`. MindSpore's
        other keywords are taken at their defaults only (per_batch_map=None,
        python_multiprocessing=False, ...); other values raise
        NotImplementedError naming them."""
        _mindspore_kwargs("batch", kwargs, _BATCH_KWARGS)
        if self._batched:
            raise ValueError("batch() was already applied")
        out = self._copy()
        out._plan["batch"] = {"batch_size": _positive("batch_size", batch_size),
                              "drop_remainder": bool(drop_remainder)}
        if pad_columns:
            out._plan["batch"]["ragged"] = {c: {"mode": "pad", "pad_value": float(v)} for c, v in pad_columns.items()}
        if num_parallel_workers:
            out._plan["num_workers"] = _positive("num_parallel_workers", num_parallel_workers)
        out._batched = True
        _core.normalize_plan(json.dumps(out._full_plan(1)))
        return out

    # ---- sizes --------------------------------------------------------------

    def _rows_per_epoch(self):
        if self._epoch_rows is None:
            self._epoch_rows = _core.sampler_size(json.dumps(self._full_plan(1)))
        return self._epoch_rows

    def get_dataset_size(self) -> int:
        """Batches per epoch (rows when not batched)."""
        rows = self._rows_per_epoch()
        if not self._batched:
            return rows
        b = self._plan["batch"]["batch_size"]
        return rows // b if self._plan["batch"]["drop_remainder"] else -(-rows // b)

    def __len__(self) -> int:
        return self.get_dataset_size()

    def get_col_names(self) -> list[str]:
        if self._plan["columns"]:
            return list(self._plan["columns"])
        return sorted(json.loads(_core.Reader(self._plan["source"][0], [], "pread").schema_json))

    def plan(self) -> str:
        """The C++ pipeline plan (JSON text) of the next iteration."""
        return _core.normalize_plan(json.dumps(self._full_plan(self._start_epoch() + 1)))

    # ---- resume -------------------------------------------------------------

    def state_dict(self) -> dict:
        """Where the next batch starts: {"seed", "epoch", "position", ...}."""
        if self._live is not None and self._live._pipe is not None:
            return self._live._state()
        if self._state is not None:
            return dict(self._state)
        plan = self._full_plan(1)
        return {"seed": plan["seed"], "epoch": 0, "position": 0, "rows": 0,
                "fingerprint": str(_core.plan_fingerprint(json.dumps(plan)))}

    def load_state_dict(self, state: dict) -> None:
        """The next iteration continues exactly at `state` (from state_dict()
        of a dataset built the same way; the worker count may differ)."""
        if not isinstance(state, dict) or not {"seed", "epoch", "position"} <= set(state):
            raise ValueError("state must be a dict from state_dict()")
        out_seed = int(state["seed"])
        self._plan["seed"] = out_seed
        fp = _core.plan_fingerprint(json.dumps(self._full_plan(1)))
        if "fingerprint" in state and int(state["fingerprint"]) != fp:
            raise ValueError("state belongs to another dataset (source, columns, sampler, ops or batch differ)")
        if self._live is not None:
            self._live.close()
        self._state = dict(state, fingerprint=str(fp))

    # ---- iteration ------------------------------------------------------------

    def create_dict_iterator(self, num_epochs: int = -1, output_numpy: bool = False,
                             do_copy: bool = True) -> "_DictIterator":
        """An iterator of dicts over `num_epochs` epochs (-1: endless),
        continuing from state_dict(). As in MindSpore, each loop over it runs
        one epoch: the epoch's end raises StopIteration and the next loop
        continues with the next epoch. output_numpy=False (MindSpore's
        default) gives mindrecord.Tensor values (numpy arrays with
        MindSpore's asnumpy()); True gives numpy arrays. An array holds its
        buffer (the pipeline never reuses one an array holds). do_copy=False
        (MindSpore's "skip the copy") makes rows read without map ops or
        batch hand out bytes and array values that lie in a mapped shard as
        read-only views of it (bytes as memoryview, arrays as numpy arrays),
        without copying them; batches are built in fresh buffers either way."""
        return _DictIterator(self, _epochs_arg(num_epochs), columns=None, tuples=False,
                             tensors=not _bool_arg("output_numpy", output_numpy), do_copy=do_copy)

    def create_tuple_iterator(self, columns: list[str] | None = None, num_epochs: int = -1,
                              output_numpy: bool = False, do_copy: bool = True) -> "_DictIterator":
        """As create_dict_iterator, yielding lists of values in the order of
        `columns` (default: get_col_names())."""
        if columns is not None:
            if isinstance(columns, str):
                columns = [columns]
            if not isinstance(columns, (list, tuple)) or not columns or not all(isinstance(c, str) for c in columns):
                raise ValueError("columns must be a column name or a non-empty list of column names")
            unknown = [c for c in columns if c not in self.get_col_names()]
            if unknown:
                raise ValueError("columns %s are not columns of this dataset (it has %s)"
                                 % (unknown, self.get_col_names()))
        return _DictIterator(self, _epochs_arg(num_epochs), columns=list(columns) if columns else None,
                             tuples=True, tensors=not _bool_arg("output_numpy", output_numpy), do_copy=do_copy)

    def __iter__(self) -> Iterator[dict[str, object]]:
        # One epoch of dicts of numpy values; unbatched rows come from C++
        # lists without a Python frame per row.
        return iter(_DictIterator(self, 1, columns=None, tuples=False, tensors=False, do_copy=True))

    def _start_epoch(self):
        if self._state is None:
            return 0
        epoch = int(self._state["epoch"])
        if int(self._state["position"]) >= self._rows_per_epoch() > 0:
            epoch += 1
        return epoch

    def _full_plan(self, epochs):
        plan = copy.deepcopy(self._plan)
        plan["epochs"] = epochs
        return plan

    def _copy(self):
        out = copy.copy(self)
        out._plan = copy.deepcopy(self._plan)
        out._state = None
        out._live = None
        out._epoch_rows = None
        return out


class Tensor(np.ndarray):
    """A numpy array with MindSpore's Tensor.asnumpy(): the values of
    create_dict_iterator / create_tuple_iterator with output_numpy=False."""

    def asnumpy(self) -> np.ndarray:
        return self.view(np.ndarray)


def _as_tensor(v):
    if isinstance(v, np.ndarray):
        return v.view(Tensor)
    if isinstance(v, np.generic):
        return np.asarray(v).view(Tensor)
    return v  # bytes, str, lists of ragged arrays


def _epochs_arg(num_epochs):
    if not isinstance(num_epochs, int) or isinstance(num_epochs, bool) or num_epochs == 0 or num_epochs < -1:
        raise ValueError("num_epochs must be an int >= 1 or -1, got %r" % (num_epochs,))
    return num_epochs


def _bool_arg(name, value):
    if not isinstance(value, bool):
        raise TypeError("%s must be a bool, got %r" % (name, value))
    return value


class _DictIterator:
    """Runs one C++ pipeline over all its epochs and hands them out one epoch
    per loop, as MindSpore's iterators do: at an epoch's end __next__ raises
    StopIteration (having read the next epoch's first chunk or batch ahead)
    and the next loop continues with the next epoch. Updates the dataset's
    resume state per batch. Thread safety: one thread at a time."""

    def __init__(self, ds, num_epochs, columns, tuples, tensors, do_copy):
        _bool_arg("do_copy", do_copy)
        self._pipe = None
        if ds._live is not None:
            ds._live.close()  # one iteration at a time: the new one continues where it stopped
        self._ds = ds
        start = ds._start_epoch()
        plan = ds._full_plan(0 if num_epochs == -1 else start + num_epochs)
        resume = ds.state_dict() if ds._state is not None else None
        if resume is None and start:
            resume = {"seed": plan["seed"], "epoch": start, "position": 0, "rows": 0}
        if resume is not None:
            resume = dict(resume, fingerprint=str(_core.plan_fingerprint(json.dumps(plan))))
        resume = None if resume is None else json.dumps(resume)
        # Rows without map ops or padding: read a chunk at a time in C++ (no
        # worker threads, no per-row handoff) with the same order, types and
        # resume state as the pipeline.
        self._rows = not ds._batched and not plan["ops"] and "padded" not in plan
        self._epoch = start      # the epoch being handed out
        self._ahead = None       # (chunk or batch, epoch, rows) of the next epoch, read ahead
        self._chunk = iter(())   # rows path: the rows of the current chunk not yet handed out
        self._shape = None
        if columns is not None or tuples or tensors:
            self._shape = (columns, tuples, tensors)
        if self._rows:
            self._pipe = _core.RowStream(json.dumps(plan), resume, ROW_READ_AHEAD_BYTES, "numpy", not do_copy)
        else:
            self._pipe = _core.Pipeline(json.dumps(plan), resume)
        ds._live = self
        self._batched = ds._batched
        self.last_row_ids = None
        self.last_epoch = None

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
                self.close()
                return None
            if self._rows:
                self._ahead = (item, json.loads(self._pipe.state())["epoch"], len(item))
            else:
                self._ahead = (item, item[2], len(item[1]))
        item, epoch, _ = self._ahead
        if epoch != self._epoch:
            return None  # kept for the next epoch's loop
        self._ahead = None
        return item

    def _end_epoch(self):
        self._epoch = self._ahead[1] if self._ahead is not None else self._epoch + 1

    def _epoch_chunks(self):
        yield self._chunk  # what __next__ left of the current chunk
        while (rows := self._next_in_epoch()) is not None:
            self._chunk = iter(rows)
            yield self._chunk
        self._end_epoch()

    def _state(self):
        """The resume state after the rows handed out (JSON-like dict)."""
        state = json.loads(self._pipe.state())
        if self._ahead is not None:
            # Read ahead: the first chunk or batch of the next epoch.
            state["epoch"] = self._ahead[1]
            state["position"] = 0
            state["rows"] -= self._ahead[2]
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
        if not self._batched:
            cols = {k: v[0] for k, v in cols.items()}
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
        """The pipeline's per-stage statistics (dict)."""
        return json.loads(self._pipe.stats()) if self._pipe is not None else None

    def close(self):
        """Stops the pipeline; the dataset keeps where it stopped (state_dict())."""
        if self._pipe is not None:
            self._ds._state = self._state()
            self._pipe.close()
            self._pipe = None
            if self._ds._live is self:
                self._ds._live = None

    def __del__(self):
        self.close()
