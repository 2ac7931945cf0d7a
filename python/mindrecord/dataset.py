"""MindDataset: MindSpore's training-loop dataset over the C++ pipeline.

    ds = MindDataset("train.mindrecord", columns_list=["image", "label"], shuffle=True, seed=1)
    ds = ds.map([vision.Decode(), vision.RandomResizedCrop(224), vision.HWC2CHW()], input_columns="image")
    ds = ds.batch(256, drop_remainder=True)
    for image, label in ds:     # one epoch; the next loop runs the next epoch
        image                   # mindrecord.Tensor: numpy uint8 [256, 3, 224, 224] over the C++ batch buffer

Reading, decoding and transforming run in C++ worker threads without the
GIL; batches come out in sampler order whatever num_parallel_workers is, so
the same seed gives the same sequence. state_dict()/load_state_dict() resume
exactly where a run stopped (also with another worker count).
"""
from collections.abc import Iterator
import copy
from typing import Any
import json
import os

from mindrecord import _core, _mp_pool
from mindrecord._checks import check_file_names
from mindrecord import config as _config
from mindrecord._remote import is_remote, remote_dict, remote_json, source_path
from mindrecord import dataset_ops as _ops
from mindrecord import dataset_save as _save
from mindrecord import dataset_tree as _tree
from mindrecord import _elastic
from mindrecord.cache import check_cache
from mindrecord.callback import DSCallback, callback_list
from mindrecord.exceptions import InvalidArgumentError
from mindrecord.filereader import warn_reader
from mindrecord.iterators import ROW_READ_AHEAD_BYTES, DictIterator, Tensor, bool_arg, epochs_arg
from mindrecord.samplers import (DistributedSampler, PKSampler, RandomSampler, SequentialSampler, Shuffle,
                                 SubsetRandomSampler, SubsetSampler, WeightedRandomSampler, _nsamples, _Sampler,
                                 _shuffle_mode, shard_split)
from mindrecord.vision import to_specs

__all__ = ["MindDataset", "Shuffle", "Tensor", "SequentialSampler", "RandomSampler", "DistributedSampler",
           "SubsetSampler", "SubsetRandomSampler", "PKSampler", "WeightedRandomSampler", "ROW_READ_AHEAD_BYTES",
           "BatchInfo", "DSCallback", "mix"]

BatchInfo = _tree.BatchInfo
zip = _tree.zip_datasets  # noqa: A001 (MindSpore's mindspore.dataset.zip)
mix = _tree.mix

IO_MODES = _core.IO_MODES  # the reader's one list (readers/reader_options.h)


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
    "offload": "no offload to the device; only None or False",
}
_MAP_KWARGS = {
    "python_multiprocessing": lambda v: _bool_kwarg("python_multiprocessing", v),
    "offload": lambda v: v is None or v is False,
    # Shared-memory MB per row for python_multiprocessing workers (see
    # _mp_pool); unused without them, as in MindSpore.
    "max_rowsize": lambda v: _mp_pool.rowsize_arg(v) is not None,
}
_BATCH_KWARGS = {
    "python_multiprocessing": lambda v: _bool_kwarg("python_multiprocessing", v),
    "max_rowsize": lambda v: _mp_pool.rowsize_arg(v) is not None,
}


def _bool_kwarg(name, value):
    if not isinstance(value, bool):
        raise TypeError("%s must be a bool, got %r" % (name, value))
    return True


def _process_workers(kwargs, num_parallel_workers):
    """(worker processes, slot sizes) when kwargs ask for python_multiprocessing, else None."""
    if not kwargs.get("python_multiprocessing", False):
        return None
    if num_parallel_workers:
        _positive("num_parallel_workers", num_parallel_workers)
    return _mp_pool.workers_arg(num_parallel_workers or None), _mp_pool.rowsize_arg(kwargs.get("max_rowsize"))


def _op_list(operations):
    """map()'s operations as a list (one op or callable, or a list of them)."""
    return list(operations) if isinstance(operations, (list, tuple)) else [operations]


def _positive(name, value):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError("%s must be an int >= 1, got %r" % (name, value))
    return value

def check_sampling(shuffle, num_samples, num_shards, shard_id, sampler):
    """MindSpore's checks of how a dataset's rows are chosen and split."""
    if num_shards is not None and shard_id is None:
        raise InvalidArgumentError("num_shards is specified and currently requires shard_id as well")
    if shard_id is not None and num_shards is None:
        raise InvalidArgumentError("shard_id is specified but num_shards is not")
    if sampler is not None and (shuffle is not None or num_shards is not None or num_samples is not None):
        raise InvalidArgumentError("sampler cannot be combined with shuffle, num_shards / shard_id or "
                                   "num_samples (give num_samples to the sampler)")
    if sampler is not None and not hasattr(sampler, "_spec_for"):
        raise TypeError("sampler must be one of mindrecord's samplers, got %r" % (sampler,))
    if num_shards is not None:
        _positive("num_shards", num_shards)
        if not isinstance(shard_id, int) or isinstance(shard_id, bool) or not 0 <= shard_id < num_shards:
            raise ValueError("shard_id must be an int in [0, %d), got %r" % (num_shards, shard_id))


def dataset_seed(seed):
    """(whether a seed was given here or by config.set_seed, the seed): a
    random one when neither gave it."""
    given = seed is not None or _config._seed_set() is not None
    if seed is None:
        seed = _config._seed_set()
    if seed is None:
        seed = int.from_bytes(os.urandom(7), "little")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError("seed must be an int >= 0")
    return given, seed



class MindDataset:
    """A MindRecord dataset as batches (or rows) of numpy arrays.

    Arguments follow mindspore.dataset.MindDataset (MindSpore 2.6), in its
    order. `dataset_files`: one shard path (its siblings are found through
    the header) or a list of files, read exactly as listed (a subset of a
    dataset's shards, or shards of several datasets with the same schema).
    `shuffle`: None (Shuffle.ADAPTIVE: global up to 100M rows, else
    partial), True (global), False, or a Shuffle mode. `num_shards` /
    `shard_id`: this rank's share: every rank gets ceil(rows / num_shards)
    rows (the first rows of the order are repeated to make up the count),
    dealt by interval (rows i, i+N, ...), or in contiguous blocks when the
    environment variable MS_DEV_MINDRECORD_SHARD_BY_BLOCK is "true";
    `num_samples` then caps the rows per rank. `sampler`: one of this
    package's samplers (not with shuffle, num_shards or num_samples).
    `padded_sample` (a dict holding at least the columns read; other keys
    are ignored) and `num_padded`, given together: num_padded copies of the
    sample are appended after the dataset's rows (row ids num_rows ..
    num_rows + num_padded - 1) and sampled, shuffled, sharded, mapped and
    batched like real rows; with num_shards, rows + num_padded must divide
    evenly among them. `cache`: a DatasetCache (mindrecord.cache) that keeps
    the rows as read.

    Our keywords: `seed` (None draws a random seed, kept in state_dict()).
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

    Datasets named by URL (`https://...`, `http://...`, `s3://BUCKET/KEY`; the
    siblings are found beside the URL) are read by ranges through a local page
    cache; `remote`: a dict of the plan's "remote" keys, e.g. {"endpoint":
    "http://127.0.0.1:9000", "cache_dir": "/scratch/mr", "cache_bytes": 8 << 30}
    (python/README.md, readers/README.md "Remote datasets"). io_mode "auto"
    or "pread" only.

    Values are MindSpore's (see mindrecord.iterators): numeric columns as
    numpy arrays (0-d for a scalar field) that share the C++ batch buffer,
    bytes as uint8 arrays, strings as numpy str arrays; columns whose rows
    differ in shape (or byte length) as lists of arrays.

    Thread safety: map/batch and the other operations return new datasets
    and never change this one (use_sampler and reset change it, as in
    MindSpore). One iteration at a time per dataset object (an iterator is
    used by one thread); state_dict() may be called between batches.
    """

    def __init__(self, dataset_files: str | list[str], columns_list: list[str] | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | str | None = None,
                 num_shards: int | None = None, shard_id: int | None = None, sampler: "_Sampler | None" = None,
                 padded_sample: dict[str, object] | None = None, num_padded: int | None = None,
                 num_samples: int | None = None, cache: object = None, *, seed: int | None = None,
                 io_mode: str = "auto", direct_fallback: bool = False, auto_direct_above: int | None = None,
                 remote: dict[str, object] | None = None) -> None:
        _io_mode(io_mode)
        remote = remote_dict(remote)
        io_keys = _io_plan_keys(direct_fallback, auto_direct_above)
        dataset_cache = check_cache(cache, "MindDataset") if cache is not None else None
        listed = isinstance(dataset_files, (list, tuple))
        if not isinstance(dataset_files, str) and not listed:
            raise ValueError("dataset_files must be a str or a non-empty list of str, got %r" % (dataset_files,))
        source = check_file_names(dataset_files)
        if io_mode in ("mmap", "direct") and any(is_remote(p) for p in source):
            raise ValueError("%s: io_mode %s does not apply to a remote dataset (it is read by ranges over HTTP); "
                             "use auto or pread" % (source[0], io_mode))
        if columns_list is not None and (not isinstance(columns_list, (list, tuple)) or not columns_list or
                                         not all(isinstance(c, str) for c in columns_list)):
            raise ValueError("columns_list must be a non-empty list of str or None")
        if num_parallel_workers is None:
            num_parallel_workers = _config.get_num_parallel_workers()
        _positive("num_parallel_workers", num_parallel_workers)
        if shuffle is not None and not isinstance(shuffle, (bool, Shuffle, str)):
            raise TypeError("shuffle must be of boolean or enum of 'Shuffle' values like 'Shuffle.GLOBAL' or "
                            "'Shuffle.FILES' or 'Shuffle.INFILE', got %r" % (shuffle,))
        mode = _shuffle_mode(shuffle, Shuffle.ADAPTIVE)
        samples = _nsamples(num_samples)
        if samples and mode in ("files", "infile"):
            raise ValueError("'Shuffle.FILES' or 'Shuffle.INFILE' and 'num_samples' cannot be specified at the "
                             "same time.")
        check_sampling(shuffle, num_samples, num_shards, shard_id, sampler)
        self._seed_given, seed = dataset_seed(seed)
        self._plan: dict[str, Any] = {
            "source": [source_path(p) for p in source],
            "columns": list(columns_list or []),
            "sampler": {"type": "sequential"},
            "ops": {},
            "batch": {"batch_size": 1, "drop_remainder": False},
            "num_workers": num_parallel_workers,
            "queue_depth": _config.get_prefetch_size(),
            "seed": seed,
            "io_mode": io_mode,
        }
        if listed:
            self._plan["source_list"] = True
        self._plan.update(io_keys)
        self._plan.update(_config._autotune_plan())
        if remote is not None:
            self._plan["remote"] = remote
        self._batched = False
        self._repeat_after = 1   # pipeline epochs per epoch handed out (repeat after batch); 0: endless
        self._repeat_count = 1   # get_repeat_count()
        self._split_base: dict[str, Any] | None = None  # a split()'s subset spec, which use_sampler() draws from
        self._state: dict | None = None  # where the next iteration starts
        self._stopped: dict | None = None  # where the last iteration stopped (state_dict())
        self._live = None       # the running iterator, if any
        self._callbacks: list = []  # (DSCallback, its map is before the batch) of every map, in order
        self._size_counted: int | None = None  # get_dataset_size() of a filtered tree, once counted
        # Open now so that bad paths and columns fail here, not at iteration.
        reader = _core.Reader(self._plan["source"][0], self._plan["columns"],
                              "direct" if io_mode == "direct" and not direct_fallback else "pread",
                              self._plan["source"] if listed else [], False, remote_json(remote))
        warn_reader(reader)
        padded = self._padded_spec(reader, columns_list, padded_sample, num_padded, num_shards)
        if padded is not None:
            self._plan["padded"] = padded
        rows = reader.num_rows + (padded["count"] if padded else 0)
        if sampler is not None:
            spec = sampler._spec_for(rows)
        elif num_shards is not None:
            spec = {"type": "distributed", "num_shards": num_shards, "shard_id": shard_id, "shuffle": mode,
                    "pad": padded is None, "split": shard_split(), "num_samples": samples}
        elif mode == "off":
            spec = {"type": "sequential", "num_samples": samples}
        else:
            spec = {"type": "shuffle", "mode": mode, "num_samples": samples}
        self._plan["sampler"] = spec
        if dataset_cache is not None:
            # The rows as read, cached (a tree: the cache node over the leaf).
            self._plan = _tree.with_tree(self, dataset_cache._node(_tree.tree_of(self)))._plan
        self._check_plan()

    @staticmethod
    def _padded_spec(reader, columns_list, padded_sample, num_padded, num_shards):
        """The plan's "padded" object (None without padding), after MindSpore's checks."""
        if padded_sample is None and num_padded is None:
            return None
        if padded_sample is None:
            raise InvalidArgumentError("num_padded is specified but padded_sample is not.")
        if num_padded is None:
            raise InvalidArgumentError("padded_sample is specified and requires num_padded as well.")
        if not isinstance(padded_sample, dict):
            raise ValueError("padded_sample must be a dict of column -> value, got %s" % type(padded_sample).__name__)
        if not isinstance(num_padded, int) or isinstance(num_padded, bool) or num_padded < 0:
            raise ValueError("num_padded is invalid, num_padded={}.".format(num_padded))
        columns = list(columns_list) if columns_list else sorted(json.loads(reader.schema_json))
        missing = [c for c in columns if c not in padded_sample]
        if missing:
            raise ValueError("padded_sample cannot match columns_list: it lacks %s of the columns read %s"
                             % (missing, columns))
        rows = reader.num_rows
        shards = num_shards or 1
        # The pipeline keeps per-row state for rows + num_padded ids, so an
        # absurd count must not reach it.
        if num_padded > rows + shards:
            raise ValueError("num_padded %d is more than the dataset's %d rows plus num_shards %d; padding only "
                             "evens out the rows per shard" % (num_padded, rows, shards))
        if (rows + num_padded) % shards:
            raise ValueError("Invalid input, number of padding samples: %d plus dataset size %d is not divisible "
                             "by num_shards: %d." % (num_padded, rows, shards))
        sample = {c: padded_sample[c] for c in columns}
        row = json.loads(_core.padded_row_json(reader.schema_json, columns, sample))
        return {"count": num_padded, "row": row}

    def _check_plan(self):
        """Fails now, not at iteration, on a plan the engine refuses."""
        self._size_counted = None
        self._plan_query(_core.sampler_size)

    def _plan_query(self, fn):
        """fn(the plan's JSON), fn being _core.sampler_size or _core.plan_info,
        kept while the plan stays the same: each call compiles the tree, which
        lists a raw folder or list file again (seconds for millions of files)."""
        key = json.dumps(self._full_plan(1))
        held = self.__dict__.get("_plan_answers")
        if held is None or held[0] != key:
            held = (key, {})
            self._plan_answers = held
        answers = held[1]
        if fn.__name__ not in answers:
            answers[fn.__name__] = fn(key)
        answer = answers[fn.__name__]
        return dict(answer) if isinstance(answer, dict) else answer

    # ---- MindSpore's dataset operations (dataset_ops.py) -------------------

    repeat = _ops.repeat
    shuffle = _ops.shuffle
    use_sampler = _ops.use_sampler
    split = _ops.split
    reset = _ops.reset
    get_batch_size = _ops.get_batch_size
    get_repeat_count = _ops.get_repeat_count
    output_shapes = _ops.output_shapes
    output_types = _ops.output_types
    apply = _ops.apply
    num_classes = _ops.num_classes
    save = _save.save

    @property
    def input_indexs(self) -> tuple:
        """MindSpore's column indexes for sink mode: what was set, else ()."""
        return getattr(self, "_input_indexs", ())

    @input_indexs.setter
    def input_indexs(self, value: object) -> None:
        self._input_indexs = value

    # ---- MindSpore's combinators (dataset_tree.py) --------------------------

    filter = _tree.filter
    project = _tree.project
    rename = _tree.rename
    take = _tree.take
    skip = _tree.skip
    concat = _tree.concat
    zip = _tree.zip_method
    bucket_batch_by_length = _tree.bucket_batch_by_length

    def __add__(self, other: "MindDataset") -> "MindDataset":
        """ds1 + ds2: ds1.concat(ds2)."""
        return self.concat(other)

    # ---- chaining ---------------------------------------------------------

    def map(self, operations: object = None, input_columns: str | list[str] | None = None,
            output_columns: str | list[str] | None = None, num_parallel_workers: int | None = None,
            **kwargs: object) -> "MindDataset":
        """Applies ops in order, as MindSpore 2.x's map: ops from
        mindrecord.vision (C++, without the GIL) and Python callables, mixed
        in one list. The first op takes `input_columns` (all columns when
        None), each next op what the previous gave, and the last op's
        results are named `output_columns` (default: the input names). With
        as many output as input columns they take the inputs' places;
        otherwise the outputs come first, then the other columns in their
        order (MindSpore's MapOp column order). After batch(), the ops get
        whole batches (MixUpBatch, CutMixBatch).

        A callable gets its input columns as positional arguments, each a
        numpy array (bytes columns as 1-D uint8, strings as a 0-d str array;
        after batch(), the batch's array), and returns one value or a tuple
        of values, one per output column: numpy arrays (any numeric dtype and
        shape: bool, uint8, int8..int64, float32, float64), bytes or str. It
        runs on the pipeline's worker threads holding the GIL, so callables
        run one at a time; with `python_multiprocessing=True` they run in
        num_parallel_workers worker processes (spawned; callables must
        pickle), arrays passed through shared memory slots of `max_rowsize`
        MB (None or -1: sized to the data; a row too big for a fixed slot is
        an error naming max_rowsize); see mindrecord._mp_pool. The output
        order is the same for any num_parallel_workers, threads or
        processes. Use deterministic callables (the pipeline seeds only its
        own random ops). An exception raised inside it stops the iteration
        with RuntimeError naming the callable, column and row, chained to the
        original exception. Callables are kept alive for the life of the
        process. `callbacks`: DSCallback objects, called on the consumer side
        (see mindrecord.callback). `cache`: a DatasetCache (mindrecord.cache)
        that keeps the map's output rows: its ops must be deterministic (a
        random op raises ValueError; cache a map of the deterministic ops and
        apply the random ones in a later map). MindSpore's other keywords are
        taken at their defaults only (offload=None); other values raise
        NotImplementedError naming them."""
        callbacks = callback_list(kwargs.pop("callbacks", None))
        cache = kwargs.pop("cache", None)
        _mindspore_kwargs("map", kwargs, _MAP_KWARGS)
        procs = _process_workers(kwargs, num_parallel_workers)
        specs = to_specs(operations)
        if procs is not None:
            specs = _mp_pool.wrap_specs(operations, specs, *procs)
        ins = _tree.column_list("input_columns", input_columns, required=False)
        outs = _tree.column_list("output_columns", output_columns, required=False)
        if cache is not None:
            map_cache = check_cache(cache, "map")
            if self._batched:
                raise ValueError("map(cache=...) after batch() is not supported: cache the rows before batch()")
            out = _tree.map_node(self, specs, ins, outs)
            out = _tree.with_tree(out, map_cache._node(_tree.tree_of(out)))
        elif (not _tree.is_tree(self) and not self._batched and len(ins) == 1 and outs in ([], ins)
              and all(getattr(op, "_gives", 1) == 1 for op in _op_list(operations))):
            # One column transformed in place: the flat plan's per-column ops.
            out = self._copy()
            out._plan["ops"].setdefault(ins[0], []).extend(specs)
            _core.normalize_plan(json.dumps(out._full_plan(1)))
        else:
            out = _tree.map_node(self, specs, ins, outs)
        if num_parallel_workers:
            out._plan["num_workers"] = max(out._plan["num_workers"], _positive("num_parallel_workers",
                                                                              num_parallel_workers))
        out._callbacks = self._callbacks + [(cb, not self._batched) for cb in callbacks]
        return out

    def batch(self, batch_size: int, drop_remainder: bool = False, num_parallel_workers: int | None = None,
              pad_columns: dict | None = None, **kwargs: object) -> "MindDataset":
        """Rows per batch (an int, or MindSpore's callable taking a BatchInfo
        and giving the size of that batch, asked once per batch on the
        iterating thread); drop_remainder drops each epoch's last short batch.
        Columns whose rows differ in shape come out as lists of arrays, or
        padded with `pad_columns={"col": pad_value}` (to the batch's largest
        shape) or MindSpore's `pad_info={"col": (shape, pad_value)}` (None
        dims: the largest; {}: every column). `per_batch_map` (with
        `input_columns`, `output_columns`), as MindSpore's: called per batch
        with one list per input column (the rows' values) and a BatchInfo
        (get_epoch_num(), get_batch_num()) last; returns a tuple with one
        entry per output column, a list of per-row values or one array of the
        whole batch; columns are laid out as map's. `python_multiprocessing`
        and `max_rowsize` run the per_batch_map in worker processes, as
        map's."""
        per_batch_map = kwargs.pop("per_batch_map", None)
        input_columns = kwargs.pop("input_columns", None)
        output_columns = kwargs.pop("output_columns", None)
        pad_info = kwargs.pop("pad_info", None)
        _mindspore_kwargs("batch", kwargs, _BATCH_KWARGS)
        procs = _process_workers(kwargs, num_parallel_workers) if per_batch_map is not None else None
        pool = None
        if procs is not None and callable(per_batch_map):
            per_batch_map, pool = _mp_pool.wrap_batch_map(per_batch_map, *procs)
        if self._batched:
            raise ValueError("batch() was already applied")
        if not isinstance(drop_remainder, bool):
            raise TypeError("drop_remainder must be a bool, got %r" % (drop_remainder,))
        size_fn = None
        if callable(batch_size):
            size_fn, batch_size = batch_size, _tree.DYNAMIC_BATCH_TASK
        else:
            _positive("batch_size", batch_size)
        ragged = {c: {"pad": float(v)} for c, v in (pad_columns or {}).items()}
        if _tree.is_tree(self) or per_batch_map is not None or pad_info is not None or \
                input_columns is not None or output_columns is not None or size_fn is not None:
            out = _tree.batch_node(self, batch_size, drop_remainder, per_batch_map, input_columns, output_columns,
                                   pad_info, ragged, size_fn)
            if pool is not None:
                _mp_pool.note_ref(out._plan["tree"]["per_batch_map"]["_ref"], pool)
            out._batch_size_fn = size_fn
        else:
            out = self._copy()
            out._plan["batch"] = {"batch_size": batch_size, "drop_remainder": drop_remainder}
            if ragged:
                out._plan["batch"]["ragged"] = ragged
            out._batched = True
            _core.normalize_plan(json.dumps(out._full_plan(1)))
        if num_parallel_workers:
            out._plan["num_workers"] = _positive("num_parallel_workers", num_parallel_workers)
        return out

    def padded_batch(self, batch_size: int, drop_remainder: bool = False, num_parallel_workers: int | None = None,
                     pad_info: dict | None = None) -> "MindDataset":
        """MindSpore 2.x's padded_batch: batch() with pad_info (None: every
        column padded to the batch's largest shape with 0)."""
        return self.batch(batch_size, drop_remainder, num_parallel_workers, pad_info={} if pad_info is None else
                          pad_info)

    # ---- sizes --------------------------------------------------------------

    def _rows_per_epoch(self):
        """Positions per epoch before the batch (a tree's rows before its filters)."""
        return self._plan_query(_core.sampler_size)

    def _counted(self):
        """A tree whose epoch length is known only by running it (a filter)."""
        if not _tree.is_tree(self):
            return False
        info = _tree.plan_info(self)
        return info["drops_rows"] or info["counted"]

    def get_dataset_size(self) -> int:
        """Batches per epoch (rows when not batched); -1 after an endless
        repeat(). After a filter, as MindSpore, the dataset is iterated once
        to count (Python callables included)."""
        if self._repeat_after == 0:
            return -1
        if self._counted():
            if self._size_counted is None:
                probe = self._copy()
                probe._repeat_after = 1
                probe._callbacks = []
                it = probe.create_tuple_iterator(num_epochs=1, output_numpy=True)
                try:
                    self._size_counted = sum(1 for _ in it)
                finally:
                    it.close()
            return self._size_counted * self._repeat_after
        rows = self._rows_per_epoch()
        if self._batched:
            b, drop = self._batch_spec()
            rows = rows // b if drop else -(-rows // b)
        return rows * self._repeat_after

    def _batch_spec(self):
        if _tree.is_tree(self):
            info = _tree.plan_info(self)
            return info["batch_size"], info["drop_remainder"]
        return self._plan["batch"]["batch_size"], self._plan["batch"]["drop_remainder"]

    def __len__(self) -> int:
        return self.get_dataset_size()

    def get_col_names(self) -> list[str]:
        if _tree.is_tree(self):
            return list(_tree.plan_info(self)["columns"])
        if self._plan["columns"]:
            return list(self._plan["columns"])
        return sorted(json.loads(_core.Reader(self._plan["source"][0], [], "pread", [], False,
                                              remote_json(self._plan.get("remote"))).schema_json))

    def plan(self) -> str:
        """The C++ pipeline plan (JSON text) of the next iteration."""
        return _core.normalize_plan(json.dumps(self._full_plan(self._start_epoch() + 1)))

    # ---- resume -------------------------------------------------------------

    def state_dict(self) -> dict:
        """Where the next batch starts: {"seed", "epoch", "position", ...};
        with num_shards also "num_shards", "shard_id" (and "elastic" in an
        elastic epoch), for an elastic resume (load_state_dict)."""
        if self._live is not None and self._live._pipe is not None:
            return _elastic.dataset_state(self, self._live.state())
        if self._stopped is not None:
            return _elastic.dataset_state(self, dict(self._stopped))
        if self._state is not None:
            return _elastic.dataset_state(self, dict(self._state))
        plan = self._full_plan(1)
        return _elastic.dataset_state(self, {"seed": plan["seed"], "epoch": 0, "position": 0, "rows": 0,
                                             "fingerprint": str(_core.plan_fingerprint(json.dumps(plan)))})

    def load_state_dict(self, state: dict | list[dict]) -> None:
        """The next iteration continues exactly at `state` (from state_dict()
        of a dataset built the same way; the worker count may differ).
        Elastic resume: `state` may be the list of the state_dict() of every
        rank of a run with another num_shards (e.g. gathered with
        torch.distributed.all_gather_object); this rank then continues that
        epoch with its share of the rows no old rank handed out, and later
        epochs are those of a fresh run with this num_shards (_elastic.py)."""
        merged = _elastic.load_dataset(self, state)
        if merged is not None:
            state = dict(merged, fingerprint=str(_core.plan_fingerprint(json.dumps(self._full_plan(1)))))
            self._check_plan()
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
        self._stopped = None

    def _start_state(self):
        """The resume state the next iteration starts from (None: the start)."""
        return _elastic.dataset_state(self, dict(self._state)) if self._state is not None else None

    # ---- iteration ------------------------------------------------------------

    def create_dict_iterator(self, num_epochs: int = -1, output_numpy: bool = False,
                             do_copy: bool = True) -> DictIterator:
        """An iterator of dicts over `num_epochs` epochs (-1: endless),
        from the start of the epoch the last iterator left unfinished (the
        next epoch after a finished one; a load_state_dict() state exactly).
        As in MindSpore, each loop over it runs
        one epoch: the epoch's end raises StopIteration and the next loop
        continues with the next epoch. output_numpy=False (MindSpore's
        default) gives mindrecord.Tensor values (numpy arrays with
        MindSpore's asnumpy()); True gives numpy arrays. An array holds its
        buffer (the pipeline never reuses one an array holds). do_copy=False
        (MindSpore's "skip the copy") hands out bytes and array values that
        lie in a mapped shard as read-only views of it (numpy arrays),
        without copying them: in rows, and in the lists a batch makes of rows
        of different lengths; stacked batch columns are built in fresh
        buffers either way. With do_copy=True the worker threads copy the
        rows out of the mapping, not the thread calling next()."""
        return DictIterator(self, epochs_arg(num_epochs), columns=None, tuples=False,
                            tensors=not bool_arg("output_numpy", output_numpy), do_copy=do_copy)

    def create_tuple_iterator(self, columns: list[str] | None = None, num_epochs: int = -1,
                              output_numpy: bool = False, do_copy: bool = True) -> DictIterator:
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
        return DictIterator(self, epochs_arg(num_epochs), columns=list(columns) if columns else None,
                             tuples=True, tensors=not bool_arg("output_numpy", output_numpy), do_copy=do_copy)

    def __iter__(self) -> Iterator[list[object]]:
        # MindSpore's: one epoch of create_tuple_iterator(), lists of Tensors
        # (`for image, label in ds`); unbatched rows come from C++ lists
        # without a Python frame per row.
        return iter(DictIterator(self, 1, columns=None, tuples=True, tensors=True, do_copy=True))

    def _start_epoch(self):
        if self._state is None:
            return 0
        epoch = int(self._state["epoch"])
        if self._counted():
            return epoch  # the pipeline moves past an epoch's end itself
        if int(self._state["position"]) >= _elastic.epoch_rows(self, epoch) > 0:
            epoch += 1
        return epoch

    def _full_plan(self, epochs):
        plan = copy.deepcopy(self._plan)
        plan["epochs"] = epochs
        if _config._on_error() == "skip":  # config.set_error_samples_mode(SKIP)
            plan["on_error"] = "skip"
        return plan

    def _copy(self):
        out = copy.copy(self)
        out._plan = copy.deepcopy(self._plan)
        out._state = None
        out._stopped = None
        out._live = None
        out._size_counted = None
        out._callbacks = list(self._callbacks)
        return out


# MindSpore's raw-format loaders live beside MindDataset in mindspore.dataset.
from mindrecord.raw_datasets import (Caltech256Dataset, CelebADataset, Cifar10Dataset,  # noqa: E402,F401
                                     Cifar100Dataset, CocoDataset, EMnistDataset, FashionMnistDataset, Food101Dataset,
                                     ImageFolderDataset, KMnistDataset, MnistDataset, OmniglotDataset,
                                     Places365Dataset, VOCDataset)
from mindrecord.catalog_datasets import (Caltech101Dataset, CityscapesDataset, DIV2KDataset,  # noqa: E402,F401
                                         FakeImageDataset, FlickrDataset, Flowers102Dataset, IWSLT2016Dataset,
                                         IWSLT2017Dataset, KITTIDataset, LFWDataset, LSUNDataset, ManifestDataset,
                                         Multi30kDataset, PhotoTourDataset, QMnistDataset, RenderedSST2Dataset,
                                         SBDataset, SBUDataset, SemeionDataset, SQuADDataset, STL10Dataset, SVHNDataset,
                                         USPSDataset, WIDERFaceDataset)
from mindrecord.generator_dataset import GeneratorDataset, NumpySlicesDataset, PaddedDataset  # noqa: E402,F401
from mindrecord.text_file_dataset import TextFileDataset  # noqa: E402,F401
from mindrecord.audio_datasets import (CMUArcticDataset, GTZANDataset, LibriTTSDataset,  # noqa: E402,F401
                                       LJSpeechDataset, SpeechCommandsDataset, TedliumDataset, YesNoDataset)
from mindrecord.csv_dataset import CSVDataset  # noqa: E402,F401
from mindrecord.text_datasets import (AGNewsDataset, AmazonReviewDataset, DBpediaDataset,  # noqa: E402,F401
                                      CLUEDataset, CoNLL2000Dataset, EnWik9Dataset, IMDBDataset, UDPOSDataset,
                                      PennTreebankDataset, SogouNewsDataset, WikiTextDataset, YahooAnswersDataset,
                                      YelpReviewDataset)
