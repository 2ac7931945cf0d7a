"""mindrecord.vision's image file and encoding functions (MindSpore's
read_file, read_image, write_file, write_jpeg, write_png, encode_jpeg,
encode_png, get_image_num_channels, get_image_size) against PIL's codecs,
their argument errors (MindSpore's types and messages), inside a map, and
transforms.Plugin's refusal."""
import io

import numpy as np
import pytest
import torch
import torchvision.io as tio
from PIL import Image, ImageOps

import mindrecord
from mindrecord import transforms, vision
from mindrecord.vision import ImageReadMode
from image_util import natural

IMG = natural(40, 56)


def pil_decode(data):
    return np.asarray(Image.open(io.BytesIO(np.asarray(data).tobytes())))


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return 10 * np.log10(255.0 ** 2 / mse)


def test_exports_and_enum():
    for name in ("read_file", "read_image", "write_file", "write_jpeg", "write_png", "encode_jpeg", "encode_png",
                 "get_image_num_channels", "get_image_size", "ImageReadMode"):
        assert name in vision.__all__ and hasattr(vision, name)
    assert [int(m) for m in (ImageReadMode.UNCHANGED, ImageReadMode.GRAYSCALE, ImageReadMode.COLOR)] == [0, 1, 2]


def test_encode_png_round_trips_through_pil():
    for level in (0, 1, 6, 9):
        out = vision.encode_png(IMG, level)
        assert out.dtype == np.uint8 and out.ndim == 1
        np.testing.assert_array_equal(pil_decode(out), IMG)  # lossless, RGB order kept
    gray = IMG[:, :, 1].copy()
    np.testing.assert_array_equal(pil_decode(vision.encode_png(gray)), gray)
    np.testing.assert_array_equal(pil_decode(vision.encode_png(gray[:, :, None])), gray)
    # Non-contiguous input is read as its values.
    np.testing.assert_array_equal(pil_decode(vision.encode_png(IMG[:, ::-1])), IMG[:, ::-1])
    assert len(vision.encode_png(IMG, 9)) <= len(vision.encode_png(IMG, 0))


def pil_jpeg(img, quality):
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


def test_encode_jpeg_equals_pil_and_torchvision_at_the_same_quality():
    gray = IMG[:, :, 0].copy()
    for q in (1, 50, 75, 95, 100):
        ours = vision.encode_jpeg(IMG, q)
        assert ours.dtype == np.uint8 and ours.ndim == 1 and list(ours[:3]) == [255, 216, 255]
        # Same libjpeg defaults (baseline, standard tables, 4:2:0, JFIF 1:1):
        # the same bytes, exactly.
        assert ours.tobytes() == pil_jpeg(IMG, q)
        chw = torch.from_numpy(IMG).permute(2, 0, 1).contiguous()
        assert ours.tobytes() == tio.encode_jpeg(chw, q).numpy().tobytes()
        assert vision.encode_jpeg(gray, q).tobytes() == pil_jpeg(gray, q)
        assert vision.encode_jpeg(gray[:, :, None], q).tobytes() == pil_jpeg(gray, q)
    assert psnr(pil_decode(vision.encode_jpeg(IMG, 95)), IMG) > 25  # 27.6 dB: natural() has +-20 noise
    assert len(vision.encode_jpeg(IMG, 10)) < len(vision.encode_jpeg(IMG)) < len(vision.encode_jpeg(IMG, 100))
    red = np.zeros((16, 16, 3), np.uint8)
    red[..., 0] = 255
    px = pil_decode(vision.encode_jpeg(red, 90))[8, 8]
    assert px[0] > 240 and px[2] < 15  # channel order: RGB in, RGB out


@pytest.mark.parametrize("fn, name, arg", [(vision.encode_jpeg, "quality", 75),
                                           (vision.encode_png, "compression_level", 6)])
def test_encode_argument_errors(fn, name, arg):
    with pytest.raises(TypeError, match="Input %s is not of type <class 'int'>, but got: <class 'float'>" % name):
        fn(IMG, float(arg))
    with pytest.raises(TypeError, match=name):
        fn(IMG, True)
    with pytest.raises(TypeError, match="Input image is not of type"):
        fn(IMG.tolist(), arg)
    op = "EncodeJpeg" if name == "quality" else "EncodePng"
    hi = 100 if name == "quality" else 9
    with pytest.raises(RuntimeError, match=r"%s: Invalid %s %d, should be in range of" % (op, name, hi + 1)) as e:
        fn(IMG, hi + 1)
    assert isinstance(e.value, ValueError)
    with pytest.raises(RuntimeError, match="Invalid %s" % name):
        fn(IMG, 2 ** 40)
    with pytest.raises(RuntimeError, match="%s: The type of the image data should be UINT8, but got uint16." % op):
        fn(IMG.astype(np.uint16), arg)
    with pytest.raises(RuntimeError, match="but got float64"):
        fn(np.zeros((4, 4, 3)), arg)
    with pytest.raises(RuntimeError, match="It should have two or three dimensions, but got 1 dimensions"):
        fn(np.zeros(10, np.uint8), arg)
    with pytest.raises(RuntimeError, match="but got 4 dimensions"):
        fn(np.zeros((2, 2, 2, 3), np.uint8), arg)
    with pytest.raises(RuntimeError, match="It should have 1 or 3 channels, but got 2 channels"):
        fn(np.zeros((4, 4, 2), np.uint8), arg)
    with pytest.raises(RuntimeError, match="empty"):
        fn(np.zeros((0, 4, 3), np.uint8), arg)


def test_files_round_trip(tmp_path):
    data = np.arange(300, dtype=np.int64).astype(np.uint8)
    path = str(tmp_path / "x.bin")
    assert vision.write_file(path, data) is None
    assert open(path, "rb").read() == data.tobytes()
    back = vision.read_file(path)
    assert back.dtype == np.uint8 and back.shape == (300,)
    np.testing.assert_array_equal(back, data)
    vision.write_file(path, np.zeros((0, 2), np.uint8))  # empty: any rank, truncates
    assert vision.read_file(path).shape == (0,)
    vision.write_png(str(tmp_path / "a.png"), IMG, 1)
    assert open(str(tmp_path / "a.png"), "rb").read() == vision.encode_png(IMG, 1).tobytes()
    vision.write_jpeg(str(tmp_path / "a.jpg"), IMG)
    assert open(str(tmp_path / "a.jpg"), "rb").read() == vision.encode_jpeg(IMG).tobytes()


def test_file_errors_name_the_file(tmp_path):
    missing = str(tmp_path / "none.bin")
    with pytest.raises(FileNotFoundError, match="ReadFile: Invalid file path, %s does not exist." % missing) as e:
        vision.read_file(missing)
    assert isinstance(e.value, RuntimeError)
    with pytest.raises(RuntimeError, match="is not a regular file"):
        vision.read_file(str(tmp_path))
    with pytest.raises(RuntimeError, match="WriteFile: Invalid file path, .* is not a regular file"):
        vision.write_file(str(tmp_path), np.zeros(3, np.uint8))
    with pytest.raises(RuntimeError, match="no_dir"):
        vision.write_png(str(tmp_path / "no_dir" / "a.png"), IMG)
    with pytest.raises(TypeError, match="Input filename is not of type <class 'str'>"):
        vision.read_file(tmp_path / "x")
    with pytest.raises(TypeError, match="Input data is not of type"):
        vision.write_file(str(tmp_path / "x"), b"abc")
    with pytest.raises(RuntimeError, match="WriteFile: The type of the elements of data should be UINT8, but got int8"):
        vision.write_file(str(tmp_path / "x"), np.zeros(3, np.int8))
    with pytest.raises(RuntimeError, match="It should have only one dimension, but got 2 dimensions"):
        vision.write_file(str(tmp_path / "x"), np.zeros((2, 2), np.uint8))
    with pytest.raises(RuntimeError, match="WriteJpeg: The type of the elements of image should be UINT8"):
        vision.write_jpeg(str(tmp_path / "x.jpg"), IMG.astype(np.float32))
    with pytest.raises(RuntimeError, match=r"WritePng: Invalid compression_level 10, should be in range of \[0, 9\]"):
        vision.write_png(str(tmp_path / "x.png"), IMG, 10)
    with pytest.raises(TypeError, match="Input quality"):
        vision.write_jpeg(str(tmp_path / "x.jpg"), IMG, "9")


def test_read_image_modes_against_pil(tmp_path):
    rgba = np.dstack([IMG, (np.arange(56) * 4).astype(np.uint8)[None, :].repeat(40, 0)])
    path = str(tmp_path / "rgba.png")
    Image.fromarray(rgba, "RGBA").save(path)
    un = vision.read_image(path)
    assert un.dtype == np.uint8 and un.shape == (40, 56, 3)  # MindSpore drops alpha
    np.testing.assert_array_equal(un, IMG)
    np.testing.assert_array_equal(vision.read_image(path, ImageReadMode.COLOR), IMG)
    g = vision.read_image(path, ImageReadMode.GRAYSCALE)
    assert g.shape == (40, 56, 1)
    # libpng's and PIL's RGB -> gray weights differ in rounding: within 1.
    pil_gray = np.asarray(Image.fromarray(IMG).convert("L")).astype(int)
    assert np.abs(g[:, :, 0].astype(int) - pil_gray).max() <= 1

    gpath = str(tmp_path / "g.png")
    Image.fromarray(IMG[:, :, 2]).save(gpath)
    np.testing.assert_array_equal(vision.read_image(gpath), IMG[:, :, 2:3])
    np.testing.assert_array_equal(vision.read_image(gpath, ImageReadMode.COLOR), np.repeat(IMG[:, :, 2:3], 3, 2))

    jpath = str(tmp_path / "a.jpg")
    Image.fromarray(IMG).save(jpath, quality=90)
    np.testing.assert_array_equal(vision.read_image(jpath, ImageReadMode.COLOR), np.asarray(Image.open(jpath)))

    deep = (np.arange(40 * 56, dtype=np.uint16).reshape(40, 56) * 29).astype(np.uint16)
    dpath = str(tmp_path / "d.png")
    Image.fromarray(deep.astype(np.int32), "I").convert("I;16").save(dpath)
    d = vision.read_image(dpath)
    assert d.dtype == np.uint16 and d.shape == (40, 56, 1)
    np.testing.assert_array_equal(d[:, :, 0], np.asarray(Image.open(dpath)).astype(np.uint16))
    assert vision.read_image(dpath, ImageReadMode.GRAYSCALE).dtype == np.uint8


def test_read_image_applies_exif_orientation_except_unchanged(tmp_path):
    path = str(tmp_path / "rot.jpg")
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to display
    Image.fromarray(IMG).save(path, quality=95, exif=exif.tobytes())
    stored = np.asarray(Image.open(path))
    shown = np.asarray(ImageOps.exif_transpose(Image.open(path)))
    assert shown.shape == (56, 40, 3)
    np.testing.assert_array_equal(vision.read_image(path, ImageReadMode.COLOR), shown)
    np.testing.assert_array_equal(vision.read_image(path, ImageReadMode.UNCHANGED), stored)


def test_read_image_errors(tmp_path):
    with pytest.raises(TypeError, match="Input mode is not of type"):
        vision.read_image(str(tmp_path / "a.png"), 1)
    with pytest.raises(TypeError, match="Input filename"):
        vision.read_image(None)
    with pytest.raises(FileNotFoundError, match="ReadImage: Invalid file path"):
        vision.read_image(str(tmp_path / "a.png"))
    bad = str(tmp_path / "bad.jpg")
    open(bad, "wb").write(b"not an image at all")
    with pytest.raises(RuntimeError, match="ReadImage: Failed to read file %s" % bad):
        vision.read_image(bad)
    open(bad, "wb").write(vision.encode_png(IMG).tobytes()[:200])
    with pytest.raises(RuntimeError, match="ReadImage: Failed to read file %s" % bad):
        vision.read_image(bad)


def test_image_num_channels_and_size():
    assert vision.get_image_num_channels(IMG) == 3
    assert vision.get_image_num_channels(IMG[:, :, 0]) == 1
    assert vision.get_image_num_channels(np.zeros((2, 3, 4, 5), np.float32)) == 5
    assert vision.get_image_size(IMG) == [40, 56]
    assert vision.get_image_size(IMG[:, :, 0]) == [40, 56]
    assert vision.get_image_size(np.zeros((7, 2, 3, 4))) == [2, 3]
    pil = Image.fromarray(IMG)
    assert vision.get_image_num_channels(pil) == 3 and vision.get_image_size(pil) == [40, 56]
    assert vision.get_image_num_channels(pil.convert("L")) == 1
    with pytest.raises(RuntimeError, match="GetImageNumChannels: invalid parameter, image should have at least two"):
        vision.get_image_num_channels(np.zeros(4))
    with pytest.raises(RuntimeError, match="GetImageSize: invalid parameter"):
        vision.get_image_size(np.zeros(4))
    with pytest.raises(TypeError, match="Input image is not of type"):
        vision.get_image_size([[1, 2], [3, 4]])


def test_functions_run_inside_a_map_with_workers(tmp_path):
    path = str(tmp_path / "img.mindrecord")
    w = mindrecord.FileWriter(path)
    w.add_schema({"image": {"type": "bytes"}, "label": {"type": "int32"}})
    imgs = [natural(30 + i, 44, i) for i in range(8)]
    w.write_raw_data([{"image": vision.encode_png(im).tobytes(), "label": i} for i, im in enumerate(imgs)])
    w.commit()
    ds = mindrecord.MindDataset(path, shuffle=False).map(
        [vision.Decode(), lambda im: vision.encode_jpeg(im, 90)], input_columns="image", num_parallel_workers=3)
    got = [r["image"] for r in ds.create_dict_iterator(output_numpy=True)]
    assert len(got) == 8
    for g, im in zip(got, imgs):
        np.testing.assert_array_equal(g, vision.encode_jpeg(im, 90))
    ds = mindrecord.MindDataset(path, shuffle=False).map([vision.Decode(), vision.encode_png],
                                                         input_columns="image", num_parallel_workers=4)
    for r, im in zip(ds.create_dict_iterator(output_numpy=True), imgs):
        np.testing.assert_array_equal(pil_decode(r["image"]), im)


def test_plugin_is_refused_clearly():
    with pytest.raises(NotImplementedError, match="Plugin.*cannot be loaded"):
        transforms.Plugin("pluginlib.so", "PluginDecode")
    with pytest.raises(NotImplementedError):
        transforms.Plugin("pluginlib.so", "PluginDecode", "args")
    with pytest.raises(TypeError, match="lib_path"):
        transforms.Plugin(3, "f")
    with pytest.raises(TypeError, match="user_args"):
        transforms.Plugin("a.so", "f", 5)
    assert "Plugin" in transforms.__all__


def test_codecs_and_file_reads_release_the_gil(tmp_path):
    from test_gil import longest_pause_during
    big = np.random.RandomState(0).randint(0, 256, (1500, 2000, 3), dtype=np.uint8)
    pause, secs, png = longest_pause_during(lambda: vision.encode_png(big, 9))
    assert secs > 0.05 and pause < 0.5 * secs, (pause, secs)  # the copy in holds the GIL, the encode does not
    path = str(tmp_path / "big.png")
    vision.write_file(path, png)
    pause, secs, img = longest_pause_during(lambda: vision.read_image(path))
    np.testing.assert_array_equal(img, big)
    assert secs > 0.02 and pause < 0.5 * secs, (pause, secs)
