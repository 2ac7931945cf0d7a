"""MindSpore parity (issue 17): FileWriter, FileReader and MindPage written
the MindSpore way (`from mindrecord import ...` in place of
`from mindspore.mindrecord import ...`), each asserting MindSpore's
documented result (its API docs and its tests/ut/python/mindrecord suite)."""
import os
import threading

import numpy as np
import pytest

from mindrecord import (FAILED, SUCCESS, FileReader, FileWriter, MindPage, MindRecordException, MRMDefineIndexError,
                        MRMGetMetaError, MRMInvalidSchemaError, MRMValidateDataError, ParamTypeError,
                        ParamValueError)

CV_SCHEMA = {"file_name": {"type": "string"}, "label": {"type": "int64"}, "data": {"type": "bytes"}}


def cv_rows(n, start=0):
    return [{"file_name": "%03d.jpg" % i, "label": i % 5, "data": bytes([i % 256]) * (10 + i)}
            for i in range(start, start + n)]


def write_cv(path, rows, shard_num=1):
    writer = FileWriter(path, shard_num)
    writer.add_schema(CV_SCHEMA, "img_schema")
    writer.add_index(["file_name", "label"])
    assert writer.write_raw_data(rows) == SUCCESS
    assert writer.commit() == SUCCESS
    return path if shard_num == 1 else path + "0"


def test_status_values_and_exception_classes():
    assert SUCCESS == 0 and FAILED == 1
    err = ParamValueError("shard_num is bad")
    assert isinstance(err, MindRecordException) and isinstance(err, ValueError)
    assert str(err) == "[ParamValueError]: Invalid parameter value. shard_num is bad"
    assert err.error_msg == "Invalid parameter value. shard_num is bad"
    assert str(ParamTypeError("raw_data", "list")) == "[ParamTypeError]: Invalid parameter type. 'raw_data' " \
                                                      "expect list type."


def test_writer_parameters_as_mindspore_checks_them(tmp_path):
    with pytest.raises(Exception, match="Parameter shard_num is None."):
        FileWriter(str(tmp_path / "a"), None)
    with pytest.raises(Exception, match="Parameter overwrite's type is not bool."):
        FileWriter(str(tmp_path / "a"), 4, 1)
    with pytest.raises(Exception, match="Parameter shard_num's type is not int."):
        FileWriter(str(tmp_path / "a"), "20")
    with pytest.raises(ParamValueError) as err:
        FileWriter(str(tmp_path / "a"), 1001)
    assert "Parameter shard_num's value: 1001 should between 1 and 1000." in str(err.value)
    with pytest.raises(MRMGetMetaError, match="Failed to get meta info"):
        FileWriter(str(tmp_path / "b")).add_index(["label"])
    w = FileWriter(str(tmp_path / "c"))
    with pytest.raises(Exception, match="Schema format is error"):
        w.add_schema({"file_name": {"type": "str"}, "label": {"type": "int32"}}, "bad")
    # 2**64 - 1 is not -1 (a variable dimension)
    with pytest.raises(MRMInvalidSchemaError, match="shape dims must be integers > 0 or -1, not 18446744073709551615"):
        w.add_schema({"v": {"type": "int32", "shape": [2**64 - 1]}}, "bad")
    w.add_schema(CV_SCHEMA, "ok")
    with pytest.raises(MRMDefineIndexError):
        w.add_index(["data"])  # a bytes field is not primitive
    with pytest.raises(ParamTypeError):
        w.write_raw_data("not a list")
    assert isinstance(MRMInvalidSchemaError("x"), ValueError)


@pytest.mark.parametrize("name", ["a:b.mindrecord", "a*b.mindrecord", " lead.mindrecord", "trail.mindrecord ",
                                  "dir/"])
def test_file_names_mindspore_refuses(tmp_path, name):
    with pytest.raises(ParamValueError):
        FileWriter(os.path.join(str(tmp_path), name))
    assert os.listdir(tmp_path) == []


def test_existing_output_and_write_after_commit_are_runtime_errors(tmp_path):
    path = str(tmp_path / "x.mindrecord")
    with open(path + ".db", "w") as f:
        f.write("just for test")
    with pytest.raises(RuntimeError) as err:
        write_cv(path, cv_rows(3))
    assert "Invalid file, mindrecord files already exist. Please check file path:" in str(err.value)
    assert isinstance(err.value, FileExistsError)
    os.remove(path + ".db")
    writer = FileWriter(path)
    writer.add_schema(CV_SCHEMA, "img")
    writer.write_raw_data(cv_rows(3))
    writer.commit()
    with pytest.raises(RuntimeError, match="Not allowed to call `write_raw_data` on flushed MindRecord files"):
        writer.write_raw_data(cv_rows(1))


def test_extra_fields_are_ignored_and_bad_rows_raise_runtime_error(tmp_path):
    path = str(tmp_path / "x.mindrecord")
    writer = FileWriter(path)
    writer.add_schema(CV_SCHEMA, "img")
    rows = cv_rows(4)
    for r in rows:
        r["not_in_schema"] = np.arange(3)
    writer.write_raw_data(rows)
    with pytest.raises(RuntimeError) as err:
        writer.write_raw_data([{"file_name": 1, "label": 43, "data": b"x"}])
    assert isinstance(err.value, MRMValidateDataError)
    writer.commit()
    got = list(FileReader(path).get_next())
    assert [sorted(r) for r in got] == [["data", "file_name", "label"]] * 4
    assert [r["file_name"] for r in got] == ["000.jpg", "001.jpg", "002.jpg", "003.jpg"]


def test_missing_files_are_runtime_errors_naming_the_file(tmp_path):
    with pytest.raises(RuntimeError) as err:
        FileReader(str(tmp_path / "dummy.mindrecord"))
    assert isinstance(err.value, FileNotFoundError) and "dummy.mindrecord" in str(err.value)
    first = write_cv(str(tmp_path / "four"), cv_rows(10), shard_num=4)
    os.remove(str(tmp_path / "four3"))
    with pytest.raises(RuntimeError) as err:
        FileReader(first)
    assert "can not be found. Please check whether the mindrecord file exists and do not rename the mindrecord " \
           "file." in str(err.value) and "four3" in str(err.value)
    with pytest.raises(RuntimeError):
        MindPage(first)


def test_write_raw_data_splits_each_call_into_contiguous_shard_blocks(tmp_path):
    # MindSpore's ShardWriter cuts each write_raw_data batch into one block
    # per shard (shard 0 first), so a sequential read gives the rows in the
    # order written: 10 rows into 4 shards -> 3, 3, 2, 2.
    first = write_cv(str(tmp_path / "blocks"), cv_rows(10), shard_num=4)
    per_shard = [[r["file_name"] for r in FileReader([str(tmp_path / ("blocks%d" % s))]).get_next()]
                 for s in range(4)]
    assert per_shard == [["000.jpg", "001.jpg", "002.jpg"], ["003.jpg", "004.jpg", "005.jpg"],
                         ["006.jpg", "007.jpg"], ["008.jpg", "009.jpg"]]
    assert [r["file_name"] for r in FileReader(first).get_next()] == ["%03d.jpg" % i for i in range(10)]


def test_remainder_rows_rotate_over_shards_across_calls(tmp_path):
    # Deterministic stand-in for MindSpore's random pick of the shards that
    # get one row more: single-row calls spread evenly over the shards.
    writer = FileWriter(str(tmp_path / "rot"), 3)
    writer.add_schema(CV_SCHEMA, "img")
    for i in range(9):
        writer.write_raw_data(cv_rows(1, start=i))
    writer.commit()
    counts = [len(FileReader([str(tmp_path / ("rot%d" % s))])) for s in range(3)]
    assert counts == [3, 3, 3]


def test_file_list_reads_exactly_the_files_listed(tmp_path):
    first = write_cv(str(tmp_path / "a"), cv_rows(8), shard_num=4)
    other = write_cv(str(tmp_path / "b.mindrecord"), cv_rows(3, start=100))
    # One shard alone: only its rows (a path string reads every sibling).
    only = [r["file_name"] for r in FileReader([str(tmp_path / "a2")]).get_next()]
    assert only == ["004.jpg", "005.jpg"]
    assert len(FileReader(first)) == 8
    # Shards of two datasets with the same schema, in the order listed.
    mixed = FileReader([other, str(tmp_path / "a1")])
    assert [r["file_name"] for r in mixed.get_next()] == ["100.jpg", "101.jpg", "102.jpg", "002.jpg", "003.jpg"]
    assert len(mixed) == 5


def test_reader_close_stops_get_next(tmp_path):
    path = write_cv(str(tmp_path / "c.mindrecord"), cv_rows(10))
    reader = FileReader(path)
    reader.close()
    assert list(reader.get_next()) == []  # MindSpore: nothing more, no error
    reader = FileReader(path)
    seen = []
    for row in reader.get_next():
        seen.append(row["file_name"])
        if len(seen) == 3:
            reader.close()
    assert seen == ["000.jpg", "001.jpg", "002.jpg"]
    # close() from another thread ends the loop too.
    reader = FileReader(path)
    it = reader.get_next()
    next(it)
    t = threading.Thread(target=reader.close)
    t.start()
    t.join()
    assert list(it) == []


def test_reader_and_page_parameters(tmp_path):
    with pytest.raises(Exception, match="Parameter num_consumer is None."):
        FileReader("dummy.mindrecord", None)
    with pytest.raises(Exception, match="Parameter num_consumer is not int."):
        FileReader("dummy.mindrecord", "4")
    with pytest.raises(Exception, match="Parameter num_consumer is not int."):
        MindPage("dummy.mindrecord", "2")
    first = write_cv(str(tmp_path / "p"), cv_rows(10), shard_num=4)
    reader = MindPage(first)
    assert reader.candidate_fields == ["file_name", "label"]
    reader.category_field = "label"
    with pytest.raises(ParamValueError):
        reader.read_at_page_by_id(0, "0", 1)
    with pytest.raises(ParamValueError):
        reader.read_at_page_by_name("822", 0, "qwer")
    with pytest.raises(RuntimeError, match=r"Invalid data, category_id: 99999 must be in the range \[0, 5\]."):
        reader.read_at_page_by_id(99999, 0, 1)
    reader.category_field = "file_name"
    with pytest.raises(RuntimeError, match="category_name: abc.jpg could not found."):
        reader.read_at_page_by_name("abc.jpg", 0, 1)
    with pytest.raises(ParamValueError):
        reader.read_at_page_by_name(1, 0, 1)
