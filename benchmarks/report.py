#!/usr/bin/python3
"""Turns formats_bench's results.json into REPORT.md and PNG plots.

    /usr/bin/python3 benchmarks/report.py RESULTS.json --out DIR [--build-dir build] [--extra torch.json]

Each figure is the median of the measured runs; ratios compare medians taken
in the same invocation. Throughput = items / median seconds.
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROLE_COLORS = {"ours": "#1f77b4", "baseline": "#ff7f0e", "ceiling": "#7f7f7f"}


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception:
        return ""


def machine():
    cpu = re.search(r"model name\s*:\s*(.*)", open("/proc/cpuinfo").read())
    mem = re.search(r"MemTotal:\s*(\d+)", open("/proc/meminfo").read())
    return {
        "cpu": cpu.group(1) if cpu else platform.processor(),
        "cores": os.cpu_count(),
        "memory_gib": round(int(mem.group(1)) / 2**20, 1) if mem else None,
        "load_now": " ".join(open("/proc/loadavg").read().split()[:3]),
    }


def versions(build_dir):
    v = {}
    cache = os.path.join(build_dir or "", "CMakeCache.txt")
    if build_dir and os.path.exists(cache):
        text = open(cache).read()
        m = re.search(r"CMAKE_CXX_COMPILER:[A-Z]+=(.*)", text)
        if m:
            v["C++ compiler"] = sh(f"{m.group(1)} --version | head -1")
        m = re.search(r"CMAKE_BUILD_TYPE:[A-Z]+=(.*)", text)
        if m:
            v["build type"] = m.group(1)
    for pkg in ("libturbojpeg", "opencv4", "protobuf", "sqlite3", "libzstd"):
        out = sh(f"pkg-config --modversion {pkg}")
        if out:
            v[pkg] = out
    v["kernel"] = platform.release()
    v["python / matplotlib"] = f"{platform.python_version()} / {matplotlib.__version__}"
    rev = sh(f"git -C {os.path.dirname(os.path.abspath(__file__))} rev-parse --short HEAD")
    if rev:
        v["mindrecord commit"] = rev
    return v


def rate(m):
    return m["items"] / m["median_s"] if m["median_s"] > 0 else 0.0


def spread(m):
    s = m["seconds"]
    if len(s) < 2 or m["median_s"] <= 0:
        return "-"
    return f"{(max(s) - min(s)) / m['median_s'] * 100:.0f}%"


def pct(x):
    return f"{x:.0f}%" if x >= 10 else f"{x:.2g}%"


def rel_spread(m):
    s = m["seconds"]
    return (max(s) - min(s)) / m["median_s"] if len(s) > 1 and m["median_s"] > 0 else 0.0


def fmt_rate(x):
    if x >= 1e6:
        return f"{x / 1e6:.2f} M"
    if x >= 1e4:
        return f"{x / 1e3:.0f} k"
    if x >= 100:
        return f"{x:.0f}"
    return f"{x:.2f}"


def fmt_bytes(n):
    for unit, div in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= div:
            return f"{n / div:.2f} {unit}"
    return f"{n} B"


def group(ms):
    tasks = {}
    for m in ms:
        tasks.setdefault((m["workload"], m["task"]), []).append(m)
    return tasks


def task_table(rows, lines, losses):
    ours = [m for m in rows if m["role"] == "ours"]
    best = max(ours, key=rate) if ours else None
    ceil = [m for m in rows if m["role"] == "ceiling"]
    unit = rows[0]["unit"]
    # Process CPU time (all threads) where the suite measured it: with every
    # core busy, the work per item decides the wall time.
    cpu = all("median_cpu_s" in m for m in rows)
    cpu_head = f" CPU ms per {unit.rstrip('s')} |" if cpu else ""
    lines.append(f"| system | role | median s | {unit}/s | MB/s | spread | vs best MindRecord |{cpu_head}")
    lines.append("|---|---|---:|---:|---:|---:|---:|" + ("---:|" if cpu else ""))
    for m in rows:
        r = rate(m)
        vs = f"{r / rate(best):.2f}×" if best and rate(best) > 0 else "-"
        mbs = f"{m['bytes'] / m['median_s'] / 1e6:.0f}" if m["bytes"] and m["median_s"] > 0 else "-"
        name = f"**{m['system']}**" if m["role"] == "ours" else m["system"]
        cpu_cell = f" {m['median_cpu_s'] / m['items'] * 1e3:.3f} |" if cpu and m["items"] else ""
        lines.append(f"| {name} | {m['role']} | {m['median_s']:.3f} | {fmt_rate(r)} | {mbs} | {spread(m)} | {vs} |"
                     f"{cpu_cell}")
    if not best:
        return
    notes = []
    for m in rows:
        if m["role"] == "baseline" and rate(best) > 0:
            ratio = rate(best) / rate(m) if rate(m) > 0 else float("inf")
            # Within half the larger run-to-run spread: no clear difference.
            noise = abs(ratio - 1) < max(rel_spread(best), rel_spread(m)) / 2
            caveat = " (within the run-to-run spread)" if noise else ""
            if ratio >= 1:
                notes.append(f"{best['system']} is **{ratio:.2f}× faster** than {m['system']}{caveat}")
            else:
                notes.append(f"**we lose**: {m['system']} is {1 / ratio:.2f}× faster than {best['system']}{caveat}")
                losses.append(f"{rows[0]['workload']} / {rows[0]['task']}: {m['system']} is {1 / ratio:.2f}× "
                              f"faster than {best['system']}{caveat}")
    for c in ceil:
        # A ceiling that runs the same work as one of our rows (its "twin":
        # the same pipeline drained in C++) is compared with that row.
        twin = (c.get("extra") or {}).get("twin")
        who = next((m for m in ours if m["system"] == twin), best)
        if rate(c) > 0:
            notes.append(f"{who['system']} reaches {pct(rate(who) / rate(c) * 100)} of the {c['system']} ceiling")
    if notes:
        lines.append("")
        lines.append("; ".join(notes) + ".")


def plot_workload(name, tasks, path):
    keys = [k for k in tasks if k[0] == name]
    if not keys:
        return False
    fig, axes = plt.subplots(len(keys), 1, figsize=(8, 1.0 + 0.42 * sum(len(tasks[k]) + 1 for k in keys)),
                             squeeze=False)
    for ax, key in zip(axes[:, 0], keys):
        rows = tasks[key]
        labels = [m["system"] for m in rows][::-1]
        vals = [rate(m) for m in rows][::-1]
        colors = [ROLE_COLORS.get(m["role"], "#333") for m in rows][::-1]
        ax.barh(labels, vals, color=colors)
        # Linear from zero unless the values span more than 20x (then log).
        log = min(v for v in vals if v > 0) * 20 < max(vals) if any(v > 0 for v in vals) else False
        if log:
            ax.set_xscale("log")
        else:
            ax.set_xlim(0, max(vals) * 1.15)
        ax.set_title(f"{key[1]} ({rows[0]['unit']}/s{', log scale' if log else ''}; blue = MindRecord, "
                     "orange = baseline, grey = ceiling)", fontsize=8)
        ax.tick_params(labelsize=7)
        for i, v in enumerate(vals):
            ax.text(v, i, " " + fmt_rate(v), va="center", fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results", nargs="+", help="formats_bench results (several: merged)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--build-dir")
    ap.add_argument("--extra", action="append", default=[], help="more results JSON (e.g. the PyTorch run)")
    ap.add_argument("--note", action="append", default=[], help="a line for the Machine section")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    res, ms, scales = {}, [], []
    for path in a.results:
        r = json.load(open(path))
        ms += r.pop("measurements")
        wls = sorted({k for k in r if k in ("records", "images", "open")})
        scales.append(f"{', '.join(wls)} at --scale {r['options']['scale']}")
        if "load_before" in res:
            r.pop("load_before")
        res.update(r)
    for extra in a.extra:
        if os.path.exists(extra):
            r = json.load(open(extra))
            ms += r.pop("measurements")
            res.update(r)
    tasks = group(ms)
    opts = res["options"]
    mach = machine()
    lines = ["# MindRecord benchmark report", ""]
    lines.append(f"Generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `benchmarks/run.sh` "
                 f"({'; '.join(scales)}). Each figure is the **median of {opts['runs']} runs after "
                 f"{opts['warmup']} warm-up run(s)**; every ratio compares medians measured in the same invocation. "
                 "'spread' is (max - min) / median over the measured runs.")
    lines.append("")
    lines.append("## Machine")
    lines.append("")
    lines.append(f"- CPU: {mach['cpu']}, {mach['cores']} cores; memory {mach['memory_gib']} GiB")
    lb = res.get("load_before", [])
    la = [res[k] for k in res if k.startswith("load_after_")]
    lines.append(f"- Load average (1/5/15 min) at start: {' '.join(f'{x:.2f}' for x in lb)}; after each workload: "
                 + "; ".join(" ".join(f"{x:.2f}" for x in v) for v in la))
    cores = max(1, int(mach.get("cores") or 1))
    busiest = max(([lb[0]] if lb else []) + [v[0] for v in la if v], default=0.0)
    if lb and lb[0] < 0.5 and all(v and v[0] <= cores for v in la):
        lines.append("- The machine was otherwise idle when the run started (1-min load below 0.5); the load during "
                     "the run is the benchmarks' own. It is a shared machine, so ratios measured in the same "
                     "task remain the figures to read.")
    else:
        lines.append(f"- **This machine is shared** (1-min load up to {busiest:.2f} on {cores} cores): other work "
                     "ran concurrently, so absolute figures are noisy and lower than on an idle machine. Ratios "
                     "within one task were measured minutes apart under similar load, and are the figures to read.")
    lines += [f"- {n}" for n in a.note]
    lines.append("- All data sets fit in the page cache, so every read is a warm-cache read (no cache dropping: "
                 "that needs root). Writes include fsync where the format's writer does it (MindRecord commit, "
                 "TFRecord close); plain files are written without fsync, which favours them.")
    lines.append("")
    lines.append("## Versions")
    lines.append("")
    for k, v in versions(a.build_dir).items():
        lines.append(f"- {k}: {v}")
    lines.append("")
    lines.append("## Systems")
    lines.append("")
    lines.append("- **MindRecord**: this project's ShardReader / ShardWriter / converter / pipeline, default options "
                 "(16 MiB header, 32 MiB pages, SQLite index). `pread` and `mmap` are the reader's I/O modes.")
    lines.append("- **TFRecord**: `benchmarks/baselines/tfrecord_io.*`: TensorFlow's framing (length, masked CRC32C "
                 "of the length, data, masked CRC32C of the data), both CRCs checked on every read (SSE4.2 crc32 instruction, "
                 "as TensorFlow's crc32c uses), tf.train.Example "
                 "parsed with protobuf (TensorFlow's field numbers); 256 KiB buffered sequential reader, 1 MiB "
                 "buffered writer; **+ .idx** = DALI-style sidecar of record offsets for random access (pread).")
    lines.append("- **plain files**: one file per sample in class folders (ImageFolder), open + fstat + read.")
    lines.append("- **LMDB** (`benchmarks/baselines/lmdb_store.*`, liblmdb): the same serialized tf.train.Example "
                 "records under 8-byte big-endian row-id keys in one environment file (MDB_NOSUBDIR | MDB_NOLOCK); "
                 "written in one transaction with MDB_APPEND and made durable at the end (fsync), read in one "
                 "read-only transaction: mdb_get per record, a cursor for the sequential scan, each record parsed "
                 "as TFRecord's are.")
    lines.append("- **Ceilings**: memcpy of the same bytes in memory; `cat` = read(2) of the same files into a "
                 "1 MiB buffer; for images, the bare decode + resize(224) loop and the pipeline's own ops on JPEGs "
                 "already in memory (the pipeline fuses decode with the crop, DCT-domain downscaling, and the "
                 "baselines use the same fused ops, so only the storage and the runtime differ).")
    lines.append("")
    losses = []
    sections = [("records", "Workload 1: ~1 KiB text records + int label"),
                ("images", "Workload 2: ~100 KB JPEGs"),
                ("python", "Python row loops (against python3-lmdb)"),
                ("torch", "PyTorch DataLoader"),
                ("recipes", "Training recipes (classification and detection)"),
                ("open", "Workload 3: open time and peak RSS")]
    for wl, title in sections:
        keys = [k for k in tasks if k[0] == wl]
        if not keys:
            continue
        lines.append(f"## {title}")
        lines.append("")
        if wl == "records" and "records" in res:
            lines.append(f"{res['records']['rows']:,} records, {fmt_bytes(res['records']['payload_bytes'])} of "
                         "payload (text + 8-byte label).")
            lines.append("")
        if wl == "images" and "images" in res:
            im = res["images"]
            lines.append(f"{im['images']:,} JPEGs ({fmt_bytes(im['source_bytes'])}, "
                         f"{im['source_bytes'] / im['images'] / 1e3:.0f} KB each on average), crops of the compat "
                         f"COCO/VOC photos at 800x600, re-encoded. The transform runs use {im['pipeline_images']:,} "
                         "of them in a shuffled order, batch 32.")
            lines.append("")
        if wl == "python" and "python" in res:
            py = res["python"]
            lines.append(f"{py['rows']:,} rows of ~{py['size']:,} bytes (each +-64) in one `bytes` column "
                         "(benchmarks/rows_vs_lmdb.py), the same values in an LMDB environment under 8-byte "
                         "big-endian keys; load average "
                         f"{' '.join(py['load_before'])} before the run. Every case runs once per round, so load "
                         "changes fall on all alike; a case faster than 0.3 s an epoch reads the rows several epochs "
                         "back to back in each round, and its figure is per epoch. Shuffled rows: `for row in MindDataset(..., shuffle=True)` against "
                         "`txn.get` over the same shuffled keys; batches: `.batch(256)` against `cursor.getmulti` of 256 "
                         "shuffled keys, with the pipelines drained by a C++ consumer as the ceilings: the zero-copy "
                         "pipeline that `do_copy=False` runs (counting the rows, or copying each batch's bytes out in "
                         "the consumer's thread), and the pipeline that the default `do_copy=True` runs (its workers "
                         "copy each batch's rows out of the mapped shard, so that the arrays are the caller's to "
                         "keep and write); each Python loop is compared with the C++ consumer of its own "
                         "pipeline; padded batches: `.batch(256, pad_info=...)` "
                         "(MindSpore's way to batch rows of different lengths, one uint8 array a batch) against "
                         "`getmulti` padded into a numpy array; rows in key order: `FileReader.get_next()`. "
                         "`do_copy=False` hands out read-only views of the mapped shard.")
            lines.append("")
        if wl == "torch" and "torch" in res:
            t = res["torch"]
            lines.append(f"{t['images']:,} of the workload-2 JPEGs, shuffled, batch 32, torch {t['torch']}, torchvision "
                         f"{t['torchvision']}. Each DataLoader worker is a process; MindRecordDataset runs one C++ "
                         "thread per worker. torchvision decodes with PIL at full size, MindRecord with libjpeg-turbo "
                         "and a fused DCT-scaled decode + crop, so this ratio includes the decoder, not only the "
                         "storage format.")
            lines.append("")
        if wl == "recipes" and "recipes" in res:
            lines.append(f"{res['recipes']['images']:,} images per recipe (benchmarks/recipe_bench.py), load average "
                         f"{' '.join(res['recipes']['load_before'])} before the run. Classification: "
                         "RandomResizedCrop + flip + RandAugment + Normalize + HWC2CHW, batch 32, MixUp; detection: "
                         "decode + RandomCropWithBBox + flip + ResizeWithBBox, batch 16 with pad_info.")
            lines.append("")
        if wl == "open":
            lines.append(f"{res['open']['rows']:,} records of ~40 bytes + label. Each open runs in a fresh "
                         "process; peak RSS is VmHWM after opening and reading one record, minus the empty process.")
            lines.append("")
            rows = tasks[keys[0]]
            base = next((m for m in rows if m["system"] == "empty process"), None)
            lines.append("| system | open + first read, median ms | spread | open alone, ms | peak RSS MB "
                         "(above empty process) |")
            lines.append("|---|---:|---:|---:|---:|")
            for m in rows:
                rss = m["extra"].get("peak_rss_kb", 0)
                extra_mb = (rss - (base["extra"]["peak_rss_kb"] if base else 0)) / 1024
                only = m["extra"].get("open_only_s", 0) * 1e3
                lines.append(f"| {m['system']} | {m['median_s'] * 1e3:.1f} | {spread(m)} | {only:.1f} | "
                             f"{extra_mb:.1f} |")
            ours = [m for m in rows if m["role"] == "ours"]
            # The baselines that read a record from the middle (the others
            # scan or read the first record).
            random_access = [m for m in rows if m["system"] in ("TFRecord + .idx", "LMDB")]
            best = min(ours, key=lambda m: m["median_s"]) if ours else None
            b_rss = base["extra"]["peak_rss_kb"] if base else 0
            r_ours = min(m["extra"].get("peak_rss_kb", 0) for m in ours) - b_rss if ours else 0
            for other in random_access if ours else []:
                name = other["system"]
                r = best["median_s"] / other["median_s"] if other["median_s"] > 0 else 0
                if r > 1:
                    lines.append("")
                    lines.append(f"**We lose on open time**: {best['system']} takes {r:.1f}× as long as "
                                 f"{name} to open and read a record from the middle.")
                    losses.append(f"open: {best['system']} opens {r:.1f}× slower than {name}")
                r_other = other["extra"].get("peak_rss_kb", 0) - b_rss
                if r_other > 0 and r_ours > r_other:
                    lines.append("")
                    lines.append(f"**We lose on memory**: MindRecord's reader needs {r_ours / r_other:.1f}× the "
                                 f"resident memory of {name} for the same records.")
                    losses.append(f"open: MindRecord's peak RSS is {r_ours / r_other:.1f}× that of {name}")
            lines.append("")
            continue
        for key in keys:
            lines.append(f"### {key[1]}")
            lines.append("")
            task_table(tasks[key], lines, losses)
            lines.append("")
        if wl == "records" and "records_sizes" in res:
            lines.append("### file sizes")
            lines.append("")
            sz = res["records_sizes"]
            lines.append("| files | count | bytes | allocated on disk | bytes / payload |")
            lines.append("|---|---:|---:|---:|---:|")
            for k, v in sz.items():
                if k == "payload":
                    continue
                lines.append(f"| {k} | {v['files']} | {fmt_bytes(v['bytes'])} | {fmt_bytes(v['allocated'])} | "
                             f"{v['bytes'] / sz['payload']:.2f} |")
            lines.append("")
            lines.append("MindRecord's data file includes the 16 MiB reserved header (MindSpore's default; "
                         "`header_size` can shrink it) and the .db holds the SQLite index. Plain files cost a "
                         "4 KiB block each on disk.")
            lines.append("")
        if wl == "images" and "images" in res:
            lines.append("### file sizes")
            lines.append("")
            for k, v in res["images"]["sizes"].items():
                lines.append(f"- {k}: {fmt_bytes(v['bytes'])}")
            lines.append("")
        png = f"{wl}.png"
        if plot_workload(wl, tasks, os.path.join(a.out, png)):
            lines.append(f"![{wl}]({png})")
            lines.append("")
    if not any(k[0] == "torch" for k in tasks):
        lines.append("## PyTorch DataLoader")
        lines.append("")
        lines.append("Not in this report: the torchvision ImageFolder vs MindRecordDataset comparison was not run.")
        lines.append("")
    lines.append("## Where MindRecord loses")
    lines.append("")
    if losses:
        lines += [f"- {x}" for x in losses]
    else:
        lines.append("- Nowhere in this run.")
    lines.append("")
    open(os.path.join(a.out, "REPORT.md"), "w").write("\n".join(lines))


if __name__ == "__main__":
    main()
