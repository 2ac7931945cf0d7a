"""Elastic resume (issue 23 item 4): the states of W ranks taken mid-epoch
resume on W' != W ranks. Across the old ranks' rows handed out and the new
ranks' rest of the epoch, every row comes once (plus the padding copies that
make the new ranks' counts equal: the first rows of the rest, repeated); the
epochs after are those of a fresh W'-rank run."""
from collections import Counter
import itertools

import pytest

import mindrecord
from conftest import write_simple

ROWS = 97


@pytest.fixture(scope="module")
def simple(tmp_path_factory):
    return write_simple(str(tmp_path_factory.mktemp("e") / "e.mindrecord"), ROWS, shard_num=2) + "0"


def dataset(path, world, rank, shuffle=True):
    return mindrecord.MindDataset(path, columns_list=["id"], num_shards=world, shard_id=rank, shuffle=shuffle,
                                  seed=5).batch(4)


def loop_ids(it, take=None):
    """Row ids of one loop (epoch) of a MindDataset iterator, the first
    `take` batches only when given."""
    out = []
    for batch in itertools.islice(it, take):  # never asks for the batch after `take`
        out.extend(batch["id"].reshape(-1).tolist())
    return out


def old_run(path, world, takes, shuffle=True):
    """Each old rank takes takes[r] batches of epoch 0; (states, rows taken)."""
    states, taken = [], []
    for r in range(world):
        ds = dataset(path, world, r, shuffle)
        it = ds.create_dict_iterator(num_epochs=2, output_numpy=True)
        taken += loop_ids(it, takes[r])
        states.append(ds.state_dict())
    return states, taken


def check_rest(taken, rests):
    """The old ranks' rows and the new ranks' rests: every row once, plus
    the padding copies (the rests are equally long)."""
    lengths = {len(r) for r in rests}
    assert len(lengths) == 1, "ranks must get the same number of rows with padding: %s" % lengths
    left = ROWS - len(set(taken))
    pad = len(rests) * lengths.pop() - left
    counts = Counter(taken + sum(rests, []))
    assert set(counts) == set(range(ROWS))
    assert len(taken) == len(set(taken))
    assert sum(c - 1 for c in counts.values()) == pad and 0 <= pad < len(rests)
    assert not set(taken) & {i for i, c in counts.items() if c > 1}, "only rows of the rest may repeat"


@pytest.mark.parametrize("old,new,takes", [(2, 3, [3, 5]), (3, 2, [2, 4, 3]), (1, 2, [7]), (3, 4, [0, 8, 1])])
def test_mindataset_resumes_on_another_number_of_ranks(simple, old, new, takes):
    states, taken = old_run(simple, old, takes)
    assert sorted(s["shard_id"] for s in states) == list(range(old))
    rests, nexts = [], []
    for r in range(new):
        ds = dataset(simple, new, r)
        ds.load_state_dict(list(reversed(states)))  # any order
        it = ds.create_dict_iterator(num_epochs=2, output_numpy=True)
        rests.append(loop_ids(it))
        nexts.append(loop_ids(it))
        fresh = dataset(simple, new, r).create_dict_iterator(num_epochs=2, output_numpy=True)
        loop_ids(fresh)
        assert nexts[-1] == loop_ids(fresh), "the epoch after is a fresh %d-rank run's" % new
    check_rest(taken, rests)
    # Deterministic: the same states give the same rests.
    again = dataset(simple, new, 0)
    again.load_state_dict(states)
    assert loop_ids(again.create_dict_iterator(num_epochs=1, output_numpy=True)) == rests[0]


def test_mindataset_elastic_state_resumes_again(simple):
    """A state taken inside the elastic epoch resumes on the same ranks (and
    on yet another number of ranks); past it, the state is a plain run's."""
    states, taken = old_run(simple, 2, [3, 4])
    mids, rests, firsts = [], [], []
    for r in range(3):
        ds = dataset(simple, 3, r)
        ds.load_state_dict(states)
        it = ds.create_dict_iterator(num_epochs=2, output_numpy=True)
        part = loop_ids(it, 2)
        firsts += part
        mid = ds.state_dict()
        assert mid["elastic"]["epoch"] == 0 and mid["num_shards"] == 3
        mids.append(mid)
        ds2 = dataset(simple, 3, r)
        ds2.load_state_dict(mid)
        rests.append(part + loop_ids(ds2.create_dict_iterator(num_epochs=1, output_numpy=True)))
        ds3 = dataset(simple, 3, r)
        ds3.load_state_dict(mid)
        it3 = ds3.create_dict_iterator(num_epochs=2, output_numpy=True)
        loop_ids(it3)
        loop_ids(it3, 1)
        late = ds3.state_dict()
        assert "elastic" not in late and late["epoch"] == 1
        dataset(simple, 3, r).load_state_dict(late)  # a fresh 3-rank dataset takes it
    check_rest(taken, rests)
    # 2 -> 3 -> 2: the second elastic resume, from the states of the first.
    final = []
    for r in range(2):
        ds = dataset(simple, 2, r)
        ds.load_state_dict(mids)
        final.append(loop_ids(ds.create_dict_iterator(num_epochs=1, output_numpy=True)))
    check_rest(taken + firsts, final)


def test_mindataset_elastic_without_shuffle_and_finished_epoch(simple):
    states, taken = old_run(simple, 2, [2, 9], shuffle=False)
    rests = []
    for r in range(3):
        ds = dataset(simple, 3, r, shuffle=False)
        ds.load_state_dict(states)
        rests.append(loop_ids(ds.create_dict_iterator(num_epochs=1, output_numpy=True)))
    check_rest(taken, rests)
    # Every old rank finished epoch 0: the new run starts at epoch 1.
    done = []
    for r in range(2):
        ds = dataset(simple, 2, r)
        it = ds.create_dict_iterator(num_epochs=2, output_numpy=True)
        loop_ids(it)
        done.append(ds.state_dict())
    ds = dataset(simple, 3, 1)
    ds.load_state_dict(done)
    assert ds.state_dict()["epoch"] == 1 and "elastic" not in ds.state_dict()
    fresh = dataset(simple, 3, 1).create_dict_iterator(num_epochs=2, output_numpy=True)
    loop_ids(fresh)
    assert loop_ids(ds.create_dict_iterator(num_epochs=1, output_numpy=True)) == loop_ids(fresh)


def test_mindataset_elastic_refuses_bad_states(simple):
    states, _ = old_run(simple, 2, [1, 1])
    ds = dataset(simple, 3, 0)
    with pytest.raises(ValueError, match="all 2 old ranks"):
        ds.load_state_dict(states[:1])
    with pytest.raises(ValueError, match="another dataset"):
        other = mindrecord.MindDataset(simple, columns_list=["id"], num_shards=3, shard_id=0, shuffle=False,
                                       seed=5).batch(4)
        other.load_state_dict(states)
    with pytest.raises(ValueError, match="num_shards"):
        mindrecord.MindDataset(simple, columns_list=["id"], seed=5).load_state_dict(states)
    with pytest.raises(ValueError, match="epochs"):
        bad = [dict(states[0], epoch=3), states[1]]
        ds.load_state_dict(bad)


# ---- the PyTorch adapter ---------------------------------------------------------

def torch_ds(path, world, rank, pad=False, source=None):
    from mindrecord.torch import MindRecordDataset
    src = path if source is None else source
    kw = {} if source is not None else {"columns": ["id"], "shuffle": True}
    return MindRecordDataset(src, batch_size=4, seed=3, rank=rank, world_size=world, pad_ranks=pad, **kw)


def torch_ids(loader, take=None):
    out = []
    for b in itertools.islice(loader, take):
        out.extend(b["id"].reshape(-1).tolist())
    return out


@pytest.mark.parametrize("old,new,takes,pad,workers", [(2, 3, [3, 5], True, 0), (3, 2, [2, 4, 3], True, 2),
                                                        (1, 2, [6], True, 0), (2, 3, [3, 5], False, 2)])
def test_torch_loader_resumes_on_another_world_size(simple, old, new, takes, pad, workers):
    pytest.importorskip("torch")
    from mindrecord.torch import StatefulDataLoader
    states, taken = [], []
    for r in range(old):
        ds = torch_ds(simple, old, r, pad)
        loader = StatefulDataLoader(ds, num_workers=workers)
        ds.set_epoch(1)
        taken += torch_ids(loader, takes[r])
        states.append(loader.state_dict())
    assert [s["world_size"] for s in states] == [old] * old
    rests = []
    for r in range(new):
        ds = torch_ds(simple, new, r, pad)
        loader = StatefulDataLoader(ds, num_workers=workers)
        loader.load_state_dict(states)
        ds.set_epoch(1)
        rest = torch_ids(loader)
        assert len(ds) * 4 >= len(rest) > (len(ds) - 1) * 4 if pad else True
        rests.append(rest)
        ds.set_epoch(2)
        fresh = torch_ds(simple, new, r, pad)
        fresh.set_epoch(2)
        assert torch_ids(loader) == torch_ids(StatefulDataLoader(fresh)), "epoch 2 is a fresh run's"
    if pad:
        check_rest(taken, rests)
    else:
        counts = Counter(taken + sum(rests, []))
        assert sorted(counts) == list(range(ROWS)) and set(counts.values()) == {1}
        assert max(map(len, rests)) - min(map(len, rests)) <= 1


def test_torch_elastic_over_a_dataset_tree(simple):
    """MindRecordDataset(MindDataset(...)): the shard node of its tree."""
    pytest.importorskip("torch")
    from mindrecord.torch import StatefulDataLoader
    md = mindrecord.MindDataset(simple, columns_list=["id"], shuffle=True, seed=3)
    states, taken = [], []
    for r in range(2):
        ds = torch_ds(None, 2, r, True, source=md)
        loader = StatefulDataLoader(ds)
        ds.set_epoch(0)
        taken += torch_ids(loader, 2 + r)
        states.append(loader.state_dict())
    rests = []
    for r in range(3):
        ds = torch_ds(None, 3, r, True, source=md)
        ds.load_state_dict(states)
        ds.set_epoch(0)
        rests.append(torch_ids(ds))
        # A state inside the elastic epoch resumes on the same ranks.
        it = iter(ds)
        next(it)
        mid = ds.state_dict()
        assert mid["elastic"]["epoch"] == 0
        again = torch_ds(None, 3, r, True, source=md)
        again.load_state_dict(mid)
        again.set_epoch(0)
        assert rests[-1][:4] + torch_ids(again) == rests[-1]
    check_rest(taken, rests)
