#!/usr/bin/env python3
"""Names in anonymous namespaces that two source files of one target share.

The default and asan presets build in unity batches (CMAKE_UNITY_BUILD): the
.cc files of a target are compiled several to a translation unit, so their
anonymous namespaces become one. Two files defining the same name there fail
to compile in some batch arrangement, or worse, compile with one file calling
the other's overload. Adding a file shifts the batches, so this checks every
pair, not only today's batches: each name defined at namespace scope in an
anonymous namespace (function, type, alias, constant) or brought there by a
using-declaration must come from one file of its target, or be the same
using-declaration or alias everywhere.

    python3 tests/unity_names.py [SOURCE_DIR]     exit 1 and a line per clash
"""
import collections
import os
import re
import sys

# Path prefix -> the target its .cc files are compiled into (CMakeLists.txt,
# tests/CMakeLists.txt, benchmarks/CMakeLists.txt).
TARGETS = [("writers/convert/", "mr_convert"), ("mindrecord/", "mr_core"), ("index/", "mr_core"),
           ("writers/", "mr_core"), ("readers/", "mr_core"), ("pipeline/", "mr_pipeline"),
           ("cli/", "mindrecord_cli"), ("python/", "python"), ("fixtures/", "tests/convert"),
           ("benchmarks/formats_bench.cc", "benchmarks/suite")]
TEST_PARTS = ["bench", "cli", "convert", "core", "fuzz", "pipeline", "remote"]

DEFINITIONS = [
    re.compile(r"^(?:struct|class|enum class|enum|union)\s+([A-Za-z_]\w*)"),
    re.compile(r"^using\s+([A-Za-z_]\w*)\s*="),
    re.compile(r"^(?:[\w:<>,*&\s]+?[\s*&])(~?[A-Za-z_]\w*)\s*\("),
    re.compile(r"^(?:static\s+)?(?:inline\s+)?(?:constexpr|const|std::|thread_local|[\w:<>]+\s)"
               r"[\w:<>,\s*&]*?(?<![:\w])([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*(?:=|\{|;)"),
]
USING_DECL = re.compile(r"^using\s+(?:typename\s+)?([\w:]+::)?(\w+)\s*;")


def targets_of(path):
    for prefix, target in TARGETS:
        if path.startswith(prefix):
            return [target]
    parts = path.split("/")
    if parts[0] == "tests" and len(parts) > 2:
        return ["tests/" + p for p in TEST_PARTS] if parts[1] == "util" else ["tests/" + parts[1]]
    if parts[0] == "benchmarks" and len(parts) > 2:
        return ["benchmarks/" + parts[1]]
    return []  # a program of one file


def anonymous_names(path):
    """Yields (name, how) for each name at namespace scope of an anonymous namespace."""
    stack = []
    for line in open(path, errors="replace"):
        text = line.rstrip("\n")
        code = re.sub(r"//.*", "", text)
        code = re.sub(r"'(\\.|[^'\\])'", "''", code)
        code = re.sub(r'"(\\.|[^"\\])*"', '""', code)
        in_anon = bool(stack) and stack[-1] == "anon"
        opened = re.match(r"^\s*(?:inline\s+)?namespace\s*([\w:]*)\s*\{", code)
        if opened:
            stack.append("ns" if opened.group(1) else "anon")
            code = code[opened.end():]
        for ch in code:
            if ch == "{":
                stack.append("block")
            elif ch == "}" and stack:
                stack.pop()
        if opened or not in_anon or text.startswith((" ", "\t", "/", "#", "}", "TEST", "return", "namespace",
                                                     "using namespace")):
            continue
        decl = USING_DECL.match(text)
        if decl:
            yield decl.group(2), "using " + (decl.group(1) or "") + decl.group(2)
            continue
        if text.startswith("using "):
            yield re.match(r"using\s+(\w+)", text).group(1), re.sub(r"\s", "", text)
            continue
        for pattern in DEFINITIONS:
            m = pattern.match(text)
            if m:
                yield m.group(1), path  # a definition: one per file
                break


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    os.chdir(root)
    names = collections.defaultdict(lambda: collections.defaultdict(set))  # target -> name -> {(how, file)}
    for top in ("mindrecord", "index", "writers", "readers", "pipeline", "cli", "python", "fixtures", "tests",
                "benchmarks"):
        for dirpath, _, files in sorted(os.walk(top)):
            if "node_modules" in dirpath:
                continue
            for f in sorted(files):
                path = os.path.join(dirpath, f)
                if not f.endswith(".cc"):
                    continue
                for name, how in anonymous_names(path):
                    for target in targets_of(path):
                        names[target][name].add((how, path))
    clashes = 0
    for target in sorted(names):
        for name, uses in sorted(names[target].items()):
            files = {path for _, path in uses}
            kinds = {how for how, _ in uses}
            # One file, or the same using-declaration / alias in every file.
            if len(files) > 1 and (len(kinds) > 1 or next(iter(kinds)) in files):
                print(f"{target}: '{name}' in the anonymous namespace of " + ", ".join(sorted(files)))
                clashes += 1
    if clashes:
        print(f"{clashes} names clash in unity builds: give each its file's own name "
              "(or share one definition through a header)")
    return 1 if clashes else 0


if __name__ == "__main__":
    sys.exit(main())
