"""mindrecord.vision's colour / point ops (AutoContrast ... AdjustGamma and
their random forms) called as MindSpore's are, eagerly on numpy arrays and in
MindDataset.map, each against an independent reference: PIL.ImageOps,
torchvision's functional op with the same parameters, or a numpy formula,
within the tolerance stated at each check."""
import io

import numpy as np
import pytest
import torch
import torchvision.transforms.functional as F
from PIL import Image, ImageOps

import mindrecord
from mindrecord import vision
from image_util import natural, chw, hwc, diff, binomial_ok







def pil(op, img, *args, **kwargs):
    return np.asarray(op(Image.fromarray(img), *args, **kwargs))


IMG = natural()
GRAY = IMG[..., 1]


def equalize_ref(plane):
    """OpenCV's equalizeHist, from its documentation: the lowest level used
    goes to 0, level v to round(255 * (cdf(v) - cdf(lowest)) / (n - count(lowest)))
    in float32; an image of one level keeps it."""
    hist = np.bincount(plane.ravel(), minlength=256)
    low = np.flatnonzero(hist)[0]
    if hist[low] == plane.size:
        return plane.copy()
    scale = np.float32(255) / np.float32(plane.size - hist[low])
    cdf = np.cumsum(hist) - hist[low]
    lut = np.clip(np.rint(cdf.astype(np.float32) * scale), 0, 255).astype(np.uint8)
    lut[:low + 1] = 0
    return lut[plane]


# --- values against references ---------------------------------------------------------------------------------

@pytest.mark.parametrize("cutoff", [0, 2, 10, 49])
@pytest.mark.parametrize("ignore", [None, 0, [40, 41, 42, 255]])
def test_auto_contrast_matches_pil(cutoff, ignore):
    # PIL's autocontrast computes its scale in double, MindSpore's kernel in float: within 1 level,
    # on under 2% of the values.
    pil_ignore = [ignore] if isinstance(ignore, int) else ignore
    d = diff(vision.AutoContrast(cutoff, ignore)(IMG), pil(ImageOps.autocontrast, IMG, cutoff=cutoff,
                                                             ignore=pil_ignore))
    assert d.max() <= 1 and (d > 0).mean() < 0.02
    d = diff(vision.AutoContrast(cutoff, ignore)(GRAY), pil(ImageOps.autocontrast, GRAY, cutoff=cutoff,
                                                              ignore=pil_ignore))
    assert d.max() <= 1 and (d > 0).mean() < 0.02


def test_auto_contrast_counts_whole_percents_and_takes_gray():
    # MindSpore's kernel takes the cutoff as an int32 percentage: 10.7 cuts 10%.
    np.testing.assert_array_equal(vision.AutoContrast(10.7)(IMG), vision.AutoContrast(10)(IMG))
    assert not np.array_equal(vision.AutoContrast(10)(IMG), vision.AutoContrast(11)(IMG))
    one = vision.AutoContrast(5)(GRAY[..., None])
    assert one.shape == GRAY.shape + (1,)
    np.testing.assert_array_equal(one[..., 0], vision.AutoContrast(5)(GRAY))
    with pytest.raises(ValueError, match="AutoContrast: expected an HW image or an HWC one with 1 or 3"):
        vision.AutoContrast()(np.zeros((4, 4, 4), np.uint8))


def test_equalize_matches_opencv_formula():
    out = vision.Equalize()(IMG)
    for c in range(3):
        np.testing.assert_array_equal(out[..., c], equalize_ref(IMG[..., c]))  # exact
    np.testing.assert_array_equal(vision.Equalize()(GRAY), equalize_ref(GRAY))
    np.testing.assert_array_equal(vision.Equalize()(GRAY[..., None])[..., 0], equalize_ref(GRAY))
    flat = np.full((5, 5, 3), 77, np.uint8)
    np.testing.assert_array_equal(vision.Equalize()(flat), flat)


def test_invert_posterize_solarize_match_pil():
    np.testing.assert_array_equal(vision.Invert()(IMG), pil(ImageOps.invert, IMG))  # exact
    for bits in range(1, 9):
        np.testing.assert_array_equal(vision.Posterize(bits)(IMG), pil(ImageOps.posterize, IMG, bits))
        np.testing.assert_array_equal(vision.Posterize(bits)(GRAY), pil(ImageOps.posterize, GRAY, bits))
    np.testing.assert_array_equal(vision.Posterize(0)(IMG), np.zeros_like(IMG))
    for t in (0, 1, 100, 128, 255):  # a number t: every x >= t, as PIL's threshold
        np.testing.assert_array_equal(vision.Solarize(t)(IMG), pil(ImageOps.solarize, IMG, t))
        np.testing.assert_array_equal(vision.Solarize((t, t))(GRAY), pil(ImageOps.solarize, GRAY, t))
    for lo, hi in ((30, 200), (0, 255), (99.5, 150.2)):  # a range: x in [lo, hi] only
        want = np.where((IMG >= lo) & (IMG <= hi), 255 - IMG, IMG)
        np.testing.assert_array_equal(vision.Solarize((lo, hi))(IMG), want)
    with pytest.raises(ValueError, match="Invert: expected an HWC image with 3 channels"):
        vision.Invert()(GRAY)


@pytest.mark.parametrize("factor", [0.0, 0.3, 1.0, 1.7, 3.0])
def test_adjustments_match_torchvision(factor):
    # torchvision's blend truncates where MindSpore's kernels round: within 1 level;
    # saturation also weighs grey differently: within 2.
    assert diff(vision.AdjustBrightness(factor)(IMG), hwc(F.adjust_brightness(chw(IMG), factor))).max() <= 1
    assert diff(vision.AdjustContrast(factor)(IMG), hwc(F.adjust_contrast(chw(IMG), factor))).max() <= 1
    assert diff(vision.AdjustSaturation(factor)(IMG), hwc(F.adjust_saturation(chw(IMG), factor))).max() <= 2
    sharp = vision.AdjustSharpness(factor)(IMG)
    assert diff(sharp, hwc(F.adjust_sharpness(chw(IMG), factor))).max() <= 1
    gray = F.adjust_sharpness(torch.from_numpy(GRAY)[None], factor)[0].numpy()
    assert diff(vision.AdjustSharpness(factor)(GRAY), gray).max() <= 1


@pytest.mark.parametrize("hue", [-0.5, -0.3, 0.1, 0.45])
def test_adjust_hue_matches_torchvision(hue):
    # MindSpore's kernel shifts hue in OpenCV's 8-bit HSV (256 steps), torchvision in float HSV:
    # mean difference under 1.5 levels, none over 16.
    d = diff(vision.AdjustHue(hue)(IMG), hwc(F.adjust_hue(chw(IMG), hue)))
    assert d.mean() < 1.5 and d.max() <= 16, (d.mean(), d.max())


@pytest.mark.parametrize("gamma", [0.0, 0.4, 1.0, 2.2])
@pytest.mark.parametrize("gain", [1.0, 0.6, 1.5, -0.5])
def test_adjust_gamma_matches_torchvision(gamma, gain):
    # uint8: both truncate 255.999 * gain * (x / 255)^gamma into [0, 255]; float32 vs double
    # rounding at a truncation may move a value by 1.
    assert diff(vision.AdjustGamma(gamma, gain)(IMG), hwc(F.adjust_gamma(chw(IMG), gamma, gain))).max() <= 1
    assert diff(vision.AdjustGamma(gamma, gain)(GRAY),
                F.adjust_gamma(torch.from_numpy(GRAY)[None], gamma, gain)[0].numpy()).max() <= 1


def test_adjust_gamma_on_float_and_batches():
    x = IMG.astype(np.float32) / 255
    # MindSpore's float path: clamp((x * gain)^gamma, 0, 1) (torchvision's is gain * x^gamma).
    out = vision.AdjustGamma(2.0, 1.3)(x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.clip((x.astype(np.float64) * 1.3) ** 2.0, 0, 1), atol=1e-6)
    np.testing.assert_allclose(vision.AdjustGamma(0.5)(x), F.adjust_gamma(chw(x), 0.5).permute(1, 2, 0).numpy(),
                               atol=1e-6)
    out64 = vision.AdjustGamma(0.5)(x.astype(np.float64))
    assert out64.dtype == np.float32  # MindSpore casts float input to float32
    batch = np.stack([IMG, IMG[::-1]])
    np.testing.assert_array_equal(vision.AdjustGamma(0.7)(batch)[1], vision.AdjustGamma(0.7)(IMG[::-1]))
    with pytest.raises(ValueError, match="AdjustGamma: expected an image of shape"):
        vision.AdjustGamma(0.7)(np.zeros((4, 4, 2), np.uint8))


# --- the random ops --------------------------------------------------------------------------------------------

def test_random_ops_at_their_limits_are_the_deterministic_ones():
    pairs = [(vision.RandomAutoContrast(3, [7], prob=1.0), vision.AutoContrast(3, [7])),
             (vision.RandomEqualize(1.0), vision.Equalize()),
             (vision.RandomInvert(1.0), vision.Invert()),
             (vision.RandomAdjustSharpness(1.6, prob=1.0), vision.AdjustSharpness(1.6)),
             (vision.RandomPosterize((3, 3)), vision.Posterize(3)),
             (vision.RandomPosterize(5), vision.Posterize(5)),
             (vision.RandomPosterize(), vision.Posterize(8)),
             (vision.RandomSolarize((90, 90)), vision.Solarize(90)),
             (vision.RandomSharpness((0.4, 0.4)), vision.AdjustSharpness(0.4))]
    for random_op, fixed in pairs:
        for seed in range(3):
            np.testing.assert_array_equal(random_op(IMG, seed=seed), fixed(IMG), err_msg=repr(random_op))
    for op in (vision.RandomAutoContrast(prob=0.0), vision.RandomEqualize(0.0), vision.RandomInvert(0.0),
               vision.RandomAdjustSharpness(0.0, prob=0.0)):
        np.testing.assert_array_equal(op(IMG, seed=1), IMG)
    # The input is checked whatever the draw, as MindSpore's ops check it.
    with pytest.raises(ValueError, match="RandomInvert"):
        vision.RandomInvert(0.0)(GRAY)
    with pytest.raises(ValueError, match="RandomAutoContrast"):
        vision.RandomAutoContrast(prob=0.0)(GRAY[..., None])
    np.testing.assert_array_equal(vision.RandomAutoContrast(prob=1.0)(GRAY), vision.AutoContrast()(GRAY))


def test_random_ops_draw_as_mindspore():
    n = 2000
    for op, p in ((vision.RandomInvert(0.3), 0.3), (vision.RandomEqualize(), 0.5),
                  (vision.RandomAutoContrast(prob=0.8), 0.8), (vision.RandomAdjustSharpness(0.0, 0.2), 0.2)):
        hits = sum(not np.array_equal(op(IMG, seed=s), IMG) for s in range(n))
        assert binomial_ok(hits, n, p), (op, hits)
        np.testing.assert_array_equal(op(IMG, seed=11), op(IMG, seed=11))
    # RandomPosterize: bits uniform over the integers of [2, 5].
    outs = {b: vision.Posterize(b)(IMG).tobytes() for b in range(2, 6)}
    seen = {b: 0 for b in outs}
    for s in range(400):
        got = vision.RandomPosterize((2, 5))(IMG, seed=s).tobytes()
        seen[next(b for b, o in outs.items() if o == got)] += 1
    assert all(binomial_ok(k, 400, 0.25) for k in seen.values()), seen
    # RandomSolarize: two integer draws a, b in [40, 60], inverting [min, max] (every x >= a if equal).
    big = np.random.RandomState(3).randint(0, 256, (64, 64, 3)).astype(np.uint8)  # every level present
    equal = 0
    for s in range(300):
        out = vision.RandomSolarize((40, 60))(big, seed=s)
        changed = big[out != big]
        a, b = int(changed.min()), int(changed.max())
        assert 40 <= a <= 60
        if b == 255:
            equal += 1
            np.testing.assert_array_equal(out, vision.Solarize(a)(big))
        else:
            assert a < b <= 60
            np.testing.assert_array_equal(out, vision.Solarize((a, b))(big))
    assert binomial_ok(equal, 300, 1 / 21)
    # RandomSharpness: a factor uniform in [0.5, 1.5): each output lies between the two ends.
    lo, hi = vision.AdjustSharpness(0.5)(IMG).astype(int), vision.AdjustSharpness(1.5)(IMG).astype(int)
    outs = set()
    for s in range(30):
        out = vision.RandomSharpness((0.5, 1.5))(IMG, seed=s).astype(int)
        assert ((out >= np.minimum(lo, hi) - 1) & (out <= np.maximum(lo, hi) + 1)).all()
        outs.add(out.tobytes())
    assert len(outs) >= 25


# --- argument checks -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("make, error, match", [
    (lambda: vision.AutoContrast(cutoff=50), ValueError, "AutoContrast: cutoff"),
    (lambda: vision.AutoContrast(cutoff=-1), ValueError, "AutoContrast: cutoff"),
    (lambda: vision.AutoContrast(cutoff="1"), TypeError, "AutoContrast: cutoff"),
    (lambda: vision.AutoContrast(ignore=256), ValueError, "AutoContrast: ignore"),
    (lambda: vision.AutoContrast(ignore=[1, 2.5]), TypeError, "AutoContrast: ignore"),
    (lambda: vision.AutoContrast(ignore="0"), TypeError, "AutoContrast: ignore"),
    (lambda: vision.Posterize(9), ValueError, "Posterize: bits"),
    (lambda: vision.Posterize(2.0), TypeError, "Posterize: bits"),
    (lambda: vision.Solarize(256), ValueError, "Solarize: threshold"),
    (lambda: vision.Solarize((200, 100)), ValueError, "Solarize: threshold"),
    (lambda: vision.Solarize((1, 2, 3)), TypeError, "Solarize: threshold"),
    (lambda: vision.Solarize("1"), TypeError, "Solarize: threshold"),
    (lambda: vision.AdjustSharpness(-0.1), ValueError, "AdjustSharpness: sharpness_factor"),
    (lambda: vision.AdjustBrightness(None), TypeError, "AdjustBrightness: brightness_factor"),
    (lambda: vision.AdjustContrast(2 ** 25), ValueError, "AdjustContrast: contrast_factor"),
    (lambda: vision.AdjustSaturation(True), TypeError, "AdjustSaturation: saturation_factor"),
    (lambda: vision.AdjustHue(0.6), ValueError, "AdjustHue: hue_factor"),
    (lambda: vision.AdjustGamma(-1), ValueError, "AdjustGamma: gamma"),
    (lambda: vision.AdjustGamma(1, gain=None), TypeError, "AdjustGamma: gain"),
    (lambda: vision.AdjustGamma(1, gain=-2 ** 25), ValueError, "AdjustGamma: gain"),
    (lambda: vision.RandomAutoContrast(cutoff=60), ValueError, "RandomAutoContrast: cutoff"),
    (lambda: vision.RandomAutoContrast(ignore=[300]), ValueError, "RandomAutoContrast: ignore"),
    (lambda: vision.RandomAutoContrast(prob=1.5), ValueError, "RandomAutoContrast: prob"),
    (lambda: vision.RandomEqualize("0.5"), TypeError, "RandomEqualize: prob"),
    (lambda: vision.RandomInvert(-0.1), ValueError, "RandomInvert: prob"),
    (lambda: vision.RandomAdjustSharpness(-1), ValueError, "RandomAdjustSharpness: degree"),
    (lambda: vision.RandomAdjustSharpness(1.0, prob=2), ValueError, "RandomAdjustSharpness: prob"),
    (lambda: vision.RandomPosterize(0), ValueError, "RandomPosterize: bits"),
    (lambda: vision.RandomPosterize((6, 4)), ValueError, "RandomPosterize: bits"),
    (lambda: vision.RandomPosterize((1, 9)), ValueError, "RandomPosterize: bits"),
    (lambda: vision.RandomPosterize((1, 4, 8)), TypeError, "RandomPosterize: bits"),
    (lambda: vision.RandomPosterize((1.0, 4)), TypeError, "RandomPosterize: bits"),
    (lambda: vision.RandomPosterize(None), TypeError, "RandomPosterize: bits"),
    (lambda: vision.RandomSolarize([0, 255]), TypeError, "RandomSolarize: threshold"),  # a tuple, as MindSpore
    (lambda: vision.RandomSolarize((0, 256)), ValueError, "RandomSolarize: threshold"),
    (lambda: vision.RandomSolarize((100, 50)), ValueError, "RandomSolarize: threshold"),
    (lambda: vision.RandomSolarize((1, 2, 3)), ValueError, "RandomSolarize: threshold"),
    (lambda: vision.RandomSolarize((1.5, 2)), TypeError, "RandomSolarize: threshold"),
    (lambda: vision.RandomSharpness(0.5), TypeError, "RandomSharpness: degrees"),
    (lambda: vision.RandomSharpness((1.0,)), ValueError, "RandomSharpness: degrees"),
    (lambda: vision.RandomSharpness((1.5, 0.5)), ValueError, "RandomSharpness: degrees"),
    (lambda: vision.RandomSharpness((-0.5, 0.5)), ValueError, "RandomSharpness: degrees"),
    (lambda: vision.RandomSharpness(("a", 1)), TypeError, "RandomSharpness: degrees"),
])
def test_bad_arguments_name_op_and_argument(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_specs_and_defaults():
    assert vision.AutoContrast().spec() == {"op": "AutoContrast", "cutoff": 0.0, "ignore": []}
    assert vision.AutoContrast(ignore=5).spec()["ignore"] == [5]
    assert vision.Solarize(7).spec()["threshold"] == [7.0, 7.0]
    assert vision.AdjustGamma(2).spec() == {"op": "AdjustGamma", "gamma": 2.0, "gain": 1.0}
    assert vision.RandomPosterize().spec()["bits"] == [8, 8]
    assert vision.RandomPosterize(3).spec()["bits"] == [3, 3]
    assert vision.RandomSolarize().spec()["threshold"] == [0, 255]
    assert vision.RandomSharpness().spec()["degrees"] == [0.1, 1.9]
    assert vision.RandomAdjustSharpness(2).spec() == {"op": "RandomAdjustSharpness", "degree": 2.0, "prob": 0.5}
    for name in ("RandomAutoContrast", "RandomEqualize", "RandomInvert"):
        assert getattr(vision, name)().spec()["prob"] == 0.5
    for name in ("AutoContrast", "Equalize", "Invert", "Posterize", "Solarize", "AdjustSharpness", "AdjustBrightness",
                 "AdjustContrast", "AdjustSaturation", "AdjustHue", "AdjustGamma", "RandomAutoContrast",
                 "RandomEqualize", "RandomInvert", "RandomPosterize", "RandomSolarize", "RandomSharpness",
                 "RandomAdjustSharpness"):
        assert name in vision.__all__


# --- in a pipeline ---------------------------------------------------------------------------------------------

def _jpeg(img, quality=95):
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


def _image_dataset(tmp_path, n=10):
    path = str(tmp_path / "point.mindrecord")
    w = mindrecord.FileWriter(path)
    w.add_schema({"image": {"type": "bytes"}, "label": {"type": "int32"}})
    w.write_raw_data([{"image": _jpeg(natural(40 + i, 56, i)), "label": i} for i in range(n)])
    w.commit()
    return path


def _run(path, ops, workers=1, batch=5):
    ds = mindrecord.MindDataset(path, shuffle=False, num_parallel_workers=workers, seed=7)
    ds = ds.map(operations=[vision.Decode(), vision.Resize((32, 40))] + ops, input_columns="image")
    return np.concatenate([b["image"] for b in ds.batch(batch).create_dict_iterator(output_numpy=True)])


def _decoded(path):
    return [vision.Resize((32, 40))(vision.Decode()(r["image"])) for r in mindrecord.FileReader(path).get_next()]


def test_deterministic_ops_in_a_pipeline_equal_eager_calls(tmp_path):
    path = _image_dataset(tmp_path)
    ops = [vision.AutoContrast(cutoff=2, ignore=[0]), vision.Equalize(), vision.Posterize(5),
           vision.Solarize((30, 200)), vision.AdjustSharpness(1.5), vision.AdjustBrightness(1.1),
           vision.AdjustContrast(0.8), vision.AdjustSaturation(1.3), vision.AdjustHue(0.05),
           vision.AdjustGamma(0.8, 1.1), vision.Invert()]
    got = _run(path, ops, workers=2)
    assert got.shape == (10, 32, 40, 3) and got.dtype == np.uint8
    for g, img in zip(got, _decoded(path)):
        for op in ops:
            img = op(img)
        np.testing.assert_array_equal(g, img)


def test_random_ops_in_a_pipeline_same_for_any_worker_count(tmp_path):
    path = _image_dataset(tmp_path)
    ops = [vision.RandomAutoContrast(cutoff=1), vision.RandomEqualize(), vision.RandomInvert(),
           vision.RandomAdjustSharpness(1.8), vision.RandomPosterize((3, 7)), vision.RandomSolarize((100, 220)),
           vision.RandomSharpness((0.2, 1.8))]
    a, b = _run(path, ops, workers=1), _run(path, ops, workers=3)
    np.testing.assert_array_equal(a, b)
    # One random op at a time: each row is one of the op's outcomes.
    rows = _decoded(path)
    for g, img in zip(_run(path, [vision.RandomPosterize((3, 7))], workers=2), rows):
        assert any(np.array_equal(g, vision.Posterize(k)(img)) for k in range(3, 8))
    flips = [not np.array_equal(g, img) for g, img in zip(_run(path, [vision.RandomInvert()], workers=2), rows)]
    for g, img, flipped in zip(_run(path, [vision.RandomInvert()]), rows, flips):
        np.testing.assert_array_equal(g, vision.Invert()(img) if flipped else img)
    assert 0 < sum(flips) < len(flips)
