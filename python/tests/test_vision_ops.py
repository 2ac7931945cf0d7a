"""mindrecord.vision's augmentation ops called as MindSpore's are (eagerly on
numpy arrays, and in MindDataset.map), each against an independent
reference: numpy, PIL, or torchvision's functional op with the same
parameters, within the tolerance stated at each check."""
import io

import numpy as np
import pytest
import torch
import torchvision.transforms.functional as F
from PIL import Image
from torchvision.transforms import InterpolationMode

import mindrecord
from mindrecord import vision
from mindrecord.vision import Border, ConvertMode, Inter
from image_util import natural, chw, hwc, diff, binomial_ok, png_dataset







IMG = natural()


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric"])
def test_pad_matches_numpy(mode):
    out = vision.Pad((3, 1, 2, 4), fill_value=(7, 8, 9), padding_mode=getattr(Border, mode.upper()))(IMG)
    if mode == "constant":
        ref = np.stack([np.pad(IMG[..., c], ((1, 4), (3, 2)), constant_values=7 + c) for c in range(3)], -1)
    else:
        ref = np.pad(IMG, ((1, 4), (3, 2), (0, 0)), mode=mode)
    np.testing.assert_array_equal(out, ref)  # exact
    np.testing.assert_array_equal(vision.Pad(2)(IMG), np.pad(IMG, ((2, 2), (2, 2), (0, 0))))
    np.testing.assert_array_equal(vision.Pad([1, 2])(IMG), np.pad(IMG, ((2, 2), (1, 1), (0, 0))))


def test_rescale_and_flip_match_numpy():
    out = vision.Rescale(1.0 / 255.0, -0.5)(IMG)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, IMG / 255.0 - 0.5, atol=1e-6)
    np.testing.assert_array_equal(vision.RandomVerticalFlip(1.0)(IMG), IMG[::-1])
    np.testing.assert_array_equal(vision.RandomVerticalFlip(0.0)(IMG), IMG)
    flips = sum(not np.array_equal(vision.RandomVerticalFlip(0.3)(IMG, seed=s), IMG) for s in range(2000))
    assert binomial_ok(flips, 2000, 0.3)


@pytest.mark.parametrize("factor", [0.3, 1.7])
def test_color_adjust_matches_torchvision(factor):
    f = (factor, factor)
    # brightness and contrast within 1 level (rounding vs truncation), saturation within 2.
    assert diff(vision.RandomColorAdjust(brightness=f)(IMG), hwc(F.adjust_brightness(chw(IMG), factor))).max() <= 1
    assert diff(vision.RandomColorAdjust(contrast=f)(IMG), hwc(F.adjust_contrast(chw(IMG), factor))).max() <= 1
    assert diff(vision.RandomColorAdjust(saturation=f)(IMG), hwc(F.adjust_saturation(chw(IMG), factor))).max() <= 2


@pytest.mark.parametrize("hue", [-0.3, 0.1, 0.45])
def test_hue_matches_torchvision(hue):
    # MindSpore's kernel shifts hue in OpenCV's 8-bit HSV (256 hue steps),
    # torchvision in float HSV: mean difference under 1.5 levels, none over 16.
    d = diff(vision.RandomColorAdjust(hue=(hue, hue))(IMG), hwc(F.adjust_hue(chw(IMG), hue)))
    assert d.mean() < 1.5 and d.max() <= 16, (d.mean(), d.max())


def test_random_color_adjust_draws_and_checks():
    op = vision.RandomColorAdjust(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1)
    assert op.spec()["brightness"] == [0.6, 1.4] and op.spec()["hue"] == [-0.1, 0.1]
    outs = [op(IMG, seed=s) for s in range(8)]
    np.testing.assert_array_equal(op(IMG, seed=3), outs[3])
    assert len({o.tobytes() for o in outs}) == 8
    with pytest.raises(ValueError, match="RandomColorAdjust: hue"):
        vision.RandomColorAdjust(hue=0.6)
    with pytest.raises(ValueError, match="RandomColorAdjust: brightness"):
        vision.RandomColorAdjust(brightness=-1)
    with pytest.raises(ValueError, match="min <= max"):
        vision.RandomColorAdjust(contrast=(1.5, 0.5))
    with pytest.raises(TypeError, match="saturation"):
        vision.RandomColorAdjust(saturation="high")


@pytest.mark.parametrize("angle", [17.0, -33.0])
def test_rotation_matches_torchvision(angle):
    near = vision.RandomRotation((angle, angle))(IMG)  # MindSpore's default resample is NEAREST
    ref = hwc(F.rotate(chw(IMG), angle, interpolation=InterpolationMode.NEAREST))
    assert (diff(near, ref) > 1).mean() < 0.005  # nearest: ties at half pixels may pick the neighbour
    lin = vision.RandomRotation((angle, angle), resample=Inter.BILINEAR)(IMG)
    d = diff(lin, hwc(F.rotate(chw(IMG), angle, interpolation=InterpolationMode.BILINEAR)))
    assert d.max() <= 6 and d.mean() < 0.3
    # expand: torchvision's output size, up to a pixel of rounding.
    big = vision.RandomRotation((angle, angle), expand=True)(IMG)
    ref_big = F.rotate(chw(IMG), angle, expand=True)
    assert abs(big.shape[0] - ref_big.shape[1]) <= 1 and abs(big.shape[1] - ref_big.shape[2]) <= 1


def test_rotation_right_angle_is_numpy_rot90_and_angles_are_uniform():
    sq = IMG[:40, :40]
    np.testing.assert_array_equal(vision.RandomRotation((90, 90))(sq), np.rot90(sq))
    np.testing.assert_array_equal(vision.RandomRotation((-90, -90))(sq), np.rot90(sq, -1))
    np.testing.assert_array_equal(vision.RandomRotation((90, 90), expand=True)(IMG), np.rot90(IMG))
    # RandomRotation(degrees=d) draws from (-d, d): 90-degree turns appear only with d >= 90.
    op = vision.RandomRotation(degrees=(80, 100))
    assert op.spec()["degrees"] == [80.0, 100.0]
    assert vision.RandomRotation(30).spec()["degrees"] == [-30.0, 30.0]
    with pytest.raises(ValueError, match="RandomRotation: degrees"):
        vision.RandomRotation(-5)
    with pytest.raises(TypeError, match="RandomRotation: center"):
        vision.RandomRotation(5, center=3)


def test_grayscale_and_convert_color_match_pil_and_numpy():
    ref = np.asarray(Image.fromarray(IMG).convert("L"))
    assert diff(vision.Grayscale()(IMG), ref).max() <= 1  # OpenCV's fixed point vs PIL's: within 1 level
    g3 = vision.Grayscale(3)(IMG)
    assert g3.shape == IMG.shape and diff(g3, np.asarray(Image.fromarray(IMG).convert("L").convert("RGB"))).max() <= 1
    assert diff(vision.ConvertColor(ConvertMode.COLOR_RGB2GRAY)(IMG), ref).max() <= 1
    np.testing.assert_array_equal(vision.ConvertColor(ConvertMode.COLOR_RGB2BGR)(IMG), IMG[..., ::-1])
    rgba = vision.ConvertColor(ConvertMode.COLOR_RGB2RGBA)(IMG)
    np.testing.assert_array_equal(rgba[..., :3], IMG)
    assert (rgba[..., 3] == 255).all()
    np.testing.assert_array_equal(vision.ConvertColor("COLOR_RGBA2BGR")(rgba), IMG[..., ::-1])
    with pytest.raises(ValueError, match="ConvertColor: convert_mode"):
        vision.ConvertColor("COLOR_RGB2HSV")
    with pytest.raises(ValueError, match="Grayscale: num_output_channels"):
        vision.Grayscale(2)
    with pytest.raises(ValueError, match="takes an image with 4 channel"):
        vision.ConvertColor(ConvertMode.COLOR_RGBA2RGB)(IMG)


def test_cutout_squares():
    img = np.full((30, 40, 3), 200, np.uint8)
    op = vision.CutOut(8)
    assert op.spec() == {"op": "CutOut", "length": 8, "num_patches": 1, "is_hwc": True}
    inside = 0
    for s in range(300):
        zero = (op(img, seed=s) == 0).all(-1)
        ys, xs = np.nonzero(zero)
        if len(ys) == 0:
            continue
        h, w = ys.max() - ys.min() + 1, xs.max() - xs.min() + 1
        assert zero.sum() == h * w and h <= 8 and w <= 8  # one (possibly clipped) square
        inside += h == 8 and w == 8
    assert binomial_ok(inside, 300, 23 / 39 * 33 / 49)  # MindSpore's unbounded corner draw
    chw_img = np.ones((3, 12, 12), np.float32)
    out = vision.CutOut(3, num_patches=4, is_hwc=False)(chw_img, seed=1)
    assert (out == 0).any() and (out[0] == out[2]).all()
    with pytest.raises(ValueError, match="CutOut: length"):
        vision.CutOut(0)


def test_random_erasing_matches_torchvision_erase():
    img = np.random.RandomState(1).rand(3, 40, 50).astype(np.float32)
    op = vision.RandomErasing(prob=1.0, value=(1, 2, 3))
    for s in range(50):
        out = op(img, seed=s)
        ys, xs = np.nonzero(out[0] != img[0])
        i, j = ys.min(), xs.min()
        h, w = ys.max() - i + 1, xs.max() - j + 1
        assert 0.02 * 2000 * 0.6 <= h * w <= 0.33 * 2000 * 1.3  # scale, up to rounding of the sides
        ref = F.erase(torch.from_numpy(img), i, j, h, w, torch.tensor([1.0, 2.0, 3.0]).view(3, 1, 1))
        np.testing.assert_array_equal(out, ref.numpy())  # the rest untouched, the box filled
    erased = sum(not np.array_equal(vision.RandomErasing()(img, seed=s), img) for s in range(1000))
    assert binomial_ok(erased, 1000, 0.5)
    noisy = vision.RandomErasing(prob=1.0, value="random")(img, seed=2)
    assert not np.array_equal(noisy, img)
    # inplace=True writes into the array it was given, as MindSpore's does.
    target = img.copy()
    got = vision.RandomErasing(prob=1.0, inplace=True)(target, seed=4)
    assert got is target and not np.array_equal(target, img)
    with pytest.raises(ValueError, match="RandomErasing: value"):
        vision.RandomErasing(value="noise")


def _jpeg(img, quality=95):
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


def smooth(h, w):
    y, x = np.mgrid[0:h, 0:w]
    return np.stack([255 * x / (w - 1), 255 * y / (h - 1), 128 + 100 * np.sin(x / 17.0 + y / 23.0)],
                    -1).astype(np.uint8)


def test_random_crop_decode_resize_is_decode_then_random_resized_crop():
    big = smooth(240, 320)
    data = np.frombuffer(_jpeg(big), np.uint8)
    fused = vision.RandomCropDecodeResize(64, scale=(0.2, 0.9))
    plain = [vision.Decode(), vision.RandomResizedCrop(64, scale=(0.2, 0.9))]
    for s in range(10):
        a = fused(data, seed=s)
        b = plain[1](plain[0](data), seed=s)  # same draws: the same crop window
        assert a.shape == (64, 64, 3)
        assert diff(a, b).mean() < 3.0  # part of the downscale happens in the IDCT
    # scale may start at 0 (MindSpore's check); ratio must be positive.
    assert fused.__class__(64, scale=(0.0, 0.5))(data, seed=1).shape == (64, 64, 3)
    with pytest.raises(ValueError, match="RandomCropDecodeResize: ratio"):
        vision.RandomCropDecodeResize(64, ratio=(0.0, 0.5))


def test_policies_are_seeded_and_checked():
    for op in (vision.AutoAugment(), vision.AutoAugment(vision.AutoAugmentPolicy.CIFAR10, Inter.BILINEAR, (1, 2, 3)),
               vision.RandAugment(), vision.RandAugment(num_ops=3, magnitude=5, num_magnitude_bins=10)):
        outs = [op(IMG, seed=s) for s in range(20)]
        assert all(o.shape == IMG.shape and o.dtype == np.uint8 for o in outs)
        np.testing.assert_array_equal(op(IMG, seed=7), outs[7])
        assert len({o.tobytes() for o in outs}) >= 10
    np.testing.assert_array_equal(vision.RandAugment(num_ops=0)(IMG, seed=1), IMG)
    assert vision.AutoAugment().spec() == {"op": "AutoAugment", "policy": "imagenet", "interpolation": "nearest",
                                           "fill_value": 0}
    with pytest.raises(ValueError, match="RandAugment: magnitude"):
        vision.RandAugment(magnitude=31)
    with pytest.raises(ValueError, match="RandAugment: num_magnitude_bins"):
        vision.RandAugment(num_magnitude_bins=1, magnitude=0)
    with pytest.raises(ValueError, match="AutoAugment: policy"):
        vision.AutoAugment("coco")
    with pytest.raises(ValueError, match="fill_value"):
        vision.RandAugment(fill_value=300)
    with pytest.raises(ValueError, match="channels"):
        vision.RandAugment()(IMG[..., :1])


def test_random_select_subpolicy_with_ops_and_callables():
    flip = vision.RandomVerticalFlip(1.0)

    def negate(x):
        return 255 - x
    policy = [[(flip, 1.0), (negate, 0.5)], [(vision.RandomHorizontalFlip(1.0), 0.2)]]
    op = vision.RandomSelectSubpolicy(policy)
    seen = {"v": 0, "vn": 0, "h": 0, "id": 0}
    refs = {"v": IMG[::-1], "vn": 255 - IMG[::-1], "h": IMG[:, ::-1], "id": IMG}
    n = 2000
    for s in range(n):
        out = op(IMG, seed=s)
        key = next(k for k, r in refs.items() if np.array_equal(out, r))
        seen[key] += 1
    for key, p in (("v", 0.25), ("vn", 0.25), ("h", 0.1), ("id", 0.4)):
        assert binomial_ok(seen[key], n, p), (key, seen)
    with pytest.raises(ValueError, match="RandomSelectSubpolicy"):
        vision.RandomSelectSubpolicy([[(flip, 1.5)]])
    with pytest.raises(ValueError, match="RandomSelectSubpolicy"):
        vision.RandomSelectSubpolicy([[flip]])


def one_hot(labels, k):
    return np.eye(k, dtype=np.int32)[labels]


def test_mixup_batch_matches_numpy():
    rs = np.random.RandomState(0)
    images = rs.randint(0, 256, (6, 8, 10, 3)).astype(np.uint8)
    labels = one_hot(np.arange(6), 6)
    lams = []
    for s in range(200):
        out_img, out_lab = vision.MixUpBatch(alpha=1.0)(images, labels, seed=s)
        assert out_lab.dtype == np.float32 and out_img.dtype == np.uint8
        # Recover the permutation and lambda from the labels, then check the images.
        perm = [int(np.argmax(np.where(np.arange(6) == i, -1, out_lab[i]))) if (out_lab[i] > 0).sum() == 2 else i
                for i in range(6)]
        moved = [i for i in range(6) if perm[i] != i]
        if not moved:
            continue
        lam = out_lab[moved[0], moved[0]]
        ref_lab = lam * labels + (1 - lam) * labels[perm]
        np.testing.assert_allclose(out_lab, ref_lab, atol=1e-6)
        ref_img = lam * images.astype(np.float64) + (1 - lam) * images[perm]
        assert np.abs(out_img - ref_img).max() <= 0.5 + 1e-3  # rounded to uint8
        lams.append(lam)
    assert abs(np.mean(lams) - 0.5) < 0.05 and abs(np.var(lams) - 1 / 12) < 0.02  # Beta(1, 1)
    with pytest.raises(ValueError, match="MixUpBatch: alpha"):
        vision.MixUpBatch(0.0)
    with pytest.raises(ValueError, match="takes 2 input"):
        vision.MixUpBatch()(images)
    with pytest.raises(ValueError, match="labels must be one-hot"):
        vision.MixUpBatch()(images, np.arange(6))


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_cutmix_batch_matches_numpy(fmt):
    rs = np.random.RandomState(1)
    images = rs.randint(0, 256, (5, 12, 16, 3) if fmt == "NHWC" else (5, 3, 12, 16)).astype(np.uint8)
    labels = one_hot(np.arange(5), 5)
    op = vision.CutMixBatch(getattr(vision.ImageBatchFormat, fmt))
    for s in range(60):
        out_img, out_lab = op(images, labels, seed=s)
        view = out_img if fmt == "NHWC" else out_img.transpose(0, 2, 3, 1)
        src = images if fmt == "NHWC" else images.transpose(0, 2, 3, 1)
        for i in range(5):
            others = [k for k in range(5) if k != i and out_lab[i, k] > 0]
            changed = (view[i] != src[i]).any(-1)
            if not others:
                assert not changed.any()
                continue
            j = others[0]
            ys, xs = np.nonzero(changed)
            y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
            ref = src[i].copy()
            ref[y0:y1, x0:x1] = src[j][y0:y1, x0:x1]
            np.testing.assert_array_equal(view[i], ref)  # one box pasted from image j
            area = (y1 - y0) * (x1 - x0) / (12 * 16)
            np.testing.assert_allclose(out_lab[i, [i, j]], [1 - area, area], atol=1e-6)
    with pytest.raises(ValueError, match="CutMixBatch: image_batch_format"):
        vision.CutMixBatch("HWC")


def test_bbox_flips_resize_match_numpy():
    img = IMG
    boxes = np.array([[2, 3, 10, 5, 7], [0, 0, 64, 48, 1]], np.float32)
    out, b = vision.RandomHorizontalFlipWithBBox(1.0)(img, boxes)
    np.testing.assert_array_equal(out, img[:, ::-1])
    np.testing.assert_array_equal(b, [[52, 3, 10, 5, 7], [0, 0, 64, 48, 1]])
    out, b = vision.RandomVerticalFlipWithBBox(1.0)(img, boxes)
    np.testing.assert_array_equal(out, img[::-1])
    np.testing.assert_array_equal(b[:, 1], [40, 0])
    out, b = vision.ResizeWithBBox((24, 16))(img, boxes)
    assert out.shape == (24, 16, 3)
    assert diff(out, hwc(F.resize(chw(img), [24, 16], antialias=False))).max() <= 2
    np.testing.assert_allclose(b[:, :4], boxes[:, :4] * [16 / 64, 24 / 48, 16 / 64, 24 / 48], rtol=1e-6)
    with pytest.raises(ValueError, match="box 0 .* out of bounds"):
        vision.RandomHorizontalFlipWithBBox()(img, np.array([[60, 0, 10, 5]], np.float32))
    with pytest.raises(ValueError, match="takes 2 input"):
        vision.ResizeWithBBox(8)(img)


def test_random_crop_with_bbox_matches_numpy():
    img = np.zeros((40, 50, 3), np.uint8)
    img[..., 0] = np.arange(40)[:, None]
    img[..., 1] = np.arange(50)[None, :]
    boxes = np.array([[5, 5, 10, 10, 1], [30, 20, 15, 15, 2], [0, 0, 50, 40, 3]], np.float32)
    op = vision.RandomCropWithBBox((20, 25))
    for s in range(100):
        out, b = op(img, boxes, seed=s)
        top, left = int(out[0, 0, 0]), int(out[0, 0, 1])
        np.testing.assert_array_equal(out, img[top:top + 20, left:left + 25])
        ref = []
        for x, y, w, h, tag in boxes:
            if x > left + 25 or y > top + 20 or x + w < left or y + h < top:
                continue
            x0, y0 = max(x, left) - left, max(y, top) - top
            x1, y1 = min(x + w, left + 25) - left, min(y + h, top + 20) - top
            ref.append([x0, y0, x1 - x0, y1 - y0, tag])
        np.testing.assert_array_equal(b, np.array(ref, np.float32).reshape(-1, 5))
    out, b = vision.RandomCropWithBBox((46, 56), padding=3, fill_value=9)(img, boxes, seed=0)
    np.testing.assert_array_equal(b[0], [8, 8, 10, 10, 1])
    assert (out[0, 0] == 9).all()


def test_bounding_box_augment_matches_numpy():
    boxes = np.array([[3, 4, 10, 6], [20, 10, 15, 12]], np.float32)
    out, b = vision.BoundingBoxAugment(vision.RandomVerticalFlip(1.0), ratio=1.0)(IMG, boxes)
    ref = IMG.copy()
    for x, y, w, h in boxes.astype(int):
        ref[y:y + h, x:x + w] = ref[y:y + h, x:x + w][::-1]
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(b, boxes)
    hits = sum(not np.array_equal(vision.BoundingBoxAugment(vision.RandomVerticalFlip(1.0), 0.3)(IMG, boxes[:1],
                                                                                                  seed=s)[0], IMG)
               for s in range(1000))
    assert binomial_ok(hits, 1000, 0.3)
    with pytest.raises(ValueError, match="BoundingBoxAugment: ratio"):
        vision.BoundingBoxAugment(vision.RandomVerticalFlip(), 1.5)


def _image_dataset(tmp_path, n=12):
    path = str(tmp_path / "img.mindrecord")
    w = mindrecord.FileWriter(path)
    w.add_schema({"image": {"type": "bytes"}, "label": {"type": "int32"}})
    w.write_raw_data([{"image": _jpeg(natural(60 + i, 80, i)), "label": i % 10} for i in range(n)])
    w.commit()
    return path


def test_recipe_in_a_pipeline_same_for_any_worker_count(tmp_path):
    """A MindSpore-style ImageNet recipe (import changed only): the output
    depends on the seed alone, not on the worker count."""
    from mindrecord import transforms
    path = _image_dataset(tmp_path)

    def run(workers):
        ds = mindrecord.MindDataset(path, shuffle=True, seed=5, num_parallel_workers=workers)
        ops = [vision.RandomCropDecodeResize(32, scale=(0.3, 1.0)), vision.RandomHorizontalFlip(),
               transforms.RandomApply([vision.RandomRotation(15), vision.RandomColorAdjust(0.4, 0.4, 0.4, 0.1)],
                                      prob=0.8),
               vision.RandAugment(), vision.CutOut(6), vision.Rescale(1.0 / 255.0, 0.0),
               vision.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]), vision.HWC2CHW(),
               vision.RandomErasing(prob=0.5)]
        ds = ds.map(operations=ops, input_columns="image")
        ds = ds.map(operations=transforms.OneHot(10), input_columns="label")
        return list(ds.batch(4).create_dict_iterator(output_numpy=True))
    a, b = run(1), run(2)
    assert [x["image"].shape for x in a] == [(4, 3, 32, 32)] * 3
    assert a[0]["label"].shape == (4, 10)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x["image"], y["image"])
        np.testing.assert_array_equal(x["label"], y["label"])


def test_to_tensor_is_chw_over_255(tmp_path):
    """MindSpore's ToTensor: HWC (or HW) -> CHW (1 x H x W) holding x / 255,
    as output_type; in a batch (a large image: written straight into the
    batch) the same values as eagerly."""
    want = IMG.transpose(2, 0, 1).astype(np.float32) * np.float32(1 / 255)
    out = vision.ToTensor()(IMG)
    assert out.dtype == np.float32 and out.shape == (3,) + IMG.shape[:2]
    np.testing.assert_array_equal(out, want)
    np.testing.assert_allclose(out, IMG.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    gray = IMG[:, :, 0]
    np.testing.assert_array_equal(vision.ToTensor()(gray), want[:1])
    f64 = vision.ToTensor(np.float64)(IMG)
    assert f64.dtype == np.float64
    np.testing.assert_array_equal(f64, want.astype(np.float64))
    np.testing.assert_allclose(vision.ToTensor()(IMG.astype(np.float32)), want, rtol=1e-6)
    with pytest.raises(Exception, match="ToTensor"):
        vision.ToTensor()(np.zeros((2, 2, 2, 2), np.uint8))
    with pytest.raises(Exception, match="ToTensor"):
        vision.ToTensor("string")(IMG)
    path = _image_dataset(tmp_path, n=6)
    ops = [vision.Decode(), vision.Resize((200, 240))]
    ds = mindrecord.MindDataset(path, shuffle=False).map(ops + [vision.ToTensor()], input_columns="image")
    batches = list(ds.batch(3).create_dict_iterator(output_numpy=True))
    rows = [r["image"] for r in mindrecord.FileReader(path).get_next()]
    got = np.concatenate([b["image"] for b in batches])
    assert got.shape == (6, 3, 200, 240) and got.dtype == np.float32
    for g, raw in zip(got, rows):
        img = vision.Resize((200, 240))(vision.Decode()(raw))
        np.testing.assert_array_equal(g, vision.ToTensor()(img))


def test_wrong_types_name_op_and_argument():
    with pytest.raises(TypeError, match="Pad: padding"):
        vision.Pad("1")
    with pytest.raises(ValueError, match="Pad: padding_mode"):
        vision.Pad(1, padding_mode="wrap")
    with pytest.raises(ValueError, match="RandomVerticalFlip: prob"):
        vision.RandomVerticalFlip(2)
    with pytest.raises(TypeError, match="Rescale: rescale"):
        vision.Rescale("a", 0)
    with pytest.raises(ValueError, match="RandomCropWithBBox: size"):
        vision.RandomCropWithBBox(0)
    with pytest.raises(TypeError, match="interpolation"):
        vision.ResizeWithBBox(8, "lanczos")


def test_mindspore_eager_examples():
    """MindSpore's documented eager-mode examples (np arrays in, the shapes
    and dtypes its docs print out), with only the import changed."""
    from mindrecord import transforms
    data = np.random.randint(0, 255, size=(100, 100, 3)).astype(np.uint8)
    assert vision.Pad([100, 100, 100, 100])(data).shape == (300, 300, 3)
    out = vision.Rescale(1.0 / 255.0, -1.0)(data)
    assert out.shape == (100, 100, 3) and out.dtype == np.float32
    for op in (vision.RandomColorAdjust(brightness=(0.5, 1), contrast=(0.4, 1), saturation=(0.3, 1)),
               vision.RandomRotation(degrees=15.0, resample=Inter.BICUBIC, expand=False, center=(10, 10),
                                     fill_value=(150, 150, 150)),
               vision.RandomVerticalFlip(0.25), vision.CutOut(20), vision.AutoAugment(), vision.RandAugment(),
               vision.RandomSelectSubpolicy([[(vision.RandomRotation((45, 45)), 0.5),
                                              (vision.RandomVerticalFlip(), 1)],
                                             [(vision.RandomHorizontalFlip(), 1)]]),
               transforms.Compose([vision.RandomVerticalFlip(), vision.RandomHorizontalFlip()]),
               transforms.RandomApply([vision.RandomRotation(30)], prob=0.6),
               transforms.RandomChoice([vision.CenterCrop(50), vision.RandomCrop(100)]),
               transforms.RandomOrder([vision.RandomVerticalFlip(), vision.RandomHorizontalFlip()])):
        out = op(data)
        assert out.dtype == np.uint8 and out.shape in ((100, 100, 3), (50, 50, 3)), op
    assert vision.ConvertColor(ConvertMode.COLOR_RGB2GRAY)(data).shape == (100, 100)
    assert vision.RandomErasing(value="random")(data.transpose(2, 0, 1).astype(np.float32) / 255).shape == (3, 100,
                                                                                                            100)
    out = transforms.OneHot(num_classes=5, smoothing_rate=0)(np.array([1, 2, 3]))
    assert out.shape == (3, 5) and out.dtype == np.int64
    images = np.random.randint(0, 255, size=(2, 10, 10, 3)).astype(np.uint8)
    labels = np.array([[0, 1], [1, 0]])
    for op in (vision.MixUpBatch(1), vision.CutMixBatch(vision.ImageBatchFormat.NHWC, 1.0, 1.0)):
        img, lab = op(images, labels)
        assert img.shape == (2, 10, 10, 3) and img.dtype == np.uint8 and lab.shape == (2, 2) and lab.dtype == np.float32
    bboxes = np.array([[0, 0, 10, 10], [5, 5, 20, 20]], np.float32)
    for op in (vision.RandomHorizontalFlipWithBBox(1), vision.RandomVerticalFlipWithBBox(0.2),
               vision.RandomCropWithBBox([50, 50], [5, 5, 5, 5]), vision.ResizeWithBBox(50),
               vision.BoundingBoxAugment(vision.RandomRotation(degrees=90), 1.0)):
        img, box = op(data, bboxes)
        assert img.ndim == 3 and box.shape[1] == 4 and box.dtype == np.float32, op


def test_normalize_is_hwc_false_takes_chw_images(tmp_path):
    img = natural(12, 10)
    mean, std = [10.0, 120.0, 240.0], [2.0, 30.0, 60.0]
    want = (chw(img).numpy().astype(np.float32) - np.float32(mean)[:, None, None]) / np.float32(std)[:, None, None]
    np.testing.assert_allclose(vision.Normalize(mean, std, is_hwc=False)(np.ascontiguousarray(chw(img).numpy())),
                               want, rtol=1e-6, atol=1e-5)
    # The same values as HWC Normalize then HWC2CHW, in a pipeline after HWC2CHW.
    path = png_dataset(str(tmp_path / "img.mindrecord"), [img])
    ops = [vision.Decode(), vision.HWC2CHW(), vision.Normalize(mean, std, is_hwc=False)]
    (row,) = list(mindrecord.MindDataset(path).map(ops, input_columns="image").create_dict_iterator(output_numpy=True))
    np.testing.assert_allclose(row["image"], want, rtol=1e-6, atol=1e-5)
    with pytest.raises(Exception, match="Normalize: is_hwc=False expects"):
        vision.Normalize(mean, std, is_hwc=False)(img[:, :, :1].repeat(5, axis=2))


@pytest.mark.parametrize("make, error", [
    (lambda: vision.Normalize([1.0, 2.0, 3.0], [1.0, 2.0]), ValueError),
    (lambda: vision.Normalize([1.0], [0.0]), ValueError),
    (lambda: vision.Normalize([300.0], [1.0]), ValueError),
    (lambda: vision.Normalize([1.0], [1.0], is_hwc=1), TypeError),
    (lambda: vision.RandomResizedCrop(8, max_attempts=2.7), TypeError),
    (lambda: vision.RandomResizedCrop(8, scale=(0.9, 0.1)), ValueError),
    (lambda: vision.RandomResizedCrop(8, ratio=(0.0, 1.0)), ValueError),
    (lambda: vision.RandomHorizontalFlip("0.5"), TypeError),
    (lambda: vision.RandomHorizontalFlip(1.5), ValueError),
    (lambda: vision.RandomCrop(4, pad_if_needed=1), TypeError),
    (lambda: vision.RandomCrop(4, padding=-1), ValueError),
    (lambda: vision.RandomCrop(4, fill_value=256), ValueError),
    (lambda: vision.RandomCrop(4, padding_mode="wrap"), TypeError),
    (lambda: vision.Resize(0), ValueError),
    (lambda: vision.Resize(4.5), TypeError),
    (lambda: vision.CenterCrop((4, "4")), TypeError),
    (lambda: vision.Decode(to_pil=1), TypeError),
])
def test_basic_ops_check_arguments_as_mindspore(make, error):
    # MindSpore's validators: a wrong type is a TypeError, a value out of range a ValueError.
    with pytest.raises(error):
        make()
