import gzip
import os
import struct

import numpy as np
import pytest

import mindrecord
from mindrecord import vision
from conftest import compat_path, make_mnist, numpy_dicts


def report_of(converter):
    """Runs a converter as MindSpore code does (transform() returns SUCCESS)
    and gives its report."""
    assert converter.transform() == mindrecord.SUCCESS
    return converter.report


def idx_labels(path):
    with gzip.open(path, "rb") as f:
        magic, n = struct.unpack(">II", f.read(8))
        assert magic == 0x801
        return list(f.read(n))


def idx_images(path):
    with gzip.open(path, "rb") as f:
        magic, n, h, w = struct.unpack(">IIII", f.read(16))
        return np.frombuffer(f.read(n * h * w), np.uint8).reshape(n, h, w)


def test_mnist_to_mr_png_exact(tmp_path):
    src = str(tmp_path / "mnist")
    os.makedirs(src)
    make_mnist(src, train=60, test=20)
    dest = str(tmp_path / "mnist.mindrecord")
    rep = report_of(mindrecord.MnistToMR(src, dest, partition_number=2, encode="png"))
    assert rep["rows"] == 80 and [o["split"] for o in rep["outputs"]] == ["train", "test"]
    train = str(tmp_path / "mnist_train.mindrecord")
    assert rep["outputs"][0]["files"] == [train + "0", train + "1"]
    labels = idx_labels(os.path.join(src, "train-labels-idx1-ubyte.gz"))
    images = idx_images(os.path.join(src, "train-images-idx3-ubyte.gz"))
    r = mindrecord.FileReader(train + "0")
    assert len(r) == 60 and set(r.schema()) == {"data", "label"}
    got = {}
    ds = mindrecord.MindDataset(train + "0", shuffle=False).map(vision.Decode(), input_columns="data")
    for row in numpy_dicts(ds):
        img = row["data"]
        if img.ndim == 3:  # Decode gives RGB: three equal channels for a gray PNG
            assert (img == img[..., :1]).all()
            img = img[..., 0]
        matches = [i for i in range(60) if np.array_equal(images[i], img)]
        assert matches, "decoded image is not one of the source images"
        got[matches[0]] = int(row["label"])
    assert got == {i: labels[i] for i in range(60)}


def test_mnist_compat_and_errors(tmp_path):
    src = compat_path("sources", "mnist")
    # MindSpore's test t10k images file is truncated (10 of 20 images).
    with pytest.raises(mindrecord.CorruptionError, match="t10k-images"):
        mindrecord.MnistToMR(src, str(tmp_path / "m")).transform()
    assert os.listdir(tmp_path) == []
    rep = report_of(mindrecord.MnistToMR(src, str(tmp_path / "m"), on_error="skip"))
    assert rep["rows"] == 30 and rep["skipped"]
    assert rep["skipped_count"] == len(rep["skipped"])
    with open(rep["skipped_file"]) as f:
        assert f.read().splitlines() == rep["skipped"]
    with pytest.raises(FileExistsError):
        mindrecord.MnistToMR(src, str(tmp_path / "m"), on_error="skip").transform()
    rep = report_of(mindrecord.MnistToMR(src, str(tmp_path / "m"), on_error="skip", overwrite=True))
    assert rep["rows"] == 30
    with pytest.raises(FileNotFoundError):
        mindrecord.MnistToMR(str(tmp_path / "nothing"), str(tmp_path / "x")).transform()
    with pytest.raises(ValueError):
        mindrecord.MnistToMR(src, str(tmp_path / "x"), partition_number=0)
    with pytest.raises(ValueError):
        mindrecord.MnistToMR(src, str(tmp_path / "x"), bogus=1)


@pytest.mark.parametrize("cls,src,rows,fields", [
    (mindrecord.Cifar10ToMR, "cifar10", 20, {"id", "data", "label"}),
    (mindrecord.Cifar100ToMR, "cifar100", 20, {"id", "data", "fine_label", "coarse_label"}),
])
def test_cifar(tmp_path, cls, src, rows, fields):
    rep = report_of(cls(compat_path("sources", src), str(tmp_path / "c.mindrecord")))
    assert rep["rows"] == rows
    train = rep["outputs"][0]["files"][0]
    assert set(mindrecord.FileReader(train).schema()) == fields
    with pytest.raises(ValueError):
        cls(compat_path("sources", src), str(tmp_path / "d.mindrecord")).transform(fields=["nope"])


def test_imagenet_map_file(tmp_path):
    d = compat_path("sources", "imagenet_map")
    ann = os.path.join(d, "annotation.txt")
    rep = report_of(mindrecord.ImageNetToMR(ann, os.path.join(d, "images"), str(tmp_path / "in.mindrecord")))
    want = [ln.strip().rsplit(",", 1) for ln in open(ann) if ln.strip()]
    assert rep["rows"] == len(want)
    rows = list(mindrecord.FileReader(str(tmp_path / "in.mindrecord")).get_next())
    assert [int(r["label"]) for r in rows] == [int(w[1]) for w in want]
    for r, (name, _) in zip(rows, want):
        with open(os.path.join(d, "images", name), "rb") as f:
            assert r["image"] == f.read()  # original bytes kept


def test_imagenet_folder_map_and_imagefolder(tmp_path):
    from test_dataset import _png
    root = tmp_path / "imgs"
    for cls in ("n01", "n02"):
        os.makedirs(root / cls)
        for i in range(3):
            (root / cls / ("%d.png" % i)).write_bytes(_png(4, 4, i)[0])
    (tmp_path / "map.txt").write_text("n01 0\nn02 7\n")
    rep = report_of(mindrecord.ImageNetToMR(str(tmp_path / "map.txt"), str(root), str(tmp_path / "a.mindrecord")))
    assert rep["rows"] == 6
    labels = sorted(int(r["label"]) for r in mindrecord.FileReader(str(tmp_path / "a.mindrecord")).get_next())
    assert labels == [0, 0, 0, 7, 7, 7]
    rep = report_of(mindrecord.ImageFolderToMR(str(root), str(tmp_path / "b.mindrecord")))
    assert rep["rows"] == 6
    labels = sorted(int(r["label"]) for r in mindrecord.FileReader(str(tmp_path / "b.mindrecord")).get_next())
    assert labels == [0, 0, 0, 1, 1, 1]


def test_csv(tmp_path):
    src = compat_path("sources", "csv", "data.csv")
    rep = report_of(mindrecord.CsvToMR(src, str(tmp_path / "csv.mindrecord")))
    lines = [ln for ln in open(src).read().splitlines() if ln.strip()]
    assert rep["rows"] == len(lines) - 1
    rows = list(mindrecord.FileReader(str(tmp_path / "csv.mindrecord")).get_next())
    assert [r["Name"] for r in rows] == [ln.split(",")[2] for ln in lines[1:]]


def test_tfrecord(tmp_path):
    src = compat_path("sources", "tfrecord", "dummy.tfrecord")
    rep = report_of(mindrecord.TFRecordToMR(src, str(tmp_path / "tf.mindrecord")))
    assert rep["rows"] > 0
    assert len(mindrecord.FileReader(str(tmp_path / "tf.mindrecord"))) == rep["rows"]


def test_voc_and_coco(tmp_path):
    voc = compat_path("sources", "voc2012")
    rep = report_of(mindrecord.VOCToMR(voc, str(tmp_path / "voc.mindrecord"), on_error="skip"))
    assert rep["rows"] > 0
    coco = compat_path("sources", "coco")
    rep = report_of(mindrecord.CocoToMR(os.path.join(coco, "train"), os.path.join(coco, "annotations", "train.json"),
                              str(tmp_path / "coco.mindrecord")))
    assert rep["rows"] > 0
    with pytest.raises((ValueError, OSError)):
        mindrecord.CocoToMR(os.path.join(coco, "train"), os.path.join(coco, "annotations", "invalid.json"),
                            str(tmp_path / "coco2.mindrecord")).transform()
    assert not os.path.exists(str(tmp_path / "coco2.mindrecord"))


def test_coco_panoptic_dir(tmp_path):
    coco = compat_path("sources", "coco")
    ann = os.path.join(coco, "annotations", "panoptic.json")
    out = str(tmp_path / "pan.mindrecord")
    with pytest.raises((ValueError, OSError), match="panoptic-dir"):  # compat ships no PNGs
        mindrecord.CocoToMR(os.path.join(coco, "train"), ann, out, task="panoptic").transform()
    pngs = tmp_path / "png"
    pngs.mkdir()
    # Any PNG will do: the converter stores the bytes as they are.
    png = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010800000000"
                        "3a7e9b550000000a49444154789c636000000002000154a24f5d0000000049454e44ae426082")
    for name in ("000000391895.png", "000000574769.png"):
        (pngs / name).write_bytes(png)
    rep = report_of(mindrecord.CocoToMR(os.path.join(coco, "train"), ann, out, task="panoptic",
                              panoptic_dir=str(pngs)))
    assert rep["rows"] == 2
    reader = mindrecord.FileReader(out)
    rows = list(reader.get_next())
    assert rows[0]["mask"] == png
    reader.close()


def test_imagefolder_takes_messy_folders_as_torchvision_does(tmp_path):
    # A README beside the classes, notes among the images, images in nested
    # folders and upper-case extensions: the same classes and samples, in the
    # same order, as torchvision's ImageFolder; an empty class is refused by both.
    tv = pytest.importorskip("torchvision.datasets")
    from test_dataset import _png
    root = tmp_path / "messy"
    files = ["cat/b.png", "cat/a.PNG", "cat/sub/z.png", "cat/sub/deeper/y.png", "cat/sub2/x.png",
             "dog/c.png", "dog/sub/d.png", "Zebra/e.png"]
    for i, f in enumerate(files):
        os.makedirs((root / f).parent, exist_ok=True)
        (root / f).write_bytes(_png(4, 4, i)[0])
    (root / "README.txt").write_text("about this dataset")
    (root / "dog" / "notes.txt").write_text("not an image")
    (root / "cat" / "sub" / "labels.csv").write_text("x")
    want = tv.ImageFolder(str(root))
    rep = mindrecord.convert("imagefolder", str(root), str(tmp_path / "m.mindrecord"))
    assert rep["rows"] == len(want.samples) == len(files)
    rows = list(mindrecord.FileReader(str(tmp_path / "m.mindrecord")).get_next())
    got = [(r["file_name"], int(r["label"])) for r in rows]
    assert got == [(os.path.relpath(p, root), c) for p, c in want.samples]
    os.makedirs(root / "empty")
    with pytest.raises(FileNotFoundError):
        tv.ImageFolder(str(root))
    with pytest.raises(mindrecord.CorruptionError, match="'empty' hold no image"):
        mindrecord.convert("imagefolder", str(root), str(tmp_path / "n.mindrecord"))
    assert not os.path.exists(tmp_path / "n.mindrecord")
