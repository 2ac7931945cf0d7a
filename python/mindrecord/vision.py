"""Image ops for MindDataset.map / mindrecord.torch: thin descriptions of the
C++ pipeline ops (pipeline/ops). Each op is a value object; `spec()` is the
JSON op spec the C++ pipeline builds the op from. Ops run in C++ worker
threads, on uint8 HWC images after Decode.

Thread safety: op objects are immutable values.
"""
import json

from mindrecord import _core


def _size(size, name="size"):
    if isinstance(size, int) and not isinstance(size, bool):
        if size <= 0:
            raise ValueError("%s must be > 0" % name)
        return size
    if isinstance(size, (list, tuple)) and len(size) == 2 and all(isinstance(s, int) and s > 0 for s in size):
        return list(size)
    raise ValueError("%s must be an int or (height, width), got %r" % (name, size))


def _pair(value, name):
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ValueError("%s must be a (min, max) pair, got %r" % (name, value))
    return [float(value[0]), float(value[1])]


_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "area")


def _interp(interpolation):
    name = getattr(interpolation, "name", interpolation)
    name = str(name).lower()
    if name == "linear":
        name = "bilinear"
    if name == "cubic":
        name = "bicubic"
    if name not in _INTERPOLATIONS:
        raise ValueError("interpolation must be one of %s, got %r" % (", ".join(_INTERPOLATIONS), interpolation))
    return name


class Inter:
    """Interpolation names (MindSpore's vision.Inter)."""
    NEAREST = "nearest"
    LINEAR = "bilinear"
    BILINEAR = "bilinear"
    CUBIC = "bicubic"
    BICUBIC = "bicubic"
    AREA = "area"


class TensorOperation:
    """Base of the ops: a name and its JSON parameters."""

    def __init__(self, name, **params):
        self._spec = dict(params)
        self._spec["op"] = name

    def spec(self) -> dict[str, object]:
        return dict(self._spec)

    def __repr__(self):
        args = ", ".join("%s=%r" % kv for kv in sorted(self._spec.items()) if kv[0] != "op")
        return "%s(%s)" % (self._spec["op"], args)

    def __eq__(self, other):
        return isinstance(other, TensorOperation) and self._spec == other._spec

    def __hash__(self):
        return hash(repr(self))

    def __call__(self, value: object, seed: int | None = None) -> object:
        """Applies the op to one value by hand, as a map op would to a
        column's value (bytes for Decode, a uint8 HWC numpy array for image
        ops): the result is a numpy array. Random ops draw from `seed`
        (default: a fresh random seed). For looking at what an op does and
        composing it with other transforms; pipelines are the fast path."""
        return _core.apply_op(json.dumps(self._spec), value, seed)


class Decode(TensorOperation):
    """Decodes JPEG / PNG / ... bytes into a uint8 HWC image (RGB; grayscale
    images give one channel). `target_size` lets JPEG decode at a reduced
    scale no smaller than the target (faster when a resize follows)."""

    def __init__(self, to_pil: bool = False, target_size: int | list[int] | None = None) -> None:
        if to_pil:
            raise ValueError("Decode(to_pil=True) is not supported: images are decoded in C++")
        params = {}
        if target_size is not None:
            params["target_size"] = _size(target_size, "target_size")
        super().__init__("Decode", **params)


class Resize(TensorOperation):
    """Resizes to (h, w), or the shorter side to an int size keeping the aspect ratio."""

    def __init__(self, size: int | list[int], interpolation: str = Inter.BILINEAR) -> None:
        super().__init__("Resize", size=_size(size), interpolation=_interp(interpolation))


class CenterCrop(TensorOperation):
    def __init__(self, size: int | list[int]) -> None:
        super().__init__("CenterCrop", size=_size(size))


class RandomCrop(TensorOperation):
    """torchvision semantics: optional padding, then a random (h, w) window."""

    def __init__(self, size: int | list[int], padding: int | list[int] | None = None, pad_if_needed: bool = False,
                 fill_value: int | list[int] = 0, padding_mode: str = "constant") -> None:
        params = {"size": _size(size), "pad_if_needed": bool(pad_if_needed), "fill": fill_value,
                  "padding_mode": str(getattr(padding_mode, "name", padding_mode)).lower()}
        if padding is not None:
            params["padding"] = list(padding) if isinstance(padding, (list, tuple)) else int(padding)
        super().__init__("RandomCrop", **params)


class RandomResizedCrop(TensorOperation):
    def __init__(self, size: int | list[int], scale: tuple[float, float] = (0.08, 1.0),
                 ratio: tuple[float, float] = (3.0 / 4.0, 4.0 / 3.0), interpolation: str = Inter.BILINEAR,
                 max_attempts: int = 10) -> None:
        super().__init__("RandomResizedCrop", size=_size(size), scale=_pair(scale, "scale"),
                         ratio=_pair(ratio, "ratio"), interpolation=_interp(interpolation),
                         attempts=int(max_attempts))


class RandomHorizontalFlip(TensorOperation):
    def __init__(self, prob: float = 0.5) -> None:
        if not 0.0 <= float(prob) <= 1.0:
            raise ValueError("prob must be in [0, 1], got %r" % (prob,))
        super().__init__("RandomHorizontalFlip", p=float(prob))


class Normalize(TensorOperation):
    """(x - mean) / std per channel on uint8 HWC input -> float32."""

    def __init__(self, mean: list[float], std: list[float]) -> None:
        super().__init__("Normalize", mean=[float(m) for m in mean], std=[float(s) for s in std])


class HWC2CHW(TensorOperation):
    def __init__(self) -> None:
        super().__init__("HWC2CHW")


class TypeCast(TensorOperation):
    """Casts a numeric tensor to `data_type` (a numpy dtype or its name)."""

    def __init__(self, data_type: str) -> None:
        name = getattr(data_type, "__name__", None) or str(data_type)
        try:
            import numpy as np
            name = np.dtype(data_type).name
        except TypeError:
            pass
        super().__init__("TypeCast", type=name)


def to_specs(operations):
    """A list of op JSON specs from one op or callable, or a list of them.
    Python callables become {"op": "PyFunc", "name": ..., "_ref": id}."""
    if isinstance(operations, TensorOperation) or callable(operations):
        operations = [operations]
    if not isinstance(operations, (list, tuple)) or not operations:
        raise TypeError("operations must be an op from mindrecord.vision, a Python callable, or a non-empty "
                        "list of them")
    out = []
    for op in operations:
        if isinstance(op, TensorOperation):
            out.append(op.spec())
        elif callable(op):
            name = getattr(op, "__qualname__", None) or type(op).__qualname__
            out.append({"op": "PyFunc", "name": str(name), "_ref": _core.register_callable(op)})
        else:
            raise TypeError("%r is neither a mindrecord.vision op nor a Python callable" % (op,))
    return out
