"""mindrecord.vision.FiveCrop / TenCrop against torchvision's five_crop /
ten_crop on PIL images (the functions MindSpore's PIL ops mirror),
SlicePatches against numpy padding and slicing, their argument errors, and
the ops in multi-worker pipelines: named output columns, and MindSpore's
documented `lambda *images: np.stack(...)` after the crops."""

import numpy as np
import pytest
import torchvision.transforms.functional as F
from PIL import Image

import mindrecord
from mindrecord import transforms, vision
from mindrecord.vision import SliceMode

from image_util import natural, png_dataset

IMG = natural(47, 61)  # odd sizes: the centre crop rounds a half


def test_five_crop_equals_torchvision():
    pil = Image.fromarray(IMG)
    for size in (20, (11, 30), (47, 61), (46, 1)):
        got = vision.FiveCrop(size)(IMG)
        want = F.five_crop(pil, size)
        assert isinstance(got, tuple) and len(got) == 5
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, np.asarray(w))
    # The centre rounds halves to even (Python's round): 47 - 20 = 27 -> 14, 61 - 20 = 41 -> 20.
    np.testing.assert_array_equal(vision.FiveCrop(20)(IMG)[4], IMG[14:34, 20:40])
    np.testing.assert_array_equal(vision.FiveCrop(20)(IMG[:45, :59])[4], IMG[12:32, 20:40])  # 25 -> 12, 39 -> 20


def test_ten_crop_equals_torchvision():
    pil = Image.fromarray(IMG)
    for vertical in (False, True):
        got = vision.TenCrop((13, 21), vertical)(IMG)
        want = F.ten_crop(pil, (13, 21), vertical)
        assert len(got) == 10
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, np.asarray(w))


def test_crops_take_any_numeric_type_and_pil_images():
    f = IMG[:, :, 1].astype(np.float64) / 3
    for g, w in zip(vision.TenCrop(9)(f), F.ten_crop(Image.fromarray(IMG[:, :, 1]), 9)):
        np.testing.assert_array_equal(g, np.asarray(w) / 3)
    out = vision.FiveCrop(10)(Image.fromarray(IMG))  # MindSpore's ops take PIL images and give PIL images
    assert all(isinstance(o, Image.Image) and o.size == (10, 10) for o in out)
    np.testing.assert_array_equal(np.asarray(out[1]), IMG[:10, 51:])


def test_crop_errors():
    with pytest.raises(ValueError, match="FiveCrop.*larger than the image"):
        vision.FiveCrop((48, 10))(IMG)
    with pytest.raises(ValueError, match="TenCrop.*larger than the image"):
        vision.TenCrop(62)(IMG)
    with pytest.raises(Exception, match="FiveCrop"):
        vision.FiveCrop(2)(np.zeros(5, np.uint8))
    with pytest.raises(ValueError, match="FiveCrop: size"):
        vision.FiveCrop(0)
    with pytest.raises(ValueError, match="FiveCrop: size"):
        vision.FiveCrop((1, 2 ** 20 + 1))  # MindSpore's bound is 2^24; the pipeline's 2^20
    with pytest.raises(TypeError, match="FiveCrop: size"):
        vision.FiveCrop(2.0)
    with pytest.raises(TypeError, match="FiveCrop: size"):
        vision.FiveCrop((1, 2, 3))
    with pytest.raises(TypeError, match="TenCrop: size"):
        vision.TenCrop([True, 3])
    with pytest.raises(TypeError, match="TenCrop: use_vertical_flip"):
        vision.TenCrop(3, 1)
    assert vision.TenCrop((2, 3)).spec() == {"op": "TenCrop", "size": [2, 3], "use_vertical_flip": False}


def test_slice_patches_equals_numpy():
    for nh, nw in ((3, 4), (2, 7), (47, 1), (5, 61)):
        ph, pw = -(-47 // nh), -(-61 // nw)
        padded = np.pad(IMG, ((0, ph * nh - 47), (0, pw * nw - 61), (0, 0)), constant_values=9)
        got = vision.SlicePatches(nh, nw, fill_value=9)(IMG)
        assert len(got) == nh * nw
        for k, g in enumerate(got):
            i, j = divmod(k, nw)
            np.testing.assert_array_equal(g, padded[i * ph:(i + 1) * ph, j * pw:(j + 1) * pw])
        dh, dw = 47 // nh, 61 // nw
        got = vision.SlicePatches(nh, nw, SliceMode.DROP, 9)(IMG)
        for k, g in enumerate(got):
            i, j = divmod(k, nw)
            np.testing.assert_array_equal(g, IMG[i * dh:(i + 1) * dh, j * dw:(j + 1) * dw])
    np.testing.assert_array_equal(vision.SlicePatches()(IMG), IMG)  # 1 x 1: the image itself
    gray = IMG[:, :, 0].astype(np.int32) - 100
    got = vision.SlicePatches(2, 2, fill_value=255)(gray)
    np.testing.assert_array_equal(got[3], np.pad(gray[24:, 31:], ((0, 1), (0, 1)), constant_values=255))


def test_slice_patches_errors():
    with pytest.raises(ValueError, match="SlicePatches.*do not fit"):
        vision.SlicePatches(48, 1)(IMG)
    with pytest.raises(Exception, match="SlicePatches"):
        vision.SlicePatches(2, 2)(np.zeros((2, 2, 2, 2), np.uint8))
    with pytest.raises(TypeError, match="SlicePatches: num_height"):
        vision.SlicePatches(2.0)
    with pytest.raises(ValueError, match="SlicePatches: num_width"):
        vision.SlicePatches(1, 0)
    with pytest.raises(TypeError, match="SlicePatches: slice_mode"):
        vision.SlicePatches(2, 2, "wrap")
    with pytest.raises(ValueError, match="SlicePatches: fill_value"):
        vision.SlicePatches(2, 2, SliceMode.PAD, 256)
    with pytest.raises(ValueError, match="SlicePatches: num_height . num_width"):
        vision.SlicePatches(2048, 1024)
    assert vision.SlicePatches(2, 3, SliceMode.DROP).spec() == {
        "op": "SlicePatches", "num_height": 2, "num_width": 3, "slice_mode": "drop", "fill_value": 0}


@pytest.fixture(scope="module")
def images_path(tmp_path_factory):
    return png_dataset(str(tmp_path_factory.mktemp("patches") / "img.mindrecord"),
                       [natural(40 + i, 50, i) for i in range(6)])


def rows(path, workers, ops, **kw):
    ds = mindrecord.MindDataset(path, shuffle=False, num_parallel_workers=workers, seed=3)
    ds = ds.map(ops, input_columns="image", num_parallel_workers=workers, **kw)
    return list(ds.create_dict_iterator(output_numpy=True))


@pytest.mark.parametrize("workers", [1, 3])
def test_pipeline_crops_as_columns_and_stacked(images_path, workers):
    names = ["tl", "tr", "bl", "br", "c"]
    got = rows(images_path, workers, [vision.Decode(), vision.FiveCrop(16)], output_columns=names)
    assert len(got) == 6 and list(got[0]) == names + ["label"]  # MindSpore's order: outputs, then the rest
    for r in got:
        img = natural(40 + int(r["label"]), 50, int(r["label"]))
        for name, want in zip(names, vision.FiveCrop(16)(img)):
            np.testing.assert_array_equal(r[name], want)
    # MindSpore's documented use: a callable stacks the crops, in a Compose or a plain list.
    stack = lambda *images: np.stack([vision.ToTensor()(im) for im in images])  # noqa: E731
    for ops in ([vision.Decode(), vision.TenCrop(12, True), stack],
                transforms.Compose([vision.Decode(), vision.TenCrop(12, True), stack])):
        got = rows(images_path, workers, ops)
        for r in got:
            img = natural(40 + int(r["label"]), 50, int(r["label"]))
            assert r["image"].shape == (10, 3, 12, 12) and r["image"].dtype == np.float32
            want = np.stack([vision.ToTensor()(c) for c in vision.TenCrop(12, True)(img)])
            np.testing.assert_array_equal(r["image"], want)


@pytest.mark.parametrize("workers", [1, 3])
def test_pipeline_slice_patches_columns(images_path, workers):
    cols = ["img%d" % k for k in range(6)]
    got = rows(images_path, workers, [vision.Decode(), vision.SlicePatches(2, 3, SliceMode.DROP)],
               output_columns=cols)
    for r in got:
        img = natural(40 + int(r["label"]), 50, int(r["label"]))
        for c, want in zip(cols, vision.SlicePatches(2, 3, SliceMode.DROP)(img)):
            np.testing.assert_array_equal(r[c], want)
    with pytest.raises(Exception, match="output_columns"):
        rows(images_path, workers, [vision.Decode(), vision.SlicePatches(2, 3)], output_columns=["a", "b"])
