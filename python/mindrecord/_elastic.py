"""Elastic resume: the states of the W ranks of a run, merged into where each
rank of a run with another number of ranks starts.

Each rank's state says how many rows of its share of the epoch it handed
out (its position). Rank shares are a pure function of (seed, epoch, number
of ranks, pad, split), so the W states together say exactly which rows of
the epoch were handed out; rows read ahead but not handed out (in flight in
the pipeline or a DataLoader's prefetch) were not. The new run finishes that
epoch with the rows no old rank handed out, dealt among its ranks
(pipeline/distributed_sampler.h, "elastic"), and runs every later epoch as a
fresh run of its size would.

    # old run, on every rank: states gathered, e.g. with
    # torch.distributed.all_gather_object(states, ds.state_dict())
    # new run (any number of ranks), on every rank:
    ds = MindDataset(files, num_shards=new_world, shard_id=new_rank, ...)
    ds.load_state_dict(states)   # the list of all old ranks' states
"""
import json
from typing import Any, Callable

from mindrecord import _core


def merge(states: Any, rank_key: str, world_key: str, fingerprint_of: Callable[[int, int, int, Any], int],
          rows_of: Callable[[int, int, int, Any], int]) -> tuple[int, int, dict | None]:
    """(seed, epoch, elastic) of the new run from the old ranks' `states`
    (a list or tuple, one dict per old rank, in any order). elastic is the
    sampler's "elastic" object without "from"'s own parameters, i.e.
    {"epoch", "num_shards", "positions", "elastic" (the old run's own elastic
    epoch, when the states are in it)}, or None when the new run starts at
    an epoch's beginning. fingerprint_of(rank, world, epoch, old_elastic)
    and rows_of(rank, world, epoch, old_elastic) describe an old rank's plan;
    a state whose fingerprint differs is refused (another dataset, seed,
    shuffle, pad or split)."""
    if not isinstance(states, (list, tuple)) or not states:
        raise ValueError("elastic resume takes the list of every old rank's state_dict(), got %r"
                         % type(states).__name__)
    for s in states:
        if not isinstance(s, dict) or not {"seed", "epoch", "position", "fingerprint", rank_key,
                                           world_key} <= set(s):
            raise ValueError("elastic resume: each state must be a dict from state_dict() of a rank of a sharded "
                             "dataset (with seed, epoch, position, fingerprint, %s, %s); got %r"
                             % (rank_key, world_key, s))
    world = int(states[0][world_key])
    ranks = sorted(int(s[rank_key]) for s in states)
    if any(int(s[world_key]) != world for s in states) or ranks != list(range(world)):
        raise ValueError("elastic resume needs the states of all %d old ranks, once each; got %s %s with %s %s"
                         % (world, rank_key, ranks, world_key, sorted({int(s[world_key]) for s in states})))
    seeds = {int(s["seed"]) for s in states}
    if len(seeds) != 1:
        raise ValueError("elastic resume: the old ranks' states have different seeds %s" % sorted(seeds))
    by_rank = {int(s[rank_key]): s for s in states}
    epochs = sorted({int(s["epoch"]) for s in states})
    epoch = epochs[0]
    if len(epochs) > 2 or (len(epochs) == 2 and epochs[1] != epoch + 1):
        raise ValueError("elastic resume: the old ranks' states are in epochs %s; all ranks must be in one epoch "
                         "(or just past its end)" % epochs)
    olds = [s.get("elastic") for s in states if int(s["epoch"]) == epoch and s.get("elastic") is not None]
    old_elastic = olds[0] if olds else None
    if any(o != old_elastic for o in olds):
        raise ValueError("elastic resume: the old ranks' states disagree on their own elastic epoch")
    positions = []
    for r in range(world):
        s = by_rank[r]
        e, p = int(s["epoch"]), int(s["position"])
        own = old_elastic if e == epoch else None
        if int(s["fingerprint"]) != fingerprint_of(r, world, e, own):
            raise ValueError("elastic resume: the state of old %s %d belongs to another dataset (source, columns, "
                             "ops, batch, seed, shuffle, padding or split differ)" % (rank_key, r))
        rows = rows_of(r, world, epoch, old_elastic)
        if e == epoch + 1:
            if p != 0:
                raise ValueError("elastic resume: old %s %d is at position %d of epoch %d while others are still "
                                 "in epoch %d" % (rank_key, r, p, e, epoch))
            p = rows  # it finished the epoch
        elif p > rows:
            raise ValueError("elastic resume: old %s %d is at position %d, past its %d rows of epoch %d"
                             % (rank_key, r, p, rows, epoch))
        positions.append(p)
    seed = seeds.pop()
    if all(positions[r] >= rows_of(r, world, epoch, old_elastic) for r in range(world)):
        return seed, epoch + 1, None  # every rank finished the epoch
    if old_elastic is None and not any(positions):
        return seed, epoch, None  # nothing handed out yet: a plain start
    elastic = {"epoch": epoch, "num_shards": world, "positions": positions}
    if old_elastic is not None:
        elastic["elastic"] = old_elastic
    return seed, epoch, elastic


def sampler_elastic(elastic: dict, spec: dict) -> dict:
    """The distributed sampler's "elastic" object: `elastic` from merge()
    with the old ranks' spec, which is `spec` (this rank's sampler spec or
    shard node: its order, split and padding are both runs') with the old
    number of ranks and the old run's own elastic epoch."""
    old = {k: v for k, v in spec.items() if k in ("shuffle", "block_size", "split", "pad", "num_samples")}
    old["num_shards"] = elastic["num_shards"]
    if elastic.get("elastic") is not None:
        old["elastic"] = elastic["elastic"]
    return {"epoch": elastic["epoch"], "from": old, "positions": list(elastic["positions"])}


# ---- MindDataset ------------------------------------------------------------------

def _dataset_spec(ds) -> dict | None:
    """The dataset's distributed sampler spec (None: not sharded, or a tree)."""
    spec = ds._plan.get("sampler") if "tree" not in ds._plan else None
    return spec if isinstance(spec, dict) and spec.get("type") == "distributed" else None


def _fingerprint(ds, spec: dict) -> int:
    plan = ds._full_plan(1)
    plan["sampler"] = spec
    return int(_core.plan_fingerprint(json.dumps(plan)))


def dataset_state(ds, state: dict) -> dict:
    """`state` of a sharded MindDataset with the keys an elastic resume
    needs: num_shards, shard_id, and elastic (the sampler's, while the state
    is in the elastic epoch; past it, the state and its fingerprint are a
    plain run's)."""
    spec = _dataset_spec(ds)
    if spec is None:
        return state
    state = dict(state, num_shards=int(spec["num_shards"]), shard_id=int(spec["shard_id"]))
    el = spec.get("elastic")
    if el is not None and int(state["epoch"]) == int(el["epoch"]):
        state["elastic"] = el
    elif el is not None:
        plain = {k: v for k, v in spec.items() if k != "elastic"}
        state["fingerprint"] = str(_fingerprint(ds, plain))
    return state


def load_dataset(ds, state: Any) -> dict | None:
    """MindDataset.load_state_dict's elastic part: sets the dataset's sampler
    for `state` (one state, or the list of all old ranks' states) and returns
    the state to start at (None: a single state to check as usual)."""
    spec = _dataset_spec(ds)
    if isinstance(state, dict):
        if spec is not None:
            el = state.get("elastic")
            ds._plan["sampler"] = dict({k: v for k, v in spec.items() if k != "elastic"},
                                       **({"elastic": el} if el is not None else {}))
        return None
    if not isinstance(state, (list, tuple)):
        raise ValueError("state must be a dict from state_dict(), or the list of every old rank's state_dict()")
    if spec is None:
        raise ValueError("elastic resume (a list of states) is for a dataset sharded with num_shards / shard_id "
                         "(a flat plan: MindDataset(...).map(...).batch(...))")
    if spec.get("num_samples"):
        raise NotImplementedError("elastic resume with num_samples is not supported (the capped epoch leaves rows "
                                  "that no rank was to read)")
    if len(state) and isinstance(state[0], dict) and "seed" in state[0]:
        ds._plan["seed"] = int(state[0]["seed"])
    base = {k: v for k, v in spec.items() if k != "elastic"}

    def old_spec(rank, world, el):
        s = dict(base, num_shards=world, shard_id=rank)
        if el is not None:
            s["elastic"] = el
        return s

    def fingerprint_of(rank, world, epoch, el):
        return _fingerprint(ds, old_spec(rank, world, el))

    def rows_of(rank, world, epoch, el):
        plan = ds._full_plan(epoch + 1)
        plan["sampler"] = old_spec(rank, world, el)
        return int(_core.epoch_size(json.dumps(plan), epoch))

    seed, epoch, elastic = merge(state, "shard_id", "num_shards", fingerprint_of, rows_of)
    ds._plan["seed"] = seed
    ds._plan["sampler"] = dict(base, elastic=sampler_elastic(elastic, base)) if elastic is not None else base
    return {"seed": seed, "epoch": epoch, "position": 0, "rows": 0}


def epoch_rows(ds, epoch: int) -> int:
    """Positions of the dataset's pipeline epoch `epoch` (its elastic epoch's
    differ from the others')."""
    spec = _dataset_spec(ds)
    el = spec.get("elastic") if spec is not None else None
    if el is None or int(el["epoch"]) != epoch:
        return ds._rows_per_epoch()
    return int(_core.epoch_size(json.dumps(ds._full_plan(epoch + 1)), epoch))
