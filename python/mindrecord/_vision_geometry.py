"""Geometry, blur and erasing ops of mindrecord.vision: Pad,
RandomVerticalFlip, Rotate, RandomRotation, Affine, RandomAffine,
GaussianBlur, RandomCropDecodeResize, CutOut, RandomErasing (MindSpore's
parameters, defaults and checks).

Thread safety: op objects are immutable values.
"""
import numbers

import numpy as np

from mindrecord._ops_base import (TensorOperation, check_fill, check_float, check_int, check_numbers, check_padding,
                                  check_pairs, check_prob, check_range, check_size)
from mindrecord._vision_enums import Border, Inter, choice, interp


class Pad(TensorOperation):
    """Pads each border: an int (all), (left/right, top/bottom) or (left,
    top, right, bottom); fill_value an int or (R, G, B); padding_mode a Border."""

    def __init__(self, padding, fill_value=0, padding_mode=Border.CONSTANT) -> None:
        super().__init__("Pad", padding=check_padding(padding, "Pad"), fill_value=check_fill(fill_value, "Pad"),
                         padding_mode=choice(padding_mode, Border, "Pad", "padding_mode"))


class RandomVerticalFlip(TensorOperation):
    """Flips the image top-bottom with probability prob."""

    def __init__(self, prob: float = 0.5) -> None:
        super().__init__("RandomVerticalFlip", p=check_prob(prob, "RandomVerticalFlip"))


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _check_center(center, op):
    if center is None:
        return None
    if not isinstance(center, (list, tuple)) or len(center) != 2:
        raise TypeError("%s: center must be None or (x, y), got %r" % (op, center))
    return [check_float(c, op, "center") for c in center]


def _check_expand(expand, op):
    if not isinstance(expand, bool):
        raise TypeError("%s: expand must be a bool, got %r" % (op, expand))
    return expand


class Rotate(TensorOperation):
    """Rotates by `degrees` counter-clockwise about `center` (x, y) (default
    the image centre); `expand` grows the output to hold the whole rotated
    image. Input: HW or HWC, uint8 or float32."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand: bool = False, center=None, fill_value=0) -> None:
        op = "Rotate"
        # MindSpore passes degrees % 360 on: the same turn.
        super().__init__(op, degrees=check_float(degrees, op, "degrees") % 360,
                         resample=interp(resample, op, "resample"), expand=_check_expand(expand, op),
                         center=_check_center(center, op), fill_value=check_fill(fill_value, op))


class RandomRotation(TensorOperation):
    """Rotates by an angle drawn from (-degrees, degrees) or (min, max),
    counter-clockwise about `center` (x, y) (default the image centre);
    `expand` grows the output to hold the whole rotated image."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand: bool = False, center=None, fill_value=0) -> None:
        op = "RandomRotation"
        if isinstance(degrees, numbers.Real) and not isinstance(degrees, bool):
            d = check_float(degrees, op, "degrees", 0.0)
            degrees = [-d, d]
        else:
            degrees = check_range(degrees, op, "degrees")
        super().__init__(op, degrees=degrees, resample=interp(resample, op, "resample"),
                         expand=_check_expand(expand, op), center=_check_center(center, op),
                         fill_value=check_fill(fill_value, op))


class Affine(TensorOperation):
    """One affine warp about the image centre: rotation by `degrees`
    clockwise ([-180, 180]), translation by `translate` (tx, ty) fractions of
    the width and height ([-1, 1]), `scale` > 0, and `shear` in degrees
    ([-180, 180]): a number shears along x, (sx, sy) along x and y. Output has
    the input's size. Input: HW or HWC, uint8 or float32."""

    def __init__(self, degrees, translate, scale, shear, resample=Inter.NEAREST, fill_value=0) -> None:
        op = "Affine"
        if _is_number(shear):
            shear = [check_float(shear, op, "shear", -180.0, 180.0), 0.0]
        else:
            shear = check_numbers(shear, op, "shear", (2,), -180.0, 180.0)
        super().__init__(op, degrees=check_float(degrees, op, "degrees", -180.0, 180.0),
                         translate=check_numbers(translate, op, "translate", (2,), -1.0, 1.0),
                         scale=check_float(scale, op, "scale", 0.0, lo_open=True), shear=shear,
                         resample=interp(resample, op, "resample"), fill_value=check_fill(fill_value, op))


class RandomAffine(TensorOperation):
    """Affine with parameters drawn per image: angle from (-degrees, degrees)
    or (min, max); translation from (tx_min, tx_max[, ty_min, ty_max])
    fractions of the width / height ([-1, 1]); scale from (min, max); shear
    from (-shear, shear) along x, (x_min, x_max) or (x_min, x_max, y_min,
    y_max). None leaves that part out. Input: HW or HWC, uint8 or float32."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, resample=Inter.NEAREST,
                 fill_value=0) -> None:
        op = "RandomAffine"
        if _is_number(degrees):
            d = check_float(degrees, op, "degrees", 0.0)
            degrees = [-d, d]
        else:
            degrees = check_range(degrees, op, "degrees")
        if translate is None:
            translate = [0.0, 0.0, 0.0, 0.0]
        else:
            translate = check_pairs(check_numbers(translate, op, "translate", (2, 4), -1.0, 1.0), op, "translate")
            translate += [0.0] * (4 - len(translate))
        if scale is None:
            scale = [1.0, 1.0]
        else:
            scale = check_range(scale, op, "scale", 0.0)
            if scale[1] <= 0:
                raise ValueError("%s: scale must have max > 0, got %r" % (op, scale))
        if shear is None:
            shear = [0.0, 0.0, 0.0, 0.0]
        elif _is_number(shear):
            s = check_float(shear, op, "shear", 0.0, lo_open=True)
            shear = [-s, s, 0.0, 0.0]
        else:
            shear = check_pairs(check_numbers(shear, op, "shear", (2, 4)), op, "shear")
            shear += [0.0] * (4 - len(shear))
        super().__init__(op, degrees=degrees, translate=translate, scale=scale, shear=shear,
                         resample=interp(resample, op, "resample"), fill_value=check_fill(fill_value, op))


class GaussianBlur(TensorOperation):
    """Blurs with a Gaussian kernel: `kernel_size` k or (width, height), odd
    and positive; `sigma` s or (sigma_x, sigma_y), >= 0. None or 0 derives
    sigma from the kernel size as ((k - 1) * 0.5 - 1) * 0.3 + 0.8; one value
    (or None) serves both axes, derived from the width, as in MindSpore. The
    border is reflected. Input: HW or HWC, uint8 or float32."""

    def __init__(self, kernel_size, sigma=None) -> None:
        op = "GaussianBlur"
        if isinstance(kernel_size, (list, tuple)):
            if len(kernel_size) != 2:
                raise TypeError("%s: kernel_size must be an int or (width, height), got %r" % (op, kernel_size))
            kernel = [check_int(k, op, "kernel_size", 1, 2 ** 24) for k in kernel_size]
        else:
            kernel = [check_int(kernel_size, op, "kernel_size", 1, 2 ** 24)] * 2
        if any(k % 2 == 0 for k in kernel):
            raise ValueError("%s: kernel_size must be odd, got %r" % (op, kernel_size))
        if sigma is not None:
            if _is_number(sigma):
                sigma = check_float(sigma, op, "sigma", 0.0)
            else:
                sigma = check_numbers(sigma, op, "sigma", (2,), 0.0)
        super().__init__(op, kernel_size=kernel, sigma=sigma)


class RandomCropDecodeResize(TensorOperation):
    """Decode + RandomResizedCrop in one step: the crop window is drawn from
    the JPEG header and only its rows and columns are decoded (at the DCT
    scale the output size allows). Input: encoded image bytes."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=Inter.BILINEAR,
                 max_attempts: int = 10) -> None:
        op = "RandomCropDecodeResize"
        scale = check_range(scale, op, "scale", 0.0)
        ratio = check_range(ratio, op, "ratio", 0.0)
        if ratio[0] == 0:  # scale may start at 0, as MindSpore's check_random_resize_crop allows
            raise ValueError("%s: ratio must be positive, got %r" % (op, ratio))
        super().__init__(op, size=check_size(size, op), scale=scale, ratio=ratio,
                         interpolation=interp(interpolation, op), attempts=check_int(max_attempts, op,
                                                                                     "max_attempts", 1, 1000))


class CutOut(TensorOperation):
    """Sets num_patches random length x length squares to 0 (squares may
    overlap the border). is_hwc=False takes CHW images."""

    def __init__(self, length: int, num_patches: int = 1, is_hwc: bool = True) -> None:
        if not isinstance(is_hwc, bool):
            raise TypeError("CutOut: is_hwc must be a bool, got %r" % (is_hwc,))
        super().__init__("CutOut", length=check_int(length, "CutOut", "length", 1, 2 ** 20),
                         num_patches=check_int(num_patches, "CutOut", "num_patches", 1, 65536), is_hwc=is_hwc)


class RandomErasing(TensorOperation):
    """With probability prob, erases a random rectangle of a CHW image (after
    HWC2CHW / ToTensor) with `value`: an int, (v0, v1, v2) or 'random'
    (N(0, 1) per element). `inplace=True` also writes the result into the
    numpy array given to a direct call, as MindSpore's does; in a pipeline
    rows are never shared, so it changes nothing there."""

    def __init__(self, prob: float = 0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace: bool = False,
                 max_attempts: int = 10) -> None:
        op = "RandomErasing"
        scale = check_range(scale, op, "scale", 0.0)
        ratio = check_range(ratio, op, "ratio", 0.0)
        if ratio[0] == 0:
            raise ValueError("%s: ratio must be > 0, got %r" % (op, ratio))
        if isinstance(value, str):
            if value != "random":
                raise ValueError("%s: value must be an int, a sequence of 3 ints or 'random', got %r" % (op, value))
        elif isinstance(value, (list, tuple)):
            if len(value) != 3:
                raise ValueError("%s: value must be an int, a sequence of 3 ints or 'random', got %r" % (op, value))
            value = [check_float(v, op, "value") for v in value]
        else:
            value = check_float(value, op, "value")
        if not isinstance(inplace, bool):
            raise TypeError("%s: inplace must be a bool, got %r" % (op, inplace))
        super().__init__(op, prob=check_prob(prob, op), scale=scale, ratio=ratio, value=value,
                         max_attempts=check_int(max_attempts, op, "max_attempts", 1, 1000))
        self._inplace = inplace

    def __call__(self, *values, seed=None):
        out = super().__call__(*values, seed=seed)
        target = values[0] if len(values) == 1 else None
        if (self._inplace and isinstance(target, np.ndarray) and target.flags.writeable
                and target.shape == out.shape and target.dtype == out.dtype):
            np.copyto(target, out)
            return target
        return out
