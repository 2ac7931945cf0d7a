"""Builds the mindrecord Python package: the pure-Python modules in python/mindrecord
plus the extensions mindrecord._core and mindrecord._sentencepiece_native,
compiled by the project's CMake build.

Used through pyproject.toml: `/usr/bin/python3 -m pip install --no-build-isolation .`
The CMake build folder is, in order: $MINDRECORD_CMAKE_BUILD_DIR; build/ when
`bash .ci/setup` has configured it (only the extension target is built there);
else build-python/, configured here with tests and benchmarks off.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def project_version():
    """The version in CMakeLists.txt's project(mindrecord VERSION x.y.z)."""
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(\s*mindrecord\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+)", f.read())
    if not m:
        raise RuntimeError("CMakeLists.txt: no project(mindrecord VERSION x.y.z)")
    return m.group(1)


class CMakeBuild(build_ext):
    """Builds the CMake target mindrecord_python and copies each extension's .so into the package."""

    def _cmake_build(self):
        """Configures (once) and builds the target; one build serves every extension."""
        if getattr(self, "_build_dir", None):
            return self._build_dir
        build_dir = os.environ.get("MINDRECORD_CMAKE_BUILD_DIR")
        if not build_dir:
            preset = os.path.join(ROOT, "build")
            build_dir = preset if os.path.exists(os.path.join(preset, "CMakeCache.txt")) else os.path.join(
                ROOT, "build-python")
        build_dir = os.path.abspath(build_dir)
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            subprocess.check_call([
                "cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release", "-DMINDRECORD_BUILD_TESTS=OFF",
                "-DMINDRECORD_BUILD_BENCHMARKS=OFF", "-DMINDRECORD_BUILD_PYTHON=ON",
                "-DPYTHON_EXECUTABLE=" + sys.executable, "-DPython_EXECUTABLE=" + sys.executable
            ])
        subprocess.check_call(
            ["cmake", "--build", build_dir, "--target", "mindrecord_python", "-j", str(os.cpu_count() or 1)])
        self._build_dir = build_dir
        return build_dir

    def build_extension(self, ext):
        build_dir = self._cmake_build()
        name = ext.name.rsplit(".", 1)[1]
        built = glob.glob(os.path.join(build_dir, "python", "mindrecord", name + "*.so"))
        if len(built) != 1:
            raise RuntimeError("%s: expected one python/mindrecord/%s*.so after the build, found %s" %
                               (build_dir, name, built or "none"))
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(built[0], dest)


_SETUPTOOLS_DIR = os.path.join("build", "setuptools")
os.makedirs(os.path.join(ROOT, _SETUPTOOLS_DIR), exist_ok=True)

setup(
    version=project_version(),
    # _sentencepiece_native is built where libsentencepiece-dev is installed
    # (text.SentencePieceTokenizer; without it that op raises ImportError).
    ext_modules=[Extension("mindrecord._core", sources=[]),
                 Extension("mindrecord._sentencepiece_native", sources=[], optional=True)],
    cmdclass={"build_ext": CMakeBuild},
    # setuptools' own build files go under build/setuptools, not into the sources.
    options={"build": {"build_base": _SETUPTOOLS_DIR}, "egg_info": {"egg_base": _SETUPTOOLS_DIR}},
)
