"""Image ops for MindDataset.map / mindrecord.torch (MindSpore's
mindspore.dataset.vision): thin descriptions of the C++ pipeline ops
(pipeline/ops). Each op is a value object; `spec()` is the JSON op spec the
C++ pipeline builds the op from. Ops run in C++ worker threads, on uint8 HWC
images after Decode; each is also callable on numpy arrays (`op(image)`,
`op(image, bboxes)`). Names, parameters, defaults and checks follow
MindSpore 2.x; see python/README.md for the list and the differences.

Thread safety: op objects are immutable values.
"""
from mindrecord._ops_base import TensorOperation, to_specs  # noqa: F401  (to_specs: used by dataset, torch)
from mindrecord._ops_base import (check_fill, check_int, check_numbers, check_padding, check_prob, check_range,
                                  check_size)
from mindrecord._vision_enums import (AutoAugmentPolicy, Border, ConvertMode, ImageBatchFormat, Inter, SliceMode,
                                     interp as _interp)


def _check_bool(value, op, name):
    if not isinstance(value, bool):
        raise TypeError("%s: %s must be a bool, got %r" % (op, name, value))
    return value


class Decode(TensorOperation):
    """Decodes JPEG / PNG / ... bytes into a uint8 HWC image (RGB; grayscale
    images give one channel). `target_size` lets JPEG decode at a reduced
    scale no smaller than the target (faster when a resize follows)."""

    def __init__(self, to_pil: bool = False, target_size: int | list[int] | None = None) -> None:
        if _check_bool(to_pil, "Decode", "to_pil"):
            raise ValueError("Decode(to_pil=True) is not supported: images are decoded in C++")
        params = {}
        if target_size is not None:
            params["target_size"] = check_size(target_size, "Decode", "target_size")
        super().__init__("Decode", **params)


class Resize(TensorOperation):
    """Resizes to (h, w), or the shorter side to an int size keeping the aspect ratio."""

    def __init__(self, size: int | list[int], interpolation: str = Inter.BILINEAR) -> None:
        super().__init__("Resize", size=check_size(size, "Resize"), interpolation=_interp(interpolation, "Resize"))


class CenterCrop(TensorOperation):
    def __init__(self, size: int | list[int]) -> None:
        super().__init__("CenterCrop", size=check_size(size, "CenterCrop"))


class RandomCrop(TensorOperation):
    """torchvision semantics: optional padding, then a random (h, w) window."""

    def __init__(self, size: int | list[int], padding: int | list[int] | None = None, pad_if_needed: bool = False,
                 fill_value: int | list[int] = 0, padding_mode: str = "constant") -> None:
        op = "RandomCrop"
        params = {"size": check_size(size, op), "pad_if_needed": _check_bool(pad_if_needed, op, "pad_if_needed"),
                  "fill": check_fill(fill_value, op),
                  "padding_mode": str(getattr(padding_mode, "name", padding_mode)).lower()}
        if params["padding_mode"] not in ("constant", "edge", "reflect", "symmetric"):
            raise TypeError("%s: padding_mode must be a Border, got %r" % (op, padding_mode))
        if padding is not None:
            params["padding"] = check_padding(padding, op)
        super().__init__(op, **params)


class RandomResizedCrop(TensorOperation):
    def __init__(self, size: int | list[int], scale: tuple[float, float] = (0.08, 1.0),
                 ratio: tuple[float, float] = (3.0 / 4.0, 4.0 / 3.0), interpolation: str = Inter.BILINEAR,
                 max_attempts: int = 10) -> None:
        op = "RandomResizedCrop"
        ratio = check_range(ratio, op, "ratio", 0.0)
        if ratio[0] <= 0:
            raise ValueError("%s: ratio must be positive, got %r" % (op, ratio))
        super().__init__(op, size=check_size(size, op), scale=check_range(scale, op, "scale", 0.0), ratio=ratio,
                         interpolation=_interp(interpolation, op),
                         attempts=check_int(max_attempts, op, "max_attempts", 1, 1000))


class RandomHorizontalFlip(TensorOperation):
    def __init__(self, prob: float = 0.5) -> None:
        super().__init__("RandomHorizontalFlip", p=check_prob(prob, "RandomHorizontalFlip"))


class Normalize(TensorOperation):
    """(x - mean) / std per channel -> float32: an HWC (or HW) image, or with
    is_hwc=False a CHW one (MindSpore's argument). mean in [0, 255], std in
    (0, 255], one value or one per channel."""

    def __init__(self, mean: list[float], std: list[float], is_hwc: bool = True) -> None:
        op = "Normalize"
        mean = check_numbers(mean, op, "mean", (1, 2, 3, 4), 0.0, 255.0)
        std = check_numbers(std, op, "std", (1, 2, 3, 4), 0.0, 255.0)
        if len(mean) != len(std):
            raise ValueError("%s: mean and std must have the same length, got %d and %d" % (op, len(mean), len(std)))
        if min(std) <= 0:
            raise ValueError("%s: std values must be in (0, 255], got %r" % (op, std))
        params = {} if _check_bool(is_hwc, op, "is_hwc") else {"is_hwc": False}
        super().__init__(op, mean=mean, std=std, **params)


class HWC2CHW(TensorOperation):
    def __init__(self) -> None:
        super().__init__("HWC2CHW")


def _dtype_name(data_type):
    name = getattr(data_type, "__name__", None) or str(data_type)
    try:
        import numpy as np
        name = np.dtype(data_type).name
    except TypeError:
        pass
    return name


class TypeCast(TensorOperation):
    """Casts a numeric tensor to `data_type` (a numpy dtype or its name)."""

    def __init__(self, data_type: str) -> None:
        super().__init__("TypeCast", type=_dtype_name(data_type))


class ToTensor(TensorOperation):
    """MindSpore's ToTensor: an HWC (or HW) uint8/float32 image -> CHW
    (C = 1 for HW) holding x / 255, as `output_type` (default float32)."""

    def __init__(self, output_type="float32") -> None:
        super().__init__("ToTensor", output_type=_dtype_name(output_type))


# The ops beyond the basic ones live in their own modules; all are vision.X.
from mindrecord._vision_color import (AdjustBrightness, AdjustContrast, AdjustGamma, AdjustHue,  # noqa: E402
                                     AdjustSaturation, AdjustSharpness, AutoContrast, ConvertColor, Equalize,
                                     Grayscale, Invert, Posterize, RandomAdjustSharpness, RandomAutoContrast,
                                     RandomColorAdjust, RandomEqualize, RandomInvert, RandomPosterize,
                                     RandomSharpness, RandomSolarize, Rescale, Solarize)
from mindrecord._vision_geometry import (Affine, CutOut, GaussianBlur, Pad, RandomAffine,  # noqa: E402
                                         RandomCropDecodeResize, RandomErasing, RandomRotation, RandomVerticalFlip,
                                         Rotate)
from mindrecord._vision_policy import (AutoAugment, CutMixBatch, MixUp, MixUpBatch, RandAugment,  # noqa: E402
                                       RandomSelectSubpolicy, TrivialAugmentWide, UniformAugment)
from mindrecord._vision_simple import (Crop, Erase, HorizontalFlip, PadToSize, RandomGrayscale,  # noqa: E402
                                      RandomResize, ResizedCrop, ToPIL, ToType, VerticalFlip)
from mindrecord._vision_pixel import (HsvToRgb, LinearTransformation, NormalizePad, RandomColor,  # noqa: E402
                                      RandomLighting, RgbToHsv)
from mindrecord._vision_perspective import Perspective, RandomPerspective  # noqa: E402
from mindrecord._vision_patches import FiveCrop, SlicePatches, TenCrop  # noqa: E402
from mindrecord._vision_bbox import (BoundingBoxAugment, RandomCropWithBBox, RandomHorizontalFlipWithBBox,  # noqa: E402
                                     RandomResizedCropWithBBox, RandomResizeWithBBox, RandomVerticalFlipWithBBox,
                                     ResizeWithBBox)
from mindrecord._vision_io import (ImageReadMode, encode_jpeg, encode_png, get_image_num_channels,  # noqa: E402
                                   get_image_size, read_file, read_image, write_file, write_jpeg, write_png)

__all__ = [
    "Inter", "Border", "ConvertMode", "AutoAugmentPolicy", "ImageBatchFormat", "SliceMode",
    "Decode", "Resize", "CenterCrop", "RandomCrop", "RandomResizedCrop", "RandomHorizontalFlip", "Normalize",
    "HWC2CHW", "ToTensor", "TypeCast", "Rescale", "RandomColorAdjust", "ConvertColor", "Grayscale", "Pad",
    "RandomVerticalFlip", "RandomRotation", "RandomCropDecodeResize", "CutOut", "RandomErasing",
    "RandomSelectSubpolicy", "AutoAugment", "RandAugment", "MixUpBatch", "CutMixBatch",
    "RandomHorizontalFlipWithBBox", "RandomVerticalFlipWithBBox", "RandomCropWithBBox", "ResizeWithBBox",
    "BoundingBoxAugment", "Rotate", "Affine", "RandomAffine", "GaussianBlur", "UniformAugment",
    "AutoContrast", "Equalize", "Invert", "Posterize", "Solarize", "AdjustSharpness",
    "AdjustBrightness", "AdjustContrast", "AdjustSaturation", "AdjustHue", "AdjustGamma", "RandomAutoContrast",
    "RandomEqualize", "RandomInvert", "RandomPosterize", "RandomSolarize", "RandomSharpness",
    "RandomAdjustSharpness", "HorizontalFlip", "VerticalFlip", "Crop", "ResizedCrop", "RandomGrayscale", "Erase",
    "ToType", "PadToSize", "RandomResize", "RgbToHsv", "HsvToRgb", "LinearTransformation", "RandomColor",
    "RandomLighting", "NormalizePad", "RandomResizedCropWithBBox", "RandomResizeWithBBox", "TrivialAugmentWide",
    "MixUp",
    "ImageReadMode", "read_file", "read_image", "write_file", "write_jpeg", "write_png", "encode_jpeg", "encode_png",
    "get_image_num_channels", "get_image_size", "ToPIL", "Perspective", "RandomPerspective", "FiveCrop", "TenCrop",
    "SlicePatches",
]
