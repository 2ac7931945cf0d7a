"""MindSpore's text dataset loaders (AGNews, AmazonReview, DBpedia,
YahooAnswers, YelpReview, SogouNews, PennTreebank, WikiText), written as
MindSpore code with only the import changed, over folders written here:
columns, the files each usage reads and their order, CSV quoting, shards and
samples, and the errors."""
import shutil

import numpy as np
import pytest

import mindrecord
import mindrecord.dataset as ds

CSV_LOADERS = {
    "AGNewsDataset": ["index", "title", "description"],
    "AmazonReviewDataset": ["label", "title", "content"],
    "DBpediaDataset": ["class", "title", "content"],
    "YahooAnswersDataset": ["class", "title", "content", "answer"],
    "YelpReviewDataset": ["label", "text"],
    "SogouNewsDataset": ["index", "title", "content"],
}


def csv_line(values):
    return ",".join('"%s"' % v.replace('"', '""') for v in values) + "\n"


def write_split(folder, name, rows):
    folder.mkdir(exist_ok=True)
    (folder / name).write_text("".join(csv_line(r) for r in rows), encoding="utf-8")


def split_rows(split, n_cols, count):
    return [["%s%d" % (split, i)] + ["%s %d, col %d" % (split, i, c) for c in range(1, n_cols)]
            for i in range(count)]


def values(data, column):
    return [str(r[column]) for r in data.create_dict_iterator(num_epochs=1, output_numpy=True)]


@pytest.mark.parametrize("loader", sorted(CSV_LOADERS))
def test_csv_loaders_read_their_splits_in_mindspores_order(tmp_path, loader):
    cols = CSV_LOADERS[loader]
    write_split(tmp_path, "train.csv", split_rows("train", len(cols), 3))
    write_split(tmp_path, "test.csv", split_rows("test", len(cols), 2))
    cls = getattr(ds, loader)
    assert cls is getattr(mindrecord, loader)
    data = cls(str(tmp_path), usage="train", shuffle=False)
    assert data.get_col_names() == cols
    rows = list(data.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert [[str(r[c]) for c in cols] for r in rows] == split_rows("train", len(cols), 3)
    assert values(cls(str(tmp_path), usage="test", shuffle=False), cols[0]) == ["test0", "test1"]
    # "all": sorted paths (test.csv first), except Yelp and Sogou (train.csv first).
    train_first = loader in ("YelpReviewDataset", "SogouNewsDataset")
    want = (["train0", "train1", "train2", "test0", "test1"] if train_first
            else ["test0", "test1", "train0", "train1", "train2"])
    assert values(cls(str(tmp_path), shuffle=False), cols[0]) == want
    assert cls(str(tmp_path)).get_dataset_size() == 5
    shuffled = values(cls(str(tmp_path), seed=3), cols[0])
    assert sorted(shuffled) == sorted(want)


def test_yelp_and_sogou_take_mindspores_argument_order(tmp_path):
    write_split(tmp_path, "train.csv", split_rows("train", 2, 4))
    write_split(tmp_path, "test.csv", split_rows("test", 2, 1))
    # YelpReviewDataset(dataset_dir, usage, num_samples, shuffle, num_shards, shard_id, num_parallel_workers)
    data = ds.YelpReviewDataset(str(tmp_path), "train", 3, False, 1, 0, 2)
    assert values(data, "label") == ["train0", "train1", "train2"]
    shards = [values(ds.YelpReviewDataset(str(tmp_path), "train", None, False, 2, k), "label") for k in range(2)]
    assert sorted(shards[0] + shards[1]) == ["train0", "train1", "train2", "train3"]


def test_quoted_fields_keep_commas_line_ends_and_quotes(tmp_path):
    (tmp_path / "train.csv").write_text('"3","Wall St. ""Bears""","a, b\nc"\r\n"4","plain",x\n', encoding="utf-8")
    data = ds.AGNewsDataset(str(tmp_path), usage="train", shuffle=False)
    rows = list(data.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert [(str(r["index"]), str(r["title"]), str(r["description"])) for r in rows] == [
        ("3", 'Wall St. "Bears"', "a, b\nc"), ("4", "plain", "x")]
    assert rows[0]["title"].dtype.kind == "U"


def test_csv_loader_errors_name_the_file(tmp_path):
    with pytest.raises(ValueError, match="not a folder"):
        ds.AGNewsDataset(str(tmp_path / "none"))
    with pytest.raises(TypeError, match="dataset_dir must be a str"):
        ds.DBpediaDataset(tmp_path)
    write_split(tmp_path, "train.csv", split_rows("train", 3, 2))
    with pytest.raises(mindrecord.NotFoundError, match=r"test.csv is missing"):
        ds.AGNewsDataset(str(tmp_path))  # "all" needs both files
    with pytest.raises(ValueError, match="Input usage is not within the valid set"):
        ds.AGNewsDataset(str(tmp_path), usage="valid")
    with pytest.raises(NotImplementedError, match="cache"):
        ds.AGNewsDataset(str(tmp_path), usage="train", cache=object())
    # A record of the wrong field count stops the pipeline naming the file and row, once.
    with pytest.raises(RuntimeError, match=r"train.csv.*3 field\(s\), the columns are 2") as e:
        list(ds.YelpReviewDataset(str(tmp_path), usage="train", shuffle=False))
    assert str(e.value).count("train.csv") == 1


LINE_LOADERS = {
    "PennTreebankDataset": {"train": "ptb.train.txt", "valid": "ptb.valid.txt", "test": "ptb.test.txt"},
    "WikiTextDataset": {"train": "wiki.train.tokens", "valid": "wiki.valid.tokens", "test": "wiki.test.tokens"},
}


@pytest.mark.parametrize("loader", sorted(LINE_LOADERS))
def test_line_loaders_read_non_empty_lines_of_their_splits(tmp_path, loader):
    for split, name in LINE_LOADERS[loader].items():
        (tmp_path / name).write_text(" %s one \n\n = %s two =\r\n \n" % (split, split), encoding="utf-8")
    cls = getattr(ds, loader)
    data = cls(str(tmp_path), usage="valid", shuffle=False)
    assert data.get_col_names() == ["text"]
    # Empty lines are skipped; spaces, a line of spaces and '\r' are kept, as MindSpore's TextFileOp.
    assert values(data, "text") == [" valid one ", " = valid two =\r", " "]
    everything = values(cls(str(tmp_path), shuffle=False), "text")
    assert everything[0::3] == [" test one ", " train one ", " valid one "]  # sorted paths: test, train, valid
    assert cls(str(tmp_path), num_samples=4).get_dataset_size() == 4
    sizes = [cls(str(tmp_path), num_shards=2, shard_id=k).get_dataset_size() for k in range(2)]
    assert sizes == [5, 5]  # 9 lines: ceil(9 / 2) each, as MindSpore pads the last shard
    with pytest.raises(ValueError, match="Input usage is not within the valid set"):
        cls(str(tmp_path), usage="dev")
    (tmp_path / LINE_LOADERS[loader]["test"]).unlink()
    with pytest.raises(mindrecord.NotFoundError, match=LINE_LOADERS[loader]["test"].replace(".", r"\.")):
        cls(str(tmp_path))
    assert values(cls(str(tmp_path), usage="train", shuffle=False), "text")[:1] == [" train one "]


def test_a_text_loader_feeds_a_tokenizer_and_vocab(tmp_path):
    write_split(tmp_path, "train.csv", [["1", "good film", "really good"], ["2", "bad film", "not good"]])
    data = ds.AGNewsDataset(str(tmp_path), usage="train", shuffle=False)
    data = data.map(mindrecord.text.WhitespaceTokenizer(), input_columns="description")
    vocab = mindrecord.text.Vocab.from_dataset(data, columns="description")
    ids = data.map(mindrecord.text.Lookup(vocab), input_columns="description")
    got = [r["description"] for r in ids.create_dict_iterator(num_epochs=1, output_numpy=True)]
    words = vocab.vocab()
    assert [list(g) for g in got] == [[words["really"], words["good"]], [words["not"], words["good"]]]
    assert all(g.dtype == np.int32 for g in got)


def test_enwik9_keeps_empty_lines(tmp_path):
    (tmp_path / "enwik9").write_bytes(b"<mediawiki>\n\n  <page>\n\n\nend")
    data = ds.EnWik9Dataset(str(tmp_path), shuffle=False)
    # Every line a row, empty ones too; a last line without '\n' is one; MindSpore's getline loop.
    assert values(data, "text") == ["<mediawiki>", "", "  <page>", "", "", "end"]
    assert ds.EnWik9Dataset(str(tmp_path)).get_dataset_size() == 6
    assert sorted(values(ds.EnWik9Dataset(str(tmp_path), seed=1), "text")) == sorted(values(data, "text"))
    (tmp_path / "enwik9").write_bytes(b"a\n\n")
    assert values(ds.EnWik9Dataset(str(tmp_path), shuffle=False), "text") == ["a", ""]
    # The same file through TextFileDataset: empty lines are no rows there.
    assert values(ds.TextFileDataset(str(tmp_path / "enwik9"), shuffle=False), "text") == ["a"]
    with pytest.raises(mindrecord.NotFoundError, match="enwik9 is missing"):
        ds.EnWik9Dataset(str(tmp_path / ".."))


def imdb_folder(root):
    reviews = {}
    for usage in ("train", "test"):
        for label in ("pos", "neg"):
            d = root / usage / label
            d.mkdir(parents=True)
            for name in ("10_9.txt", "1_7.txt", "2_8.txt"):
                text = "%s %s %s<br />great" % (usage, label, name)
                (d / name).write_text(text, encoding="utf-8")
                reviews[str(d / name)] = text
    return reviews


def test_imdb_rows_labels_and_order(tmp_path):
    imdb_folder(tmp_path)
    data = ds.IMDBDataset(str(tmp_path), usage="all", shuffle=False)
    assert data.get_col_names() == ["text", "label"]
    rows = list(data.create_dict_iterator(num_epochs=1, output_numpy=True))
    # train then test, pos (1) then neg (0), names in byte order ("10_9" before "1_7").
    want = [("%s %s %s<br />great" % (u, lab, n), 1 if lab == "pos" else 0)
            for u in ("train", "test") for lab in ("pos", "neg") for n in ("10_9.txt", "1_7.txt", "2_8.txt")]
    assert [(str(r["text"]), int(r["label"])) for r in rows] == want
    assert rows[0]["label"].dtype == np.int32
    assert ds.IMDBDataset(str(tmp_path), usage="test").get_dataset_size() == 6
    shuffled = [str(r["text"]) for r in ds.IMDBDataset(str(tmp_path), usage="train", seed=4)
                .create_dict_iterator(output_numpy=True)]
    assert sorted(shuffled) == sorted(t for t, _ in want[:6])
    sub = ds.IMDBDataset(str(tmp_path), usage="train", sampler=ds.SubsetSampler([5, 0]))
    assert [int(r["label"]) for r in sub.create_dict_iterator(output_numpy=True)] == [0, 1]
    shards = [ds.IMDBDataset(str(tmp_path), usage="train", num_shards=4, shard_id=k).get_dataset_size()
              for k in range(4)]
    assert shards == [2, 2, 2, 2]


def test_imdb_text_is_the_last_non_empty_line_and_bad_files_name_themselves(tmp_path):
    imdb_folder(tmp_path)
    pos = tmp_path / "train" / "pos"
    (pos / "1_7.txt").write_bytes(b"first line\r\nsecond line\r\n\n\n")
    (pos / "2_8.txt").write_bytes(b"")
    (pos / "sub").mkdir()  # not a file: not a row
    rows = list(ds.IMDBDataset(str(tmp_path), usage="train", shuffle=False).create_dict_iterator(output_numpy=True))
    assert [str(r["text"]) for r in rows[1:3]] == ["second line\r", ""]
    assert len(rows) == 6
    (pos / "10_9.txt").write_bytes(b"caf\xe9")
    with pytest.raises(mindrecord.CorruptionError, match=r"10_9.txt: the review is not UTF-8"):
        list(ds.IMDBDataset(str(tmp_path), usage="train", shuffle=False))
    (tmp_path / "test" / "neg" / "1_7.txt").unlink()
    data = ds.IMDBDataset(str(tmp_path), usage="test")
    (tmp_path / "test" / "neg" / "3_3.txt").write_text("x")
    (tmp_path / "test" / "neg" / "4_3.txt").write_text("y")
    with pytest.raises(RuntimeError, match="a folder changed"):
        list(data)
    shutil.rmtree(tmp_path / "test" / "pos")
    with pytest.raises(mindrecord.NotFoundError, match=r"test/pos is not a folder"):
        ds.IMDBDataset(str(tmp_path))
    with pytest.raises(ValueError, match="usage"):
        ds.IMDBDataset(str(tmp_path), usage="unsup")
    with pytest.raises(TypeError, match="shuffle must be a bool"):
        ds.IMDBDataset(str(tmp_path), usage="train", shuffle=ds.Shuffle.GLOBAL)


CONLL_TRAIN = "Confidence NN B-NP\nin IN B-PP\n\n \nChancellor NNP O\r\nof IN B-PP x\n\n"
CONLL_TEST = "Rockwell NNP B-NP\nsaid VBD B-VP\n\nThe DT B-NP"  # no blank line after the last sentence


def tags(data):
    return [tuple(list(map(str, r[c])) for c in data.get_col_names())
            for r in data.create_dict_iterator(num_epochs=1, output_numpy=True)]


def test_conll2000_sentences_as_token_arrays(tmp_path):
    (tmp_path / "train.txt").write_text(CONLL_TRAIN, encoding="utf-8")
    (tmp_path / "test.txt").write_text(CONLL_TEST, encoding="utf-8")
    data = ds.CoNLL2000Dataset(str(tmp_path), usage="train", shuffle=False)
    assert data.get_col_names() == ["word", "pos_tag", "chunk_tag"]
    # A line of spaces ends a sentence; '\r' is dropped; fields past the third are ignored.
    assert tags(data) == [(["Confidence", "in"], ["NN", "IN"], ["B-NP", "B-PP"]),
                          (["Chancellor", "of"], ["NNP", "IN"], ["O", "B-PP"])]
    everything = tags(ds.CoNLL2000Dataset(str(tmp_path), shuffle=False))  # test.txt, then train.txt
    assert [t[0] for t in everything] == [["Rockwell", "said"], ["The"], ["Confidence", "in"],
                                         ["Chancellor", "of"]]
    assert ds.CoNLL2000Dataset(str(tmp_path)).get_dataset_size() == 4  # sentences, not token lines
    assert ds.CoNLL2000Dataset(str(tmp_path), num_shards=2, shard_id=1).get_dataset_size() == 2
    row = next(data.create_dict_iterator(output_numpy=True))
    assert row["word"].dtype.kind == "U" and row["word"].shape == (2,)
    # Batches of sentences of different lengths pad with a vocabulary's ids.
    vocab = mindrecord.text.Vocab.from_dataset(data, columns="word", special_tokens=["<pad>"])
    ids = data.map(mindrecord.text.Lookup(vocab), input_columns="word").project(["word"]).batch(
        2, pad_info={"word": ([3], vocab.tokens_to_ids("<pad>"))})
    batch = next(ids.create_tuple_iterator(output_numpy=True))[0]
    assert batch.shape == (2, 3) and batch[0, 2] == vocab.tokens_to_ids("<pad>")


def test_udpos_reads_tab_separated_fields_and_names_bad_lines(tmp_path):
    files = {"en-ud-tag.v2.train.txt": "Al\tPROPN\tNNP\n-\tPUNCT\tHYPH\n\nZaman\tPROPN\tNNP\n",
             "en-ud-tag.v2.dev.txt": "From\tADP\tIN\n",
             "en-ud-tag.v2.test.txt": "What\tPRON\tWP\nif\tSCONJ\tIN\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    data = ds.UDPOSDataset(str(tmp_path), usage="train", shuffle=False)
    assert data.get_col_names() == ["word", "universal", "stanford"]
    assert tags(data) == [(["Al", "-"], ["PROPN", "PUNCT"], ["NNP", "HYPH"]), (["Zaman"], ["PROPN"], ["NNP"])]
    assert [t[0] for t in tags(ds.UDPOSDataset(str(tmp_path), usage="valid", shuffle=False))] == [["From"]]
    # all: dev, test, train (sorted paths)
    assert [t[0][0] for t in tags(ds.UDPOSDataset(str(tmp_path), shuffle=False))] == ["From", "What", "Al", "Zaman"]
    (tmp_path / "en-ud-tag.v2.dev.txt").write_text("From ADP IN\n", encoding="utf-8")  # spaces, not tabs
    with pytest.raises(mindrecord.CorruptionError, match=r"en-ud-tag.v2.dev.txt.*line 1: 1 field\(s\), a token needs 3"):
        list(ds.UDPOSDataset(str(tmp_path), usage="valid", shuffle=False))
    with pytest.raises(ValueError, match="Input usage is not within the valid set"):
        ds.UDPOSDataset(str(tmp_path), usage="dev")


def test_clue_tasks_columns_and_json_types(tmp_path):
    afqmc = tmp_path / "afqmc"
    afqmc.mkdir()
    (afqmc / "train.json").write_text(
        '{"sentence1": "蚂蚁借呗等额还款能否换成先息后本", "sentence2": "借呗可以先息到期还本吗", "label": "0"}\n\n'
        '{"sentence1": "蚂蚁花呗说我违约了", "sentence2": "蚂蚁花呗违约行为是啥", "label": "1", "extra": [1]}\n',
        encoding="utf-8")
    data = ds.CLUEDataset(str(afqmc / "train.json"), task="AFQMC", usage="train", shuffle=False)
    assert data.get_col_names() == ["label", "sentence1", "sentence2"]  # sorted, as MindSpore's
    rows = list(data.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert [(str(r["label"]), str(r["sentence1"])) for r in rows] == [("0", "蚂蚁借呗等额还款能否换成先息后本"),
                                                                    ("1", "蚂蚁花呗说我违约了")]
    (afqmc / "test.json").write_text('{"id": 0, "sentence1": "a", "sentence2": "b"}\n'
                                     '{"id": 1, "sentence1": "c", "sentence2": "d"}\n')
    test = list(ds.CLUEDataset(str(afqmc / "test.json"), task="AFQMC", usage="test", shuffle=False)
                .create_dict_iterator(output_numpy=True))
    assert [int(r["id"]) for r in test] == [0, 1] and test[0]["id"].dtype == np.int32
    # Several files: sorted by name, whatever the order given.
    both = ds.CLUEDataset([str(afqmc / "train.json"), str(afqmc / "test.json")], task="AFQMC", usage="eval",
                          shuffle=False)
    assert both.get_dataset_size() == 4


def test_clue_wsc_spans_and_csl_keywords(tmp_path):
    (tmp_path / "dev.json").write_text(
        '{"target": {"span1_index": 0, "span1_text": "小明", "span2_index": 4, "span2_text": "他"}, '
        '"idx": 0, "text": "小明呢，他在哪？", "label": "true"}\n', encoding="utf-8")
    row = next(ds.CLUEDataset(str(tmp_path / "dev.json"), task="WSC", usage="eval", shuffle=False)
               .create_dict_iterator(output_numpy=True))
    assert list(row) == ["idx", "label", "span1_index", "span1_text", "span2_index", "span2_text", "text"]
    assert (int(row["span2_index"]), str(row["span1_text"]), str(row["label"])) == (4, "小明", "true")
    (tmp_path / "csl.json").write_text('{"id": 1, "abst": "长文本", "keyword": ["关键词1", "关键词2"], "label": "0"}\n',
                                       encoding="utf-8")
    row = next(ds.CLUEDataset(str(tmp_path / "csl.json"), task="CSL", shuffle=False)
               .create_dict_iterator(output_numpy=True))
    assert row["keyword"].tolist() == ["关键词1", "关键词2"] and str(row["abst"]) == "长文本"


@pytest.mark.parametrize("line, message", [
    ('{"sentence1": "a", "sentence2": "b"}', r"failed to find key: label"),
    ('{"sentence1": "a", "sentence2": "b", "label": true}', r"key 'label': a JSON boolean"),
    ('{"sentence1": "a", "sentence2": "b", "label": 4294967295}', r"key 'label': 4294967295 is outside int32"),
    ('{"sentence1": "a", "sentence2": ', r"line at byte 51 of '.*invalid\.json' \(row 1\): not a JSON object"),
    ('[' * 100 + ']' * 100, r"invalid\.json' \(row 1\): JSON nests deeper than 64"),
])
def test_clue_bad_lines_name_file_and_offset(tmp_path, line, message):
    path = tmp_path / "invalid.json"
    path.write_text('{"sentence1": "a", "sentence2": "b", "label": "0"}\n' + line + "\n")
    with pytest.raises(RuntimeError, match=message):
        list(ds.CLUEDataset(str(path), shuffle=False))
    with pytest.raises(ValueError, match="task should be"):
        ds.CLUEDataset(str(path), task="afqmc")
    with pytest.raises(ValueError, match="usage should be"):
        ds.CLUEDataset(str(path), usage="dev")
