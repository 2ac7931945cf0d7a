"""General transforms (MindSpore's mindspore.dataset.transforms): ops over
ops and label ops, run by the C++ pipeline like the vision ops.

    from mindrecord import transforms, vision      # for mindspore.dataset.transforms / .vision
    aug = transforms.RandomApply([vision.RandomRotation(15), vision.RandomColorAdjust(0.4, 0.4)], prob=0.8)
    ds = ds.map(operations=[vision.Decode(), aug, vision.HWC2CHW()], input_columns="image")
    ds = ds.map(operations=transforms.OneHot(10), input_columns="label")

The ops inside Compose / RandomApply / RandomChoice / RandomOrder may be
mindrecord ops or Python callables (a callable runs on the worker thread
holding the GIL for its call only). Random choices draw from the row's seed,
so a pipeline's output does not depend on the worker count.

Thread safety: op objects are immutable values.
"""
from mindrecord._ops_base import (TensorOperation, check_float, check_int, check_prob, check_transforms,
                                  to_specs)
from mindrecord.vision import TypeCast

__all__ = ["Compose", "RandomApply", "RandomChoice", "RandomOrder", "OneHot", "TypeCast"]


class Compose(TensorOperation):
    """Applies `transforms` in order, as one op. Ops over several columns
    (image and boxes) may be composed when each gives the columns the next
    one takes."""

    def __init__(self, transforms: list) -> None:
        transforms = check_transforms(transforms, "Compose")
        super().__init__("Compose", transforms=to_specs(transforms))
        self.transforms = transforms


class RandomApply(TensorOperation):
    """Applies all of `transforms`, in order, with probability `prob`."""

    def __init__(self, transforms: list, prob: float = 0.5) -> None:
        transforms = check_transforms(transforms, "RandomApply")
        super().__init__("RandomApply", transforms=to_specs(transforms), prob=check_prob(prob, "RandomApply"))
        self.transforms = transforms


class RandomChoice(TensorOperation):
    """Applies one of `transforms`, chosen uniformly at random."""

    def __init__(self, transforms: list) -> None:
        transforms = check_transforms(transforms, "RandomChoice")
        super().__init__("RandomChoice", transforms=to_specs(transforms))
        self.transforms = transforms


class RandomOrder(TensorOperation):
    """Applies all of `transforms` in a random order."""

    def __init__(self, transforms: list) -> None:
        transforms = check_transforms(transforms, "RandomOrder")
        super().__init__("RandomOrder", transforms=to_specs(transforms))
        self.transforms = transforms


class OneHot(TensorOperation):
    """Integer labels (a scalar or 1-D) to one-hot rows of `num_classes`
    (scalar label -> shape (num_classes,)). The output keeps the label's
    integer type; with `smoothing_rate` > 0 it is float32
    (1 - smoothing_rate) * onehot + smoothing_rate / num_classes."""

    def __init__(self, num_classes: int, smoothing_rate: float = 0.0) -> None:
        num_classes = check_int(num_classes, "OneHot", "num_classes", 1, 2 ** 30)
        smoothing_rate = check_float(smoothing_rate, "OneHot", "smoothing_rate", 0.0, 1.0)
        super().__init__("OneHot", num_classes=num_classes, smoothing_rate=smoothing_rate)
