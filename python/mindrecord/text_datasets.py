"""MindSpore's text dataset loaders over the CSV and text-file sources:
AGNewsDataset, AmazonReviewDataset, DBpediaDataset, YahooAnswersDataset,
YelpReviewDataset and SogouNewsDataset (the records of the folder's
train.csv / test.csv, no header, every column a string, MindSpore's column
names), PennTreebankDataset and WikiTextDataset (the non-empty lines of
the folder's split files, column "text"), EnWik9Dataset (every line of
its enwik9 file, empty ones too), CoNLL2000Dataset and UDPOSDataset
(tagged sentences, pipeline/nodes/tagged_source.h), CLUEDataset (JSON
lines, pipeline/nodes/clue_source.h) and IMDBDataset (a review per file of the
pos / neg folders, pipeline/nodes/imdb_source.h).

`usage` picks the split ("all", the default, reads every split's file in
MindSpore's order: sorted by path, except Yelp and Sogou, train then test).
The other arguments are MindSpore's, in its order (Yelp, Sogou: shuffle
before num_shards), and behave as CSVDataset's / TextFileDataset's. A split
file that is missing is a NotFoundError naming it.

Thread safety: as MindDataset.
"""
import os

from mindrecord import _core
from mindrecord.csv_dataset import CSVDataset
from mindrecord.exceptions import NotFoundError
from mindrecord.raw_datasets import _RawDataset
from mindrecord.samplers import Shuffle
from mindrecord.text_file_dataset import TextFileDataset, file_shuffle_mode, find_files

__all__ = ["AGNewsDataset", "AmazonReviewDataset", "CLUEDataset", "CoNLL2000Dataset", "DBpediaDataset", "EnWik9Dataset",
           "IMDBDataset", "PennTreebankDataset", "UDPOSDataset",
           "SogouNewsDataset", "WikiTextDataset", "YahooAnswersDataset", "YelpReviewDataset"]

_TRAIN_TEST = {"train": "train.csv", "test": "test.csv"}


def _split_files(loader, dataset_dir, usage, files, sort=True):
    """The absolute paths of `usage`'s files ({usage: file name}), in
    MindSpore's order: sorted by path, or as listed."""
    if not isinstance(dataset_dir, str):
        raise TypeError("%s: dataset_dir must be a str (a folder path), got %r" % (loader, dataset_dir))
    if not dataset_dir or not os.path.isdir(dataset_dir):
        raise ValueError("%s: dataset_dir %r is not a folder" % (loader, dataset_dir))
    usage = "all" if usage is None else usage
    if usage != "all" and usage not in files:
        raise ValueError("%s: Input usage is not within the valid set of %s, got %r"
                         % (loader, list(files) + ["all"], usage))
    paths = [os.path.abspath(os.path.join(dataset_dir, name)) for u, name in files.items() if usage in ("all", u)]
    if sort:
        paths.sort()
    for p in paths:
        if not os.path.isfile(p):
            raise NotFoundError("%s: %s is missing (usage %r)" % (loader, p, usage))
    return paths


class _CsvTextDataset(CSVDataset):
    """A folder of train.csv / test.csv records with fixed string columns."""

    _columns: list[str] = []
    _sorted = True

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None, *, seed=None):
        loader = type(self).__name__
        if cache is not None:
            raise NotImplementedError("%s(cache=...) is not supported by mindrecord; only None" % loader)
        files = _split_files(loader, dataset_dir, usage, _TRAIN_TEST, self._sorted)
        names = list(self._columns)
        self._init_csv(loader, files, ",", names, False, ["string"] * len(names), num_samples,
                       num_parallel_workers, shuffle, num_shards, shard_id, seed)


class AGNewsDataset(_CsvTextDataset):
    """mindspore.dataset.AGNewsDataset: columns [index, title, description]."""

    _columns = ["index", "title", "description"]


class AmazonReviewDataset(_CsvTextDataset):
    """mindspore.dataset.AmazonReviewDataset: columns [label, title, content]."""

    _columns = ["label", "title", "content"]


class DBpediaDataset(_CsvTextDataset):
    """mindspore.dataset.DBpediaDataset: columns [class, title, content]."""

    _columns = ["class", "title", "content"]


class YahooAnswersDataset(_CsvTextDataset):
    """mindspore.dataset.YahooAnswersDataset: columns [class, title, content, answer]."""

    _columns = ["class", "title", "content", "answer"]


class _TrainThenTest(_CsvTextDataset):
    """MindSpore's argument order for Yelp and Sogou; "all" reads train.csv, then test.csv."""

    _sorted = False

    def __init__(self, dataset_dir, usage=None, num_samples=None, shuffle=Shuffle.GLOBAL, num_shards=None,
                 shard_id=None, num_parallel_workers=None, cache=None, *, seed=None):
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache,
                         seed=seed)


class YelpReviewDataset(_TrainThenTest):
    """mindspore.dataset.YelpReviewDataset: columns [label, text]."""

    _columns = ["label", "text"]


class SogouNewsDataset(_TrainThenTest):
    """mindspore.dataset.SogouNewsDataset: columns [index, title, content]."""

    _columns = ["index", "title", "content"]


class _LinesDataset(TextFileDataset):
    """A folder of split files read as non-empty lines."""

    _files: dict[str, str] = {}

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None, *, seed=None):
        loader = type(self).__name__
        if cache is not None:
            raise NotImplementedError("%s(cache=...) is not supported by mindrecord; only None" % loader)
        files = _split_files(loader, dataset_dir, usage, self._files)
        self._init_text(loader, files, num_samples, num_parallel_workers, shuffle, num_shards, shard_id, seed)


class EnWik9Dataset(TextFileDataset):
    """mindspore.dataset.EnWik9Dataset: every line of the folder's enwik9
    file, empty ones too (MindSpore's), column [text]; shuffle=True (global)
    by default, as MindSpore's."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=True, num_shards=None,
                 shard_id=None, cache=None, *, seed=None):
        if cache is not None:
            raise NotImplementedError("EnWik9Dataset(cache=...) is not supported by mindrecord; only None")
        files = _split_files("EnWik9Dataset", dataset_dir, "all", {"all": "enwik9"})
        self._init_text("EnWik9Dataset", files, num_samples, num_parallel_workers, shuffle, num_shards, shard_id, seed,
                        empty_lines=True)


class PennTreebankDataset(_LinesDataset):
    """mindspore.dataset.PennTreebankDataset: the lines of ptb.{train,valid,test}.txt, column [text]."""

    _files = {"train": "ptb.train.txt", "valid": "ptb.valid.txt", "test": "ptb.test.txt"}


class WikiTextDataset(_LinesDataset):
    """mindspore.dataset.WikiTextDataset: the lines of wiki.{train,valid,test}.tokens, column [text]."""

    _files = {"train": "wiki.train.tokens", "valid": "wiki.valid.tokens", "test": "wiki.test.tokens"}


class _TaggedDataset(TextFileDataset):
    """Tagged sentences (pipeline/nodes/tagged_source.h): a row per sentence,
    three 1-D string arrays of its tokens' fields."""

    _files: dict[str, str] = {}
    _columns: list[str] = []
    _delimiter = " "

    def __init__(self, dataset_dir, usage=None, num_samples=None, shuffle=Shuffle.GLOBAL, num_shards=None,
                 shard_id=None, num_parallel_workers=None, cache=None, *, seed=None):
        loader = type(self).__name__
        if cache is not None:
            raise NotImplementedError("%s(cache=...) is not supported by mindrecord; only None" % loader)
        files = _split_files(loader, dataset_dir, usage, self._files)
        mode = file_shuffle_mode(loader, shuffle)
        rows = sum(_core.tagged_sentences(files))
        leaf = {"node": "source", "kind": "tagged", "columns": list(self._columns), "rows": rows, "name": loader,
                "args": {"files": files, "delimiter": self._delimiter}}
        self._init_leaf(loader, leaf, num_samples, num_parallel_workers, shuffle, None, num_shards, shard_id, seed,
                        mode=mode)


class CoNLL2000Dataset(_TaggedDataset):
    """mindspore.dataset.CoNLL2000Dataset: the sentences of train.txt /
    test.txt (space-separated fields), columns [word, pos_tag, chunk_tag]."""

    _files = {"train": "train.txt", "test": "test.txt"}
    _columns = ["word", "pos_tag", "chunk_tag"]


class UDPOSDataset(_TaggedDataset):
    """mindspore.dataset.UDPOSDataset: the sentences of
    en-ud-tag.v2.{train,dev,test}.txt (usage valid: dev; tab-separated
    fields), columns [word, universal, stanford]."""

    _files = {"train": "en-ud-tag.v2.train.txt", "valid": "en-ud-tag.v2.dev.txt", "test": "en-ud-tag.v2.test.txt"}
    _columns = ["word", "universal", "stanford"]
    _delimiter = "\t"


# CLUE's columns per task and usage, in MindSpore's order (sorted by name).
_CLUE_COLUMNS = {
    ("AFQMC", "train"): ["label", "sentence1", "sentence2"],
    ("AFQMC", "test"): ["id", "sentence1", "sentence2"],
    ("TNEWS", "train"): ["keywords", "label", "label_desc", "sentence"],
    ("TNEWS", "test"): ["id", "keywords", "sentence"],
    ("IFLYTEK", "train"): ["label", "label_des", "sentence"],
    ("IFLYTEK", "test"): ["id", "sentence"],
    ("WSC", "train"): ["idx", "label", "span1_index", "span1_text", "span2_index", "span2_text", "text"],
    ("WSC", "test"): ["idx", "span1_index", "span1_text", "span2_index", "span2_text", "text"],
    ("CSL", "train"): ["abst", "id", "keyword", "label"],
    ("CSL", "test"): ["abst", "id", "keyword"],
}
_CLUE_COLUMNS[("CMNLI", "train")] = _CLUE_COLUMNS[("AFQMC", "train")]
_CLUE_COLUMNS[("CMNLI", "test")] = _CLUE_COLUMNS[("AFQMC", "test")]


class CLUEDataset(TextFileDataset):
    """mindspore.dataset.CLUEDataset: each non-empty line of `dataset_files`
    (paths or glob patterns; the files sorted by name) a JSON object, a row
    of the task's columns (AFQMC, TNEWS, IFLYTEK, CMNLI, WSC, CSL; usage
    "train", "eval" (as train) or "test"), sorted by name as MindSpore's;
    each value of its JSON type (strings stay strings, integers int32,
    arrays of strings 1-D string arrays). pipeline/nodes/clue_source.h."""

    def __init__(self, dataset_files, task="AFQMC", usage="train", num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None, *, seed=None):
        if cache is not None:
            raise NotImplementedError("CLUEDataset(cache=...) is not supported by mindrecord; only None")
        if task not in ("AFQMC", "TNEWS", "IFLYTEK", "CMNLI", "WSC", "CSL"):
            raise ValueError("task should be 'AFQMC', 'TNEWS', 'IFLYTEK', 'CMNLI', 'WSC' or 'CSL'.")
        if usage not in ("train", "test", "eval"):
            raise ValueError("usage should be 'train', 'test' or 'eval'.")
        if not dataset_files:
            raise ValueError("Input dataset_files can not be empty, but got %r." % (dataset_files,))
        files = [os.path.abspath(f) for f in find_files(dataset_files)]
        columns = _CLUE_COLUMNS[(task, "test" if usage == "test" else "train")]
        nested = [c for c in columns if c.startswith("span")] if task == "WSC" else []
        mode = file_shuffle_mode("CLUEDataset", shuffle)
        rows = sum(_core.text_file_lines(files))
        leaf = {"node": "source", "kind": "clue", "columns": columns, "rows": rows, "name": "CLUEDataset",
                "args": {"files": files, "nested": nested}}
        self._init_leaf("CLUEDataset", leaf, num_samples, num_parallel_workers, shuffle, None, num_shards, shard_id,
                        seed, mode=mode)


class IMDBDataset(_RawDataset):
    """mindspore.dataset.IMDBDataset: columns [text (the file's last
    non-empty line), label (int32: pos 1, neg 0)]; rows in MindSpore's order
    (train then test; pos then neg; files by name); `usage` "train", "test" or
    "all" (None). A mappable dataset: `sampler`, `shuffle` (None shuffles)
    and num_shards / shard_id as the raw-format loaders'."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        if cache is not None:
            raise NotImplementedError("IMDBDataset(cache=...) is not supported by mindrecord; only None")
        if not isinstance(dataset_dir, str):
            raise TypeError("IMDBDataset: dataset_dir must be a str (a folder path), got %r" % (dataset_dir,))
        if not dataset_dir or not os.path.isdir(dataset_dir):
            raise ValueError("IMDBDataset: dataset_dir %r is not a folder" % (dataset_dir,))
        usage = "all" if usage is None else usage
        if usage not in ("train", "test", "all"):
            raise ValueError("IMDBDataset: Input usage is not within the valid set of ['train', 'test', 'all'], "
                             "got %r" % (usage,))
        directory = os.path.abspath(dataset_dir)
        leaf = {"node": "source", "kind": "imdb", "columns": ["text", "label"], "name": "IMDBDataset",
                "rows": _core.imdb_files(directory, usage), "args": {"dataset_dir": directory, "usage": usage}}
        self._init_leaf("IMDBDataset", leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                        shard_id, seed)
