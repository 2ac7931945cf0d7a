"""MindSpore's GeneratorDataset over the same pipeline as MindDataset: its
rows come through a "source" leaf of kind "python" (the C++ source
python/bind_pysource.cc), which asks for row i by position, so map, batch,
the combinators, save(), state_dict() resume and mindrecord.torch work as on
MindDataset.

A row is a tuple (or list) of values, one per column, or one value for one
column: numpy arrays, Python numbers, bytes or str (anything numpy.asarray
takes).

Random-accessible sources (__getitem__ and __len__): row i is source[i];
samplers, shuffling and sharding as MindDataset's. The pipeline's worker
threads call it, holding the GIL for the call; with python_multiprocessing=True
and more than one worker (MindSpore's default) the calls run in worker
processes (started with spawn: the source must pickle), as a map's Python
callables do (_mp_pool.py).

Generator functions (called anew each epoch) and iterables (iter() each
epoch): read in order, as MindSpore reads them, without sampler, shuffle or
shards (MindSpore's rule). The rows are counted once when the dataset is made
(a pass over the source: MindSpore makes the same pass in
get_dataset_size()). _IterRows serves each epoch from one iteration of the
source, whatever order the workers ask for the positions in, keeping rows
made ahead of a request for the worker that asks for them. The source must
give as many rows each time it is iterated (a shorter pass is an error
saying so).

`schema` (a schema file or a Schema) gives the column names and types (its
shapes are not checked). Not implemented (an error naming it): single-pass
iterators.

Thread safety: as MindDataset.
"""
import threading
import weakref

import numpy as np

from mindrecord import _core, _mp_pool
from mindrecord.dataset import _positive
from mindrecord.raw_datasets import _RawDataset
from mindrecord.samplers import SubsetSampler, _nsamples
from mindrecord.schema import as_schema

__all__ = ["GeneratorDataset", "NumpySlicesDataset", "PaddedDataset"]


def _names(column_names):
    if isinstance(column_names, str):
        column_names = [column_names]
    if not isinstance(column_names, (list, tuple)) or not column_names or \
            not all(isinstance(c, str) and c for c in column_names):
        raise TypeError("column_names must be a column name or a non-empty list of column names, got %r"
                        % (column_names,))
    if len(set(column_names)) != len(column_names):
        raise ValueError("column_names %r names a column twice" % (list(column_names),))
    return list(column_names)


def _types(column_types, n):
    if column_types is None:
        return None
    if not isinstance(column_types, (list, tuple)) or len(column_types) != n:
        raise ValueError("column_types must be a list of one type per column (%d), got %r" % (n, column_types))
    out = []
    for t in column_types:
        try:
            out.append(np.dtype(t))
        except TypeError as e:
            raise TypeError("column_types: %r is no numpy dtype (mindrecord takes numpy dtypes, e.g. np.int32, "
                            "where MindSpore takes its mstype)" % (t,)) from e
    return out


def _schema_columns(schema, column_names, column_types):
    """The column names and types a schema (a file's path or a Schema) gives."""
    schema = as_schema(schema)
    names = [c["name"] for c in schema.columns]
    if column_names is not None and list(_names(column_names)) != names:
        raise ValueError("column_names %r and the schema's columns %r differ; give one of them" % (column_names, names))
    if column_types is not None:
        raise ValueError("give column_types or schema, not both (the schema's types are the columns' types)")
    types = [{"string": str, "bytes": bytes}.get(c["type"], c["type"]) for c in schema.columns]
    return names, types


class _Rows:
    """source[i] as a tuple of column values (cast to column_types), what
    the C++ source converts. Picklable when the source is."""

    def __init__(self, source, types, name):
        self.source, self.types = source, types
        self.__qualname__ = name

    def __call__(self, i):
        return _values(self.source[i], self.types, "source[%d]", i)


def _values(row, types, where, i):
    """row as a tuple of column values cast to `types`; errors name the row
    by `where % i` (formatted only then: this runs once per row)."""
    if isinstance(row, dict):
        raise TypeError("%s is a dict; GeneratorDataset rows are tuples of column values" % (where % i))
    values = tuple(row) if isinstance(row, (tuple, list)) else (row,)
    if types is not None:
        if len(values) != len(types):
            raise ValueError("%s gave %d value(s) for %d column type(s)" % (where % i, len(values), len(types)))
        values = tuple(np.asarray(v, dtype=t) for v, t in zip(values, types))
    return values


# Rows made ahead of a request are kept while they are at most this many
# positions behind the newest request of their pass (the workers ask for
# nearby positions).
_WINDOW = 4096


class _Pass:
    """One iteration of the source: its iterator, the position it gives
    next, and rows it made before they were asked for."""

    __slots__ = ("it", "next", "ahead")

    def __init__(self, it):
        self.it, self.next, self.ahead = it, 0, {}


class _IterRows:
    """Row i of an iterated source (see the module). The k-th request for
    position i belongs to the k-th pass over the source: each epoch (and each
    repeat() pass) asks for every position it reads once, so each is served
    from its own iteration of the source, made when its first request comes,
    whatever order the workers ask in and however the epochs overlap; a pass
    two behind the newest is dropped."""

    def __init__(self, make_iter, rows, types, name):
        self.make_iter, self.rows, self.types = make_iter, rows, types
        self.__qualname__ = name
        self._lock = threading.Lock()
        self._asked = np.zeros(rows, np.uint32)  # requests per position so far
        self._passes = {}

    def _short(self, got):
        return RuntimeError("the source gave %d rows in this pass, %d when it was counted (it must give the same "
                            "rows each time it is iterated)" % (got, self.rows))

    def __call__(self, i):
        with self._lock:
            n = int(self._asked[i])
            self._asked[i] = n + 1
            p = self._passes.get(n)
            if p is None:
                p = self._passes[n] = _Pass(iter(self.make_iter()))
                for old in [k for k in self._passes if k < n - 1]:
                    del self._passes[old]
            row = p.ahead.pop(i, None)
            if row is not None:
                return row
            if i < p.next:
                # Made and dropped (more than _WINDOW behind): an iteration of its own.
                for k, v in enumerate(self.make_iter()):
                    if k == i:
                        return _values(v, self.types, "row %d", k)
                raise self._short(i)
            while True:
                try:
                    v = next(p.it)
                except StopIteration:
                    raise self._short(p.next) from None
                k, p.next = p.next, p.next + 1
                row = _values(v, self.types, "row %d", k)
                if k == i:
                    return row
                if k + _WINDOW >= i:
                    p.ahead[k] = row


class _Registration:
    """The registry entry of a source's callable, dropped when the last
    dataset (or torch adapter) made from it is gone: datasets made from it
    share this object (their `_keep`), and live iterators hold their
    dataset."""

    def __init__(self, ref):
        self.ref = ref
        weakref.finalize(self, _unregister, ref)


def _unregister(ref):
    _mp_pool.forget_ref(ref)
    _core.unregister_callable(ref)


class GeneratorDataset(_RawDataset):
    """mindspore.dataset.GeneratorDataset (see the module). A
    random-accessible `source` is shuffled unless shuffle=False (MindSpore's
    default for such sources); `sampler` is one of mindrecord's samplers or
    a list of row indices; num_shards / shard_id, num_samples as
    MindDataset's. A generator function or an iterable is read in order
    (num_samples: its first rows). `column_types`: numpy dtypes the columns
    are cast to."""

    def __init__(self, source, column_names=None, column_types=None, schema=None, num_samples=None,
                 num_parallel_workers=1, shuffle=None, sampler=None, num_shards=None, shard_id=None,
                 python_multiprocessing=True, max_rowsize=None, *, seed=None):
        if schema is not None:
            column_names, column_types = _schema_columns(schema, column_names, column_types)
        if column_names is None:
            raise ValueError("Neither columns_names nor schema are provided.")
        names = _names(column_names)
        types = _types(column_types, len(names))
        if not isinstance(python_multiprocessing, bool):
            raise TypeError("python_multiprocessing must be a bool, got %r" % (python_multiprocessing,))
        workers = _mp_pool.workers_arg(num_parallel_workers)
        _positive("num_parallel_workers", workers)
        rowsize = _mp_pool.rowsize_arg(max_rowsize)
        name = getattr(source, "__qualname__", None) or type(source).__qualname__
        if not hasattr(source, "__getitem__"):
            ref, rows = self._iterated(source, name, types, num_samples, shuffle, sampler, num_shards)
            self._init_leaf("GeneratorDataset", self._leaf(names, rows, name, ref, source), None, workers, False,
                            None, None, None, seed)
            return
        if not hasattr(source, "__len__"):
            raise TypeError("GeneratorDataset: a random-accessible source needs __len__ (the number of rows)")
        rows = len(source)
        if not isinstance(rows, int) or rows < 0:
            raise ValueError("GeneratorDataset: len(source) must be a count >= 0, got %r" % (rows,))
        kind = "python"
        if types is None and isinstance(source, _Slices) and source.numeric:
            # NumpySlicesDataset of numeric arrays: sliced by the C++ source,
            # no Python per row (so no worker processes either).
            ref, kind = _core.register_callable(source), "numpy"
        elif python_multiprocessing and workers > 1:
            fetch = _Rows(source, types, name)
            _mp_pool._check_picklable(fetch, "GeneratorDataset")
            pool = _mp_pool.ProcessPool([fetch], workers, rowsize)
            proxy = _mp_pool.ProcessCallable(pool, 0, name)
            proxy._who = "GeneratorDataset source '%s'" % name
            ref = _core.register_callable(proxy)
            _mp_pool.note_ref(ref, pool)
        elif types is None:
            # The C++ source calls source[i] itself (it rejects dicts and
            # splits tuples as _values does): no Python frame of ours per row.
            ref = _core.register_callable(source.__getitem__)
        else:
            ref = _core.register_callable(_Rows(source, types, name))
        if sampler is not None and not hasattr(sampler, "_spec_for"):
            try:
                sampler = SubsetSampler(list(sampler))
            except TypeError as e:
                raise TypeError("sampler must be one of mindrecord's samplers or a list of row indices, got %r"
                                % (sampler,)) from e
        self._init_leaf("GeneratorDataset", self._leaf(names, rows, name, ref, source, kind), num_samples, workers,
                        shuffle, sampler, num_shards, shard_id, seed)

    def _leaf(self, names, rows, name, ref, source, kind="python"):
        self._keep = [_Registration(ref)]
        return {"node": "source", "kind": kind, "columns": names, "rows": rows,
                "name": "GeneratorDataset source '%s'" % name, "_ref": ref}

    @staticmethod
    def _iterated(source, name, types, num_samples, shuffle, sampler, num_shards):
        """(callable id, rows) of a generator function or an iterable."""
        for key, value in (("sampler", sampler), ("shuffle", shuffle), ("num_shards", num_shards)):
            if value is not None:
                raise ValueError("%s is not supported if source does not have attribute '__getitem__'" % key)
        if callable(source):
            make_iter = source
        elif hasattr(source, "__iter__"):
            if iter(source) is source:
                raise NotImplementedError("GeneratorDataset of an iterator (%s) is not supported by mindrecord: it "
                                          "can be read only once, and its rows are counted first; pass the "
                                          "generator function, or an iterable" % name)
            make_iter = source.__iter__
        else:
            raise TypeError("Input source is not callable, iterable or random accessible, got %r" % (source,))
        rows = 0
        for _ in make_iter():
            rows += 1
        samples = _nsamples(num_samples)
        if samples:
            rows = min(rows, samples)
        return _core.register_callable(_IterRows(make_iter, rows, types, name)), rows


class _Slices:
    """NumpySlicesDataset's source: row i is column[i] of each column (numpy
    arrays sliced along their first dimension)."""

    def __init__(self, data, column_names):
        self.names = None
        if isinstance(data, dict):
            if not data:
                raise ValueError("NumpySlicesDataset: data is an empty dict")
            # pandas-like columns (a .values attribute) as their arrays
            self.names = list(data.keys())
            data = tuple(getattr(v, "values", v) for v in data.values())
        columns = tuple(np.asarray(d) for d in data) if isinstance(data, tuple) else (np.asarray(data),)
        for c in columns:
            if c.ndim == 0:
                raise ValueError("NumpySlicesDataset: a column of data is a scalar; give one value per row")
        lengths = [len(c) for c in columns]
        if lengths[1:] != lengths[:-1]:
            raise ValueError("Data length in each column is not equal.")
        self.columns = columns
        if column_names is not None:
            self.names = column_names
        elif self.names is None:
            self.names = ["column_%d" % i for i in range(len(columns))]

        # Columns the C++ source slices itself (the "numpy" source kind):
        # numeric dtypes, C order, native byte order.
        self.numeric = all(c.dtype.kind in "biuf" and (c.dtype.kind != "u" or c.dtype.itemsize == 1)
                           and c.dtype.itemsize in (1, 2, 4, 8) and not (c.dtype.kind == "f" and c.dtype.itemsize < 4)
                           for c in columns)
        if self.numeric:
            self.columns = tuple(np.ascontiguousarray(c, dtype=c.dtype.newbyteorder("=")) for c in columns)

    def __getitem__(self, i):
        return tuple(c[i, ...] for c in self.columns)

    def __call__(self, i):
        return self[i]

    def __len__(self):
        return len(self.columns[0])


class NumpySlicesDataset(GeneratorDataset):
    """mindspore.dataset.NumpySlicesDataset: `data` (a list or numpy array:
    one column; a tuple: one column per element; a dict: its keys name the
    columns) sliced along the first dimension, one row per slice. Column
    names default to the dict's keys, else column_0, column_1, ...;
    shuffled unless shuffle=False; the other arguments as GeneratorDataset's."""

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, *, seed=None):
        source = _Slices(data, column_names)
        super().__init__(source, column_names=source.names, num_samples=num_samples,
                         num_parallel_workers=num_parallel_workers, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id, seed=seed)


class _Padded:
    """PaddedDataset's source: row i is padded_samples[i]'s values."""

    def __init__(self, samples):
        self.names = list(samples[0].keys())
        self.samples = samples

    def __getitem__(self, i):
        sample = self.samples[i]
        if list(sample.keys()) != self.names:
            raise ValueError("padded_samples[%d] has the keys %s, the first sample %s" % (i, list(sample.keys()),
                                                                                       self.names))
        return tuple(sample[k] for k in self.names)

    def __len__(self):
        return len(self.samples)


class PaddedDataset(GeneratorDataset):
    """mindspore.dataset.PaddedDataset: the dicts of `padded_samples` as
    rows, in order (columns: the first dict's keys); made to be concatenated
    to another dataset before sharding."""

    def __init__(self, padded_samples):
        if not isinstance(padded_samples, list):
            raise TypeError("padded_samples must be a list of dict, got %r" % (type(padded_samples),))
        if not padded_samples:
            raise ValueError("padded_samples cannot be empty.")
        if not all(isinstance(s, dict) for s in padded_samples):
            raise TypeError("padded_samples must be a list of dict")
        source = _Padded(padded_samples)
        super().__init__(source, column_names=source.names, shuffle=False)
        self.padded_samples = padded_samples
