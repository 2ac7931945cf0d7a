"""The package as a user installs it: one version everywhere (CMake's project()),
`pip install` through pyproject.toml, and the _core stub in step with the binding."""
import ast
import os
import re
import subprocess
import sys

import pytest

import mindrecord
from mindrecord import _core

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STUB = os.path.join(ROOT, "python", "mindrecord", "_core.pyi")


def cmake_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(\s*mindrecord\s+VERSION\s+([0-9.]+)", f.read()).group(1)


def build_dir():
    # The CMake build folder the imported extension came from: <build>/python/mindrecord/_core*.so.
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(_core.__file__))))


def test_version_is_the_cmake_project_version():
    assert mindrecord.__version__ == cmake_version()
    assert _core.__version__ == mindrecord.__version__


def test_cli_version_matches():
    cli = os.path.join(build_dir(), "mindrecord")
    if not os.path.exists(cli):
        pytest.skip("the CLI is not built beside the extension (%s)" % cli)
    out = subprocess.run([cli, "--version"], capture_output=True, text=True, check=True).stdout
    assert out == "mindrecord %s\n" % mindrecord.__version__


def test_image_codecs_load_when_an_image_needs_them():
    # OpenCV's imgcodecs and the ~120 libraries it needs are dlopen'ed at the
    # first non-JPEG decode or encode, not when the package or the CLI starts.
    code = """
import numpy as np
import mindrecord.vision as vision
def mapped():
    with open("/proc/self/maps") as f:
        return "libopencv_imgcodecs" in f.read()
assert not mapped(), "imgcodecs loaded by the import"
img = (np.arange(48 * 64 * 3) % 251).astype(np.uint8).reshape(48, 64, 3)
png = vision.encode_png(img)
assert (vision.Decode()(png) == img).all()
assert mapped()
"""
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ))
    cli = os.path.join(build_dir(), "mindrecord")
    if not os.path.exists(cli):
        pytest.skip("the CLI is not built beside the extension (%s)" % cli)
    loads = subprocess.run([cli, "--version"], capture_output=True, text=True, check=True,
                           env=dict(os.environ, LD_DEBUG="files")).stderr
    assert "libopencv_core" in loads  # the loader's trace is there
    assert "libopencv_imgcodecs" not in loads


def stub_names():
    """{name: set of member names or None} of the stub's top-level definitions."""
    tree = ast.parse(open(STUB, encoding="utf-8").read())
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef) and
                                not (n.name.startswith("__") and n.name != "__init__")}
        elif isinstance(node, ast.FunctionDef):
            names[node.name] = None
        elif isinstance(node, ast.AnnAssign):
            names[node.target.id] = None
    return names


def test_core_stub_matches_the_extension():
    stub = stub_names()
    module = {n for n in dir(_core) if not n.startswith("__") or n == "__version__"}
    assert set(stub) == module, "in the stub only: %s; in _core only: %s" % (
        sorted(set(stub) - module), sorted(module - set(stub)))
    for name, members in stub.items():
        obj = getattr(_core, name)
        if members is None or issubclass(obj, BaseException):
            continue
        real = {n for n in dir(obj) if not n.startswith("_")} | {"__init__"}
        assert members == real, "%s: in the stub only: %s; in _core only: %s" % (
            name, sorted(members - real), sorted(real - members))


def test_pip_install_into_a_target_folder(tmp_path):
    """`pip install --no-build-isolation --target DIR .` builds through CMake (here the
    already-built tree, so only the extension target is checked) and installs a package
    that imports, reports its version and writes and reads a dataset without PYTHONPATH
    pointing into the build tree."""
    target = tmp_path / "site"
    env = dict(os.environ, MINDRECORD_CMAKE_BUILD_DIR=build_dir(), PIP_NO_INDEX="1")
    env.pop("PYTHONPATH", None)
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--quiet",
                        "--target", str(target), ROOT], capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    pkg = target / "mindrecord"
    assert (pkg / "py.typed").exists() and (pkg / "_core.pyi").exists()
    assert list(pkg.glob("_core*.so")) and list(pkg.glob("_sentencepiece_native*.so"))
    script = (
        "import mindrecord, mindrecord._sentencepiece_native, sys, numpy as np\n"
        "assert mindrecord.__file__.startswith(sys.argv[1]), mindrecord.__file__\n"
        "w = mindrecord.FileWriter(sys.argv[2], 2)\n"
        "w.add_schema({'id': {'type': 'int64'}, 'v': {'type': 'float32', 'shape': [2]}}, 'pip')\n"
        "w.write_raw_data([{'id': i, 'v': np.full(2, i, np.float32)} for i in range(10)])\n"
        "w.commit()\n"
        "with mindrecord.FileReader(sys.argv[2] + '0') as r:\n"
        "    ids = sorted(int(row['id']) for row in r.get_next())\n"
        "assert ids == list(range(10)), ids\n"
        "print(mindrecord.__version__)\n")
    env = dict(os.environ, PYTHONPATH=str(target))
    r = subprocess.run([sys.executable, "-c", script, str(target), str(tmp_path / "data.mindrecord")],
                       capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip() == cmake_version()


def _mypy(tmp_path, *targets):
    pytest.importorskip("mypy")
    env = dict(os.environ, MYPYPATH=os.path.join(ROOT, "python"))
    # The project's settings (pyproject.toml [tool.mypy]), as `mypy` in the checkout uses them.
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", os.path.join(ROOT, "pyproject.toml"),
                           "--cache-dir", str(tmp_path / "mypy_cache"), *targets],
                          capture_output=True, text=True, env=env, cwd=str(tmp_path))


def test_type_hints_check_and_catch_misuse(tmp_path):
    """The package type-checks, and its hints reach a user's code: a wrong argument type is an error."""
    good = tmp_path / "good.py"
    good.write_text("from mindrecord import FileWriter, MindDataset\n"
                    "w = FileWriter('x.mindrecord', 2)\n"
                    "n: int = w.commit()\n"
                    "ds = MindDataset('x.mindrecord0', columns_list=['a']).batch(4)\n")
    bad = tmp_path / "bad.py"
    bad.write_text("from mindrecord import FileWriter\n"
                   "w = FileWriter('x.mindrecord', shard_num='2')\n")
    r = _mypy(tmp_path, os.path.join(ROOT, "python", "mindrecord"), str(good))
    assert r.returncode == 0, r.stdout + r.stderr
    r = _mypy(tmp_path, str(bad))
    assert r.returncode == 1 and 'Argument "shard_num"' in r.stdout, r.stdout + r.stderr
