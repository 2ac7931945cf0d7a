"""Datasets named by URL from real local servers started here (nginx, s3rver,
the fault-injecting server in tests/servers): MindDataset, FileReader,
MindPage and the torch adapter read what a local read gives, the page cache
is shared by processes, and the remote= keyword is checked. A server that
does not start fails the test (no skip)."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

import mindrecord
from mindrecord import _core

from conftest import ROOT, write_simple

SERVERS = os.path.join(ROOT, "tests", "servers")


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _wait(proc, port, what, log):
    deadline = time.time() + 30
    while time.time() < deadline:
        if proc.poll() is not None:
            raise AssertionError("%s exited at start: %s" % (what, open(log).read()))
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return "http://127.0.0.1:%d" % port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("%s did not listen on %d: %s" % (what, port, open(log).read()))


class Server:
    def __init__(self, argv, port, what, scratch, log=None):
        self.scratch = scratch
        self.log = log
        out = os.path.join(scratch, "stdout")
        self.proc = subprocess.Popen(argv, stdout=open(out, "w"), stderr=subprocess.STDOUT)
        self.url = _wait(self.proc, port, what, out)

    def lines(self):
        with open(self.log) as f:
            return [line.rstrip("\n") for line in f if line.strip()]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.scratch, ignore_errors=True)


def start_nginx(root):
    d = tempfile.mkdtemp(prefix="mr-nginx-")
    port = _free_port()
    log = os.path.join(d, "access.log")
    conf = ("%sdaemon off;\nmaster_process off;\nworker_processes 1;\npid %s/nginx.pid;\nerror_log %s/error.log;\n"
            "events { worker_connections 256; }\nhttp {\n"
            "  log_format ranges '$request_method $uri \"$http_range\" $status $body_bytes_sent';\n"
            "  access_log %s ranges;\n  client_body_temp_path %s/b;\n  proxy_temp_path %s/p;\n"
            "  fastcgi_temp_path %s/f;\n  uwsgi_temp_path %s/u;\n  scgi_temp_path %s/s;\n"
            "  server { listen 127.0.0.1:%d; root %s; }\n}\n"
            % ("user root;\n" if os.geteuid() == 0 else "", d, d, log, d, d, d, d, d, port, root))
    with open(os.path.join(d, "nginx.conf"), "w") as f:
        f.write(conf)
    return Server(["nginx", "-p", d, "-c", os.path.join(d, "nginx.conf"), "-e", os.path.join(d, "error.log")],
                  port, "nginx", d, log)


def start_fault_server(root):
    d = tempfile.mkdtemp(prefix="mr-fault-")
    port = _free_port()
    log = os.path.join(d, "requests.jsonl")
    return Server(["/usr/bin/python3", os.path.join(SERVERS, "fault_server.py"), "--root", root, "--port",
                   str(port), "--log", log], port, "fault server", d, log)


def start_s3rver(bucket):
    js = os.path.join(SERVERS, "node_modules", "s3rver", "bin", "s3rver.js")
    assert os.path.exists(js), "%s is missing: run `npm ci --prefix tests/servers` (.ci/setup does)" % js
    d = tempfile.mkdtemp(prefix="mr-s3rver-")
    os.makedirs(os.path.join(d, "data"))
    port = _free_port()
    return Server(["node", js, "-d", os.path.join(d, "data"), "-a", "127.0.0.1", "-p", str(port),
                   "--configure-bucket", bucket], port, "s3rver", d)


@pytest.fixture
def served(tmp_path):
    """A 2-shard dataset with small pages under nginx; yields (local, url, nginx)."""
    root = tmp_path / "www"
    root.mkdir()
    local = write_simple(str(root / "simple"), 3000, shard_num=2, page_size=1 << 15)
    server = start_nginx(str(root))
    yield str(root / "simple0"), server.url + "/simple1", server
    server.stop()


@pytest.fixture
def cache(tmp_path):
    return {"cache_dir": str(tmp_path / "cache"), "backoff_ms": 10, "timeout_s": 5}


def _rows(ds):
    return [{k: np.asarray(v).tolist() for k, v in r.items()} for r in ds.create_dict_iterator(output_numpy=True)]


def test_mind_dataset_over_http_reads_what_a_local_read_gives(served, cache):
    local, url, _ = served
    assert _rows(mindrecord.MindDataset(url, remote=cache, shuffle=False)) == \
        _rows(mindrecord.MindDataset(local, shuffle=False))
    for mode in (mindrecord.Shuffle.GLOBAL, mindrecord.Shuffle.FILES, mindrecord.Shuffle.PARTIAL):
        a = _rows(mindrecord.MindDataset(url, remote=cache, shuffle=mode, seed=5, num_parallel_workers=3))
        b = _rows(mindrecord.MindDataset(local, shuffle=mode, seed=5, num_parallel_workers=1))
        assert a == b, mode
    batched = mindrecord.MindDataset(url, remote=cache, shuffle=False).batch(64)
    assert sum(len(b["id"]) for b in batched.create_dict_iterator(output_numpy=True)) == 3000


def test_file_reader_and_mind_page_over_http(served, cache):
    local, url, server = served
    got = list(mindrecord.FileReader(url, remote=cache).get_next())
    want = list(mindrecord.FileReader(local).get_next())
    assert [r["id"] for r in got] == [r["id"] for r in want]
    assert all(np.array_equal(a["vec"], b["vec"]) for a, b in zip(got, want))
    assert not any(".db" in line for line in server.lines()), "rows were read with the index"
    page = mindrecord.MindPage(url, remote=cache)
    page.set_category_field("label")
    remote_rows = page.read_at_page_by_name("3", 0, 5)
    want_page = mindrecord.MindPage(local)
    want_page.set_category_field("label")
    assert [r["id"] for r in remote_rows] == [r["id"] for r in want_page.read_at_page_by_name("3", 0, 5)]
    assert any(".db" in line for line in server.lines()), "the field query did not fetch the index"


def test_torch_workers_share_the_page_cache(served, cache, tmp_path):
    torch = pytest.importorskip("torch")
    from mindrecord.torch import MindRecordDataset
    local, url, server = served
    code = ("import sys, json, torch\nfrom mindrecord.torch import MindRecordDataset\n"
            "ds = MindRecordDataset(sys.argv[1], columns=['id'], shuffle=False, batch_size=100, "
            "remote=json.loads(sys.argv[2]))\n"
            "dl = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=2)\n"
            "print(sorted(int(i) for b in dl for i in b['id']) == list(range(3000)))\n")
    env = dict(os.environ, PYTHONPATH=os.environ.get("PYTHONPATH", ""))
    run = lambda: subprocess.run([sys.executable, "-c", code, url, json.dumps(cache)], env=env, check=True,
                                 capture_output=True, text=True, timeout=300).stdout.strip()
    assert run() == "True"
    cold = [l for l in server.lines() if l.startswith("GET")]
    assert cold
    assert run() == "True"
    warm = [l for l in server.lines() if l.startswith("GET")][len(cold):]
    # Every piece came from the disk cache the first run's workers filled.
    assert warm == [], warm[:5]
    ds = MindRecordDataset(url, columns=["id"], shuffle=False, batch_size=100, remote=cache)
    assert sorted(int(i) for b in ds for i in b["id"]) == list(range(3000))


def test_a_flaky_server_is_retried_and_counted(tmp_path, cache):
    root = tmp_path / "www"
    root.mkdir()
    write_simple(str(root / "one"), 500)
    server = start_fault_server(str(root))
    try:
        before = _core.remote_counters()["retries"]
        rows = _rows(mindrecord.MindDataset(server.url + "/e503/2/one", remote=cache, shuffle=False))
        assert [r["id"] for r in rows] == list(range(500))
        assert _core.remote_counters()["retries"] - before >= 2
        with pytest.raises(OSError, match="access denied"):
            mindrecord.MindDataset(server.url + "/e403/99/one", remote=cache)
    finally:
        server.stop()


def test_remote_keyword_is_checked(served, cache):
    local, url, _ = served
    with pytest.raises(ValueError, match="unknown key 'remote.cache_size'"):
        mindrecord.MindDataset(url, remote={"cache_size": 1})
    with pytest.raises(TypeError, match="remote must be a dict"):
        mindrecord.FileReader(url, remote="big")
    with pytest.raises(ValueError, match="io_mode mmap does not apply to a remote dataset"):
        mindrecord.MindDataset(url, remote=cache, io_mode="mmap")


def test_s3_via_s3rver(tmp_path, cache, monkeypatch):
    local = write_simple(str(tmp_path / "s3set"), 700)
    server = start_s3rver("bkt")
    try:
        for name in ("s3set", "s3set.db"):
            out = subprocess.run(["curl", "-s", "-S", "-o", "/dev/null", "-w", "%{http_code}", "--aws-sigv4",
                                  "aws:amz:us-east-1:s3", "--user", "S3RVER:S3RVER", "-H",
                                  "x-amz-content-sha256: UNSIGNED-PAYLOAD", "-T", str(tmp_path / name),
                                  server.url + "/bkt/data/" + name], capture_output=True, text=True)
            assert out.stdout == "200", out
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "S3RVER")
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "S3RVER")
        monkeypatch.setenv("AWS_ENDPOINT_URL", server.url)
        assert _rows(mindrecord.MindDataset("s3://bkt/data/s3set", remote=cache, shuffle=False)) == \
            _rows(mindrecord.MindDataset(local, shuffle=False))
        with pytest.raises(OSError, match="s3://bkt/data/none: not found"):
            mindrecord.FileReader("s3://bkt/data/none", remote=cache)
    finally:
        server.stop()
