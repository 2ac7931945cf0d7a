"""How a python_multiprocessing call's arguments and results cross between
processes: numeric numpy arrays and bytes are copied into a shared-memory
slot (one per direction per worker process), and only a small layout (dtype,
shape, offset) goes through the pipe; anything else (str arrays, ints, a
BatchInfo) is pickled inside the layout, as it is small.

A layout is a tree of tuples:
    ("a", dtype_str, shape, offset)   a numeric array at `offset` of the slot
    ("b", offset, size)               bytes at `offset`
    ("l", [layouts]) / ("t", [layouts])   a list / tuple of values
    ("p", obj)                        obj itself (pickled with the message)

Values read back are copies: the slot is reused by the next call, so no
array over it outlives the call.

Thread safety: functions only; a slot is used by one call at a time (the
pool hands a worker to one thread at a time).
"""
import numpy as np

_ALIGN = 64
_SHM_KINDS = "biuf"  # bool, ints, floats: the dtypes a callable's arrays may have


def _aligned(n):
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


def plan(value, offset=0):
    """(layout, bytes needed) for `value` placed from `offset`; array data
    is not copied yet (write() does)."""
    if isinstance(value, np.ndarray) and value.dtype.kind in _SHM_KINDS:
        return ("a", value.dtype.str, value.shape, offset), _aligned(offset + value.nbytes)
    if isinstance(value, (bytes, bytearray)):
        return ("b", offset, len(value)), _aligned(offset + len(value))
    if isinstance(value, (list, tuple)):
        parts = []
        for v in value:
            layout, offset = plan(v, offset)
            parts.append(layout)
        return ("t" if isinstance(value, tuple) else "l", parts), offset
    return ("p", value), offset


def write(buf, layout, value):
    """Copies the arrays and bytes of `value` into `buf` as `layout` says."""
    kind = layout[0]
    if kind == "a":
        _, dtype, shape, offset = layout
        dst = np.ndarray(shape, dtype=dtype, buffer=buf, offset=offset)
        np.copyto(dst, value, casting="no")
    elif kind == "b":
        _, offset, size = layout
        buf[offset:offset + size] = value
    elif kind in "lt":
        for sub, v in zip(layout[1], value):
            write(buf, sub, v)


def read(buf, layout):
    """The value `layout` describes, copied out of `buf`."""
    kind = layout[0]
    if kind == "a":
        _, dtype, shape, offset = layout
        return np.ndarray(shape, dtype=dtype, buffer=buf, offset=offset).copy()
    if kind == "b":
        _, offset, size = layout
        return bytes(buf[offset:offset + size])
    if kind == "l":
        return [read(buf, sub) for sub in layout[1]]
    if kind == "t":
        return tuple(read(buf, sub) for sub in layout[1])
    return layout[1]
