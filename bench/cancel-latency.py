#!/usr/bin/env python3
"""How long reencode takes to stop once asked: SIGINT to a `reencode run` mid-conversion, and to a
`reencode batch --jobs 2` with two files under way, until the process has exited (its temp files
gone). A speed, so measured here and not asserted by the tests (they check that cancelling
happens: exit 130, no output, the lanes stopped).

    python3 bench/cancel-latency.py [--bin DIR] [--runs N]

Builds nothing: DIR (default .build/release) must hold reencode and reencode-bench
(`swift build -c release`). Prints the median and the slowest of N runs (default 10) for each.
Python 3 standard library only.
"""
import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# x264 veryslow on 640x360: seconds per second of media on any machine, so the signal always
# lands mid-conversion.
SLOW = """recipe: 1
output: { path: "{stem}-slow.mp4" }
reader: { outputs: { v: { track: video }, a: { track: audio } } }
writer:
  inputs:
    - { source: v, settings: { codec: h264, codec-options: { preset: veryslow } } }
    - { source: a }
"""


def temps(folder):
    return [n for _, _, files in os.walk(folder) for n in files if ".reencode-tmp-" in n]


def stop_once(args, watch, cwd):
    """Seconds from SIGINT to exit, sent once a temp file exists under `watch`."""
    p = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not temps(watch) and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    if p.poll() is not None or not temps(watch):
        p.kill()
        raise SystemExit(f"cancel-latency: {' '.join(args)} never got under way (exit {p.poll()})")
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    p.wait()
    took = time.monotonic() - sent
    if p.returncode != 130 or temps(watch):
        raise SystemExit(f"cancel-latency: exit {p.returncode}, temp files {temps(watch)}: not a clean cancel")
    return took


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(REPO, ".build", "release"))
    ap.add_argument("--runs", type=int, default=10)
    a = ap.parse_args()
    reencode, tool = (os.path.join(os.path.abspath(a.bin), name) for name in ("reencode", "reencode-bench"))
    work = tempfile.mkdtemp(prefix="reencode-cancel-")
    try:
        src = os.path.join(work, "in")
        os.makedirs(src)
        for name in ("a.mp4", "b.mp4"):
            subprocess.run([tool, "make-source", os.path.join(src, name), "--seconds", "20", "--width", "640", "--height", "360"],
                           check=True, stdout=subprocess.DEVNULL)
        old = time.time() - 600
        for name in ("a.mp4", "b.mp4"):
            os.utime(os.path.join(src, name), (old, old))
        recipe = os.path.join(work, "slow.yaml")
        open(recipe, "w").write(SLOW)
        out = os.path.join(work, "out")
        cases = {
            "run": lambda: stop_once([reencode, "run", recipe, "-i", os.path.join(src, "a.mp4"), "-o", os.path.join(out, "a.mp4"),
                                      "--progress", "none"], out, work),
            "batch --jobs 2": lambda: stop_once([reencode, "batch", recipe, "--input-dir", src, "--output-dir", out, "--jobs", "2",
                                                 "--settle", "0"], out, work),
        }
        for name, once in cases.items():
            times = []
            for _ in range(a.runs):
                shutil.rmtree(out, ignore_errors=True)
                os.makedirs(out)
                times.append(once())
            print(f"{name:15s} SIGINT to exit: median {statistics.median(times) * 1000:.0f} ms, "
                  f"slowest {max(times) * 1000:.0f} ms ({a.runs} runs)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
