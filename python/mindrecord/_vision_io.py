"""MindSpore 2.x's image file and encoding functions of
mindspore.dataset.vision (vision/utils.py): read_file, read_image,
write_file, write_jpeg, write_png, encode_jpeg, encode_png,
get_image_num_channels, get_image_size, and the ImageReadMode enum.

Names, signatures, defaults and return types are MindSpore's. As there, a
wrong argument type is a TypeError ("Input quality is not of type <class
'int'>, ..."), and what MindSpore's C++ layer refuses (a dtype other than
uint8, a bad shape, a quality out of range, a missing file) is a RuntimeError:
ours are InvalidArgumentError (ValueError and RuntimeError), NotFoundError
(FileNotFoundError and RuntimeError) or ReadWriteError (OSError and
RuntimeError), with MindSpore's message and the file named. The work runs in
C++ (pipeline/ops/image_codec.h, image_file.h) with the GIL released;
get_image_num_channels / get_image_size read the array's shape in Python.

These are functions, not ops: inside MindDataset.map they run as Python
callables (e.g. `ds.map(vision.encode_png, input_columns="image")`).

Thread safety: pure functions; files are written as a whole by each call.
"""
from enum import IntEnum

import numpy as np

from mindrecord import _core
from mindrecord._core import InvalidArgumentError

__all__ = ["ImageReadMode", "read_file", "read_image", "write_file", "write_jpeg", "write_png", "encode_jpeg",
           "encode_png", "get_image_num_channels", "get_image_size"]


class ImageReadMode(IntEnum):
    """How read_image decodes (MindSpore's vision.ImageReadMode).

    - UNCHANGED: as stored: a gray image stays one channel, a colour one
      becomes RGB (alpha dropped), 16-bit samples stay uint16.
    - GRAYSCALE: one uint8 channel.
    - COLOR: three uint8 channels, RGB.
    """
    UNCHANGED = 0
    GRAYSCALE = 1
    COLOR = 2


def _type_error(func, name, value, expected):
    return TypeError("%s: Input %s is not of type %s, but got: %s." % (func, name, expected, type(value)))


def _check_filename(func, filename):
    if not isinstance(filename, str):
        raise _type_error(func, "filename", filename, str)


def _check_array(func, name, value):
    if not isinstance(value, np.ndarray):
        raise _type_error(func, name, value, np.ndarray)


def _check_level(func, op, name, value, lo, hi):
    """An int (not bool). The range [lo, hi] is checked in C++ after the
    image, in MindSpore's order; here only values a C int cannot hold."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise _type_error(func, name, value, int)
    if not -2 ** 31 <= value < 2 ** 31:
        raise InvalidArgumentError("%s: Invalid %s %d, should be in range of [%d, %d]." % (op, name, value, lo, hi))
    return int(value)


def read_file(filename: str) -> np.ndarray:
    """The bytes of the file `filename` as a 1-D uint8 array."""
    _check_filename("read_file", filename)
    return _core.read_file(filename)


def read_image(filename: str, mode: ImageReadMode = ImageReadMode.UNCHANGED) -> np.ndarray:
    """Decodes the image file `filename` (JPEG, PNG, BMP, TIFF, WebP, PNM,
    JPEG 2000) into an (H, W, C) array: uint8, or uint16 for 16-bit files
    read UNCHANGED. GRAYSCALE and COLOR apply the EXIF orientation."""
    _check_filename("read_image", filename)
    if not isinstance(mode, ImageReadMode):
        raise _type_error("read_image", "mode", mode, ImageReadMode)
    return _core.read_image(filename, int(mode))


def write_file(filename: str, data: np.ndarray) -> None:
    """Writes the 1-D uint8 array `data` as the whole of `filename` (created
    or truncated)."""
    _check_filename("write_file", filename)
    _check_array("write_file", "data", data)
    _core.write_file(filename, data)


def encode_jpeg(image: np.ndarray, quality: int = 75) -> np.ndarray:
    """JPEG bytes (1-D uint8) of an (H, W), (H, W, 1) or (H, W, 3) RGB uint8
    image at `quality` in [1, 100]."""
    quality = _check_level("encode_jpeg", "EncodeJpeg", "quality", quality, 1, 100)
    _check_array("encode_jpeg", "image", image)
    return _core.encode_jpeg(image, quality)


def encode_png(image: np.ndarray, compression_level: int = 6) -> np.ndarray:
    """PNG bytes (1-D uint8) of an (H, W), (H, W, 1) or (H, W, 3) RGB uint8
    image at `compression_level` in [0, 9]."""
    compression_level = _check_level("encode_png", "EncodePng", "compression_level", compression_level, 0, 9)
    _check_array("encode_png", "image", image)
    return _core.encode_png(image, compression_level)


def write_jpeg(filename: str, image: np.ndarray, quality: int = 75) -> None:
    """encode_jpeg(image, quality) written as the whole of `filename`."""
    _check_filename("write_jpeg", filename)
    quality = _check_level("write_jpeg", "WriteJpeg", "quality", quality, 1, 100)
    _check_array("write_jpeg", "image", image)
    _core.write_jpeg(filename, image, quality)


def write_png(filename: str, image: np.ndarray, compression_level: int = 6) -> None:
    """encode_png(image, compression_level) written as the whole of `filename`."""
    _check_filename("write_png", filename)
    compression_level = _check_level("write_png", "WritePng", "compression_level", compression_level, 0, 9)
    _check_array("write_png", "image", image)
    _core.write_png(filename, image, compression_level)


def _pil_image(image):
    """`image` when it is a PIL image (PIL imported only if it is loaded)."""
    import sys
    pil = sys.modules.get("PIL.Image")
    return image if pil is not None and isinstance(image, pil.Image) else None


def _image_type_error(func, image):
    return TypeError("%s: Input image is not of type <class 'numpy.ndarray'> or <class 'PIL.Image.Image'>, but "
                     "got: %s." % (func, type(image)))


def get_image_num_channels(image) -> int:
    """The number of channels of an image: 1 for (H, W), else the last
    dimension (numpy arrays of any dtype, or PIL images: their bands)."""
    if isinstance(image, np.ndarray):
        if image.ndim < 2:
            raise InvalidArgumentError("GetImageNumChannels: invalid parameter, image should have at least two "
                                       "dimensions, but got: %d" % image.ndim)
        return 1 if image.ndim == 2 else int(image.shape[-1])
    pil = _pil_image(image)
    if pil is not None:
        return len(pil.getbands())
    raise _image_type_error("get_image_num_channels", image)


def get_image_size(image) -> list[int]:
    """[height, width] of an image: the first two of (H, W), else the third-
    and second-last dimensions (numpy arrays), or a PIL image's size swapped."""
    if isinstance(image, np.ndarray):
        if image.ndim < 2:
            raise InvalidArgumentError("GetImageSize: invalid parameter, image should have at least two dimensions, "
                                       "but got: %d" % image.ndim)
        if image.ndim == 2:
            return [int(image.shape[0]), int(image.shape[1])]
        return [int(image.shape[-3]), int(image.shape[-2])]
    pil = _pil_image(image)
    if pil is not None:
        return [int(pil.size[1]), int(pil.size[0])]
    raise _image_type_error("get_image_size", image)
