"""MindSpore's dataset combinators on MindDataset, as nodes of the C++
execution tree (the plan's "tree", pipeline/README.md "The execution tree"):
filter, project, rename, take, skip, concat (and +), zip, multi-column map,
batch with per_batch_map / pad_info, and mindrecord.mix.

A MindDataset starts flat (one MindRecord source, per-column ops, one batch;
the plan MindSpore-style single-column maps and batch() keep). The first
operation the flat form cannot say turns the plan into its tree (a leaf,
an "ops" node, a batch node) with the new node on top; every later one adds
a node. Rows keep their positions through the tree, so the worker count
never changes the output and state_dict() resumes exactly.

Thread safety: as MindDataset (operations return new datasets).
"""
import copy
import json
from typing import TYPE_CHECKING

import numpy as np

from mindrecord import _core
from mindrecord.vision import to_specs

if TYPE_CHECKING:
    from mindrecord.dataset import MindDataset

_FLAT_KEYS = ("source", "source_list", "columns", "sampler", "ops", "batch", "padded")
_INT32_MAX = 2 ** 31 - 1


def is_tree(ds) -> bool:
    return "tree" in ds._plan


def tree_of(ds, seed=None):
    """The dataset's execution tree (a flat plan as the tree it means). Its
    random nodes carry `seed` when given (a dataset combined into another
    whose seed differs)."""
    p = ds._plan
    if "tree" in p:
        tree = copy.deepcopy(p["tree"])
    else:
        tree = {"node": "mindrecord", "source": p["source"], "columns": p["columns"], "sampler": p["sampler"]}
        if p.get("source_list"):
            tree["source_list"] = True
        if "padded" in p:
            tree["padded"] = p["padded"]
        if p["ops"]:
            tree = {"node": "ops", "input": tree, "ops": copy.deepcopy(p["ops"])}
        if ds._batched:
            tree = dict(copy.deepcopy(p["batch"]), node="batch", input=tree)
    if seed is not None:
        _seed_nodes(tree, seed)
    return tree


def _seed_nodes(node, seed):
    """Gives every random node of `node` without its own seed `seed`."""
    if node["node"] in ("mindrecord", "raw", "audio", "source", "map", "ops", "filter", "shuffle", "mix") and "seed" not in node:
        node["seed"] = seed
    for child in [node.get("input")] + list(node.get("inputs", [])):
        if child is not None:
            _seed_nodes(child, seed)


def with_tree(ds, tree, batched=None):
    """A copy of `ds` whose plan reads `tree` (the flat keys go)."""
    out = ds._copy()
    for k in _FLAT_KEYS:
        out._plan.pop(k, None)
    out._plan["tree"] = tree
    if batched is not None:
        out._batched = batched
    out._check_plan()
    return out


def add_node(ds, node_type, **params):
    """`ds` with a node of `node_type` on top."""
    node = dict(params, node=node_type, input=tree_of(ds))
    return with_tree(ds, node)


def count_arg(name, count, allow_all):
    """take's count: -1 or [1, INT32_MAX]; skip's: [0, INT32_MAX] (MindSpore's checks)."""
    ok = isinstance(count, int) and not isinstance(count, bool) and count <= _INT32_MAX and (
        (allow_all and (count == -1 or count >= 1)) or (not allow_all and count >= 0))
    if not ok:
        want = "-1 or within (0, %d]" % _INT32_MAX if allow_all else "within [0, %d]" % _INT32_MAX
        raise ValueError("%s should be %s, got %r" % (name, want, count))
    return count


def column_list(name, value, required=True):
    if value is None and not required:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(c, str) and c for c in value):
        raise ValueError("%s must be a column name or a non-empty list of column names, got %r" % (name, value))
    if len(set(value)) != len(value):
        raise ValueError("%s names a column twice: %r" % (name, value))
    return list(value)


def no_repeat_after_batch(ds, what):
    if ds._repeat_after != 1:
        raise NotImplementedError("%s after repeat() after batch() is not supported by mindrecord; call %s before "
                                  "the repeat()" % (what, what))


def require_unbatched(ds, what):
    if ds._batched:
        raise NotImplementedError("%s of a batched dataset is not supported by mindrecord; batch after %s"
                                  % (what, what))
    no_repeat_after_batch(ds, what)


# ---- the combinators (MindDataset's methods of the same name) ---------------


def filter(self: "MindDataset", predicate, input_columns=None, num_parallel_workers=None) -> "MindDataset":
    """Keeps the rows for which `predicate` (a Python callable taking the
    input columns as positional arguments, all columns when input_columns is
    None) returns True, as MindSpore's Dataset.filter. Rows keep their order;
    batches after it stay full."""
    if not callable(predicate):
        raise TypeError("predicate must be callable, got %r" % (predicate,))
    require_unbatched(self, "filter()")
    cols = column_list("input_columns", input_columns, required=False)
    spec = callable_counts(to_specs([predicate]), len(cols) or len(self.get_col_names()), 1)[0]
    out = add_node(self, "filter", predicate=spec, input_columns=cols)
    _workers(out, num_parallel_workers)
    return out


def project(self: "MindDataset", columns) -> "MindDataset":
    """Only `columns`, in that order (MindSpore's Dataset.project)."""
    out = add_node(self, "project", columns=column_list("columns", columns))
    return out


def rename(self: "MindDataset", input_columns, output_columns) -> "MindDataset":
    """Renames `input_columns` to `output_columns` (MindSpore's Dataset.rename)."""
    src = column_list("input_columns", input_columns)
    dst = column_list("output_columns", output_columns)
    if len(src) != len(dst):
        raise ValueError("input_columns and output_columns must have the same length, got %r and %r" % (src, dst))
    return add_node(self, "rename", input_columns=src, output_columns=dst)


def take(self: "MindDataset", count=-1) -> "MindDataset":
    """The first `count` rows (batches after batch()) of each epoch; -1: all
    (MindSpore's Dataset.take). After a filter, the first `count` rows that
    pass it."""
    count_arg("count", count, allow_all=True)
    no_repeat_after_batch(self, "take()")
    if count == -1:
        return self._copy()
    return add_node(self, "take", count=count)


def skip(self: "MindDataset", count) -> "MindDataset":
    """All but the first `count` rows (batches after batch()) of each epoch
    (MindSpore's Dataset.skip)."""
    count_arg("count", count, allow_all=False)
    no_repeat_after_batch(self, "skip()")
    return add_node(self, "skip", count=count)


def _combined(first, datasets, node):
    """The dataset of `node` over `datasets` (first's settings, the largest
    worker count, every dataset's callbacks)."""
    out = with_tree(first, node)
    out._plan["num_workers"] = max(d._plan["num_workers"] for d in datasets)
    out._plan["queue_depth"] = max(d._plan["queue_depth"] for d in datasets)
    out._callbacks = [cb for d in datasets for cb in d._callbacks]
    out._keep = [k for d in datasets for k in getattr(d, "_keep", [])]
    out._check_plan()
    return out


def _child_trees(datasets, what, first):
    from mindrecord.dataset import MindDataset
    trees = []
    for d in datasets:
        if not isinstance(d, MindDataset):
            raise TypeError("%s takes mindrecord datasets, got %r" % (what, d))
        require_unbatched(d, what)
        # A dataset whose seed was given keeps it (its rows and random ops as
        # when iterated alone); others draw from the combined dataset's seed.
        own = d._seed_given and d._plan["seed"] != first._plan["seed"]
        trees.append(tree_of(d, d._plan["seed"] if own else None))
    return trees


def concat(self: "MindDataset", datasets) -> "MindDataset":
    """This dataset's rows, then each of `datasets`' (MindSpore's
    Dataset.concat; `ds1 + ds2`). The columns must agree."""
    if not isinstance(datasets, (list, tuple)):
        datasets = [datasets]
    everything = [self] + list(datasets)
    trees = _child_trees(everything, "concat()", self)
    return _combined(self, everything, {"node": "concat", "inputs": trees})


def zip_datasets(datasets) -> "MindDataset":
    """Rows of `datasets` side by side, as long as the shortest (MindSpore's
    mindspore.dataset.zip); column names must differ (rename first)."""
    if not isinstance(datasets, (list, tuple)) or not datasets:
        raise TypeError("zip takes a tuple of datasets, got %r" % (datasets,))
    trees = _child_trees(datasets, "zip()", datasets[0])
    return _combined(datasets[0], list(datasets), {"node": "zip", "inputs": trees})


def zip_method(self: "MindDataset", datasets) -> "MindDataset":
    """Dataset.zip: this dataset zipped with `datasets` (one or a tuple)."""
    if not isinstance(datasets, (list, tuple)):
        datasets = [datasets]
    return zip_datasets([self] + list(datasets))


_POLICIES = ("stop", "restart", "drop")


def mix(datasets, weights, seed=None, policy="stop", num_samples=None) -> "MindDataset":
    """Rows drawn from `datasets` with probability proportional to `weights`
    (beyond MindSpore: tf.data's sample_from_datasets). Each position draws a
    dataset from a generator seeded by (seed, epoch) and takes its next row,
    so the sequence is the same for any worker count and resumes exactly.
    `policy` when a drawn dataset has run out: "stop" (the epoch ends),
    "restart" (a new pass of it, reshuffled), "drop" (it is left out and the
    others' weights renormalised). `num_samples`: rows per epoch (default:
    until one runs out for "stop", the datasets' rows together otherwise).
    The iterator's stats()["mix_rows"] counts the rows from each dataset.
    `seed`: None uses the first dataset's."""
    if not isinstance(datasets, (list, tuple)) or not datasets:
        raise TypeError("mix takes a non-empty list of datasets, got %r" % (datasets,))
    if not isinstance(weights, (list, tuple)) or len(weights) != len(datasets) or not all(
            isinstance(w, (int, float)) and not isinstance(w, bool) and w >= 0 for w in weights) or not sum(weights):
        raise ValueError("weights must be one number >= 0 per dataset, not all 0, got %r" % (weights,))
    if policy not in _POLICIES:
        raise ValueError("policy must be one of %s, got %r" % (", ".join(repr(p) for p in _POLICIES), policy))
    if num_samples is not None and (not isinstance(num_samples, int) or isinstance(num_samples, bool) or
                                    num_samples < 1):
        raise ValueError("num_samples must be an int >= 1 or None, got %r" % (num_samples,))
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise ValueError("seed must be an int >= 0 or None, got %r" % (seed,))
    trees = _child_trees(datasets, "mix()", datasets[0])
    node = {"node": "mix", "inputs": trees, "weights": [float(w) for w in weights], "policy": policy,
            "num_samples": num_samples or 0}
    if seed is not None:
        node["seed"] = seed
    return _combined(datasets[0], list(datasets), node)


def _workers(ds, num_parallel_workers):
    if num_parallel_workers:
        if not isinstance(num_parallel_workers, int) or isinstance(num_parallel_workers, bool) or \
                num_parallel_workers < 1:
            raise ValueError("num_parallel_workers must be an int >= 1, got %r" % (num_parallel_workers,))
        ds._plan["num_workers"] = max(ds._plan["num_workers"], num_parallel_workers)


# ---- map and batch over the tree -------------------------------------------------


def callable_counts(specs, inputs, outputs):
    """Says how many columns the Python callables of an op list take and
    give where it is not one: the first op takes `inputs`, the last gives
    `outputs`, the ones between take and give what they get and return (-1).
    Callables of a one-column map stay one column in and out."""
    for k, spec in enumerate(specs):
        if spec.get("op") != "PyFunc":
            continue
        n_in = inputs if k == 0 else -1
        n_out = outputs if k == len(specs) - 1 else -1
        if (n_in, n_out) != (1, 1):
            spec["num_inputs"], spec["num_outputs"] = n_in, n_out
    return specs


def map_node(ds, specs, input_columns, output_columns):
    """`ds` with a map node: the ops take `input_columns` (all columns when
    empty) and give `output_columns` (the input names when empty); column
    order as MindSpore's map (see pipeline/nodes/row_steps.h)."""
    inputs = len(input_columns) or len(ds.get_col_names())
    callable_counts(specs, inputs, len(output_columns) or inputs)
    return add_node(ds, "map", operations=specs, input_columns=input_columns, output_columns=output_columns)


class BatchInfo:
    """MindSpore's BatchInfo, the last argument of a per_batch_map:
    get_epoch_num() (from 0) and get_batch_num() (the batch's number in its
    epoch, from 0)."""

    def __init__(self, epoch_num, batch_num):
        self._epoch, self._batch = epoch_num, batch_num

    def get_epoch_num(self) -> int:
        return self._epoch

    def get_batch_num(self) -> int:
        return self._batch

    def __repr__(self):
        return "BatchInfo(epoch_num=%d, batch_num=%d)" % (self._epoch, self._batch)


class _BatchMapAdapter:
    """What the C++ batch map calls: (epoch, batch, *columns) -> a tuple with
    one entry per output column, each a list of per-row values or one array
    of the batch (MindSpore's per_batch_map returns either)."""

    def __init__(self, fn, outputs):
        self.fn, self.outputs = fn, outputs
        self.__qualname__ = getattr(fn, "__qualname__", None) or type(fn).__qualname__

    def __call__(self, epoch, batch, *columns):
        out = self.fn(*columns, BatchInfo(epoch, batch))
        if not isinstance(out, tuple):
            if self.outputs != 1:
                raise TypeError("per_batch_map must return a tuple of %d columns, got %s" % (self.outputs,
                                                                                            type(out).__name__))
            out = (out,)
        if len(out) != self.outputs:
            raise ValueError("per_batch_map returned %d columns, output_columns names %d" % (len(out), self.outputs))
        result = []
        for col in out:
            if isinstance(col, np.ndarray):
                result.append(col)
            elif isinstance(col, (list, tuple)):
                result.append(list(col))
            else:
                raise TypeError("per_batch_map must return lists of per-row values or numpy arrays, got %s"
                                % type(col).__name__)
        return tuple(result)


# Positions per worker task when a callable gives the batch sizes (the
# consumer cuts the batches).
DYNAMIC_BATCH_TASK = 64


class _BatchSizeAdapter:
    """What the C++ batch size map calls: (epoch, batch) -> (size,), from
    MindSpore's batch_size callable taking a BatchInfo."""

    def __init__(self, fn):
        self.fn = fn
        self.__qualname__ = getattr(fn, "__qualname__", None) or type(fn).__qualname__

    def __call__(self, epoch, batch):
        n = self.fn(BatchInfo(epoch, batch))
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
            raise TypeError("batch_size callable must return an int, got %r" % (n,))
        return (np.array(int(n), dtype=np.int64),)


def batch_node(ds, batch_size, drop_remainder, per_batch_map, input_columns, output_columns, pad_info, ragged,
               size_fn=None):
    """`ds` with a batch node (per_batch_map, pad_info and a callable
    batch_size as MindSpore's)."""
    node = {"node": "batch", "input": tree_of(ds), "batch_size": batch_size, "drop_remainder": drop_remainder,
            "ragged": ragged}
    if size_fn is not None:
        adapter = _BatchSizeAdapter(size_fn)
        node["batch_size_map"] = {"map": "PyBatchMap", "name": adapter.__qualname__,
                                  "_ref": _core.register_callable(adapter)}
    if per_batch_map is not None:
        if not callable(per_batch_map):
            raise TypeError("per_batch_map must be callable, got %r" % (per_batch_map,))
        cols = column_list("input_columns", input_columns, required=False)
        outs = column_list("output_columns", output_columns, required=False)
        if not cols:
            cols = ds.get_col_names()
        outputs = len(outs or cols)
        adapter = _BatchMapAdapter(per_batch_map, outputs)
        node["per_batch_map"] = {"map": "PyBatchMap", "name": adapter.__qualname__,
                                 "_ref": _core.register_callable(adapter)}
        node["input_columns"] = cols
        if outs:
            node["output_columns"] = outs
    elif input_columns is not None or output_columns is not None:
        raise ValueError("input_columns and output_columns of batch() go with a per_batch_map")
    if pad_info is not None:
        node["ragged"] = dict(ragged, **pad_spec(ds, pad_info))
    return with_tree(ds, node, batched=True)


def _int_list(name, value, count=None):
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise TypeError("%s must be a list of int, got %r" % (name, value))
    if not value:
        raise ValueError("%s cannot be empty" % name)
    if count is not None and len(value) != count:
        raise ValueError("%s must contain one element more than bucket_boundaries (%d), got %d"
                         % (name, count, len(value)))
    if not all(1 <= v <= _INT32_MAX for v in value):
        raise ValueError("%s must only contain positive numbers (at most %d), got %r" % (name, _INT32_MAX, value))
    return value


def bucket_batch_by_length(self: "MindDataset", column_names, bucket_boundaries, bucket_batch_sizes,
                           element_length_function=None, pad_info=None, pad_to_bucket_boundary=False,
                           drop_remainder=False) -> "MindDataset":
    """MindSpore's Dataset.bucket_batch_by_length: each row goes to the bucket
    its length falls in ([0, b0), [b0, b1), ..., [b(n-1), inf) for
    bucket_boundaries b), a bucket is batched (padded with pad_info) once it
    holds its bucket_batch_sizes entry of rows, and what the buckets hold at
    the end of an epoch is batched in bucket order (dropped with
    drop_remainder). The length is element_length_function(*column_names)
    (called per row on the iterating thread, as MindSpore's op calls it in
    its own), else the first dimension of the one column named. pad_to_bucket_boundary pads pad_info's None dims to the
    bucket's upper boundary - 1 (rows in the last bucket are then an error).
    Columns that differ in shape and are not padded come out as lists, as
    batch()'s. Rows keep their order within a bucket; the batches are the
    same for any num_parallel_workers, and state_dict() resumes in the middle
    of an epoch (the state lists the rows the buckets hold)."""
    if self._batched:
        raise ValueError("batch() was already applied")
    no_repeat_after_batch(self, "bucket_batch_by_length()")
    if not isinstance(column_names, list) or not all(isinstance(c, str) for c in column_names):
        raise TypeError("column_names must be a list of str, got %r" % (column_names,))
    column_names = column_list("column_names", column_names)
    bounds = _int_list("bucket_boundaries", bucket_boundaries)
    if any(lo >= hi for lo, hi in zip(bounds, bounds[1:])):
        raise ValueError("bucket_boundaries must be strictly increasing, got %r" % (bounds,))
    sizes = _int_list("bucket_batch_sizes", bucket_batch_sizes, len(bounds) + 1)
    for name, v in (("pad_to_bucket_boundary", pad_to_bucket_boundary), ("drop_remainder", drop_remainder)):
        if not isinstance(v, bool):
            raise TypeError("%s must be a bool, got %r" % (name, v))
    cols = self.get_col_names()
    missing = [c for c in column_names if c not in cols]
    if missing:
        raise ValueError("column_names %r: no such column (the dataset has %r)" % (missing, cols))
    ragged = pad_spec(self, pad_info) if pad_info is not None else {}
    bucket = {"boundaries": bounds, "batch_sizes": sizes, "pad_to_boundary": pad_to_bucket_boundary}
    if element_length_function is None:
        if len(column_names) != 1:
            raise ValueError("without an element_length_function, column_names must name one column, got %r"
                             % (column_names,))
        bucket.update(column=column_names[0], length="dim0")
    else:
        if not callable(element_length_function):
            raise TypeError("element_length_function must be callable, got %r" % (element_length_function,))
        name = getattr(element_length_function, "__qualname__", None) or type(element_length_function).__qualname__
        bucket.update(input_columns=column_names, length_map={
            "map": "PyLengthMap", "name": name, "_ref": _core.register_callable(element_length_function)})
    node = {"node": "batch", "input": tree_of(self), "drop_remainder": drop_remainder, "ragged": ragged,
            "bucket": bucket}
    return with_tree(self, node, batched=True)


def pad_spec(ds, pad_info):
    """MindSpore's pad_info {column: (shape or None, value or None)} as the
    plan's ragged specs; {} pads every column to the batch's largest shape."""
    if not isinstance(pad_info, dict):
        raise TypeError("pad_info must be a dict of column -> (shape, pad_value), got %r" % (pad_info,))
    if not pad_info:
        return {c: {"pad": 0.0} for c in ds.get_col_names()}
    out = {}
    for col, spec in pad_info.items():
        if not isinstance(col, str) or not isinstance(spec, (list, tuple)) or len(spec) != 2:
            raise ValueError("pad_info entries must be column: (shape, pad_value), got %r: %r" % (col, spec))
        shape, value = spec
        value = 0 if value is None else value
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise NotImplementedError("pad_info %r: pad_value %r: only numbers are supported by mindrecord"
                                      % (col, value))
        entry = {"pad": float(value)}
        if shape is not None:
            if not isinstance(shape, (list, tuple)) or not shape or not all(
                    d is None or (isinstance(d, int) and not isinstance(d, bool) and d >= 1) for d in shape):
                raise ValueError("pad_info %r: shape must be a list of dims >= 1 or None, got %r" % (col, shape))
            entry["shape"] = [-1 if d is None else d for d in shape]
        out[col] = entry
    return out


def plan_info(ds):
    """What the C++ tree gives (columns, rows, drops_rows, ...)."""
    return ds._plan_query(_core.plan_info)
