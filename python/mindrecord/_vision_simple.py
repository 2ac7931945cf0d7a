"""Fixed-parameter vision ops of mindrecord.vision (MindSpore 2.x):
HorizontalFlip, VerticalFlip, Crop, ResizedCrop, RandomGrayscale, ToPIL,
Erase, PadToSize, RandomResize, ToType. Each describes a C++ op (pipeline/ops/simple_vision.h; ToType is
TypeCast's spec, as MindSpore's ToType is TypeCast by another name).

Thread safety: op objects are immutable values.
"""
import numbers

import numpy as np

from mindrecord._ops_base import (TensorOperation, check_fill, check_int, check_numeric_dtype, check_prob, check_size,
                                  is_pil_image)
from mindrecord._vision_enums import Border, Inter, choice, interp

_INT32_MAX = 2 ** 31 - 1


class HorizontalFlip(TensorOperation):
    """Mirrors an HW/HWC image left-right."""

    def __init__(self) -> None:
        super().__init__("HorizontalFlip")


class VerticalFlip(TensorOperation):
    """Mirrors an HW/HWC image top-bottom."""

    def __init__(self) -> None:
        super().__init__("VerticalFlip")


class Crop(TensorOperation):
    """The window at coordinates (top, left) of `size` (int: square, or
    (height, width)); a window reaching outside the image is an error."""

    def __init__(self, coordinates, size) -> None:
        op = "Crop"
        if not isinstance(coordinates, (list, tuple)) or len(coordinates) != 2:
            raise TypeError("%s: coordinates must be a sequence (top, left), got %r" % (op, coordinates))
        coords = [check_int(c, op, "coordinates", 0, _INT32_MAX) for c in coordinates]
        super().__init__(op, coordinates=coords, size=_check_size32(size, op))


def _check_size32(size, op):
    size = check_size(size, op)
    for s in (size if isinstance(size, list) else [size]):
        if s > _INT32_MAX:
            raise ValueError("%s: size must be in [1, %d], got %r" % (op, _INT32_MAX, size))
    return size


class ResizedCrop(TensorOperation):
    """Crops (top, left, height, width), then resizes to `size`: (h, w), or
    an int as MindSpore takes it: the height when the image is wider than
    tall, else the width; the other side keeps the window's ratio, rounded."""

    def __init__(self, top, left, height, width, size, interpolation=Inter.BILINEAR) -> None:
        op = "ResizedCrop"
        super().__init__(op, top=check_int(top, op, "top", 0, _INT32_MAX),
                         left=check_int(left, op, "left", 0, _INT32_MAX),
                         height=check_int(height, op, "height", 1, _INT32_MAX),
                         width=check_int(width, op, "width", 1, _INT32_MAX), size=_check_size32(size, op),
                         interpolation=interp(interpolation, op))


class RandomGrayscale(TensorOperation):
    """With probability prob, an RGB HWC image becomes its luma in 3 channels."""

    def __init__(self, prob: float = 0.1) -> None:
        super().__init__("RandomGrayscale", prob=check_prob(prob, "RandomGrayscale"))


class ToPIL(TensorOperation):
    """MindSpore's ToPIL: called by hand, a decoded numpy image becomes a PIL
    image (`PIL.Image.fromarray`'s mode for its dtype; a PIL image is
    returned as is). In a pipeline, where every op takes arrays, the image
    passes on unchanged after a check that it is an HW or HWC image."""

    def __init__(self) -> None:
        super().__init__("ToPIL")

    def __call__(self, *values: object, seed: int | None = None) -> object:
        if len(values) != 1:
            raise TypeError("ToPIL takes one image, got %d values" % len(values))
        img = values[0]
        if is_pil_image(img):
            return img
        if not isinstance(img, np.ndarray):
            raise TypeError("ToPIL: the input image should be of type numpy.ndarray or PIL.Image.Image, got %s"
                            % type(img).__name__)
        super().__call__(img, seed=seed)  # the pipeline's check
        from PIL import Image
        return Image.fromarray(img)


class Erase(TensorOperation):
    """Sets the window (top, left, height, width) of an HWC RGB image
    (clipped to the image) to `value`: a number or (R, G, B) in [0, 255]."""

    def __init__(self, top, left, height, width, value=0, inplace=False) -> None:
        op = "Erase"
        if isinstance(value, (list, tuple)):
            if len(value) != 3:
                raise TypeError("%s: value must be a number or a sequence of 3 numbers, got %r" % (op, value))
            value = [_check_value(v, op) for v in value]
        else:
            value = _check_value(value, op)
        if not isinstance(inplace, bool):
            raise TypeError("%s: inplace must be a bool, got %r" % (op, inplace))
        super().__init__(op, top=check_int(top, op, "top", 0, _INT32_MAX),
                         left=check_int(left, op, "left", 0, _INT32_MAX),
                         height=check_int(height, op, "height", 1, _INT32_MAX),
                         width=check_int(width, op, "width", 1, _INT32_MAX), value=value, inplace=inplace)


def _check_value(v, op):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError("%s: value must be a number, got %r" % (op, v))
    if not 0 <= v <= 255:
        raise ValueError("%s: value must be in [0, 255], got %r" % (op, v))
    return float(v)


class ToType(TensorOperation):
    """Casts to `data_type` (a numpy dtype, its name or a MindSpore mstype):
    MindSpore 2.x's ToType, the same op as TypeCast."""

    def __init__(self, data_type) -> None:
        super().__init__("TypeCast", type=check_numeric_dtype(data_type, "ToType", "data_type"))


class PadToSize(TensorOperation):
    """Pads to `size` (int: square, or (height, width)) with the image's
    top-left corner at `offset` (int: both, or (top, left); None: centred);
    fill_value an int or (R, G, B) in [0, 255]; padding_mode a Border."""

    def __init__(self, size, offset=None, fill_value=0, padding_mode=Border.CONSTANT) -> None:
        op = "PadToSize"
        if offset is not None:
            if isinstance(offset, (list, tuple)):
                if len(offset) != 2:
                    raise TypeError("%s: offset must be None, an int or (top, left), got %r" % (op, offset))
                offset = [check_int(o, op, "offset", 0, _INT32_MAX) for o in offset]
            else:
                offset = check_int(offset, op, "offset", 0, _INT32_MAX)
        super().__init__(op, size=check_size(size, op), offset=offset, fill_value=check_fill(fill_value, op),
                         padding_mode=choice(padding_mode, Border, op, "padding_mode"))


class RandomResize(TensorOperation):
    """Resize to `size` with an interpolation drawn per image from
    BILINEAR, NEAREST, BICUBIC and AREA."""

    def __init__(self, size) -> None:
        super().__init__("RandomResize", size=check_size(size, "RandomResize"))
