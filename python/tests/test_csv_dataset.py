"""CSVDataset (MindSpore's): the records of CSV files as rows, by MindSpore's
CSV grammar; checked against Python's csv module on well-formed files."""
import csv
import io

import numpy as np
import pytest

import mindrecord
from mindrecord import CSVDataset, Shuffle

TRICKY = (b'id,score,name\n'
          b'1,0.5,"a, b"\n'
          b'2,1.5,"say ""hi"""\r\n'
          b'\n\n'
          b'3,-2e3,"multi\nline"\n'
          b'  4,7,plain text\n'
          b'5,3.25,')  # the last record: no line end, an empty last field


def rows(ds):
    return list(ds.create_dict_iterator(num_epochs=1, output_numpy=True))


def test_records_fields_and_types(tmp_path):
    path = tmp_path / "a.csv"
    path.write_bytes(TRICKY)
    ds = CSVDataset(str(path), column_defaults=[0, 0.0, ""], shuffle=False)
    assert ds.get_col_names() == ["id", "score", "name"] and ds.get_dataset_size() == 5
    got = rows(ds)
    assert [r["id"].dtype for r in got[:1]] == [np.int32] and got[0]["score"].dtype == np.float32
    assert [int(r["id"]) for r in got] == [1, 2, 3, 4, 5]  # '  4' parses as MindSpore's std::stoi parses
    assert [float(r["score"]) for r in got] == [0.5, 1.5, -2000.0, 7.0, 3.25]
    assert [str(r["name"]) for r in got] == ["a, b", 'say "hi"', "multi\nline", "plain text", ""]
    # Python's csv module reads the same fields (the file is well-formed for both).
    want = [r for r in csv.reader(io.StringIO(TRICKY.decode(), newline=""))][1:]
    want = [r for r in want if r]
    strings = rows(CSVDataset(str(path), shuffle=False))  # no column_defaults: every field a string
    assert [[str(r[c]) for c in ("id", "score", "name")] for r in strings] == want


def test_column_names_given_means_no_header(tmp_path):
    path = tmp_path / "plain.csv"
    path.write_bytes(b"x;1\ny;2\n")
    got = rows(CSVDataset(str(path), field_delim=";", column_defaults=["", 0], column_names=["k", "v"],
                          shuffle=False))
    assert [(str(r["k"]), int(r["v"])) for r in got] == [("x", 1), ("y", 2)]
    one = tmp_path / "one.csv"
    one.write_bytes(b"only\nlast")  # one column, the last record without a line end
    assert [str(r["only"]) for r in rows(CSVDataset(str(one), shuffle=False))] == ["last"]


def test_files_shuffles_shards_and_save(tmp_path):
    (tmp_path / "a.csv").write_bytes(b"n\n1\n2\n3\n")
    (tmp_path / "b.csv").write_bytes(b"n\n4\n5\n")
    pattern = str(tmp_path / "*.csv")
    ints = [0]

    def ns(ds):
        return [int(r["n"]) for r in rows(ds)]
    assert ns(CSVDataset(pattern, column_defaults=ints, shuffle=False)) == [1, 2, 3, 4, 5]
    assert sorted(ns(CSVDataset(pattern, column_defaults=ints, seed=3))) == [1, 2, 3, 4, 5]
    for seed in range(5):
        assert ns(CSVDataset(pattern, column_defaults=ints, shuffle=Shuffle.FILES, seed=seed)) in (
            [1, 2, 3, 4, 5], [4, 5, 1, 2, 3])
    shards = [ns(CSVDataset(pattern, column_defaults=ints, shuffle=False, num_shards=2, shard_id=k)) for k in (0, 1)]
    assert sorted(set(shards[0] + shards[1])) == [1, 2, 3, 4, 5] and len(shards[0]) == len(shards[1]) == 3
    out = str(tmp_path / "n.mindrecord")
    CSVDataset(pattern, column_defaults=ints, shuffle=False).save(out)
    with mindrecord.FileReader(out) as r:
        assert [row["n"] for row in r.get_next()] == [1, 2, 3, 4, 5]
    (tmp_path / "c.csv").write_bytes(b"m\n6\n")
    with pytest.raises(ValueError, match="column_names in all CSV files should be the same"):
        CSVDataset(pattern)


@pytest.mark.parametrize("body, why", [
    (b'a,b\n1,x"y\n', "byte 7: a quote inside an unquoted field"),
    (b'a,b\n1,"x"y\n', "byte 9: text after a closing quote"),
    (b'a,b\n1,"open\n', "the file ends inside a quoted field"),
])
def test_grammar_errors_name_the_file_and_byte(tmp_path, body, why):
    path = tmp_path / "bad.csv"
    path.write_bytes(body)
    with pytest.raises(mindrecord.CorruptionError, match="bad.csv: .*" + why.replace("(", r"\(")):
        CSVDataset(str(path))


def test_record_errors_name_the_record(tmp_path):
    path = tmp_path / "r.csv"
    path.write_bytes(b"a,b\n1,2\n3\n")
    with pytest.raises(ValueError, match=r"record at byte 8 of '.*r.csv' \(row 1\): 1 field\(s\), the columns are 2"):
        rows(CSVDataset(str(path), shuffle=False))
    nums = tmp_path / "n.csv"
    nums.write_bytes(b"a,b\n1,2\nx,3\n99999999999,4\n")
    with pytest.raises(ValueError, match=r"column 'a': 'x' is not an int32"):
        rows(CSVDataset(str(nums), column_defaults=[0, 0], shuffle=False))
    with pytest.raises(ValueError, match="out of int32's range"):
        rows(CSVDataset(str(nums), column_defaults=[0, 0], shuffle=False).skip(2))
    header = tmp_path / "h.csv"
    header.write_bytes(b"caf\xe9,b\n1,2\n")
    with pytest.raises(mindrecord.CorruptionError, match=r"h.csv: the header line is not UTF-8 text \(byte 3\)"):
        CSVDataset(str(header))
    latin = tmp_path / "l.csv"
    latin.write_bytes(b"a\ncaf\xe9\n")
    with pytest.raises(mindrecord.CorruptionError, match="column 'a': the field is not UTF-8 text"):
        rows(CSVDataset(str(latin), shuffle=False))


def test_arguments_are_checked(tmp_path):
    path = tmp_path / "a.csv"
    path.write_bytes(b"a,a\n1,2\n")
    with pytest.raises(ValueError, match="duplicate column"):
        CSVDataset(str(path))
    with pytest.raises(ValueError, match="field_delim is invalid"):
        CSVDataset(str(path), field_delim='"', column_names=["x", "y"])
    with pytest.raises(TypeError, match="column_defaults"):
        CSVDataset(str(path), column_defaults=[None], column_names=["x", "y"])
    with pytest.raises(ValueError, match="size of 'column_defaults': 3"):
        CSVDataset(str(path), column_defaults=[0, 0, 0], column_names=["x", "y"])
    with pytest.raises(NotImplementedError, match="cache"):
        CSVDataset(str(path), column_names=["x", "y"], cache=object())


def test_more_records_than_a_source_may_index_are_an_error(tmp_path, monkeypatch):
    path = tmp_path / "a.csv"
    path.write_bytes(TRICKY)
    monkeypatch.setenv("MINDRECORD_MAX_INDEXED_ROWS", "4")
    with pytest.raises(mindrecord.UnsupportedError, match="a.csv: more than 4 CSV records to index in memory"):
        CSVDataset(str(path), column_defaults=[0, 0.0, ""])
    monkeypatch.setenv("MINDRECORD_MAX_INDEXED_ROWS", "5")
    assert [int(r["id"]) for r in rows(CSVDataset(str(path), column_defaults=[0, 0.0, ""], shuffle=False))] == [
        1, 2, 3, 4, 5]
