"""RandomResizedCropWithBBox, RandomResizeWithBBox, TrivialAugmentWide and
MixUp of mindrecord.vision: eagerly against numpy / torchvision references
written from MindSpore's kernels, their argument checks, and in pipelines
with several workers."""

import numpy as np
import pytest
import torchvision.transforms.functional as F
from torchvision.transforms import InterpolationMode

import mindrecord
from mindrecord import transforms, vision
from mindrecord.vision import Inter
from image_util import chw, diff, hwc, natural, png

IMG = natural()


def ramp(h, w):
    """float32 image holding x in channel 0 and y in channel 1."""
    img = np.zeros((h, w, 3), np.float32)
    img[..., 0] = np.arange(w)[None, :]
    img[..., 1] = np.arange(h)[:, None]
    return img


def window_of(out, ow, oh):
    """The crop window (left, top, w, h) behind a bilinear resize of a ramp:
    x(j) = left - 0.5 + (j + 0.5) * w / ow away from the borders."""
    j, i = ow // 2, oh // 2
    sx = out[i, j + 1, 0] - out[i, j, 0]
    sy = out[i + 1, j, 1] - out[i, j, 1]
    left = out[i, j, 0] + 0.5 - (j + 0.5) * sx
    top = out[i, j, 1] + 0.5 - (i + 0.5) * sy
    return [int(round(v)) for v in (left, top, sx * ow, sy * oh)]


def crop_boxes(boxes, x0, y0, x1, y1):
    """MindSpore's UpdateBBoxesForCrop (bounding_box.cc)."""
    out = []
    for b in boxes:
        if b[0] > x1 or b[1] > y1 or b[0] + b[2] < x0 or b[1] + b[3] < y0:
            continue
        nx0, ny0 = max(b[0], x0) - x0, max(b[1], y0) - y0
        nx1, ny1 = min(b[0] + b[2], x1) - x0, min(b[1] + b[3], y1) - y0
        out.append([nx0, ny0, nx1 - nx0, ny1 - ny0] + list(b[4:]))
    return np.array(out, np.float32).reshape(-1, boxes.shape[1])


def test_random_resized_crop_with_bbox_cuts_and_scales_boxes():
    img = ramp(40, 50)
    boxes = np.array([[5, 5, 10, 10, 1], [30, 20, 15, 15, 2], [0, 0, 50, 40, 3]], np.float32)
    op = vision.RandomResizedCropWithBBox((16, 24), scale=(0.1, 0.6))
    dropped = 0
    for s in range(60):
        out, b = op(img, boxes, seed=s)
        assert out.shape == (16, 24, 3) and b.dtype == np.float32
        left, top, w, h = window_of(out, 24, 16)
        assert 0 <= left and left + w <= 50 and 0 <= top and top + h <= 40
        # The image is torchvision's bilinear resized crop of that window.
        u8 = natural(40, 50)
        got = vision.RandomResizedCropWithBBox((16, 24), scale=(0.1, 0.6))(u8, boxes, seed=s)[0]
        want = hwc(F.resized_crop(chw(u8), top, left, h, w, [16, 24], InterpolationMode.BILINEAR, antialias=False))
        assert diff(got, want).max() <= 2
        # ... and RandomResizedCrop's pixels for the same seed.
        np.testing.assert_array_equal(got, vision.RandomResizedCrop((16, 24), scale=(0.1, 0.6))(u8, seed=s))
        want_b = crop_boxes(boxes, left, top, left + w, top + h)
        want_b[:, [0, 2]] *= 24 / w
        want_b[:, [1, 3]] *= 16 / h
        dropped += len(boxes) - len(want_b)
        np.testing.assert_allclose(b, want_b, rtol=1e-5, atol=1e-4)
    assert dropped > 0
    # Extra columns ride along; an int size is square.
    assert vision.RandomResizedCropWithBBox(8)(IMG, boxes[:1], seed=0)[0].shape == (8, 8, 3)


def test_random_resized_crop_with_bbox_arguments():
    op = "RandomResizedCropWithBBox"
    cls = vision.RandomResizedCropWithBBox
    for bad, exc, name in [((0,), ValueError, "size"), (("a",), TypeError, "size"),
                           ((8, (0.5, 0.1)), ValueError, "scale"), ((8, 0.5), TypeError, "scale"),
                           ((8, (0.1, 0.0)), ValueError, "scale"), ((8, (0.1, 1), (0, 1)), ValueError, "ratio"),
                           ((8, (0.1, 1), (2, 1)), ValueError, "ratio"), ((8, (0.1, 1), 1.0), TypeError, "ratio"),
                           ((8, (0.1, 1), (1, 2), "wrap"), TypeError, "interpolation"),
                           ((8, (0.1, 1), (1, 2), Inter.NEAREST, 0), ValueError, "max_attempts"),
                           ((8, (0.1, 1), (1, 2), Inter.NEAREST, 2.5), TypeError, "max_attempts")]:
        with pytest.raises(exc, match="%s: %s" % (op, name)):
            cls(*bad)
    cls(8, scale=(0.0, 0.5))(IMG, np.zeros((0, 4), np.float32), seed=1)  # MindSpore allows scale[0] == 0
    with pytest.raises(ValueError, match="RandomResizedCropWithBBox: box 0 .* out of bounds"):
        cls(8)(IMG, np.array([[60, 0, 10, 5]], np.float32))
    with pytest.raises(ValueError, match="takes 2 input"):
        cls(8)(IMG)


def test_random_resize_with_bbox_uses_each_interpolation():
    boxes = np.array([[4, 2, 20, 10, 9]], np.float32)
    want = {vision.ResizeWithBBox((20, 30), m)(IMG, boxes)[0].tobytes()
            for m in (Inter.BILINEAR, Inter.NEAREST, Inter.BICUBIC, Inter.AREA)}
    outs = set()
    for s in range(60):
        out, b = vision.RandomResizeWithBBox((20, 30))(IMG, boxes, seed=s)
        np.testing.assert_array_equal(out, vision.RandomResize((20, 30))(IMG, seed=s))  # RandomResize's draw
        np.testing.assert_allclose(b, [[4 * 30 / 64, 2 * 20 / 48, 20 * 30 / 64, 10 * 20 / 48, 9]], rtol=1e-6)
        outs.add(out.tobytes())
    assert outs == want
    out, b = vision.RandomResizeWithBBox(24)(IMG, boxes, seed=1)
    assert out.shape == (24, 32, 3)
    np.testing.assert_allclose(b[0, :4], boxes[0, :4] / 2, rtol=1e-6)
    with pytest.raises(ValueError, match="RandomResizeWithBBox: size"):
        vision.RandomResizeWithBBox(0)
    with pytest.raises(TypeError, match="RandomResizeWithBBox: size"):
        vision.RandomResizeWithBBox((1, 2, 3))


def shift_x(img, dx, fill):
    out = np.full_like(img, fill)
    if dx >= 0:
        out[:, dx:] = img[:, :img.shape[1] - dx]
    else:
        out[:, :dx] = img[:, -dx:]
    return out


def test_trivial_augment_wide_draws_from_its_space():
    # Two bins: every ranged step is at its first or last magnitude, so the
    # non-geometric outcomes are known exactly (trivial_augment_wide_op.cc
    # GetSpace: posterize 8..2 bits, solarize 255..0, translate 0..32 px).
    img = np.maximum(IMG, 10)  # AutoContrast changes it; some pixels are 255 (Solarize at 255)
    assert img.max() == 255
    ref = {
        "identity": img,
        "posterize2": img & 0xC0,
        "solarize0": 255 - img,
        "solarize255": np.where(img >= 255, 255 - img, img),
        "translate+32": shift_x(img, 32, 7), "translate-32": shift_x(img, -32, 7),
        "equalize": vision.Equalize()(img),
        "autocontrast": vision.AutoContrast()(img),
        "brightness1.99": hwc(F.adjust_brightness(chw(img), 1.99)),
        "brightness0.01": hwc(F.adjust_brightness(chw(img), 0.01)),
    }
    op = vision.TrivialAugmentWide(num_magnitude_bins=2, fill_value=7)
    seen = {}
    for s in range(500):
        out = op(img, seed=s)
        assert out.shape == img.shape and out.dtype == np.uint8
        for k, v in ref.items():
            if diff(out, v).max() <= 1:
                seen[k] = seen.get(k, 0) + 1
                break
    # Identity is drawn by Identity, and by bin 0 of most ranged steps.
    assert set(seen) == set(ref), sorted(seen)
    assert seen["identity"] > 100
    # Different seeds differ; one seed repeats.
    default = vision.TrivialAugmentWide()
    assert len({default(img, seed=s).tobytes() for s in range(40)}) > 20
    np.testing.assert_array_equal(default(img, seed=5), default(img, seed=5))


def test_trivial_augment_wide_arguments():
    cls = vision.TrivialAugmentWide
    with pytest.raises(ValueError, match="TrivialAugmentWide: num_magnitude_bins"):
        cls(1)
    with pytest.raises(ValueError, match="TrivialAugmentWide: num_magnitude_bins"):
        cls(2 ** 24 + 1)
    with pytest.raises(TypeError, match="TrivialAugmentWide: num_magnitude_bins"):
        cls(3.0)
    with pytest.raises(TypeError, match="TrivialAugmentWide: interpolation"):
        cls(interpolation="wrap")
    with pytest.raises(ValueError, match="TrivialAugmentWide: fill_value"):
        cls(fill_value=256)
    with pytest.raises(TypeError, match="TrivialAugmentWide: fill_value"):
        cls(fill_value=(1, 2))
    with pytest.raises(ValueError, match="TrivialAugmentWide"):
        cls()(IMG[..., :1])
    cls(2 ** 24, Inter.BILINEAR, (1, 2, 3))(IMG, seed=0)


def test_mixup_matches_mix_up_single():
    rs = np.random.RandomState(0)
    n = 5
    images = rs.randint(0, 256, (n, 6, 4, 3)).astype(np.uint8)
    labels = np.eye(n, dtype=np.int32)
    op = vision.MixUp(batch_size=n, alpha=0.5)
    lams = []
    for s in range(200):
        out, lab = op(images, labels, seed=s)
        assert out.dtype == np.float64 and lab.dtype == np.float64
        assert out.shape == images.shape and lab.shape == labels.shape
        lam = lab[np.arange(n), np.arange(n)]  # own class weight
        nxt = (np.arange(n) + 1) % n
        # mix_up_single: lam * x + (1 - lam) * x[[1, ..., n-1, 0]].
        np.testing.assert_allclose(lab[np.arange(n), nxt], 1 - lam, atol=1e-12)
        want = lam[:, None, None, None] * images + (1 - lam[:, None, None, None]) * images[nxt]
        np.testing.assert_allclose(out, want, rtol=0, atol=1e-9)
        lams.extend(lam)
    lams = np.array(lams)
    # Beta(1/2, 1/2): mean 1/2, variance 1 / (4 (2a + 1)) = 1/8; one lam per image.
    assert abs(lams.mean() - 0.5) < 0.03 and abs(lams.var() - 0.125) < 0.02
    assert len(set(np.round(lams[:n], 9))) == n


def test_mixup_arguments():
    with pytest.raises(TypeError, match="MixUp: batch_size"):
        vision.MixUp(2.0, 1.0)
    with pytest.raises(ValueError, match="MixUp: batch_size"):
        vision.MixUp(0, 1.0)
    with pytest.raises(ValueError, match="MixUp: alpha"):
        vision.MixUp(2, 0.0)
    with pytest.raises(TypeError, match="MixUp: alpha"):
        vision.MixUp(2, "1")
    with pytest.raises(TypeError, match="MixUp: is_single"):
        vision.MixUp(2, 1.0, 1)
    with pytest.raises(ValueError, match="MixUp: is_single=False"):
        vision.MixUp(2, 1.0, False)
    op = vision.MixUp(4, 1.0)
    images = np.zeros((4, 2, 2, 3), np.uint8)
    with pytest.raises(ValueError, match="MixUp: images"):
        op(images[:3], np.eye(4))  # a short last batch
    with pytest.raises(ValueError, match="MixUp: labels"):
        op(images, np.arange(4))


@pytest.fixture(scope="module")
def det_file(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("det") / "det.mindrecord")
    w = mindrecord.FileWriter(path)
    w.add_schema({"image": {"type": "bytes"}, "bbox": {"type": "float32", "shape": [-1, 5]},
                  "label": {"type": "int32"}})
    rows = []
    for i in range(12):
        img = natural(40 + i, 56, i)
        rows.append({"image": png(img), "label": i % 4,
                     "bbox": np.array([[1, 2, 20, 15, 1], [30, 10, 20 + i % 3, 25, 2]][:1 + i % 2], np.float32)})
    w.write_raw_data(rows)
    w.commit()
    return path


def test_bbox_ops_in_pipelines_are_reproducible(det_file):
    def run(workers):
        ds = mindrecord.MindDataset(det_file, columns_list=["image", "bbox"], shuffle=False,
                                    num_parallel_workers=workers, seed=11)
        ds = ds.map(vision.Decode(), input_columns="image")
        ds = ds.map([vision.RandomResizedCropWithBBox(24, scale=(0.2, 1.0)), vision.RandomResizeWithBBox((20, 30))],
                    input_columns=["image", "bbox"])
        return list(ds.create_dict_iterator(num_epochs=1, output_numpy=True))
    one, three = run(1), run(3)
    assert len(one) == 12
    for a, b in zip(one, three):
        np.testing.assert_array_equal(a["image"], b["image"])
        np.testing.assert_array_equal(a["bbox"], b["bbox"])
        assert a["image"].shape == (20, 30, 3) and a["bbox"].dtype == np.float32
        bx = a["bbox"]
        assert np.all(bx[:, 0] >= 0) and np.all(bx[:, 0] + bx[:, 2] <= 30 + 1e-3)
        assert np.all(bx[:, 1] >= 0) and np.all(bx[:, 1] + bx[:, 3] <= 20 + 1e-3)


def test_trivial_augment_wide_and_mixup_in_pipelines(det_file):
    def run(workers):
        ds = mindrecord.MindDataset(det_file, columns_list=["image", "label"], shuffle=False,
                                    num_parallel_workers=workers, seed=5)
        ds = ds.map([vision.Decode(), vision.Resize((16, 16)), vision.TrivialAugmentWide()], input_columns="image")
        ds = ds.map(transforms.OneHot(4), input_columns="label")
        ds = ds.batch(4, drop_remainder=True).map(vision.MixUp(4, 0.4), input_columns=["image", "label"])
        return list(ds.create_dict_iterator(num_epochs=1, output_numpy=True))
    one, three = run(1), run(3)
    assert len(one) == 3
    for a, b in zip(one, three):
        np.testing.assert_array_equal(a["image"], b["image"])
        np.testing.assert_array_equal(a["label"], b["label"])
        assert a["image"].shape == (4, 16, 16, 3) and a["image"].dtype == np.float64
        np.testing.assert_allclose(a["label"].sum(axis=1), 1.0)
    # A short last batch is refused as MindSpore's numpy broadcast refuses it, naming the op.
    ds = mindrecord.MindDataset(det_file, columns_list=["image", "label"], shuffle=False)
    ds = ds.map([vision.Decode(), vision.Resize((8, 8))], input_columns="image")
    ds = ds.map(transforms.OneHot(4), input_columns="label").batch(5)
    with pytest.raises(Exception, match="MixUp"):
        list(ds.map(vision.MixUp(5, 1.0), input_columns=["image", "label"]).create_dict_iterator(num_epochs=1))
