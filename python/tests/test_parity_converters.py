"""MindSpore parity (issue 17): the *ToMR converters run as MindSpore code
runs them, on MindSpore's own test data (../shared/compat)."""
import os
import warnings

import pytest

from mindrecord import SUCCESS, Cifar10ToMR, Cifar100ToMR, CsvToMR, FileReader, MnistToMR, ParamValueError, VOCToMR
from conftest import compat_path


@pytest.mark.parametrize("cls,src", [(Cifar10ToMR, "cifar10"), (Cifar100ToMR, "cifar100")])
def test_cifar_writes_dest_and_dest_test_and_returns_success(tmp_path, cls, src):
    dest = str(tmp_path / "cifar.mindrecord")
    assert cls(compat_path("sources", src), dest).transform() == SUCCESS
    assert sorted(os.listdir(tmp_path)) == ["cifar.mindrecord", "cifar.mindrecord.db", "cifar.mindrecord_test",
                                            "cifar.mindrecord_test.db"]
    assert len(FileReader(dest)) == 16 and len(FileReader(dest + "_test")) == 4


def test_csv_bool_columns_are_int32_and_columns_list_selects(tmp_path):
    src = compat_path("sources", "csv", "data.csv")
    dest = str(tmp_path / "csv.mindrecord")
    assert CsvToMR(src, dest).transform() == SUCCESS
    reader = FileReader(dest)
    assert reader.schema()["Over18"] == {"type": "int32"}
    lines = [ln.split(",") for ln in open(src).read().splitlines()[1:] if ln.strip()]
    assert [r["Over18"] for r in reader.get_next()] == [1 if ln[4].strip() == "True" else 0 for ln in lines]
    # columns_list alone: those columns, types inferred (MindSpore needs no types).
    sub = str(tmp_path / "sub.mindrecord")
    assert CsvToMR(src, sub, columns_list=["Name", "Over18"]).transform() == SUCCESS
    assert FileReader(sub).schema() == {"Name": {"type": "string"}, "Over18": {"type": "int32"}}
    with pytest.raises(RuntimeError, match="The parameter columns_list is illegal, column nope does not exist."):
        CsvToMR(src, str(tmp_path / "bad.mindrecord"), columns_list=["nope"]).transform()


def test_voc_box_past_the_image_edge_is_kept_with_a_warning(tmp_path):
    voc = compat_path("sources", "voc2012")
    # Annotations/63.xml (in MindSpore's train list) has a box reaching
    # y=499 in a 500x375 image; MindSpore keeps it.
    conv = VOCToMR(voc, str(tmp_path / "voc.mindrecord"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert conv.transform() == SUCCESS
    assert any("63.xml" in str(w.message) and "runs past the edge" in str(w.message) for w in caught)
    rows = {r["file_name"]: r for r in FileReader(str(tmp_path / "voc.mindrecord")).get_next()}
    assert len(rows) == 9 and [36.0, 11.0, 439.0, 499.0] in rows["63.jpg"]["bbox"].tolist()
    with pytest.raises(RuntimeError, match="63.xml.*runs past the edge"):
        VOCToMR(voc, str(tmp_path / "strict.mindrecord"), strict_boxes=True).transform()
    assert not os.path.exists(tmp_path / "strict.mindrecord")


def test_truncated_mnist_message_says_how_to_convert_what_is_there(tmp_path):
    src = compat_path("sources", "mnist")
    with pytest.raises(RuntimeError) as err:
        MnistToMR(src, str(tmp_path / "m")).transform()
    assert "t10k-images" in str(err.value) and "truncated" in str(err.value)
    assert 'on_error="skip"' in str(err.value) and "--on-error skip" in str(err.value)
    conv = MnistToMR(src, str(tmp_path / "m"), on_error="skip")
    assert conv.transform() == SUCCESS and conv.report["rows"] == 30


def test_destination_names_are_checked_as_mindspore_does(tmp_path):
    with pytest.raises(ParamValueError):
        Cifar10ToMR(compat_path("sources", "cifar10"), str(tmp_path / "a:b"))
