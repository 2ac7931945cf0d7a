"""MindSpore's raw-format loaders (ImageFolderDataset, Cifar10Dataset,
Cifar100Dataset, MnistDataset, VOCDataset, CocoDataset) read through the
pipeline: the same rows as `mindrecord convert` of the folder read through
MindDataset, MindSpore's columns and labels, samplers, sharding, resume, maps,
the torch adapter, and errors naming the bad file."""
import gzip
import json
import os
import struct
import shutil

import numpy as np
import pytest
from PIL import Image

import mindrecord
from mindrecord import (Cifar10Dataset, Cifar100Dataset, CocoDataset, ImageFolderDataset, MindDataset, MnistDataset,
                        VOCDataset, vision)
from conftest import compat_path


def rows(ds, columns=None):
    out = []
    for r in ds.create_dict_iterator(num_epochs=1, output_numpy=True):
        out.append({k: np.asarray(v) for k, v in r.items()})
    return out


def converted(tmp_path, source, src_dir, out_split=None, **opts):
    out = str(tmp_path / ("c_%s.mindrecord" % source))
    mindrecord.convert(source, src_dir, out, **opts)
    if out_split:
        out = out[:-len(".mindrecord")] + "_" + out_split + ".mindrecord"
    return rows(MindDataset(out, shuffle=False))


@pytest.fixture
def folder(tmp_path):
    """An ImageFolder of PNGs: 3 classes, their names out of order on disk."""
    root = tmp_path / "folder"
    rng = np.random.default_rng(3)
    for cls, n in (("zebra", 2), ("ant", 3), ("moth", 1)):
        (root / cls).mkdir(parents=True)
        for i in range(n):
            px = rng.integers(0, 256, (5 + i, 7, 3), dtype=np.uint8)
            Image.fromarray(px).save(str(root / cls / ("img%d.png" % (2 - i))))
    return root


def test_cifar10_rows_equal_converted_dataset(tmp_path):
    src = compat_path("sources", "cifar10")
    ds = Cifar10Dataset(src, usage="train", shuffle=False)
    assert ds.get_col_names() == ["image", "label"]
    got = rows(ds)
    want = converted(tmp_path, "cifar10", src, "train", encode="raw")
    assert len(got) == len(want) == 16 == ds.get_dataset_size()
    for g, w in zip(got, want):
        assert g["image"].dtype == np.uint8 and g["image"].shape == (32, 32, 3)
        np.testing.assert_array_equal(g["image"], w["data"].reshape(32, 32, 3))
        assert g["label"].shape == () and int(g["label"]) == int(w["label"])
    assert len(rows(Cifar10Dataset(src, shuffle=False))) == 20  # usage None: "all", train then test
    assert len(rows(Cifar10Dataset(src, usage="test", shuffle=False))) == 4


def test_cifar100_columns_and_labels(tmp_path):
    src = compat_path("sources", "cifar100")
    ds = Cifar100Dataset(src, usage="all", shuffle=False)
    assert ds.get_col_names() == ["image", "coarse_label", "fine_label"]
    got = rows(ds)
    # "all": test.bin, then train.bin (MindSpore sorts the file names).
    train = converted(tmp_path, "cifar100", src, "train", encode="raw")
    want = rows(MindDataset(str(tmp_path / "c_cifar100_test.mindrecord"), shuffle=False)) + train
    assert len(got) == len(want) == 20
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g["image"], w["data"].reshape(32, 32, 3))
        assert (int(g["coarse_label"]), int(g["fine_label"])) == (int(w["coarse_label"]), int(w["fine_label"]))


def test_mnist_rows_equal_converted_dataset(tmp_path):
    src = compat_path("sources", "mnist")
    got = rows(MnistDataset(src, usage="train", shuffle=False))
    want = converted(tmp_path, "mnist", src, "train", encode="raw", split="train")
    assert len(got) == len(want) == 20
    for g, w in zip(got, want):
        assert g["image"].shape == (28, 28, 1) and g["image"].dtype == np.uint8
        np.testing.assert_array_equal(g["image"], w["data"].reshape(28, 28, 1))
        assert int(g["label"]) == int(w["label"])
    # The idx file's own pixels, read independently.
    with gzip.open(os.path.join(src, "train-images-idx3-ubyte.gz")) as f:
        px = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 28, 28, 1)
    np.testing.assert_array_equal(np.stack([g["image"] for g in got]), px)
    # MindSpore's own t10k images file is truncated (10 of the 20 images its header counts).
    for usage in ("test", "all", None):
        with pytest.raises(mindrecord.CorruptionError, match="t10k-images-idx3-ubyte.gz: truncated"):
            MnistDataset(src, usage=usage)


@pytest.mark.parametrize("loader", ["FashionMnistDataset", "KMnistDataset"])
def test_fashion_and_kuzushiji_mnist_read_mnist_idx_files(tmp_path, loader):
    """Both ship MNIST's file names and layout: plain idx files, written here."""
    rng = np.random.default_rng(7)
    images = rng.integers(0, 256, (6, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, 6, dtype=np.uint8)
    d = tmp_path / loader
    d.mkdir()
    (d / "train-images-idx3-ubyte").write_bytes(struct.pack(">IIII", 2051, 6, 28, 28) + images.tobytes())
    (d / "train-labels-idx1-ubyte").write_bytes(struct.pack(">II", 2049, 6) + labels.tobytes())
    cls = getattr(mindrecord, loader)
    assert cls is getattr(mindrecord.dataset, loader) and issubclass(cls, MindDataset)
    got = rows(cls(str(d), usage="train", shuffle=False))
    np.testing.assert_array_equal(np.stack([g["image"] for g in got]), images[..., None])
    assert [int(g["label"]) for g in got] == labels.tolist()
    assert cls(str(d), num_samples=4).get_dataset_size() == 4
    with pytest.raises(mindrecord.NotFoundError, match="t10k-images-idx3-ubyte"):
        cls(str(d), usage="test")
    with pytest.raises(ValueError, match="usage must be"):
        cls(str(d), usage="val")
    # "all": t10k-* before train-*, as MindSpore sorts the file names.
    (d / "t10k-images-idx3-ubyte").write_bytes(struct.pack(">IIII", 2051, 1, 28, 28) + bytes(784))
    (d / "t10k-labels-idx1-ubyte").write_bytes(struct.pack(">II", 2049, 1) + bytes([9]))
    assert [int(g["label"]) for g in rows(cls(str(d), shuffle=False))] == [9] + labels.tolist()


def test_emnist_reads_the_named_splits_files(tmp_path):
    rng = np.random.default_rng(11)
    d = tmp_path / "emnist"
    d.mkdir()
    want = {}
    for split, n in (("train", 3), ("test", 2)):
        images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        labels = rng.integers(1, 27, n, dtype=np.uint8)
        (d / ("emnist-letters-%s-images-idx3-ubyte" % split)).write_bytes(
            struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
        with gzip.open(d / ("emnist-letters-%s-labels-idx1-ubyte.gz" % split), "wb") as f:
            f.write(struct.pack(">II", 2049, n) + labels.tobytes())
        want[split] = (images, labels)
    # Another split's files beside them are not read.
    (d / "emnist-digits-train-images-idx3-ubyte").write_bytes(b"not idx")
    got = rows(mindrecord.EMnistDataset(str(d), "letters", usage="train", shuffle=False))
    np.testing.assert_array_equal(np.stack([g["image"] for g in got]), want["train"][0][..., None])
    assert [int(g["label"]) for g in got] == want["train"][1].tolist()
    every = rows(mindrecord.dataset.EMnistDataset(str(d), name="letters", shuffle=False))
    assert [int(g["label"]) for g in every] == want["test"][1].tolist() + want["train"][1].tolist()  # test first
    with pytest.raises(mindrecord.NotFoundError, match="emnist-balanced-train-images-idx3-ubyte"):
        mindrecord.EMnistDataset(str(d), "balanced")
    with pytest.raises(ValueError, match="Input name is not within the valid set"):
        mindrecord.EMnistDataset(str(d), "kanji")
    with pytest.raises(RuntimeError, match=r"emnist-digits-train-labels-idx1-ubyte\[.gz\] is missing"):
        mindrecord.EMnistDataset(str(d), "digits", usage="train")


def test_caltech256_keeps_jpg_and_JPEG_and_labels_by_folder_order(tmp_path):
    root = tmp_path / "256_ObjectCategories"
    rng = np.random.default_rng(5)
    files = {"002.american-flag": ["002_0001.jpg", "002_0002.JPEG", "002_0003.png", "002_0004.JPG"],
             "001.ak47": ["001_0001.jpg"], "257.clutter": ["257_0001.jpg"]}
    for cls, names in files.items():
        (root / cls).mkdir(parents=True)
        for n in names:
            Image.fromarray(rng.integers(0, 256, (6, 5, 3), dtype=np.uint8)).save(str(root / cls / n), format="JPEG")
    data = mindrecord.Caltech256Dataset(str(root), shuffle=False)
    assert data.get_col_names() == ["image", "label"]
    got = [(bytes(r["image"]), int(r["label"])) for r in rows(data)]
    # Only .jpg and .JPEG (case-sensitive, as MindSpore's); labels by sorted folder, not the NNN prefix.
    want = [((root / c / n).read_bytes(), label) for label, c in enumerate(sorted(files))
            for n in sorted(files[c]) if n.endswith((".jpg", ".JPEG"))]
    assert got == want
    decoded = rows(mindrecord.dataset.Caltech256Dataset(str(root), decode=True, shuffle=False))
    assert decoded[0]["image"].shape == (6, 5, 3)
    assert mindrecord.Caltech256Dataset(str(root), num_shards=2, shard_id=0).get_dataset_size() == 2


def test_imagefolder_labels_order_and_bytes(tmp_path, folder):
    ds = ImageFolderDataset(str(folder), shuffle=False)
    assert ds.get_col_names() == ["image", "label"]
    assert ds.get_class_indexing() == {"ant": 0, "moth": 1, "zebra": 2}
    assert ds.num_classes() == 3 and ds.map(lambda x: x, input_columns=["label"]).batch(2).num_classes() == 3
    got = rows(ds)
    want = converted(tmp_path, "imagefolder", str(folder))
    assert [int(g["label"]) for g in got] == [0, 0, 0, 1, 2, 2]
    files = sorted((c, f) for c in os.listdir(folder) for f in os.listdir(folder / c))
    for g, w, (c, f) in zip(got, want, files):
        assert g["image"].dtype == np.uint8 and g["image"].ndim == 1
        assert g["image"].tobytes() == (folder / c / f).read_bytes() == w["image"].tobytes()
        assert int(g["label"]) == int(w["label"])
    decoded = rows(ImageFolderDataset(str(folder), shuffle=False, decode=True))
    for d, (c, f) in zip(decoded, files):
        np.testing.assert_array_equal(d["image"], np.asarray(Image.open(folder / c / f).convert("RGB")))
    # class_indexing: only the named folders, with the given labels.
    some = rows(ImageFolderDataset(str(folder), shuffle=False, class_indexing={"zebra": 7, "ant": 4}))
    assert [int(r["label"]) for r in some] == [4, 4, 4, 7, 7]
    # extensions: exact match.
    (folder / "moth" / "notes.PNG").write_bytes((folder / "moth" / "img2.png").read_bytes())
    assert len(rows(ImageFolderDataset(str(folder), shuffle=False, extensions=[".PNG"]))) == 1


def test_imagefolder_listing_subfolders_links_and_hidden_names(tmp_path, folder):
    """What the listing takes from a class folder, and a filter that keeps
    nothing refused (MindSpore refuses a dataset of no rows too)."""
    png = (folder / "ant" / "img2.png").read_bytes()
    cls = folder / "ant"
    (cls / "sub" / "deeper").mkdir(parents=True)
    (cls / "sub" / "a.png").write_bytes(png)
    (cls / "sub" / "deeper" / "b.PNG").write_bytes(png)
    (cls / ".hidden.png").write_bytes(png)
    (cls / ".cache").mkdir()
    (cls / ".cache" / "c.png").write_bytes(png)
    (cls / "notes.txt").write_bytes(b"not an image")
    (cls / "noext").write_bytes(png)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "o.png").write_bytes(png)
    os.symlink(outside / "o.png", cls / "linked.png")          # a link to a file: listed
    os.symlink(outside, cls / "linked_dir")                     # a link to a folder: not entered
    os.symlink(tmp_path / "missing.png", cls / "dangling.png")  # a dangling link: left out
    os.mkfifo(cls / "fifo.png")                                 # not a regular file: left out
    got = [(int(r["label"]), r["image"].tobytes()) for r in rows(ImageFolderDataset(str(folder), shuffle=False))]
    # A class's files in its own folder by name, then each subfolder's (by folder, then name).
    want = converted(tmp_path, "imagefolder", str(folder))
    assert [str(w["file_name"].item()) for w in want] == [
        "ant/img0.png", "ant/img1.png", "ant/img2.png", "ant/linked.png", "ant/sub/a.png", "ant/sub/deeper/b.PNG",
        "moth/img2.png", "zebra/img1.png", "zebra/img2.png"]
    assert got == [(int(w["label"]), w["image"].tobytes()) for w in want]
    assert [g[0] for g in got] == [0] * 6 + [1, 2, 2] and got[3][1] == got[4][1] == got[5][1] == png
    # A trailing separator on the folder lists the same rows.
    assert [(int(r["label"]), r["image"].tobytes()) for r in rows(ImageFolderDataset(str(folder) + "/", shuffle=False))] == got
    # class_indexing and extensions split names as strings: the same rows.
    sub = rows(ImageFolderDataset(str(folder), shuffle=False, class_indexing={"ant": 5}, extensions=[".PNG"]))
    assert [int(r["label"]) for r in sub] == [5]
    for exts, index in (([".gif"], None), ([".png"], {"nothere": 0})):
        with pytest.raises(mindrecord.NotFoundError, match="no image matches"):
            ImageFolderDataset(str(folder), extensions=exts, class_indexing=index)


def test_map_of_vision_ops_and_batch():
    src = compat_path("sources", "cifar10")
    ds = Cifar10Dataset(src, usage="train", shuffle=False)
    ds = ds.map([vision.Rescale(1.0 / 255, 0.0), vision.HWC2CHW()], input_columns="image")
    ds = ds.batch(4, drop_remainder=True)
    got = list(ds.create_tuple_iterator(num_epochs=1, output_numpy=True))
    ref = rows(Cifar10Dataset(src, usage="train", shuffle=False))
    assert len(got) == 4
    img, label = got[1]
    assert img.shape == (4, 3, 32, 32) and img.dtype == np.float32
    np.testing.assert_allclose(img[0], ref[4]["image"].transpose(2, 0, 1) / 255.0, rtol=1e-6)
    assert [int(x) for x in label] == [int(r["label"]) for r in ref[4:8]]


def test_shuffle_shards_sampler_and_num_samples():
    src = compat_path("sources", "mnist")
    seq_rows = rows(MnistDataset(src, usage="train", shuffle=False))
    plain = [int(r["label"]) for r in seq_rows]
    seq = [r["image"].tobytes() for r in seq_rows]
    a = [r["image"].tobytes() for r in rows(MnistDataset(src, usage="train", seed=5))]  # shuffle=None shuffles
    b = [r["image"].tobytes() for r in rows(MnistDataset(src, usage="train", seed=5))]
    assert a == b and sorted(a) == sorted(seq) and a != seq
    shards = [rows(MnistDataset(src, usage="train", num_shards=3, shard_id=i, shuffle=False)) for i in range(3)]
    assert [len(s) for s in shards] == [7, 7, 7]  # ceil(20 / 3), the first row repeated to make up the count
    assert [int(r["label"]) for r in shards[1]] == [plain[i] for i in range(1, 20, 3)]
    assert sorted(r["image"].tobytes() for s in shards for r in s) == sorted(seq + [seq[0]])
    sub = rows(MnistDataset(src, usage="train", sampler=mindrecord.SubsetSampler([3, 0, 3])))
    assert [int(r["label"]) for r in sub] == [plain[3], plain[0], plain[3]]
    assert len(rows(MnistDataset(src, usage="train", num_samples=5, shuffle=False))) == 5


def test_state_dict_resume_and_repeat():
    src = compat_path("sources", "cifar10")
    make = lambda: Cifar10Dataset(src, seed=9).map(vision.HWC2CHW(), input_columns="image").batch(3)
    full = [b[1].tolist() for b in make().create_tuple_iterator(num_epochs=1, output_numpy=True)]
    ds = make()
    it = ds.create_tuple_iterator(num_epochs=1, output_numpy=True)
    head = [next(it)[1].tolist() for _ in range(2)]
    state = ds.state_dict()
    it.close()
    again = make()
    again.load_state_dict(state)
    tail = [b[1].tolist() for b in again.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    assert head + tail == full and len(full) == 7
    assert Cifar10Dataset(src, shuffle=False).repeat(2).get_dataset_size() == 40


def test_concat_with_converted_dataset(tmp_path):
    src = compat_path("sources", "mnist")
    out = str(tmp_path / "m.mindrecord")
    mindrecord.convert("mnist", src, out, encode="raw", split="train")
    mr = MindDataset(out[:-11] + "_train.mindrecord", columns_list=["label"], shuffle=False)
    raw = MnistDataset(src, usage="train", shuffle=False).project(["label"])
    both = rows(raw + mr)
    assert len(both) == 40
    assert [int(r["label"]) for r in both[:20]] == [int(r["label"]) for r in both[20:]]


def test_voc_detection_labels_are_mindspores():
    src = compat_path("sources", "voc2012")
    ds = VOCDataset(src, task="Detection", usage="train", shuffle=False, decode=True)
    assert ds.get_col_names() == ["image", "bbox", "label", "difficult", "truncated"]
    count = [0] * 6
    n = 0
    for item in ds.create_dict_iterator(num_epochs=1, output_numpy=True):
        n += 1
        assert item["image"].ndim == 3 and item["image"].shape[2] == 3
        assert item["bbox"].dtype == np.float32 and item["bbox"].shape[1] == 4
        assert item["label"].shape == (item["bbox"].shape[0], 1)
        for label in item["label"]:
            count[label[0]] += 1
    # MindSpore's test_voc_detection: labels = the used class names, sorted.
    assert n == 9 and count == [3, 2, 1, 2, 4, 3]
    idx = {"car": 0, "cat": 1, "chair": 2, "dog": 3, "person": 4, "train": 5}
    same = rows(VOCDataset(src, task="Detection", usage="train", shuffle=False, class_indexing=idx))
    assert [r["label"].tolist() for r in same] == [r["label"].tolist() for r in rows(ds)]


def test_voc_bbox_is_xywh_of_the_converted_xyxy(tmp_path):
    src = compat_path("sources", "voc2012")
    got = rows(VOCDataset(src, task="Detection", usage="train", shuffle=False))
    want = converted(tmp_path, "voc", src, task="detection")
    assert len(got) == len(want) == 9
    for g, w in zip(got, want):
        xyxy = w["bbox"].reshape(-1, 4)
        np.testing.assert_array_equal(g["bbox"], np.stack([xyxy[:, 0], xyxy[:, 1], xyxy[:, 2] - xyxy[:, 0],
                                                           xyxy[:, 3] - xyxy[:, 1]], axis=1))
        assert g["image"].tobytes() == w["image"].tobytes()
        assert g["difficult"].ravel().tolist() == w["difficult"].tolist()


def test_voc_segmentation():
    src = compat_path("sources", "voc2012")
    ds = VOCDataset(src, task="Segmentation", usage="train", shuffle=False)
    assert ds.get_col_names() == ["image", "target"]
    got = rows(ds)
    assert len(got) == 10
    assert got[0]["target"].tobytes() == open(os.path.join(src, "SegmentationClass", "32.png"), "rb").read()


def test_coco_detection_as_mindspores_test():
    src = compat_path("sources", "coco")
    ds = CocoDataset(os.path.join(src, "train"), annotation_file=os.path.join(src, "annotations", "train.json"),
                     task="Detection", decode=True, shuffle=False)
    assert ds.get_col_names() == ["image", "bbox", "category_id", "iscrowd"]
    got = rows(ds)
    assert len(got) == 6
    assert [r["bbox"].tolist() for r in got] == [
        [[10, 10, 10, 10], [70, 70, 70, 70]], [[20, 20, 20, 20], [80, 80, 80, 80]], [[30, 30, 30, 30]],
        [[40, 40, 40, 40]], [[50, 50, 50, 50]], [[60, 60, 60, 60]]]
    assert [r["category_id"].tolist() for r in got] == [[[1], [7]], [[2], [8]], [[3]], [[4]], [[5]], [[6]]]
    assert got[1]["iscrowd"].tolist() == [[0], [1]]
    assert got[0]["image"].ndim == 3


def test_coco_stuff_keypoint_panoptic_as_mindspores_tests():
    # MindSpore's test_datasets_coco.py over the same testCOCO files.
    src = compat_path("sources", "coco")
    train, ann = os.path.join(src, "train"), os.path.join(src, "annotations")
    stuff = CocoDataset(train, os.path.join(ann, "train.json"), task="Stuff", decode=True, shuffle=False)
    assert stuff.get_col_names() == ["image", "segmentation", "iscrowd"]
    got = rows(stuff)
    assert len(got) == 6 and got[0]["image"].shape == (2268, 4032, 3)
    np.testing.assert_array_equal(got[0]["segmentation"], [[10., 12., 13., 14., 15., 16., 17., 18., 19., 20.],
                                                           [70., 72., 73., 74., 75., -1., -1., -1., -1., -1.]])
    np.testing.assert_array_equal(got[0]["iscrowd"], [[0], [0]])
    np.testing.assert_array_equal(got[1]["segmentation"],
                                  [[20.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0],
                                   [10.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, -1.0]])
    np.testing.assert_array_equal(got[1]["iscrowd"], [[0], [1]])  # the second: an RLE, its run lengths
    np.testing.assert_array_equal(got[5]["segmentation"], [[60., 62., 63., 64., 65., 66., 67.],
                                                           [68., 69., 70., 71., 72., 73., 74.]])
    assert got[0]["segmentation"].dtype == np.float32
    with pytest.raises(RuntimeError, match="Class index only valid"):
        stuff.get_class_indexing()

    kp = CocoDataset(train, os.path.join(ann, "key_point.json"), task="Keypoint", decode=True, shuffle=False)
    assert kp.get_col_names() == ["image", "keypoints", "num_keypoints"]
    got = rows(kp)
    assert len(got) == 2 and got[0]["image"].shape == (2268, 4032, 3) and got[1]["image"].shape == (561, 595, 3)
    np.testing.assert_array_equal(got[0]["keypoints"], [[368., 61., 1., 369., 52., 2., 0., 0., 0., 382., 48., 2., 0.,
                                                         0., 0., 368., 84., 2., 435., 81., 2., 362., 125., 2., 446.,
                                                         125., 2., 360., 153., 2., 0., 0., 0., 397., 167., 1., 439.,
                                                         166., 1., 369., 193., 2., 461., 234., 2., 361., 246., 2.,
                                                         474., 287., 2.]])
    np.testing.assert_array_equal(got[0]["num_keypoints"], [[14]])
    np.testing.assert_array_equal(got[1]["num_keypoints"], [[10]])
    assert got[1]["keypoints"].shape == (1, 51)

    pan = CocoDataset(train, os.path.join(ann, "panoptic.json"), task="Panoptic", decode=True, shuffle=False)
    assert pan.get_col_names() == ["image", "bbox", "category_id", "iscrowd", "area"]
    got = rows(pan)
    assert len(got) == 2 and got[1]["image"].shape == (642, 675, 3)
    np.testing.assert_array_equal(got[0]["bbox"], [[472, 173, 36, 48], [340, 22, 154, 301], [486, 183, 30, 35]])
    np.testing.assert_array_equal(got[0]["category_id"], [[1], [1], [2]])
    np.testing.assert_array_equal(got[0]["iscrowd"], [[0], [0], [0]])
    np.testing.assert_array_equal(got[0]["area"], [[705], [14062], [626]])
    np.testing.assert_array_equal(got[1]["bbox"], [[103, 133, 229, 422], [243, 175, 93, 164]])
    np.testing.assert_array_equal(got[1]["area"], [[43102], [6079]])
    assert pan.get_class_indexing() == {"person": [1, 1], "bicycle": [2, 1], "car": [3, 1]}
    det = CocoDataset(train, os.path.join(ann, "train.json"), task="Detection")
    assert det.get_class_indexing() == {"person": [1], "bicycle": [2], "car": [3], "cat": [4], "dog": [5],
                                        "monkey": [6], "bag": [7], "orange": [8]}
    with pytest.raises(ValueError, match="Invalid task type"):
        CocoDataset(train, os.path.join(ann, "train.json"), task="Masks")


def test_coco_images_without_annotations_are_left_out(tmp_path):
    # As MindSpore's CocoDataset: an image no annotation names is no row.
    src = compat_path("sources", "coco")
    doc = json.load(open(os.path.join(src, "annotations", "train.json")))
    doc["annotations"] = [a for a in doc["annotations"] if a["image_id"] != 318219]
    ann = tmp_path / "some.json"
    ann.write_text(json.dumps(doc))
    ds = CocoDataset(os.path.join(src, "train"), str(ann), shuffle=False)
    assert [r["bbox"].tolist() for r in rows(ds)][:2] == [[[10, 10, 10, 10], [70, 70, 70, 70]], [[30, 30, 30, 30]]]
    assert ds.get_dataset_size() == 5


def test_torch_adapter_over_a_raw_source():
    torch = pytest.importorskip("torch")
    from mindrecord.torch import MindRecordDataset
    src = compat_path("sources", "cifar10")
    tds = MindRecordDataset(Cifar10Dataset(src, usage="train", shuffle=False), batch_size=4)
    batches = list(torch.utils.data.DataLoader(tds, batch_size=None))
    assert len(batches) == 4
    ref = rows(Cifar10Dataset(src, usage="train", shuffle=False))
    assert torch.equal(batches[0]["image"][2], torch.from_numpy(ref[2]["image"]))


def test_unsupported_keywords_raise_naming_them(folder):
    src = compat_path("sources", "coco")
    with pytest.raises(NotImplementedError, match="cache"):
        ImageFolderDataset(str(folder), cache=object())
    with pytest.raises(NotImplementedError, match="decrypt"):
        ImageFolderDataset(str(folder), decrypt=lambda b: b)
    with pytest.raises(NotImplementedError, match="Captioning"):
        CocoDataset(src, os.path.join(src, "annotations", "captions.json"), task="Captioning")
    with pytest.raises(NotImplementedError, match="extra_metadata"):
        VOCDataset(compat_path("sources", "voc2012"), extra_metadata=True)
    with pytest.raises(TypeError, match="no_such"):
        MnistDataset(str(folder), no_such=1)
    with pytest.raises(ValueError, match="usage"):
        MnistDataset(str(folder), usage="val")


def test_fifos_in_a_folder_are_refused_not_waited_on(tmp_path):
    """A FIFO where the dataset has an image or annotation: opening one for
    reading would wait for a writer a hostile folder never provides. A
    watchdog releases readers still blocked every 20 s, and the test fails."""
    import threading
    voc = tmp_path / "voc"
    shutil.copytree(compat_path("sources", "voc2012"), voc)
    fifos = [voc / "JPEGImages" / "32.jpg", voc / "Annotations" / "33.xml"]
    for f in fifos:
        f.unlink()
        os.mkfifo(f)
    done, hung = threading.Event(), []

    def watchdog():
        while not done.wait(20):
            hung.append(True)
            for f in fifos:
                try:
                    os.close(os.open(f, os.O_WRONLY | os.O_NONBLOCK))  # succeeds only with a reader waiting
                except OSError:
                    pass

    t = threading.Thread(target=watchdog)
    t.start()
    try:
        for bad in ("32", "33"):
            (voc / "ImageSets" / "Main" / "fifo.txt").write_text("%s\n39\n" % bad)  # 39: a good one
            ds = VOCDataset(str(voc), task="Detection", usage="fifo", shuffle=False)
            with pytest.raises(OSError, match="%s.*not a regular file" % bad):
                rows(ds)
    finally:
        done.set()
        t.join()
    assert not hung, "the dataset waited on a FIFO"


def test_bad_files_name_the_file(tmp_path):
    # Truncated CIFAR-10 binary: not a whole number of records.
    cif = tmp_path / "cifar"
    cif.mkdir()
    (cif / "data_batch_1.bin").write_bytes(bytes(3073 * 2 + 100))
    with pytest.raises(Exception, match="data_batch_1.bin"):
        Cifar10Dataset(str(cif))
    # Truncated MNIST images.
    mn = tmp_path / "mnist"
    shutil.copytree(compat_path("sources", "mnist"), mn)
    with gzip.open(mn / "train-images-idx3-ubyte.gz") as f:
        data = f.read()
    with gzip.open(mn / "train-images-idx3-ubyte.gz", "wb") as f:
        f.write(data[:16 + 784 * 3 + 10])
    with pytest.raises(Exception, match="train-images-idx3-ubyte.gz.*truncated"):
        MnistDataset(str(mn), usage="train")
    # A malformed VOC annotation fails its row, naming the XML.
    voc = compat_path("sources", "voc2012")
    ds = VOCDataset(voc, task="Detection", usage="invalidxml", class_indexing={"person": 0}, shuffle=False)
    with pytest.raises(RuntimeError, match="invalidxml.xml"):
        rows(ds)
    # Malformed COCO JSON.
    coco = compat_path("sources", "coco")
    with pytest.raises(Exception, match="invalid.json"):
        CocoDataset(os.path.join(coco, "train"), os.path.join(coco, "annotations", "invalid.json"))
    # An image file that is not an image, decoded.
    bad = tmp_path / "bad" / "cls"
    bad.mkdir(parents=True)
    (bad / "broken.jpg").write_bytes(b"\xff\xd8\xff\xe0 not a jpeg")
    with pytest.raises(RuntimeError, match="broken.jpg"):
        rows(ImageFolderDataset(str(tmp_path / "bad"), decode=True))


def celeba_folder(root, names=("000001.jpg", "000002.jpg", "000003.png", "000004.jpg"), parts=(0, 1, 0, 2)):
    root.mkdir()
    rng = np.random.default_rng(9)
    attrs = ["5_o_Clock_Shadow", "Arched_Eyebrows", "Attractive"]
    lines = ["%d" % len(names), " ".join(attrs) + " "]
    want = {}
    for k, n in enumerate(names):
        Image.fromarray(rng.integers(0, 256, (4, 6, 3), dtype=np.uint8)).save(str(root / n), format="JPEG")
        vals = [1 if (k + a) % 2 else -1 for a in range(3)]
        lines.append(n + "  " + " ".join("%2d" % v for v in vals) + "\r")
        want[n] = [1 if v == 1 else 0 for v in vals]
    (root / "list_attr_celeba.txt").write_text("\n".join(lines) + "\n")
    (root / "list_eval_partition.txt").write_text("".join("%s %d\n" % (n, p) for n, p in zip(names, parts)))
    return want


def test_celeba_images_attributes_and_partitions(tmp_path):
    root = tmp_path / "celeba"
    want = celeba_folder(root)
    data = mindrecord.CelebADataset(str(root), shuffle=False)
    assert data.get_col_names() == ["image", "attr"]
    got = rows(data)
    assert [bytes(r["image"]) for r in got] == [(root / n).read_bytes() for n in want]
    assert [r["attr"].tolist() for r in got] == list(want.values())
    assert got[0]["attr"].dtype == np.int32 and got[0]["attr"].shape == (3,)
    train = rows(mindrecord.dataset.CelebADataset(str(root), usage="train", shuffle=False))
    assert [r["attr"].tolist() for r in train] == [want["000001.jpg"], want["000003.png"]]
    assert mindrecord.CelebADataset(str(root), usage="test").get_dataset_size() == 1
    jpg = rows(mindrecord.CelebADataset(str(root), extensions=[".jpg"], decode=True, shuffle=False))
    assert len(jpg) == 3 and jpg[0]["image"].shape == (4, 6, 3)
    assert len(rows(mindrecord.CelebADataset(str(root), num_shards=2, shard_id=1))) == 2
    with pytest.raises(ValueError, match="usage should be"):
        mindrecord.CelebADataset(str(root), usage="val")
    with pytest.raises(NotImplementedError, match="decrypt"):
        mindrecord.CelebADataset(str(root), decrypt=lambda b: b)


@pytest.mark.parametrize("attr_line, message", [
    ("000002.jpg 1 x 1", r"list_attr_celeba.txt:4: 'x' is not an integer"),
    ("000002.jpg 1 1", r"list_attr_celeba.txt:4: 2 values, the names line has 3"),
    ("../../etc/passwd 1 1 1", r"list_attr_celeba.txt:4: '../../etc/passwd' is not a file name in the folder"),
])
def test_celeba_bad_lists_name_file_and_line(tmp_path, attr_line, message):
    root = tmp_path / "celeba"
    celeba_folder(root)
    lines = (root / "list_attr_celeba.txt").read_text().split("\n")
    lines[3] = attr_line
    (root / "list_attr_celeba.txt").write_text("\n".join(lines))
    with pytest.raises(mindrecord.CorruptionError, match=message):
        mindrecord.CelebADataset(str(root))


def test_celeba_partition_file_must_match_the_list(tmp_path):
    root = tmp_path / "celeba"
    celeba_folder(root)
    (root / "list_eval_partition.txt").write_text("000001.jpg 0\n000009.jpg 1\n")
    with pytest.raises(mindrecord.CorruptionError, match=r"list_eval_partition.txt:2: expected '000002.jpg <0\|1\|2>'"):
        mindrecord.CelebADataset(str(root), usage="train")
    (root / "list_eval_partition.txt").write_text("000001.jpg 7\n")
    with pytest.raises(mindrecord.CorruptionError, match=r"partition 7"):
        mindrecord.CelebADataset(str(root), usage="valid")
    assert mindrecord.CelebADataset(str(root)).get_dataset_size() == 4  # "all" does not read it
    (root / "list_eval_partition.txt").unlink()
    with pytest.raises(mindrecord.NotFoundError, match="list_eval_partition.txt is missing"):
        mindrecord.CelebADataset(str(root), usage="test")
    (root / "000002.jpg").write_bytes(b"not a jpeg")
    with pytest.raises(RuntimeError, match="000002.jpg"):
        list(mindrecord.CelebADataset(str(root), decode=True, shuffle=False))


def test_omniglot_labels_characters_across_alphabets(tmp_path):
    root = tmp_path / "omniglot" / "images_background"
    rng = np.random.default_rng(13)
    layout = {("Latin", "character02"): ["b.png", "a.png"], ("Greek", "character01"): ["x.png"],
              ("Latin", "character01"): ["c.png"]}
    for (alphabet, char), names in layout.items():
        (root / alphabet / char).mkdir(parents=True)
        for n in names:
            Image.fromarray(rng.integers(0, 256, (5, 5, 3), dtype=np.uint8)).save(str(root / alphabet / char / n))
    (root / "Latin" / "stray.txt").write_text("not a character folder")
    data = mindrecord.OmniglotDataset(str(tmp_path / "omniglot"), shuffle=False)
    got = [(bytes(r["image"]), int(r["label"])) for r in rows(data)]
    # "/Greek/character01" 0, "/Latin/character01" 1, "/Latin/character02" 2; files by name.
    order = [("Greek", "character01", "x.png", 0), ("Latin", "character01", "c.png", 1),
             ("Latin", "character02", "a.png", 2), ("Latin", "character02", "b.png", 2)]
    assert got == [((root / a / c / n).read_bytes(), label) for a, c, n, label in order]
    assert rows(mindrecord.dataset.OmniglotDataset(str(tmp_path / "omniglot"), decode=True,
                                                   shuffle=False))[0]["image"].shape == (5, 5, 3)
    with pytest.raises(mindrecord.NotFoundError, match="images_evaluation is not a folder"):
        mindrecord.OmniglotDataset(str(tmp_path / "omniglot"), background=False)


def test_places365_reads_its_list_from_the_size_folder(tmp_path):
    root = tmp_path / "places"
    (root / "data_256_standard" / "a" / "airfield").mkdir(parents=True)
    (root / "val_large").mkdir(parents=True)
    rng = np.random.default_rng(17)
    for n in ("00000001.jpg", "00000002.jpg"):
        Image.fromarray(rng.integers(0, 256, (4, 4, 3), dtype=np.uint8)).save(
            str(root / "data_256_standard" / "a" / "airfield" / n), format="JPEG")
    Image.fromarray(np.zeros((3, 3, 3), np.uint8)).save(str(root / "val_large" / "Places365_val_00000001.jpg"),
                                                        format="JPEG")
    (root / "categories_places365.txt").write_text("/a/airfield 0\n/a/airplane_cabin 1\n")
    (root / "places365_train_standard.txt").write_text("/a/airfield/00000002.jpg 0\n/a/airfield/00000001.jpg 1\n")
    (root / "places365_val.txt").write_text("Places365_val_00000001.jpg 165\n")
    got = rows(mindrecord.Places365Dataset(str(root), shuffle=False))
    assert [int(r["label"]) for r in got] == [0, 1]
    assert bytes(got[0]["image"]) == (root / "data_256_standard/a/airfield/00000002.jpg").read_bytes()
    val = rows(mindrecord.Places365Dataset(str(root), usage="val", small=False, decode=True, shuffle=False))
    assert int(val[0]["label"]) == 165 and val[0]["image"].shape == (3, 3, 3)
    # Leading separators are dropped; a name of dots other than ".." is a name.
    (root / "places365_train_standard.txt").write_text("//a/airfield/00000001.jpg 4\n/a/.../x.jpg 5\n")
    listed = mindrecord.Places365Dataset(str(root), shuffle=False)
    assert bytes(next(listed.create_tuple_iterator(output_numpy=True))[0]) == (
        root / "data_256_standard/a/airfield/00000001.jpg").read_bytes()
    assert listed.get_dataset_size() == 2
    for bad in ("../../secret.jpg", "/a/airfield/..", "a/../../x.jpg", ".."):
        (root / "places365_val.txt").write_text("%s 3\n" % bad)
        with pytest.raises(mindrecord.CorruptionError, match=r"places365_val.txt:1: the path leaves the image folder"):
            mindrecord.Places365Dataset(str(root), usage="val")
    (root / "places365_val.txt").write_text("x.jpg three\n")
    with pytest.raises(mindrecord.CorruptionError, match=r"places365_val.txt:1: label 'three'"):
        mindrecord.Places365Dataset(str(root), usage="val")
    (root / "categories_places365.txt").unlink()
    with pytest.raises(mindrecord.NotFoundError, match="categories_places365.txt is missing"):
        mindrecord.Places365Dataset(str(root))
    with pytest.raises(ValueError, match="Input usage is not within the valid set"):
        mindrecord.Places365Dataset(str(root), usage="train")


def test_food101_lists_labels_by_class_folder(tmp_path):
    root = tmp_path / "food-101"
    rng = np.random.default_rng(19)
    for cls, ids in (("apple_pie", ["1005649", "1011328"]), ("pho", ["17"])):
        (root / "images" / cls).mkdir(parents=True)
        for i in ids:
            Image.fromarray(rng.integers(0, 256, (4, 4, 3), dtype=np.uint8)).save(
                str(root / "images" / cls / (i + ".jpg")), format="JPEG")
    (root / "meta").mkdir()
    (root / "meta" / "train.txt").write_text("apple_pie/1011328\r\npho/17\n\n")
    (root / "meta" / "test.txt").write_text("apple_pie/1005649\n")
    got = rows(mindrecord.Food101Dataset(str(root), shuffle=False))  # all: train, then test
    assert [str(r["label"]) for r in got] == ["apple_pie", "pho", "apple_pie"]
    assert bytes(got[1]["image"]) == (root / "images/pho/17.jpg").read_bytes()
    assert got[0]["label"].dtype.kind == "U"
    test = rows(mindrecord.Food101Dataset(str(root), usage="test", decode=True, shuffle=False))
    assert test[0]["image"].shape == (4, 4, 3)
    (root / "meta" / "test.txt").write_text("sushi/1\n")
    with pytest.raises(mindrecord.CorruptionError, match=r"test.txt:1: 'sushi/1' is not CLASS/ID of a class folder"):
        mindrecord.Food101Dataset(str(root), usage="test")
    (root / "meta" / "test.txt").write_text("pho/../../x\n")
    with pytest.raises(mindrecord.CorruptionError, match=r"test.txt:1: the path leaves the image folder"):
        mindrecord.Food101Dataset(str(root), usage="test")
