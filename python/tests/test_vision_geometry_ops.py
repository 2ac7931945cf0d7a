"""mindrecord.vision's Affine, RandomAffine, Rotate, GaussianBlur and
UniformAugment, called as MindSpore's are (eagerly on numpy arrays, and in
MindDataset.map), each against an independent reference (torchvision's
functional ops with the same parameters, numpy), within the tolerance stated
at each check; and their argument checks."""

import numpy as np
import pytest
import torch
import torchvision.transforms.functional as F
from torchvision.transforms import InterpolationMode

import mindrecord
from mindrecord import vision
from mindrecord.vision import Inter
from image_util import natural, chw, hwc, binomial_ok, png_dataset





def diff(a, b):
    assert a.shape == b.shape, (a.shape, b.shape)
    return np.abs(a.astype(np.float64) - b.astype(np.float64))


def check_bilinear(got, ref, coverage, fill):
    """Bilinear warps against torchvision where the source covers the whole
    2 x 2 neighbourhood (coverage: the warp of an all-ones image): OpenCV
    weighs neighbours in steps of 1/32, so values differ by 1, and by up to
    8 at most in 1% of them (next to the image's 255 -> 0 jumps). At the
    edges torchvision blends the fill differently (it weights the fill by
    the coverage twice), so there only the pixels fully outside are checked:
    the fill."""
    d = diff(got, ref)
    inner = coverage > 0.999
    assert d[inner].max() <= 8 and (d[inner] > 1).mean() < 0.01, (d[inner].max(), (d[inner] > 1).mean())
    outside = coverage == 0
    assert (got[outside] == np.array(fill, np.uint8)).all()


def coverage(warp):
    return warp(torch.ones((1, H, W)), fill=[0.0])[0].numpy()



IMG = natural()
H, W = IMG.shape[:2]
TV = {Inter.NEAREST: InterpolationMode.NEAREST, Inter.BILINEAR: InterpolationMode.BILINEAR}

# (degrees, translate, scale, shear) as MindSpore's Affine takes them.
AFFINE_CASES = [(15.0, (0.1, -0.2), 1.1, (10.0, 5.0)), (-40.0, (0.0, 0.0), 0.8, 0.0),
                (90.0, (-0.25, 0.125), 1.0, (0.0, -20.0)), (170.0, (0.05, 0.05), 1.5, 30.0)]


# ---- Affine ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("degrees,translate,scale,shear", AFFINE_CASES)
def test_affine_matches_torchvision(degrees, translate, scale, shear):
    """MindSpore's matrix is torchvision's (clockwise degrees, shears in
    degrees, about the image centre); translate is a fraction of the size."""
    tv_shear = [shear, 0.0] if isinstance(shear, float) else list(shear)
    tv_translate = [translate[0] * W, translate[1] * H]

    def tv(img, interpolation=InterpolationMode.NEAREST, fill=(10, 20, 30)):
        return F.affine(img, degrees, tv_translate, scale, tv_shear, interpolation=interpolation, fill=list(fill))
    near = vision.Affine(degrees, translate, scale, shear, fill_value=(10, 20, 30))(IMG)
    # Nearest: ties at half pixels may pick the neighbour: at most 1% of values off by more than 1.
    assert (diff(near, hwc(tv(chw(IMG)))) > 1).mean() < 0.01
    lin = vision.Affine(degrees, translate, scale, shear, resample=Inter.BILINEAR, fill_value=(10, 20, 30))(IMG)
    check_bilinear(lin, hwc(tv(chw(IMG), InterpolationMode.BILINEAR)),
                   coverage(lambda img, fill: tv(img, InterpolationMode.BILINEAR, fill)), (10, 20, 30))


def test_affine_identity_and_exact_moves():
    assert np.array_equal(vision.Affine(0, (0, 0), 1, 0)(IMG), IMG)
    assert np.array_equal(vision.Affine(0.0, [0.0, 0.0], 1.0, [0.0, 0.0], Inter.BILINEAR)(IMG), IMG)
    # translate (0.25, 0.5) of 64 x 48 moves by (16, 24) pixels.
    moved = vision.Affine(0, (0.25, 0.5), 1, 0, fill_value=7)(IMG)
    want = np.full_like(IMG, 7)
    want[24:, 16:] = IMG[:24, :48]
    assert np.array_equal(moved, want)
    # +90 degrees turns clockwise (numpy's rot90 with k=-1); HW images too.
    sq = IMG[:40, :40]
    assert np.array_equal(vision.Affine(90, (0, 0), 1, 0)(sq), np.rot90(sq, -1))
    assert np.array_equal(vision.Affine(-90, (0, 0), 1, 0)(sq[:, :, 1]), np.rot90(sq[:, :, 1]))
    # float32 in, float32 out.
    out = vision.Affine(10, (0.1, 0), 1, 0, Inter.BILINEAR)(IMG.astype(np.float32))
    assert out.dtype == np.float32 and out.shape == IMG.shape


def test_affine_argument_errors_name_op_and_argument():
    with pytest.raises(TypeError, match="Affine: degrees"):
        vision.Affine([15.0], (0, 0), 1, 0)
    with pytest.raises(ValueError, match="Affine: degrees"):
        vision.Affine(250, (0, 0), 1, 0)
    with pytest.raises(TypeError, match="Affine: translate"):
        vision.Affine(0, (0.1,), 1, 0)
    with pytest.raises(TypeError, match="Affine: translate"):
        vision.Affine(0, False, 1, 0)
    with pytest.raises(ValueError, match="Affine: translate"):
        vision.Affine(0, (0, 1.5), 1, 0)
    with pytest.raises(ValueError, match="Affine: scale"):
        vision.Affine(0, (0, 0), 0, 0)
    with pytest.raises(TypeError, match="Affine: scale"):
        vision.Affine(0, (0, 0), (1, 2), 0)
    with pytest.raises(TypeError, match="Affine: shear"):
        vision.Affine(0, (0, 0), 1, (1, 2, 3))
    with pytest.raises(TypeError, match="Affine: shear"):
        vision.Affine(0, (0, 0), 1, "10")
    with pytest.raises(ValueError, match="Affine: shear"):
        vision.Affine(0, (0, 0), 1, 180.5)
    with pytest.raises(ValueError, match="Affine: resample"):
        vision.Affine(0, (0, 0), 1, 0, resample=Inter.PILCUBIC)
    with pytest.raises(ValueError, match="Affine: fill_value"):
        vision.Affine(0, (0, 0), 1, 0, fill_value=256)
    with pytest.raises(TypeError, match="Affine: fill_value"):
        vision.Affine(0, (0, 0), 1, 0, fill_value=(1, 2))
    with pytest.raises(TypeError, match="missing"):
        vision.Affine(0, (0, 0), 1)
    with pytest.raises(ValueError, match="Affine"):  # 5 channels: refused when applied
        vision.Affine(0, (0, 0), 1, 0)(np.zeros((4, 4, 5), np.uint8))


# ---- RandomAffine ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("degrees,translate,scale,shear", AFFINE_CASES)
def test_random_affine_with_one_value_ranges_is_affine(degrees, translate, scale, shear):
    sx, sy = (shear, 0.0) if isinstance(shear, float) else shear
    op = vision.RandomAffine((degrees, degrees), (translate[0], translate[0], translate[1], translate[1]),
                             (scale, scale), (sx, sx, sy, sy), Inter.BILINEAR, fill_value=(1, 2, 3))
    want = vision.Affine(degrees, translate, scale, shear, Inter.BILINEAR, fill_value=(1, 2, 3))(IMG)
    for seed in (0, 1, 12345):
        assert np.array_equal(op(IMG, seed=seed), want)


def test_random_affine_shorthands_and_draws():
    # Defaults are the identity; a number d means (-d, d); two translate or shear values leave y alone.
    assert np.array_equal(vision.RandomAffine(0)(IMG, seed=3), IMG)
    spec = vision.RandomAffine(10, translate=(-0.1, 0.2), shear=4).spec()
    assert spec["degrees"] == [-10.0, 10.0] and spec["translate"] == [-0.1, 0.2, 0.0, 0.0]
    assert spec["scale"] == [1.0, 1.0] and spec["shear"] == [-4.0, 4.0, 0.0, 0.0]
    assert spec["resample"] == "nearest" and spec["fill_value"] == 0
    assert vision.RandomAffine(0, shear=(1, 2)).spec()["shear"] == [1.0, 2.0, 0.0, 0.0]
    # Seeded: the same seed gives the same warp, other seeds other warps.
    op = vision.RandomAffine(30, translate=(-0.2, 0.2, -0.1, 0.1), scale=(0.8, 1.2), shear=(-10, 10, -5, 5))
    first = op(IMG, seed=9)
    assert np.array_equal(op(IMG, seed=9), first)
    assert sum(not np.array_equal(op(IMG, seed=s), first) for s in range(10, 20)) == 10
    # The horizontal shift is uniform in (tx_min * W, tx_max * W): a one-pixel dot moves by it.
    row = np.zeros((1, 81), np.uint8)
    row[0, 40] = 255
    shift = vision.RandomAffine(0, translate=(-0.25, 0.5))
    lands = np.array([int(np.argmax(shift(row, seed=s))) - 40 for s in range(600)])
    assert lands.min() >= -21 and lands.max() <= 41  # [-20.25, 40.5], rounded
    # The dot lands left of its place when the shift rounds below 0: P(tx < -0.5) = 19.75 / 60.75.
    assert binomial_ok(int((lands < 0).sum()), 600, 19.75 / 60.75)


def test_random_affine_argument_errors_name_op_and_argument():
    with pytest.raises(ValueError, match="RandomAffine: degrees"):
        vision.RandomAffine(-5)
    with pytest.raises(TypeError, match="RandomAffine: degrees"):
        vision.RandomAffine((1, 2, 3))
    with pytest.raises(ValueError, match="RandomAffine: degrees"):
        vision.RandomAffine((10, -10))
    with pytest.raises(TypeError, match="RandomAffine: translate"):
        vision.RandomAffine(0, translate=(0.1, 0.2, 0.3))
    with pytest.raises(ValueError, match="RandomAffine: translate"):
        vision.RandomAffine(0, translate=(0, 1.5))
    with pytest.raises(ValueError, match="RandomAffine: translate"):
        vision.RandomAffine(0, translate=(0.2, 0.1))
    with pytest.raises(TypeError, match="RandomAffine: scale"):
        vision.RandomAffine(0, scale=1.2)
    with pytest.raises(ValueError, match="RandomAffine: scale"):
        vision.RandomAffine(0, scale=(1.2, 0.8))
    with pytest.raises(ValueError, match="RandomAffine: scale"):
        vision.RandomAffine(0, scale=(-1, 1))
    with pytest.raises(ValueError, match="RandomAffine: scale"):
        vision.RandomAffine(0, scale=(0, 0))
    with pytest.raises(ValueError, match="RandomAffine: shear"):
        vision.RandomAffine(0, shear=0)
    with pytest.raises(TypeError, match="RandomAffine: shear"):
        vision.RandomAffine(0, shear=(1, 2, 3))
    with pytest.raises(ValueError, match="RandomAffine: shear"):
        vision.RandomAffine(0, shear=(0, 1, 5, 2))
    with pytest.raises(TypeError, match="RandomAffine: resample"):
        vision.RandomAffine(0, resample="lanczos")
    with pytest.raises(ValueError, match="RandomAffine: fill_value"):
        vision.RandomAffine(0, fill_value=-1)


# ---- Rotate ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("angle", [17.0, -33.0, 200.0])
def test_rotate_matches_torchvision(angle):
    near = vision.Rotate(angle)(IMG)  # MindSpore's default resample is NEAREST
    ref = hwc(F.rotate(chw(IMG), angle, interpolation=InterpolationMode.NEAREST))
    assert (diff(near, ref) > 1).mean() < 0.01  # nearest: ties at half pixels may pick the neighbour
    lin = vision.Rotate(angle, resample=Inter.BILINEAR, fill_value=(5, 6, 7))(IMG)
    check_bilinear(lin, hwc(F.rotate(chw(IMG), angle, interpolation=InterpolationMode.BILINEAR, fill=[5, 6, 7])),
                   coverage(lambda img, fill: F.rotate(img, angle, InterpolationMode.BILINEAR, fill=fill)), (5, 6, 7))
    # A centre (x, y) in pixel indices is torchvision's (x + 0.5, y + 0.5) (its origin is the pixel's corner).
    c = vision.Rotate(angle, center=(10, 12))(IMG)
    ref_c = hwc(F.rotate(chw(IMG), angle, interpolation=InterpolationMode.NEAREST, center=[10.5, 12.5]))
    assert (diff(c, ref_c) > 1).mean() < 0.01
    # expand: torchvision's output size, up to a pixel of rounding.
    big = vision.Rotate(angle, expand=True)(IMG)
    ref_big = F.rotate(chw(IMG), angle, expand=True)
    assert abs(big.shape[0] - ref_big.shape[1]) <= 1 and abs(big.shape[1] - ref_big.shape[2]) <= 1


def test_rotate_is_random_rotation_with_one_angle_and_exact_at_right_angles():
    assert np.array_equal(vision.Rotate(0)(IMG), IMG)
    assert np.array_equal(vision.Rotate(360, resample=Inter.BILINEAR)(IMG), IMG)
    sq = IMG[:40, :40]
    assert np.array_equal(vision.Rotate(90)(sq), np.rot90(sq))  # counter-clockwise, unlike Affine
    assert np.array_equal(vision.Rotate(-90)(sq), np.rot90(sq, -1))
    assert np.array_equal(vision.Rotate(90, expand=True)(IMG), np.rot90(IMG))
    assert np.array_equal(vision.Rotate(180)(IMG[:, :, 0]), np.rot90(IMG[:, :, 0], 2))
    for kw in ({}, {"expand": True}, {"center": (3, 40), "resample": Inter.BICUBIC, "fill_value": 9}):
        assert np.array_equal(vision.Rotate(27.5, **kw)(IMG), vision.RandomRotation((27.5, 27.5), **kw)(IMG))
    # degrees are taken mod 360, as MindSpore does; the turn is the same.
    assert vision.Rotate(-30).spec()["degrees"] == 330.0
    # MindSpore's documented example: 100 x 100 turned by 30 degrees with expand is 137 x 137.
    data = np.random.RandomState(1).randint(0, 255, size=(100, 100, 3)).astype(np.uint8)
    assert vision.Rotate(degrees=30.0, resample=Inter.NEAREST, expand=True)(data).shape == (137, 137, 3)
    # Outside the turned image: fill_value (R, G, B to channels 0, 1, 2).
    out = vision.Rotate(45, fill_value=(1, 2, 3))(sq)
    assert list(out[0, 0]) == [1, 2, 3]


def test_rotate_argument_errors_name_op_and_argument():
    with pytest.raises(TypeError, match="Rotate: degrees"):
        vision.Rotate("30")
    with pytest.raises(TypeError, match="Rotate: degrees"):
        vision.Rotate((10, 20))
    with pytest.raises(TypeError, match="Rotate: expand"):
        vision.Rotate(30, expand=1)
    with pytest.raises(TypeError, match="Rotate: center"):
        vision.Rotate(30, center=3)
    with pytest.raises(TypeError, match="Rotate: center"):
        vision.Rotate(30, center=(1, "a"))
    with pytest.raises(ValueError, match="Rotate: resample"):
        vision.Rotate(30, resample=Inter.ANTIALIAS)
    with pytest.raises(ValueError, match="Rotate: fill_value"):
        vision.Rotate(30, fill_value=(1, 2, 300))


# ---- GaussianBlur ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kernel,sigma,tv_sigma", [
    (3, None, (0.8, 0.8)),                      # ((k - 1) * 0.5 - 1) * 0.3 + 0.8
    (5, 1.7, (1.7, 1.7)),
    ((3, 7), (0.9, 2.5), (0.9, 2.5)),           # (width, height)
    ((7, 3), (0, 0.6), (1.4, 0.6)),             # 0: derived from that axis' size
    ((3, 7), None, (0.8, 0.8)),                 # one (or no) sigma: both axes, from the width (MindSpore's rule)
    ((5, 9), 0, (1.1, 1.1)),
])
def test_gaussian_blur_matches_torchvision(kernel, sigma, tv_sigma):
    op = vision.GaussianBlur(kernel, sigma)
    k = [kernel, kernel] if isinstance(kernel, int) else list(kernel)
    # uint8: torchvision rounds a float convolution, OpenCV uses fixed point: at most 1 level apart.
    ref = hwc(F.gaussian_blur(chw(IMG), k, list(tv_sigma)))
    assert diff(op(IMG), ref).max() <= 1
    # float32: the same convolution up to float rounding.
    f = IMG.astype(np.float32)
    ref_f = hwc(F.gaussian_blur(chw(f), k, list(tv_sigma)))
    out = op(f)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ref_f, atol=2e-3)
    # HW images keep their shape.
    gray = op(IMG[:, :, 0])
    assert gray.shape == IMG.shape[:2]
    np.testing.assert_array_equal(gray, op(IMG)[:, :, 0])


def test_gaussian_blur_identity_and_errors():
    assert np.array_equal(vision.GaussianBlur(1)(IMG), IMG)
    assert np.array_equal(vision.GaussianBlur((1, 1), 3.0)(IMG), IMG)
    # A flat image stays flat (the border is reflected, not zero-padded).
    flat = np.full((9, 11, 3), 77, np.uint8)
    assert np.array_equal(vision.GaussianBlur(5, 2)(flat), flat)
    assert vision.GaussianBlur(3).spec() == {"op": "GaussianBlur", "kernel_size": [3, 3], "sigma": None}
    with pytest.raises(ValueError, match="GaussianBlur: kernel_size"):
        vision.GaussianBlur(4)
    with pytest.raises(ValueError, match="GaussianBlur: kernel_size"):
        vision.GaussianBlur(0)
    with pytest.raises(ValueError, match="GaussianBlur: kernel_size"):
        vision.GaussianBlur((3, 6))
    with pytest.raises(TypeError, match="GaussianBlur: kernel_size"):
        vision.GaussianBlur(3.0)
    with pytest.raises(TypeError, match="GaussianBlur: kernel_size"):
        vision.GaussianBlur((3, 3, 3))
    with pytest.raises(ValueError, match="GaussianBlur: sigma"):
        vision.GaussianBlur(3, -1)
    with pytest.raises(ValueError, match="GaussianBlur: sigma"):
        vision.GaussianBlur(3, (1, -0.5))
    with pytest.raises(TypeError, match="GaussianBlur: sigma"):
        vision.GaussianBlur(3, (1, 2, 3))
    with pytest.raises(TypeError, match="GaussianBlur: sigma"):
        vision.GaussianBlur(3, "1")
    with pytest.raises(ValueError, match="GaussianBlur"):
        vision.GaussianBlur(3)(np.zeros((4, 4), np.int32))


# ---- UniformAugment ----------------------------------------------------------------------------------------------


def add(k):
    def f(x):
        return x * 10 + k
    f.__qualname__ = "add%d" % k
    return f


def test_uniform_augment_keeps_list_order_and_applies_each_by_a_coin():
    """MindSpore's kernel: num_ops ops picked without replacement, kept in
    list order, each then applied with probability 1/2. With num_ops = len:
    every subset of the ops, in list order, equally often."""
    x = np.array(0, np.int64)
    n = 4000
    op = vision.UniformAugment([add(1), add(2), add(3)], num_ops=3)
    outs = [int(op(x, seed=s)) for s in range(n)]
    assert [int(op(x, seed=s)) for s in range(100)] == outs[:100]  # seeded
    assert set(outs) == {0, 1, 2, 3, 12, 13, 23, 123}
    for v in set(outs):
        assert binomial_ok(outs.count(v), n, 1 / 8), (v, outs.count(v))
    # num_ops = 1 of 3: one op picked uniformly, applied half the time.
    one = [int(vision.UniformAugment([add(1), add(2), add(3)], 1)(x, seed=s)) for s in range(n)]
    assert set(one) == {0, 1, 2, 3} and binomial_ok(one.count(0), n, 0.5)
    for k in (1, 2, 3):
        assert binomial_ok(one.count(k), n, 1 / 6)
    # mindrecord ops inside: a turn then a flip, never the flip then the turn.
    sq = IMG[:20, :20]
    turn_flip = vision.UniformAugment([vision.Rotate(90), vision.RandomVerticalFlip(1.0)], num_ops=2)
    outcomes = {"none": sq, "turn": np.rot90(sq), "flip": sq[::-1], "turn, flip": np.rot90(sq)[::-1]}
    seen = {k: 0 for k in outcomes}
    for s in range(400):
        got = turn_flip(sq, seed=s)
        name = [k for k, v in outcomes.items() if np.array_equal(got, v)]
        assert len(name) == 1, s
        seen[name[0]] += 1
    assert all(binomial_ok(c, 400, 0.25) for c in seen.values()), seen
    assert not np.array_equal(np.rot90(sq)[::-1], np.rot90(sq[::-1]))  # the order is visible
    # Default num_ops is MindSpore's 2.
    assert vision.UniformAugment([add(1), add(2)]).spec()["num_ops"] == 2


def test_uniform_augment_argument_errors():
    with pytest.raises(ValueError, match="UniformAugment: num_ops"):
        vision.UniformAugment([add(1), add(2)], num_ops=3)
    with pytest.raises(ValueError, match="UniformAugment: num_ops"):
        vision.UniformAugment([add(1)], num_ops=0)
    with pytest.raises(TypeError, match="UniformAugment: num_ops"):
        vision.UniformAugment([add(1)], num_ops=1.0)
    with pytest.raises(ValueError, match="UniformAugment: transforms"):
        vision.UniformAugment([])
    with pytest.raises(TypeError, match="UniformAugment: transforms"):
        vision.UniformAugment(vision.Rotate(10))
    with pytest.raises(TypeError, match=r"UniformAugment: transforms\[1\]"):
        vision.UniformAugment([vision.Rotate(10), 3], num_ops=1)


# ---- in a pipeline -----------------------------------------------------------------------------------------------


def _dataset(tmp_path, n=6):
    path = png_dataset(str(tmp_path / "geom.mindrecord"), [natural(40, 52, i) for i in range(n)])
    return path, [natural(40, 52, i) for i in range(n)]


def test_pipeline_matches_eager_calls_for_any_worker_count(tmp_path):
    path, images = _dataset(tmp_path)
    fixed = [vision.Affine(12, (0.1, -0.05), 0.9, (5, 2), Inter.BILINEAR, (3, 4, 5)),
             vision.Rotate(-25, expand=False, center=(20, 15)),
             vision.GaussianBlur((5, 3), (1.2, 0.7))]
    ds = mindrecord.MindDataset(path, shuffle=False, num_parallel_workers=2)
    ds = ds.map([vision.Decode()] + fixed, input_columns="image").batch(3)
    got = np.concatenate([b["image"] for b in ds.create_dict_iterator(output_numpy=True)])
    want = []
    for img in images:
        for op in fixed:
            img = op(img)
        want.append(img)
    np.testing.assert_array_equal(got, np.stack(want))

    # Random ops: the output depends on the seed alone, not on the worker count; a RandomAffine with
    # one-value ranges is the Affine; UniformAugment runs mindrecord ops and Python callables.
    def run(workers):
        ops = [vision.Decode(),
               vision.RandomAffine((12, 12), (0.1, 0.1, -0.05, -0.05), (0.9, 0.9), (5, 5, 2, 2), Inter.BILINEAR,
                                   (3, 4, 5)),
               vision.RandomAffine(20, (-0.1, 0.1), (0.9, 1.1), 5),
               vision.UniformAugment([vision.Rotate(180), lambda im: 255 - im, vision.GaussianBlur(3)], 2)]
        def rows(operations):
            d = mindrecord.MindDataset(path, shuffle=True, seed=11, num_parallel_workers=workers)
            return list(d.map(operations, input_columns="image").batch(2).create_dict_iterator(output_numpy=True))
        return rows(ops[:2]), rows(ops)
    (a_fixed, a), (b_fixed, b) = run(1), run(3)
    for x, y in zip(a_fixed + a, b_fixed + b):
        np.testing.assert_array_equal(x["image"], y["image"])
        np.testing.assert_array_equal(x["label"], y["label"])
    for batch in a_fixed:
        for img, label in zip(batch["image"], batch["label"]):
            np.testing.assert_array_equal(img, fixed[0](images[int(label)]))
    assert sum(x["image"].shape[0] for x in a) == 6
