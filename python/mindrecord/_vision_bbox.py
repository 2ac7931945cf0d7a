"""Detection ops of mindrecord.vision: an image and its boxes ([n, 4+]
float rows x, y, width, height, as MindSpore's VOCDataset and CocoDataset
give them) in, both out. `mindrecord convert voc` stores boxes as the XML
has them (xmin, ymin, xmax, ymax): turn them into x, y, w, h with a map
first. Map them with input_columns=[image, bbox]; call them
as op(image, bboxes).

Thread safety: op objects are immutable values.
"""
from mindrecord._ops_base import (TensorOperation, check_fill, check_float, check_int, check_padding, check_prob,
                                  check_range, check_size, to_specs)
from mindrecord._vision_enums import Border, Inter, choice, interp


class RandomHorizontalFlipWithBBox(TensorOperation):
    """Flips the image and its boxes left-right with probability prob."""

    def __init__(self, prob: float = 0.5) -> None:
        super().__init__("RandomHorizontalFlipWithBBox", p=check_prob(prob, "RandomHorizontalFlipWithBBox"))


class RandomVerticalFlipWithBBox(TensorOperation):
    """Flips the image and its boxes top-bottom with probability prob."""

    def __init__(self, prob: float = 0.5) -> None:
        super().__init__("RandomVerticalFlipWithBBox", p=check_prob(prob, "RandomVerticalFlipWithBBox"))


class RandomCropWithBBox(TensorOperation):
    """RandomCrop of the image; boxes outside the window are dropped, the
    others clipped to it."""

    def __init__(self, size, padding=None, pad_if_needed: bool = False, fill_value=0,
                 padding_mode=Border.CONSTANT) -> None:
        op = "RandomCropWithBBox"
        if not isinstance(pad_if_needed, bool):
            raise TypeError("%s: pad_if_needed must be a bool, got %r" % (op, pad_if_needed))
        params = {"size": check_size(size, op), "pad_if_needed": pad_if_needed,
                  "fill_value": check_fill(fill_value, op),
                  "padding_mode": choice(padding_mode, Border, op, "padding_mode")}
        if padding is not None:
            params["padding"] = check_padding(padding, op)
        super().__init__(op, **params)


class ResizeWithBBox(TensorOperation):
    """Resize (an int sets the shorter side) with the boxes scaled along."""

    def __init__(self, size, interpolation=Inter.LINEAR) -> None:
        op = "ResizeWithBBox"
        super().__init__(op, size=check_size(size, op), interpolation=interp(interpolation, op))


class BoundingBoxAugment(TensorOperation):
    """Applies `transform` (an image op) to each box's region with
    probability `ratio`; the boxes are returned unchanged."""

    def __init__(self, transform, ratio: float = 0.3) -> None:
        op = "BoundingBoxAugment"
        if isinstance(transform, (list, tuple)):
            raise TypeError("%s: transform must be one op, got %r" % (op, transform))
        super().__init__(op, transform=to_specs(transform)[0], ratio=check_prob(ratio, op, "ratio"))


class RandomResizedCropWithBBox(TensorOperation):
    """RandomResizedCrop's random window (scale of the area, aspect ratio,
    max_attempts tries, then a centre crop) resized to `size` (an int s
    means s x s); boxes outside the window are dropped, the others clipped
    to it and scaled with it."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=Inter.BILINEAR,
                 max_attempts: int = 10) -> None:
        op = "RandomResizedCropWithBBox"
        size = check_size(size, op)
        # MindSpore's check_random_resize_crop: scale in [0, 2^24] with
        # scale[1] > 0, ratio > 0, each (min, max); max_attempts a positive int32.
        scale = check_range(scale, op, "scale", 0.0, 16777216.0)
        if scale[1] <= 0:
            raise ValueError("%s: scale[1] must be > 0, got %r" % (op, scale[1]))
        if not isinstance(ratio, (list, tuple)) or len(ratio) != 2:
            raise TypeError("%s: ratio must be a sequence (min, max), got %r" % (op, ratio))
        ratio = [check_float(r, op, "ratio", 0.0, lo_open=True) for r in ratio]
        if ratio[0] > ratio[1]:
            raise ValueError("%s: ratio must be (min, max) with min <= max, got %r" % (op, ratio))
        max_attempts = check_int(max_attempts, op, "max_attempts", 1, 1000)
        super().__init__(op, size=size, scale=scale, ratio=ratio, interpolation=interp(interpolation, op),
                         attempts=max_attempts)


class RandomResizeWithBBox(TensorOperation):
    """ResizeWithBBox with an interpolation drawn per image from BILINEAR,
    NEAREST, BICUBIC and AREA (an int size sets the shorter side)."""

    def __init__(self, size) -> None:
        super().__init__("RandomResizeWithBBox", size=check_size(size, "RandomResizeWithBBox"))
