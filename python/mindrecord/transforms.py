"""General transforms (MindSpore's mindspore.dataset.transforms): ops over
ops and label ops, run by the C++ pipeline like the vision ops.

    from mindrecord import transforms, vision      # for mindspore.dataset.transforms / .vision
    aug = transforms.RandomApply([vision.RandomRotation(15), vision.RandomColorAdjust(0.4, 0.4)], prob=0.8)
    ds = ds.map(operations=[vision.Decode(), aug, vision.HWC2CHW()], input_columns="image")
    ds = ds.map(operations=transforms.OneHot(10), input_columns="label")
    ds = ds.map(transforms.Duplicate(), input_columns="label", output_columns=["label", "label_copy"])

The general tensor ops (Fill, Mask, Slice, PadEnd, Concatenate, Duplicate,
Unique) follow MindSpore's kernels, rules and errors (pipeline/ops/
tensor_ops.h, tensor_shape_ops.h): a bytes column is a 1-D uint8 array, a
string column a scalar string, as MindSpore reads MindRecord files; Fill,
Mask, Slice, PadEnd and Concatenate also take arrays of strings (what the
text ops give: mindrecord.text).
Duplicate gives 2 columns and Unique 3: name them with output_columns (the
outputs come first, then the columns the map did not take, as MindSpore
orders them). Concatenate joins all the columns the map gives it.

The ops inside Compose / RandomApply / RandomChoice / RandomOrder may be
mindrecord ops or Python callables (a callable runs on the worker thread
holding the GIL for its call only). Random choices draw from the row's seed,
so a pipeline's output does not depend on the worker count.

Thread safety: op objects are immutable values.
"""
from enum import IntEnum

import numpy as np

from mindrecord._ops_base import (INT64_MAX, INT64_MIN, NUMERIC_DTYPES, TensorOperation, check_float, check_int,
                                  check_numeric_dtype, check_prob, check_scalar, check_transforms, float_json,
                                  to_specs)
from mindrecord.vision import TypeCast

__all__ = ["Compose", "RandomApply", "RandomChoice", "RandomOrder", "OneHot", "TypeCast", "Concatenate", "Duplicate",
           "Fill", "Mask", "PadEnd", "Plugin", "Relational", "Slice", "Unique"]


class Compose(TensorOperation):
    """Applies `transforms` in order, as one op. Ops over several columns
    (image and boxes) may be composed when each gives the columns the next
    one takes."""

    def __init__(self, transforms: list) -> None:
        transforms = check_transforms(transforms, "Compose")
        specs = to_specs(transforms)
        # A Python callable after the first op takes the columns the op before
        # it gives: MindSpore's FiveCrop / TenCrop examples follow the crops
        # with `lambda *images: ...` in a Compose.
        for spec in specs[1:]:
            if spec["op"] == "PyFunc":
                spec["num_inputs"], spec["num_outputs"] = -1, 1
        super().__init__("Compose", transforms=specs)
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


class Relational(IntEnum):
    """The comparison of Mask (MindSpore's transforms.Relational)."""
    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


class Fill(TensorOperation):
    """Every element set to `fill_value` (str, bytes, int, float or bool),
    converted to the input's type as a C cast (MindSpore's TypeCast: 2.7 on
    int32 is 2, 300 on uint8 is 44); same shape and type. A str / bytes value
    fills string columns only, a number numeric ones (else ValueError when
    the op runs)."""

    def __init__(self, fill_value) -> None:
        super().__init__("Fill", fill_value=check_scalar(fill_value, "Fill", "fill_value"))


class Mask(TensorOperation):
    """Element-wise `x <operator> constant` (a Relational) as `dtype` (any
    numeric type; default bool, MindSpore's mstype.bool_). The constant is
    first converted to the input's type, as MindSpore does (on int32, GE 2.5
    compares with 2). String columns compare with a str constant."""

    def __init__(self, operator: Relational, constant, dtype="bool") -> None:
        if not isinstance(operator, Relational):
            raise TypeError("Mask: operator must be a transforms.Relational, got %r" % (operator,))
        super().__init__("Mask", operator=operator.name, constant=check_scalar(constant, "Mask", "constant"),
                         dtype=check_numeric_dtype(dtype, "Mask", "dtype"))


class Duplicate(TensorOperation):
    """One column in, two identical columns out:
    ds.map(Duplicate(), input_columns=["x"], output_columns=["x", "y"])."""

    _gives = 2

    def __init__(self) -> None:
        super().__init__("Duplicate")


class Unique(TensorOperation):
    """One column in, three out: the distinct values in the order they first
    occur, each element's index in them (int32) and each value's count
    (int32), over the flattened input. As in MindSpore, the input must be
    numeric (not bool) and at least 2-D: batch the column first.
    ds.map(Unique(), input_columns=["x"], output_columns=["x", "idx", "cnt"])."""

    _gives = 3

    def __init__(self) -> None:
        super().__init__("Unique")


class PadEnd(TensorOperation):
    """Pads each dimension at its end to `pad_shape` (a list of ints >= 1, or
    None to keep the input's size), or cuts it when shorter. `pad_value`
    (default 0; for strings '') is converted as MindSpore does: to float32,
    then to the input's type. Scalars (string values too) are left as they
    are; another rank is ValueError when the op runs."""

    def __init__(self, pad_shape: list, pad_value=None) -> None:
        if not isinstance(pad_shape, list):
            raise TypeError("PadEnd: pad_shape must be a list, got %r" % (pad_shape,))
        dims: list[int | None] = []
        for d in pad_shape:
            if d is None:
                dims.append(None)
            elif isinstance(d, int) and not isinstance(d, bool):
                dims.append(check_int(d, "PadEnd", "pad_shape", 1, INT64_MAX))
            else:
                raise TypeError("PadEnd: pad_shape must hold ints or None, got %r" % (pad_shape,))
        value = None if pad_value is None else check_scalar(pad_value, "PadEnd", "pad_value")
        super().__init__("PadEnd", pad_shape=dims, pad_value=value)


def _array_spec(value, name):
    """Concatenate's prepend / append: a 1-D numpy array of a numeric dtype,
    or of strings (str or UTF-8 bytes: MindSpore's np.array(["[CLS]"], dtype='S'))."""
    if value is None:
        return None
    if not isinstance(value, np.ndarray):
        raise TypeError("Concatenate: %s must be a numpy.ndarray, got %r" % (name, value))
    if value.ndim != 1:
        raise ValueError("Concatenate: %s must be a 1-D array (can only %s 1D arrays), got shape %s"
                         % (name, name, value.shape))
    if value.dtype.kind in "US":
        items = value.tolist()
        try:
            items = [v.decode("utf-8") if isinstance(v, bytes) else v for v in items]
        except UnicodeDecodeError as e:
            raise ValueError("Concatenate: %s holds bytes that are not UTF-8: %s" % (name, e)) from None
        return {"dtype": "strings", "values": items}
    if value.dtype.name not in NUMERIC_DTYPES:
        raise ValueError("Concatenate: %s of dtype %s is not supported (%s, or strings)"
                         % (name, value.dtype, ", ".join(NUMERIC_DTYPES)))
    values = value.tolist()
    if value.dtype.kind == "f":
        values = [float_json(v) for v in values]
    return {"dtype": value.dtype.name, "values": values}


class Concatenate(TensorOperation):
    """Joins the 1-D columns the map gives it (one or more, of one type) into
    one, with `prepend` / `append` (1-D numpy arrays of that type) at the
    ends. `axis` must be 0 or -1: MindSpore concatenates 1-D tensors only."""

    def __init__(self, axis: int = 0, prepend=None, append=None) -> None:
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError("Concatenate: axis must be an int, got %r" % (axis,))
        if axis not in (0, -1):
            raise ValueError("Concatenate: axis must be 0 or -1 (only 1D concatenation supported), got %r" % (axis,))
        super().__init__("Concatenate", axis=axis, prepend=_array_spec(prepend, "prepend"),
                         append=_array_spec(append, "append"))


def _index(v, what):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError("Slice: %s must be an int, got %r" % (what, v))
    if not INT64_MIN <= v <= INT64_MAX:
        raise ValueError("Slice: %s must fit int64, got %r" % (what, v))
    return v


def _slice_spec(s):
    """One dimension of Slice, as MindSpore's _SliceOption takes it."""
    if s is None or s is Ellipsis or s is True:
        return True  # the whole dimension
    if s is False:
        raise ValueError("Slice: False selects nothing (MindSpore refuses it when the op runs)")
    if isinstance(s, int):
        return [_index(s, "an index")]
    if isinstance(s, list):
        if not s:
            raise ValueError("Slice: an empty list of indices selects nothing")
        return [_index(v, "an index in %r" % (s,)) for v in s]
    if isinstance(s, slice):
        start, stop, step = s.start, s.stop, s.step
        for v in (start, stop, step):
            if v is not None:
                _index(v, "a bound of %r" % (s,))
        # MindSpore builds Slice(stop), Slice(start, stop) or Slice(start,
        # stop, step) from a Python slice; other forms are "Wrong slice object".
        if start is None and step is None and stop is not None:
            start, step = 0, 1
        elif start is not None and stop is not None and step is None:
            step = 1
        elif start is None or stop is None or step is None or step == 0:
            raise ValueError("Slice: %r is not supported: MindSpore takes slice(stop), slice(start, stop) or "
                             "slice(start, stop, step) with step != 0" % (s,))
        return {"start": start, "stop": stop, "step": step}
    raise TypeError("Slice: each slice must be an int, a list of ints, a slice, None, Ellipsis or a bool, got %r"
                    % (s,))


class Slice(TensorOperation):
    """Slices the input, one argument per dimension from the first (the
    others kept whole), as MindSpore's Slice: an int or a list of ints keeps
    those indices and the dimension (Slice(1) of [a, b, c] is [b]); a slice
    (slice(stop), slice(start, stop) or slice(start, stop, step)) takes that
    range, its bounds clamped to the dimension; None, Ellipsis and True keep
    the dimension whole (Ellipsis stands for one dimension, not numpy's
    "all the rest"). Negative indices count from the end."""

    def __init__(self, *slices) -> None:
        super().__init__("Slice", slices=[_slice_spec(s) for s in slices])


class Plugin(TensorOperation):
    """MindSpore's Plugin(lib_path, func_name, user_args=None) runs a function
    of a MindData plugin library (a .so built against MindSpore's C++ plugin
    API) as an op. Our pipeline cannot load those libraries: after
    MindSpore's argument checks (TypeError for a non-str argument), this
    raises NotImplementedError. Use a Python callable in map() instead."""

    def __init__(self, lib_path: str, func_name: str, user_args: str | None = None) -> None:
        for name, value in (("lib_path", lib_path), ("func_name", func_name)):
            if not isinstance(value, str):
                raise TypeError("Plugin: Argument %s with value %r is not of type [<class 'str'>], but got %s."
                                % (name, value, type(value)))
        if user_args is not None and not isinstance(user_args, str):
            raise TypeError("Plugin: Argument user_args with value %r is not of type [<class 'str'>], but got %s."
                            % (user_args, type(user_args)))
        raise NotImplementedError(
            "Plugin(%r, %r): MindSpore's MindData plugin libraries cannot be loaded by mindrecord's pipeline "
            "(it does not implement MindSpore's C++ plugin API); run the function as a Python callable in "
            "map(operations=...) instead" % (lib_path, func_name))
