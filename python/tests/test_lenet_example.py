import os
import sys
import time

import pytest

pytest.importorskip("torch")

from conftest import ROOT, make_mnist  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "python", "examples"))
import train_lenet  # noqa: E402


def test_lenet_learns_synthetic_mnist(tmp_path):
    src = str(tmp_path / "mnist")
    os.makedirs(src)
    make_mnist(src, train=1000, test=200, seed=3)
    import mindrecord
    conv = mindrecord.MnistToMR(src, str(tmp_path / "mnist"))
    assert conv.transform() == mindrecord.SUCCESS
    rep = conv.report
    files = {o["split"]: o["files"][0] for o in rep["outputs"]}
    t0 = time.time()
    losses, acc = train_lenet.train(files["train"], steps=200, batch_size=32, lr=0.03, seed=0, log_every=0,
                                    test_path=files["test"])
    assert len(losses) == 200
    first, last = sum(losses[:20]) / 20, sum(losses[-20:]) / 20
    assert last < 0.5 * first, (first, last)
    assert acc > 0.5, acc  # 10 classes: chance is 0.1
    assert time.time() - t0 < 60
