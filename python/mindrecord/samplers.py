"""MindDataset's shuffle modes and samplers (MindSpore's dataset.Shuffle and
dataset samplers): thin descriptions of the C++ samplers' JSON specs
(pipeline/sampler.h), with MindSpore's semantics for MindRecord sources.

Samplers (and Shuffle) are immutable values: share them freely across threads.
"""
import enum
import os


class Shuffle(str, enum.Enum):
    """MindDataset shuffle modes (MindSpore's dataset.Shuffle). Members are
    also their plan names (Shuffle.GLOBAL == "global")."""
    GLOBAL = "global"      # a permutation of all rows
    FILES = "files"        # shard order shuffled, rows in order
    INFILE = "infile"      # shard order kept, rows shuffled within each shard
    PARTIAL = "partial"    # rows shuffled within blocks of 1M rows
    ADAPTIVE = "adaptive"  # GLOBAL up to 100M rows, PARTIAL above (MindDataset's default)


_MODES = ("global", "files", "infile", "partial", "adaptive", "off")


def _shuffle_mode(shuffle, default=Shuffle.GLOBAL):
    """The plan's mode name for a shuffle argument: None -> `default`, True ->
    global, False -> off, a Shuffle member or its name."""
    if shuffle is None:
        shuffle = default
    if shuffle is True:
        return "global"
    if shuffle is False:
        return "off"
    name = str(getattr(shuffle, "value", shuffle)).lower()
    if name not in _MODES:
        raise ValueError("shuffle must be a bool or one of Shuffle.GLOBAL / FILES / INFILE / PARTIAL / ADAPTIVE, "
                         "got %r" % (shuffle,))
    return name


def shard_split():
    """How MindDataset deals rows to num_shards ranks: "round_robin" (rank i
    takes rows i, i+N, ...; MindSpore 2.6's default) or "contiguous" (rank i
    takes the i-th block) when MS_DEV_MINDRECORD_SHARD_BY_BLOCK is "true"
    (any case) or "1", as in MindSpore. Read when the dataset is made."""
    flag = os.environ.get("MS_DEV_MINDRECORD_SHARD_BY_BLOCK", "false").strip().lower()
    return "contiguous" if flag in ("true", "1") else "round_robin"


class _Sampler:
    def __init__(self, **spec):
        self._spec = spec

    def to_json(self):
        return dict(self._spec)

    def _spec_for(self, num_rows):
        """The spec for a dataset of `num_rows` rows (padding included)."""
        return self.to_json()

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, self._spec)


def _nsamples(num_samples):
    if num_samples is None:
        return 0
    if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples < 0:
        raise ValueError("num_samples must be an int >= 0 or None, got %r" % (num_samples,))
    return num_samples


def _indices(indices):
    try:
        out = list(indices)
    except TypeError:
        raise TypeError("indices must be a list of int, got %r" % (indices,)) from None
    for i, v in enumerate(out):
        if isinstance(v, bool) or not isinstance(v, int) and not hasattr(v, "__index__"):
            raise TypeError("Type of indices element must be int, but got list[%d]: %r, type: %s."
                            % (i, v, type(v).__name__))
    return [int(v) for v in out]


class SequentialSampler(_Sampler):
    """min(num_samples, rows) rows from `start_index` in order, wrapping
    around past the last row (MindSpore's: start_index=2 on 10 rows gives
    2..9, 0, 1)."""

    def __init__(self, start_index: int | None = None, num_samples: int | None = None) -> None:
        start = 0 if start_index is None else start_index
        if not isinstance(start, int) or isinstance(start, bool) or start < 0:
            raise ValueError("start_index must be an int >= 0 or None, got %r" % (start_index,))
        super().__init__(type="sequential", start=start, num_samples=_nsamples(num_samples), wrap=True)


class RandomSampler(_Sampler):
    def __init__(self, replacement: bool = False, num_samples: int | None = None) -> None:
        super().__init__(type="random", replacement=bool(replacement), num_samples=_nsamples(num_samples))


class SubsetSampler(_Sampler):
    """The rows of `indices` in order. As in MindSpore, an index outside [0,
    rows) is taken modulo the rows (-1 is the last row)."""
    _type = "subset"

    def __init__(self, indices: list[int], num_samples: int | None = None) -> None:
        super().__init__(type=self._type, indices=_indices(indices), num_samples=_nsamples(num_samples))

    def _spec_for(self, num_rows):
        spec = self.to_json()
        if num_rows > 0:
            spec["indices"] = [i % num_rows for i in spec["indices"]]
        return spec


class SubsetRandomSampler(SubsetSampler):
    """The rows of `indices` (modulo the rows, as SubsetSampler), permuted
    each epoch."""
    _type = "subset_random"


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
    """Rank `shard_id` of `num_shards`, as MindSpore's for MindRecord: every
    rank gets ceil(rows / num_shards) rows (the last ranks repeat the first
    rows of the order to make up the count; `pad=False` gives the first
    rows % num_shards ranks one row more instead), dealt by interval (rows
    i, i+N, ... of the shuffled order) or, with
    MS_DEV_MINDRECORD_SHARD_BY_BLOCK=true, in contiguous blocks.
    `num_samples` caps the rows per rank. `offset` (MindSpore's
    concatenated-dataset offset) is taken only at its default -1."""

    def __init__(self, num_shards: int, shard_id: int, shuffle: bool | str | None = True, num_samples: int | None = None,
                 offset: int = -1, pad: bool = True) -> None:
        if not isinstance(num_shards, int) or isinstance(num_shards, bool) or num_shards < 1:
            raise ValueError("num_shards must be an int >= 1, got %r" % (num_shards,))
        if not isinstance(shard_id, int) or isinstance(shard_id, bool) or not 0 <= shard_id < num_shards:
            raise ValueError("shard_id must be an int in [0, %d), got %r" % (num_shards, shard_id))
        if offset != -1:
            raise NotImplementedError("DistributedSampler(offset=%r) is not supported by mindrecord (only -1: "
                                      "no concatenated datasets)" % (offset,))
        super().__init__(type="distributed", num_shards=num_shards, shard_id=shard_id, shuffle=_shuffle_mode(shuffle),
                         pad=bool(pad), split=shard_split(), num_samples=_nsamples(num_samples))
