"""The vision ops that give several images from one: FiveCrop, TenCrop
(Python ops over PIL images in MindSpore; here C++ ops on arrays of any
numeric type, PIL images taken and given back too) and SlicePatches
(MindSpore's C++ kernel). In a map, name the images with output_columns, or
follow the op with one taking them all, as MindSpore's documentation does:

    ds.map([vision.Decode(), vision.FiveCrop(200),
            lambda *images: np.stack([vision.ToTensor()(im) for im in images])], input_columns="image")
    ds.map([vision.Decode(), vision.SlicePatches(2, 2)], input_columns="image",
           output_columns=["p0", "p1", "p2", "p3"])

Thread safety: op objects are immutable values.
"""
import numbers

from mindrecord._ops_base import TensorOperation, call_on_pil, check_int, is_pil_image
from mindrecord._vision_enums import SliceMode

# MindSpore's check_crop_size allows 2^24; the pipeline's size parameters stop
# at 2^20 (no image here is wider: the pixel limit), so the op refuses larger
# sizes when made rather than when it runs.
_MAX_CROP = 2 ** 20
_INT32_MAX = 2 ** 31 - 1


def _crop_size(size, op):
    """MindSpore's check_crop_size: an int or (height, width), each in
    [1, 2^20] (MindSpore: 2^24); TypeError for another type, ValueError out of range."""
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        return check_int(size, op, "size", 1, _MAX_CROP)
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return [check_int(s, op, "size", 1, _MAX_CROP) for s in size]
    raise TypeError("%s: size must be an int or a list/tuple (height, width) of length 2, got %r" % (op, size))


class _PilCrops(TensorOperation):
    """A MindSpore PIL-only crop op: a PIL image gives a tuple of PIL images."""

    def __call__(self, *values, seed=None):
        if len(values) == 1 and is_pil_image(values[0]):
            return call_on_pil(self, values[0], seed)
        return super().__call__(*values, seed=seed)


class FiveCrop(_PilCrops):
    _gives = 5

    """The four corner crops and the centre crop of size `size` (an int or
    (height, width)), as a tuple in MindSpore's order: top-left, top-right,
    bottom-left, bottom-right, centre. A crop larger than the image is an
    error. Input: HW or HWC of any numeric type (or a PIL image)."""

    def __init__(self, size) -> None:
        super().__init__("FiveCrop", size=_crop_size(size, "FiveCrop"))


class TenCrop(_PilCrops):
    _gives = 10

    """FiveCrop of the image, then FiveCrop of the image flipped left-right
    (top-bottom with use_vertical_flip): a tuple of 10 images."""

    def __init__(self, size, use_vertical_flip: bool = False) -> None:
        if not isinstance(use_vertical_flip, bool):
            raise TypeError("TenCrop: use_vertical_flip must be a bool, got %r" % (use_vertical_flip,))
        super().__init__("TenCrop", size=_crop_size(size, "TenCrop"), use_vertical_flip=use_vertical_flip)


class SlicePatches(TensorOperation):
    """Cuts the image into num_height x num_width equal patches, row by row,
    giving num_height * num_width images (one output column each).
    SliceMode.PAD pads the right and bottom with fill_value (0-255) up to a
    multiple; SliceMode.DROP drops the remainder. 1 x 1 gives the image
    unchanged. Input: HW or HWC of any numeric type."""

    def __init__(self, num_height: int = 1, num_width: int = 1, slice_mode=SliceMode.PAD, fill_value: int = 0) -> None:
        op = "SlicePatches"
        num_height = check_int(num_height, op, "num_height", 1, _INT32_MAX)
        num_width = check_int(num_width, op, "num_width", 1, _INT32_MAX)
        mode = getattr(slice_mode, "name", slice_mode)
        mode = {"PAD": SliceMode.PAD, "DROP": SliceMode.DROP}.get(mode, mode)
        if mode not in (SliceMode.PAD, SliceMode.DROP):
            raise TypeError("%s: slice_mode must be SliceMode.PAD or SliceMode.DROP, got %r" % (op, slice_mode))
        if num_height * num_width > 2 ** 20:
            raise ValueError("%s: num_height * num_width must be at most 2^20 (one output column each), got %d"
                             % (op, num_height * num_width))
        super().__init__(op, num_height=num_height, num_width=num_width, slice_mode=mode,
                         fill_value=check_int(fill_value, op, "fill_value", 0, 255))
        self._gives = num_height * num_width
