"""Dataset.save (MindSpore's): a pipeline's rows written as a MindRecord
dataset, read back with FileReader / MindDataset."""
import os

import numpy as np
import pytest

import mindrecord
from conftest import compat_path, write_simple


def rows_of(path, **kw):
    with mindrecord.FileReader(path, **kw) as r:
        return list(r.get_next())


def schema_of(path):
    with mindrecord.FileReader(path) as r:
        return r.schema()


@pytest.fixture()
def mixed(tmp_path):
    """100 rows: int32 label, bytes of varying length, float32 arrays of
    varying length, a string."""
    path = str(tmp_path / "mixed.mindrecord")
    w = mindrecord.FileWriter(path, 1)
    w.add_schema({"label": {"type": "int32"}, "img": {"type": "bytes"}, "vec": {"type": "float32", "shape": [-1]},
                  "name": {"type": "string"}})
    w.write_raw_data([{"label": i, "img": bytes([i]) * (i % 7 + 1), "vec": np.arange(i % 3 + 1, dtype=np.float32),
                       "name": "n%d" % i} for i in range(100)])
    w.commit()
    return path


def test_rows_and_schema_round_trip(mixed, tmp_path):
    out = str(tmp_path / "out.mindrecord")
    assert mindrecord.MindDataset(mixed, shuffle=False).save(out) is None
    assert sorted(os.listdir(tmp_path)) == ["mixed.mindrecord", "mixed.mindrecord.db", "out.mindrecord",
                                            "out.mindrecord.db"]
    assert schema_of(out) == {"label": {"type": "int32"}, "img": {"type": "bytes"},
                              "vec": {"type": "float32", "shape": [-1]}, "name": {"type": "string"}}
    got, want = rows_of(out), rows_of(mixed)
    assert len(got) == 100
    for g, w in zip(got, want):
        assert g["label"] == w["label"] and g["img"] == w["img"] and g["name"] == w["name"]
        np.testing.assert_array_equal(g["vec"], w["vec"])
    # Scalar columns are indexed, as MindSpore's save indexes them.
    page = mindrecord.MindPage(out)
    assert sorted(page.candidate_fields) == ["label", "name"]


def test_rows_in_the_order_an_iteration_hands_them_out(mixed, tmp_path):
    ds = mindrecord.MindDataset(mixed, shuffle=True, seed=5, columns_list=["label"])
    order = [int(r["label"]) for r in ds.create_dict_iterator(num_epochs=1, output_numpy=True)]
    assert order != sorted(order)
    out = str(tmp_path / "shuffled.mindrecord")
    ds.save(out)
    assert [r["label"] for r in rows_of(out)] == order
    twice = str(tmp_path / "twice.mindrecord")
    mindrecord.MindDataset(mixed, shuffle=False, columns_list=["label"]).repeat(2).save(twice)
    assert [r["label"] for r in rows_of(twice)] == list(range(100)) * 2


def test_types_follow_mindspore_save_rules(mixed, tmp_path):
    def widen(label):
        i = int(label)
        return (np.int8(i - 50), np.int16(i * 100), np.bool_(i % 2), np.uint8(i), np.full((2, 2), i, np.uint8),
                np.float64(i) / 4, np.arange(i % 4 + 1, dtype=np.int64).reshape(-1, 1))
    cols = ["i8", "i16", "flag", "u8", "u8arr", "f64", "i64arr"]
    ds = mindrecord.MindDataset(mixed, shuffle=False, columns_list=["label"]).map(
        widen, input_columns=["label"], output_columns=cols)
    out = str(tmp_path / "types.mindrecord")
    ds.save(out)
    assert schema_of(out) == {"i8": {"type": "int32"}, "i16": {"type": "int32"}, "flag": {"type": "int32"},
                              "u8": {"type": "int32"}, "u8arr": {"type": "bytes"}, "f64": {"type": "float64"},
                              "i64arr": {"type": "int64", "shape": [-1, 1]}}
    rows = rows_of(out)
    assert len(rows) == 100
    r = rows[37]
    assert (r["i8"], r["i16"], r["flag"], r["u8"], r["f64"]) == (-13, 3700, 1, 37, 9.25)
    assert r["u8arr"] == bytes([37]) * 4  # uint8 arrays lose their shape, as in MindSpore
    np.testing.assert_array_equal(r["i64arr"], np.arange(2, dtype=np.int64).reshape(2, 1))


def test_many_files_named_as_mindspore_names_them(mixed, tmp_path):
    out = str(tmp_path / "many.mindrecord")
    mindrecord.MindDataset(mixed, shuffle=False, columns_list=["label", "name"]).save(out, num_files=12)
    names = sorted(n for n in os.listdir(tmp_path) if n.startswith("many"))
    assert names == sorted(["many.mindrecord%d" % i for i in range(12)] +
                           ["many.mindrecord%d.db" % i for i in range(12)])
    back = mindrecord.MindDataset(out + "0", shuffle=False)
    assert sorted(int(r["label"]) for r in back.create_dict_iterator(num_epochs=1, output_numpy=True)) == \
        list(range(100))


def test_a_batched_dataset_saves_each_batch_as_a_row(mixed, tmp_path):
    ds = mindrecord.MindDataset(mixed, shuffle=False, columns_list=["label", "vec"]).batch(
        8, pad_info={"vec": ([3], -1.0)})
    out = str(tmp_path / "batches.mindrecord")
    ds.save(out)
    assert schema_of(out) == {"label": {"type": "int32", "shape": [-1]},
                              "vec": {"type": "float32", "shape": [-1, 3]}}
    got = rows_of(out)
    want = list(ds.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert len(got) == len(want) == 13
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g["label"], w["label"])
        np.testing.assert_array_equal(g["vec"], w["vec"])
    assert got[-1]["label"].shape == (4,)
    ragged = mindrecord.MindDataset(mixed, shuffle=False, columns_list=["vec"]).batch(8)
    with pytest.raises(ValueError, match="batch 0, column 'vec'.*differ in shape"):
        ragged.save(str(tmp_path / "ragged.mindrecord"))
    assert not os.path.exists(tmp_path / "ragged.mindrecord")


def test_punctuation_in_column_names_becomes_underscore(mixed, tmp_path):
    ds = mindrecord.MindDataset(mixed, shuffle=False, columns_list=["label", "name"]).rename(
        ["label", "name"], ["class.id", "file-name"])
    out = str(tmp_path / "renamed.mindrecord")
    ds.save(out)
    assert schema_of(out) == {"class_id": {"type": "int32"}, "file_name": {"type": "string"}}
    clash = mindrecord.MindDataset(mixed, shuffle=False, columns_list=["label", "name"]).rename(
        ["label", "name"], ["a.b", "a_b"])
    with pytest.raises(ValueError, match="columns 'a.b' and 'a_b' both become field 'a_b'"):
        clash.save(str(tmp_path / "clash.mindrecord"))


def only_these(tmp_path, *names):
    return sorted(os.listdir(tmp_path)) == sorted(names)


def test_a_row_that_disagrees_with_the_first_is_an_error_and_nothing_is_left(mixed, tmp_path):
    def grow(label):
        i = int(label)
        return np.zeros((2, 3 if i < 60 else 4), np.float32)
    ds = mindrecord.MindDataset(mixed, shuffle=False, columns_list=["label"]).map(grow, input_columns=["label"])
    out = str(tmp_path / "bad.mindrecord")
    with pytest.raises(ValueError, match=r"row 60 \(row id 60\), column 'label': shape \[2, 4\] where the first "
                                         r"row has \[2, 3\] \(any first dimension\)"):
        ds.save(out)
    assert only_these(tmp_path, "mixed.mindrecord", "mixed.mindrecord.db")  # no file, no temporary


def test_an_error_in_the_pipeline_leaves_nothing(mixed, tmp_path):
    def fail_late(label):
        if int(label) == 80:
            raise KeyError("row 80 is bad")
        return label
    ds = mindrecord.MindDataset(mixed, shuffle=False, columns_list=["label"]).map(fail_late, input_columns=["label"])
    with pytest.raises(RuntimeError, match="row 80 is bad"):
        ds.save(str(tmp_path / "failed.mindrecord"), num_files=2)
    assert only_these(tmp_path, "mixed.mindrecord", "mixed.mindrecord.db")


def test_arguments_are_checked_as_mindspore_checks_them(mixed, tmp_path):
    ds = mindrecord.MindDataset(mixed, shuffle=False)
    out = str(tmp_path / "x.mindrecord")
    with pytest.raises(TypeError, match="file_name"):
        ds.save(7)
    with pytest.raises(TypeError, match="num_files"):
        ds.save(out, num_files=True)
    with pytest.raises(ValueError, match=r"num_files is not within the required interval of \[1, 1000\]"):
        ds.save(out, num_files=0)
    with pytest.raises(ValueError, match=r"\[1, 1000\]"):
        ds.save(out, num_files=1001)
    with pytest.raises(ValueError, match="tfrecord dataset format is not supported"):
        ds.save(out, file_type="tfrecord")
    with pytest.raises(ValueError, match="is a directory"):
        ds.save(str(tmp_path))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ds.save(str(tmp_path / "no" / "x.mindrecord"))
    with pytest.raises(ValueError, match="endlessly repeated"):
        ds.repeat().save(out)
    with pytest.raises(mindrecord.AlreadyExistsError, match="already exist: .*mixed.mindrecord"):
        ds.save(mixed)
    seen = []

    class Count(mindrecord.DSCallback):
        def ds_step_begin(self, ds_run_context):
            seen.append(1)
    with pytest.raises(NotImplementedError, match="callbacks"):
        ds.map(lambda x: x, input_columns=["label"], callbacks=[Count()]).save(out)
    assert only_these(tmp_path, "mixed.mindrecord", "mixed.mindrecord.db")


def test_an_empty_dataset_is_an_error(mixed, tmp_path):
    ds = mindrecord.MindDataset(mixed, shuffle=False).filter(lambda label: False, input_columns=["label"])
    with pytest.raises(ValueError, match="no rows"):
        ds.save(str(tmp_path / "empty.mindrecord"))
    assert only_these(tmp_path, "mixed.mindrecord", "mixed.mindrecord.db")


def test_a_file_mindspore_wrote_saves_to_the_same_rows(tmp_path):
    d = compat_path("mindrecord", "imagenet")
    src = os.path.join(d, "imagenet.mindrecord0")
    out = str(tmp_path / "imagenet.mindrecord")
    mindrecord.MindDataset(src, shuffle=False).save(out)
    assert schema_of(out) == {"data": {"type": "bytes"}, "file_name": {"type": "string"},
                              "label": {"type": "int64"}}
    want = list(mindrecord.MindDataset(src, shuffle=False).create_dict_iterator(num_epochs=1, output_numpy=True))
    got = rows_of(out)
    assert len(got) == len(want) == 20
    for g, w in zip(got, want):
        assert g["data"] == w["data"].tobytes() and g["label"] == int(w["label"]) and g["file_name"] == str(w["file_name"])


def test_a_raw_folder_saves(tmp_path):
    from PIL import Image
    root = tmp_path / "folder"
    for c in ("cat", "dog"):
        (root / c).mkdir(parents=True)
        for i in range(3):
            Image.new("RGB", (8, 6), (i * 40, 10, 20)).save(str(root / c / ("%d.png" % i)))
    ds = mindrecord.ImageFolderDataset(str(root), shuffle=False)
    out = str(tmp_path / "folder.mindrecord")
    ds.save(out)
    assert schema_of(out) == {"image": {"type": "bytes"}, "label": {"type": "int32"}}
    got = rows_of(out)
    want = list(ds.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert [(g["image"], g["label"]) for g in got] == [(w["image"].tobytes(), int(w["label"])) for w in want]


def test_a_zipped_dataset_saves(tmp_path):
    a = write_simple(str(tmp_path / "a.mindrecord"), 10)
    left = mindrecord.MindDataset(a, shuffle=False, columns_list=["id"])
    right = mindrecord.MindDataset(a, shuffle=False, columns_list=["vec"])
    out = str(tmp_path / "zipped.mindrecord")
    mindrecord.zip((left, right)).save(out)
    got = rows_of(out)
    assert [r["id"] for r in got] == list(range(10))
    np.testing.assert_array_equal(got[4]["vec"], np.full(3, 4, np.float32))
    assert schema_of(out) == {"id": {"type": "int64"}, "vec": {"type": "float32", "shape": [-1]}}
