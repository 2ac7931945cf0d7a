"""MindSpore's CSVDataset over the same pipeline as MindDataset: one row per
CSV record, one scalar column per field (int32, float32 or string, by
column_defaults), read by the C++ source pipeline/nodes/csv_source.h (a
"source" leaf of kind "csv", MindSpore's CSV grammar), so map, batch, the
combinators, save(), state_dict() resume and mindrecord.torch work as on
MindDataset.

Thread safety: as MindDataset.
"""
import os

from mindrecord import _core
from mindrecord.exceptions import CorruptionError
from mindrecord.raw_datasets import _RawDataset
from mindrecord.samplers import Shuffle
from mindrecord.text_file_dataset import file_shuffle_mode, find_files

__all__ = ["CSVDataset"]


def _header(path, delim):
    """A file's column names: its first line (up to '\\n') split at the
    delimiter as MindSpore splits it (no quoting; a trailing empty name
    dropped; '\\r' at a name's end removed)."""
    with open(path, "rb") as f:
        line = f.readline()
    try:
        text = line.rstrip(b"\n").decode("utf-8")
    except UnicodeDecodeError as e:
        raise CorruptionError("%s: the header line is not UTF-8 text (byte %d)" % (path, e.start)) from None
    names = text.split(delim)
    if names and names[-1] == "":
        names.pop()
    return [n.rstrip("\r") for n in names]


def _types(column_defaults, n):
    if column_defaults is None:
        column_defaults = []
    if not isinstance(column_defaults, (list, tuple)):
        raise TypeError("column_defaults must be a list of int, float or str values, got %r" % (column_defaults,))
    types = []
    for v in column_defaults:
        if isinstance(v, int):
            types.append("int32")
        elif isinstance(v, float):
            types.append("float32")
        elif isinstance(v, str):
            types.append("string")
        else:
            raise TypeError("column_defaults must be a list of int, float or str values, got %r" % (v,))
    if len(types) > n:
        raise ValueError("Invalid parameter, the size of column_names should be equal to the size of "
                         "'column_defaults', but got size of 'column_defaults': %d, size of column_names: %d"
                         % (len(types), n))
    return types + ["string"] * (n - len(types))


class CSVDataset(_RawDataset):
    """mindspore.dataset.CSVDataset: the records of `dataset_files` (a path
    or glob pattern, or a list of them; the files sorted by name) as rows.
    `column_names`: None takes each file's first line as its header (the
    files must agree); `column_defaults`: one value per column whose type
    (int -> int32, float -> float32, str -> string) the field is read as
    (string where none is given). `shuffle`: Shuffle.GLOBAL (default, or
    True) shuffles the records, Shuffle.FILES the order of the files, False
    neither. num_samples, num_shards / shard_id as MindDataset's."""

    def __init__(self, dataset_files, field_delim=",", column_defaults=None, column_names=None, num_samples=None,
                 num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None, *,
                 seed=None):
        if cache is not None:
            raise NotImplementedError("CSVDataset(cache=...) is not supported by mindrecord; only None")
        files = [os.path.abspath(f) for f in find_files(dataset_files)]
        if not isinstance(field_delim, str) or len(field_delim) != 1 or field_delim in ('"', "\r", "\n"):
            raise ValueError("field_delim is invalid: one character other than a quote or a line end, got %r"
                             % (field_delim,))
        header = column_names is None
        if header:
            names = _header(files[0], field_delim)
            for f in files[1:]:
                if _header(f, field_delim) != names:
                    raise ValueError("Invalid parameter, column_names in all CSV files should be the same: %s has %s, "
                                     "%s has %s" % (files[0], names, f, _header(f, field_delim)))
        else:
            if isinstance(column_names, str) or not isinstance(column_names, (list, tuple)) or \
                    not all(isinstance(c, str) for c in column_names):
                raise TypeError("column_names must be a list of str, got %r" % (column_names,))
            names = list(column_names)
        if not names or not all(names):
            raise ValueError("CSVDataset: empty column names %r (%s)" % (names, "the first line of " + files[0]
                                                                          if header else "column_names"))
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError("Invalid parameter, duplicate column %s" % dup)
        self._init_csv("CSVDataset", files, field_delim, names, header, _types(column_defaults, len(names)),
                       num_samples, num_parallel_workers, shuffle, num_shards, shard_id, seed)

    def _init_csv(self, loader, files, field_delim, names, header, types, num_samples, num_parallel_workers, shuffle,
                  num_shards, shard_id, seed):
        """The leaf over `files` read in this order; `loader` names the dataset in errors."""
        mode = file_shuffle_mode(loader, shuffle)
        rows = sum(_core.csv_records(files, field_delim, header))
        leaf = {"node": "source", "kind": "csv", "columns": names, "rows": rows, "name": loader,
                "args": {"files": files, "delimiter": field_delim, "types": types, "header": header}}
        self._init_leaf(loader, leaf, num_samples, num_parallel_workers, shuffle, None, num_shards, shard_id,
                        seed, mode=mode)
