"""Autotune through MindSpore's config API (issue 23 item 1): the same rows,
order and states with it on as off, its choices in stats(), its refusals."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

import mindrecord
from mindrecord import config
from conftest import write_simple


@pytest.fixture(scope="module")
def simple(tmp_path_factory):
    return write_simple(str(tmp_path_factory.mktemp("a") / "a.mindrecord"), 300, shard_num=2) + "0"


@pytest.fixture
def autotune_off():
    yield
    config.set_enable_autotune(False)
    config.set_auto_num_workers(False)
    config.set_autotune_interval(0)


def build(path, workers=1):
    ds = mindrecord.MindDataset(path, columns_list=["id", "vec"], num_parallel_workers=workers, shuffle=True, seed=4)
    return ds.batch(8)


def run(ds, epochs=2):
    it = ds.create_tuple_iterator(num_epochs=epochs, output_numpy=True)
    out = []
    for _ in range(epochs):
        out.append([(b[0].tolist(), b[1].tolist()) for b in it])
    return out, it.stats()


def test_same_rows_order_and_state_with_autotune(simple, autotune_off):
    want, off_stats = run(build(simple))
    assert "autotune" not in off_stats
    assert not config.get_enable_autotune()
    config.set_enable_autotune(True)
    config.set_autotune_interval(1)
    assert config.get_enable_autotune() and config.get_autotune_interval() == 1
    ds = build(simple)
    assert '"autotune"' in ds.plan()
    got, stats = run(ds)
    assert got == want
    cores = len(os.sched_getaffinity(0))
    assert stats["autotune"]["max_workers"] == cores  # num_parallel_workers 1 is within the budget
    assert 1 <= stats["num_workers"] <= cores
    assert len(stats["autotune"]["decisions"]) == min(stats["autotune"]["changes"], 32)
    # Mid-epoch state: the same as without autotune, and either resumes the other's.
    config.set_enable_autotune(False)
    plain = build(simple)
    it = plain.create_tuple_iterator(num_epochs=1, output_numpy=True)
    for _ in range(7):
        next(it)
    config.set_enable_autotune(True)
    tuned = build(simple)
    it2 = tuned.create_tuple_iterator(num_epochs=1, output_numpy=True)
    for _ in range(7):
        next(it2)
    assert tuned.state_dict() == plain.state_dict()
    resumed = build(simple)
    resumed.load_state_dict(plain.state_dict())
    rest = [b[0].tolist() for b in resumed.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    assert rest == [ids for ids, _ in want[0][7:]]


def test_auto_num_workers_tunes_the_workers(simple, autotune_off):
    want, _ = run(build(simple))
    assert not config.get_auto_num_workers()
    config.set_auto_num_workers(True)
    assert config.get_auto_num_workers() and not config.get_enable_autotune()
    got, stats = run(build(simple))
    assert got == want
    assert stats["autotune"]["max_workers"] == len(os.sched_getaffinity(0))
    with pytest.raises(TypeError, match="enable"):
        config.set_auto_num_workers(1)
    config.set_auto_num_workers(False)
    assert "autotune" not in run(build(simple))[1]


def test_config_refusals(autotune_off):
    with pytest.raises(TypeError, match="enable"):
        config.set_enable_autotune(1)
    with pytest.raises(NotImplementedError, match="filepath_prefix"):
        config.set_enable_autotune(True, "/tmp/autotune")
    assert not config.get_enable_autotune()
    with pytest.raises(ValueError, match="interval"):
        config.set_autotune_interval(-1)
    with pytest.raises(TypeError, match="interval"):
        config.set_autotune_interval(1.5)


def test_decisions_are_logged_at_info_verbosity(simple, tmp_path):
    """With GLOG_v=1 every decision stats() counts is one log line."""
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent("""
        import json, sys, time
        import mindrecord
        from mindrecord import config
        config.set_enable_autotune(True)
        config.set_autotune_interval(1)
        def slow(v):
            time.sleep(0.002)
            return v
        ds = mindrecord.MindDataset(sys.argv[1], columns_list=["id", "vec"], num_parallel_workers=1, seed=1)
        ds = ds.map([slow], input_columns=["vec"]).batch(4)
        it = ds.create_tuple_iterator(num_epochs=1, output_numpy=True)
        for _ in it:
            pass
        print(json.dumps(it.stats()["autotune"]))
    """))
    env = dict(os.environ, GLOG_v="1")
    r = subprocess.run([sys.executable, str(script), simple], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    tuned = json.loads(r.stdout.strip().splitlines()[-1])
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("[INFO] MD mindrecord autotune: ")]
    assert len(lines) == tuned["changes"]
    assert [ln.split(": ", 1)[1] for ln in lines][-32:] == tuned["decisions"]
    env.pop("GLOG_v")
    r = subprocess.run([sys.executable, str(script), simple], capture_output=True, text=True, env=env, timeout=300)
    assert "mindrecord autotune" not in r.stderr
