"""The base of the op classes of mindrecord.vision and mindrecord.transforms:
a TensorOperation is a value object describing one C++ pipeline op by its
JSON spec (pipeline/ops); calling it applies the op by hand. Also the
argument checks the ops share, with MindSpore's rules (TypeError for a wrong
type, ValueError for a value out of range, each naming the op and argument).

Thread safety: op objects are immutable values; the helpers are pure.
"""
import json
import math
import numbers
import warnings

import numpy as np

from mindrecord import _core

INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1
# The element types of the C++ tensors (pipeline/tensor.h), bool included.
NUMERIC_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64")


class TensorOperation:
    """Base of the ops: a name and its JSON parameters."""

    # The columns the op gives from its input (FiveCrop gives 5): a map whose
    # list holds an op giving more than one runs as a map node, where later
    # ops (e.g. a callable stacking the crops) take them all.
    _gives = 1

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

    def __call__(self, *values: object, seed: int | None = None) -> object:
        """Applies the op by hand, as a map op would (MindSpore's eager mode):
        `op(image)` for one column (bytes for Decode, a uint8 HWC numpy array
        for image ops), `op(image, bboxes)` or `op(images, labels)` for ops
        over several columns, which return a tuple. Results are numpy arrays.
        Random ops draw from `seed` (default: a fresh random seed). For
        looking at what an op does and composing it with other transforms;
        pipelines are the fast path."""
        if not values:
            raise TypeError("%s takes the input column(s) to transform, got none" % self._spec["op"])
        return _core.apply_op(json.dumps(self._spec), tuple(values), seed)


def is_pil_image(value):
    """True for a PIL.Image.Image (checked without importing PIL)."""
    return any(c.__module__.startswith("PIL.") and c.__name__ == "Image" for c in type(value).__mro__)


def call_on_pil(op, image, seed):
    """MindSpore's PIL-only ops (RandomPerspective, FiveCrop, TenCrop) take a
    PIL image and give PIL images: `image` goes through the op as an array and
    each result comes back as a PIL image (Image.fromarray's mode for it)."""
    from PIL import Image
    out = TensorOperation.__call__(op, np.asarray(image), seed=seed)
    if isinstance(out, tuple):
        return tuple(Image.fromarray(o) for o in out)
    return Image.fromarray(out)


def op_name(op):
    return op._spec["op"] if isinstance(op, TensorOperation) else type(op).__name__


def check_int(value, op, name, lo=None, hi=None):
    """An int (not bool) in [lo, hi]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s: %s must be an int, got %r" % (op, name, value))
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ValueError("%s: %s must be in [%s, %s], got %r" % (op, name, lo, hi, value))
    return int(value)


def check_float(value, op, name, lo=None, hi=None, lo_open=False):
    """A real number in [lo, hi] (or (lo, hi] with lo_open)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s: %s must be a number, got %r" % (op, name, value))
    value = float(value)
    if lo is not None and (value < lo or (lo_open and value == lo)):
        raise ValueError("%s: %s must be %s %s, got %r" % (op, name, ">" if lo_open else ">=", lo, value))
    if hi is not None and value > hi:
        raise ValueError("%s: %s must be <= %s, got %r" % (op, name, hi, value))
    return value


def check_range(value, op, name, lo=None, hi=None):
    """A (min, max) pair of numbers with lo <= min <= max <= hi."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise TypeError("%s: %s must be a sequence (min, max), got %r" % (op, name, value))
    a = check_float(value[0], op, name, lo, hi)
    b = check_float(value[1], op, name, lo, hi)
    if a > b:
        raise ValueError("%s: %s must be (min, max) with min <= max, got %r" % (op, name, value))
    return [a, b]


def check_numbers(value, op, name, lengths, lo=None, hi=None):
    """A list or tuple of numbers in [lo, hi] whose length is one of `lengths`."""
    if not isinstance(value, (list, tuple)) or len(value) not in lengths:
        raise TypeError("%s: %s must be a sequence of %s numbers, got %r"
                        % (op, name, " or ".join(str(n) for n in lengths), value))
    return [check_float(v, op, name, lo, hi) for v in value]


def check_pairs(values, op, name):
    """Consecutive (min, max) pairs with min <= max."""
    for i in range(0, len(values), 2):
        if values[i] > values[i + 1]:
            raise ValueError("%s: %s must be (min, max) pairs with min <= max, got %r" % (op, name, values))
    return values


def check_fill(value, op, name="fill_value"):
    """An int in [0, 255] (all channels) or a (R, G, B) tuple of them."""
    if isinstance(value, (list, tuple)):
        if len(value) != 3:
            raise TypeError("%s: %s must be an int or a tuple of 3 ints, got %r" % (op, name, value))
        return [check_int(v, op, name, 0, 255) for v in value]
    return check_int(value, op, name, 0, 255)


def check_prob(value, op, name="prob"):
    return check_float(value, op, name, 0.0, 1.0)


def check_size(size, op, name="size"):
    """An int s > 0 or a (height, width) pair of them."""
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        if size <= 0:
            raise ValueError("%s: %s must be > 0, got %r" % (op, name, size))
        return int(size)
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return [check_int(s, op, name, 1) for s in size]
    raise TypeError("%s: %s must be an int or (height, width), got %r" % (op, name, size))


def check_padding(padding, op, name="padding"):
    """An int, or 2 (left/right, top/bottom) or 4 (left, top, right, bottom) non-negative ints."""
    if isinstance(padding, (list, tuple)):
        if len(padding) not in (2, 4):
            raise ValueError("%s: %s must be an int or a sequence of 2 or 4 ints, got %r" % (op, name, padding))
        return [check_int(p, op, name, 0) for p in padding]
    return check_int(padding, op, name, 0)


def check_scalar(value, op, name):
    """A scalar as MindSpore's tensor ops take it (Fill's fill_value, Mask's
    constant, PadEnd's pad_value): str, bytes, int, float or bool, as its op
    spec holds it (pipeline/ops/scalar.h): bytes as the str they decode to
    (UTF-8), ints within int64, floats JSON cannot hold as {"float": "nan"}."""
    if not isinstance(value, (str, bytes, bool, int, float)):
        raise TypeError("%s: %s must be a str, bytes, int, float or bool, got %r" % (op, name, value))
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("%s: %s must be UTF-8 text, got %r" % (op, name, value)) from None
    if isinstance(value, bool) or isinstance(value, str):
        return value
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise ValueError("%s: %s must fit int64, got %r" % (op, name, value))
        return int(value)
    return float_json(float(value))


def float_json(value):
    """A float as op specs hold it: a JSON number, or {"float": "nan" | "inf"
    | "-inf"}."""
    if math.isnan(value):
        return {"float": "nan"}
    if math.isinf(value):
        return {"float": "inf" if value > 0 else "-inf"}
    return value


def check_numeric_dtype(value, op, name):
    """One of NUMERIC_DTYPES, given as a numpy dtype, type or name, or as a
    MindSpore mstype (str(mstype.int32) is 'Int32', of mstype.bool_ 'Bool');
    returns its name. TypeError naming the op and argument otherwise."""
    found = None
    if value is not None and not isinstance(value, bool):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                found = np.dtype(value).name
        except (TypeError, ValueError):
            pass
        if found not in NUMERIC_DTYPES:
            found = {"bool_": "bool"}.get(str(value).lower(), str(value).lower())
    if found not in NUMERIC_DTYPES:
        raise TypeError("%s: %s must be one of %s (a numpy dtype or its name), got %r"
                        % (op, name, ", ".join(NUMERIC_DTYPES), value))
    return found


def check_transforms(transforms, op):
    """A non-empty list of ops or callables."""
    if not isinstance(transforms, (list, tuple)):
        raise TypeError("%s: transforms must be a list of ops or callables, got %r" % (op, transforms))
    if not transforms:
        raise ValueError("%s: transforms must not be empty" % op)
    return list(transforms)


def to_specs(operations):
    """A list of op JSON specs from one op or callable, or a list of them.
    Python callables become {"op": "PyFunc", "name": ..., "_ref": id}."""
    if isinstance(operations, TensorOperation) or callable(operations):
        operations = [operations]
    if not isinstance(operations, (list, tuple)) or not operations:
        raise TypeError("operations must be an op from mindrecord.vision or mindrecord.transforms, a Python "
                        "callable, or a non-empty list of them")
    out = []
    for op in operations:
        if isinstance(op, TensorOperation):
            out.append(op.spec())
        elif callable(op):
            name = getattr(op, "__qualname__", None) or type(op).__qualname__
            out.append({"op": "PyFunc", "name": str(name), "_ref": _core.register_callable(op)})
        else:
            raise TypeError("%r is neither a mindrecord op nor a Python callable" % (op,))
    return out
