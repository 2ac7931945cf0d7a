"""Detection ops of mindrecord.vision: an image and its boxes ([n, 4+]
float rows x, y, width, height, as MindSpore's VOCDataset and CocoDataset
give them) in, both out. `mindrecord convert voc` stores boxes as the XML
has them (xmin, ymin, xmax, ymax): turn them into x, y, w, h with a map
first. Map them with input_columns=[image, bbox]; call them
as op(image, bboxes).

Thread safety: op objects are immutable values.
"""
from mindrecord._ops_base import (TensorOperation, check_fill, check_padding, check_prob, check_size,
                                  to_specs)
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
