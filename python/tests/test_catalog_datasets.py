"""Loaders over datasets their own lists describe (mindrecord.catalog_datasets):
each on a small folder of its layout written here, through the Python API."""
import numpy as np
import pytest
from PIL import Image

import mindrecord


def rows(ds):
    return [{k: np.asarray(v) for k, v in r.items()} for r in ds.create_dict_iterator(num_epochs=1, output_numpy=True)]


def jpeg(path, seed, size=(6, 5)):
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    Image.fromarray(rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)).save(str(path), format="JPEG")
    return path.read_bytes()


def lfw_folder(root, image_set="lfw_funneled"):
    people = {"Ann_Lee": 2, "Bob_Ray": 1, "Cy_Twombly": 3}
    images = {}
    for k, (name, n) in enumerate(people.items()):
        for i in range(1, n + 1):
            images[(name, i)] = jpeg(root / image_set / name / ("%s_%04d.jpg" % (name, i)), 10 * k + i)
    (root / "lfw-names.txt").write_text("Ann_Lee\t2\nBob_Ray\t1\nCy_Twombly\t3\n")
    (root / "peopleDevTrain.txt").write_text("2\nCy_Twombly 3\nAnn_Lee 1\n")
    (root / "peopleDevTest.txt").write_text("1\nBob_Ray\t1\n")
    (root / "people.txt").write_text("2\n1\nBob_Ray 1\n2\nAnn_Lee 2\nCy_Twombly 1\n")
    (root / "pairsDevTrain.txt").write_text("1\nCy_Twombly 1 3\nAnn_Lee 2 Bob_Ray 1\n")
    (root / "pairsDevTest.txt").write_text("1\nAnn_Lee 1 2\nCy_Twombly 2 Ann_Lee 1\n")
    (root / "pairs.txt").write_text("2 1\nAnn_Lee 1 2\nBob_Ray 1 Cy_Twombly 2\nCy_Twombly 2 3\nAnn_Lee 1 Cy_Twombly 1\n")
    return images


def test_lfw_people_and_pairs_in_list_order(tmp_path):
    images = lfw_folder(tmp_path)
    d = str(tmp_path)
    got = rows(mindrecord.LFWDataset(d, shuffle=False))  # people, all: DevTrain then DevTest
    want = [("Cy_Twombly", 1, 2), ("Cy_Twombly", 2, 2), ("Cy_Twombly", 3, 2), ("Ann_Lee", 1, 0), ("Bob_Ray", 1, 1)]
    assert [(bytes(r["image"]), int(r["label"])) for r in got] == [(images[(n, i)], label) for n, i, label in want]
    assert got[0]["label"].dtype == np.int32 and got[0]["label"].shape == ()
    tenfold = rows(mindrecord.dataset.LFWDataset(d, usage="10fold", shuffle=False))
    assert [int(r["label"]) for r in tenfold] == [1, 0, 0, 2]
    pairs = rows(mindrecord.LFWDataset(d, task="pairs", usage="train", shuffle=False))
    assert [(bytes(r["image1"]), bytes(r["image2"]), int(r["label"])) for r in pairs] == [
        (images[("Cy_Twombly", 1)], images[("Cy_Twombly", 3)], 1),
        (images[("Ann_Lee", 2)], images[("Bob_Ray", 1)], 0)]
    folds = rows(mindrecord.LFWDataset(d, task="pairs", usage="10fold", shuffle=False))
    assert [int(r["label"]) for r in folds] == [1, 0, 1, 0]
    assert bytes(folds[3]["image2"]) == images[("Cy_Twombly", 1)]
    decoded = rows(mindrecord.LFWDataset(d, usage="test", decode=True, shuffle=False))
    assert decoded[0]["image"].shape == (5, 6, 3) and decoded[0]["image"].dtype == np.uint8
    # A pipeline over it: shuffled, sharded, mapped and batched.
    ds = mindrecord.LFWDataset(d, task="pairs", num_shards=2, shard_id=1, decode=True)
    ds = ds.map(mindrecord.vision.Resize((4, 4)), input_columns=["image1"]).batch(2)
    (batch,) = list(ds.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert batch[0].shape == (2, 4, 4, 3) and batch[2].shape == (2,)


def test_lfw_image_sets_and_arguments(tmp_path):
    lfw_folder(tmp_path, image_set="lfw")
    # The people list's counts are checked against the folders when the dataset is made.
    with pytest.raises(mindrecord.CorruptionError, match=r"peopleDevTrain.txt:2: the list gives 'Cy_Twombly' 3 images "
                       r"\(up to .*lfw_funneled/Cy_Twombly/Cy_Twombly_0003.jpg\), its folder holds 0 files"):
        mindrecord.LFWDataset(str(tmp_path), shuffle=False)
    with pytest.raises(RuntimeError, match="lfw_funneled/Cy_Twombly/Cy_Twombly_0001.jpg"):
        rows(mindrecord.LFWDataset(str(tmp_path), task="pairs", usage="train", shuffle=False))
    assert len(rows(mindrecord.LFWDataset(str(tmp_path), image_set="original"))) == 5
    with pytest.raises(ValueError, match="Input task is not within the valid set"):
        mindrecord.LFWDataset(str(tmp_path), task="faces")
    with pytest.raises(ValueError, match="Input usage"):
        mindrecord.LFWDataset(str(tmp_path), usage="valid")
    with pytest.raises(TypeError, match="image_set must be a str"):
        mindrecord.LFWDataset(str(tmp_path), image_set=1)
    with pytest.raises(NotImplementedError, match="cache"):
        mindrecord.LFWDataset(str(tmp_path), cache=object())


@pytest.mark.parametrize("name, text, message", [
    ("peopleDevTrain.txt", "3\nCy_Twombly 3\nAnn_Lee 1\n", r"peopleDevTrain.txt: ends before 'name count'"),
    ("peopleDevTrain.txt", "1\nCy_Twombly 3\nAnn_Lee 1\n", r"peopleDevTrain.txt:3: a line past the entries"),
    ("peopleDevTrain.txt", "x\n", r"peopleDevTrain.txt:1: 'x' is not a whole number"),
    ("peopleDevTrain.txt", "1\nDan_Brown 1\n", r"peopleDevTrain.txt:2: 'Dan_Brown' is not a name of lfw-names.txt"),
    ("peopleDevTrain.txt", "1\nCy_Twombly -3\n", r"peopleDevTrain.txt:2: '-3' is not a whole number"),
    ("peopleDevTrain.txt", "1\nCy_Twombly 077777777\n",
     r"peopleDevTrain.txt:2: the list gives 'Cy_Twombly' 77777777 images .*Cy_Twombly_77777777.jpg\), its folder holds 3 "),
    ("peopleDevTrain.txt", "1\nCy_Twombly 4\n", r"the list gives 'Cy_Twombly' 4 images .*, its folder holds 3 files"),
    ("pairsDevTrain.txt", "1\n.. 1 3\nAnn_Lee 2 Bob_Ray 1\n", r"pairsDevTrain.txt:2: '..' is not a person's folder"),
    ("pairsDevTrain.txt", "1\nCy_Twombly 1\n", r"pairsDevTrain.txt:2: expected 'name i j', got 2 fields"),
    ("lfw-names.txt", "Ann_Lee 2\nAnn_Lee 1\n", r"lfw-names.txt:2: 'Ann_Lee' is named twice"),
])
def test_lfw_bad_lists_name_the_file_and_line(tmp_path, name, text, message):
    lfw_folder(tmp_path)
    (tmp_path / name).write_text(text)
    task = "pairs" if name.startswith("pairs") else "people"
    with pytest.raises(mindrecord.CorruptionError, match=message):
        mindrecord.LFWDataset(str(tmp_path), task=task, usage="train")


def test_lfw_missing_names_file(tmp_path):
    lfw_folder(tmp_path)
    (tmp_path / "lfw-names.txt").unlink()
    with pytest.raises(mindrecord.NotFoundError, match="lfw-names.txt is missing"):
        mindrecord.LFWDataset(str(tmp_path))


def png(path, seed, size=(4, 3)):
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    Image.fromarray(rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)).save(str(path), format="PNG")
    return path.read_bytes()


def test_lsun_folders_by_class_and_usage(tmp_path):
    want = {}
    for k, folder in enumerate(["bedroom_train_lmdb", "bedroom_val", "classroom_train", "classroom_val", "test"]):
        for i in (1, 0):
            want[(folder, i)] = jpeg(tmp_path / folder / ("img%d.webp" % i), 10 * k + i)
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    got = rows(mindrecord.LSUNDataset(str(tmp_path), shuffle=False))
    order = ["bedroom_train_lmdb", "bedroom_val", "classroom_train", "classroom_val"]
    assert [(bytes(r["image"]), int(r["label"])) for r in got] == [
        (want[(f, i)], k) for k, f in enumerate(order) for i in (0, 1)]
    train = rows(mindrecord.LSUNDataset(str(tmp_path), usage="train", classes=["classroom"], shuffle=False))
    assert [bytes(r["image"]) for r in train] == [want[("classroom_train", 0)], want[("classroom_train", 1)]]
    assert [int(r["label"]) for r in rows(mindrecord.LSUNDataset(str(tmp_path), usage="test"))] == [0, 0]
    with pytest.raises(TypeError, match="classes must be a list"):
        mindrecord.LSUNDataset(str(tmp_path), classes="bedroom")
    with pytest.raises(ValueError, match="Input classes is not within the valid set"):
        mindrecord.LSUNDataset(str(tmp_path), classes=["kitchen", "garage"])
    with pytest.raises(mindrecord.NotFoundError, match="no folder .* is named for the classes"):
        mindrecord.LSUNDataset(str(tmp_path), classes=["tower"])


def test_div2k_pairs_by_downgrade_and_scale(tmp_path):
    hr = {}
    for split in ("train", "valid"):
        for n in ("0002", "0001"):
            hr[(split, n)] = png(tmp_path / ("DIV2K_%s_HR" % split) / (n + ".png"), int(n))
            png(tmp_path / ("DIV2K_%s_LR_bicubic" % split) / "X2" / (n + "x2.png"), 10 + int(n))
            png(tmp_path / ("DIV2K_%s_LR_mild" % split) / (n + "x4m.png"), 20 + int(n))
    (tmp_path / "DIV2K_train_HR" / "readme.txt").write_text("not a png")
    got = rows(mindrecord.DIV2KDataset(str(tmp_path), usage="all", shuffle=False))
    assert [bytes(r["hr_image"]) for r in got] == [hr[(s, n)] for s in ("train", "valid") for n in ("0001", "0002")]
    assert bytes(got[0]["lr_image"]) == (tmp_path / "DIV2K_train_LR_bicubic" / "X2" / "0001x2.png").read_bytes()
    mild = rows(mindrecord.DIV2KDataset(str(tmp_path), downgrade="mild", scale=4, decode=True, shuffle=False))
    assert [r["lr_image"].shape for r in mild] == [(3, 4, 3)] * 2
    with pytest.raises(ValueError, match="scale equal to 8 is allowed only in bicubic"):
        mindrecord.DIV2KDataset(str(tmp_path), downgrade="unknown", scale=8)
    with pytest.raises(ValueError, match="mild downgrade requires scale equal to 4"):
        mindrecord.DIV2KDataset(str(tmp_path), downgrade="mild", scale=2)
    with pytest.raises(TypeError):
        mindrecord.DIV2KDataset(str(tmp_path), usage=None)
    (tmp_path / "DIV2K_valid_LR_bicubic" / "X2" / "0002x2.png").unlink()
    with pytest.raises(mindrecord.NotFoundError, match="0002x2.png, the low-resolution image of .*0002.png, is missing"):
        mindrecord.DIV2KDataset(str(tmp_path), usage="valid")


def test_flickr_captions_per_image_sorted_by_name(tmp_path):
    b = jpeg(tmp_path / "b.jpg", 1)
    a = jpeg(tmp_path / "a.jpg", 2)
    token = tmp_path / "Flickr8k.token.txt"
    token.write_text("b.jpg#0\tA dog runs.\r\na.jpg#0\tTwo cats.\n\nb.jpg#1\tA brown dog \\ runs.\n")
    got = rows(mindrecord.FlickrDataset(str(tmp_path), str(token), shuffle=False))
    assert [bytes(r["image"]) for r in got] == [a, b]
    assert [list(r["annotation"]) for r in got] == [["Two cats."], ["A dog runs.", "A brown dog \\ runs."]]
    for line, message in [("c.jpg\tno number\n", r"Flickr8k.token.txt:1: expected 'IMAGE#N<tab>caption'"),
                          ("../b.jpg#0\tescape\n", r":1: '../b.jpg' is not an image file name"),
                          ("a.jpg#0\t\n", r":1: the caption is empty")]:
        token.write_text(line)
        with pytest.raises(mindrecord.CorruptionError, match=message):
            mindrecord.FlickrDataset(str(tmp_path), str(token))
    token.write_text("c.jpg#0\tmissing\n")
    with pytest.raises(mindrecord.NotFoundError, match="c.jpg, listed in .*, is missing"):
        mindrecord.FlickrDataset(str(tmp_path), str(token))
    with pytest.raises(ValueError, match="does not exist"):
        mindrecord.FlickrDataset(str(tmp_path), str(tmp_path / "none.txt"))


def kitti_folder(root):
    images = root / "data_object_image_2" / "training" / "image_2"
    labels = root / "data_object_label_2" / "training" / "label_2"
    labels.mkdir(parents=True)
    want = [png(images / ("%06d.png" % i), i) for i in range(3)]
    (labels / "000000.txt").write_text(
        "Pedestrian 0.00 0 -0.20 712.40 143.00 810.73 307.92 1.89 0.48 1.20 1.84 1.47 8.41 0.01\n"
        "Car 0.50 2 1.5 1 2 3 4 5 6 7 8 9 10 -1.5 extra\n")
    (labels / "000001.txt").write_text("")
    (labels / "000002.txt").write_text("\nDontCare -1 -1 -10 1 2 3 4 -1 -1 -1 -1000 -1000 -1000 -10\n")
    for i in range(3):
        png(root / "data_object_image_2" / "testing" / "image_2" / ("%06d.png" % i), 10 + i)
    return want, labels


def test_kitti_objects_per_image(tmp_path):
    want, labels = kitti_folder(tmp_path)
    got = rows(mindrecord.KITTIDataset(str(tmp_path), shuffle=False))
    assert [bytes(r["image"]) for r in got] == [want[0], want[2]]  # 000001 has no objects: left out
    first = got[0]
    assert first["label"].tolist() == [[2], [0]]  # Car 0, DontCare 1, Pedestrian 2
    assert first["label"].dtype == np.int32 and first["occluded"].tolist() == [[0], [2]]
    np.testing.assert_allclose(first["bbox"], [[712.40, 143.00, 810.73, 307.92], [1, 2, 3, 4]], rtol=1e-6)
    np.testing.assert_allclose(first["location"][1], [8, 9, 10])
    assert first["rotation_y"].shape == (2, 1) and first["truncated"].dtype == np.float32
    assert got[1]["occluded"].tolist() == [[-1]]
    ds = mindrecord.KITTIDataset(str(tmp_path))
    assert ds.get_class_indexing() == {"Car": 0, "DontCare": 1, "Pedestrian": 2}
    assert [list(r) for r in rows(mindrecord.KITTIDataset(str(tmp_path), usage="test", shuffle=False))] == [["image"]] * 3
    (labels / "000002.txt").write_text("Car 0 0 0 1 2 3\n")
    with pytest.raises(mindrecord.CorruptionError, match=r"000002.txt:1: 7 fields, an object has 15"):
        mindrecord.KITTIDataset(str(tmp_path))
    (labels / "000002.txt").write_text("Car 0 0 x 1 2 3 4 5 6 7 8 9 10 11\n")
    with pytest.raises(mindrecord.CorruptionError, match=r"000002.txt:1: 'x' is not a number"):
        mindrecord.KITTIDataset(str(tmp_path))
    (labels / "000002.txt").unlink()
    with pytest.raises(mindrecord.NotFoundError, match="000002.txt is missing"):
        mindrecord.KITTIDataset(str(tmp_path))


def test_widerface_boxes_by_image(tmp_path):
    want = {}
    for split, event, name in [("train", "0--Parade", "b.jpg"), ("train", "0--Parade", "a.jpg"),
                               ("train", "1--Handshaking", "c.jpg"), ("val", "0--Parade", "v.jpg"),
                               ("test", "0--Parade", "t.jpg")]:
        want[name] = jpeg(tmp_path / ("WIDER_" + split) / "images" / event / name, len(want))
    (tmp_path / "WIDER_train" / "images" / "0--Parade" / "x.png").write_bytes(b"not a jpg")
    split = tmp_path / "wider_face_split"
    split.mkdir()
    (split / "wider_face_train_bbx_gt.txt").write_text(
        "0--Parade/a.jpg\n2\n449 330 122 149 0 0 0 0 0 0 \n361 98 263 339 2 1 0 1 0 1 \n"
        "0--Parade/b.jpg\n0\n0 0 0 0 0 0 0 0 0 0 \n")
    (split / "wider_face_val_bbx_gt.txt").write_text("0--Parade/v.jpg\r\n1\r\n1 2 3 4 1 0 1 0 1 0\r\n")
    got = rows(mindrecord.WIDERFaceDataset(str(tmp_path), shuffle=False))
    assert [bytes(r["image"]) for r in got] == [want[n] for n in ("a.jpg", "b.jpg", "c.jpg", "v.jpg")]
    assert got[0]["bbox"].tolist() == [[449, 330, 122, 149], [361, 98, 263, 339]]
    assert got[0]["blur"].tolist() == [0, 2] and got[0]["invalid"].tolist() == [0, 1]
    assert got[1]["bbox"].tolist() == [[0, 0, 0, 0]]  # a count of 0: MindSpore's one all-zero box
    assert got[2]["bbox"].shape == (0, 4) and got[2]["pose"].shape == (0,)  # not in the file: no boxes
    assert got[3]["bbox"].tolist() == [[1, 2, 3, 4]] and got[3]["bbox"].dtype == np.int32
    test = rows(mindrecord.WIDERFaceDataset(str(tmp_path), usage="test"))
    assert [list(r) for r in test] == [["image"]]
    (split / "wider_face_train_bbx_gt.txt").write_text("0--Parade/a.jpg\n2\n449 330 122 149 0 0 0 0 0 0\n")
    with pytest.raises(mindrecord.CorruptionError, match=r"bbx_gt.txt:1: the file ends before the image's 2 box"):
        mindrecord.WIDERFaceDataset(str(tmp_path), usage="train")
    (split / "wider_face_train_bbx_gt.txt").write_text("0--Parade/a.jpg\n1\n449 330 122 x 0 0 0 0 0 0\n")
    with pytest.raises(mindrecord.CorruptionError, match=r"bbx_gt.txt:3: 'x' is not a whole number"):
        mindrecord.WIDERFaceDataset(str(tmp_path), usage="train")


def test_manifest_usage_labels_and_class_indexing(tmp_path):
    imgs = [jpeg(tmp_path / "img" / ("%d.jpg" % i), i) for i in range(4)]
    lines = [{"source": str(tmp_path / "img" / "0.jpg"), "usage": "TRAIN", "annotation": [{"name": "dog"}]},
             {"source": str(tmp_path / "img" / "1.jpg"), "usage": "eval", "annotation": [{"name": "cat"}]},
             {"source": str(tmp_path / "img" / "2.jpg"), "usage": "train",
              "annotation": [{"name": "flower"}, {"name": "cat"}]},
             {"source": str(tmp_path / "img" / "3.jpg"), "usage": "train", "annotation": [{"name": "cat"}]}]
    manifest = tmp_path / "data.manifest"
    import json
    manifest.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    ds = mindrecord.ManifestDataset(str(manifest), shuffle=False)
    got = rows(ds)
    assert [bytes(r["image"]) for r in got] == [imgs[0], imgs[2], imgs[3]]
    assert [r["label"].tolist() for r in got] == [1, [2, 0], 0]
    assert ds.get_class_indexing() == {"cat": 0, "dog": 1, "flower": 2}
    ev = mindrecord.ManifestDataset(str(manifest), usage="eval", class_indexing={"cat": 7, "bird": 3})
    assert [int(r["label"]) for r in rows(ev)] == [7] and ev.get_class_indexing() == {"cat": 7, "bird": 3}
    only_dog = rows(mindrecord.ManifestDataset(str(manifest), class_indexing={"dog": 11}, shuffle=False))
    assert [int(r["label"]) for r in only_dog] == [11]
    manifest.write_text(json.dumps(lines[0]) + "\n{\"source\": \n")
    with pytest.raises(mindrecord.CorruptionError, match=r"data.manifest:2: not a JSON object"):
        mindrecord.ManifestDataset(str(manifest))
    manifest.write_text(json.dumps({"usage": "train", "annotation": []}) + "\n")
    with pytest.raises(mindrecord.CorruptionError, match=r"data.manifest:1: 'source' is missing"):
        mindrecord.ManifestDataset(str(manifest))
    with pytest.raises(ValueError, match="Input usage is not within the valid set"):
        mindrecord.ManifestDataset(str(manifest), usage="Train")


def test_sbu_photos_that_are_there(tmp_path):
    images = tmp_path / "sbu_images"
    a = jpeg(images / "m_3326_a_b.jpg", 1)
    c = jpeg(images / "m_1_c.jpg", 3)
    (tmp_path / "SBU_captioned_photo_dataset_urls.txt").write_text(
        "http://static.flickr.com/3326/a_b.jpg\nhttp://static.flickr.com/2/gone.jpg\n\n"
        "http://static.flickr.com/1/c.jpg\n")
    (tmp_path / "SBU_captioned_photo_dataset_captions.txt").write_text(" This is 0  \nlost\n\nthird\n")
    got = rows(mindrecord.SBUDataset(str(tmp_path), shuffle=False))
    assert [(bytes(r["image"]), str(r["caption"])) for r in got] == [(a, " This is 0"), (c, "third")]
    (tmp_path / "SBU_captioned_photo_dataset_captions.txt").write_text(" This is 0\nlost\n")
    with pytest.raises(mindrecord.CorruptionError, match="urls.txt has 4 lines, .*captions.txt 2"):
        mindrecord.SBUDataset(str(tmp_path))


def test_rendered_sst2_splits_and_labels(tmp_path):
    want = {}
    for split in ("train", "valid", "test"):
        for cls in ("positive", "negative"):
            want[(split, cls)] = png(tmp_path / split / cls / "00001.png", len(want))
    jpeg(tmp_path / "train" / "positive" / "00002.jpg", 99)
    ds = mindrecord.RenderedSST2Dataset(str(tmp_path), shuffle=False)
    got = [(bytes(r["image"]), int(r["label"])) for r in rows(ds)]
    assert got == [(want[(s, c)], {"negative": 0, "positive": 1}[c])
                   for s in ("test", "train", "valid") for c in ("negative", "positive")]
    assert ds.get_class_indexing() == {"negative": 0, "positive": 1}
    assert len(rows(mindrecord.RenderedSST2Dataset(str(tmp_path), usage="val"))) == 2
    with pytest.raises(ValueError, match="Input usage"):
        mindrecord.RenderedSST2Dataset(str(tmp_path), usage="valid")


def test_multi30k_sentence_pairs(tmp_path):
    for folder, name, en, de in [("training", "train", "A man.\nTwo dogs.\n", "Ein Mann.\nZwei Hunde.\n"),
                                 ("validation", "val", "A cat.\n\n", "Eine Katze.\n\n"),
                                 ("mmt16_task1_test", "test", "A bird.\r\n", "Ein Vogel.\r\n")]:
        (tmp_path / folder).mkdir()
        (tmp_path / folder / (name + ".en")).write_text(en)
        (tmp_path / folder / (name + ".de")).write_text(de)
    got = [(str(r["text"]), str(r["translation"])) for r in rows(mindrecord.Multi30kDataset(str(tmp_path),
                                                                                           shuffle=False))]
    assert got == [("A bird.\r", "Ein Vogel.\r"), ("A man.", "Ein Mann."), ("Two dogs.", "Zwei Hunde."),
                   ("A cat.", "Eine Katze.")]
    de = rows(mindrecord.Multi30kDataset(str(tmp_path), usage="train", language_pair=("de", "en"), shuffle=False))
    assert (str(de[0]["text"]), str(de[0]["translation"])) == ("Ein Mann.", "A man.")
    with pytest.raises(ValueError, match="language_pair can only be"):
        mindrecord.Multi30kDataset(str(tmp_path), language_pair=["en", "fr"])
    with pytest.raises(TypeError, match="shuffle must be a bool"):
        mindrecord.Multi30kDataset(str(tmp_path), shuffle=mindrecord.Shuffle.FILES)
    (tmp_path / "training" / "train.de").write_text("Ein Mann.\n")
    with pytest.raises(mindrecord.CorruptionError, match="train.en has 2 lines, .*train.de 1"):
        mindrecord.Multi30kDataset(str(tmp_path), usage="train")


def idx(path, magic, dims, body):
    import struct
    path.write_bytes(struct.pack(">II", magic, dims[0]) + b"".join(struct.pack(">I", d) for d in dims[1:]) + body)


def test_qmnist_images_labels_and_usages(tmp_path):
    rng = np.random.default_rng(5)
    parts = {}
    for prefix, n in (("qmnist-train", 3), ("qmnist-test", 4), ("xnist", 2)):
        px = rng.integers(0, 3, (n, 28, 28), dtype=np.uint8)
        fields = rng.integers(0, 1000, (n, 8)).astype(">u4")
        idx(tmp_path / (prefix + "-images-idx3-ubyte"), 2051, (n, 28, 28), px.tobytes())
        idx(tmp_path / (prefix + "-labels-idx2-int"), 3074, (n, 8), fields.tobytes())
        parts[prefix] = (px, fields.astype(np.int64))
    got = rows(mindrecord.QMnistDataset(str(tmp_path), shuffle=False))
    want_px = np.concatenate([parts[p][0] for p in ("qmnist-train", "qmnist-test", "xnist")])
    want_fields = np.concatenate([parts[p][1] for p in ("qmnist-train", "qmnist-test", "xnist")])
    assert len(got) == 9
    for r, px, f in zip(got, want_px, want_fields):
        assert r["image"].shape == (28, 28, 1) and np.array_equal(r["image"][:, :, 0], np.where(px > 0, 255, 0))
        assert r["label"].shape == () and int(r["label"]) == f[0]
    full = rows(mindrecord.QMnistDataset(str(tmp_path), usage="nist", compat=False, shuffle=False))
    assert [r["label"].tolist() for r in full] == parts["xnist"][1].tolist()
    assert len(rows(mindrecord.QMnistDataset(str(tmp_path), usage="test10k"))) == 4
    with pytest.raises(mindrecord.NotFoundError, match="'qmnist' dataset in .* has no rows"):
        mindrecord.QMnistDataset(str(tmp_path), usage="test50k")
    with open(tmp_path / "xnist-images-idx3-ubyte", "ab") as f:
        f.write(b"\0" * 10)
    with pytest.raises(mindrecord.CorruptionError, match="xnist-images-idx3-ubyte: the header says 2 rows of 784 bytes"):
        mindrecord.QMnistDataset(str(tmp_path))
    idx(tmp_path / "xnist-images-idx3-ubyte", 2051, (2, 28, 28), parts["xnist"][0].tobytes())
    idx(tmp_path / "xnist-labels-idx2-int", 3074, (2, 7), b"\0" * 56)
    with pytest.raises(mindrecord.CorruptionError, match="xnist-labels-idx2-int: dimension 1 is 7, expected 8"):
        mindrecord.QMnistDataset(str(tmp_path), usage="nist")
    with pytest.raises(ValueError, match="Input usage"):
        mindrecord.QMnistDataset(str(tmp_path), usage="valid")


def test_stl10_column_major_planes_and_unlabeled(tmp_path):
    rng = np.random.default_rng(6)
    images = {}
    for part, n in (("train", 2), ("test", 3), ("unlabeled", 2)):
        hwc = rng.integers(0, 256, (n, 96, 96, 3), dtype=np.uint8)
        (tmp_path / (part + "_X.bin")).write_bytes(hwc.transpose(0, 3, 2, 1).tobytes())  # planes, column by column
        images[part] = hwc
    (tmp_path / "train_y.bin").write_bytes(bytes([1, 10]))
    (tmp_path / "test_y.bin").write_bytes(bytes([3, 2, 7]))
    got = rows(mindrecord.STL10Dataset(str(tmp_path), shuffle=False))
    want = np.concatenate([images["test"], images["train"], images["unlabeled"]])
    assert all(np.array_equal(r["image"], w) for r, w in zip(got, want)) and len(got) == 7
    assert [int(r["label"]) for r in got] == [2, 1, 6, 0, 9, -1, -1]
    assert got[0]["label"].dtype == np.int32
    assert len(rows(mindrecord.STL10Dataset(str(tmp_path), usage="train+unlabeled"))) == 4
    (tmp_path / "test_y.bin").write_bytes(bytes([3, 2]))
    with pytest.raises(mindrecord.CorruptionError, match="test_y.bin holds 2 labels, .*test_X.bin 3 images"):
        mindrecord.STL10Dataset(str(tmp_path))
    (tmp_path / "test_y.bin").write_bytes(bytes([3, 0, 7]))
    with pytest.raises(mindrecord.CorruptionError, match="test_y.bin: label 0 at byte 1 is not 1-10"):
        mindrecord.STL10Dataset(str(tmp_path), usage="test")


def test_usps_libsvm_lines(tmp_path):
    rng = np.random.default_rng(7)
    vals = rng.uniform(-1, 1, (3, 256)).round(5)
    vals[0, 0], vals[0, 1] = -1, 1

    def line(label, v):
        return "%d %s \n" % (label, " ".join("%d:%s" % (i + 1, repr(float(x))) for i, x in enumerate(v)))
    (tmp_path / "usps").write_text(line(1, vals[0]) + line(10, vals[1]))
    (tmp_path / "usps.t").write_text("\n" + line(5, vals[2]))
    got = rows(mindrecord.USPSDataset(str(tmp_path), shuffle=False))
    assert [int(r["label"]) for r in got] == [0, 9, 4]
    want = ((vals.astype(np.float32).astype(np.float64) + 1) / 2 * 255).astype(np.uint8)
    assert all(np.array_equal(r["image"].reshape(256), w) for r, w in zip(got, want))
    assert got[0]["image"].shape == (16, 16, 1) and got[0]["image"][0, 0, 0] == 0 and got[0]["image"][0, 1, 0] == 255
    assert len(rows(mindrecord.USPSDataset(str(tmp_path), usage="test", shuffle=mindrecord.Shuffle.GLOBAL))) == 1
    with pytest.raises(NotImplementedError, match="Shuffle.FILES"):
        mindrecord.USPSDataset(str(tmp_path), shuffle=mindrecord.Shuffle.FILES)
    bad = line(2, vals[0]).replace(" 7:", " 8:", 1)
    (tmp_path / "usps.t").write_text(bad)
    with pytest.raises(mindrecord.CorruptionError, match=r"usps.t:1: pixel index 8 where 7 is due"):
        mindrecord.USPSDataset(str(tmp_path), usage="test")
    (tmp_path / "usps.t").write_text(line(2, vals[0]).replace(" 9:", " 9:2.5 x:", 1))
    with pytest.raises(mindrecord.CorruptionError, match=r"usps.t:1: 258 fields"):
        mindrecord.USPSDataset(str(tmp_path), usage="test")


def test_semeion_digits(tmp_path):
    rng = np.random.default_rng(8)
    px = rng.integers(0, 2, (2, 256))
    labels = [3, 0]

    def line(p, label):
        hot = ["1" if k == label else "0" for k in range(10)]
        return " ".join("%.4f" % x for x in p) + " " + " ".join(hot) + " \n"
    (tmp_path / "semeion.data").write_text(line(px[0], 3) + line(px[1], 0))
    got = rows(mindrecord.SemeionDataset(str(tmp_path), shuffle=False))
    assert [int(r["label"]) for r in got] == labels
    assert got[0]["image"].shape == (16, 16) and np.array_equal(got[1]["image"].reshape(256), px[1])
    (tmp_path / "semeion.data").write_text(" ".join("%.4f" % x for x in px[0]) + " 0 0 0 1 0 0 1 0 0 0 \n")
    with pytest.raises(mindrecord.CorruptionError, match=r"semeion.data:1: the label has more than one 1"):
        mindrecord.SemeionDataset(str(tmp_path))


def squad_file(path, articles):
    import json
    path.write_text(json.dumps({"version": "1.1", "data": articles}))


def test_squad_questions_answers_and_unanswerable(tmp_path):
    train = [{"title": "T", "paragraphs": [
        {"qas": [{"answers": [{"answer_start": 0, "text": "Beyonce"}], "question": "Who?", "id": "1"},
                 {"question": "When?", "id": "2", "answers": [], "is_impossible": True,
                  "plausible_answers": [{"text": "x", "answer_start": 5}]}],
         "context": "Beyonce sang."}]},
        {"title": "U", "paragraphs": [{"context": "Second.", "qas": [
            {"question": "What?", "answers": [{"text": "Sec", "answer_start": 0}]}]}]}]
    dev = [{"paragraphs": [{"context": "Dev text.", "qas": [
        {"question": "Q?", "answers": [{"text": "Dev", "answer_start": 0}, {"text": "Dev", "answer_start": 0},
                                       {"text": "text", "answer_start": 4}]}]}]}]
    squad_file(tmp_path / "train-v1.1.json", train)
    squad_file(tmp_path / "dev-v2.0.json", dev)
    got = rows(mindrecord.SQuADDataset(str(tmp_path), shuffle=False))
    assert [(str(r["context"]), str(r["question"]), list(r["text"]), r["answer_start"].tolist()) for r in got] == [
        ("Beyonce sang.", "Who?", ["Beyonce"], [0]), ("Beyonce sang.", "When?", [""], [-1]),
        ("Second.", "What?", ["Sec"], [0]), ("Dev text.", "Q?", ["Dev", "Dev", "text"], [0, 0, 4])]
    assert got[0]["answer_start"].dtype == np.int32
    assert len(rows(mindrecord.SQuADDataset(str(tmp_path), usage="dev"))) == 1
    ds = mindrecord.SQuADDataset(str(tmp_path), usage="train", num_shards=3, shard_id=2, shuffle=False)
    assert [str(r["question"]) for r in rows(ds)] == ["What?"]
    with pytest.raises(NotImplementedError, match="Shuffle.FILES"):
        mindrecord.SQuADDataset(str(tmp_path), shuffle=mindrecord.Shuffle.FILES)
    with pytest.raises(ValueError, match="Input usage"):
        mindrecord.SQuADDataset(str(tmp_path), usage="test")


@pytest.mark.parametrize("text, message", [
    ('{"data": [{"paragraphs": [{"context": "c", "qas": [{"question": "q"}]}]}]}',
     "a question without 'question' or 'answers'"),
    ('{"data": [{"paragraphs": [{"context": 3, "qas": []}]}]}', "'context' is a number"),
    ('{"data": [{"paragraphs": [{"context": "c", "qas": [{"question": "q", "answers": '
     '[{"text": "a", "answer_start": -2}]}]}]}]}', "an answer_start that is not an offset"),
    ('{"data": [{"title": "no paragraphs"}]}', "an article without a 'paragraphs' list"),
    ('{"version": "1.1"}', "no 'data' list of articles"),
    ('{"data": [{"paragraphs": [', "not JSON at byte"),
])
def test_squad_bad_files_name_the_file(tmp_path, text, message):
    (tmp_path / "train-v1.1.json").write_text(text)
    with pytest.raises(mindrecord.CorruptionError, match=r"train-v1.1.json: .*" + message):
        mindrecord.SQuADDataset(str(tmp_path), usage="train")


def test_squad_missing_files(tmp_path):
    with pytest.raises(mindrecord.NotFoundError, match="no dev-v1.1.json or dev-v2.0.json"):
        mindrecord.SQuADDataset(str(tmp_path), usage="dev")


def iwslt_xml(path, lang, docs):
    segs = "".join('<doc docid="%d">%s</doc>\n' % (d, "".join('<seg id="%d"> %s </seg>' % (k + 1, t)
                                                              for k, t in enumerate(texts)))
                   for d, texts in enumerate(docs))
    path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<mteval>\n<srcset setid="x" srclang="%s">\n%s'
                    '</srcset>\n</mteval>\n' % (lang, segs))


def test_iwslt2016_tags_and_xml(tmp_path):
    folder = tmp_path / "texts" / "de" / "en" / "de-en"
    folder.mkdir(parents=True)
    (folder / "train.tags.de-en.de").write_text(
        "<url>http://www.ted.com/talks/x</url>\n<talkid>1</talkid>\n Code schreiben macht Freude. \n"
        "Ich mag dich &amp; Tee.\n")
    (folder / "train.tags.de-en.en").write_text(
        "<url>http://www.ted.com/talks/x</url>\n<talkid>1</talkid>\nWriting code is a joy.\nI like you &amp; tea.\n")
    iwslt_xml(folder / "IWSLT16.TED.tst2013.de-en.de.xml", "de", [["heute hat es geregnet.", "Leih mir &amp; Papier."]])
    iwslt_xml(folder / "IWSLT16.TED.tst2013.de-en.en.xml", "en", [["it rained today.", "Lend me &amp; paper."]])
    iwslt_xml(folder / "IWSLT16.TED.tst2014.de-en.de.xml", "de", [["Ich mag dich."], ["Bis bald."]])
    iwslt_xml(folder / "IWSLT16.TED.tst2014.de-en.en.xml", "en", [["I like you."], ["See you."]])
    got = [(str(r["text"]), str(r["translation"]))
           for r in rows(mindrecord.IWSLT2016Dataset(str(tmp_path), shuffle=False))]
    assert got == [("Code schreiben macht Freude.", "Writing code is a joy."),
                   ("Ich mag dich &amp; Tee.", "I like you &amp; tea."),
                   ("heute hat es geregnet.", "it rained today."), ("Leih mir & Papier.", "Lend me & paper."),
                   ("Ich mag dich.", "I like you."), ("Bis bald.", "See you.")]
    assert len(rows(mindrecord.IWSLT2016Dataset(str(tmp_path), usage="test"))) == 2
    with pytest.raises(mindrecord.NotFoundError, match="IWSLT16.TED.tst2012.de-en.de.xml is missing"):
        mindrecord.IWSLT2016Dataset(str(tmp_path), usage="valid", valid_set="tst2012")
    with pytest.raises(ValueError, match="Input language_pair"):
        mindrecord.IWSLT2016Dataset(str(tmp_path), language_pair=["de", "fr"])
    with pytest.raises(ValueError, match="Input valid_set"):
        mindrecord.IWSLT2016Dataset(str(tmp_path), valid_set="tst2015")
    iwslt_xml(folder / "IWSLT16.TED.tst2014.de-en.en.xml", "en", [["I like you."], ["See you.", "Extra."]])
    with pytest.raises(mindrecord.CorruptionError, match="<doc> 2 has 1 <seg> elements in .*de.xml, 2 in"):
        mindrecord.IWSLT2016Dataset(str(tmp_path), usage="test")
    (folder / "IWSLT16.TED.tst2014.de-en.en.xml").write_text("<mteval><srcset><doc><seg>x</seg></doc>")
    with pytest.raises(mindrecord.CorruptionError, match="en.xml: not XML at byte"):
        mindrecord.IWSLT2016Dataset(str(tmp_path), usage="test")
    (folder / "train.tags.de-en.en").write_text("<url>x</url>\n<talkid>1</talkid>\nWriting code is a joy.\n")
    with pytest.raises(mindrecord.CorruptionError, match="train.tags.de-en.de has 4 lines, .*train.tags.de-en.en 3"):
        mindrecord.IWSLT2016Dataset(str(tmp_path), usage="train")


def test_iwslt2017_folder_and_sets(tmp_path):
    folder = tmp_path / "texts" / "DeEnItNlRo" / "DeEnItNlRo" / "DeEnItNlRo-DeEnItNlRo"
    folder.mkdir(parents=True)
    (folder / "train.tags.it-nl.it").write_text("Ciao.\n")
    (folder / "train.tags.it-nl.nl").write_text("Hallo.\n")
    for s, it, nl in (("dev2010", "Buongiorno.", "Goedemorgen."), ("tst2010", "Grazie.", "Dank je.")):
        iwslt_xml(folder / ("IWSLT17.TED.%s.it-nl.it.xml" % s), "it", [[it]])
        iwslt_xml(folder / ("IWSLT17.TED.%s.it-nl.nl.xml" % s), "nl", [[nl]])
    got = [(str(r["text"]), str(r["translation"]))
           for r in rows(mindrecord.IWSLT2017Dataset(str(tmp_path), language_pair=("it", "nl"), shuffle=False))]
    assert got == [("Ciao.", "Hallo."), ("Buongiorno.", "Goedemorgen."), ("Grazie.", "Dank je.")]
    with pytest.raises(TypeError, match="language_pair should be a type list or tuple"):
        mindrecord.IWSLT2017Dataset(str(tmp_path), language_pair="it-nl")


def test_cityscapes_images_and_targets(tmp_path):
    import json
    want = {}
    for split, city, stem in [("train", "zurich", "zurich_000001_000019"), ("train", "aachen", "aachen_000000_000019"),
                              ("train", "aachen", "aachen_000001_000019"), ("val", "bonn", "bonn_000000_000019")]:
        want[stem] = png(tmp_path / "leftImg8bit" / split / city / (stem + "_leftImg8bit.png"), len(want))
        gray = tmp_path / "gtFine" / split / city / (stem + "_gtFine_labelIds.png")
        gray.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(np.full((3, 4), len(want), np.uint8)).save(str(gray))
        (tmp_path / "gtFine" / split / city / (stem + "_gtFine_polygons.json")).write_text(
            json.dumps({"objects": [{"label": "car", "polygon": [[1, 2], [3, 4]]}], "imgHeight": 3, "imgWidth": 4}))
    (tmp_path / "leftImg8bit" / "test").mkdir()
    (tmp_path / "gtFine" / "test").mkdir()
    (tmp_path / "leftImg8bit" / "train" / "aachen" / "notes.txt").write_text("not a png")
    got = rows(mindrecord.CityscapesDataset(str(tmp_path), task="semantic", shuffle=False))
    assert [bytes(r["image"]) for r in got] == [want[s] for s in ("aachen_000000_000019", "aachen_000001_000019",
                                                                  "zurich_000001_000019")]
    decoded = rows(mindrecord.CityscapesDataset(str(tmp_path), usage="all", task="semantic", decode=True,
                                                shuffle=False))
    assert len(decoded) == 4 and decoded[3]["task"].shape == (3, 4, 3) and decoded[3]["task"][0, 0].tolist() == [4] * 3
    poly = rows(mindrecord.CityscapesDataset(str(tmp_path), usage="val", task="polygon", shuffle=False))
    assert str(poly[0]["task"]) == '{"imgHeight":3,"imgWidth":4,"objects":[{"label":"car","polygon":[[1,2],[3,4]]}]}'
    with pytest.raises(mindrecord.NotFoundError, match="aachen_000000_000019_gtFine_color.png, the target of"):
        mindrecord.CityscapesDataset(str(tmp_path), task="color")
    with pytest.raises(ValueError, match="Input usage is not within the valid set"):
        mindrecord.CityscapesDataset(str(tmp_path), usage="train_extra")
    with pytest.raises(TypeError):
        mindrecord.CityscapesDataset(str(tmp_path), task=None)
    (tmp_path / "gtFine" / "val" / "bonn" / "bonn_000000_000019_gtFine_polygons.json").write_text("{")
    with pytest.raises(RuntimeError, match="polygons.json: not JSON"):
        rows(mindrecord.CityscapesDataset(str(tmp_path), usage="val", task="polygon"))


class _Mt19937:
    """std::mt19937's 32-bit outputs (numpy's legacy RandomState seeds the
    same way), and libstdc++'s uniform_int_distribution / normal_distribution
    on them: what MindSpore's FakeImageDataset draws."""

    def __init__(self, seed):
        self._rs = np.random.RandomState(seed % 2 ** 32)

    def next(self):
        return int(self._rs.randint(0, 2 ** 32, dtype=np.uint64))

    def uniform(self, n):  # Lemire's method (GCC 11 and later)
        product = self.next() * n
        if product % 2 ** 32 < n:
            threshold = (2 ** 32 - n) % n
            while product % 2 ** 32 < threshold:
                product = self.next() * n
        return product >> 32

    def canonical(self):
        return (self.next() + self.next() * 2.0 ** 32) / 2.0 ** 64

    def normals(self, count):
        import math
        out = []
        while len(out) < count:
            while True:
                x, y = 2 * self.canonical() - 1, 2 * self.canonical() - 1
                r2 = x * x + y * y
                if 0 < r2 <= 1:
                    break
            mult = math.sqrt(-2 * math.log(r2) / r2)
            out += [y * mult, x * mult]
        return out[:count]


def test_fake_image_rows_are_mindspores_draws():
    ds = mindrecord.FakeImageDataset(num_images=6, image_size=(4, 5, 3), num_classes=7, base_seed=3, shuffle=False)
    got = rows(ds)
    assert len(got) == 6
    for i, r in enumerate(got):
        assert r["image"].shape == (4, 5, 3) and r["image"].dtype == np.uint8 and r["label"].dtype == np.int32
        assert int(r["label"]) == _Mt19937(3 + i).uniform(7)
        draws = np.clip(np.array(_Mt19937(3 + i).normals(60)), 0, 255)
        assert bytes(r["image"].reshape(-1)) == draws.tobytes()[:60]
    again = {int(r["label"]) for r in rows(mindrecord.FakeImageDataset(num_images=6, image_size=(4, 5, 3),
                                                                        num_classes=7, base_seed=3,
                                                                        num_parallel_workers=3))}
    assert again == {int(r["label"]) for r in got}
    with pytest.raises(ValueError, match="image_size should be a list or tuple of length 3"):
        mindrecord.FakeImageDataset(image_size=(28, 28))
    with pytest.raises(TypeError, match=r"Argument image_size\[0\] with value '-1'"):
        mindrecord.FakeImageDataset(image_size=("-1", 28, 3))
    with pytest.raises(ValueError, match="num_images is not within"):
        mindrecord.FakeImageDataset(num_images=0)


def mat_v5(path, variables, compress=False):
    """A MATLAB v5 .mat file of real double (or uint8) arrays, as MATLAB
    writes them: {name: numpy array}; `compress`: each variable in a zlib
    stream (MATLAB's default since version 7)."""
    import struct
    import zlib

    def element(kind, payload):
        pad = (8 - len(payload) % 8) % 8
        return struct.pack("<II", kind, len(payload)) + payload + b"\0" * pad

    out = b"MATLAB 5.0 MAT-file, written by the mindrecord tests".ljust(116, b" ") + b"\0" * 8
    out += struct.pack("<H", 0x0100) + b"IM"
    for name, a in variables.items():
        a = np.asarray(a)
        cls, kind = (9, 2) if a.dtype == np.uint8 else (6, 9)
        data = (a if a.dtype == np.uint8 else a.astype("<f8")).tobytes(order="F")
        body = element(6, struct.pack("<II", cls, 0)) + element(5, struct.pack("<%di" % a.ndim, *a.shape))
        body += element(1, name.encode()) + element(kind, data)
        matrix = struct.pack("<II", 14, len(body)) + body
        out += struct.pack("<II", 15, len(zlib.compress(matrix))) + zlib.compress(matrix) if compress else matrix
    path.write_bytes(out)


def test_flowers102_sets_labels_and_segmentation(tmp_path):
    imgs = {i: jpeg(tmp_path / "jpg" / ("image_%05d.jpg" % i), i) for i in range(1, 7)}
    for i in range(1, 7):
        jpeg(tmp_path / "segmim" / ("segmim_%05d.jpg" % i), 100 + i)
    mat_v5(tmp_path / "imagelabels.mat", {"labels": np.array([[5, 1, 102, 7, 7, 3]])})
    mat_v5(tmp_path / "setid.mat", {"trnid": np.array([[2, 1]]), "valid": np.array([[6]]),
                                    "tstid": np.array([[4, 3, 5]])})
    got = rows(mindrecord.Flowers102Dataset(str(tmp_path), shuffle=False))
    assert [(bytes(r["image"]), int(r["label"])) for r in got] == [
        (imgs[2], 0), (imgs[1], 4), (imgs[4], 6), (imgs[3], 101), (imgs[5], 6), (imgs[6], 2)]  # train, test, valid
    seg = rows(mindrecord.Flowers102Dataset(str(tmp_path), task="Segmentation", usage="valid", decode=True))
    assert list(seg[0]) == ["image", "segmentation", "label"] and seg[0]["segmentation"].shape == (5, 6, 3)
    ds = mindrecord.Flowers102Dataset(str(tmp_path))
    assert ds.get_class_indexing()["pink primrose"] == 0 and ds.get_class_indexing()["blackberry lily"] == 101
    mat_v5(tmp_path / "setid.mat", {"trnid": np.array([[2, 9]]), "valid": np.array([[6]]), "tstid": np.array([[4]])})
    with pytest.raises(mindrecord.CorruptionError, match=r"setid.mat: trnid\[1\] is 9.0*, not a whole number from 1 to 6"):
        mindrecord.Flowers102Dataset(str(tmp_path), usage="train")
    mat_v5(tmp_path / "setid.mat", {"trnid": np.array([[2]])})
    with pytest.raises(mindrecord.CorruptionError, match=r"setid.mat: variable 'tstid' is missing"):
        mindrecord.Flowers102Dataset(str(tmp_path), usage="test")
    (tmp_path / "imagelabels.mat").write_bytes(b"MATLAB 5.0 but cut short")
    with pytest.raises(mindrecord.CorruptionError, match="imagelabels.mat"):
        mindrecord.Flowers102Dataset(str(tmp_path))
    (tmp_path / "imagelabels.mat").unlink()
    with pytest.raises(ValueError, match="imagelabels.mat does not exist"):
        mindrecord.Flowers102Dataset(str(tmp_path))


def test_caltech101_categories_and_contours(tmp_path):
    cats = tmp_path / "101_ObjectCategories"
    want = {}
    for cls, n in (("accordion", 2), ("Faces", 1), ("BACKGROUND_Google", 1), ("airplanes", 1)):
        for i in range(1, n + 1):
            want[(cls, i)] = jpeg(cats / cls / ("image_%04d.jpg" % i), len(want))
    contours = {}
    for cls, folder, n in (("accordion", "accordion", 2), ("Faces", "Faces_2", 1), ("airplanes", "Airplanes_Side_2", 1)):
        for i in range(1, n + 1):
            c = np.arange(2 * (i + 2), dtype=np.float64).reshape(2, i + 2) + 10 * len(contours)
            contours[(cls, i)] = c
            (tmp_path / "Annotations" / folder).mkdir(parents=True, exist_ok=True)
            mat_v5(tmp_path / "Annotations" / folder / ("annotation_%04d.mat" % i),
                   {"box_coord": np.array([[1, 2, 3, 4]]), "obj_contour": c})
    order = [("Faces", 1), ("accordion", 1), ("accordion", 2), ("airplanes", 1)]  # "Faces" < "accordion": bytes
    ds = mindrecord.Caltech101Dataset(str(tmp_path), target_type="all", shuffle=False)
    got = rows(ds)
    assert [list(r) for r in got][0] == ["image", "category", "annotation"]
    assert [(bytes(r["image"]), int(r["category"])) for r in got] == [
        (want[k], {"Faces": 0, "accordion": 1, "airplanes": 2}[k[0]]) for k in order]
    assert got[0]["category"].dtype == np.int64
    for r, k in zip(got, order):
        assert r["annotation"].dtype == np.float64 and np.array_equal(r["annotation"], contours[k])
    assert ds.get_class_indexing() == {"Faces": 0, "accordion": 1, "airplanes": 2}
    assert [list(r) for r in rows(mindrecord.Caltech101Dataset(str(tmp_path)))][0] == ["image", "category"]
    mat_v5(tmp_path / "Annotations" / "accordion" / "annotation_0002.mat", {"obj_contour": np.zeros((3, 2))})
    with pytest.raises(RuntimeError, match=r"annotation_0002.mat: obj_contour is not a 2 x N array"):
        rows(mindrecord.Caltech101Dataset(str(tmp_path), target_type="annotation"))
    with pytest.raises(ValueError, match="Input target_type is not within the valid set"):
        mindrecord.Caltech101Dataset(str(tmp_path), target_type="box")


@pytest.mark.parametrize("compress", [False, True])
def test_svhn_images_from_x_and_labels_from_y(tmp_path, compress):
    rng = np.random.default_rng(9)
    parts = {}
    for part, n in (("train", 3), ("test", 2), ("extra", 70)):
        images = rng.integers(0, 256, (n, 32, 32, 3), dtype=np.uint8)
        labels = rng.integers(1, 11, (n, 1)).astype(np.float64)
        labels[0, 0] = 10
        mat_v5(tmp_path / (part + "_32x32.mat"), {"X": images.transpose(1, 2, 3, 0), "y": labels}, compress)
        parts[part] = (images, labels[:, 0])
    got = rows(mindrecord.SVHNDataset(str(tmp_path), shuffle=False))
    images = np.concatenate([parts[p][0] for p in ("train", "test", "extra")])
    labels = np.concatenate([parts[p][1] for p in ("train", "test", "extra")]) % 10
    assert len(got) == 75
    assert all(np.array_equal(r["image"], im) for r, im in zip(got, images))
    assert [int(r["label"]) for r in got] == labels.astype(int).tolist()
    shuffled = rows(mindrecord.SVHNDataset(str(tmp_path), usage="extra", num_parallel_workers=3))
    assert sorted(bytes(r["image"]) for r in shuffled) == sorted(im.tobytes() for im in parts["extra"][0])
    mat_v5(tmp_path / "test_32x32.mat", {"X": parts["test"][0][:1].transpose(1, 2, 3, 0),
                                         "y": np.ones((2, 1))}, compress)
    with pytest.raises(mindrecord.CorruptionError, match="test_32x32.mat: 1 images in X, 2 labels in y"):
        mindrecord.SVHNDataset(str(tmp_path), usage="test")
    mat_v5(tmp_path / "test_32x32.mat", {"X": np.zeros((32, 32, 1, 2), np.uint8), "y": np.ones((2, 1))}, compress)
    with pytest.raises(mindrecord.CorruptionError, match="X is not a uint8 32 x 32 x 3 x N array"):
        mindrecord.SVHNDataset(str(tmp_path), usage="test")
    (tmp_path / "extra_32x32.mat").unlink()
    with pytest.raises(ValueError, match="extra_32x32.mat does not exist"):
        mindrecord.SVHNDataset(str(tmp_path), usage="all")


def mat_gtcls(path, segmentation, boundaries):
    """cls/ID.mat as SBD has it: struct GTcls with Segmentation (uint8 H x W)
    and Boundaries (a 20 x 1 cell of logical sparse H x W), MATLAB v5."""
    import struct

    def element(kind, payload):
        return struct.pack("<II", kind, len(payload)) + payload + b"\0" * ((8 - len(payload) % 8) % 8)

    def matrix(cls, dims, name, parts, flag_bits=0, nzmax=0):
        body = element(6, struct.pack("<II", cls | (flag_bits << 8), nzmax))
        body += element(5, struct.pack("<%di" % len(dims), *dims)) + element(1, name) + b"".join(parts)
        return struct.pack("<II", 14, len(body)) + body

    def sparse(m):
        h, w = m.shape
        ir, jc = [], [0]
        for j in range(w):
            rows_j = [i for i in range(h) if m[i, j]]
            ir += rows_j
            jc.append(len(ir))
        parts = [element(5, struct.pack("<%di" % len(ir), *ir)), element(5, struct.pack("<%di" % len(jc), *jc)),
                 element(2, bytes([1] * len(ir)))]
        return matrix(5, (h, w), b"", parts, flag_bits=0x02, nzmax=max(len(ir), 1))

    seg = matrix(9, segmentation.shape, b"", [element(2, segmentation.tobytes(order="F"))])
    cell = matrix(1, (len(boundaries), 1), b"", [sparse(b) for b in boundaries])
    names = b"".join(n.ljust(32, b"\0") for n in (b"Segmentation", b"Boundaries"))
    gtcls = matrix(2, (1, 1), b"GTcls", [struct.pack("<HHi", 5, 4, 32), element(1, names), seg, cell])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"MATLAB 5.0 MAT-file, mindrecord tests".ljust(116, b" ") + b"\0" * 8 +
                     struct.pack("<H", 0x0100) + b"IM" + gtcls)


def test_sb_boundaries_and_segmentation(tmp_path):
    rng = np.random.default_rng(10)
    want = {}
    for i, name in enumerate(["2008_000002", "2008_000003", "2008_000007"]):
        seg = rng.integers(0, 21, (4, 5), dtype=np.uint8)
        bounds = [rng.random((4, 5)) < 0.3 for _ in range(20)]
        mat_gtcls(tmp_path / "cls" / (name + ".mat"), seg, bounds)
        want[name] = (jpeg(tmp_path / "img" / (name + ".jpg"), i), seg, np.stack(bounds))
    (tmp_path / "train.txt").write_text("2008_000003\n2008_000002\n")
    (tmp_path / "val.txt").write_text("2008_000007\n")
    got = rows(mindrecord.SBDataset(str(tmp_path), shuffle=False))
    order = ["2008_000003", "2008_000002", "2008_000007"]
    assert [bytes(r["image"]) for r in got] == [want[n][0] for n in order]
    for r, n in zip(got, order):
        assert r["task"].dtype == np.bool_ and r["task"].shape == (20, 4, 5)
        assert np.array_equal(r["task"], want[n][2])
    seg = rows(mindrecord.SBDataset(str(tmp_path), task="Segmentation", usage="val"))
    assert seg[0]["task"].dtype == np.uint8 and np.array_equal(seg[0]["task"], want["2008_000007"][1])
    (tmp_path / "val.txt").write_text("../img/2008_000007\n")
    with pytest.raises(mindrecord.CorruptionError, match=r"val.txt:1: expected an image id"):
        mindrecord.SBDataset(str(tmp_path), usage="val")
    (tmp_path / "val.txt").write_text("2008_000007\n")
    (tmp_path / "cls" / "2008_000007.mat").write_bytes(b"MATLAB 5.0 MAT-file" + b"\0" * 10)
    with pytest.raises(RuntimeError, match=r"2008_000007.mat"):
        rows(mindrecord.SBDataset(str(tmp_path), usage="val"))
    with pytest.raises(ValueError, match="Input task"):
        mindrecord.SBDataset(str(tmp_path), task="Edges")


def test_photo_tour_patches_and_matches(tmp_path):
    folder = tmp_path / "liberty"
    folder.mkdir()
    rng = np.random.default_rng(11)
    grids = [rng.integers(0, 256, (1024, 1024), dtype=np.uint8) for _ in range(2)]
    for k, g in enumerate(grids):
        Image.fromarray(g, mode="L").save(str(folder / ("patches%04d.bmp" % k)))
    (folder / "notes.txt").write_text("not a bitmap")

    def patch(i):
        g = grids[i // 256]
        r, c = i % 256 // 16, i % 16
        return g[r * 64:(r + 1) * 64, c * 64:(c + 1) * 64]
    (folder / "info.txt").write_text("".join("%d 0\n" % (i // 3) for i in range(300)))
    (folder / "m50_100000_100000_0.txt").write_text("3 1 0 299 99 0 0\n17 5 0 16 5 0 0\n")
    got = rows(mindrecord.PhotoTourDataset(str(tmp_path), "liberty", shuffle=False))
    assert len(got) == 300 and list(got[0]) == ["image"]
    for i in (0, 17, 255, 256, 299):
        assert got[i]["image"].shape == (64, 64, 1) and np.array_equal(got[i]["image"][:, :, 0], patch(i))
    test = rows(mindrecord.PhotoTourDataset(str(tmp_path), "liberty", usage="test", shuffle=False))
    assert [int(r["matches"]) for r in test] == [0, 1]
    assert np.array_equal(test[0]["image2"][:, :, 0], patch(299)) and np.array_equal(test[1]["image1"][:, :, 0],
                                                                                     patch(17))
    (folder / "m50_100000_100000_0.txt").write_text("3 1 0 300 99 0 0\n")
    with pytest.raises(mindrecord.CorruptionError, match=r"\(record 1\): patch 300 is not one of info.txt's 300"):
        mindrecord.PhotoTourDataset(str(tmp_path), "liberty", usage="test")
    (folder / "info.txt").write_text("1 0\n2\n")
    with pytest.raises(mindrecord.CorruptionError, match="info.txt: 3 fields, not records of 2"):
        mindrecord.PhotoTourDataset(str(tmp_path), "liberty")
    with pytest.raises(ValueError, match="Input name"):
        mindrecord.PhotoTourDataset(str(tmp_path), "paris")


def test_mat_files_declaring_more_than_they_hold_are_refused(tmp_path):
    # A GTcls struct whose dimensions declare ~2^31 elements in a file of a
    # few hundred bytes: refused before libmatio sizes an allocation by it.
    import struct
    seg = np.zeros((2, 3), np.uint8)
    mat_gtcls(tmp_path / "cls" / "a.mat", seg, [np.zeros((2, 3), bool)] * 2)
    data = bytearray((tmp_path / "cls" / "a.mat").read_bytes())
    dims_at = data.index(struct.pack("<II", 5, 8) + struct.pack("<ii", 1, 1))  # the struct's 1 x 1
    data[dims_at + 8:dims_at + 16] = struct.pack("<ii", 65536, 32768)
    (tmp_path / "cls" / "a.mat").write_bytes(bytes(data))
    jpeg(tmp_path / "img" / "a.jpg", 1)
    (tmp_path / "train.txt").write_text("a\n")
    with pytest.raises(RuntimeError, match=r"a.mat: variable 'GTcls' is malformed or declares more than"):
        rows(mindrecord.SBDataset(str(tmp_path), usage="train"))
    # A sparse boundary whose column starts (jc) end past its row indices:
    # libmatio sizes the values by jc's last entry (here 2^31 - 1), so it is
    # refused first; so is a jc that is not 32-bit, which libmatio reads as
    # 32-bit anyway (a fuzz input: 4.2 GB).
    mat_gtcls(tmp_path / "cls" / "a.mat", seg, [np.zeros((2, 3), bool)] * 2)
    good = (tmp_path / "cls" / "a.mat").read_bytes()
    jc = struct.pack("<II", 5, 16) + struct.pack("<4i", 0, 0, 0, 0)
    for bad in (struct.pack("<II", 5, 16) + struct.pack("<4i", 0, 0, 0, 0x7fffffff),
                struct.pack("<II", 4, 16) + struct.pack("<8H", 0, 0, 0, 0, 0, 0, 0xff01, 0xfaff)):
        (tmp_path / "cls" / "a.mat").write_bytes(good.replace(jc, bad, 1))
        with pytest.raises(RuntimeError, match=r"a.mat: variable 'GTcls' is malformed or declares more than"):
            rows(mindrecord.SBDataset(str(tmp_path), usage="train"))
    mat_v5(tmp_path / "imagelabels.mat", {"labels": np.array([[1, 2]])})
    data = bytearray((tmp_path / "imagelabels.mat").read_bytes())
    dims_at = data.index(struct.pack("<II", 5, 8) + struct.pack("<ii", 1, 2))
    data[dims_at + 8:dims_at + 16] = struct.pack("<ii", 1 << 20, 1 << 10)
    (tmp_path / "imagelabels.mat").write_bytes(bytes(data))
    (tmp_path / "jpg").mkdir()
    mat_v5(tmp_path / "setid.mat", {"trnid": np.array([[1]]), "valid": np.array([[2]]), "tstid": np.array([[1]])})
    with pytest.raises(mindrecord.CorruptionError, match=r"imagelabels.mat: variable 'labels' is malformed"):
        mindrecord.Flowers102Dataset(str(tmp_path))
