"""MindSpore's vision enums (Inter, Border, ConvertMode, AutoAugmentPolicy,
ImageBatchFormat, SliceMode) as classes of constants holding the names our JSON op
specs use, and the helpers that read them. A MindSpore script's
`Inter.BILINEAR` or `Border.EDGE` works unchanged; plain strings work too.

Thread safety: constants and pure functions.
"""


class Inter:
    """Interpolation modes (MindSpore's vision.Inter)."""
    NEAREST = "nearest"
    LINEAR = "bilinear"
    BILINEAR = "bilinear"
    CUBIC = "bicubic"
    BICUBIC = "bicubic"
    AREA = "area"
    # MindSpore's PIL-only modes: named so that scripts using them get a
    # ValueError naming the mode, not an AttributeError.
    PILCUBIC = "pilcubic"
    ANTIALIAS = "antialias"


class Border:
    """Padding modes (MindSpore's vision.Border)."""
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class ConvertMode:
    """Colour conversions of ConvertColor (MindSpore's vision.ConvertMode)."""
    COLOR_BGR2BGRA = "COLOR_BGR2BGRA"
    COLOR_RGB2RGBA = "COLOR_RGB2RGBA"
    COLOR_BGRA2BGR = "COLOR_BGRA2BGR"
    COLOR_RGBA2RGB = "COLOR_RGBA2RGB"
    COLOR_BGR2RGBA = "COLOR_BGR2RGBA"
    COLOR_RGB2BGRA = "COLOR_RGB2BGRA"
    COLOR_RGBA2BGR = "COLOR_RGBA2BGR"
    COLOR_BGRA2RGB = "COLOR_BGRA2RGB"
    COLOR_BGR2RGB = "COLOR_BGR2RGB"
    COLOR_RGB2BGR = "COLOR_RGB2BGR"
    COLOR_BGRA2RGBA = "COLOR_BGRA2RGBA"
    COLOR_RGBA2BGRA = "COLOR_RGBA2BGRA"
    COLOR_BGR2GRAY = "COLOR_BGR2GRAY"
    COLOR_RGB2GRAY = "COLOR_RGB2GRAY"
    COLOR_GRAY2BGR = "COLOR_GRAY2BGR"
    COLOR_GRAY2RGB = "COLOR_GRAY2RGB"
    COLOR_GRAY2BGRA = "COLOR_GRAY2BGRA"
    COLOR_GRAY2RGBA = "COLOR_GRAY2RGBA"
    COLOR_BGRA2GRAY = "COLOR_BGRA2GRAY"
    COLOR_RGBA2GRAY = "COLOR_RGBA2GRAY"


class AutoAugmentPolicy:
    """AutoAugment's learned policies (MindSpore's vision.AutoAugmentPolicy)."""
    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


class ImageBatchFormat:
    """Layouts of a batch of images (MindSpore's vision.ImageBatchFormat)."""
    NHWC = "NHWC"
    NCHW = "NCHW"


class SliceMode:
    """How SlicePatches treats a size that does not divide (MindSpore's
    vision.SliceMode): PAD pads the right and bottom, DROP drops the rest."""
    PAD = "pad"
    DROP = "drop"


_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "area")


def interp(interpolation, op=None, name="interpolation"):
    """The spec name of an interpolation mode (an Inter constant, an enum
    member with that name, or a string)."""
    value = str(getattr(interpolation, "name", interpolation)).lower()
    value = {"linear": "bilinear", "cubic": "bicubic"}.get(value, value)
    if value not in _INTERPOLATIONS:
        # As MindSpore's validators: a value that is no Inter mode at all is a
        # TypeError; its PIL-only modes, which we do not implement, a ValueError.
        error = ValueError if value in (Inter.PILCUBIC, Inter.ANTIALIAS) else TypeError
        raise error("%s%s must be one of Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC, Inter.AREA, got %r"
                    % (op + ": " if op else "", name, interpolation))
    return value


def choice(value, enum, op, name):
    """The value of a constant of `enum` given as the constant, an enum member
    with that name, or the string itself."""
    allowed = {k: v for k, v in vars(enum).items() if not k.startswith("_")}
    if isinstance(value, str) and value in allowed.values():
        return value
    key = getattr(value, "name", value)
    if isinstance(key, str):
        if key in allowed:
            return allowed[key]
        if key.upper() in allowed:
            return allowed[key.upper()]
    names = ", ".join("%s.%s" % (enum.__name__, k) for k in allowed)
    raise ValueError("%s: %s must be one of %s, got %r" % (op, name, names, value))
