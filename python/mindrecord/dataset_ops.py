"""MindSpore's Dataset operations on MindDataset that change which rows an
epoch holds: repeat, shuffle, split, use_sampler, reset; apply; and the
attribute getters output_shapes / output_types / get_batch_size /
get_repeat_count / num_classes.

MindDataset takes these functions as its methods. They rewrite the plan's sampler with the C++ sampler wrappers
(pipeline/sampler_wrappers.h) or, for repeat after batch, group the
pipeline's epochs (iterators.DictIterator).

Thread safety: as MindDataset (operations return new datasets).
"""
import json
from typing import TYPE_CHECKING, Any
import warnings

import numpy as np

from mindrecord import _core
from mindrecord import dataset_tree as _tree
from mindrecord.exceptions import InvalidArgumentError

if TYPE_CHECKING:
    from mindrecord.dataset import MindDataset

_INT32_MAX = 2 ** 31 - 1

# Each function is the body of the MindDataset method of the same name.


def repeat(self: "MindDataset", count: int | None = None) -> "MindDataset":
    """The dataset `count` times over per epoch (None or -1: endless), as
    MindSpore's. Before batch(), the passes run back to back and batches
    span them; after batch(), each pass is batched on its own. Each pass
    is shuffled anew."""
    if count is None:
        count = -1
    if not isinstance(count, int) or isinstance(count, bool) or count == 0 or count < -1 or count > _INT32_MAX:
        raise ValueError("count must be -1 or an int in [1, %d], got %r" % (_INT32_MAX, count))
    out = self._copy()
    out._repeat_count = -1 if count == -1 or self._repeat_count == -1 else self._repeat_count * count
    if count == 1:
        return out
    if count == -1:
        out._repeat_after = 0
    elif self._batched or self._repeat_after != 1:
        out._repeat_after = 0 if self._repeat_after == 0 else self._repeat_after * count
    elif "tree" in out._plan:
        return _tree.add_node(out, "repeat", count=count)
    else:
        out._plan["sampler"] = {"type": "repeat", "count": count, "sampler": out._plan["sampler"]}
    out._check_plan()
    return out


def shuffle(self: "MindDataset", buffer_size: int) -> "MindDataset":
    """Rows through a shuffle buffer of `buffer_size` (MindSpore's
    Dataset.shuffle): a new order each epoch; a buffer as large as the
    dataset gives a uniform permutation. Before batch() only: shuffling
    batches raises NotImplementedError."""
    if not isinstance(buffer_size, int) or isinstance(buffer_size, bool) or not 2 <= buffer_size <= _INT32_MAX:
        raise ValueError("buffer_size must be an int in [2, %d], got %r" % (_INT32_MAX, buffer_size))
    if self._batched:
        raise NotImplementedError("shuffle() after batch() (shuffling whole batches) is not supported by "
                                  "mindrecord; call shuffle() before batch()")
    if self._repeat_after != 1:
        raise NotImplementedError("shuffle() after an endless repeat() is not supported by mindrecord; call "
                                  "shuffle() before repeat()")
    if "tree" in self._plan:
        return _tree.add_node(self, "shuffle", buffer_size=buffer_size)
    out = self._copy()
    out._plan["sampler"] = {"type": "buffer_shuffle", "buffer_size": buffer_size, "sampler": out._plan["sampler"]}
    out._check_plan()
    return out


def use_sampler(self: "MindDataset", new_sampler: Any) -> None:
    """Replaces this dataset's sampler (and its shuffle / num_shards
    settings) with `new_sampler`; on a dataset from split(), the sampler
    draws from the split's rows, as MindSpore's child samplers do."""
    if not hasattr(new_sampler, "_spec_for"):
        raise TypeError("new_sampler must be one of mindrecord's samplers, got %r" % (new_sampler,))
    if self._batched or self._repeat_count != 1 or "tree" in self._plan or self._plan["ops"]:
        raise NotImplementedError("use_sampler() after map(), batch(), repeat() or a combinator is not supported "
                                  "by mindrecord; call it on the MindDataset itself")
    if self._live is not None:
        self._live.close()
    if self._split_base is not None:
        spec = {"type": "chain", "sampler": new_sampler._spec_for(len(self._split_base["indices"])),
                "child": self._split_base}
    else:
        spec = new_sampler._spec_for(_data_rows(self))
    old = self._plan["sampler"]
    self._plan["sampler"] = spec
    try:
        self._check_plan()
    except BaseException:
        self._plan["sampler"] = old
        raise
    self._state = self._stopped = None


def split(self: "MindDataset", sizes: list[int] | list[float],
          randomize: bool = True) -> tuple["MindDataset", ...]:
    """Disjoint datasets of `sizes` rows (ints summing to the dataset's
    rows, or fractions summing to 1, rounded as MindSpore does), as
    MindSpore's MappableDataset.split: with `randomize` the rows are
    permuted once (from this dataset's seed) and each split takes its
    slice in that order, the same every epoch; otherwise consecutive
    rows. A source dataset alone splits: MindDataset, GeneratorDataset,
    NumpySlicesDataset and the raw loaders. The rows split are those a
    SequentialSampler (or shuffle=False with num_samples) reads, else all
    rows, this dataset's shuffle dropped (MindSpore warns likewise); a random
    order over fewer rows than the dataset holds raises NotImplementedError,
    a dataset split with num_shards InvalidArgumentError."""
    # A source's sampler: the flat plan's, or the tree's when the tree is a
    # source alone (GeneratorDataset, NumpySlicesDataset, the raw loaders).
    tree = self._plan.get("tree")
    source_alone = tree is None or (tree.get("node") in ("source", "raw", "audio") and "sampler" in tree)
    if self._batched or self._repeat_count != 1 or not source_alone or (tree is None and self._plan["ops"]) or \
            self._split_base is not None:
        raise NotImplementedError("split() after map(), batch(), repeat(), split() or a combinator is not "
                                  "supported by mindrecord; split the source dataset itself")
    sampler = self._plan["sampler"] if tree is None else tree["sampler"]
    if sampler.get("type") == "distributed":
        raise InvalidArgumentError("Dataset should not be sharded before split.")
    if tree is None:
        everything = _data_rows(self)
        sampled = _core.sampler_size(json.dumps(self._full_plan(1)))
    else:  # one compile of the source (a raw loader's is a folder listing or an annotation parse)
        info = _core.plan_info(json.dumps({"tree": tree, "seed": self._plan["seed"]}))
        everything, sampled = info["source_rows"], info["rows"]
    # The rows split: those a sequential sampler reads, in its order (its
    # start_index and num_samples), else all of them, the shuffle dropped.
    first, rows = 0, everything
    if sampler.get("type") == "sequential":
        first, rows = int(sampler.get("start", 0)), sampled
    else:
        if sampled < everything:
            raise NotImplementedError("split() of a dataset that samples %d of its %d rows in a random order is "
                                      "not supported by mindrecord; split the whole dataset (shuffle=False or "
                                      "no num_samples)" % (sampled, everything))
        warnings.warn("Dataset is shuffled before split.", UserWarning, stacklevel=2)
    absolute = _split_sizes(sizes, rows)
    if randomize:
        order = np.random.default_rng(self._plan["seed"]).permutation(rows)
    else:
        order = np.arange(rows)
    order = (first + order) % max(everything, 1)
    out, begin = [], 0
    for size in absolute:
        ds = self._copy()
        ds._split_base = {"type": "subset", "indices": [int(i) for i in order[begin:begin + size]]}
        if tree is None:
            ds._plan["sampler"] = ds._split_base
        else:
            ds._plan["tree"]["sampler"] = ds._split_base
        ds._check_plan()
        out.append(ds)
        begin += size
    return tuple(out)


def reset(self: "MindDataset") -> None:
    """The next iterator starts at the next epoch's first row (MindSpore's
    Dataset.reset); an epoch half read is left."""
    if self._live is not None:
        self._live.close()
    state = self.state_dict()
    if int(state["position"]) > 0:
        self._state = dict(state, epoch=int(state["epoch"]) + 1, position=0)
        self._stopped = None


def get_batch_size(self: "MindDataset") -> int:
    """Rows per batch (1 before batch()); batched by a callable, its size
    for the first batch (epoch 0, batch 0); by bucket_batch_by_length, the
    largest of bucket_batch_sizes."""
    if not self._batched:
        return 1
    fn = getattr(self, "_batch_size_fn", None)
    if fn is not None:
        return int(fn(_tree.BatchInfo(0, 0)))
    return self._batch_spec()[0]


def get_repeat_count(self: "MindDataset") -> int:
    return self._repeat_count


def apply(self: "MindDataset", apply_func: Any) -> "MindDataset":
    """apply_func(self), which must return a dataset (MindSpore's
    Dataset.apply: a function that chains operations)."""
    if not callable(apply_func):
        raise TypeError("apply_func must be a function, got %r" % (apply_func,))
    out = apply_func(self)
    if not hasattr(out, "create_dict_iterator") or not hasattr(out, "_plan"):
        raise TypeError("apply_func must return a dataset, got %r" % (out,))
    return out


def num_classes(self: "MindDataset") -> int | None:
    """None: a MindRecord source names no classes (MindSpore's answer too).
    ImageFolderDataset, and the datasets made from it, count its classes."""
    return None


def output_shapes(self: "MindDataset", estimate: bool = False) -> list[list[int]]:
    """The shape of each column of the first row (or batch), in
    get_col_names() order; a column whose rows differ in shape (a list of
    arrays) shows -1 in its varying dimensions. Runs one item through a
    copy of the pipeline; this dataset's position is unchanged."""
    if estimate:
        raise NotImplementedError("output_shapes(estimate=True) is not supported by mindrecord")
    return [_shape_of(v) for v in _first_item(self)]


def output_types(self: "MindDataset") -> list[np.dtype]:
    """The numpy dtype of each column of the first row (or batch)
    (MindSpore returns its mstype equivalents)."""
    return [_dtype_of(v) for v in _first_item(self)]


def _first_item(self: "MindDataset"):
    probe = self._copy()
    probe._callbacks = []
    probe._plan["seed"] = self._plan["seed"]
    it = probe.create_tuple_iterator(num_epochs=1, output_numpy=True)
    try:
        return next(iter(it))
    except StopIteration:
        raise InvalidArgumentError("the dataset is empty: no row to take shapes or types from") from None
    finally:
        it.close()


def _data_rows(self: "MindDataset"):
    """The dataset's rows, padding included (a flat plan's)."""
    return _core.sampler_size(json.dumps(dict(self._full_plan(1), sampler={"type": "sequential"})))


def _split_sizes(sizes, rows):
    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise ValueError("sizes must be a non-empty list of int or float, got %r" % (sizes,))
    if all(isinstance(s, int) and not isinstance(s, bool) for s in sizes):
        if any(s <= 0 for s in sizes):
            raise ValueError("sizes must be positive, got %r" % (sizes,))
        if sum(sizes) != rows:
            raise InvalidArgumentError("Sum of split sizes %d is not equal to dataset size %d." % (sum(sizes), rows))
        return list(sizes)
    if not all(isinstance(s, float) for s in sizes) or any(not 0 < s <= 1 for s in sizes) or \
            abs(sum(sizes) - 1) > 1e-6:
        raise ValueError("sizes must be all ints, or all floats in (0, 1] summing to 1, got %r" % (sizes,))
    absolute = []
    for s in sizes:
        n = int(round(s * rows))
        if n == 0:
            raise InvalidArgumentError("Split percentage %s is too small." % s)
        absolute.append(n)
    diff = rows - sum(absolute)
    if diff > 0:
        absolute[0] += diff  # rows left over go to the first split
    else:
        for i, n in enumerate(absolute):  # rows too many come off the first split that has enough
            if n + diff > 0:
                absolute[i] += diff
                break
    if sum(absolute) != rows:
        raise InvalidArgumentError("Sum of calculated split sizes %d is not equal to dataset size %d."
                                   % (sum(absolute), rows))
    return absolute


def _shape_of(v):
    if isinstance(v, np.ndarray):
        return list(v.shape)
    if isinstance(v, list) and v and all(isinstance(x, np.ndarray) for x in v):
        first = v[0].shape
        dims = [d if all(x.shape[i] == d for x in v if x.ndim == len(first)) else -1 for i, d in enumerate(first)]
        return [len(v)] + dims
    return list(np.shape(v))


def _dtype_of(v):
    if isinstance(v, np.ndarray):
        return v.dtype
    if isinstance(v, list) and v and isinstance(v[0], np.ndarray):
        return v[0].dtype
    return np.asarray(v).dtype
