"""benchmarks/report.py: each Python batch loop is compared with the C++
consumer of its own pipeline (its "twin"), not with the fastest loop."""
import json
import os
import subprocess
import sys

from conftest import ROOT

TASK = "shuffled batches of 256"


def _m(system, role, median_s, twin=None):
    return {"workload": "python", "task": TASK, "system": system, "role": role, "unit": "rows", "items": 1000,
            "bytes": 1000 * 1024, "seconds": [median_s, median_s], "median_s": median_s,
            "extra": {"twin": twin, "epochs_per_round": 3} if twin else {"epochs_per_round": 3}}


def test_each_loop_is_compared_with_its_own_pipelines_consumer(tmp_path):
    results = tmp_path / "formats_records.json"
    results.write_text(json.dumps({"measurements": [], "options": {"scale": 1, "runs": 5, "warmup": 1},
                                   "load_before": [0.1, 0.1, 0.1]}))
    python = tmp_path / "python.json"
    # The do_copy=False loop is the faster one; the default loop's own
    # ceiling is the slower copying pipeline.
    python.write_text(json.dumps({"python": {"rows": 1000, "size": 1024, "load_before": ["0.10", "0.10", "0.10"]},
                                  "measurements": [
                                      _m("MindDataset batch(256)", "ours", 0.50),
                                      _m("MindDataset batch(256), do_copy=False", "ours", 0.40),
                                      _m("C++ consumer of the zero-copy pipeline", "ceiling", 0.32,
                                         "MindDataset batch(256), do_copy=False"),
                                      _m("C++ consumer of the pipeline as do_copy=True runs it", "ceiling", 0.45,
                                         "MindDataset batch(256)"),
                                      _m("C++ consumer copying", "ceiling", 0.36)]}))
    out = tmp_path / "report"
    subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "report.py"), str(results), "--out", str(out),
                    "--extra", str(python)], check=True, capture_output=True)
    text = (out / "REPORT.md").read_text()
    assert ("MindDataset batch(256) reaches 90% of the C++ consumer of the pipeline as do_copy=True runs it "
            "ceiling") in text
    assert "MindDataset batch(256), do_copy=False reaches 80% of the C++ consumer of the zero-copy pipeline" in text
    # A ceiling without a twin is compared with the fastest loop.
    assert "MindDataset batch(256), do_copy=False reaches 90% of the C++ consumer copying ceiling" in text
    assert "several epochs" in text
