"""MindSpore's TFRecordDataset over the same pipeline as MindDataset: one row
per tf.train.Example record of the files, read by the C++ source
pipeline/nodes/tfrecord_source.h (a "source" leaf of kind "tfrecord"), so
map, batch, the combinators, save(), state_dict() resume and
mindrecord.torch work as on MindDataset.

Thread safety: as MindDataset.
"""
import os

from mindrecord import _core
from mindrecord.raw_datasets import _RawDataset
from mindrecord.samplers import Shuffle
from mindrecord.schema import as_schema
from mindrecord.text_file_dataset import file_shuffle_mode, find_files

__all__ = ["TFRecordDataset"]

# Column types the source reads (MindSpore's TFRecordDataset also takes
# uint16, uint32 and uint64 int64_list columns; this package has no such tensor).
_TYPES = ("uint8", "int8", "int16", "int32", "int64", "float32", "string")


def _columns(files, schema, columns_list, compression):
    """(names, types, shapes, num_rows) of the dataset's columns."""
    if columns_list is not None:
        if isinstance(columns_list, str) or not isinstance(columns_list, (list, tuple)) or \
                not all(isinstance(c, str) for c in columns_list) or not columns_list:
            raise TypeError("columns_list must be a non-empty list of str, got %r" % (columns_list,))
        if len(set(columns_list)) != len(columns_list):
            raise ValueError("columns_list names a column twice: %r" % (columns_list,))
    if schema is None:
        found = dict(_core.tfrecord_columns(files[0], compression))
        names = list(columns_list) if columns_list is not None else sorted(found)
        missing = [c for c in names if c not in found]
        if missing:
            raise ValueError("Invalid columns_list, tfrecord file %s failed to find column name(s): %s"
                             % (files[0], missing))
        return names, [found[c] for c in names], [None] * len(names), 0
    schema = as_schema(schema)
    by_name = {c["name"]: c for c in schema.columns}
    if columns_list is not None:
        missing = [c for c in columns_list if c not in by_name]
        if missing:
            raise ValueError("Invalid columns_list, the schema has no column(s) %s" % missing)
        cols = [by_name[c] for c in columns_list]
    else:
        cols = schema.columns
    for c in cols:
        if c["type"] not in _TYPES:
            raise NotImplementedError("TFRecordDataset: column %r of type %s is not supported by mindrecord; the "
                                      "types read are %s" % (c["name"], c["type"], ", ".join(_TYPES)))
    return [c["name"] for c in cols], [c["type"] for c in cols], [schema.column_shape(c) for c in cols], \
        schema.num_rows


class TFRecordDataset(_RawDataset):
    """mindspore.dataset.TFRecordDataset: the tf.train.Example records of
    `dataset_files` (a path or glob pattern, or a list of them; the files
    sorted by name) as rows.

    `schema` (a schema file's path or a mindrecord.Schema) names the columns
    with their types and shapes; without one, the columns are the features of
    the first record (sorted by name): bytes_list -> uint8, float_list ->
    float32, int64_list -> int64, each a 1-D array. `columns_list` picks
    columns (and their order). A record's bytes_list read as uint8 / int8 is
    its values' bytes, each padded with zeros to the longest; as string, its
    one value. `num_samples` (else the schema's numRows when > 0) caps the
    rows; `shuffle`: Shuffle.GLOBAL (default, or True) shuffles the records,
    Shuffle.FILES the order of the files, False neither.

    Sharding: `num_shards` / `shard_id` give shard k the files k, k +
    num_shards, ... (MindSpore's default: shards may differ in rows; there
    must be at least num_shards files); `shard_equal_rows=True` splits the
    records evenly (as MindDataset's shards). Every record's framing
    checksums are checked (MindSpore reads past them): a damaged length
    fails the dataset naming the file and offset, damaged data is that row's
    error. `cache` is not supported (an error naming it).

    `compression_type` "GZIP" or "ZLIB" reads files compressed whole (as
    TensorFlow's TFRecordWriter writes them with those options): each file
    is inflated once when the dataset is made (its gzip / zlib checksums
    checked; a damaged or truncated stream fails naming the file and
    compressed offset), keeping at most 64 MiB of access points in all.
    Records are read from inflated segments kept in a 64 MiB cache: in file
    order (shuffle=False or Shuffle.FILES) each byte is inflated once more,
    and so in a global shuffle while the files' segments fit the cache;
    past it a shuffled row costs inflating its segment (64 KiB or more)."""

    def __init__(self, dataset_files, schema=None, columns_list=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, shard_equal_rows=False, cache=None,
                 compression_type=None, *, seed=None):
        if cache is not None:
            raise NotImplementedError("TFRecordDataset(cache=...) is not supported by mindrecord; only None")
        if compression_type not in (None, "", "GZIP", "ZLIB"):
            raise ValueError("compression_type must be '', 'GZIP' or 'ZLIB', got %r" % (compression_type,))
        compression = (compression_type or "").lower()
        if not isinstance(shard_equal_rows, bool):
            raise TypeError("shard_equal_rows must be a bool, got %r" % (shard_equal_rows,))
        files = [os.path.abspath(f) for f in find_files(dataset_files)]
        names, types, shapes, schema_rows = _columns(files, schema, columns_list, compression)
        if (num_samples is None or num_samples == 0) and schema_rows > 0:
            num_samples = schema_rows
        mode = file_shuffle_mode("TFRecordDataset", shuffle)
        if num_shards is not None and not shard_equal_rows:
            if not isinstance(num_shards, int) or isinstance(num_shards, bool) or num_shards < 1:
                raise ValueError("num_shards must be an int >= 1, got %r" % (num_shards,))
            if not isinstance(shard_id, int) or isinstance(shard_id, bool) or not 0 <= shard_id < num_shards:
                raise ValueError("shard_id must be an int in [0, %d), got %r" % (num_shards, shard_id))
            if len(files) < num_shards:
                raise ValueError("TFRecordDataset: %d file(s) for %d shards; each shard reads whole files (give "
                                 "shard_equal_rows=True to split the records instead)" % (len(files), num_shards))
            files = files[shard_id::num_shards]
            num_shards = shard_id = None
        rows = sum(_core.tfrecord_records(files, compression))
        args = {"files": files, "types": types, "shapes": shapes}
        if compression:
            args["compression"] = compression
        leaf = {"node": "source", "kind": "tfrecord", "columns": names, "rows": rows, "name": "TFRecordDataset",
                "args": args}
        self._init_leaf("TFRecordDataset", leaf, num_samples, num_parallel_workers, shuffle, None, num_shards,
                        shard_id, seed, mode=mode)
