"""Mid-epoch resume of the PyTorch adapter (StatefulDataLoader, state_dict)
and its int64 labels (issue 21 item 3)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mindrecord.torch import MindRecordDataset, StatefulDataLoader  # noqa: E402
from conftest import write_simple  # noqa: E402


@pytest.fixture(scope="module")
def simple(tmp_path_factory):
    return write_simple(str(tmp_path_factory.mktemp("r") / "r.mindrecord"), 97, shard_num=2) + "0"


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    import mindrecord
    from test_dataset import _png
    path = str(tmp_path_factory.mktemp("i") / "i.mindrecord")
    w = mindrecord.FileWriter(path, 1)
    w.add_schema({"id": {"type": "int64"}, "image": {"type": "bytes"}, "label": {"type": "int32"}}, "images")
    w.write_raw_data([{"id": i, "image": _png(8, 6, i)[0], "label": i % 3} for i in range(45)])
    w.commit()
    return path


def items(loader, take=None):
    out = []
    for b in loader:
        out.append(b)
        if take is not None and len(out) == take:
            break
    return out


def ids(batches):
    return [b["id"].reshape(-1).tolist() for b in batches]


def make(path, **kw):
    kw.setdefault("columns", ["id", "label"])
    kw.setdefault("seed", 3)
    return MindRecordDataset(path, **kw)


@pytest.mark.parametrize("workers,persistent,resume_workers", [(0, False, 0), (2, False, 2), (2, True, 2),
                                                                (2, False, 3), (3, False, 0)])
def test_loader_resumes_exactly_mid_epoch(simple, workers, persistent, resume_workers):
    ref = make(simple, batch_size=8)
    ref.set_epoch(1)
    want1 = ids(items(torch.utils.data.DataLoader(ref, batch_size=None)))
    ref.set_epoch(2)
    want2 = ids(items(torch.utils.data.DataLoader(ref, batch_size=None)))
    assert len(want1) == 13 and sorted(sum(want1, [])) == list(range(97))

    ds = make(simple, batch_size=8)
    loader = StatefulDataLoader(ds, num_workers=workers, persistent_workers=persistent)
    ds.set_epoch(1)
    got = []
    for step, b in enumerate(loader):
        got.append(b["id"].tolist())
        if step == 4:
            state = loader.state_dict()
            break
    assert got == want1[:5]
    assert state["epoch"] == 1 and state["position"] == 40

    # A new process's objects: the rest of epoch 1, then all of epoch 2.
    ds2 = make(simple, batch_size=8)
    loader2 = StatefulDataLoader(ds2, num_workers=resume_workers, persistent_workers=persistent and resume_workers > 0)
    loader2.load_state_dict(state)
    ds2.set_epoch(1)
    rest = ids(items(loader2))
    assert rest == want1[5:]
    assert loader2.state_dict()["position"] == 97
    ds2.set_epoch(2)
    assert ids(items(loader2)) == want2
    # The state applies once: the same epoch again is whole.
    ds2.set_epoch(2)
    assert ids(items(loader2)) == want2


@pytest.mark.parametrize("workers", [0, 2])
def test_loader_resumes_rows_and_the_last_epoch_state(simple, workers):
    ref = make(simple)
    want = [int(r["id"]) for r in torch.utils.data.DataLoader(ref, batch_size=None)]
    ds = make(simple)
    loader = StatefulDataLoader(ds, num_workers=workers)
    taken = [int(r["id"]) for r in items(loader, 37)]
    assert taken == want[:37]
    state = loader.state_dict()
    assert state["position"] == 37
    ds2 = make(simple)
    loader2 = StatefulDataLoader(ds2, num_workers={0: 3, 2: 1}[workers])
    loader2.load_state_dict(state)
    assert [int(r["id"]) for r in loader2] == want[37:]
    # Saved at the epoch's end, the epoch resumes empty; the next one is whole.
    end = loader2.state_dict()
    ds3 = make(simple)
    loader3 = StatefulDataLoader(ds3, num_workers=workers)
    loader3.load_state_dict(end)
    assert list(loader3) == []
    ds3.set_epoch(1)
    assert len(list(loader3)) == 97


def test_random_ops_resume_with_the_same_draws(images):
    from mindrecord import vision
    ops = {"image": [vision.Decode(), vision.RandomCrop(4), vision.RandomHorizontalFlip(), vision.HWC2CHW()]}
    cols = ["id", "image"]
    full = items(StatefulDataLoader(make(images, columns=cols, ops=ops, batch_size=4), num_workers=2))
    loader = StatefulDataLoader(make(images, columns=cols, ops=ops, batch_size=4), num_workers=2)
    items(loader, 5)
    state = loader.state_dict()
    loader2 = StatefulDataLoader(make(images, columns=cols, ops=ops, batch_size=4), num_workers=2)
    loader2.load_state_dict(state)
    rest = items(loader2)
    assert len(rest) == len(full) - 5 == 7
    for a, b in zip(rest, full[5:]):
        assert torch.equal(a["id"], b["id"]) and torch.equal(a["image"], b["image"])


@pytest.mark.parametrize("batch_size", [8, None])
def test_dataset_state_in_process(simple, batch_size):
    ref = make(simple, batch_size=batch_size)
    want = [b["id"].reshape(-1).tolist() for b in ref]
    ds = make(simple, batch_size=batch_size)
    it = iter(ds)
    taken = [next(it)["id"].reshape(-1).tolist() for _ in range(70 if batch_size is None else 3)]
    state = ds.state_dict()
    assert state["position"] == (70 if batch_size is None else 24)  # mid-chunk for rows
    ds2 = make(simple, batch_size=batch_size)
    ds2.load_state_dict(state)
    assert taken + [b["id"].reshape(-1).tolist() for b in ds2] == want
    assert [b["id"].reshape(-1).tolist() for b in ds2] == want  # applied once
    # Through DataLoader(num_workers=0) the dataset's own state is exact too.
    ds3 = make(simple, batch_size=batch_size)
    ds3.load_state_dict(state)
    assert [b["id"].reshape(-1).tolist() for b in torch.utils.data.DataLoader(ds3, batch_size=None)] == want[len(taken):]


def test_ranks_resume_their_own_split(simple):
    for rank in range(2):
        want = ids(items(make(simple, batch_size=5, rank=rank, world_size=2)))
        loader = StatefulDataLoader(make(simple, batch_size=5, rank=rank, world_size=2), num_workers=2)
        items(loader, 4)
        state = loader.state_dict()
        other = make(simple, batch_size=5, rank=1 - rank, world_size=2)
        with pytest.raises(ValueError, match="another dataset"):
            other.load_state_dict(state)
        loader2 = StatefulDataLoader(make(simple, batch_size=5, rank=rank, world_size=2), num_workers=2)
        loader2.load_state_dict(state)
        assert ids(items(loader2)) == want[4:]


def test_misuse_is_an_error(simple):
    ds = make(simple, batch_size=8)
    items(torch.utils.data.DataLoader(ds, batch_size=None, num_workers=2), 2)
    # Workers read ahead of the loop: the dataset cannot know what was taken.
    with pytest.raises(RuntimeError, match="StatefulDataLoader"):
        ds.state_dict()
    state = make(simple, batch_size=8).state_dict()
    assert state["epoch"] == 0 and state["position"] == 0
    ds.load_state_dict(dict(state, position=16))
    with pytest.raises(RuntimeError, match="StatefulDataLoader"):
        list(torch.utils.data.DataLoader(ds, batch_size=None, num_workers=2))
    for bad, match in [(dict(state, position=12), "not a start"), (dict(state, position=98), "not a start"),
                       ({"epoch": 0}, "state must be"), (make(simple, batch_size=4).state_dict(), "another dataset"),
                       (make(simple, batch_size=8, seed=4).state_dict(), "another dataset")]:
        with pytest.raises(ValueError, match=match):
            make(simple, batch_size=8).load_state_dict(bad)
    with pytest.raises(ValueError, match="batch_size"):
        StatefulDataLoader(make(simple), batch_size=4)
    with pytest.raises(TypeError, match="MindRecordDataset"):
        StatefulDataLoader(list(range(3)))


def test_int32_columns_come_out_int64(simple):
    # Labels came out int32, which torch's losses refuse for class indices.
    b = next(iter(make(simple, batch_size=8, columns=["id", "label", "vec"])))
    assert b["label"].dtype == torch.int64 and b["vec"].dtype == torch.float32
    loss = torch.nn.functional.cross_entropy(torch.zeros(8, 5), b["label"])
    assert float(loss) > 0
    assert make(simple)[0]["label"].dtype == torch.int64
    kept = next(iter(make(simple, batch_size=8, int32_as_int64=False)))
    assert kept["label"].dtype == torch.int32 and torch.equal(kept["label"].long(), b["label"])
    # A column with its own ops keeps what they give.
    own = next(iter(make(simple, batch_size=8, ops={"label": [lambda v: v.astype(np.int16)]})))
    assert own["label"].dtype == torch.int16
    with pytest.raises(TypeError, match="int32_as_int64"):
        make(simple, int32_as_int64=1)
