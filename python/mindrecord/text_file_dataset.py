"""MindSpore's TextFileDataset over the same pipeline as MindDataset: one row
per non-empty line of the files, column "text" (a string), read by the C++
source pipeline/nodes/text_source.h (a "source" leaf of kind "textfile"), so
map, batch, the combinators, save(), state_dict() resume and
mindrecord.torch work as on MindDataset.

Thread safety: as MindDataset.
"""
import glob
import os

from mindrecord import _core
from mindrecord.raw_datasets import _RawDataset
from mindrecord.samplers import Shuffle, _shuffle_mode

__all__ = ["TextFileDataset"]


def find_files(patterns):
    """MindSpore's file list: each pattern's glob matches (files only),
    sorted; a pattern matching nothing is an error naming it."""
    if isinstance(patterns, str):
        patterns = [patterns]
    if not isinstance(patterns, (list, tuple)) or not patterns or not all(isinstance(p, str) for p in patterns):
        raise TypeError("dataset_files must be a file path, a glob pattern or a list of them, got %r" % (patterns,))
    files, unmatched = [], []
    for pattern in patterns:
        matches = [m for m in glob.glob(pattern, recursive=True) if os.path.isfile(m)]
        if matches:
            files.extend(matches)
        else:
            unmatched.append(pattern)
    if unmatched:
        raise ValueError("The following patterns did not match any files: %s" % unmatched)
    return sorted(files)


def file_shuffle_mode(name, shuffle):
    """The plan's shuffle mode of a file dataset (MindSpore's text / CSV
    loaders): True or Shuffle.GLOBAL the rows, Shuffle.FILES whole files,
    False neither."""
    if shuffle is not None and not isinstance(shuffle, (bool, Shuffle)):
        raise TypeError("shuffle must be a bool or a Shuffle member, got %r" % (shuffle,))
    mode = _shuffle_mode(shuffle, Shuffle.GLOBAL)
    if mode not in ("global", "files", "off"):
        raise ValueError("%s: shuffle must be True, False, Shuffle.GLOBAL or Shuffle.FILES, got %r" % (name, shuffle))
    return mode


class TextFileDataset(_RawDataset):
    """mindspore.dataset.TextFileDataset: the non-empty lines of
    `dataset_files` (a path or glob pattern, or a list of them; the files
    sorted by name) as rows of one string column "text", split at '\\n'
    (other bytes, '\\r' included, kept). `shuffle`: Shuffle.GLOBAL (default,
    or True) shuffles the lines, Shuffle.FILES the order of the files, False
    neither. num_samples, num_shards / shard_id as MindDataset's; a line
    that is not UTF-8 is an error naming the file and byte offset."""

    def __init__(self, dataset_files, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None, *, seed=None):
        if cache is not None:
            raise NotImplementedError("TextFileDataset(cache=...) is not supported by mindrecord; only None")
        absolute = [os.path.abspath(f) for f in find_files(dataset_files)]
        self._init_text("TextFileDataset", absolute, num_samples, num_parallel_workers, shuffle, num_shards, shard_id,
                        seed)

    def _init_text(self, loader, files, num_samples, num_parallel_workers, shuffle, num_shards, shard_id, seed,
                   empty_lines=False):
        """The leaf over `files` read in this order; `loader` names the dataset in errors; `empty_lines`:
        empty lines are rows too."""
        mode = file_shuffle_mode(loader, shuffle)
        rows = sum(_core.text_file_lines(files, empty_lines))
        args = {"files": files, "empty_lines": True} if empty_lines else {"files": files}
        leaf = {"node": "source", "kind": "textfile", "columns": ["text"], "rows": rows, "name": loader,
                "args": args}
        self._init_leaf(loader, leaf, num_samples, num_parallel_workers, shuffle, None, num_shards, shard_id, seed,
                        mode=mode)
