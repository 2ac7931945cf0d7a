"""Hostile inputs through the Python API: clear errors, never an abort."""
import numpy as np
import pytest

import mindrecord
from conftest import write_simple

PAD = {"id": -1, "label": 9, "vec": np.array([0.5, 1.5, 2.5], np.float32)}


def test_absurd_num_padded_is_refused(tmp_path):
    # 2**42 padded rows was accepted and aborted the process on the first row.
    ten = write_simple(str(tmp_path / "ten.mindrecord"), 10)
    with pytest.raises(ValueError, match=r"num_padded 4398046511104 is more than the dataset's 10 rows plus "
                                         r"num_shards 2"):
        mindrecord.MindDataset(ten, num_shards=2, shard_id=0, padded_sample=PAD, num_padded=2 ** 42)
    # The largest allowed count still works.
    ds = mindrecord.MindDataset(ten, num_shards=2, shard_id=1, padded_sample=PAD, num_padded=12, shuffle=False)
    assert ds.get_dataset_size() == 11


def test_lone_surrogate_is_a_value_error(tmp_path):
    w = mindrecord.FileWriter(str(tmp_path / "s.mindrecord"))
    w.add_schema({"s": {"type": "string"}, "f": {"type": "float32"}})
    with pytest.raises(ValueError, match=r"row 0: field 's' \(string\): the string 'a\\udc80b' holds a lone "
                                         r"surrogate"):
        w.write_raw_data([{"s": "a\udc80b", "f": 1.0}])
    with pytest.raises(ValueError, match=r"field 'f' \(float32\): beyond float32's range"):
        w.write_raw_data([{"s": "ok", "f": 1e300}])
    w.write_raw_data([{"s": "ok", "f": 0.1}])
    w.commit()
    assert [r["s"] for r in mindrecord.FileReader(str(tmp_path / "s.mindrecord")).get_next()] == ["ok"]
