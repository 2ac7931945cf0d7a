"""Geometry and erasing ops of mindrecord.vision: Pad, RandomVerticalFlip,
RandomRotation, RandomCropDecodeResize, CutOut, RandomErasing (MindSpore's
parameters, defaults and checks).

Thread safety: op objects are immutable values.
"""
import numbers

import numpy as np

from mindrecord._ops_base import (TensorOperation, check_fill, check_float, check_int, check_padding, check_prob,
                                  check_range, check_size)
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
        if not isinstance(expand, bool):
            raise TypeError("%s: expand must be a bool, got %r" % (op, expand))
        if center is not None:
            if not isinstance(center, (list, tuple)) or len(center) != 2:
                raise TypeError("%s: center must be None or (x, y), got %r" % (op, center))
            center = [check_float(c, op, "center") for c in center]
        super().__init__(op, degrees=degrees, resample=interp(resample, op, "resample"), expand=expand,
                         center=center, fill_value=check_fill(fill_value, op))


class RandomCropDecodeResize(TensorOperation):
    """Decode + RandomResizedCrop in one step: the crop window is drawn from
    the JPEG header and only its rows and columns are decoded (at the DCT
    scale the output size allows). Input: encoded image bytes."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=Inter.BILINEAR,
                 max_attempts: int = 10) -> None:
        op = "RandomCropDecodeResize"
        scale = check_range(scale, op, "scale", 0.0)
        ratio = check_range(ratio, op, "ratio", 0.0)
        if scale[0] == 0 or ratio[0] == 0:
            raise ValueError("%s: scale and ratio must be > 0, got %r, %r" % (op, scale, ratio))
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
