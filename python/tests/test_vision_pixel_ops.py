"""mindrecord.vision's pixel ops RgbToHsv, HsvToRgb, LinearTransformation
(Python ops, as MindSpore's), RandomColor, RandomLighting and NormalizePad
(C++ ops), called as MindSpore's are, eagerly and in MindDataset.map, each
against an independent reference: Python's colorsys per pixel (MindSpore's
own method), PIL's ImageEnhance.Color, numpy formulas, or the AlexNet PCA
table, within the tolerance stated at each check."""
import colorsys

import numpy as np
import pytest
from PIL import Image, ImageEnhance

import mindrecord
from mindrecord import vision
from image_util import natural, diff, png_dataset

IMG = natural()


def colorsys_ref(imgs, fn, is_hwc):
    """MindSpore's py_transforms_util rgb_to_hsvs / hsv_to_rgbs: colorsys
    over the channel planes of each image, restacked on the channel axis."""
    def one(img):
        planes = [img[..., k] if is_hwc else img[k] for k in range(3)]
        return np.stack(np.vectorize(fn)(*planes), axis=2 if is_hwc else 0)
    return one(imgs) if imgs.ndim == 3 else np.array([one(i) for i in imgs])


def rgb01(shape, seed):
    rs = np.random.RandomState(seed)
    x = rs.rand(*shape)
    x[..., :2, :] = np.round(x[..., :2, :] * 4) / 4  # ties: grey pixels, two equal maxima
    return x


# --- RgbToHsv / HsvToRgb ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("is_hwc", [False, True])
def test_rgb_to_hsv_matches_colorsys(is_hwc):
    for shape in ((3, 7, 9), (2, 3, 5, 4)):
        x = rgb01(shape, 1)
        if is_hwc:
            x = np.moveaxis(x, -3, -1).copy()
        got = vision.RgbToHsv(is_hwc)(x)
        assert got.dtype == np.float64 and got.shape == x.shape
        np.testing.assert_allclose(got, colorsys_ref(x, colorsys.rgb_to_hsv, is_hwc), rtol=0, atol=1e-15)
    # uint8 input: v stays in 0..255 (colorsys on the raw values), float64 out, as MindSpore's.
    got = vision.RgbToHsv(True)(IMG)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, colorsys_ref(IMG, colorsys.rgb_to_hsv, True), rtol=0, atol=1e-15)
    # float32 input: MindSpore's colorsys calls round some intermediates to float32; within 1e-6.
    x32 = rgb01((3, 6, 5), 2).astype(np.float32)
    got = vision.RgbToHsv()(x32)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, colorsys_ref(x32.astype(np.float64), colorsys.rgb_to_hsv, False), atol=1e-6)


@pytest.mark.parametrize("is_hwc", [False, True])
def test_hsv_to_rgb_matches_colorsys(is_hwc):
    rs = np.random.RandomState(3)
    for shape in ((3, 8, 6), (3, 3, 4, 5)):
        hsv = rs.rand(*shape)
        hsv[..., 0, :, :] = rs.uniform(-1.5, 2.5, hsv[..., 0, :, :].shape)  # hue in turns, any real
        hsv[..., 1, :2, :] = 0.0  # grey pixels
        hsv[..., 0, 2, :3] = [0.0, 1 / 6, -1 / 3]  # sector edges
        if is_hwc:
            hsv = np.moveaxis(hsv, -3, -1).copy()
        got = vision.HsvToRgb(is_hwc)(hsv)
        assert got.dtype == np.float64 and got.shape == hsv.shape
        np.testing.assert_allclose(got, colorsys_ref(hsv, colorsys.hsv_to_rgb, is_hwc), rtol=0, atol=1e-15)


def test_hsv_round_trip_and_checks():
    x = rgb01((4, 3, 6, 7), 4)
    np.testing.assert_allclose(vision.HsvToRgb()(vision.RgbToHsv()(x)), x, atol=1e-12)
    for op in (vision.RgbToHsv(), vision.HsvToRgb()):
        name = type(op).__name__
        with pytest.raises(TypeError, match=name):
            op([[1, 2, 3]])
        with pytest.raises(TypeError, match=name + ": img shape"):
            op(np.zeros((3, 4)))
        with pytest.raises(TypeError, match=name + ": img should have 3 channels"):
            op(np.zeros((4, 5, 5)))  # CHW by default: 4 channels
        with pytest.raises(TypeError, match=name + ": img should hold numbers"):
            op(np.zeros((3, 2, 2), dtype=object))
        with pytest.raises(TypeError, match=name + ": is_hwc"):
            type(op)(is_hwc=1)
    assert vision.RgbToHsv(True)(np.zeros((2, 2, 3))).shape == (2, 2, 3)
    bad = np.zeros((3, 2, 2))
    bad[0, 0, 0], bad[1, 0, 0] = np.nan, 0.5
    with pytest.raises(ValueError, match="HsvToRgb: hue values must be finite"):
        vision.HsvToRgb()(bad)


# --- LinearTransformation --------------------------------------------------------------------------------------

def test_linear_transformation_formula():
    rs = np.random.RandomState(5)
    img = rs.rand(3, 4, 5).astype(np.float32)
    d = img.size
    m, mean = rs.randn(d, d), rs.rand(d)
    got = vision.LinearTransformation(m, mean)(img)
    flat = img.reshape(-1).astype(np.float64) - mean
    want = np.array([sum(flat[i] * m[i, j] for i in range(d)) for j in range(d)]).reshape(img.shape)
    assert got.shape == img.shape and got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    ident = vision.LinearTransformation(np.eye(d, dtype=np.float32), np.zeros(d, np.float32))(img)
    assert ident.dtype == np.float32
    np.testing.assert_array_equal(ident, img)
    u8 = (img * 255).astype(np.uint8)  # uint8 minus a float64 vector: float64, as numpy does
    np.testing.assert_allclose(vision.LinearTransformation(m, mean)(u8),
                               ((u8.reshape(1, -1) - mean) @ m).reshape(u8.shape), rtol=1e-12)
    # The op keeps copies: changing the arrays afterwards changes nothing.
    op = vision.LinearTransformation(m, mean)
    m[:] = 0
    np.testing.assert_allclose(op(img), got)


@pytest.mark.parametrize("make, error, match", [
    (lambda: vision.LinearTransformation([[1.0]], np.zeros(1)), TypeError, "transformation_matrix"),
    (lambda: vision.LinearTransformation(np.eye(2), [0, 0]), TypeError, "mean_vector"),
    (lambda: vision.LinearTransformation(np.ones((2, 3)), np.zeros(2)), ValueError, "square"),
    (lambda: vision.LinearTransformation(np.ones(4), np.zeros(4)), ValueError, "square"),
    (lambda: vision.LinearTransformation(np.eye(3), np.zeros(2)), ValueError, "mean_vector"),
    (lambda: vision.LinearTransformation(np.eye(2).astype(str), np.zeros(2)), TypeError, "transformation_matrix"),
    (lambda: vision.LinearTransformation(np.eye(12), np.zeros(12))(np.zeros((3, 2, 3))), ValueError, "not compatible"),
    (lambda: vision.LinearTransformation(np.eye(2), np.zeros(2))([1, 2]), TypeError, "img should be a numpy"),
])
def test_linear_transformation_checks(make, error, match):
    with pytest.raises(error, match="LinearTransformation: .*" + match):
        make()


# --- RandomColor -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("t", [0.0, 0.3, 0.8, 1.5, 1.9])
def test_random_color_fixed_factor_matches_pil(t):
    got = vision.RandomColor((t, t))(IMG, seed=1)
    # PIL's grey weighs 0.299/0.587/0.114 in 16-bit fixed point, OpenCV's in 14-bit (within 1 level), and PIL's
    # blend truncates where OpenCV's rounds: within 2 levels.
    want = np.asarray(ImageEnhance.Color(Image.fromarray(IMG)).enhance(t))
    assert diff(got, want).max() <= 2
    np.testing.assert_array_equal(got, vision.AdjustSaturation(t)(IMG))  # the same blend, exactly


def test_random_color_short_cuts_and_draws():
    np.testing.assert_array_equal(vision.RandomColor((1.001, 1.001))(IMG), IMG)  # |t - 1| < 0.00195
    gray = vision.RandomColor((0.001, 0.001))(IMG)  # |t| < 0.00195: the grey image
    assert (gray == gray[..., :1]).all()
    assert diff(gray[..., 0], np.asarray(Image.fromarray(IMG).convert("L"))).max() <= 1
    lo, hi = vision.AdjustSaturation(0.5)(IMG).astype(int), vision.AdjustSaturation(1.5)(IMG).astype(int)
    outs = set()
    for s in range(40):  # each factor in [0.5, 1.5): each value between the ends' (within rounding)
        out = vision.RandomColor((0.5, 1.5))(IMG, seed=s).astype(int)
        assert ((out >= np.minimum(lo, hi) - 1) & (out <= np.maximum(lo, hi) + 1)).all()
        outs.add(out.tobytes())
    assert len(outs) >= 35
    np.testing.assert_array_equal(vision.RandomColor()(IMG, seed=9), vision.RandomColor()(IMG, seed=9))
    with pytest.raises(ValueError, match="RandomColor: expected an HWC image with 3 channels"):
        vision.RandomColor()(IMG[..., 0])
    with pytest.raises(ValueError, match="RandomColor"):
        vision.RandomColor()(IMG.astype(np.float32))


# --- RandomLighting --------------------------------------------------------------------------------------------

# AlexNet's ImageNet RGB PCA (Krizhevsky et al. 2012, as MindSpore's table): eigenvalues and eigenvectors (columns).
EIGVAL = np.array([55.46, 4.794, 1.148])
EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])


def test_random_lighting_adds_pca_noise_of_std_alpha():
    rs = np.random.RandomState(6)
    img = rs.randint(108, 149, (10, 12, 3)).astype(np.uint8)  # no saturation for the shifts drawn below
    alpha, n = 0.5, 600
    weights = []
    for s in range(n):
        shift = vision.RandomLighting(alpha)(img, seed=s).astype(int) - img
        assert (shift == shift[0, 0]).all()  # one shift per channel, the same for every pixel
        # shift = round(EIGVEC @ (EIGVAL * a)): solve for the three weights a (rounding: +-0.5 per channel).
        weights.append(np.linalg.solve(EIGVEC * EIGVAL, shift[0, 0]))
    w = np.array(weights)
    assert abs(w[:, 0].std() / alpha - 1) < 0.1 and abs(w[:, 1].std() / alpha - 1) < 0.15, w.std(0)
    assert np.abs(w[:, :2].mean(0)).max() < 4 * alpha / np.sqrt(n)
    np.testing.assert_array_equal(vision.RandomLighting(0)(IMG, seed=3), IMG)
    sat = vision.RandomLighting(1e6)(IMG, seed=3)  # saturates
    assert np.isin(sat, [0, 255]).all()
    with pytest.raises(ValueError, match="RandomLighting: expected an HWC image with 3 channels"):
        vision.RandomLighting()(np.zeros((4, 4, 4), np.uint8))
    with pytest.raises(ValueError, match="RandomLighting"):
        vision.RandomLighting()(IMG.astype(np.float32))


# --- NormalizePad ----------------------------------------------------------------------------------------------

def test_normalize_pad_formula():
    mean, std = [121.0, 115.0, 100.0], [70.0, 68.0, 71.0]
    out = vision.NormalizePad(mean, std)(IMG)
    assert out.dtype == np.float32 and out.shape == IMG.shape[:2] + (4,)
    # MindSpore divides by std in float, the kernel here multiplies by 1/std: within 1e-6 relative.
    np.testing.assert_allclose(out[..., :3], (IMG - np.array(mean)) / np.array(std), rtol=1e-6, atol=1e-6)
    assert (out[..., 3] == 0).all()
    chw = np.moveaxis(IMG, -1, 0).astype(np.float32) / 255
    out = vision.NormalizePad([0.5], [0.25], is_hwc=False)(chw)
    assert out.shape == (4,) + IMG.shape[:2]
    np.testing.assert_allclose(out[:3], (chw - 0.5) / 0.25, rtol=1e-6, atol=1e-6)
    assert (out[3] == 0).all()
    out = vision.NormalizePad([10], [2])(IMG[..., 0])  # HW: one channel and the zero one
    assert out.shape == IMG.shape[:2] + (2,)
    np.testing.assert_allclose(out[..., 0], (IMG[..., 0] - 10.0) / 2, rtol=1e-6)
    assert vision.NormalizePad([1, 2, 3], [1, 1, 1]).spec() == {
        "op": "NormalizePad", "mean": [1.0, 2.0, 3.0], "std": [1.0, 1.0, 1.0], "dtype": "float32", "is_hwc": True}
    with pytest.raises(ValueError, match="NormalizePad: 3 mean/std values for an image with 1 channels"):
        vision.NormalizePad(mean, std)(IMG[..., 0])
    with pytest.raises(ValueError, match="NormalizePad: with is_hwc=False"):
        vision.NormalizePad(mean, std, is_hwc=False)(IMG[..., 0])


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(mean=(1, 2), std=(1,)), ValueError, "same length"),
    (dict(mean=1, std=1), TypeError, "mean must be a list"),
    (dict(mean=[1], std="1"), TypeError, "std must be a list"),
    (dict(mean=[256], std=[1]), ValueError, r"mean\[0\]"),
    (dict(mean=[1], std=[0]), ValueError, r"std\[0\]"),
    (dict(mean=["1"], std=[1]), TypeError, r"mean\[0\]"),
    (dict(mean=[], std=[]), ValueError, "1 to 4"),
    (dict(mean=[1], std=[1], dtype=np.float32), TypeError, "dtype"),
    (dict(mean=[1], std=[1], dtype="int8"), ValueError, "dtype"),
    (dict(mean=[1], std=[1], dtype="float16"), ValueError, "float16' is not supported"),
    (dict(mean=[1], std=[1], is_hwc="no"), TypeError, "is_hwc"),
])
def test_normalize_pad_checks(kwargs, error, match):
    with pytest.raises(error, match="NormalizePad: .*" + match):
        vision.NormalizePad(**kwargs)


@pytest.mark.parametrize("make, error, match", [
    (lambda: vision.RandomColor(0.5), TypeError, "RandomColor: degrees"),
    (lambda: vision.RandomColor((1.0,)), ValueError, "RandomColor: degrees"),
    (lambda: vision.RandomColor((1.5, 0.5)), ValueError, "RandomColor: degrees"),
    (lambda: vision.RandomColor((-0.5, 0.5)), ValueError, "RandomColor: degrees"),
    (lambda: vision.RandomColor((0.5, 2 ** 25)), ValueError, "RandomColor: degrees"),
    (lambda: vision.RandomColor(("a", 1)), TypeError, "RandomColor: degrees"),
    (lambda: vision.RandomLighting(-0.1), ValueError, "RandomLighting: alpha"),
    (lambda: vision.RandomLighting(2 ** 25), ValueError, "RandomLighting: alpha"),
    (lambda: vision.RandomLighting("0.1"), TypeError, "RandomLighting: alpha"),
])
def test_random_op_checks(make, error, match):
    with pytest.raises(error, match=match):
        make()
    assert vision.RandomColor().spec() == {"op": "RandomColor", "degrees": [0.1, 1.9]}
    assert vision.RandomLighting().spec() == {"op": "RandomLighting", "alpha": 0.05}


# --- in a pipeline ---------------------------------------------------------------------------------------------

def _dataset(tmp_path, n=9):
    return png_dataset(str(tmp_path / "pixel.mindrecord"), [natural(30 + i, 40, i) for i in range(n)])


def _run(path, ops, workers, size=(12, 10), **kwargs):
    ds = mindrecord.MindDataset(path, shuffle=False, num_parallel_workers=workers, seed=5)
    ds = ds.map(operations=[vision.Decode(), vision.Resize(size)] + ops, input_columns="image", **kwargs)
    return np.stack([r["image"] for r in ds.create_dict_iterator(output_numpy=True)])


def _eager(path, ops, size=(12, 10)):
    out = []
    for r in mindrecord.FileReader(path).get_next():
        img = vision.Resize(size)(vision.Decode()(r["image"]))
        for op in ops:
            img = op(img)
        out.append(img)
    return np.stack(out)


def test_random_ops_in_a_pipeline_same_for_any_worker_count(tmp_path):
    path = _dataset(tmp_path)
    ops = [vision.RandomColor(), vision.RandomLighting(0.2), vision.NormalizePad([100.0], [50.0])]
    a, b = _run(path, ops, 1), _run(path, ops, 3)
    assert a.shape == (9, 12, 10, 4) and a.dtype == np.float32
    np.testing.assert_array_equal(a, b)
    assert (a[..., 3] == 0).all()
    fixed = [vision.NormalizePad([1, 2, 3], [4, 5, 6])]
    np.testing.assert_array_equal(_run(path, fixed, 2), _eager(path, fixed))


def test_python_ops_in_a_pipeline_equal_eager_calls(tmp_path):
    path = _dataset(tmp_path)
    d = 3 * 12 * 10
    rs = np.random.RandomState(7)
    ops = [vision.ToTensor(), vision.RgbToHsv(), vision.HsvToRgb(), vision.RgbToHsv(),
           vision.LinearTransformation(rs.randn(d, d) / d, rs.rand(d))]
    want = _eager(path, ops)
    assert want.shape == (9, 3, 12, 10) and want.dtype == np.float64
    np.testing.assert_array_equal(_run(path, ops, 3), want)
    np.testing.assert_array_equal(_run(path, ops, 2, python_multiprocessing=True), want)
    hwc = [vision.RgbToHsv(is_hwc=True)]
    np.testing.assert_array_equal(_run(path, hwc, 2), _eager(path, hwc))
