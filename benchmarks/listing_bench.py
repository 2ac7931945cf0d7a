"""What opening a raw-format dataset costs before its first row: an
ImageFolder of many files and a Places365 list of many lines, against the
loop a user would write (os.scandir + sort; splitting the list's lines).

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/listing_bench.py [--files N] [--lines M] [--runs R]

Per loader, medians of --runs: the constructor, the first and a second
get_dataset_size(), and an iterator's first row (what each epoch pays: the
pipeline lists the folder again when it opens, as MindSpore's does). The
files are empty but for the few rows read (only their names are listed).
"""
import argparse
import io
import os
import shutil
import statistics
import tempfile
import time

from PIL import Image

from mindrecord import ImageFolderDataset, Places365Dataset


def timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def make_folder(root, files, classes):
    jpeg = io.BytesIO()
    Image.new("RGB", (4, 4)).save(jpeg, "JPEG")
    for c in range(classes):
        d = os.path.join(root, "class_%04d" % c)
        os.makedirs(d)
        for i in range(files // classes):
            with open(os.path.join(d, "img_%07d.jpg" % i), "wb") as f:
                if i == 0:
                    f.write(jpeg.getvalue())


def make_places(root, lines, classes=365):
    os.makedirs(os.path.join(root, "data_256_standard", "a", "cat0000"))
    jpeg = io.BytesIO()
    Image.new("RGB", (4, 4)).save(jpeg, "JPEG")
    with open(os.path.join(root, "data_256_standard", "a", "cat0000", "00000001.jpg"), "wb") as f:
        f.write(jpeg.getvalue())
    cats = ["/a/cat%04d" % c for c in range(classes)]
    with open(os.path.join(root, "categories_places365.txt"), "w") as f:
        f.writelines("%s %d\n" % (c, i) for i, c in enumerate(cats))
    with open(os.path.join(root, "places365_train_standard.txt"), "w") as f:
        f.writelines("%s/%08d.jpg %d\n" % (cats[i % classes], i // classes + 1, i % classes) for i in range(lines))


def scandir_sorted(root):
    out = []
    for c in sorted(e.name for e in os.scandir(root) if e.is_dir()):
        d = os.path.join(root, c)
        out.extend(os.path.join(d, n) for n in sorted(e.name for e in os.scandir(d) if e.is_file()))
    return out


def parse_list(path):
    with open(path) as f:
        return [(p, int(label)) for p, label in (line.split() for line in f)]


def measure(name, make, baseline, runs):
    rows = {"constructor": [], "get_dataset_size()": [], "get_dataset_size() again": [],
            "iterator + first row": [], "baseline": []}
    for _ in range(runs):
        holder = {}
        rows["constructor"].append(timed(lambda: holder.setdefault("ds", make())))
        ds = holder["ds"]
        rows["get_dataset_size()"].append(timed(ds.get_dataset_size))
        rows["get_dataset_size() again"].append(timed(ds.get_dataset_size))
        rows["iterator + first row"].append(timed(lambda: next(ds.create_tuple_iterator(num_epochs=1,
                                                                                        output_numpy=True))))
        rows["baseline"].append(timed(baseline))
    print("%s (%d rows)" % (name, holder["ds"].get_dataset_size()))
    base = statistics.median(rows["baseline"])
    for k, v in rows.items():
        m = statistics.median(v)
        print("  %-28s %9.3f s %8.2fx the baseline" % (k, m, m / base if base else 0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=100000, help="ImageFolder files (in 200 classes)")
    ap.add_argument("--lines", type=int, default=1800000, help="Places365 list lines (train-standard has 1.8M)")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="listing_bench_")
    try:
        folder, places = os.path.join(work, "folder"), os.path.join(work, "places")
        make_folder(folder, args.files, min(200, args.files))
        make_places(places, args.lines)
        print("load before: %s; medians of %d runs\n" % (os.getloadavg(), args.runs))
        measure("ImageFolderDataset; baseline: os.scandir of each class folder, sorted", lambda: ImageFolderDataset(
            folder, shuffle=False), lambda: scandir_sorted(folder), args.runs)
        list_path = os.path.join(places, "places365_train_standard.txt")
        measure("Places365Dataset; baseline: the list's lines split into (path, int label)",
                lambda: Places365Dataset(places, shuffle=False), lambda: parse_list(list_path), args.runs)
        print("\nload after: %s" % (os.getloadavg(),))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
