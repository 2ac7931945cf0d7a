"""MindSpore's loaders for datasets that their own list files describe row
by row (pipeline/nodes/catalog_source.h): LFWDataset, LSUNDataset,
DIV2KDataset, FlickrDataset, KITTIDataset, WIDERFaceDataset,
ManifestDataset, SBUDataset, RenderedSST2Dataset, Multi30kDataset,
QMnistDataset, STL10Dataset, USPSDataset, SemeionDataset, SQuADDataset,
IWSLT2016Dataset, IWSLT2017Dataset, CityscapesDataset, FakeImageDataset,
Flowers102Dataset, Caltech101Dataset, SVHNDataset, SBDataset and
PhotoTourDataset.

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
from mindrecord.samplers import Shuffle

__all__ = ["Caltech101Dataset", "CityscapesDataset", "DIV2KDataset", "FakeImageDataset", "Flowers102Dataset", "FlickrDataset", "IWSLT2016Dataset", "IWSLT2017Dataset", "KITTIDataset", "LFWDataset", "LSUNDataset", "ManifestDataset",
           "Multi30kDataset", "PhotoTourDataset", "QMnistDataset", "RenderedSST2Dataset", "SBDataset", "SBUDataset", "SemeionDataset", "SQuADDataset",
           "STL10Dataset", "SVHNDataset", "USPSDataset", "WIDERFaceDataset"]


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
        columns, rows, meta = _core.catalog_info(json.dumps(args))
        self._catalog_meta = json.loads(meta)
        leaf = {"node": "source", "kind": "catalog", "columns": list(columns), "name": loader, "rows": rows,
                "args": args}
        self._init_leaf(loader, leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, seed)

    def get_class_indexing(self):
        """{class name: label} of the dataset's labels, as MindSpore's
        (ManifestDataset, RenderedSST2Dataset, KITTIDataset); {} for the
        loaders without class names."""
        return dict(self._catalog_meta.get("class_indexing", {}))


def _row_shuffle(loader, shuffle):
    """MindSpore's shuffle of a text-style loader (a bool or a Shuffle
    member) as the catalog's: True / None / Shuffle.GLOBAL shuffle the rows,
    False does not; Shuffle.FILES and INFILE are not implemented."""
    if isinstance(shuffle, Shuffle):
        if shuffle is not Shuffle.GLOBAL:
            raise NotImplementedError("%s(shuffle=%s) is not supported by mindrecord; only True, False or "
                                      "Shuffle.GLOBAL" % (loader, shuffle))
        return True
    if shuffle is not None and not isinstance(shuffle, bool):
        raise TypeError("shuffle must be of boolean or enum of 'Shuffle' values, got %r" % (shuffle,))
    return shuffle


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


class LSUNDataset(_CatalogDataset):
    """mindspore.dataset.LSUNDataset: the extracted images of the LSUN
    scene folders (CLASS_train, CLASS_val: every file, sorted by name; test/
    for usage "test"); usage "train", "valid", "test" or "all" (None: train
    and valid); classes a list of LSUN class names (None: all ten). Columns
    [image, label (the folder's place among the chosen folders, sorted by
    name, as MindSpore's)]."""

    _CLASSES = ["bedroom", "bridge", "church_outdoor", "classroom", "conference_room", "dining_room", "kitchen",
                "living_room", "restaurant", "tower"]

    def __init__(self, dataset_dir, usage=None, classes=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        usage = _choice("LSUNDataset", "usage", usage, "all", ("train", "test", "valid", "all"))
        classes = [] if classes is None else classes
        if not isinstance(classes, list):
            raise TypeError("LSUNDataset: classes must be a list of class names, got %r" % (classes,))
        for c in classes:
            _choice("LSUNDataset", "classes", c, None, self._CLASSES)
        self._init_catalog("LSUNDataset", "lsun", dataset_dir, {"usage": usage, "classes": list(dict.fromkeys(classes))},
                           decode, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache,
                           seed)


class DIV2KDataset(_CatalogDataset):
    """mindspore.dataset.DIV2KDataset: columns [hr_image, lr_image], every
    .png of DIV2K_{train,valid}_HR sorted by name with its low-resolution
    image for `downgrade` ("bicubic", "unknown", "mild", "difficult",
    "wild") and `scale` (2, 3, 4, 8: 8 only bicubic; mild, difficult and
    wild only 4); usage "train", "valid" or "all" (train then valid)."""

    def __init__(self, dataset_dir, usage="train", downgrade="bicubic", scale=2, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None,
                 cache=None, *, seed=None):
        if usage is None or downgrade is None:
            raise TypeError("DIV2KDataset: usage and downgrade must be str, got %r and %r" % (usage, downgrade))
        usage = _choice("DIV2KDataset", "usage", usage, None, ("train", "valid", "all"))
        downgrade = _choice("DIV2KDataset", "downgrade", downgrade, None,
                            ("bicubic", "unknown", "mild", "difficult", "wild"))
        if not isinstance(scale, int) or isinstance(scale, bool):
            raise TypeError("DIV2KDataset: scale must be an int, got %r" % (scale,))
        if scale not in (2, 3, 4, 8):
            raise ValueError("DIV2KDataset: Input scale is not within the valid set of [2, 3, 4, 8], got %r" % (scale,))
        if scale == 8 and downgrade != "bicubic":
            raise ValueError("DIV2KNode: scale equal to 8 is allowed only in bicubic downgrade.")
        if downgrade in ("mild", "difficult", "wild") and scale != 4:
            raise ValueError("DIV2KNode: %s downgrade requires scale equal to 4." % downgrade)
        self._init_catalog("DIV2KDataset", "div2k", dataset_dir, {"usage": usage, "downgrade": downgrade,
                                                                  "scale": scale},
                           False if decode is None else decode, num_samples, num_parallel_workers, shuffle, sampler,
                           num_shards, shard_id, cache, seed)


class FlickrDataset(_CatalogDataset):
    """mindspore.dataset.FlickrDataset: Flickr8k / Flickr30k. Columns
    [image, annotation (1-D string array: the image's captions in the
    file's order)], an image per row sorted by name; annotation_file holds
    "IMAGE#N<tab>caption" lines, the images lie in dataset_dir."""

    def __init__(self, dataset_dir, annotation_file, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=None, sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        if not isinstance(annotation_file, str):
            raise TypeError("FlickrDataset: annotation_file must be a str, got %r" % (annotation_file,))
        if not os.path.isfile(annotation_file):
            raise ValueError("The file %s does not exist or permission denied!" % os.path.realpath(annotation_file))
        self._init_catalog("FlickrDataset", "flickr", dataset_dir,
                           {"annotation_file": os.path.abspath(annotation_file)}, False if decode is None else decode,
                           num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache, seed)


class KITTIDataset(_CatalogDataset):
    """mindspore.dataset.KITTIDataset: the object detection set. usage
    "train" (None): columns [image, label (int32 [N, 1]: the class's place
    among the label files' class names, sorted), truncated (float32
    [N, 1]), occluded (int32 [N, 1]), alpha (float32 [N, 1]), bbox (float32
    [N, 4]), dimensions (float32 [N, 3]), location (float32 [N, 3]),
    rotation_y (float32 [N, 1])]; "test": [image]. Images
    data_object_image_2/{training,testing}/image_2/NNNNNN.png, labels
    data_object_label_2/training/label_2/NNNNNN.txt."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        usage = _choice("KITTIDataset", "usage", usage, "train", ("train", "test"))
        self._init_catalog("KITTIDataset", "kitti", dataset_dir, {"usage": usage}, decode, num_samples,
                           num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache, seed)


class WIDERFaceDataset(_CatalogDataset):
    """mindspore.dataset.WIDERFaceDataset: the .jpg files of
    WIDER_{train,val,test}/images/EVENT/ (events and files by name), usage
    "train", "valid", "test" or "all" (None: train then valid). Columns
    [image, bbox (int32 [M, 4]), blur, expression, illumination, occlusion,
    pose, invalid (int32 [M] each)] from wider_face_split's
    wider_face_{train,val}_bbx_gt.txt; test: [image]."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        usage = _choice("WIDERFaceDataset", "usage", usage, "all", ("train", "test", "valid", "all"))
        self._init_catalog("WIDERFaceDataset", "widerface", dataset_dir, {"usage": usage}, decode, num_samples,
                           num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache, seed)


class ManifestDataset(_CatalogDataset):
    """mindspore.dataset.ManifestDataset: the images a manifest file lists
    (a JSON object per line: source, usage, annotation [{name}]) for `usage`
    "train", "eval" or "inference". Columns [image, label (int32: 0-d for one
    name, 1-D for several)]; labels by class_indexing ({name: int}; names it
    lacks are left out) or the names' places among the usage's names,
    sorted; get_class_indexing() gives them."""

    def __init__(self, dataset_file, usage="train", num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, class_indexing=None, decode=False, num_shards=None, shard_id=None, cache=None, *,
                 seed=None):
        if not isinstance(dataset_file, str):
            raise TypeError("ManifestDataset: dataset_file must be a str, got %r" % (dataset_file,))
        if not os.path.isfile(dataset_file):
            raise ValueError("The file %s does not exist or permission denied!" % os.path.realpath(dataset_file))
        usage = _choice("ManifestDataset", "usage", usage, "train", ("train", "eval", "inference"))
        class_indexing = {} if class_indexing is None else class_indexing
        if not isinstance(class_indexing, dict):
            raise TypeError("ManifestDataset: class_indexing must be a dict, got %r" % (class_indexing,))
        dataset_file = os.path.abspath(dataset_file)
        self._init_catalog("ManifestDataset", "manifest", os.path.dirname(dataset_file),
                           {"dataset_file": dataset_file, "usage": usage, "class_indexing": class_indexing}, decode,
                           num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache, seed)


class SBUDataset(_CatalogDataset):
    """mindspore.dataset.SBUDataset: SBU captioned photos. Columns [image,
    caption (a string)] from SBU_captioned_photo_dataset_urls.txt and
    ..._captions.txt, line by line, the photos in sbu_images/ (a photo that
    is not there is left out, as MindSpore's)."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
                 sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        self._init_catalog("SBUDataset", "sbu", dataset_dir, {}, decode, num_samples, num_parallel_workers, shuffle,
                           sampler, num_shards, shard_id, cache, seed)


class RenderedSST2Dataset(_CatalogDataset):
    """mindspore.dataset.RenderedSST2Dataset: SPLIT/CLASS/*.png for usage
    "train", "val" (the valid folder), "test" or "all" (None). Columns
    [image, label (the class folder's place among the class names,
    sorted)]."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        usage = _choice("RenderedSST2Dataset", "usage", usage, "all", ("val", "all", "train", "test"))
        self._init_catalog("RenderedSST2Dataset", "rendered_sst2", dataset_dir, {"usage": usage}, decode,
                           num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache, seed)


class Multi30kDataset(_CatalogDataset):
    """mindspore.dataset.Multi30kDataset: English-German sentence pairs.
    Columns [text, translation] (strings; language_pair ["en", "de"] (None)
    or ["de", "en"]); usage "train", "valid", "test" or "all" (None: test,
    train, valid, MindSpore's order). Rows of all files in order (MindSpore
    interleaves the files' rows when several workers read them)."""

    def __init__(self, dataset_dir, usage=None, language_pair=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        usage = _choice("Multi30kDataset", "usage", usage, "all", ("train", "test", "valid", "all"))
        pair = ["en", "de"] if language_pair is None else language_pair
        if not isinstance(pair, (list, tuple)):
            raise TypeError("Multi30kDataset: language_pair must be a list or tuple, got %r" % (pair,))
        if len(pair) != 2:
            raise ValueError("language_pair should be a list or tuple of length 2, but got %d" % len(pair))
        if list(pair) not in (["en", "de"], ["de", "en"]):
            raise ValueError("language_pair can only be ['en', 'de'] or ['de', 'en'], but got %r" % (pair,))
        if shuffle is not None and not isinstance(shuffle, bool):
            raise TypeError("Multi30kDataset: shuffle must be a bool or None, got %r" % (shuffle,))
        self._init_catalog("Multi30kDataset", "multi30k", dataset_dir, {"usage": usage, "language_pair": list(pair)},
                           False, num_samples, num_parallel_workers, shuffle, None, num_shards, shard_id, cache, seed)


class QMnistDataset(_CatalogDataset):
    """mindspore.dataset.QMnistDataset: QMNIST's idx files
    (qmnist-{train,test}-images-idx3-ubyte, ...-labels-idx2-int, NIST's
    xnist-*), uncompressed; usage "train", "test", "test10k" (the first
    10,000 test rows), "test50k" (the rest), "nist" or "all" (None: train,
    test, nist). Columns [image (uint8 28x28x1, every non-zero pixel 255,
    as MindSpore's), label (int32: the class with compat=True, else the 8
    fields, int32 [8])]."""

    def __init__(self, dataset_dir, usage=None, compat=True, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        usage = _choice("QMnistDataset", "usage", usage, "all", ("train", "test", "test10k", "test50k", "nist", "all"))
        self._init_catalog("QMnistDataset", "qmnist", dataset_dir, {"usage": usage, "compat": _bool("compat", compat)},
                           False, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache,
                           seed)


class STL10Dataset(_CatalogDataset):
    """mindspore.dataset.STL10Dataset: STL-10's binary files
    ({train,test}_X.bin, {train,test}_y.bin, unlabeled_X.bin); usage
    "train", "test", "unlabeled", "train+unlabeled" or "all" (None: test,
    train, unlabeled). Columns [image (uint8 96x96x3 HWC), label (int32
    0-9; -1 unlabeled)]."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        usage = _choice("STL10Dataset", "usage", usage, "all", ("train", "test", "unlabeled", "train+unlabeled", "all"))
        self._init_catalog("STL10Dataset", "stl10", dataset_dir, {"usage": usage}, False, num_samples,
                           num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache, seed)


class USPSDataset(_CatalogDataset):
    """mindspore.dataset.USPSDataset: the decompressed usps (train) and
    usps.t (test) files (usage "all", None: train then test), libsvm lines.
    Columns [image (uint8 16x16x1), label (int32 0-9)]. `shuffle`: True,
    None or Shuffle.GLOBAL shuffles the rows, False does not (Shuffle.FILES
    and INFILE are not implemented: an error)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None, *, seed=None):
        usage = _choice("USPSDataset", "usage", usage, "all", ("train", "test", "all"))
        shuffle = _row_shuffle("USPSDataset", shuffle)
        self._init_catalog("USPSDataset", "usps", dataset_dir, {"usage": usage}, False, num_samples,
                           num_parallel_workers, shuffle, None, num_shards, shard_id, cache, seed)


class SemeionDataset(_CatalogDataset):
    """mindspore.dataset.SemeionDataset: semeion.data, a handwritten digit
    per line. Columns [image (uint8 16x16 of 0 and 1, as MindSpore's), label
    (int32 0-9)]."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, cache=None, *, seed=None):
        self._init_catalog("SemeionDataset", "semeion", dataset_dir, {}, False, num_samples, num_parallel_workers,
                           shuffle, sampler, num_shards, shard_id, cache, seed)


class SQuADDataset(_CatalogDataset):
    """mindspore.dataset.SQuADDataset: SQuAD 1.1 / 2.0 JSON files
    ({train,dev}-v1.1.json and / or -v2.0.json, each one there, v1.1 first;
    usage "train", "dev" or "all" (None: train then dev)). A row per
    question: [context, question (strings), text (the answers, 1-D
    strings), answer_start (int32 1-D; MindSpore's uint32)]; an
    unanswerable question gives [""] and [-1] (MindSpore's 4294967295).
    `shuffle` as USPSDataset's."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None, *, seed=None):
        usage = _choice("SQuADDataset", "usage", usage, "all", ("train", "dev", "all"))
        self._init_catalog("SQuADDataset", "squad", dataset_dir, {"usage": usage}, False, num_samples,
                           num_parallel_workers, _row_shuffle("SQuADDataset", shuffle), None, num_shards, shard_id,
                           cache, seed)


_IWSLT_SETS = ["dev2010", "tst2010", "tst2011", "tst2012", "tst2013", "tst2014"]


def _iwslt_pair(loader, language_pair, allowed):
    pair = ["de", "en"] if language_pair is None else language_pair
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        if not isinstance(pair, (list, tuple)):
            raise TypeError("language_pair should be a type list or tuple of length 2.")
        raise ValueError("Input language_pair is a list or tuple of length 2.")
    for i, lang in enumerate(pair):
        if not isinstance(lang, str):
            raise TypeError("Argument language_pair[%d] with value %r is not of type [<class 'str'>]" % (i, lang))
    if tuple(pair) not in allowed:
        raise ValueError("%s: Input language_pair%r is not within the valid set of %s" % (loader, list(pair),
                                                                                         [list(p) for p in allowed]))
    return list(pair)


class IWSLT2016Dataset(_CatalogDataset):
    """mindspore.dataset.IWSLT2016Dataset: TED talk translations from the
    extracted archive (dataset_dir/texts/SRC/TGT/SRC-TGT/). Columns [text,
    translation]; usage "train" (train.tags files, talk metadata lines left
    out), "valid" (valid_set, default tst2013), "test" (test_set, default
    tst2014) or "all" (None: train, valid, test); language_pair en to ar,
    de, fr, cs or back (None: ["de", "en"]). Rows file after file (MindSpore
    interleaves the files' rows when several workers read them); nothing is
    written into the dataset's folder (MindSpore writes cleaned copies).
    `shuffle` as USPSDataset's."""

    _PAIRS = [("en", x) for x in ("ar", "de", "fr", "cs")] + [(x, "en") for x in ("ar", "de", "fr", "cs")]

    def __init__(self, dataset_dir, usage=None, language_pair=None, valid_set=None, test_set=None, num_samples=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, num_parallel_workers=None, cache=None, *,
                 seed=None):
        args = {"year": 2016, "usage": _choice("IWSLT2016Dataset", "usage", usage, "all",
                                               ("train", "valid", "test", "all")),
                "language_pair": _iwslt_pair("IWSLT2016Dataset", language_pair, self._PAIRS),
                "valid_set": _choice("IWSLT2016Dataset", "valid_set", valid_set, "tst2013", _IWSLT_SETS),
                "test_set": _choice("IWSLT2016Dataset", "test_set", test_set, "tst2014", _IWSLT_SETS)}
        self._init_catalog("IWSLT2016Dataset", "iwslt", dataset_dir, args, False, num_samples, num_parallel_workers,
                           _row_shuffle("IWSLT2016Dataset", shuffle), None, num_shards, shard_id, cache, seed)


class IWSLT2017Dataset(_CatalogDataset):
    """mindspore.dataset.IWSLT2017Dataset: as IWSLT2016Dataset over
    dataset_dir/texts/DeEnItNlRo/DeEnItNlRo/DeEnItNlRo-DeEnItNlRo/, any two
    of en, de, it, nl, ro; valid dev2010, test tst2010 (MindSpore's)."""

    _PAIRS = [(a, b) for a in ("en", "de", "it", "nl", "ro") for b in ("en", "de", "it", "nl", "ro") if a != b]

    def __init__(self, dataset_dir, usage=None, language_pair=None, num_samples=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, num_parallel_workers=None, cache=None, *, seed=None):
        args = {"year": 2017, "usage": _choice("IWSLT2017Dataset", "usage", usage, "all",
                                               ("train", "valid", "test", "all")),
                "language_pair": _iwslt_pair("IWSLT2017Dataset", language_pair, self._PAIRS),
                "valid_set": "dev2010", "test_set": "tst2010"}
        self._init_catalog("IWSLT2017Dataset", "iwslt", dataset_dir, args, False, num_samples, num_parallel_workers,
                           _row_shuffle("IWSLT2017Dataset", shuffle), None, num_shards, shard_id, cache, seed)


class CityscapesDataset(_CatalogDataset):
    """mindspore.dataset.CityscapesDataset: columns [image, task]: every
    .png of leftImg8bit/USAGE/CITY/ sorted by path, with its gtFine (or
    gtCoarse) target for `task`: "instance" (instanceIds.png), "semantic"
    (labelIds.png), "color" (color.png), images as the image column is (bytes,
    or RGB with decode=True, as MindSpore's), or "polygon" (polygons.json,
    the JSON re-written compactly with sorted keys, a string). usage
    "train", "test", "val" (fine) / "train_extra" (coarse) or "all"."""

    def __init__(self, dataset_dir, usage="train", quality_mode="fine", task="instance", num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None,
                 cache=None, *, seed=None):
        for name, value in (("usage", usage), ("quality_mode", quality_mode), ("task", task)):
            if not isinstance(value, str):
                raise TypeError("Argument %s with value %r is not of type [<class 'str'>], but got %s."
                                % (name, value, type(value)))
        task = _choice("CityscapesDataset", "task", task, None, ("instance", "semantic", "polygon", "color"))
        quality_mode = _choice("CityscapesDataset", "quality_mode", quality_mode, None, ("fine", "coarse"))
        usages = ("train", "test", "val", "all") if quality_mode == "fine" else ("train", "train_extra", "val", "all")
        usage = _choice("CityscapesDataset", "usage", usage, None, usages)
        self._init_catalog("CityscapesDataset", "cityscapes", dataset_dir,
                           {"usage": usage, "quality_mode": quality_mode, "task": task},
                           False if decode is None else decode, num_samples, num_parallel_workers, shuffle, sampler,
                           num_shards, shard_id, cache, seed)


def _int(name, value):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("Argument %s with value %r is not of type [<class 'int'>], but got %s." % (name, value,
                                                                                                    type(value)))
    return value


def _pos_int32(name, value):
    _int(name, value)
    if not 0 < value <= 2 ** 31 - 1:
        raise ValueError("Input %s is not within the required interval of [1, 2147483647]." % name)
    return value


class FakeImageDataset(_CatalogDataset):
    """mindspore.dataset.FakeImageDataset: num_images rows of [image (uint8
    image_size), label (int32 in [0, num_classes))], each drawn from a
    std::mt19937 seeded with base_seed + the row's id as MindSpore's draws
    them (pipeline/nodes/catalog_fake_image.cc): the same rows whatever the
    workers, order or sampler. Nothing is read from disk."""

    def __init__(self, num_images=1000, image_size=(224, 224, 3), num_classes=10, base_seed=0, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None, *,
                 seed=None):
        _unsupported("FakeImageDataset", [("cache", cache, None)])
        _pos_int32("num_images", num_images)
        if not isinstance(image_size, (list, tuple)):
            raise TypeError("Argument image_size with value %r is not of type [<class 'list'>, <class 'tuple'>], "
                            "but got %s." % (image_size, type(image_size)))
        if len(image_size) != 3:
            raise ValueError("image_size should be a list or tuple of length 3, but got %d" % len(image_size))
        for i, v in enumerate(image_size):
            _pos_int32("image_size[%d]" % i, v)
        _pos_int32("num_classes", num_classes)
        _int("base_seed", base_seed)
        args = {"layout": "fake_image", "dataset_dir": "", "num_images": num_images, "image_size": list(image_size),
                "num_classes": num_classes, "base_seed": base_seed}
        columns, rows, meta = _core.catalog_info(json.dumps(args))
        self._catalog_meta = json.loads(meta)
        leaf = {"node": "source", "kind": "catalog", "columns": list(columns), "name": "FakeImageDataset",
                "rows": rows, "args": args}
        self._init_leaf("FakeImageDataset", leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                        shard_id, seed)


_FLOWERS = [
    "pink primrose", "hard-leaved pocket orchid", "canterbury bells", "sweet pea", "english marigold", "tiger lily",
    "moon orchid", "bird of paradise", "monkshood", "globe thistle", "snapdragon", "colt's foot", "king protea",
    "spear thistle", "yellow iris", "globe-flower", "purple coneflower", "peruvian lily", "balloon flower",
    "giant white arum lily", "fire lily", "pincushion flower", "fritillary", "red ginger", "grape hyacinth",
    "corn poppy", "prince of wales feathers", "stemless gentian", "artichoke", "sweet william", "carnation",
    "garden phlox", "love in the mist", "mexican aster", "alpine sea holly", "ruby-lipped cattleya", "cape flower",
    "great masterwort", "siam tulip", "lenten rose", "barbeton daisy", "daffodil", "sword lily", "poinsettia",
    "bolero deep blue", "wallflower", "marigold", "buttercup", "oxeye daisy", "common dandelion", "petunia",
    "wild pansy", "primula", "sunflower", "pelargonium", "bishop of llandaff", "gaura", "geranium", "orange dahlia",
    "pink-yellow dahlia", "cautleya spicata", "japanese anemone", "black-eyed susan", "silverbush",
    "californian poppy", "osteospermum", "spring crocus", "bearded iris", "windflower", "tree poppy", "gazania",
    "azalea", "water lily", "rose", "thorn apple", "morning glory", "passion flower", "lotus", "toad lily",
    "anthurium", "frangipani", "clematis", "hibiscus", "columbine", "desert-rose", "tree mallow", "magnolia",
    "cyclamen", "watercress", "canna lily", "hippeastrum", "bee balm", "ball moss", "foxglove", "bougainvillea",
    "camellia", "mallow", "mexican petunia", "bromelia", "blanket flower", "trumpet creeper", "blackberry lily"]


def _need(kind, path):
    ok = os.path.isdir(path) if kind == "folder" else os.path.isfile(path)
    if not ok:
        if kind == "folder":
            raise ValueError("The folder %s does not exist or is not a directory or permission denied!" % path)
        raise ValueError("The file %s does not exist or permission denied!" % path)


class Flowers102Dataset(_CatalogDataset):
    """mindspore.dataset.Flowers102Dataset: Oxford 102 Flowers. jpg/
    images of setid.mat's trnid (usage "train"), valid ("valid"), tstid
    ("test"; "all": train, test, valid, as MindSpore's), labelled 0-101 by
    imagelabels.mat (int32; MindSpore's uint32); task "Segmentation" adds
    segmim/ segmentations: [image, segmentation, label]. The .mat files are
    read through libmatio."""

    def __init__(self, dataset_dir, task="Classification", usage="all", num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, *, seed=None):
        if isinstance(dataset_dir, str) and os.path.isdir(dataset_dir):
            _need("folder", os.path.join(dataset_dir, "jpg"))
            _need("file", os.path.join(dataset_dir, "imagelabels.mat"))
            _need("file", os.path.join(dataset_dir, "setid.mat"))
        usage = _choice("Flowers102Dataset", "usage", usage, "all", ("train", "valid", "test", "all"))
        task = _choice("Flowers102Dataset", "task", task, "Classification", ("Classification", "Segmentation"))
        if task == "Segmentation" and isinstance(dataset_dir, str):
            _need("folder", os.path.join(dataset_dir, "segmim"))
        self._init_catalog("Flowers102Dataset", "flowers102", dataset_dir, {"task": task, "usage": usage},
                           False if decode is None else decode, num_samples, num_parallel_workers, shuffle, sampler,
                           num_shards, shard_id, None, seed)

    def get_class_indexing(self):
        """MindSpore's: the 102 flower names, {name: label}."""
        return {name: i for i, name in enumerate(_FLOWERS)}


class Caltech101Dataset(_CatalogDataset):
    """mindspore.dataset.Caltech101Dataset: 101_ObjectCategories' folders
    sorted by name (BACKGROUND_Google left out), image_NNNN.jpg numbered by
    each folder's entry count, as MindSpore's. target_type "category"
    (None): [image, category (int64, the folder's place)]; "annotation":
    [image, annotation (float64 [2, points]: Annotations' obj_contour, x
    then y)]; "all": [image, category, annotation]. The .mat files are read
    through libmatio when their rows are."""

    def __init__(self, dataset_dir, target_type=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, *, seed=None):
        target_type = _choice("Caltech101Dataset", "target_type", target_type, "category",
                              ("category", "annotation", "all"))
        self._init_catalog("Caltech101Dataset", "caltech101", dataset_dir, {"target_type": target_type},
                           False if decode is None else decode, num_samples, num_parallel_workers, shuffle, sampler,
                           num_shards, shard_id, None, seed)


class SVHNDataset(_CatalogDataset):
    """mindspore.dataset.SVHNDataset: the cropped digits' MATLAB files
    {train,test,extra}_32x32.mat (usage "all", None: train, test, extra).
    Columns [image (uint8 32x32x3), label (int32; 10 read as 0, as
    MindSpore's; its uint32)]. MindSpore loads X whole with scipy; here each
    image is read when its row is (a compressed X through an index of its
    zlib stream, built once per file and process)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, *, seed=None):
        if usage is not None:
            usage = _choice("SVHNDataset", "usage", usage, None, ("train", "test", "extra", "all"))
            if isinstance(dataset_dir, str) and os.path.isdir(dataset_dir):
                for part in (("train", "test", "extra") if usage == "all" else (usage,)):
                    _need("file", os.path.realpath(os.path.join(dataset_dir, part + "_32x32.mat")))
        self._init_catalog("SVHNDataset", "svhn", dataset_dir, {"usage": usage or "all"}, False, num_samples,
                           num_parallel_workers, shuffle, sampler, num_shards, shard_id, None, seed)


class SBDataset(_CatalogDataset):
    """mindspore.dataset.SBDataset: the Semantic Boundaries Dataset. The ids
    of train.txt, val.txt or train_noval.txt (usage; "all": train then val)
    with img/ID.jpg and cls/ID.mat: columns [image, task], task "Boundaries"
    the 20 category boundary maps (bool [20, H, W]) or "Segmentation" the
    class map (uint8 [H, W]) of its GTcls struct (read through libmatio when
    the row is)."""

    def __init__(self, dataset_dir, task="Boundaries", usage="all", num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None, *, seed=None):
        usage = _choice("SBDataset", "usage", usage, "all", ("train", "val", "train_noval", "all"))
        task = _choice("SBDataset", "task", task, "Boundaries", ("Boundaries", "Segmentation"))
        self._init_catalog("SBDataset", "sb", dataset_dir, {"task": task, "usage": usage},
                           False if decode is None else decode, num_samples, num_parallel_workers, shuffle, sampler,
                           num_shards, shard_id, None, seed)


class PhotoTourDataset(_CatalogDataset):
    """mindspore.dataset.PhotoTourDataset: the patches of NAME/'s bitmaps
    (name "notredame", "yosemite", "liberty" or their "_harris" sets).
    usage "train" (None): [image (uint8 64x64x1)], a row per info.txt
    record; "test": [image1, image2, matches (int32 1 / 0; MindSpore's
    uint32)], a row per m50_100000_100000_0.txt record. A patch is cut from
    its bitmap when its row is read (the last 32 bitmaps decoded kept)."""

    _NAMES = ["notredame", "yosemite", "liberty", "notredame_harris", "yosemite_harris", "liberty_harris"]

    def __init__(self, dataset_dir, name, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        usage = _choice("PhotoTourDataset", "usage", usage, "train", ("train", "test"))
        if name is None:
            raise TypeError("Argument name with value None is not of type [<class 'str'>]")
        name = _choice("PhotoTourDataset", "name", name, None, self._NAMES)
        self._init_catalog("PhotoTourDataset", "photo_tour", dataset_dir, {"name": name, "usage": usage}, False,
                           num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache, seed)
