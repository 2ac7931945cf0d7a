"""The one conversion of row values to Python objects (python/bind_values.cc):
the value styles RowStream offers (python, numpy, mindspore), with and
without zero copy, give the same values in the promised types."""
import json

import numpy as np
import pytest

import mindrecord
from mindrecord import _core


@pytest.fixture(scope="module")
def rows_path(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("values") / "v.mindrecord")
    w = mindrecord.FileWriter(path, 1)
    w.add_schema({"i": {"type": "int32"}, "l": {"type": "int64"}, "f": {"type": "float32"},
                  "d": {"type": "float64"}, "s": {"type": "string"}, "b": {"type": "bytes"},
                  "a": {"type": "float64", "shape": [2, -1]}, "n": {"type": "int64", "shape": [-1]}}, "values")
    w.write_raw_data([{"i": -k, "l": k << 40, "f": k / 2, "d": k / 3, "s": "é%d" % k, "b": bytes([k % 256]) * k,
                       "a": np.arange(2 * k, dtype=np.float64).reshape(2, k),
                       "n": np.arange(k, dtype=np.int64) - 7} for k in range(1, 300)])
    w.commit()
    return path


def _rows(path, style, zero_copy):
    plan = json.dumps(mindrecord.MindDataset(path, shuffle=False)._full_plan(1))
    stream = _core.RowStream(plan, None, 16 << 20, style, zero_copy)
    out = []
    while (chunk := stream.next_chunk()) is not None:
        out.extend(chunk)
    return out


def _expect(k):
    return {"i": -k, "l": k << 40, "f": k / 2, "d": k / 3, "s": "é%d" % k, "b": bytes([k % 256]) * k,
            "a": np.arange(2 * k, dtype=np.float64).reshape(2, k), "n": np.arange(k, dtype=np.int64) - 7}


@pytest.mark.parametrize("zero_copy", [False, True])
def test_mindspore_style(rows_path, zero_copy):
    rows = _rows(rows_path, "mindspore", zero_copy)
    assert len(rows) == 299
    for k, r in enumerate(rows, start=1):
        e = _expect(k)
        for name, dtype in (("i", np.int32), ("l", np.int64), ("f", np.float32), ("d", np.float64)):
            assert isinstance(r[name], np.ndarray) and r[name].shape == () and r[name].dtype == dtype
            assert r[name] == dtype(e[name])
        assert r["s"].shape == () and r["s"].dtype.kind == "U" and str(r["s"]) == e["s"]
        assert r["b"].dtype == np.uint8 and r["b"].shape == (k,) and r["b"].tobytes() == e["b"]
        assert np.array_equal(r["a"], e["a"]) and r["a"].shape == (2, k)
        assert np.array_equal(r["n"], e["n"]) and r["n"].dtype == np.int64  # v3.0-packed: unpacked, a copy
        assert r["n"].flags.writeable and r["i"].flags.writeable
        # Views of the mapping are read-only; copies are the caller's.
        assert r["b"].flags.writeable == (not zero_copy)
        assert r["a"].flags.writeable == (not zero_copy)
    if not zero_copy:
        # Copies share blocks of memory: writing one row's values changes no other row.
        for r in rows:
            r["b"][:] = 0
            r["a"][:] = -1
            r["i"][()] = 0
        fresh = _rows(rows_path, "mindspore", False)
        assert all(f["b"].tobytes() == _expect(k)["b"] for k, f in enumerate(fresh, start=1))
        assert all(int(r["l"]) == _expect(k)["l"] for k, r in enumerate(rows, start=1))


@pytest.mark.parametrize("style", ["python", "numpy"])
@pytest.mark.parametrize("zero_copy", [False, True])
def test_python_and_numpy_styles(rows_path, style, zero_copy):
    for k, r in enumerate(_rows(rows_path, style, zero_copy), start=1):
        e = _expect(k)
        scalar = {"python": (int, int, float, float), "numpy": (np.int32, np.int64, np.float32, np.float64)}[style]
        for name, t in zip("ilfd", scalar):
            assert type(r[name]) is t and r[name] == (np.float32(e[name]) if name == "f" else e[name])
        assert type(r["s"]) is str and r["s"] == e["s"]
        if zero_copy:
            assert isinstance(r["b"], memoryview) and r["b"].readonly and bytes(r["b"]) == e["b"]
        else:
            assert type(r["b"]) is bytes and r["b"] == e["b"]
        assert np.array_equal(r["a"], e["a"]) and np.array_equal(r["n"], e["n"])


def test_unknown_style_is_refused(rows_path):
    plan = json.dumps(mindrecord.MindDataset(rows_path, shuffle=False)._full_plan(1))
    with pytest.raises(ValueError, match="value style 'torch' is not one of python, numpy, mindspore"):
        _core.RowStream(plan, None, 16 << 20, "torch", False)


def test_copies_are_made_in_pooled_blocks(tmp_path):
    # Row copies (and a batch's ragged bytes) are placed in blocks of at least
    # 64 KiB; the blocks come from the tensor pool, so an epoch reuses the
    # previous epoch's blocks instead of mapping and faulting in new memory.
    # A value kept alive keeps its block out of the pool.
    path = str(tmp_path / "p.mindrecord")
    w = mindrecord.FileWriter(path, 1)
    w.add_schema({"b": {"type": "bytes"}}, "pooled")
    w.write_raw_data([{"b": bytes([k % 251]) * (1000 + k % 50)} for k in range(3000)])
    w.commit()

    def expect(k):
        return bytes([k % 251]) * (1000 + k % 50)

    def hits():
        return _core.tensor_pool_stats()["hits"]

    kept = None
    for ds in (mindrecord.MindDataset(path, shuffle=False),
               mindrecord.MindDataset(path, shuffle=False).batch(100)):
        for epoch in range(3):
            before = hits()
            values = []
            for item in ds.create_dict_iterator(num_epochs=1, output_numpy=True):
                values.extend(item["b"] if isinstance(item["b"], list) else [item["b"]])
            assert [v.tobytes() for v in values] == [expect(k) for k in range(3000)]
            assert all(v.flags.writeable for v in values)
            if epoch == 0:
                kept = values[::700]  # alive across the next epochs
            else:
                assert hits() > before, "the epoch's blocks did not come from the pool"
            del values
        assert [v.tobytes() for v in kept] == [expect(k) for k in range(0, 3000, 700)]
