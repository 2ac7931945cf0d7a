"""MindSpore's GeneratorDataset over the same pipeline as MindDataset, for
random-accessible sources (an object with __getitem__ and __len__): its rows
come from source[i] through a "source" leaf of kind "python" (the C++ source
python/bind_pysource.cc), so map, batch, the combinators, samplers, sharding,
save(), state_dict() resume and mindrecord.torch work as on MindDataset.

source[i] gives a tuple (or list) of values, one per column, or one value for
one column: numpy arrays, Python numbers, bytes or str (anything numpy.asarray
takes). The pipeline's worker threads call it, one call at a time per thread
holding the GIL; with python_multiprocessing=True and more than one worker
(MindSpore's default) the calls run in worker processes (started with spawn:
the source must pickle), as a map's Python callables do (_mp_pool.py).

Not implemented (errors naming them): sources without __getitem__ (iterables
and generator functions), schema=.

Thread safety: as MindDataset.
"""
import numpy as np

from mindrecord import _core, _mp_pool
from mindrecord.dataset import _positive
from mindrecord.raw_datasets import _RawDataset
from mindrecord.samplers import SubsetSampler

__all__ = ["GeneratorDataset"]


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


class _Rows:
    """source[i] as a tuple of column values (cast to column_types), what
    the C++ source converts. Picklable when the source is."""

    def __init__(self, source, types, name):
        self.source, self.types = source, types
        self.__qualname__ = name

    def __call__(self, i):
        row = self.source[i]
        if isinstance(row, dict):
            raise TypeError("source[%d] is a dict; GeneratorDataset rows are tuples of column values" % i)
        values = tuple(row) if isinstance(row, (tuple, list)) else (row,)
        if self.types is not None:
            if len(values) != len(self.types):
                raise ValueError("source[%d] gave %d value(s) for %d column type(s)" % (i, len(values),
                                                                                        len(self.types)))
            values = tuple(np.asarray(v, dtype=t) for v, t in zip(values, self.types))
        return values


class GeneratorDataset(_RawDataset):
    """mindspore.dataset.GeneratorDataset for a random-accessible `source`
    (see the module). Shuffled unless shuffle=False (MindSpore's default for
    such sources); `sampler` is one of mindrecord's samplers or a list of
    row indices; num_shards / shard_id, num_samples as MindDataset's.
    `column_types`: numpy dtypes the columns are cast to."""

    def __init__(self, source, column_names=None, column_types=None, schema=None, num_samples=None,
                 num_parallel_workers=1, shuffle=None, sampler=None, num_shards=None, shard_id=None,
                 python_multiprocessing=True, max_rowsize=None, *, seed=None):
        if schema is not None:
            raise NotImplementedError("GeneratorDataset(schema=...) is not supported by mindrecord; give "
                                      "column_names (and column_types)")
        if column_names is None:
            raise ValueError("Neither columns_names nor schema are provided.")
        names = _names(column_names)
        types = _types(column_types, len(names))
        if not hasattr(source, "__getitem__"):
            if callable(source) or hasattr(source, "__iter__"):
                raise NotImplementedError("GeneratorDataset of an iterable or a generator function is not supported "
                                          "by mindrecord yet; give a source with __getitem__ and __len__ (row i "
                                          "as source[i])")
            raise TypeError("Input source is not callable, iterable or random accessible, got %r" % (source,))
        if not hasattr(source, "__len__"):
            raise TypeError("GeneratorDataset: a random-accessible source needs __len__ (the number of rows)")
        rows = len(source)
        if not isinstance(rows, int) or rows < 0:
            raise ValueError("GeneratorDataset: len(source) must be a count >= 0, got %r" % (rows,))
        if not isinstance(python_multiprocessing, bool):
            raise TypeError("python_multiprocessing must be a bool, got %r" % (python_multiprocessing,))
        workers = _mp_pool.workers_arg(num_parallel_workers)
        _positive("num_parallel_workers", workers)
        name = type(source).__qualname__
        fetch = _Rows(source, types, name)
        if python_multiprocessing and workers > 1:
            _mp_pool._check_picklable(fetch, "GeneratorDataset")
            pool = _mp_pool.ProcessPool([fetch], workers, _mp_pool.rowsize_arg(max_rowsize))
            proxy = _mp_pool.ProcessCallable(pool, 0, name)
            proxy._who = "GeneratorDataset source '%s'" % name
            ref = _core.register_callable(proxy)
            _mp_pool.note_ref(ref, pool)
        else:
            if max_rowsize is not None:
                _mp_pool.rowsize_arg(max_rowsize)  # checked; slots only exist with worker processes
            ref = _core.register_callable(fetch)
        if sampler is not None and not hasattr(sampler, "_spec_for"):
            try:
                sampler = SubsetSampler(list(sampler))
            except TypeError as e:
                raise TypeError("sampler must be one of mindrecord's samplers or a list of row indices, got %r"
                                % (sampler,)) from e
        self._source = source  # kept alive with the dataset (the registry holds the callable too)
        leaf = {"node": "source", "kind": "python", "columns": names, "rows": rows,
                "name": "GeneratorDataset source '%s'" % name, "_ref": ref}
        self._init_leaf("GeneratorDataset", leaf, num_samples, workers, shuffle, sampler, num_shards, shard_id,
                        seed)
