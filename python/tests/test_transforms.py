"""mindrecord.transforms (MindSpore's mindspore.dataset.transforms): ops over
ops and OneHot / TypeCast, used as MindSpore code uses them, eagerly and in
MindDataset.map, against numpy references."""
import math

import numpy as np
import pytest

import mindrecord
from mindrecord import transforms, vision

IMG = (np.arange(20 * 30 * 3) % 251).astype(np.uint8).reshape(20, 30, 3)


def binomial_ok(hits, n, p):
    return abs(hits / n - p) <= 5 * math.sqrt(p * (1 - p) / n)


def add(k):
    def f(x):
        return x * 10 + k
    f.__qualname__ = "add%d" % k
    return f


def test_compose_runs_ops_and_callables_in_order():
    op = transforms.Compose([vision.RandomVerticalFlip(1.0), lambda x: 255 - x, vision.Rescale(1.0 / 255.0, 0.0)])
    np.testing.assert_allclose(op(IMG), (255 - IMG[::-1]) / 255.0, atol=1e-6)
    nested = transforms.Compose([transforms.Compose([add(1), add(2)]), add(3)])
    assert int(nested(np.array(0, np.int64))) == 123
    with pytest.raises(ValueError, match="Compose: transforms must not be empty"):
        transforms.Compose([])
    with pytest.raises(TypeError, match="Compose: transforms must be a list"):
        transforms.Compose(vision.HWC2CHW())


def test_random_apply_choice_order_distributions():
    x = np.array(0, np.int64)
    n = 3000
    ra = transforms.RandomApply([add(1), add(2)], prob=0.3)
    outs = [int(ra(x, seed=s)) for s in range(n)]
    assert set(outs) == {0, 12} and binomial_ok(outs.count(12), n, 0.3)
    assert [int(ra(x, seed=s)) for s in range(50)] == outs[:50]  # seeded
    assert transforms.RandomApply([add(1)]).spec()["prob"] == 0.5  # MindSpore's default
    rc = transforms.RandomChoice([add(1), add(2), add(3)])
    outs = [int(rc(x, seed=s)) for s in range(n)]
    for k in (1, 2, 3):
        assert binomial_ok(outs.count(k), n, 1 / 3)
    ro = transforms.RandomOrder([add(1), add(2), add(3)])
    outs = [int(ro(x, seed=s)) for s in range(n)]
    assert set(outs) == {123, 132, 213, 231, 312, 321}
    for v in set(outs):
        assert binomial_ok(outs.count(v), n, 1 / 6)
    with pytest.raises(ValueError, match="RandomApply: prob"):
        transforms.RandomApply([add(1)], prob=1.5)


def test_one_hot_and_type_cast_match_numpy():
    labels = np.array([0, 3, 9, 4], np.int32)
    out = transforms.OneHot(10)(labels)
    np.testing.assert_array_equal(out, np.eye(10, dtype=np.int32)[labels])
    assert out.dtype == np.int32
    scalar = transforms.OneHot(5)(np.array(2, np.int64))
    assert scalar.shape == (5,) and scalar.dtype == np.int64
    smooth = transforms.OneHot(4, smoothing_rate=0.2)(labels[:2] % 4)
    np.testing.assert_allclose(smooth, 0.8 * np.eye(4)[labels[:2] % 4] + 0.05, atol=1e-7)
    assert smooth.dtype == np.float32
    with pytest.raises(ValueError, match="OneHot: label 10"):
        transforms.OneHot(10)(np.array([10], np.int32))
    with pytest.raises(ValueError, match="integer labels"):
        transforms.OneHot(10)(np.array([1.0], np.float32))
    with pytest.raises(ValueError, match="OneHot: smoothing_rate"):
        transforms.OneHot(10, smoothing_rate=2.0)
    with pytest.raises(TypeError, match="OneHot: num_classes"):
        transforms.OneHot(2.5)
    assert transforms.TypeCast is vision.TypeCast
    np.testing.assert_array_equal(transforms.TypeCast(np.float32)(labels), labels.astype(np.float32))


def test_combinators_in_a_pipeline_with_callables(tmp_path):
    path = str(tmp_path / "lab.mindrecord")
    w = mindrecord.FileWriter(path)
    w.add_schema({"label": {"type": "int64"}, "id": {"type": "int64"}})
    w.write_raw_data([{"label": i % 7, "id": i} for i in range(40)])
    w.commit()

    def run(workers):
        ds = mindrecord.MindDataset(path, shuffle=False, num_parallel_workers=workers, seed=3)
        ds = ds.map(operations=[transforms.RandomChoice([add(1), add(2)]),
                                transforms.RandomApply([add(3), transforms.Compose([add(4), add(5)])], prob=0.5)],
                    input_columns="id")
        ds = ds.map(operations=transforms.OneHot(7), input_columns="label")
        return list(ds.create_dict_iterator(output_numpy=True))
    a, b = run(1), run(3)
    assert [int(r["id"]) for r in a] == [int(r["id"]) for r in b]  # seeded per row, not per worker
    ids = [int(r["id"]) for r in a]
    for i, v in enumerate(ids):
        base = {i * 10 + 1, i * 10 + 2}
        assert v in base | {b * 1000 + 345 for b in base}, (i, v)
    assert 0 < sum(v >= 1000 for v in ids) < 40
    for i, r in enumerate(a):
        np.testing.assert_array_equal(r["label"], np.eye(7, dtype=np.int64)[i % 7])
