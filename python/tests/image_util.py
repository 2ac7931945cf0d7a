"""Images and comparisons shared by the vision op tests."""
import io
import math

import numpy as np
import torch
from PIL import Image

import mindrecord


def natural(h=48, w=64, seed=0):
    """A smooth image with some noise (colour gradients, not symmetric)."""
    rs = np.random.RandomState(seed)
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([(x * 4) % 256, (y * 5) % 256, ((x + y) * 3) % 256], -1)
    return np.clip(img + rs.randint(-20, 20, img.shape), 0, 255).astype(np.uint8)


def chw(img):
    return torch.from_numpy(np.ascontiguousarray(img)).permute(2, 0, 1)


def hwc(t):
    return t.permute(1, 2, 0).numpy()


def diff(a, b):
    """|a - b| element-wise, as int64 (same shapes required)."""
    assert a.shape == b.shape, (a.shape, b.shape)
    return np.abs(a.astype(np.int64) - b.astype(np.int64))


def binomial_ok(hits, n, p):
    return abs(hits / n - p) <= 5 * math.sqrt(p * (1 - p) / n)


def png(img):
    """The PNG bytes of a uint8 image."""
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="PNG")
    return buf.getvalue()


def png_dataset(path, images):
    """A one-shard dataset at `path`: the images as PNG bytes ("image") with
    their index ("label", int32). Returns `path`."""
    w = mindrecord.FileWriter(path)
    w.add_schema({"image": {"type": "bytes"}, "label": {"type": "int32"}})
    w.write_raw_data([{"image": png(im), "label": i} for i, im in enumerate(images)])
    w.commit()
    return path
