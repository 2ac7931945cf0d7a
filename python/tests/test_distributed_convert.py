"""Distributed conversion from Python: ranks under torchrun (torch.distributed,
gloo), ranks given as rank=/world_size= that write parts, resume=True."""
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

import mindrecord

LAYOUT = dict(header_size=65536, page_size=131072, workers=1)


@pytest.fixture(scope="module")
def skewed(tmp_path_factory):
    """Three classes of small JPEGs and one of large ones."""
    from PIL import Image
    root = tmp_path_factory.mktemp("skewed")
    rng = np.random.default_rng(3)
    for cls, (n, side) in {"a": (10, 8), "b": (10, 8), "c": (10, 8), "z": (5, 128)}.items():
        os.makedirs(root / cls)
        for k in range(n):
            pixels = rng.integers(0, 255, (side, side, 3), dtype=np.uint8)
            Image.fromarray(pixels).save(root / cls / ("%03d.jpg" % k), quality=95)
    return str(root)


def files_of(folder):
    return {name: open(os.path.join(folder, name), "rb").read() for name in sorted(os.listdir(folder))}


def reference(skewed, tmp_path, shards=4):
    os.makedirs(tmp_path / "ref")
    mindrecord.convert("imagefolder", skewed, str(tmp_path / "ref" / "data"), shards=shards, **LAYOUT)
    return files_of(tmp_path / "ref")


def torchrun(world, src, out, report_dir, check=True):
    """dist_convert.py under torchrun with `world` ranks, 4 shards."""
    script = os.path.join(os.path.dirname(__file__), "dist_convert.py")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), OMP_NUM_THREADS="1")
    with socket.socket() as s:  # static rendezvous on 127.0.0.1, as test_torch's torchrun test
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nnodes", "1", "--nproc_per_node",
                           str(world), "--master_addr", "127.0.0.1", "--master_port", str(port), "--redirects", "1",
                           "--tee", "1", script, src, out, "4", str(report_dir)],
                          check=check, env=env, timeout=300, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode


@pytest.mark.parametrize("world", [2, 3])
def test_torchrun_ranks_write_the_bytes_of_one_process(skewed, tmp_path, world):
    import json
    want = reference(skewed, tmp_path)
    os.makedirs(tmp_path / "out")
    torchrun(world, skewed, str(tmp_path / "out" / "data"), tmp_path)
    assert files_of(tmp_path / "out") == want
    reports = [json.load(open(tmp_path / ("rank%d.json" % r))) for r in range(world)]
    assert [r["rank"] for r in reports] == list(range(world))
    assert all(r["world_size"] == world and len(r["ranks"]) == world for r in reports)
    assert all(r["rows"] == 35 for r in reports)
    assert sum(x["rows"] for x in reports[0]["ranks"]) == 35


def test_a_failing_torchrun_rank_fails_every_rank_naming_it(skewed, tmp_path):
    import shutil
    src = str(tmp_path / "src")
    shutil.copytree(skewed, src)
    broken = os.path.join(src, "z", "004.jpg")  # the last input: rank 1's shard
    size = os.path.getsize(broken)
    with open(broken, "wb") as f:
        f.write(b"x" * size)
    os.makedirs(tmp_path / "out")
    assert torchrun(2, src, str(tmp_path / "out" / "data"), tmp_path, check=False) != 0
    for rank in (0, 1):
        err = open(tmp_path / ("rank%d.err" % rank)).read()
        assert "rank 1 of 2 failed: %s" % broken in err, err
    assert not [f for f in os.listdir(tmp_path / "out") if not f.startswith(".")]


def test_rank_arguments_write_parts_and_resume_finishes(skewed, tmp_path):
    want = reference(skewed, tmp_path)
    out = str(tmp_path / "out" / "data")
    os.makedirs(tmp_path / "out")
    for rank in (1, 0):
        rep = mindrecord.convert("imagefolder", skewed, out, shards=4, rank=rank, world_size=2, **LAYOUT)
        assert rep["parts_only"] and rep["rank"] == rank
    assert not [f for f in os.listdir(tmp_path / "out") if not f.startswith(".")]
    conv = mindrecord.ImageFolderToMR(skewed, out, partition_number=4, resume=True, **LAYOUT)
    assert conv.transform() == mindrecord.SUCCESS
    assert [o["kept"] for o in conv.report["outputs"]] == [[0, 1, 2, 3]]
    assert files_of(tmp_path / "out") == want


def test_bad_ranks_are_refused_before_writing(skewed, tmp_path):
    out = str(tmp_path / "data")
    with pytest.raises(ValueError, match="fewer than the 2 ranks"):
        mindrecord.convert("imagefolder", skewed, out, shards=1, rank=0, world_size=2, **LAYOUT)
    with pytest.raises(ValueError, match="rank and world_size go together"):
        mindrecord.convert("imagefolder", skewed, out, shards=2, rank=0, **LAYOUT)
    with pytest.raises(ValueError, match="below world_size"):
        mindrecord.convert("imagefolder", skewed, out, shards=2, rank=2, world_size=2, **LAYOUT)
    assert os.listdir(tmp_path) == []


def test_launcher_variables_without_a_rendezvous_are_refused(skewed, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("MASTER_ADDR", "MASTER_PORT")}
    env.update(RANK="1", WORLD_SIZE="2", PYTHONPATH=os.pathsep.join(sys.path))
    code = ("import mindrecord\n"
            "mindrecord.convert('imagefolder', %r, %r, shards=2)\n" % (skewed, str(tmp_path / "data")))
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert "torchrun (RANK/WORLD_SIZE) says this is rank 1 of 2" in run.stderr
    assert os.listdir(tmp_path) == []
    # rank=0, world_size=1: this process alone, whatever the variables say.
    code = code.replace("shards=2)", "shards=2, rank=0, world_size=1)")
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert sorted(os.listdir(tmp_path)) == ["data0", "data0.db", "data1", "data1.db"]
