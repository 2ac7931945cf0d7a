"""The perspective ops of mindrecord.vision: Perspective (MindSpore's C++
kernel: cv::getPerspectiveTransform + cv::warpPerspective) and
RandomPerspective (in MindSpore a Python op over PIL images; here the same
corner draw and PIL's geometry, run in C++ on arrays; PIL images are taken
and given back too). MindSpore's parameters, defaults and checks.

Thread safety: op objects are immutable values.
"""
from mindrecord._ops_base import TensorOperation, call_on_pil, check_int, is_pil_image
from mindrecord._vision_enums import Inter, interp

_INT32_MIN, _INT32_MAX = -2 ** 31, 2 ** 31 - 1


def _check_points(points, op, name):
    """Four [x, y] int32 points (MindSpore's check_perspective: TypeError for
    the wrong shape or type, ValueError out of range)."""
    if not isinstance(points, (list, tuple)) or len(points) != 4:
        raise TypeError("%s: %s must be a list or tuple of 4 [x, y] points, got %r" % (op, name, points))
    out = []
    for i, p in enumerate(points):
        if not isinstance(p, (list, tuple)) or len(p) != 2:
            raise TypeError("%s: %s[%d] must be a list or tuple of 2 ints, got %r" % (op, name, i, p))
        out.append([check_int(c, op, "%s[%d]" % (name, i), _INT32_MIN, _INT32_MAX) for c in p])
    # Three collinear corners leave no invertible homography (the C++ op checks it too).
    for a in range(4):
        for b in range(a + 1, 4):
            for c in range(b + 1, 4):
                (ax, ay), (bx, by), (cx, cy) = out[a], out[b], out[c]
                if (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) == 0:
                    raise ValueError("%s: three of %s are collinear (or equal), got %r" % (op, name, points))
    return out


def _check_float_strict(value, op, name):
    """A float in [0, 1]: MindSpore's check_random_perspective type-checks
    (float,), so an int is a TypeError."""
    if not isinstance(value, float):
        raise TypeError("%s: %s must be a float, got %r" % (op, name, value))
    if not 0.0 <= value <= 1.0:
        raise ValueError("%s: %s must be in [0.0, 1.0], got %r" % (op, name, value))
    return float(value)


class Perspective(TensorOperation):
    """Warps the image by the perspective transform taking `start_points` to
    `end_points` (each [top-left, top-right, bottom-right, bottom-left] as
    [x, y] ints). The output has the input's size, 0 outside the warped
    image. Interpolation: NEAREST, BILINEAR, BICUBIC or AREA (taken as
    bilinear, as OpenCV's warps do). Input: HW or HWC, uint8 or float32."""

    def __init__(self, start_points, end_points, interpolation=Inter.BILINEAR) -> None:
        op = "Perspective"
        super().__init__(op, start_points=_check_points(start_points, op, "start_points"),
                         end_points=_check_points(end_points, op, "end_points"),
                         interpolation=interp(interpolation, op))


class RandomPerspective(TensorOperation):
    """With probability `prob`, moves the image's corners inwards by random
    amounts up to `distortion_scale` of half the width / height and warps the
    image to them, as MindSpore (and torchvision) draw them. Interpolation:
    NEAREST, BILINEAR or BICUBIC. Input: HW or HWC uint8 / float32 arrays, or
    a PIL image (then a PIL image is returned, as MindSpore's op takes)."""

    def __init__(self, distortion_scale: float = 0.5, prob: float = 0.5, interpolation=Inter.BICUBIC) -> None:
        op = "RandomPerspective"
        mode = interp(interpolation, op)
        if mode == "area":
            raise ValueError("%s: interpolation must be one of Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC "
                             "(MindSpore's op resamples with PIL), got %r" % (op, interpolation))
        super().__init__(op, distortion_scale=_check_float_strict(distortion_scale, op, "distortion_scale"),
                         prob=_check_float_strict(prob, op, "prob"), interpolation=mode)

    def __call__(self, *values, seed=None):
        if len(values) == 1 and is_pil_image(values[0]):
            return call_on_pil(self, values[0], seed)
        return super().__call__(*values, seed=seed)
