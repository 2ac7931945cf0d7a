"""What a process pays before it does any work: the CLI's `--version` and
`import mindrecord`, against the same interpreter importing numpy alone (what
any numpy user pays) and an empty `python3 -c pass`.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/startup_bench.py [--cli build/mindrecord] [--runs R]

Each command runs --runs times in a fresh process; the medians of its wall
time, its CPU time (user + system, from wait4) and its peak RSS are printed.
Every fresh CLI process, Python import, spawned map worker, DataLoader worker
under the spawn start method, and MPI or torchrun rank pays these.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def measure(cmd, runs, env):
    wall, cpu, rss = [], [], []
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, env=env)
        _, status, ru = os.wait4(p.pid, 0)  # (Popen's own wait would not give the child's rusage)
        wall.append(time.perf_counter() - t)
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            raise SystemExit("%s exited with %d" % (" ".join(cmd), code))
        cpu.append(ru.ru_utime + ru.ru_stime)
        rss.append(ru.ru_maxrss / 1024)
    return statistics.median(wall), statistics.median(cpu), statistics.median(rss)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build",
                                                  "mindrecord"))
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    env = dict(os.environ)
    cases = [("python3 -c pass (empty interpreter)", [sys.executable, "-c", "pass"]),
             ("python3 -c 'import numpy'", [sys.executable, "-c", "import numpy"]),
             ("python3 -c 'import mindrecord'", [sys.executable, "-c", "import mindrecord"])]
    if os.path.exists(args.cli):
        cases.append(("mindrecord --version", [args.cli, "--version"]))
    print("load before: %s" % (os.getloadavg(),))
    print("%-40s %10s %10s %10s" % ("command", "wall ms", "CPU ms", "RSS MB"))
    for name, cmd in cases:
        w, c, r = measure(cmd, args.runs, env)
        print("%-40s %10.1f %10.1f %10.1f" % (name, w * 1e3, c * 1e3, r))
    print("load after: %s" % (os.getloadavg(),))


if __name__ == "__main__":
    main()
