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
    with pytest.raises(RuntimeError, match="lfw_funneled/Cy_Twombly/Cy_Twombly_0001.jpg"):
        rows(mindrecord.LFWDataset(str(tmp_path), shuffle=False))
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
