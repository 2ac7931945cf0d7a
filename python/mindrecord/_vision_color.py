"""Colour ops of mindrecord.vision: Rescale, RandomColorAdjust, ConvertColor,
Grayscale, and the point ops AutoContrast, Equalize, Invert, Posterize,
Solarize, AdjustSharpness / Brightness / Contrast / Saturation / Hue / Gamma
with their random forms (MindSpore's parameters, defaults and checks).

Thread safety: op objects are immutable values.
"""
import numbers

from mindrecord._ops_base import TensorOperation, check_float, check_int, check_prob, check_range
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


# The point ops: MindSpore's AutoContrast ... AdjustGamma and their random
# forms. Inputs are uint8 images (AdjustGamma: also float); the shapes each op
# takes are MindSpore's (pipeline/README.md, "Tensor ops").

_FACTOR_MAX = 16777216  # MindSpore's FLOAT_MAX_INTEGER: the bound its checks put on factors


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _cutoff(cutoff, op):
    value = check_float(cutoff, op, "cutoff", 0.0)
    if value >= 50:
        raise ValueError("%s: cutoff must be in [0, 50), got %r" % (op, cutoff))
    return value


def _ignore(ignore, op):
    if ignore is None:
        return []
    if _is_int(ignore):
        return [check_int(ignore, op, "ignore", 0, 255)]
    if isinstance(ignore, (list, tuple)):
        return [check_int(v, op, "ignore", 0, 255) for v in ignore]
    raise TypeError("%s: ignore must be an int or a sequence of ints, got %r" % (op, ignore))


def _pair(value, op, name, check, lo, hi, types=(list, tuple), length_error=TypeError):
    """A (min, max) sequence of `types` whose items pass `check` (check_int
    or check_float) in [lo, hi], with min <= max."""
    if not isinstance(value, types):
        raise TypeError("%s: %s must be a %s (min, max), got %r"
                        % (op, name, " or ".join(t.__name__ for t in types), value))
    if len(value) != 2:
        raise length_error("%s: %s must be (min, max), got %r" % (op, name, value))
    a, b = (check(v, op, name, lo, hi) for v in value)
    if a > b:
        raise ValueError("%s: %s must be (min, max) with min <= max, got %r" % (op, name, value))
    return [a, b]


class AutoContrast(TensorOperation):
    """Stretches each channel's levels to [0, 255] after cutting `cutoff`
    percent of the pixels from each end of its histogram (whole percents
    count, as in MindSpore's kernel) and dropping the `ignore` levels. Input:
    HW, or HWC with 1 or 3 channels."""

    def __init__(self, cutoff: float = 0.0, ignore: int | list[int] | tuple[int, ...] | None = None) -> None:
        op = "AutoContrast"
        super().__init__(op, cutoff=_cutoff(cutoff, op), ignore=_ignore(ignore, op))


class Equalize(TensorOperation):
    """Histogram equalization of each channel (cv::equalizeHist). Input: HW,
    or HWC with 1 or 3 channels."""

    def __init__(self) -> None:
        super().__init__("Equalize")


class Invert(TensorOperation):
    """255 - x. Input: HWC RGB (MindSpore's takes no other shape)."""

    def __init__(self) -> None:
        super().__init__("Invert")


class Posterize(TensorOperation):
    """Keeps the top `bits` bits (0 to 8) of each value. Input: HW or HWC."""

    def __init__(self, bits: int) -> None:
        super().__init__("Posterize", bits=check_int(bits, "Posterize", "bits", 0, 8))


class Solarize(TensorOperation):
    """255 - x for x in [min, max] of `threshold`, a number t meaning (t, t):
    with min == max, every x >= min. Input: HW, or HWC with 1 or 3 channels."""

    def __init__(self, threshold: float | list[float] | tuple[float, float]) -> None:
        op = "Solarize"
        if isinstance(threshold, numbers.Real) and not isinstance(threshold, bool):
            threshold = (threshold, threshold)
        super().__init__(op, threshold=_pair(threshold, op, "threshold", check_float, 0, 255))


def _adjust(op, name, value, lo=0.0, hi=_FACTOR_MAX):
    return {name: check_float(value, op, name, lo, hi)}


class AdjustSharpness(TensorOperation):
    """Blends with a 3x3 smoothed copy: 0 blurs, 1 keeps, 2 sharpens. Input: HW or HWC."""

    def __init__(self, sharpness_factor: float) -> None:
        super().__init__("AdjustSharpness", **_adjust("AdjustSharpness", "sharpness_factor", sharpness_factor))


class AdjustBrightness(TensorOperation):
    """x * brightness_factor. Input: HWC RGB."""

    def __init__(self, brightness_factor: float) -> None:
        super().__init__("AdjustBrightness", **_adjust("AdjustBrightness", "brightness_factor", brightness_factor))


class AdjustContrast(TensorOperation):
    """Blends with the image's mean grey level. Input: HWC RGB."""

    def __init__(self, contrast_factor: float) -> None:
        super().__init__("AdjustContrast", **_adjust("AdjustContrast", "contrast_factor", contrast_factor))


class AdjustSaturation(TensorOperation):
    """Blends with the image's grey version. Input: HWC RGB."""

    def __init__(self, saturation_factor: float) -> None:
        super().__init__("AdjustSaturation", **_adjust("AdjustSaturation", "saturation_factor", saturation_factor))


class AdjustHue(TensorOperation):
    """Shifts the hue by hue_factor turns (in [-0.5, 0.5]), in OpenCV's 8-bit
    HSV as MindSpore's kernel. Input: HWC RGB."""

    def __init__(self, hue_factor: float) -> None:
        super().__init__("AdjustHue", **_adjust("AdjustHue", "hue_factor", hue_factor, -0.5, 0.5))


class AdjustGamma(TensorOperation):
    """255 * gain * (x / 255)^gamma for uint8 (truncated; negative results
    give 0), clamp((x * gain)^gamma, 0, 1) for float input (float32 out).
    Input: HW, or [..., H, W, C] with 1 or 3 channels."""

    def __init__(self, gamma: float, gain: float = 1) -> None:
        op = "AdjustGamma"
        super().__init__(op, gamma=check_float(gamma, op, "gamma", 0.0, _FACTOR_MAX),
                         gain=check_float(gain, op, "gain", -_FACTOR_MAX, _FACTOR_MAX))


class RandomAutoContrast(TensorOperation):
    """AutoContrast(cutoff, ignore) with probability prob. Input: HW, or HWC
    with 3 channels (MindSpore's check)."""

    def __init__(self, cutoff: float = 0.0, ignore: int | list[int] | tuple[int, ...] | None = None,
                 prob: float = 0.5) -> None:
        op = "RandomAutoContrast"
        super().__init__(op, cutoff=_cutoff(cutoff, op), ignore=_ignore(ignore, op), prob=check_prob(prob, op))


class RandomEqualize(TensorOperation):
    """Equalize with probability prob."""

    def __init__(self, prob: float = 0.5) -> None:
        super().__init__("RandomEqualize", prob=check_prob(prob, "RandomEqualize"))


class RandomInvert(TensorOperation):
    """Invert with probability prob."""

    def __init__(self, prob: float = 0.5) -> None:
        super().__init__("RandomInvert", prob=check_prob(prob, "RandomInvert"))


class RandomAdjustSharpness(TensorOperation):
    """AdjustSharpness(degree) with probability prob."""

    def __init__(self, degree: float, prob: float = 0.5) -> None:
        op = "RandomAdjustSharpness"
        super().__init__(op, degree=check_float(degree, op, "degree", 0.0, _FACTOR_MAX), prob=check_prob(prob, op))


class RandomPosterize(TensorOperation):
    """Posterize to bits drawn uniformly from the integers of (min, max) in
    [1, 8]; an int b means (b, b)."""

    def __init__(self, bits: int | list[int] | tuple[int, int] = (8, 8)) -> None:
        op = "RandomPosterize"
        if _is_int(bits):
            bits = (check_int(bits, op, "bits", 1, 8),) * 2
        super().__init__(op, bits=_pair(bits, op, "bits", check_int, 1, 8))


class RandomSolarize(TensorOperation):
    """Solarize with a threshold range (a, b): a and b drawn uniformly from
    the integers of `threshold`, a tuple (min, max) in [0, 255], then ordered."""

    def __init__(self, threshold: tuple[int, int] = (0, 255)) -> None:
        op = "RandomSolarize"
        super().__init__(op, threshold=_pair(threshold, op, "threshold", check_int, 0, 255, (tuple,), ValueError))


class RandomSharpness(TensorOperation):
    """AdjustSharpness with a factor drawn uniformly from degrees (min, max)."""

    def __init__(self, degrees: list[float] | tuple[float, float] = (0.1, 1.9)) -> None:
        op = "RandomSharpness"
        super().__init__(op, degrees=_pair(degrees, op, "degrees", check_float, 0, _FACTOR_MAX,
                                           length_error=ValueError))
