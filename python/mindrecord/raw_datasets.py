"""MindSpore's built-in raw-format loaders over the same pipeline as
MindDataset: ImageFolderDataset (and Caltech256Dataset), CelebADataset,
OmniglotDataset, Places365Dataset, Food101Dataset,
Cifar10Dataset, Cifar100Dataset,
MnistDataset (and FashionMnistDataset, KMnistDataset over the same idx
files), VOCDataset, CocoDataset (MindSpore 2.x arguments and columns).

Each is a MindDataset whose execution tree starts at a "raw" leaf (the C++
RawSource, pipeline/nodes/raw_source.h), which reads the folder with the
parsers of `mindrecord convert`: map, batch, the combinators, samplers,
sharding, state_dict() resume and mindrecord.torch work as on MindDataset, and
a script moves between raw files and a MindRecord conversion of them by
changing the dataset line. Row order is MindSpore's (ImageFolder: class
folders sorted by name, files by name; CIFAR/MNIST: file order, "all" the
files sorted by name as MindSpore's: CIFAR-10 train then test, CIFAR-100 and
MNIST test then train; VOC: the ImageSets list; COCO: the 'images' list). Labels are
int32 (MindSpore: uint32; same values). What MindSpore takes and we do not
implement (cache, decrypt, extra_metadata, other COCO tasks) raises an error
naming it.

Thread safety: as MindDataset.
"""
import json
import os

from mindrecord import _core
from mindrecord import config as _config
from mindrecord.dataset import MindDataset, _positive, check_sampling, dataset_seed
from mindrecord.samplers import PKSampler, _nsamples

__all__ = ["ImageFolderDataset", "Caltech256Dataset", "CelebADataset", "Cifar10Dataset", "Cifar100Dataset",
           "MnistDataset", "EMnistDataset", "FashionMnistDataset", "Food101Dataset", "KMnistDataset",
           "OmniglotDataset", "Places365Dataset", "VOCDataset", "CocoDataset"]


def _unsupported(name, kwargs):
    """MindSpore keywords taken at their defaults only."""
    for key, value, default in kwargs:
        if value != default or type(value) is not type(default):
            raise NotImplementedError("%s(%s=%r) is not supported by mindrecord; only %r" % (name, key, value,
                                                                                              default))


class _RawDataset(MindDataset):
    """A MindDataset whose tree's leaf is a raw-format folder (see module)."""

    def _init_raw(self, name, leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache,
                  seed):
        if cache is not None:
            raise NotImplementedError("%s(cache=...) is not supported by mindrecord (no dataset cache server); "
                                      "only None" % name)
        if not isinstance(leaf["dataset_dir"], str):  # MindSpore's check_dir: a TypeError
            raise TypeError("%s: dataset_dir must be a str (a folder path), got %r" % (name, leaf["dataset_dir"]))
        if not leaf["dataset_dir"] or not os.path.isdir(leaf["dataset_dir"]):
            raise ValueError("%s: dataset_dir %r is not a folder" % (name, leaf["dataset_dir"]))
        self._init_leaf(name, leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, seed)

    def _init_leaf(self, name, leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, seed,
                   mode=None):
        """The plan of a dataset read from the leaf `leaf` (its sampler from
        MindSpore's sampling arguments). `mode`: the shuffle mode when
        `shuffle` may be a Shuffle member (else a bool or None)."""
        if num_parallel_workers is None:
            num_parallel_workers = _config.get_num_parallel_workers() or min(4, os.cpu_count() or 1)
        _positive("num_parallel_workers", num_parallel_workers)
        if mode is None and shuffle is not None and not isinstance(shuffle, bool):
            raise TypeError("%s: shuffle must be a bool or None, got %r" % (name, shuffle))
        samples = _nsamples(num_samples)
        check_sampling(shuffle, num_samples, num_shards, shard_id, sampler)
        self._seed_given, seed = dataset_seed(seed)
        # Opening the folder now makes bad paths and files fail here (a
        # source node's rows, listed already, are checked when _check_plan
        # opens it below).
        if leaf.get("node") == "source" and isinstance(leaf.get("rows"), int):
            rows = leaf["rows"]
        else:
            rows = _core.plan_info(json.dumps({"tree": leaf, "seed": seed}))["rows"]
        # MindSpore's raw loaders shuffle unless told not to (shuffle=None).
        if mode is None:
            mode = "off" if shuffle is False else "global"
        if sampler is not None:
            spec = sampler._spec_for(rows)
        elif num_shards is not None:
            spec = {"type": "distributed", "num_shards": num_shards, "shard_id": shard_id, "shuffle": mode,
                    "pad": True, "split": "round_robin", "num_samples": samples}
        elif mode == "off":
            spec = {"type": "sequential", "num_samples": samples}
        else:
            spec = {"type": "shuffle", "mode": mode, "num_samples": samples}
        leaf = dict(leaf, sampler=spec)
        self._plan = {"tree": leaf, "num_workers": num_parallel_workers,
                      "queue_depth": _config.get_prefetch_size(), "seed": seed}
        self._batched = False
        self._repeat_after = 1
        self._repeat_count = 1
        self._split_base = None
        self._state = None
        self._live = None
        self._callbacks = []
        self._size_counted = None
        self._check_plan()


class ImageFolderDataset(_RawDataset):
    """mindspore.dataset.ImageFolderDataset: DIR/<class>/<image>, columns
    [image, label]. `image`: the file's bytes (uint8), or with decode=True
    HWC RGB uint8; `label`: the class folder's place among the sorted class
    folders, or class_indexing[folder]. `extensions`: the file extensions
    kept (exact, e.g. [".JPEG"]). The folder is listed by the converter's
    parser (`mindrecord convert imagefolder`): files with an image extension
    (.jpg .jpeg .png .ppm .bmp .pgm .tif .tiff .webp, any case) in a class
    folder and its subfolders, hidden files aside; MindSpore lists every
    file directly in the class folder. A class folder without images is an
    error (MindSpore gives it a label no row has)."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 extensions=None, class_indexing=None, decode=False, num_shards=None, shard_id=None, cache=None,
                 decrypt=None, *, seed=None):
        _unsupported("ImageFolderDataset", [("decrypt", decrypt, None)])
        leaf = {"node": "raw", "format": "imagefolder", "dataset_dir": dataset_dir, "decode": _bool("decode", decode)}
        if extensions is not None:
            if not isinstance(extensions, (list, tuple)) or not all(isinstance(e, str) for e in extensions):
                raise TypeError("extensions must be a list of str, got %r" % (extensions,))
            leaf["extensions"] = list(extensions)
        if class_indexing is not None:
            leaf["class_indexing"] = _class_indexing(class_indexing)
        self._class_indexing = class_indexing
        self._init_raw("ImageFolderDataset", leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                       shard_id, cache, seed)

    def num_classes(self):
        """The number of classes: class_indexing's, else the class folders'."""
        return len(self.get_class_indexing())

    def get_class_indexing(self):
        """{class folder: label}, as MindSpore's."""
        if self._class_indexing is not None:
            return dict(self._class_indexing)
        d = self._plan_leaf()["dataset_dir"]
        names = sorted(n for n in os.listdir(d) if not n.startswith(".") and os.path.isdir(os.path.join(d, n)))
        return {n: i for i, n in enumerate(names)}

    def _plan_leaf(self):
        node = self._plan["tree"]
        while node["node"] != "raw":
            node = node.get("input") or node["inputs"][0]
        return node


class Caltech256Dataset(ImageFolderDataset):
    """mindspore.dataset.Caltech256Dataset: DIR/<NNN.class>/<image>.jpg as
    ImageFolderDataset reads it with extensions [".jpg", ".JPEG"]: columns
    [image, label], the label the class folder's place among the sorted
    folders (not its NNN prefix), as MindSpore's."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
                 sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        leaf = {"node": "raw", "format": "imagefolder", "dataset_dir": dataset_dir, "decode": _bool("decode", decode),
                "extensions": [".jpg", ".JPEG"]}
        self._class_indexing = None
        self._init_raw("Caltech256Dataset", leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                       shard_id, cache, seed)


class CelebADataset(_RawDataset):
    """mindspore.dataset.CelebADataset: the images listed in
    list_attr_celeba.txt, columns [image (bytes, or HWC RGB with decode=True),
    attr (int32 [40]: 1 where the list says 1, else 0; MindSpore's uint32)];
    `usage` "train" / "valid" / "test" by list_eval_partition.txt, "all"
    every image; `extensions` keeps names with those extensions (exact).
    Rows in the list's order (pipeline/nodes/celeba_source.h)."""

    def __init__(self, dataset_dir, num_parallel_workers=None, shuffle=None, usage="all", sampler=None, decode=False,
                 extensions=None, num_samples=None, num_shards=None, shard_id=None, cache=None, decrypt=None, *,
                 seed=None):
        _unsupported("CelebADataset", [("cache", cache, None), ("decrypt", decrypt, None)])
        if not isinstance(dataset_dir, str):
            raise TypeError("CelebADataset: dataset_dir must be a str (a folder path), got %r" % (dataset_dir,))
        if not dataset_dir or not os.path.isdir(dataset_dir):
            raise ValueError("CelebADataset: dataset_dir %r is not a folder" % (dataset_dir,))
        if usage not in ("all", "train", "valid", "test"):
            raise ValueError("usage should be 'all', 'train', 'valid' or 'test', got %r" % (usage,))
        if extensions is None:
            extensions = []
        if not isinstance(extensions, (list, tuple)) or not all(isinstance(e, str) for e in extensions):
            raise TypeError("extensions must be a list of str, got %r" % (extensions,))
        if isinstance(sampler, PKSampler):
            raise ValueError("CelebADataset does not support PKSampler")
        directory = os.path.abspath(dataset_dir)
        args = {"dataset_dir": directory, "usage": usage, "decode": _bool("decode", decode),
                "extensions": list(extensions)}
        leaf = {"node": "source", "kind": "celeba", "columns": ["image", "attr"], "name": "CelebADataset",
                "rows": _core.celeba_rows(directory, usage, list(extensions)), "args": args}
        self._init_leaf("CelebADataset", leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                        shard_id, seed)


class _ImageListDataset(_RawDataset):
    """Images listed by a dataset's own layout, with int32 labels
    (pipeline/nodes/image_list_source.h)."""

    def _init_list(self, loader, dataset_dir, args, decode, num_samples, num_parallel_workers, shuffle, sampler,
                   num_shards, shard_id, cache, seed):
        _unsupported(loader, [("cache", cache, None)])
        if not isinstance(dataset_dir, str):
            raise TypeError("%s: dataset_dir must be a str (a folder path), got %r" % (loader, dataset_dir))
        if not dataset_dir or not os.path.isdir(dataset_dir):
            raise ValueError("%s: dataset_dir %r is not a folder" % (loader, dataset_dir))
        args = dict(args, dataset_dir=os.path.abspath(dataset_dir), decode=_bool("decode", decode))
        leaf = {"node": "source", "kind": "image_list", "columns": ["image", "label"], "name": loader,
                "rows": _core.image_list_rows(json.dumps(args)), "args": args}
        self._init_leaf(loader, leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, seed)


class OmniglotDataset(_ImageListDataset):
    """mindspore.dataset.OmniglotDataset: every file of
    images_background (background=None or True) or images_evaluation /
    ALPHABET / CHARACTER, columns [image, label]; the label is the character
    folder's place among all "/alphabet/character" names sorted, files by
    name, as MindSpore's."""

    def __init__(self, dataset_dir, background=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        background = True if background is None else _bool("background", background)
        self._init_list("OmniglotDataset", dataset_dir, {"layout": "omniglot", "background": background}, decode,
                        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache, seed)


class Places365Dataset(_ImageListDataset):
    """mindspore.dataset.Places365Dataset: the "path label" pairs of
    places365_{train_standard,train_challenge,val}.txt (usage
    "train-standard" (None), "train-challenge", "val") read from the 256x256
    folders (small=True, MindSpore's default) or the large ones, in list
    order; columns [image, label]."""

    def __init__(self, dataset_dir, usage=None, small=True, decode=False, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None, *,
                 seed=None):
        usage = "train-standard" if usage is None else usage
        if usage not in ("train-standard", "train-challenge", "val"):
            raise ValueError("Places365Dataset: Input usage is not within the valid set of ['train-standard', "
                             "'train-challenge', 'val'], got %r" % (usage,))
        self._init_list("Places365Dataset", dataset_dir, {"layout": "places365", "usage": usage,
                                                          "small": _bool("small", small)}, decode,
                        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache, seed)


class Food101Dataset(_ImageListDataset):
    """mindspore.dataset.Food101Dataset: the images meta/train.txt and
    meta/test.txt list (CLASS/ID lines; usage "train", "test" or "all" (None):
    train then test), images/CLASS/ID.jpg, columns [image, label (the class
    name, a string)]."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        usage = "all" if usage is None else usage
        if usage not in ("train", "test", "all"):
            raise ValueError("Food101Dataset: Input usage is not within the valid set of ['train', 'test', 'all'], "
                             "got %r" % (usage,))
        self._init_list("Food101Dataset", dataset_dir, {"layout": "food101", "usage": usage}, decode, num_samples,
                        num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache, seed)


class Cifar10Dataset(_RawDataset):
    """mindspore.dataset.Cifar10Dataset: columns [image (uint8 32x32x3 HWC),
    label]. `usage`: "train", "test" or "all" (None: all; train batches then
    the test batch). Reads the binary (data_batch_N.bin, test_batch.bin) and
    the python-pickle distribution (MindSpore: binary only)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        leaf = {"node": "raw", "format": "cifar10", "dataset_dir": dataset_dir, "usage": _usage(usage)}
        self._init_raw("Cifar10Dataset", leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                       shard_id, cache, seed)


class Cifar100Dataset(_RawDataset):
    """mindspore.dataset.Cifar100Dataset: columns [image, coarse_label,
    fine_label]; `usage` as Cifar10Dataset (train.bin / test.bin, or the
    python-pickle train / test)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        leaf = {"node": "raw", "format": "cifar100", "dataset_dir": dataset_dir, "usage": _usage(usage)}
        self._init_raw("Cifar100Dataset", leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                       shard_id, cache, seed)


class MnistDataset(_RawDataset):
    """mindspore.dataset.MnistDataset: columns [image (uint8 28x28x1),
    label]; idx files plain or gzipped; `usage` "train", "test" or "all"."""

    _loader = "MnistDataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        leaf = {"node": "raw", "format": "mnist", "dataset_dir": dataset_dir, "usage": _usage(usage)}
        self._init_raw(self._loader, leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                       shard_id, cache, seed)


class EMnistDataset(_RawDataset):
    """mindspore.dataset.EMnistDataset: the idx files of one EMNIST split
    (`name`: byclass, bymerge, balanced, letters, digits or mnist), files
    emnist-NAME-{train,test}-{images-idx3,labels-idx1}-ubyte (plain or
    gzipped); columns as MnistDataset's (images as stored, not transposed,
    as MindSpore's); "all" reads test then train, as MindSpore's."""

    def __init__(self, dataset_dir, name, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        names = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")
        if not isinstance(name, str):
            raise TypeError("EMnistDataset: name must be a str, got %r" % (name,))
        if name not in names:
            raise ValueError("EMnistDataset: Input name is not within the valid set of %s, got %r" % (list(names), name))
        leaf = {"node": "raw", "format": "emnist", "name": name, "dataset_dir": dataset_dir, "usage": _usage(usage)}
        self._init_raw("EMnistDataset", leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                       shard_id, cache, seed)


class FashionMnistDataset(MnistDataset):
    """mindspore.dataset.FashionMnistDataset: Fashion-MNIST's idx files
    (MNIST's names and layout); as MnistDataset."""

    _loader = "FashionMnistDataset"


class KMnistDataset(MnistDataset):
    """mindspore.dataset.KMnistDataset: Kuzushiji-MNIST's idx files (MNIST's
    names and layout); as MnistDataset."""

    _loader = "KMnistDataset"


class VOCDataset(_RawDataset):
    """mindspore.dataset.VOCDataset. task "Segmentation" (default):
    [image, target] (the JPEG and the SegmentationClass PNG; decoded to HWC
    RGB with decode=True); "Detection": [image, bbox (float32 N x 4: xmin,
    ymin, width, height), label, difficult, truncated (int32 N x 1)].
    `usage`: the ImageSets list (default "train"). Labels: class_indexing,
    else the class names the list's annotations use, sorted (MindSpore's)."""

    def __init__(self, dataset_dir, task="Segmentation", usage="train", class_indexing=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None, extra_metadata=False, decrypt=None, *, seed=None):
        _unsupported("VOCDataset", [("extra_metadata", extra_metadata, False), ("decrypt", decrypt, None)])
        if task not in ("Segmentation", "Detection"):
            raise ValueError("VOCDataset: task must be 'Segmentation' or 'Detection', got %r" % (task,))
        if class_indexing is not None and task != "Detection":
            raise ValueError("class_indexing is valid only in 'Detection' task")
        leaf = {"node": "raw", "format": "voc", "dataset_dir": dataset_dir, "task": task,
                "usage": "train" if usage is None else usage, "decode": _bool("decode", decode)}
        if class_indexing is not None:
            leaf["class_indexing"] = _class_indexing(class_indexing)
        self._class_indexing = class_indexing
        self._init_raw("VOCDataset", leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id,
                       cache, seed)


class CocoDataset(_RawDataset):
    """mindspore.dataset.CocoDataset: the images of the annotation file's
    'images' list that have annotations, in its order, with the task's
    columns (per-object columns are N x 1, as MindSpore's):
    - "Detection": image, bbox (float32 N x 4, COCO's x, y, width, height),
      category_id, iscrowd (int32);
    - "Stuff": image, segmentation (float32: one row per polygon of each
      annotation, or per RLE its run lengths, padded with -1), iscrowd;
    - "Keypoint": image, keypoints (float32 N x K), num_keypoints (int32);
    - "Panoptic": image, bbox, category_id, iscrowd, area (int32) of each
      'segments_info' entry (the PNG masks are not read, as MindSpore's).
    The annotations are parsed by the converter's COCO reader (`mindrecord
    convert coco`), which also wants each annotation's 'bbox' and its
    category among 'categories' when the file lists them. "Captioning"
    raises NotImplementedError (a column of several strings per row)."""

    def __init__(self, dataset_dir, annotation_file, task="Detection", num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None,
                 extra_metadata=False, decrypt=None, *, seed=None):
        _unsupported("CocoDataset", [("extra_metadata", extra_metadata, False), ("decrypt", decrypt, None)])
        if task == "Captioning":
            raise NotImplementedError("CocoDataset(task='Captioning') is not supported by mindrecord: its captions "
                                      "column holds several strings per row, which the pipeline's tensors do not")
        if task not in ("Detection", "Stuff", "Keypoint", "Panoptic"):
            raise ValueError("Invalid task type: %r, task should be Detection, Stuff, Panoptic, Keypoint or "
                             "Captioning." % (task,))
        if not isinstance(annotation_file, str) or not os.path.isfile(annotation_file):
            raise ValueError("CocoDataset: annotation_file %r is not a file" % (annotation_file,))
        leaf = {"node": "raw", "format": "coco", "dataset_dir": dataset_dir, "annotation_file": annotation_file,
                "task": task, "decode": _bool("decode", decode)}
        self._task = task
        self._annotation_file = annotation_file
        self._init_raw("CocoDataset", leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id,
                       cache, seed)

    def get_class_indexing(self):
        """{category name: [id]} ("Detection") or {name: [id, isthing]}
        ("Panoptic") from the annotation file's 'categories', as MindSpore's;
        other tasks raise RuntimeError."""
        if self._task not in ("Detection", "Panoptic"):
            raise RuntimeError("Class index only valid in \"Detection\" and \"Panoptic\" task.")
        with open(self._annotation_file, "rb") as f:
            doc = json.load(f)
        out = {}
        for cat in doc.get("categories") or []:
            if not isinstance(cat, dict) or "id" not in cat or "name" not in cat:
                raise RuntimeError("%s: a category needs an 'id' and a 'name'" % self._annotation_file)
            info = [cat["id"]]
            if self._task == "Panoptic":
                if "isthing" not in cat:
                    raise RuntimeError("%s: a panoptic category needs 'isthing'" % self._annotation_file)
                info.append(cat["isthing"])
            out[cat["name"]] = info
        return out


def _bool(name, value):
    if not isinstance(value, bool):
        raise TypeError("%s must be a bool, got %r" % (name, value))
    return value


def _usage(usage):
    usage = "all" if usage is None else usage
    if usage not in ("train", "test", "all"):
        raise ValueError("usage must be 'train', 'test' or 'all', got %r" % (usage,))
    return usage


def _class_indexing(mapping):
    if not isinstance(mapping, dict) or not all(isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
                                                and v >= 0 for k, v in mapping.items()):
        raise ValueError("class_indexing must be a dict of str -> int >= 0, got %r" % (mapping,))
    return dict(mapping)
