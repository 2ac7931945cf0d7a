import json

import pytest

import mindrecord


@pytest.fixture(scope="module")
def paged(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("mp") / "p.mindrecord")
    w = mindrecord.FileWriter(path, 2)
    w.add_schema({"id": {"type": "int64"}, "label": {"type": "int32"}, "name": {"type": "string"},
                  "score": {"type": "float64"}, "img": {"type": "bytes"}})
    w.add_index(["label", "name", "score"])
    rows = [{"id": i, "label": i % 12, "name": "c%d" % (i % 3), "score": (i % 4) * 0.5, "img": b"x%d" % i}
            for i in range(50)]
    w.write_raw_data(rows)
    w.commit()
    # One write_raw_data call: shard 0 holds its first block, so the global
    # row order is the written order.
    order = list(rows)
    return path + "0", order


def test_candidates_and_category_info(paged):
    path, order = paged
    page = mindrecord.MindPage(path)
    assert page.candidate_fields == ["label", "name", "score"]
    assert page.category_field is None
    with pytest.raises(ValueError):
        page.read_category_info()
    page.category_field = "label"
    assert page.category_field == "label"
    info = json.loads(page.read_category_info())
    # Categories are numbered in the order of their names as strings.
    names = sorted(str(i) for i in range(12))
    assert [c["name"] for c in info["categories"]] == names
    assert [c["id"] for c in info["categories"]] == list(range(12))
    assert [c["count"] for c in info["categories"]] == [sum(1 for r in order if str(r["label"]) == n) for n in names]
    assert info["key"] == "label_0"


def test_pages_by_id_and_name(paged):
    path, order = paged
    page = mindrecord.MindPage(path)
    page.set_category_field("name")
    info = json.loads(page.read_category_info())
    assert [c["name"] for c in info["categories"]] == ["c0", "c1", "c2"]
    c1 = [r for r in order if r["name"] == "c1"]
    assert page.read_at_page_by_name("c1", 0, 5) == c1[:5]
    assert page.read_at_page_by_id(1, 2, 5) == c1[10:15]
    last = (len(c1) - 1) // 5
    assert page.read_at_page_by_name("c1", last, 5) == c1[last * 5:]
    with pytest.raises(ValueError):
        page.read_at_page_by_name("c1", last + 1, 5)
    with pytest.raises(ValueError):
        page.read_at_page_by_name("nope", 0, 5)
    with pytest.raises(ValueError):
        page.read_at_page_by_id(3, 0, 5)
    with pytest.raises(ValueError):
        page.read_at_page_by_id(0, 0, 0)
    with pytest.raises(ValueError):
        page.read_at_page_by_id(0, -1, 1)


def test_float_category_names(paged):
    path, order = paged
    page = mindrecord.MindPage(path)
    page.category_field = "score"
    info = json.loads(page.read_category_info())
    # SQLite NUMERIC stores 0.0 and 1.0 as integers; MindSpore reads the text back.
    assert [c["name"] for c in info["categories"]] == ["0", "0.5", "1", "1.5"]
    assert page.read_at_page_by_name("1.5", 0, 100) == [r for r in order if r["score"] == 1.5]


def test_bad_category_field(paged):
    page = mindrecord.MindPage(paged[0])
    with pytest.raises(ValueError):
        page.category_field = "img"
    with pytest.raises(ValueError):
        page.category_field = "id"  # not indexed
