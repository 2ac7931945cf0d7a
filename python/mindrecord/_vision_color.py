"""Colour ops of mindrecord.vision: Rescale, RandomColorAdjust, ConvertColor,
Grayscale (MindSpore's parameters, defaults and checks).

Thread safety: op objects are immutable values.
"""
import numbers

from mindrecord._ops_base import TensorOperation, check_float, check_int, check_range
from mindrecord._vision_enums import ConvertMode, choice


class Rescale(TensorOperation):
    """x * rescale + shift, as float32 (e.g. Rescale(1.0 / 255.0, 0.0))."""

    def __init__(self, rescale: float, shift: float) -> None:
        super().__init__("Rescale", rescale=check_float(rescale, "Rescale", "rescale"),
                         shift=check_float(shift, "Rescale", "shift"))


def _factor_range(value, name, hue=False):
    op = "RandomColorAdjust"
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if hue:
            v = check_float(value, op, name, 0.0, 0.5)
            return [-v, v]
        v = check_float(value, op, name, 0.0)
        return [max(0.0, 1.0 - v), 1.0 + v]
    return check_range(value, op, name, -0.5 if hue else 0.0, 0.5 if hue else None)


class RandomColorAdjust(TensorOperation):
    """Random brightness, contrast, saturation and hue, in a random order
    (MindSpore's kernel). A number v means the factor range
    [max(0, 1 - v), 1 + v] (hue: [-v, v], v <= 0.5); a (min, max) pair is the
    range itself. Input: HWC uint8 RGB."""

    def __init__(self, brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)) -> None:
        super().__init__("RandomColorAdjust", brightness=_factor_range(brightness, "brightness"),
                         contrast=_factor_range(contrast, "contrast"),
                         saturation=_factor_range(saturation, "saturation"), hue=_factor_range(hue, "hue", True))


class ConvertColor(TensorOperation):
    """Colour-space conversion by a ConvertMode (OpenCV's cvtColor codes);
    conversions to GRAY give HW images."""

    def __init__(self, convert_mode: str) -> None:
        super().__init__("ConvertColor", convert_mode=choice(convert_mode, ConvertMode, "ConvertColor",
                                                             "convert_mode"))


class Grayscale(TensorOperation):
    """RGB to luma (0.299 R + 0.587 G + 0.114 B, as PIL's convert("L")): an HW
    image for num_output_channels=1, HWC with 3 equal channels for 3. Works on
    numpy HWC images (MindSpore's takes PIL images)."""

    def __init__(self, num_output_channels: int = 1) -> None:
        n = check_int(num_output_channels, "Grayscale", "num_output_channels")
        if n not in (1, 3):
            raise ValueError("Grayscale: num_output_channels must be 1 or 3, got %r" % (num_output_channels,))
        super().__init__("Grayscale", num_output_channels=n)
