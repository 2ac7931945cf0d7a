"""MindSpore's Dataset.save on MindDataset (and the raw-format loaders): the
rows a dataset hands out, written as a MindRecord dataset by the C++ pipeline
and writer (pipeline/save.h), with no Python object per row.

Thread safety: as MindDataset (save runs its own pipeline).
"""
import json
import os
from typing import TYPE_CHECKING

from mindrecord import _core
from mindrecord import _mp_pool
from mindrecord import config
from mindrecord.exceptions import AlreadyExistsError

if TYPE_CHECKING:
    from mindrecord.dataset import MindDataset

# Rows of an unbatched dataset cross from the pipeline to the writer this
# many at a time (the batching is internal: each row is still one record);
# few enough that rows of 100 MB stay far below the plan's max_batch_bytes.
_ROWS_PER_HANDOFF = 16


def save(self: "MindDataset", file_name: str, num_files: int = 1, file_type: str = "mindrecord") -> None:
    """Writes the rows of one epoch of this dataset, in the order an
    iteration hands them out, to `file_name` as a MindRecord dataset of
    `num_files` shard files (more than one: file_name0, file_name1, ...,
    as MindSpore names them). The schema comes from the first row, as
    MindSpore's: int8/int16/int32/bool -> int32, int64 -> int64,
    float32/float64 as they are, uint8 arrays and bytes -> bytes (shape
    dropped), a uint8 scalar -> int32, strings -> string; an array column's
    field has the shape [-1, ...rest of the first row's shape] (the first
    dimension may vary from row to row); scalar columns are indexed.
    Punctuation in column names becomes '_'. A batched dataset saves each
    batch as one row. The files appear only once every row is written
    (an error or an interruption leaves nothing at file_name); existing
    files are refused. The dataset's resume state is not used: the save
    starts at epoch 0, as MindSpore's builds a new pipeline.

    With a key or a hash mode set (mindrecord.set_enc_key, set_hash_mode),
    the shard and its .db are hashed and encrypted as FileWriter.commit
    does, before they take their names, so the rows never lie unencrypted
    under them; with a key, num_files must be 1, as MindSpore requires
    (RuntimeError). (MindSpore's own save encrypts without hashing.)"""
    if not isinstance(file_name, str):
        raise TypeError("Argument file_name with value %r is not of type [<class 'str'>], but got %s."
                        % (file_name, type(file_name)))
    if not isinstance(num_files, int) or isinstance(num_files, bool):
        raise TypeError("Argument num_files with value %r is not of type [<class 'int'>], but got %s."
                        % (num_files, type(num_files)))
    if not isinstance(file_type, str):
        raise TypeError("Argument file_type with value %r is not of type [<class 'str'>], but got %s."
                        % (file_type, type(file_type)))
    if not 1 <= num_files <= 1000:
        raise ValueError("Input num_files is not within the required interval of [1, 1000].")
    if file_type != "mindrecord":
        raise ValueError("%s dataset format is not supported." % file_type)
    if not file_name:
        raise ValueError("file_name must not be empty")
    if config._get_enc_key() is not None and num_files > 1:
        raise RuntimeError("When encode mode is enabled, the automatic sharding function is unavailable.")
    if os.path.isdir(file_name):
        raise ValueError("file_name %s is a directory; give the path of the file to write" % file_name)
    parent = os.path.dirname(os.path.abspath(file_name))
    if not os.path.isdir(parent):
        raise FileNotFoundError("the folder of file_name %s does not exist" % file_name)
    names = [file_name] if num_files == 1 else [file_name + str(i) for i in range(num_files)]
    existing = [n for name in names for n in (name, name + ".db") if os.path.lexists(n)]
    if existing:
        raise AlreadyExistsError("Invalid file, mindrecord files already exist: %s. save() does not replace files; "
                                 "remove them first" % ", ".join(existing))
    if self._repeat_after == 0:
        raise ValueError("save() of an endlessly repeated dataset would never end; give repeat() a count")
    if self._callbacks:
        raise NotImplementedError("save() of a dataset whose map() has callbacks is not supported by mindrecord "
                                  "(they run as an iteration hands rows out); map without callbacks to save")
    plan = self._full_plan(self._repeat_after)
    if not self._batched:
        handoff = {"batch_size": _ROWS_PER_HANDOFF, "drop_remainder": False}
        if "tree" in plan:
            plan["tree"] = dict(handoff, node="batch", input=plan["tree"])
        else:
            plan["batch"] = handoff
    pools = _mp_pool.acquire_for(plan)
    try:
        _core.save_plan(json.dumps(plan), file_name, num_files, self._batched, protect=config._protects())
    finally:
        _mp_pool.release(pools)
