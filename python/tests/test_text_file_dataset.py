"""TextFileDataset (MindSpore's): the lines of text files as rows."""
import numpy as np
import pytest

import mindrecord
from mindrecord import Shuffle, TextFileDataset

from conftest import numpy_dicts


@pytest.fixture()
def texts(tmp_path):
    (tmp_path / "b.txt").write_bytes(b"b one\nb two\n")
    (tmp_path / "a.txt").write_bytes(b"first\n\n\nsecond\r\n  third  \nno newline at the end")
    (tmp_path / "notes.md").write_bytes(b"not matched\n")
    return tmp_path


def lines(ds):
    return [str(r["text"]) for r in ds.create_dict_iterator(num_epochs=1, output_numpy=True)]


A = ["first", "second\r", "  third  ", "no newline at the end"]
B = ["b one", "b two"]


def test_lines_of_the_files_in_name_order(texts):
    ds = TextFileDataset(str(texts / "*.txt"), shuffle=False)
    assert ds.get_col_names() == ["text"] and ds.get_dataset_size() == 6
    assert lines(ds) == A + B  # empty lines skipped, '\r' kept, as MindSpore's reader
    listed = TextFileDataset([str(texts / "b.txt"), str(texts / "a.txt")], shuffle=False)
    assert lines(listed) == A + B  # the list is sorted too
    row = next(ds.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert row["text"].dtype.kind == "U" and row["text"].shape == ()


def test_shuffle_modes_shards_and_samples(texts):
    pattern = str(texts / "*.txt")
    glob_order = lines(TextFileDataset(pattern, seed=4))
    assert sorted(glob_order) == sorted(A + B) and glob_order != A + B
    assert lines(TextFileDataset(pattern, seed=4)) == glob_order  # the same seed, the same order
    for seed in range(6):
        files = lines(TextFileDataset(pattern, shuffle=Shuffle.FILES, seed=seed))
        assert files in (A + B, B + A)  # whole files move, lines keep their order
    shards = [lines(TextFileDataset(pattern, shuffle=False, num_shards=2, shard_id=k)) for k in (0, 1)]
    assert sorted(shards[0] + shards[1]) == sorted(A + B) and len(shards[0]) == len(shards[1]) == 3
    assert len(lines(TextFileDataset(pattern, num_samples=2))) == 2
    with pytest.raises(ValueError, match="Shuffle.FILES"):
        TextFileDataset(pattern, shuffle=Shuffle.INFILE)


def test_map_batch_and_save(texts, tmp_path):
    ds = TextFileDataset(str(texts / "*.txt"), shuffle=False).map(lambda t: np.array(len(str(t)), np.int32),
                                                                  input_columns=["text"], output_columns=["n"])
    assert [int(v) for b in numpy_dicts(ds.batch(4)) for v in b["n"]] == [len(x) for x in A + B]
    out = str(tmp_path / "lines.mindrecord")
    TextFileDataset(str(texts / "*.txt"), shuffle=False).save(out)
    with mindrecord.FileReader(out) as r:
        assert [row["text"] for row in r.get_next()] == A + B


def test_bad_files_are_errors_naming_them(tmp_path):
    with pytest.raises(ValueError, match="did not match any files"):
        TextFileDataset(str(tmp_path / "*.nothing"))
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"ok\ncaf\xe9\n")
    with pytest.raises(mindrecord.CorruptionError, match=r"line at byte 3 of '.*latin1.txt'.*not UTF-8"):
        lines(TextFileDataset(str(bad), shuffle=False))
    grows = tmp_path / "grows.txt"
    grows.write_bytes(b"one\n")
    ds = TextFileDataset(str(grows), shuffle=False)
    grows.write_bytes(b"one\ntwo\n")
    with pytest.raises(mindrecord.CorruptionError, match="2 lines now, 1 when the dataset was made"):
        lines(ds)
    with pytest.raises(NotImplementedError, match="cache"):
        TextFileDataset(str(grows), cache=object())


def test_more_lines_than_a_source_may_index_are_an_error(texts, monkeypatch):
    # The limit counts the lines of all the files of the dataset.
    monkeypatch.setenv("MINDRECORD_MAX_INDEXED_ROWS", "5")
    with pytest.raises(mindrecord.UnsupportedError, match="b.txt: more than 5 lines to index in memory"):
        TextFileDataset(str(texts / "*.txt"))
    monkeypatch.setenv("MINDRECORD_MAX_INDEXED_ROWS", "6")
    assert lines(TextFileDataset(str(texts / "*.txt"), shuffle=False)) == A + B
