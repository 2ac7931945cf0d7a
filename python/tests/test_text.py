"""mindrecord.text (MindSpore's mindspore.dataset.text), written as MindSpore
code with only the import changed: a text classification input pipeline
(tokenize, build a vocabulary, look tokens up, pad, batch) over a MindRecord
file and a text file at several worker counts, against a plain Python model;
each op's values, arrays of strings through maps, batches and caches, and the
errors for what does not take them."""
import numpy as np
import pytest

import mindrecord as ds
from mindrecord import FileWriter, MindDataset, text, transforms

LINES = ["the cat sat on the mat", "a dog  ate\tthe cat's food", "", "héllo wörld, héllo",
         "the end"] * 8


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """LINES as a MindRecord file (a string and a label) and as a text file."""
    d = tmp_path_factory.mktemp("text")
    path = str(d / "t.mindrecord")
    w = FileWriter(path, 1)
    w.add_schema({"text": {"type": "string"}, "label": {"type": "int32"}}, "t")
    w.write_raw_data([{"text": s, "label": i % 3} for i, s in enumerate(LINES)])
    w.commit()
    txt = d / "t.txt"
    txt.write_text("\n".join(s for s in LINES if s) + "\n", encoding="utf-8")
    return path, str(txt)


def model_vocab(lines, special):
    counts = {}
    for s in lines:
        for t in (s.split() or [""]):
            counts[t] = counts.get(t, 0) + 1
    words = sorted(counts, key=lambda w: (-counts[w], w))
    return {w: i for i, w in enumerate(special + words)}


@pytest.mark.parametrize("workers", [1, 3])
def test_classification_input_pipeline(corpus, workers):
    path, _ = corpus
    data = MindDataset(path, shuffle=False, num_parallel_workers=workers)
    data = data.map(operations=text.WhitespaceTokenizer(), input_columns="text", num_parallel_workers=workers)
    vocab = text.Vocab.from_dataset(data, columns=["text"], special_tokens=["<pad>", "<unk>"], special_first=True)
    assert vocab.vocab() == model_vocab(LINES, ["<pad>", "<unk>"])
    data = data.map(operations=[text.Lookup(vocab, unknown_token="<unk>"), text.Truncate(5),
                                transforms.PadEnd([5], pad_value=vocab.tokens_to_ids("<pad>"))],
                    input_columns="text", num_parallel_workers=workers)
    data = data.batch(4, drop_remainder=True)
    got = [(b["text"], b["label"]) for b in data.create_dict_iterator(output_numpy=True)]
    assert len(got) == len(LINES) // 4
    ids = vocab.vocab()
    for k, (tokens, labels) in enumerate(got):
        assert tokens.dtype == np.int32 and tokens.shape == (4, 5)
        for j in range(4):
            words = (LINES[4 * k + j].split() or [""])[:5]
            want = [ids[w] for w in words] + [0] * (5 - len(words))
            assert tokens[j].tolist() == want
        assert labels.tolist() == [(4 * k + j) % 3 for j in range(4)]


def test_text_file_tokens_batch_as_str_arrays_or_lists(corpus):
    _, txt = corpus
    data = ds.TextFileDataset(txt, shuffle=False).map(text.UnicodeCharTokenizer(), input_columns="text")
    rows = [r[0] for r in data.create_tuple_iterator(output_numpy=True)]
    assert [r.tolist() for r in rows] == [list(s) for s in LINES if s]
    assert rows[0].dtype.kind == "U"
    # Rows of one shape stack into one str array; of different shapes they come as a list.
    same = ds.NumpySlicesDataset({"t": np.array(["ab", "cd", "ef"])}, shuffle=False)
    same = same.map(text.UnicodeCharTokenizer(), input_columns="t").batch(3)
    (b,) = list(same.create_tuple_iterator(output_numpy=True))
    assert b[0].dtype.kind == "U" and b[0].tolist() == [["a", "b"], ["c", "d"], ["e", "f"]]
    ragged = data.batch(2)
    first = next(iter(ragged.create_tuple_iterator(output_numpy=True)))[0]
    assert isinstance(first, list) and [a.tolist() for a in first] == [list(LINES[0]), list(LINES[1])]
    with pytest.raises(ds.InvalidArgumentError, match="padding arrays of strings is not supported"):
        list(data.padded_batch(2, pad_info={"text": ([None], None)}))


def test_tokenizer_offsets_and_callables_over_str_arrays():
    data = ds.NumpySlicesDataset({"text": np.array(["a  bc d", "héllo wörld"])}, shuffle=False)
    data = data.map(text.WhitespaceTokenizer(with_offsets=True), input_columns="text",
                    output_columns=["token", "start", "limit"])
    rows = list(data.create_dict_iterator(output_numpy=True))
    assert rows[0]["token"].tolist() == ["a", "bc", "d"]
    assert rows[0]["start"].tolist() == [0, 3, 6] and rows[0]["limit"].tolist() == [1, 5, 7]
    assert rows[1]["start"].tolist() == [0, 7] and rows[1]["limit"].tolist() == [6, 13]  # byte offsets
    # A Python callable takes and returns str arrays; text ops take what it returns.
    up = data.map(lambda t: np.char.upper(t), input_columns="token")
    up = up.map(text.AddToken("<s>"), input_columns="token")
    assert [r["token"].tolist() for r in up.create_dict_iterator(output_numpy=True)] == \
        [["<s>", "A", "BC", "D"], ["<s>", "HÉLLO", "WÖRLD"]]
    py = ds.NumpySlicesDataset({"text": np.array(["x-y-z", "w"])}, shuffle=False)
    py = py.map(text.PythonTokenizer(lambda s: s.split("-")), input_columns="text")
    assert [r[0].tolist() for r in py.create_tuple_iterator(output_numpy=True)] == [["x", "y", "z"], ["w"]]


def test_ops_applied_by_hand():
    assert text.WhitespaceTokenizer()(np.array("  ")).tolist() == [""]
    assert text.UnicodeCharTokenizer()("héllo").tolist() == ["h", "é", "l", "l", "o"]
    assert text.Ngram([2, 3], left_pad=("_", 1), right_pad=("-", 1), separator=" ")(
        np.array(["a", "b", "c"])).tolist() == ["_ a", "a b", "b c", "c -", "_ a b", "a b c", "b c -"]
    assert text.Ngram(4)(np.array(["a", "b"])).tolist() == [""]
    assert text.SlidingWindow(2)(np.array(["a", "b", "c"])).tolist() == [["a", "b"], ["b", "c"]]
    assert text.SlidingWindow(2, axis=-1)(np.array([1, 2, 3])).tolist() == [[1, 2], [2, 3]]
    assert text.SlidingWindow(5)(np.array([1, 2, 3])).shape == (0,)
    assert text.ToNumber(np.int16)(np.array(["1", "-2", "300"])).tolist() == [1, -2, 300]
    assert text.ToNumber("float64")(np.array(["1.5", "2e3"])).dtype == np.float64
    assert text.Truncate(2)(np.array([[1, 2, 3], [4, 5, 6]])).tolist() == [[1, 2], [4, 5]]
    a, b = text.TruncateSequencePair(4)(np.array([1, 2, 3]), np.array(["a", "b", "c"]))
    assert a.tolist() == [1, 2] and b.tolist() == ["a", "b"]
    assert text.AddToken("</s>", begin=False)(np.array(["a"])).tolist() == ["a", "</s>"]
    vocab = text.Vocab.from_list(["the", "cat"], special_tokens=["<unk>"], special_first=False)
    ids = text.Lookup(vocab, "<unk>", data_type=np.int64)(np.array([["the", "dog"], ["cat", "cat"]]))
    assert ids.dtype == np.int64 and ids.tolist() == [[0, 2], [1, 1]]
    assert text.to_str(np.array([b"ab", b"c"])).tolist() == ["ab", "c"]
    assert text.to_bytes(np.array(["ab"])).tolist() == [b"ab"]


def test_vocab_builders(tmp_path):
    v = text.Vocab.from_list(["a", "b", "c"], special_tokens=["<pad>"])
    assert v.vocab() == {"<pad>": 0, "a": 1, "b": 2, "c": 3}
    assert v.tokens_to_ids(["c", "zz"]) == [3, -1] and v.tokens_to_ids("a") == 1
    assert v.ids_to_tokens([0, 3, 9]) == ["<pad>", "c", ""] and v.ids_to_tokens(2) == "b"
    assert text.Vocab.from_dict({"x": 5, "y": 2}).vocab() == {"x": 5, "y": 2}
    f = tmp_path / "vocab.txt"
    f.write_text("w1,9\nw2,8\nw3,7\n", encoding="utf-8")
    assert text.Vocab.from_file(str(f), delimiter=",", vocab_size=2, special_tokens=["<unk>"]).vocab() == \
        {"<unk>": 0, "w1": 1, "w2": 2}
    counted = ds.NumpySlicesDataset({"t": np.array(["b a a", "c b a", "d"])}, shuffle=False)
    counted = counted.map(text.WhitespaceTokenizer(), input_columns="t")
    assert text.Vocab.from_dataset(counted, "t", freq_range=(2, None)).vocab() == {"a": 0, "b": 1}
    assert text.Vocab.from_dataset(counted, top_k=2).vocab() == {"a": 0, "b": 1}
    with pytest.raises(ValueError, match="duplicate word 'a'"):
        text.Vocab.from_list(["a", "a"])
    with pytest.raises(ValueError, match="unknown_token '<unk>' is not in the vocabulary"):
        text.Lookup(v, unknown_token="<unk>")


def test_what_does_not_take_str_arrays(corpus, tmp_path):
    path, _ = corpus
    tokens = MindDataset(path, shuffle=False).map(text.WhitespaceTokenizer(), input_columns="text")
    with pytest.raises(ds.InvalidArgumentError, match="TypeCast does not take an array of strings"):
        list(tokens.map(transforms.TypeCast(np.int32), input_columns="text"))
    vocab = text.Vocab.from_list(["the"])
    with pytest.raises(ds.InvalidArgumentError, match='token "cat" is not in the vocabulary'):
        list(tokens.map(text.Lookup(vocab), input_columns="text"))
    with pytest.raises(ds.InvalidArgumentError, match="not UTF-8"):
        text.UnicodeCharTokenizer()(b"a\xff".decode("utf-8", "surrogateescape"))
    with pytest.raises(ds.InvalidArgumentError, match="array of strings"):
        tokens.save(str(tmp_path / "out.mindrecord"))
    with pytest.raises(TypeError, match="with_offsets must be a bool"):
        text.WhitespaceTokenizer(with_offsets=1)
    with pytest.raises(AttributeError):
        text.JiebaTokenizer  # noqa: B018 (not here)


def test_cached_token_rows_read_back(corpus, tmp_path):
    path, _ = corpus
    cache = ds.DatasetCache(session_id=0, size=0, dir=str(tmp_path / "cache"))
    data = MindDataset(path, shuffle=False).map(text.WhitespaceTokenizer(), input_columns="text", cache=cache)
    first = [r["text"].tolist() for r in data.create_dict_iterator(output_numpy=True)]
    again = [r["text"].tolist() for r in data.create_dict_iterator(output_numpy=True)]
    assert first == again == [s.split() or [""] for s in LINES]


def test_torch_adapter_takes_text_ops(corpus):
    torch = pytest.importorskip("torch")
    from mindrecord.torch import MindRecordDataset
    path, _ = corpus
    vocab = text.Vocab.from_list(sorted({w for s in LINES for w in s.split()}), special_tokens=["<pad>", "<unk>"])
    ids = MindRecordDataset(path, columns=["text", "label"], shuffle=False, batch_size=4, drop_last=True,
                            ops={"text": [text.WhitespaceTokenizer(), text.Lookup(vocab, "<unk>"),
                                          transforms.PadEnd([6], pad_value=0)]})
    first = next(iter(torch.utils.data.DataLoader(ids, batch_size=None)))
    assert first["text"].dtype == torch.int32 and first["text"].shape == (4, 6)
    assert first["text"][0].tolist() == vocab.tokens_to_ids(LINES[0].split())
    tokens = MindRecordDataset(path, columns=["text"], shuffle=False, batch_size=2,
                               ops={"text": [text.WhitespaceTokenizer()]})
    batch = next(iter(tokens))["text"]  # rows of different lengths: a list of str arrays
    assert [a.tolist() for a in batch] == [LINES[0].split(), LINES[1].split()]


BERT_LINES = ["床前明月光", "I am making small mistakes during working hours", "😀嘿嘿😃哈哈😄大笑😁嘻嘻", "繁體字",
              "unused [CLS]", "unused [SEP]", "unused [UNK]", "unused [PAD]", "unused [MASK]", "12+/-28=40/-16"]
BERT_VOCAB = ["床", "前", "明", "月", "光", "繁", "體", "字", "嘿", "哈", "大", "笑", "嘻", "i", "am", "mak", "make",
              "small", "mistake", "##s", "during", "work", "##ing", "hour", "😀", "😃", "😄", "😁", "+", "/", "-", "=",
              "12", "28", "40", "16", " ", "I", "[CLS]", "[SEP]", "[UNK]", "[PAD]", "[MASK]"]


@pytest.mark.parametrize("kwargs, lines, expected", [
    # MindSpore's own BertTokenizer test cases (tests/ut/python/dataset/test_bert_tokenizer.py), its data
    # file's lines and expected tokens.
    ({}, [0], [["床", "前", "明", "月", "光"]]),
    ({"lower_case": True}, [1], [["i", "am", "mak", "##ing", "small", "mistake", "##s", "during", "work", "##ing",
                                  "hour", "##s"]]),
    ({"lower_case": False}, [1], [["I", "am", "mak", "##ing", "small", "mistake", "##s", "during", "work", "##ing",
                                   "hour", "##s"]]),
    ({"normalization_form": text.NormalizeForm.NFKC}, [2, 3],
     [["😀", "嘿", "嘿", "😃", "哈", "哈", "😄", "大", "笑", "😁", "嘻", "嘻"], ["繁", "體", "字"]]),
    ({"preserve_unused_token": True}, [4, 5, 6, 7, 8],
     [["[UNK]", "[CLS]"], ["[UNK]", "[SEP]"], ["[UNK]", "[UNK]"], ["[UNK]", "[PAD]"], ["[UNK]", "[MASK]"]]),
    ({"preserve_unused_token": True}, [9], [["12", "+", "/", "-", "28", "=", "40", "/", "-", "16"]]),
    ({"preserve_unused_token": True, "keep_whitespace": True}, [4], [["[UNK]", " ", "[CLS]"]]),
    ({"preserve_unused_token": True, "keep_whitespace": True, "unknown_token": ""}, [4], [["unused", " ", "[CLS]"]]),
    ({"preserve_unused_token": False, "keep_whitespace": True, "unknown_token": ""}, [4],
     [["unused", " ", "[", "CLS", "]"]]),
])
def test_bert_tokenizer_as_mindspore_tests_it(tmp_path, kwargs, lines, expected):
    f = tmp_path / "bert.txt"
    f.write_text("\n".join(BERT_LINES[i] for i in lines) + "\n", encoding="utf-8")
    data = ds.TextFileDataset(str(f), shuffle=False)
    data = data.map(operations=text.BertTokenizer(text.Vocab.from_list(BERT_VOCAB), **kwargs))
    got = [text.to_str(text.to_bytes(r["text"])).tolist() for r in data.create_dict_iterator(output_numpy=True)]
    assert got == expected


def test_icu_ops_in_a_pipeline():
    data = ds.NumpySlicesDataset({"t": np.array(["Héllo,  WORLD. Straße", "ﬁne\u200bday"])}, shuffle=False)
    data = data.map([text.CaseFold(), text.NormalizeUTF8(text.NormalizeForm.NFKC), text.RegexReplace("\\s+", " "),
                     text.RegexTokenizer("\\s|[,.]", keep_delim_pattern="[,.]", with_offsets=True)],
                    input_columns="t", output_columns=["tok", "start", "limit"])
    rows = list(data.create_dict_iterator(output_numpy=True))
    assert rows[0]["tok"].tolist() == ["héllo", ",", "world", ".", "strasse"]
    assert rows[0]["start"].tolist() == [0, 6, 8, 13, 15] and rows[0]["limit"].tolist() == [6, 7, 13, 14, 22]
    assert rows[1]["tok"].tolist() == ["fineday"]  # NFKC_Casefold drops U+200B (default ignorable)
    basic = text.BasicTokenizer(lower_case=True, with_offsets=True)("Héllo [CLS] WORLD!你好")
    assert basic[0].tolist() == ["hello", "[CLS]", "world", "!", "你", "好"]
    assert text.RegexReplace("(\\w)(\\d)", "$2$1", replace_all=False)(np.array(["a1b2", "c3"])).tolist() == ["1ab2", "3c"]
    vocab = text.Vocab.from_list(["un", "##aff", "##able", "[UNK]"])
    assert text.WordpieceTokenizer(vocab)(np.array(["unaffable", "xyz"])).tolist() == ["un", "##aff", "##able", "[UNK]"]
    with pytest.raises(ValueError, match="not an ICU regular expression"):
        list(ds.NumpySlicesDataset({"t": np.array(["a"])}).map(text.RegexReplace("(", "")))
    with pytest.raises(ds.InvalidArgumentError, match="step limit"):
        text.RegexReplace("(a+)+$", "")("a" * 40 + "!")
    assert text.utils.NormalizeForm.NFD is text.NormalizeForm.NFD and text.utils.Vocab is text.Vocab
    with pytest.raises(TypeError, match="normalize_form must be a text.NormalizeForm"):
        text.NormalizeUTF8("nfkc")


def test_general_ops_take_arrays_of_strings():
    """MindSpore's BERT input steps over tokens: [CLS] / [SEP] added by Concatenate, PadEnd with a pad
    token before Lookup, Slice, Mask of the padding, Fill."""
    vocab = text.Vocab.from_list(["[PAD]", "[CLS]", "[SEP]", "a", "b", "c"])
    data = ds.NumpySlicesDataset({"t": np.array(["a b", "c a b"])}, shuffle=False)
    data = data.map([text.WhitespaceTokenizer(),
                     transforms.Concatenate(prepend=np.array(["[CLS]"], dtype="S"), append=np.array(["[SEP]"])),
                     transforms.PadEnd([6], pad_value="[PAD]")], input_columns="t")
    data = data.map(transforms.Duplicate(), input_columns="t", output_columns=["t", "mask"])
    data = data.map(transforms.Mask(transforms.Relational.NE, "[PAD]"), input_columns="mask")
    data = data.map(text.Lookup(vocab), input_columns="t").batch(2)
    (batch,) = list(data.create_dict_iterator(output_numpy=True))
    assert batch["t"].tolist() == [[1, 3, 4, 2, 0, 0], [1, 5, 3, 4, 2, 0]]
    assert batch["mask"].tolist() == [[True] * 4 + [False] * 2, [True] * 5 + [False]]
    s = np.array([["a", "b", "c"], ["d", "e", "f"]])
    assert transforms.Slice(slice(0, 2), [0, 2])(s).tolist() == [["a", "c"], ["d", "f"]]
    assert transforms.PadEnd([3, 4])(s).tolist() == [["a", "b", "c", ""], ["d", "e", "f", ""], ["", "", "", ""]]
    assert transforms.Fill("x")(s).tolist() == [["x"] * 3] * 2
    with pytest.raises(ds.InvalidArgumentError, match="both be numeric or both be strings"):
        transforms.PadEnd([4], pad_value=0)(np.array(["a"]))


def test_unicode_script_tokenizer_as_mindspore_tests_it():
    lines = ["Welcome to Beijing!", "北京欢迎您！", "我喜欢English!", "  "]
    got = [text.UnicodeScriptTokenizer()(s).tolist() for s in lines]
    assert got == [["Welcome", "to", "Beijing", "!"], ["北京欢迎您", "！"], ["我喜欢", "English", "!"], [""]]
    kept = [text.UnicodeScriptTokenizer(keep_whitespace=True)(s).tolist() for s in lines]
    assert kept == [["Welcome", " ", "to", " ", "Beijing", "!"], ["北京欢迎您", "！"], ["我喜欢", "English", "!"], ["  "]]
    tokens, start, limit = text.UnicodeScriptTokenizer(with_offsets=True)("我喜欢English!")
    assert start.tolist() == [0, 9, 16] and limit.tolist() == [9, 16, 17]
