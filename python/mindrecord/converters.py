"""Converters with MindSpore's class names and arguments, over the C++
converters (writers/convert). Each transform() converts everything or leaves
no output behind and returns SUCCESS (0), as MindSpore's; the report (a dict:
outputs, rows, bytes, seconds, skipped, notes) is then the converter's
`report` attribute (convert() returns it directly). Notes starting with
"warning:" (e.g. a VOC box past the image edge, kept) are also issued as
UserWarning.

Extra keyword arguments of every converter map onto the C++ ConvertOptions:
workers (0 = all cores), overwrite, on_error ("fail" / "skip"), encode
("default", "keep", "jpeg", "png", "raw"), header_size, page_size,
batch_rows, resume.

Distributed conversion: under torchrun (RANK / WORLD_SIZE), in a process
that made a torch.distributed process group, or with rank= and world_size=,
each process writes its own shards of one dataset of `shards` (>= the
number of ranks) shards, the same bytes whatever the number of ranks; the
ranks exchange metadata through torch.distributed (all_gather_object; gloo
under torchrun). rank= and world_size= without a process group: each
process writes its shards as hidden parts and stops; one later call with
resume=True (and no ranks) finishes the dataset. resume=True also finishes
a conversion whose ranks failed or were killed, keeping the shards they
completed. rank=0, world_size=1 converts in this process alone, also in a
process group or under torchrun.

Thread safety: a converter object is used by one thread; converters writing
different outputs may run concurrently.
"""
import os
import tempfile
import warnings

from mindrecord import _core, config
from mindrecord._checks import check_filename

SUCCESS = 0

_OPTION_KEYS = {"workers", "overwrite", "on_error", "encode", "header_size", "page_size", "batch_rows", "resume",
                "rank", "world_size"}


class _TorchRanks:
    """The ranks of the default torch.distributed process group, as the C++
    converter talks to them: all_gather of bytes."""
    connected = True

    def __init__(self, dist):
        self._dist = dist
        self.rank = dist.get_rank()
        self.size = dist.get_world_size()

    def all_gather(self, data):
        out = [None] * self.size
        self._dist.all_gather_object(out, bytes(data))
        return out


class _LoneRanks:
    """Rank `rank` of `size` processes that cannot talk (size 1: alone)."""

    def __init__(self, rank, size):
        self.rank = rank
        self.size = size
        self.connected = size == 1

    def all_gather(self, data):
        if self.size != 1:
            raise RuntimeError("the ranks of this conversion cannot exchange messages")
        return [bytes(data)]


def _torch_distributed():
    try:
        import torch.distributed as dist
    except ImportError:
        return None
    return dist if dist.is_available() else None


def _check_rank_args(rank, world_size):
    if (rank is None) != (world_size is None):
        raise ValueError("rank and world_size go together")
    for name, v in (("rank", rank), ("world_size", world_size)):
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
            raise ValueError("%s must be an int >= 0, got %r" % (name, v))
    if world_size is not None and rank >= world_size:
        raise ValueError("rank %d must be below world_size %d" % (rank, world_size))


def _ranks(rank, world_size):
    """(the ranks object for _core.convert or None, the torch.distributed
    module when this call made its process group, else None)."""
    _check_rank_args(rank, world_size)
    if world_size == 1:  # this process alone, whatever group or launcher it is in
        return _LoneRanks(0, 1), None
    dist = _torch_distributed()
    if dist is not None and dist.is_initialized():
        ours = (dist.get_rank(), dist.get_world_size())
        if rank is not None and (rank, world_size) != ours:
            raise ValueError("rank=%d, world_size=%d disagree with the torch.distributed process group (rank %d of %d)"
                             % (rank, world_size, ours[0], ours[1]))
        return _TorchRanks(dist), None
    launch = _core.detect_launch()
    if rank is not None:
        if launch is not None and launch["size"] > 1 and (launch["rank"], launch["size"]) != (rank, world_size):
            raise ValueError("rank=%d, world_size=%d disagree with %s (rank %d of %d)"
                             % (rank, world_size, launch["by"], launch["rank"], launch["size"]))
        if launch is None or launch["size"] == 1:
            return _LoneRanks(rank, world_size), None
    if launch is None:
        return None, None
    if launch["size"] == 1:
        return _LoneRanks(0, 1), None
    if dist is not None and os.environ.get("MASTER_ADDR") and os.environ.get("MASTER_PORT"):
        # torchrun's env:// rendezvous (or the same variables set for srun / mpirun).
        dist.init_process_group("gloo", rank=launch["rank"], world_size=launch["size"])
        return _TorchRanks(dist), dist
    raise RuntimeError(
        "%s says this is rank %d of %d, but the ranks cannot reach each other: the Python API joins them through "
        "torch.distributed, which needs MASTER_ADDR and MASTER_PORT (torchrun sets them) or a process group made "
        "with torch.distributed.init_process_group; under mpirun or srun the `mindrecord convert` command joins "
        "them through MPI" % (launch["by"], launch["rank"], launch["size"]))


def _run_convert(source, input_path, output, options):
    opts = dict(options)
    # set_enc_key / set_hash_mode (mindrecord.config): the new files are
    # hashed and encrypted as FileWriter protects them.
    opts["protect"] = config._protects()
    group, made = _ranks(opts.pop("rank", None), opts.pop("world_size", None))
    if group is not None:
        opts["ranks"] = group
    try:
        return _warn_notes(_core.convert(source, input_path, output, opts))
    finally:
        if made is not None:
            made.destroy_process_group()


def _warn_notes(report):
    for note in report.get("notes", []):
        if note.startswith("warning: "):
            # convert()'s caller (for the converter classes, transform()).
            warnings.warn(note[len("warning: "):], UserWarning, stacklevel=4)
    return report


def convert(source: str, input_path: str, output: str, **options: object) -> dict[str, object]:
    """Runs the C++ converter `source` (one of convert_sources()) on INPUT."""
    bad = set(options) - _OPTION_KEYS - {"shards", "task", "split", "annotations", "image_dir", "panoptic_dir", "classes",
                                         "fields", "csv_delimiter", "infer_records", "strict_boxes", "csv_columns"}
    if bad:
        raise ValueError("unknown convert option(s): %s" % ", ".join(sorted(bad)))
    return _run_convert(source, input_path, output, options)


def convert_sources() -> list[str]:
    return list(_core.convert_sources())


def _check_str(name, value):
    if not isinstance(value, str) or not value:
        raise ValueError("%s must be a non-empty str" % name)


def _check_partitions(n):
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 1000:
        raise ValueError("partition_number must be an int in [1, 1000], got %r" % (n,))


def _check_index_fields(fields, default):
    if fields is not None and list(fields) != list(default):
        raise ValueError("this converter indexes %s; other index fields are not supported" % (default,))


class _Converter:
    _source: str | None = None

    def __init__(self, source: str, destination: str, partition_number: int = 1, **options: object) -> None:
        _check_str("source", source)
        _check_str("destination", destination)
        check_filename(destination)
        _check_partitions(partition_number)
        bad = set(options) - _OPTION_KEYS
        if bad:
            raise ValueError("unknown option(s): %s" % ", ".join(sorted(bad)))
        self.source = source
        self.destination = destination
        self.partition_number = partition_number
        self._options = dict(options)
        self.report: dict[str, object] | None = None  # the last transform()'s report

    def _run(self, source_kind, input_path, **extra):
        opts = dict(self._options)
        opts.update(extra)
        opts["shards"] = self.partition_number
        self.report = _run_convert(source_kind, input_path, self.destination, opts)
        return SUCCESS

    def transform(self) -> int:
        """Converts; returns SUCCESS (the report is `self.report`)."""
        return self._run(self._source, self.source)

    def run(self) -> int:
        return self.transform()


class MnistToMR(_Converter):
    """MNIST idx files (train-/t10k- images and labels, gzipped) in `source`
    -> DEST_train.mindrecord and DEST_test.mindrecord (a ".mindrecord" suffix
    of `destination` is dropped first); fields image (JPEG bytes), label."""
    _source = "mnist"


class Cifar10ToMR(_Converter):
    """CIFAR-10 python pickles in `source` -> the datasets DEST (train) and
    DEST_test (test), as MindSpore names them; fields id, data (JPEG bytes),
    label."""
    _source = "cifar10"

    def __init__(self, source: str, destination: str, **options: object) -> None:
        super().__init__(source, destination, 1, **options)

    def _cifar(self):
        return self._run(self._source, self.source,
                         split_outputs={"train": self.destination, "test": self.destination + "_test"})

    def transform(self, fields=None):
        _check_index_fields(fields, ["label"])
        return self._cifar()


class Cifar100ToMR(Cifar10ToMR):
    """CIFAR-100 python pickles -> DEST_train / DEST_test; fields id, data,
    fine_label, coarse_label."""
    _source = "cifar100"

    def transform(self, fields=None):
        _check_index_fields(fields, ["fine_label", "coarse_label"])
        return self._cifar()


class ImageFolderToMR(_Converter):
    """`source`/<class>/<image> -> one dataset; labels are the classes in
    sorted order (the map is in the schema description)."""
    _source = "imagefolder"


class ImageNetToMR(_Converter):
    """MindSpore's ImageNetToMR(map_file, image_dir, destination,
    partition_number): `map_file` lines are "<subdir> <label>" naming
    folders of `image_dir`. Map files listing images directly ("file,label")
    are accepted too."""

    def __init__(self, map_file: str, image_dir: str, destination: str, partition_number: int = 1,
                 **options: object) -> None:
        _check_str("map_file", map_file)
        _check_str("image_dir", image_dir)
        super().__init__(image_dir, destination, partition_number, **options)
        self.map_file = map_file
        self.image_dir = image_dir

    def transform(self):
        entries = []
        with open(self.map_file, encoding="utf-8") as f:
            lines = [ln.strip() for ln in f if ln.strip()]
        folder_map = all(len(ln.split()) == 2 and os.path.isdir(os.path.join(self.image_dir, ln.split()[0]))
                         for ln in lines)
        if not folder_map:
            return self._run("imagenet", self.image_dir, annotations=self.map_file, image_dir=self.image_dir)
        for ln in lines:
            sub, label = ln.split()
            for name in sorted(os.listdir(os.path.join(self.image_dir, sub))):
                if os.path.isfile(os.path.join(self.image_dir, sub, name)):
                    entries.append("%s/%s,%s" % (sub, name, label))
        fd, tmp = tempfile.mkstemp(suffix=".txt", prefix="imagenet_map_")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write("\n".join(entries) + "\n")
            return self._run("imagenet", self.image_dir, annotations=tmp, image_dir=self.image_dir)
        finally:
            os.unlink(tmp)


class CsvToMR(_Converter):
    """A CSV file with a header row -> one dataset. `columns_list` selects
    the columns (default: all); their types are inferred from all rows as
    MindSpore's CsvToMR infers them (True/False columns as int32 1/0, then
    int64, float64, string), unless `fields` ("name:type,...") gives them."""

    def __init__(self, source: str, destination: str, columns_list: list[str] | None = None, partition_number: int = 1,
                 fields: str | None = None, delimiter: str = ",", **options: object) -> None:
        super().__init__(source, destination, partition_number, **options)
        if columns_list is not None and not all(isinstance(c, str) for c in columns_list):
            raise ValueError("columns_list must be a list of str")
        self.columns_list = columns_list
        self.fields = fields
        self.delimiter = delimiter

    def transform(self):
        extra = {"csv_delimiter": self.delimiter}
        if self.fields:
            if self.columns_list:
                raise ValueError("give columns_list or fields, not both (fields lists the columns with types)")
            extra["fields"] = self.fields
        elif self.columns_list:
            extra["csv_columns"] = list(self.columns_list)
        return self._run("csv", self.source, **extra)


_TF_TYPES = {"int64": "int64", "float32": "float32", "float": "float32", "string": "string", "bytes": "bytes"}


class TFRecordToMR(_Converter):
    """A TFRecord file of tf.train.Example -> one dataset.

    `feature_dict` maps feature names to tf.io.FixedLenFeature objects (any
    object with .dtype and .shape) or to type names ("int64", "float32",
    "string", "bytes", optionally with a shape: ("int64", [-1])). Names in
    `bytes_fields` are stored as bytes; other string features as str.
    None infers the features from the first records."""

    def __init__(self, source: str, destination: str, feature_dict: dict | None = None,
                 bytes_fields: list[str] | None = None, **options: object) -> None:
        super().__init__(source, destination, 1, **options)
        self.feature_dict = feature_dict
        self.bytes_fields = set(bytes_fields or [])

    def _spec(self):
        parts = []
        for name, feat in self.feature_dict.items():
            shape = None
            if isinstance(feat, str):
                kind = feat
            elif isinstance(feat, (tuple, list)):
                kind, shape = feat[0], list(feat[1])
            else:
                kind = getattr(feat.dtype, "name", str(feat.dtype))
                shape = list(getattr(feat, "shape", []) or [])
            if kind not in _TF_TYPES:
                raise ValueError("feature '%s': unsupported type %r" % (name, kind))
            kind = _TF_TYPES[kind]
            if kind == "string" and name in self.bytes_fields:
                kind = "bytes"
            text = "%s:%s" % (name, kind)
            if shape and kind not in ("string", "bytes"):
                text += ":[" + ",".join(str(int(d)) for d in shape) + "]"
            parts.append(text)
        return ",".join(parts)

    def transform(self):
        extra = {}
        if self.feature_dict:
            extra["fields"] = self._spec()
        return self._run("tfrecord", self.source, **extra)


class VOCToMR(_Converter):
    """PASCAL VOC layout -> one dataset for `split` (an ImageSets list) and
    `task` ("detection" or "segmentation"); labels follow `classes`. A box
    that runs past the image edge is kept, with a UserWarning naming the
    file (MindSpore keeps such boxes: it checks only that xmax > xmin and
    ymax > ymin); `strict_boxes=True` refuses it instead."""

    def __init__(self, source: str, destination: str, task: str = "detection", split: str = "train",
                 classes: list[str] | None = None, partition_number: int = 1, strict_boxes: bool = False,
                 **options: object) -> None:
        super().__init__(source, destination, partition_number, **options)
        if not isinstance(strict_boxes, bool):
            raise ValueError("strict_boxes must be True or False, got %r" % (strict_boxes,))
        self.task, self.split, self.classes, self.strict_boxes = task, split, classes, strict_boxes

    def transform(self):
        extra = {"task": self.task, "split": self.split, "strict_boxes": self.strict_boxes}
        if self.classes:
            extra["classes"] = list(self.classes)
        return self._run("voc", self.source, **extra)


class CocoToMR(_Converter):
    """COCO images in `source` + annotation JSON -> one dataset for `task`
    ("detection", "keypoint", "panoptic", "captioning"). For "panoptic",
    `panoptic_dir` is the folder of panoptic PNGs (default: beside the JSON,
    named after it)."""

    def __init__(self, source: str, annotation_file: str, destination: str, task: str = "detection",
                 partition_number: int = 1, panoptic_dir: str | None = None, **options: object) -> None:
        _check_str("annotation_file", annotation_file)
        super().__init__(source, destination, partition_number, **options)
        self.annotation_file, self.task, self.panoptic_dir = annotation_file, task, panoptic_dir

    def transform(self):
        extra = {"annotations": self.annotation_file, "task": self.task}
        if self.panoptic_dir:
            extra["panoptic_dir"] = self.panoptic_dir
        return self._run("coco", self.source, **extra)


COCOToMR = CocoToMR
