"""mindrecord.vision.Perspective against the homography math (numpy) and
torchvision's perspective; RandomPerspective against PIL's
Image.transform(PERSPECTIVE) with MindSpore's corner draw (what MindSpore's
op runs); argument errors; both ops in a multi-worker pipeline."""
import itertools

import numpy as np
import pytest
import torch
import torchvision.transforms.functional as F
from PIL import Image
from torchvision.transforms import InterpolationMode

import mindrecord
from mindrecord import vision
from mindrecord.vision import Inter

from image_util import binomial_ok, natural, png_dataset

SQUARE = [[0, 0], [63, 0], [63, 47], [0, 47]]
QUAD = [[3, 2], [60, 0], [63, 44], [1, 47]]


def homography(src, dst):
    """H (h33 = 1) with H(src[i]) = dst[i], as a 3x3 array."""
    a, b = [], []
    for (x, y), (u, v) in zip(src, dst):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        b += [u, v]
    return np.append(np.linalg.solve(np.array(a, float), np.array(b, float)), 1.0).reshape(3, 3)


def source_coords(start, end, h, w):
    """Where each output pixel samples the input: the inverse homography
    (end -> start) at pixel indices, OpenCV's convention."""
    inv = homography(end, start)
    y, x = np.mgrid[0:h, 0:w]
    p = inv @ np.stack([x.ravel(), y.ravel(), np.ones(h * w)])
    return (p[0] / p[2]).reshape(h, w), (p[1] / p[2]).reshape(h, w)


def test_perspective_nearest_samples_the_inverse_homography():
    img = natural()
    out = vision.Perspective(SQUARE, QUAD, Inter.NEAREST)(img)
    assert out.shape == img.shape and out.dtype == np.uint8
    sx, sy = source_coords(SQUARE, QUAD, 48, 64)
    ix, iy = np.rint(sx).astype(int), np.rint(sy).astype(int)
    inside = (ix >= 0) & (ix < 64) & (iy >= 0) & (iy < 48)
    want = np.zeros_like(img)
    want[inside] = img[iy[inside], ix[inside]]
    # OpenCV rounds coordinates in fixed point: pixels on a rounding tie may differ.
    assert (out == want).all(-1).mean() >= 0.98
    assert (out[~inside] == 0).all(-1).mean() >= 0.98  # 0 outside, as MindSpore's kernel (no fill_value)


def test_perspective_bilinear_matches_torchvision():
    # torchvision puts pixel centres at +0.5 (grid_sample, align_corners=False):
    # its perspective of the points + 0.5 is ours of the points.
    img = natural(seed=3)
    out = vision.Perspective(SQUARE, QUAD)(img)
    shift = lambda pts: [[x + 0.5, y + 0.5] for x, y in pts]  # noqa: E731
    ref = F.perspective(torch.from_numpy(img).permute(2, 0, 1).float(), shift(SQUARE), shift(QUAD),
                        InterpolationMode.BILINEAR).permute(1, 2, 0).numpy()
    sx, sy = source_coords(SQUARE, QUAD, 48, 64)
    interior = (sx >= 1) & (sx <= 62) & (sy >= 1) & (sy <= 46)  # borders blend with 0 differently
    assert interior.mean() > 0.7
    d = np.abs(out.astype(float) - ref)[interior]
    # OpenCV interpolates at 1/32 pixel with fixed-point weights, then rounds to
    # uint8: up to |gradient| / 32 off (8 at natural()'s 255 -> 0 wraps).
    assert d.max() <= 8 and (d <= 2).mean() >= 0.99 and d.mean() < 0.6, (d.max(), (d <= 2).mean(), d.mean())


def test_perspective_identity_translation_and_types():
    img = natural()
    for mode in (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC, Inter.AREA):
        np.testing.assert_array_equal(vision.Perspective(SQUARE, SQUARE, mode)(img), img)
    moved = [[x + 5, y + 2] for x, y in SQUARE]
    want = np.zeros_like(img)
    want[2:, 5:] = img[:-2, :-5]
    np.testing.assert_array_equal(vision.Perspective(SQUARE, moved, Inter.NEAREST)(img), want)
    gray = img[:, :, 0].astype(np.float32) / 7
    out = vision.Perspective(SQUARE, moved, Inter.BILINEAR)(gray)
    assert out.dtype == np.float32 and out.shape == gray.shape
    np.testing.assert_allclose(out[2:, 5:], gray[:-2, :-5], rtol=1e-6)
    with pytest.raises(Exception, match="Perspective"):
        vision.Perspective(SQUARE, QUAD)(img.astype(np.int32))


def test_perspective_argument_errors():
    with pytest.raises(TypeError, match="Perspective: start_points"):
        vision.Perspective(SQUARE[:3], QUAD)
    with pytest.raises(TypeError, match="Perspective: end_points"):
        vision.Perspective(SQUARE, "corners")
    with pytest.raises(TypeError, match=r"Perspective: start_points\[1\]"):
        vision.Perspective([[0, 0], [1, 2, 3], [5, 5], [0, 5]], QUAD)
    with pytest.raises(TypeError, match=r"Perspective: end_points\[0\]"):
        vision.Perspective(SQUARE, [[0.5, 0]] + QUAD[1:])
    with pytest.raises(ValueError, match=r"Perspective: end_points\[2\]"):
        vision.Perspective(SQUARE, QUAD[:2] + [[2 ** 31, 0]] + QUAD[3:])
    with pytest.raises(ValueError, match="Perspective: three of start_points are collinear"):
        vision.Perspective([[0, 0], [5, 0], [9, 0], [0, 9]], QUAD)
    with pytest.raises(TypeError, match="Perspective: interpolation"):
        vision.Perspective(SQUARE, QUAD, "lanczos")
    with pytest.raises(ValueError, match="Perspective"):
        vision.Perspective(SQUARE, QUAD, Inter.PILCUBIC)
    assert vision.Perspective(tuple(map(tuple, SQUARE)), QUAD).spec()["start_points"] == SQUARE


def pil_perspective(img, start, end, resample):
    """What MindSpore's RandomPerspective returns for these corners: PIL's
    transform with coefficients from the least-squares fit of end -> start."""
    a, b = [], []
    for (x1, y1), (x2, y2) in zip(end, start):
        a.append([x1, y1, 1, 0, 0, 0, -x2 * x1, -x2 * y1])
        a.append([0, 0, 0, x1, y1, 1, -y2 * x1, -y2 * y1])
        b += [x2, y2]
    coeffs = np.linalg.lstsq(np.array(a, float), np.array(b, float), rcond=None)[0]
    pil = Image.fromarray(img)
    return np.asarray(pil.transform(pil.size, Image.PERSPECTIVE, coeffs.tolist(), resample))


def corner_choices(w, h, scale):
    """Every corner set MindSpore's get_perspective_params can draw."""
    dw, dh = int(w / 2 * scale), int(h / 2 * scale)
    xs_l, xs_r = range(0, dw + 1), range(w - dw - 1, w)
    ys_t, ys_b = range(0, dh + 1), range(h - dh - 1, h)
    for tlx, tly, trx, try_, brx, bry, blx, bly in itertools.product(xs_l, ys_t, xs_r, ys_t, xs_r, ys_b, xs_l, ys_b):
        yield [(tlx, tly), (trx, try_), (brx, bry), (blx, bly)]


def test_random_perspective_is_pils_warp_of_a_mindspore_corner_draw():
    # 16 x 16 noise, scale 0.25: each corner coordinate takes one of 3 values
    # (dw = dh = int(8 * 0.25) = 2), 3^8 corner sets in all. Each output of
    # ours must be PIL's warp of one of them (nearest: all but a few pixels on
    # rounding ties), and over 60 draws every value of every coordinate occurs.
    img = np.random.RandomState(5).randint(0, 256, (16, 16, 3)).astype(np.uint8)
    start = [(0, 0), (15, 0), (15, 15), (0, 15)]
    corners = list(corner_choices(16, 16, 0.25))
    assert len(corners) == 3 ** 8
    refs = np.stack([pil_perspective(img, start, c, Image.NEAREST) for c in corners])
    smooth = natural(16, 16, 2)  # for the bilinear check: noise would magnify OpenCV's 1/32-pixel steps
    op_nearest = vision.RandomPerspective(0.25, 1.0, Inter.NEAREST)
    op_bilinear = vision.RandomPerspective(0.25, 1.0, Inter.BILINEAR)
    seen = [set() for _ in range(8)]
    for seed in range(60):
        out = op_nearest(img, seed=seed)
        mismatch = (refs != out).any(-1).sum((1, 2))
        order = np.argsort(mismatch)
        best = corners[order[0]]
        assert mismatch[order[0]] <= 0.03 * 256 < mismatch[order[1]], (seed, mismatch[order[:2]])
        for k, v in enumerate(np.ravel(best)):
            seen[k].add(int(v))
        if seed < 10:  # the same draw with bilinear: PIL's bilinear of those corners, away from the border
            ref = pil_perspective(smooth, start, best, Image.BILINEAR).astype(int)
            got = op_bilinear(smooth, seed=seed).astype(int)
            inner = np.abs(got - ref)[3:-3, 3:-3]
            assert inner.max() <= 2, (seed, inner.max())
    assert [sorted(s) for s in seen] == [[0, 1, 2], [0, 1, 2], [13, 14, 15], [0, 1, 2],
                                        [13, 14, 15], [13, 14, 15], [0, 1, 2], [13, 14, 15]]


def test_random_perspective_probability_pil_input_and_errors():
    img = natural()
    op = vision.RandomPerspective(prob=0.3)
    changed = sum(not np.array_equal(op(img, seed=s), img) for s in range(300))
    assert binomial_ok(changed, 300, 0.3), changed
    np.testing.assert_array_equal(vision.RandomPerspective(0.0, 1.0)(img, seed=1), img)
    out = vision.RandomPerspective(prob=1.0)(Image.fromarray(img), seed=4)  # MindSpore's op takes PIL images
    assert isinstance(out, Image.Image) and out.size == (64, 48)
    np.testing.assert_array_equal(np.asarray(out), vision.RandomPerspective(prob=1.0)(img, seed=4))
    assert vision.RandomPerspective().spec() == {"op": "RandomPerspective", "distortion_scale": 0.5, "prob": 0.5,
                                                 "interpolation": "bicubic"}
    with pytest.raises(TypeError, match="RandomPerspective: distortion_scale"):
        vision.RandomPerspective(1)  # MindSpore type-checks (float,)
    with pytest.raises(ValueError, match="RandomPerspective: distortion_scale"):
        vision.RandomPerspective(1.5)
    with pytest.raises(TypeError, match="RandomPerspective: prob"):
        vision.RandomPerspective(0.5, "0.5")
    with pytest.raises(ValueError, match="RandomPerspective: prob"):
        vision.RandomPerspective(0.5, -0.5)
    with pytest.raises(ValueError, match="RandomPerspective: interpolation"):
        vision.RandomPerspective(interpolation=Inter.AREA)
    with pytest.raises(Exception, match="RandomPerspective"):
        vision.RandomPerspective(prob=1.0)(np.zeros(5, np.uint8))


def test_perspective_ops_in_a_pipeline(tmp_path):
    imgs = [natural(48, 64, i) for i in range(8)]
    path = png_dataset(str(tmp_path / "img.mindrecord"), imgs)

    def run(ops, workers):
        ds = mindrecord.MindDataset(path, shuffle=False, num_parallel_workers=workers, seed=7)
        ds = ds.map(ops, input_columns="image", num_parallel_workers=workers)
        return [r["image"] for r in ds.create_dict_iterator(output_numpy=True)]
    fixed = vision.Perspective(SQUARE, QUAD)
    for got, im in zip(run([vision.Decode(), fixed], 3), imgs):
        np.testing.assert_array_equal(got, fixed(im))
    ops = [vision.Decode(), vision.RandomPerspective(0.6, 0.5)]
    one, three = run(ops, 1), run(ops, 3)
    for a, b in zip(one, three):
        np.testing.assert_array_equal(a, b)
    assert 0 < sum(not np.array_equal(a, im) for a, im in zip(one, imgs)) < 8
