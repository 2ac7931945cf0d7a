"""mindrecord.vision's fixed-parameter ops (HorizontalFlip, VerticalFlip,
Crop, ResizedCrop, RandomGrayscale, Erase, ToType) against numpy, PIL and
torchvision.transforms.functional, their argument errors, and one pipeline."""

import numpy as np
import pytest
import torch
import torchvision.transforms.functional as F
from PIL import Image
from torchvision.transforms import InterpolationMode

import mindrecord
from mindrecord import vision
from mindrecord.vision import Inter
from image_util import chw, natural, png_dataset


IMG = natural()


def test_fixed_flips_equal_numpy():
    # Exact: a flip only moves pixels. Any dtype, HW too.
    np.testing.assert_array_equal(vision.HorizontalFlip()(IMG), IMG[:, ::-1])
    np.testing.assert_array_equal(vision.VerticalFlip()(IMG), IMG[::-1])
    f = IMG[:, :, 0].astype(np.float32)
    np.testing.assert_array_equal(vision.HorizontalFlip()(f), f[:, ::-1])
    np.testing.assert_array_equal(vision.VerticalFlip()(f), f[::-1])
    with pytest.raises(Exception, match="HorizontalFlip"):
        vision.HorizontalFlip()(np.zeros(5, np.uint8))


def test_crop_equals_slicing_and_torchvision():
    out = vision.Crop((3, 5), (10, 20))(IMG)
    np.testing.assert_array_equal(out, IMG[3:13, 5:25])
    np.testing.assert_array_equal(out, F.crop(chw(IMG), 3, 5, 10, 20).permute(1, 2, 0).numpy())
    np.testing.assert_array_equal(vision.Crop([0, 0], 7)(IMG), IMG[:7, :7])
    np.testing.assert_array_equal(vision.Crop((40, 60), (8, 4))(IMG), IMG[40:, 60:])  # touches the corner
    with pytest.raises(Exception, match="Crop.*exceeds"):
        vision.Crop((41, 0), (8, 4))(IMG)
    with pytest.raises(Exception, match="Crop.*exceeds"):
        vision.Crop((0, 61), (8, 4))(IMG)
    with pytest.raises(TypeError, match="Crop: coordinates"):
        vision.Crop(3, 4)
    with pytest.raises(ValueError, match="Crop: coordinates"):
        vision.Crop((-1, 0), 4)
    with pytest.raises(ValueError, match="Crop: size"):
        vision.Crop((0, 0), 0)
    with pytest.raises(TypeError, match="Crop: size"):
        vision.Crop((0, 0), 2.5)


@pytest.mark.parametrize("inter,mode,tol", [(Inter.NEAREST, InterpolationMode.NEAREST, 0),
                                            (Inter.BILINEAR, InterpolationMode.BILINEAR, 1)])
def test_resized_crop_equals_crop_then_resize(inter, mode, tol):
    out = vision.ResizedCrop(4, 6, 30, 40, (24, 32), inter)(IMG)
    # Identical to our own Crop + Resize, and torchvision's resized_crop
    # (OpenCV vs torch rounding: bilinear within 1).
    np.testing.assert_array_equal(out, vision.Resize((24, 32), inter)(IMG[4:34, 6:46]))
    ref = F.resized_crop(chw(IMG), 4, 6, 30, 40, [24, 32], mode, antialias=False).permute(1, 2, 0).numpy()
    assert np.abs(out.astype(int) - ref.astype(int)).max() <= tol
    # An int size, MindSpore's rule: the side given follows the image's
    # orientation (IMG is wider than tall: the height), the other keeps the
    # window's ratio, rounded: 30x40 -> 15x20, and a tall 40x10 window -> 15x4.
    assert IMG.shape[0] < IMG.shape[1]
    assert vision.ResizedCrop(4, 6, 30, 40, 15)(IMG).shape == (15, 20, 3)
    assert vision.ResizedCrop(0, 0, 40, 10, 15)(IMG).shape == (15, 4, 3)
    tall = np.ascontiguousarray(IMG.transpose(1, 0, 2))
    assert vision.ResizedCrop(0, 0, 40, 10, 15)(tall).shape == (60, 15, 3)


def test_resized_crop_errors():
    with pytest.raises(Exception, match="ResizedCrop.*exceeds"):
        vision.ResizedCrop(20, 0, 30, 10, 8)(IMG)
    with pytest.raises(ValueError, match="ResizedCrop: top"):
        vision.ResizedCrop(-1, 0, 3, 3, 8)
    with pytest.raises(ValueError, match="ResizedCrop: height"):
        vision.ResizedCrop(0, 0, 0, 3, 8)
    with pytest.raises(TypeError, match="ResizedCrop: width"):
        vision.ResizedCrop(0, 0, 3, 3.0, 8)
    with pytest.raises(TypeError, match="ResizedCrop: interpolation"):
        vision.ResizedCrop(0, 0, 3, 3, 8, "lanczos")


def test_random_grayscale_matches_pil_and_probability():
    gray = np.asarray(Image.fromarray(IMG).convert("L"))
    out = vision.RandomGrayscale(1.0)(IMG)
    assert out.shape == IMG.shape
    for c in range(3):
        assert np.abs(out[:, :, c].astype(int) - gray.astype(int)).max() <= 1  # rounding of the luma
    np.testing.assert_array_equal(vision.RandomGrayscale(0.0)(IMG), IMG)
    hits = sum(not np.array_equal(vision.RandomGrayscale(0.3)(IMG, seed=s), IMG) for s in range(400))
    assert 80 <= hits <= 160  # 0.3 * 400 = 120, > 4 sigma margin
    one = IMG[:, :, :1]
    np.testing.assert_array_equal(vision.RandomGrayscale(1.0)(one), one)
    with pytest.raises(ValueError, match="RandomGrayscale: prob"):
        vision.RandomGrayscale(1.5)


def test_erase_equals_torchvision():
    out = vision.Erase(5, 7, 10, 12, (10, 20, 30))(IMG)
    ref = F.erase(chw(IMG), 5, 7, 10, 12, torch.tensor([10, 20, 30], dtype=torch.uint8).view(3, 1, 1))
    np.testing.assert_array_equal(out, ref.permute(1, 2, 0).numpy())
    want = IMG.copy()
    want[40:, 50:] = 9
    # A box running past the edge is clipped; one larger than the image is an
    # error (MindSpore's rule).
    np.testing.assert_array_equal(vision.Erase(40, 50, 48, 64, 9, inplace=True)(IMG), want)
    with pytest.raises(Exception, match="Erase.*larger than the image"):
        vision.Erase(40, 50, 49, 10, 9)(IMG)
    f = IMG.astype(np.float32)
    want = f.copy()
    want[0:2, 0:3] = 0.5
    np.testing.assert_array_equal(vision.Erase(0, 0, 2, 3, 0.5)(f), want)
    with pytest.raises(Exception, match="Erase"):
        vision.Erase(0, 0, 2, 2)(IMG[:, :, 0])
    with pytest.raises(ValueError, match="Erase: value"):
        vision.Erase(0, 0, 2, 2, 256)
    with pytest.raises(TypeError, match="Erase: value"):
        vision.Erase(0, 0, 2, 2, (1, 2))
    with pytest.raises(TypeError, match="Erase: inplace"):
        vision.Erase(0, 0, 2, 2, 0, 1)
    with pytest.raises(ValueError, match="Erase: width"):
        vision.Erase(0, 0, 2, 0)


def test_to_type_casts_like_numpy():
    out = vision.ToType(np.float32)(IMG)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, IMG.astype(np.float32))
    assert vision.ToType("int32")(IMG).dtype == np.int32
    with pytest.raises(TypeError, match="ToType: data_type"):
        vision.ToType("complex64")


def test_ops_in_a_pipeline_equal_eager(tmp_path):
    imgs = [natural(50 + i, 70, i) for i in range(6)]
    path = png_dataset(str(tmp_path / "img.mindrecord"), imgs)
    ops = [vision.Decode(), vision.HorizontalFlip(), vision.VerticalFlip(), vision.Crop((2, 3), (40, 60)),
           vision.ResizedCrop(1, 2, 30, 50, (20, 24)), vision.Erase(2, 2, 5, 6, (1, 2, 3)),
           vision.RandomGrayscale(1.0), vision.ToType(np.float32)]
    ds = mindrecord.MindDataset(path, shuffle=False).map(ops, input_columns="image").batch(3)
    got = np.concatenate([b["image"] for b in ds.create_dict_iterator(output_numpy=True)])
    assert got.shape == (6, 20, 24, 3) and got.dtype == np.float32
    for g, img in zip(got, imgs):
        x = img
        for op in ops[1:]:
            x = op(x)
        np.testing.assert_array_equal(g, x)


def test_pad_to_size_equals_numpy_pad():
    # Centred by default: (60 - 48) // 2 = 6 on top, (70 - 64) // 2 = 3 left.
    want = np.pad(IMG, ((6, 6), (3, 3), (0, 0)), constant_values=7)
    np.testing.assert_array_equal(vision.PadToSize((60, 70), fill_value=7)(IMG), want)
    want = np.pad(IMG, ((2, 10), (5, 1), (0, 0)), mode="edge")
    np.testing.assert_array_equal(vision.PadToSize((60, 70), (2, 5), padding_mode=vision.Border.EDGE)(IMG), want)
    np.testing.assert_array_equal(vision.PadToSize(80, 1, padding_mode=vision.Border.SYMMETRIC)(IMG),
                                  np.pad(IMG, ((1, 31), (1, 15), (0, 0)), mode="symmetric"))
    rgb = vision.PadToSize((50, 64), (0, 0), fill_value=(1, 2, 3))(IMG)
    np.testing.assert_array_equal(rgb[48:], np.broadcast_to(np.array([1, 2, 3], np.uint8), (2, 64, 3)))
    with pytest.raises(Exception, match="PadToSize.*smaller"):
        vision.PadToSize((40, 70))(IMG)
    with pytest.raises(Exception, match="PadToSize.*offset"):
        vision.PadToSize((50, 70), (3, 0))(IMG)
    with pytest.raises(ValueError, match="PadToSize: offset"):
        vision.PadToSize(10, -1)
    with pytest.raises(TypeError, match="PadToSize: offset"):
        vision.PadToSize(10, (1, 2, 3))
    with pytest.raises(ValueError, match="PadToSize: padding_mode"):
        vision.PadToSize(10, padding_mode="wrap")
    with pytest.raises(ValueError, match="PadToSize: fill_value"):
        vision.PadToSize(10, fill_value=300)


def test_random_resize_uses_each_interpolation():
    outs = {vision.RandomResize((20, 30))(IMG, seed=s).tobytes() for s in range(60)}
    want = {vision.Resize((20, 30), m)(IMG).tobytes()
            for m in (Inter.BILINEAR, Inter.NEAREST, Inter.BICUBIC, Inter.AREA)}
    assert outs == want  # every draw is one of the 4 modes, and all 4 occur
    assert vision.RandomResize(24)(IMG, seed=1).shape == (24, 32, 3)
    with pytest.raises(ValueError, match="RandomResize: size"):
        vision.RandomResize(0)


def test_to_pil_eagerly_and_in_a_pipeline(tmp_path):
    # By hand: PIL.Image.fromarray's image (mode from the dtype); PIL images pass.
    pil = vision.ToPIL()(IMG)
    assert isinstance(pil, Image.Image) and pil.mode == "RGB" and pil.size == (64, 48)
    np.testing.assert_array_equal(np.asarray(pil), IMG)
    assert vision.ToPIL()(IMG[:, :, 0]).mode == "L"
    assert vision.ToPIL()(pil) is pil
    with pytest.raises(TypeError, match="ToPIL.*numpy.ndarray or PIL"):
        vision.ToPIL()(IMG.tolist())
    with pytest.raises(Exception, match="ToPIL: expected a decoded"):
        vision.ToPIL()(np.zeros((2, 2, 5), np.uint8))
    # In a pipeline (MindSpore's Compose([ToPIL(), RandomHorizontalFlip(...), ToTensor()])
    # pattern): the ops after it take the image as an array.
    path = png_dataset(str(tmp_path / "img.mindrecord"), [IMG])
    ops = [vision.Decode(), vision.ToPIL(), vision.RandomHorizontalFlip(1.0), vision.ToTensor()]
    (row,) = list(mindrecord.MindDataset(path).map(ops, input_columns="image").create_dict_iterator(output_numpy=True))
    np.testing.assert_allclose(row["image"], IMG[:, ::-1].transpose(2, 0, 1) / 255.0, atol=1e-6)
    # Before Decode the column is bytes: an error naming ToPIL, not a silent pass.
    ds = mindrecord.MindDataset(path).map([vision.ToPIL()], input_columns="image")
    with pytest.raises(Exception, match="ToPIL"):
        list(ds.create_dict_iterator(output_numpy=True))
