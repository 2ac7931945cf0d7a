import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# MindSpore's reference files: $MINDRECORD_COMPAT_DIR, else ../shared/compat beside the checkout.
COMPAT = os.environ.get("MINDRECORD_COMPAT_DIR") or os.path.join(os.path.dirname(ROOT), "shared", "compat")


def compat_path(*parts):
    p = os.path.join(COMPAT, *parts)
    if not os.path.exists(p):
        pytest.skip("compat file %s is absent" % p)
    return p


def make_mnist(out_dir, train=200, test=50, seed=1):
    script = os.path.join(ROOT, "fixtures", "make_mnist.py")
    subprocess.check_call([sys.executable, script, out_dir, "--train", str(train), "--test", str(test),
                           "--seed", str(seed)])


def write_simple(path, n, shard_num=1, page_size=None):
    import mindrecord
    w = mindrecord.FileWriter(path, shard_num)
    w.add_schema({"id": {"type": "int64"}, "label": {"type": "int32"}, "vec": {"type": "float32", "shape": [3]}},
                 "simple")
    if page_size:
        w.set_page_size(page_size)
    w.write_raw_data([{"id": i, "label": i % 5, "vec": np.full(3, i, np.float32)} for i in range(n)])
    w.commit()
    return path


def block_placement_order(batches, shards):
    """Row numbers in read order (shard 0's rows first) after write_raw_data
    calls of `batches` rows each into `shards` shards, as FileWriter places
    them: each call cut into one contiguous block per shard, the calls'
    remainders going to the next shards in turn."""
    per_shard = [[] for _ in range(shards)]
    written = 0
    for m in batches:
        per, extra, first = m // shards, m % shards, written % shards
        nxt = written
        for s in range(shards):
            take = per + (1 if (s - first) % shards < extra else 0)
            per_shard[s].extend(range(nxt, nxt + take))
            nxt += take
        written += m
    return [i for rows in per_shard for i in rows]


def numpy_dicts(ds):
    """One epoch of `ds` as dicts of numpy values. Iterating a dataset itself
    gives MindSpore's lists of Tensors (`for image, label in ds`)."""
    return ds.create_dict_iterator(num_epochs=1, output_numpy=True)
