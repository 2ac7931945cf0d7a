"""Pixel ops of mindrecord.vision: RgbToHsv, HsvToRgb, LinearTransformation
(Python ops on numpy arrays, as MindSpore implements them only in Python),
and RandomColor, RandomLighting, NormalizePad (C++ pipeline ops).

The Python ops are plain callables: `op(array)` eagerly, and in
`MindDataset.map` they run as Python callables (PyFuncs) on the pipeline's
workers, as MindSpore runs its Python ops.

Thread safety: op objects are immutable values; calls share no state.
"""
import numbers

import numpy as np

from mindrecord._ops_base import TensorOperation, check_float
from mindrecord._vision_color import _FACTOR_MAX, _pair


def _check_bool(value, op, name):
    if not isinstance(value, bool):
        raise TypeError("%s: %s must be a bool, got %r" % (op, name, value))
    return value


def _hsv_input(imgs, is_hwc, op):
    """imgs as float64 with the 3 channels on the last axis (MindSpore's
    checks: a numpy array of shape (H, W, C) / (N, H, W, C) if is_hwc, else
    (C, H, W) / (N, C, H, W), with C = 3)."""
    if not isinstance(imgs, np.ndarray):
        raise TypeError("%s: img should be a numpy array, got %s" % (op, type(imgs)))
    if imgs.ndim not in (3, 4):
        raise TypeError("%s: img shape should be (H, W, C)/(N, H, W, C)/(C, H, W)/(N, C, H, W), got %s"
                        % (op, imgs.shape))
    if imgs.dtype.kind not in "biuf":
        raise TypeError("%s: img should hold numbers, got dtype %s" % (op, imgs.dtype))
    axis = imgs.ndim - 1 if is_hwc else imgs.ndim - 3
    if imgs.shape[axis] != 3:
        raise TypeError("%s: img should have 3 channels, got %d (is_hwc=%s, shape %s)"
                        % (op, imgs.shape[axis], is_hwc, imgs.shape))
    return np.moveaxis(imgs.astype(np.float64), axis, -1), axis


class RgbToHsv:
    """RGB images to HSV, each pixel as Python's colorsys.rgb_to_hsv: h and s
    in [0, 1), v = max(r, g, b) (so [0, 1] input gives [0, 1] output). Input:
    a numpy array of shape (C, H, W) or (N, C, H, W) (is_hwc=False, the
    default), (H, W, C) or (N, H, W, C) (is_hwc=True), C = 3, any numeric
    dtype; output: float64 of the same shape."""

    def __init__(self, is_hwc: bool = False) -> None:
        self.is_hwc = _check_bool(is_hwc, "RgbToHsv", "is_hwc")

    def __repr__(self):
        return "RgbToHsv(is_hwc=%r)" % (self.is_hwc,)

    def __call__(self, rgb_imgs: np.ndarray) -> np.ndarray:
        rgb, axis = _hsv_input(rgb_imgs, self.is_hwc, "RgbToHsv")
        r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
        maxc = rgb.max(axis=-1)
        rangec = maxc - rgb.min(axis=-1)
        gray = rangec == 0
        with np.errstate(divide="ignore", invalid="ignore"):
            s = np.where(gray, 0.0, rangec / maxc)
            div = np.where(gray, 1.0, rangec)
            rc, gc, bc = (maxc - r) / div, (maxc - g) / div, (maxc - b) / div
        # colorsys's cases in its order: r is the max, else g, else b.
        h = np.where(r == maxc, bc - gc, np.where(g == maxc, 2.0 + rc - bc, 4.0 + gc - rc))
        h = np.where(gray, 0.0, np.mod(h / 6.0, 1.0))
        return np.moveaxis(np.stack((h, s, maxc), axis=-1), -1, axis)


class HsvToRgb:
    """HSV images to RGB, each pixel as Python's colorsys.hsv_to_rgb (h in
    turns, any real; s and v as given). Input and output as RgbToHsv's; a
    non-finite hue of a pixel with s != 0 is a ValueError, as colorsys's."""

    def __init__(self, is_hwc: bool = False) -> None:
        self.is_hwc = _check_bool(is_hwc, "HsvToRgb", "is_hwc")

    def __repr__(self):
        return "HsvToRgb(is_hwc=%r)" % (self.is_hwc,)

    def __call__(self, hsv_imgs: np.ndarray) -> np.ndarray:
        hsv, axis = _hsv_input(hsv_imgs, self.is_hwc, "HsvToRgb")
        h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
        h6 = h * 6.0
        if not np.isfinite(h6[s != 0.0]).all():
            raise ValueError("HsvToRgb: hue values must be finite where saturation is not 0")
        h6 = np.where(np.isfinite(h6), h6, 0.0)
        i = np.trunc(h6)  # colorsys's int(): toward zero
        f = h6 - i
        p, q, t = v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f))
        sector = np.mod(i, 6.0).astype(np.int64)  # Python's %: 0..5
        choices = ((v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q))
        rgb = [np.choose(sector, [c[k] for c in choices]) for k in range(3)]
        out = np.stack([np.where(s == 0.0, v, x) for x in rgb], axis=-1)
        return np.moveaxis(out, -1, axis)


class LinearTransformation:
    """Flattens the image (any shape, e.g. CHW after ToTensor), subtracts
    mean_vector, multiplies by transformation_matrix on the right and
    reshapes back: (x.reshape(1, -1) - mean_vector) @ transformation_matrix.
    The matrix is (D, D) and the vector (D,), D the image's element count;
    the result has numpy's type of that arithmetic (float64 for uint8 input
    and float64 arguments). The arguments are copied."""

    def __init__(self, transformation_matrix: np.ndarray, mean_vector: np.ndarray) -> None:
        op = "LinearTransformation"
        for name, value in (("transformation_matrix", transformation_matrix), ("mean_vector", mean_vector)):
            if not isinstance(value, np.ndarray):
                raise TypeError("%s: %s must be a numpy.ndarray, got %s" % (op, name, type(value)))
            if value.dtype.kind not in "biuf":
                raise TypeError("%s: %s must hold numbers, got dtype %s" % (op, name, value.dtype))
        m, v = transformation_matrix, mean_vector
        if m.ndim != 2 or m.shape[0] != m.shape[1]:
            raise ValueError("%s: transformation_matrix should be a square matrix, got shape %s" % (op, m.shape))
        if v.ndim != 1 or v.shape[0] != m.shape[0]:
            raise ValueError("%s: mean_vector should have shape (%d,) to match transformation_matrix %s, got %s"
                             % (op, m.shape[0], m.shape, v.shape))
        self.transformation_matrix = m.copy()
        self.mean_vector = v.copy()

    def __repr__(self):
        return "LinearTransformation(D=%d)" % self.mean_vector.shape[0]

    def __call__(self, np_img: np.ndarray) -> np.ndarray:
        op = "LinearTransformation"
        if not isinstance(np_img, np.ndarray):
            raise TypeError("%s: img should be a numpy array, got %s" % (op, type(np_img)))
        if np_img.dtype.kind not in "biuf":
            raise TypeError("%s: img should hold numbers, got dtype %s" % (op, np_img.dtype))
        d = self.mean_vector.shape[0]
        if np_img.size != d:
            raise ValueError("%s: transformation_matrix shape %s not compatible with image shape %s (%d elements)"
                             % (op, self.transformation_matrix.shape, np_img.shape, np_img.size))
        centered = np_img.reshape(1, -1) - self.mean_vector
        return np.dot(centered, self.transformation_matrix).reshape(np_img.shape)


class RandomColor(TensorOperation):
    """Colour balance with a factor t drawn uniformly from degrees (min, max):
    grey * (1 - t) + x * t (grey: OpenCV's RGB2GRAY; t near 1 leaves the
    image, t near 0 gives its grey version). Input: HWC uint8 RGB."""

    def __init__(self, degrees: list[float] | tuple[float, float] = (0.1, 1.9)) -> None:
        op = "RandomColor"
        super().__init__(op, degrees=_pair(degrees, op, "degrees", check_float, 0, _FACTOR_MAX,
                                           length_error=ValueError))


class RandomLighting(TensorOperation):
    """AlexNet's PCA lighting noise: three weights ~ N(0, alpha) over the
    ImageNet RGB eigenvectors give one shift per channel, added to every
    pixel (rounded, saturated). Input: HWC uint8 RGB."""

    def __init__(self, alpha: float = 0.05) -> None:
        super().__init__("RandomLighting", alpha=check_float(alpha, "RandomLighting", "alpha", 0.0, _FACTOR_MAX))


def _mean_std(values, op, name, lo_open):
    if not isinstance(values, (list, tuple)):
        raise TypeError("%s: %s must be a list or tuple, got %r" % (op, name, values))
    out = []
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError("%s: %s[%d] must be a number, got %r" % (op, name, i, v))
        if not (0 < v <= 255 if lo_open else 0 <= v <= 255):
            raise ValueError("%s: %s[%d] must be in %s0, 255], got %r" % (op, name, i, "(" if lo_open else "[", v))
        out.append(float(v))
    return out


class NormalizePad(TensorOperation):
    """(x - mean) / std per channel, then one more channel of zeros: float32
    [H, W, C + 1] from an HWC (or HW) image, [C + 1, H, W] from a CHW one
    (is_hwc=False). mean in [0, 255], std in (0, 255], 1 to 4 values each.
    Input: uint8 or float32. dtype "float16" is refused (ValueError): there
    is no float16 tensor type here."""

    def __init__(self, mean: list[float] | tuple[float, ...], std: list[float] | tuple[float, ...],
                 dtype: str = "float32", is_hwc: bool = True) -> None:
        op = "NormalizePad"
        mean_v = _mean_std(mean, op, "mean", False)
        std_v = _mean_std(std, op, "std", True)
        if len(mean_v) != len(std_v):
            raise ValueError("%s: mean and std must have the same length, got %r and %r" % (op, mean, std))
        if not 1 <= len(mean_v) <= 4:
            raise ValueError("%s: mean and std must have 1 to 4 values, got %r" % (op, mean))
        if not isinstance(dtype, str):
            raise TypeError("%s: dtype must be a str, got %r" % (op, dtype))
        if dtype not in ("float32", "float16"):
            raise ValueError("%s: dtype must be 'float32' or 'float16', got %r" % (op, dtype))
        if dtype == "float16":
            raise ValueError("%s: dtype 'float16' is not supported (mindrecord tensors have no float16); "
                             "use 'float32'" % op)
        super().__init__(op, mean=mean_v, std=std_v, dtype=dtype, is_hwc=_check_bool(is_hwc, op, "is_hwc"))
