"""DatasetCache (MindSpore's cache=) on MindDataset and map: the same rows,
order and resume state as without it, later epochs and a second process
served from the cache, random ops refused, DataLoader workers sharing it."""
import glob
import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

import mindrecord
from mindrecord import DatasetCache, MindDataset, vision

ROWS = 48


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("cache") / "img.mindrecord")
    w = mindrecord.FileWriter(path, 1)
    w.add_schema({"image": {"type": "bytes"}, "label": {"type": "int32"}}, "img")
    rng = np.random.default_rng(3)
    rows = []
    for i in range(ROWS):
        buf = io.BytesIO()
        Image.fromarray(rng.integers(0, 255, (40 + i % 7, 56, 3), dtype=np.uint8)).save(buf, "JPEG", quality=90)
        rows.append({"image": buf.getvalue(), "label": i})
    w.write_raw_data(rows)
    w.commit()
    return path


def images_ds(path, cache=None, map_cache=None, workers=3):
    """Decode + Resize (cacheable), then a random flip, batches of 8. The
    project() makes it an execution tree with or without a cache (a cache
    needs one), so the random ops draw the same numbers in both."""
    ds = MindDataset(path, shuffle=True, seed=5, num_parallel_workers=workers, cache=cache).project(["image", "label"])
    ds = ds.map([vision.Decode(), vision.Resize((24, 24))], input_columns=["image"], cache=map_cache)
    ds = ds.map([vision.RandomHorizontalFlip()], input_columns=["image"])
    return ds.batch(8)


def run(ds, epochs):
    """Every epoch's batches (lists of numpy arrays) and the iterator's stats."""
    it = ds.create_tuple_iterator(num_epochs=epochs, output_numpy=True)
    out = [[[a.copy() for a in b] for b in it] for _ in range(epochs)]
    return out, it.stats()


def same(a, b):
    return len(a) == len(b) and all(len(x) == len(y) and all(
        all(np.array_equal(p, q) for p, q in zip(bx, by)) for bx, by in zip(x, y)) for x, y in zip(a, b))


def test_map_cache_gives_the_same_rows_and_later_epochs_hit(images, tmp_path):
    expected, _ = run(images_ds(images), 3)
    cache = DatasetCache(session_id=1, size=64, dir=str(tmp_path))
    got, st = run(images_ds(images, map_cache=cache), 3)
    assert same(got, expected)
    c = st["cache"][0]
    assert c["hits"] + c["misses"] == 3 * ROWS
    assert c["hits"] >= ROWS  # the last epoch at least is served from the cache
    assert c["entries"] == ROWS and 0 < c["bytes"] <= 64 << 20
    assert len(glob.glob(str(tmp_path / "1" / "*" / "e" / "[0-9]*"))) == ROWS
    # A new dataset (as a second job would build) starts warm.
    got, st = run(images_ds(images, map_cache=cache), 2)
    assert same(got, expected[:2])
    assert st["cache"][0]["hits"] == 2 * ROWS and st["cache"][0]["misses"] == 0


def test_mind_dataset_cache_keeps_rows_as_read(images, tmp_path):
    expected, _ = run(images_ds(images), 2)
    got, st = run(images_ds(images, cache=DatasetCache(7, dir=str(tmp_path))), 2)
    assert same(got, expected)
    assert st["cache"][0]["entries"] == ROWS
    assert st["cache"][0]["hits"] + st["cache"][0]["misses"] == 2 * ROWS


def test_state_dict_resumes_across_cached_and_plain(images, tmp_path):
    cache = DatasetCache("resume", dir=str(tmp_path))
    full, _ = run(images_ds(images), 1)
    ds = images_ds(images, map_cache=cache)
    it = ds.create_tuple_iterator(num_epochs=1, output_numpy=True)
    head = [[a.copy() for a in next(it)] for _ in range(2)]
    state = ds.state_dict()
    it.close()
    plain = images_ds(images)
    plain.load_state_dict(state)
    rest, _ = run(plain, 1)
    assert same([head + rest[0]], full)


def test_cache_after_a_random_op_is_refused(images, tmp_path):
    ds = MindDataset(images, shuffle=False)
    with pytest.raises(ValueError, match="random op .*RandomResizedCrop"):
        ds.map([vision.Decode(), vision.RandomResizedCrop(16)], input_columns=["image"],
               cache=DatasetCache(2, dir=str(tmp_path)))
    with pytest.raises(ValueError, match="after batch"):
        ds.batch(2).map([vision.Rescale(1.0, 0.0)], input_columns=["label"], cache=DatasetCache(2, dir=str(tmp_path)))
    with pytest.raises(TypeError, match="DatasetCache"):
        MindDataset(images, cache="yes")


@pytest.mark.parametrize("kwargs,name", [({"spilling": True}, "spilling"), ({"hostname": "127.0.0.1"}, "hostname"),
                                         ({"port": 50052}, "port"), ({"num_connections": 12}, "num_connections"),
                                         ({"prefetch_size": 20}, "prefetch_size")])
def test_unsupported_arguments_are_named(kwargs, name):
    with pytest.raises(NotImplementedError, match=name):
        DatasetCache(1, **kwargs)


SCRIPT = r"""
import hashlib, json, sys
sys.path.insert(0, sys.argv[3])
from test_cache import images_ds, run
from mindrecord import DatasetCache
out, st = run(images_ds(sys.argv[1], map_cache=DatasetCache(9, dir=sys.argv[2])), 1)
h = hashlib.sha256(b"".join(a.tobytes() for e in out for b in e for a in b)).hexdigest()
print(json.dumps({"digest": h, "cache": st["cache"][0]}))
"""


def test_a_second_process_starts_warm(images, tmp_path):
    here = os.path.dirname(os.path.abspath(__file__))

    def job():
        r = subprocess.run([sys.executable, "-c", SCRIPT, images, str(tmp_path), here], capture_output=True,
                           text=True, env=dict(os.environ), check=True)
        return json.loads(r.stdout.strip().splitlines()[-1])

    cold, warm = job(), job()
    assert cold["digest"] == warm["digest"]
    assert cold["cache"]["misses"] == ROWS and cold["cache"]["hits"] == 0
    assert warm["cache"]["hits"] == ROWS and warm["cache"]["misses"] == 0


def test_torch_dataloader_workers_share_one_cache(images, tmp_path):
    torch = pytest.importorskip("torch")
    from mindrecord.torch import MindRecordDataset

    def ids(ds):
        loader = torch.utils.data.DataLoader(MindRecordDataset(ds, batch_size=4), batch_size=None, num_workers=2)
        out = []
        for b in loader:
            out.extend(b["label"].reshape(-1).tolist())
            assert tuple(b["image"].shape[1:]) == (24, 24, 3)
        return out

    def build(cache):
        ds = MindDataset(images, shuffle=True, seed=5)
        return ds.map([vision.Decode(), vision.Resize((24, 24))], input_columns=["image"], cache=cache)

    expected = ids(build(None))
    assert sorted(expected) == list(range(ROWS))
    cache = DatasetCache(4, dir=str(tmp_path))
    assert ids(build(cache)) == expected
    # Each worker stored its own rows into the one cache: all rows are there.
    files = glob.glob(str(tmp_path / "4" / "*" / "e" / "[0-9]*"))
    assert len(files) == ROWS
    assert ids(build(cache)) == expected
