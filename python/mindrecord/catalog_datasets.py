"""MindSpore's loaders for datasets that their own list files describe row
by row (pipeline/nodes/catalog_source.h): LFWDataset.

Each is a MindDataset over a "catalog" source: the lists are read once when
the dataset is made (a list that does not parse, a listed name that would
leave the folder: a CorruptionError naming the file and line), the images by
the pipeline's workers (bytes, or HWC RGB uint8 with decode=True; an image
that is missing or does not decode is that row's error). Labels are int32
(MindSpore's uint32; same values). Rows in the lists' order, shuffled unless
shuffle=False, as MindSpore's.

Thread safety: as MindDataset.
"""
import json
import os

from mindrecord import _core
from mindrecord.raw_datasets import _RawDataset, _bool, _unsupported

__all__ = ["LFWDataset"]


class _CatalogDataset(_RawDataset):
    """A MindDataset over a catalog source with layout `layout`."""

    def _init_catalog(self, loader, layout, dataset_dir, args, decode, num_samples, num_parallel_workers, shuffle,
                      sampler, num_shards, shard_id, cache, seed):
        _unsupported(loader, [("cache", cache, None)])
        if not isinstance(dataset_dir, str):
            raise TypeError("%s: dataset_dir must be a str (a folder path), got %r" % (loader, dataset_dir))
        if not dataset_dir or not os.path.isdir(dataset_dir):
            raise ValueError("%s: dataset_dir %r is not a folder" % (loader, dataset_dir))
        args = dict(args, layout=layout, dataset_dir=os.path.abspath(dataset_dir), decode=_bool("decode", decode))
        columns, rows = _core.catalog_info(json.dumps(args))
        leaf = {"node": "source", "kind": "catalog", "columns": list(columns), "name": loader, "rows": rows,
                "args": args}
        self._init_leaf(loader, leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, seed)


def _choice(loader, name, value, default, allowed):
    value = default if value is None else value
    if not isinstance(value, str):
        raise TypeError("%s: %s must be a str, got %r" % (loader, name, value))
    if value not in allowed:
        raise ValueError("%s: Input %s is not within the valid set of %s, got %r" % (loader, name, list(allowed),
                                                                                   value))
    return value


class LFWDataset(_CatalogDataset):
    """mindspore.dataset.LFWDataset: Labeled Faces in the Wild.
    task "people" (None): columns [image, label (the person's line in
    lfw-names.txt)]; "pairs": [image1, image2, label (1: the same person, 0:
    not)]. usage "10fold" (TASK.txt), "train" (TASKDevTrain.txt), "test"
    (TASKDevTest.txt) or "all" (None: train then test); image_set "original"
    (lfw/), "funneled" (None: lfw_funneled/) or "deepfunneled"
    (lfw-deepfunneled/), images NAME/NAME_NNNN.jpg. lfw-names.txt is always
    read; a name the list uses and lfw-names.txt lacks is an error (MindSpore
    labels it 0)."""

    def __init__(self, dataset_dir, task=None, usage=None, image_set=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None, *, seed=None):
        args = {"task": _choice("LFWDataset", "task", task, "people", ("people", "pairs")),
                "usage": _choice("LFWDataset", "usage", usage, "all", ("10fold", "train", "test", "all")),
                "image_set": _choice("LFWDataset", "image_set", image_set, "funneled",
                                     ("original", "funneled", "deepfunneled"))}
        self._init_catalog("LFWDataset", "lfw", dataset_dir, args, decode, num_samples, num_parallel_workers, shuffle,
                           sampler, num_shards, shard_id, cache, seed)
