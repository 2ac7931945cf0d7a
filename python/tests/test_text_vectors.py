"""Pretrained vectors (mindrecord.text.Vectors, GloVe, FastText, CharNGram)
and ToVectors, written as MindSpore code with only the import changed: the
cases of MindSpore's own tests over vectors files of ours, eager and in a
pipeline at 1 and 3 workers against a plain Python model of the lookup, and
the errors (malformed files name the file and line)."""
import os

import numpy as np
import pytest

import mindrecord as ds
from mindrecord import text

ROWS = {"ok": [0.418, 0.24968, -0.41242, 0.1217, 0.34527, -0.04445718411],
        "!": [0.013441, 0.23682, -0.16899, 0.40951, 0.63812, 0.47709],
        "this": [0.15164, 0.30177, -0.16763, 0.17684, 0.31719, 0.33973],
        "is": [0.70853, 0.57088, -0.4716, 0.18048, 0.54449, 0.72603],
        "my": [0.68047, -0.039263, 0.30186, -0.17792, 0.42962, 0.032246],
        "home": [0.26818, 0.14346, -0.27877, 0.016257, 0.11384, 0.69923]}
WORDS = ["ok", "!", "this", "is", "my", "home", "none"]


def vectors_text(rows, header=False, trailing_space=""):
    lines = ["%d %d" % (len(rows), len(next(iter(rows.values()))))] if header else []
    lines += [" ".join([w] + [repr(v) for v in vec]) + trailing_space for w, vec in rows.items()]
    return "\n".join(lines) + "\n"


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "vectors.txt").write_text(vectors_text(ROWS))
    (tmp_path / "words.txt").write_text("\n".join(WORDS) + "\n")
    return tmp_path


def model(rows, token, unk, lower):
    key = token.lower() if lower else token
    return np.array(rows[key] if key in rows else unk, dtype=np.float32)


def test_eager_lookups_as_in_mindspores_tests(files):
    vectors = text.Vectors.from_file(str(files / "vectors.txt"))
    to_vectors = text.ToVectors(vectors)
    for w in WORDS:
        assert np.array_equal(to_vectors(w), model(ROWS, w, [0] * 6, False)), w
    # max_vectors=4: the first four lines; unk_init for the rest; lower_case_backup looks up "ok" for "Ok".
    four = text.Vectors.from_file(str(files / "vectors.txt"), max_vectors=4)
    first4 = dict(list(ROWS.items())[:4])
    op = text.ToVectors(four, unk_init=[-1] * 6, lower_case_backup=True)
    for w in ["Ok", "!", "This", "is", "my", "home", "none"]:
        out = op(w)
        assert out.dtype == np.float32 and out.shape == (6,)
        assert np.array_equal(out, model(first4, w, [-1] * 6, True)), w
    # Without lower_case_backup "Ok" is unknown.
    assert np.array_equal(text.ToVectors(four)("Ok"), np.zeros(6, np.float32))


@pytest.mark.parametrize("workers", [1, 3])
def test_text_file_pipeline_against_a_plain_model(files, workers):
    vectors = text.Vectors.from_file(str(files / "vectors.txt"), max_vectors=100)
    data = ds.TextFileDataset(str(files / "words.txt"), shuffle=False)
    data = data.map(operations=text.ToVectors(vectors), input_columns=["text"], num_parallel_workers=workers)
    got = [d["text"] for d in data.create_dict_iterator(num_epochs=1, output_numpy=True)]
    assert len(got) == len(WORDS)
    for w, g in zip(WORDS, got):
        assert np.array_equal(g, model(ROWS, w, [0] * 6, False)), w


def test_tokenized_lines_give_one_vector_per_token_and_batch(files):
    (files / "lines.txt").write_text("this is my home\nok !\nThis\n")
    vectors = text.Vectors.from_file(str(files / "vectors.txt"))
    data = ds.TextFileDataset(str(files / "lines.txt"), shuffle=False)
    data = data.map(text.WhitespaceTokenizer(), input_columns="text")
    data = data.map(text.ToVectors(vectors, unk_init=[9] * 6), input_columns="text")
    got = [d["text"] for d in data.create_dict_iterator(num_epochs=1, output_numpy=True)]
    assert got[0].shape == (4, 6) and got[1].shape == (2, 6)
    assert got[2].shape == (6,)  # one token: [dim], as MindSpore's
    assert np.array_equal(got[0], np.stack([model(ROWS, w, [9] * 6, False) for w in "this is my home".split()]))
    assert np.array_equal(got[2], np.full(6, 9, np.float32))
    padded = ds.TextFileDataset(str(files / "lines.txt"), shuffle=False).map(
        text.WhitespaceTokenizer(), input_columns="text").map(
        text.ToVectors(vectors), input_columns="text").take(2).batch(
        2, pad_info={"text": ([4, 6], -1.0)})
    batch = next(padded.create_tuple_iterator(output_numpy=True))[0]
    assert batch.shape == (2, 4, 6) and np.all(batch[1, 2:] == -1)


def test_glove_and_fasttext_files(tmp_path):
    glove = tmp_path / "glove.6B.test.txt"
    glove.write_text(vectors_text(ROWS))
    g = text.GloVe.from_file(str(glove))
    assert np.array_equal(text.ToVectors(g)("home"), model(ROWS, "home", [], False))
    # fastText's .vec: a "count dim" header and a space after each line's last value.
    vec = tmp_path / "wiki.test.vec"
    vec.write_text(vectors_text(ROWS, header=True, trailing_space=" "))
    f = text.FastText.from_file(str(vec), max_vectors=2)
    op = text.ToVectors(f)
    assert np.array_equal(op("!"), model(ROWS, "!", [], False))
    assert np.array_equal(op("this"), np.zeros(6, np.float32))  # past max_vectors
    assert np.array_equal(op(np.array(["ok", "zz"])), np.stack([model(ROWS, "ok", [], False), np.zeros(6)]))
    with pytest.raises(RuntimeError, match=r"can not find file 'glove.6B.\*.txt'"):
        text.GloVe.from_file(str(vec))
    with pytest.raises(RuntimeError, match=r"can not find file '\*.vec'"):
        text.FastText.from_file(str(glove))


def test_char_n_gram_means_the_tokens_n_grams(tmp_path):
    grams = {"2gram-#BEGIN#h": [1.0, 0.5], "2gram-hi": [2.0, 1.5], "2gram-i#END#": [0.25, 3.0],
             "3gram-#BEGIN#hi": [4.0, -1.0], "3gram-hi#END#": [0.0, 0.0], "4gram-#BEGIN#hi#END#": [-2.0, 8.0],
             "2gram-zz": [5.0, 5.0]}
    path = tmp_path / "charNgram.txt"
    path.write_text(vectors_text(grams))
    op = text.ToVectors(text.CharNGram.from_file(str(path)), lower_case_backup=True)

    def mean(token):
        chars = ["#BEGIN#"] + list(token.lower()) + ["#END#"]
        found = []
        for n in (2, 3, 4):
            for p in range(len(chars) - n + 1):
                v = grams.get("%dgram-%s" % (n, "".join(chars[p:p + n])))
                if v is not None and v != [0.0, 0.0]:  # a vector equal to the unknown one is not counted
                    found.append(np.array(v, np.float32))
        return np.mean(found, axis=0).astype(np.float32) if found else np.zeros(2, np.float32)

    for token in ["hi", "Hi", "h", "q"]:
        np.testing.assert_allclose(op(token), mean(token), rtol=1e-6, err_msg=token)
    assert np.any(op("HI") != 0)


def test_errors_as_mindspore_raises_them(files, tmp_path):
    good = str(files / "vectors.txt")
    with pytest.raises(ValueError, match=r"Input max_vectors is not within the required interval"):
        text.Vectors.from_file(good, max_vectors=-1)
    with pytest.raises(TypeError, match=r"Argument max_vectors with value 1.0 is not of type \[<class 'int'>\]"):
        text.Vectors.from_file(good, max_vectors=1.0)
    with pytest.raises(TypeError, match=r"max_vectors"):
        text.Vectors.from_file(good, max_vectors="1")
    with pytest.raises(TypeError, match=r"file_path must be a str"):
        text.Vectors.from_file(files / "vectors.txt")
    with pytest.raises(RuntimeError, match=r"get real path failed") as e:
        text.Vectors.from_file(str(tmp_path / "not_exist.txt"))
    assert isinstance(e.value, FileNotFoundError)
    vectors = text.Vectors.from_file(good)
    with pytest.raises(RuntimeError, match=r"ToVectors: unk_init must be the same length as vectors, "
                                           r"but got unk_init: 2 and vectors: 6"):
        text.ToVectors(vectors, unk_init=[-1, -1])("ok")
    with pytest.raises(RuntimeError, match=r"input tensor type should be string"):
        text.ToVectors(vectors)(1.0)
    with pytest.raises(TypeError, match=r"Argument lower_case_backup with value True is not of type"):
        text.ToVectors(vectors, lower_case_backup="True")
    with pytest.raises(TypeError, match=r"unk_init must be a list of numbers"):
        text.ToVectors(vectors, unk_init=["a"] * 6)
    with pytest.raises(TypeError, match=r"vectors must be a text.Vectors"):
        text.ToVectors(text.Vocab.from_list(["a"]))
    with pytest.raises(TypeError, match=r"from_file"):
        text.Vectors()


@pytest.mark.parametrize("body, message", [
    ("a 1 2 3\nb 1 2\n", r"v.txt:2: all vectors must have the same number of dimensions, but got dim 2 "
                         r"while expecting 3"),
    ("a 1 2\nb 1 x2\n", r"v.txt:2: value 'x2' is not a number"),
    ("a 1 2\nword\n", r"v.txt:2: token with 1-dimensional vector"),
    ("", r"invalid file, file is empty"),
    ("3 300\n", r"invalid file, file is empty"),
])
def test_malformed_files_are_corruption_naming_file_and_line(tmp_path, body, message):
    path = tmp_path / "v.txt"
    path.write_text(body)
    with pytest.raises(ds.CorruptionError, match=message):
        text.Vectors.from_file(str(path))


def test_a_fifo_or_a_folder_is_refused_not_read(tmp_path):
    os.mkfifo(tmp_path / "fifo.txt")
    with pytest.raises(RuntimeError, match=r"not a regular file"):
        text.Vectors.from_file(str(tmp_path / "fifo.txt"))
    with pytest.raises(RuntimeError, match=r"not a regular file"):
        text.Vectors.from_file(str(tmp_path))


def test_ops_share_the_table_from_file_loaded(files):
    """The pipeline's ops use the vectors from_file read, even after the file changed."""
    path = files / "vectors.txt"
    vectors = text.Vectors.from_file(str(path))
    path.write_text(vectors_text({"ok": [7.0] * 6}))
    op = text.ToVectors(vectors)
    data = ds.TextFileDataset(str(files / "words.txt"), shuffle=False).map(op, input_columns="text")
    first = next(data.create_dict_iterator(output_numpy=True))["text"]
    assert np.array_equal(first, model(ROWS, "ok", [], False))
    assert "6 vectors of 6" in repr(vectors)
