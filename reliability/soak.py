#!/usr/bin/env python3
"""Soak: a batch of many tiny files with broken ones mixed in, killed with SIGKILL at random moments
and restarted, then run to completion. Checks that every good file was converted exactly once,
every broken one recorded as failed, nothing left behind, and peak RSS flat across runs.

    reliability/soak.py [--files 1000] [--broken 0.05] [--kills 20] [--seed 1] [--bin DIR] [--work DIR] [--json PATH]

Every good file: exactly one `done` ledger entry, its output exists and `reencode inspect` reads it.
Every broken file: at least one `failed` entry and no `done` entry. Afterwards no `.reencode-tmp-`
file and no claim. Peak RSS (ru_maxrss of each run) is printed per run; "flat" means the largest
is within 1.5x of the median, over the runs that recorded something. Exit 0 when every check holds, 1 otherwise.
Python 3 standard library only.
"""
import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time

import batch_ledger

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def ledger_lines(out):
    entries, bad = batch_ledger.read(out)
    return len(entries) + len(bad)


def run_batch(args, kill_after=None):
    """Runs one batch; SIGKILLs it after kill_after seconds. Returns (status, peak RSS kB, seconds, killed)."""
    start = time.monotonic()
    # Nothing reads the child's output while it runs: a pipe could fill and stall it.
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    killed = False
    # wait4 reaps the child and gives its peak RSS (ru_maxrss, kB on Linux); Popen.poll() would
    # reap it first and lose the RSS, so the child is only ever waited for here.
    pid, status, usage = 0, 0, None
    if kill_after is not None:
        while time.monotonic() - start < kill_after:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid != 0:
                break
            time.sleep(0.02)
        if pid == 0:
            os.kill(p.pid, signal.SIGKILL)
            killed = True
    if pid == 0:
        _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, usage.ru_maxrss, time.monotonic() - start, killed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--broken", type=float, default=0.05)
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--bin", default=os.path.join(REPO, ".build", "release"))
    ap.add_argument("--work", default="/tmp/reencode-soak")
    ap.add_argument("--json", help="write the numbers here too")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    reencode, bench = os.path.join(a.bin, "reencode"), os.path.join(a.bin, "reencode-bench")
    shutil.rmtree(a.work, ignore_errors=True)
    inp, out = os.path.join(a.work, "in"), os.path.join(a.work, "out")
    os.makedirs(inp)
    # A few distinct tiny sources, copied under many names (in sub-folders, as uploads are).
    kinds = []
    for i, (w, h, fps) in enumerate([(64, 48, "10"), (96, 64, "15"), (80, 60, "12"), (64, 64, "24"), (128, 72, "10")]):
        path = os.path.join(a.work, f"src{i}.mp4")
        subprocess.run([bench, "make-source", "--seconds", "1", "--width", str(w), "--height", str(h), "--fps", fps, path],
                       check=True, stdout=subprocess.DEVNULL)
        kinds.append(open(path, "rb").read())
    good, broken = [], []
    for n in range(a.files):
        rel = f"d{n // 100:02d}/f{n:04d}.mp4"
        os.makedirs(os.path.dirname(os.path.join(inp, rel)), exist_ok=True)
        data = rng.choice(kinds)
        if rng.random() < a.broken:
            how = rng.choice(["truncated", "random", "empty", "header"])
            data = {"truncated": data[:len(data) // 3], "random": bytes(rng.randrange(256) for _ in range(2000)),
                    "empty": b"", "header": data[:64]}[how]
            broken.append(rel)
        else:
            good.append(rel)
        with open(os.path.join(inp, rel), "wb") as f:
            f.write(data)
    args = [reencode, "batch", os.path.join(REPO, "recipes", "proxy-540p.yaml"), "--input-dir", inp,
            "--output-dir", out, "--settle", "0", "--jobs", str(a.jobs), "--max-attempts", "3"]
    print(f"soak: {len(good)} good + {len(broken)} broken files, {a.kills} SIGKILLs, seed {a.seed}")
    runs = []
    started = time.monotonic()
    for k in range(a.kills):
        after = rng.uniform(0.3, 3.0)
        n0 = ledger_lines(out)
        status, rss, secs, killed = run_batch(args, after)
        runs.append({"run": k + 1, "kill_after": round(after, 2), "killed": killed, "exit": status, "peak_rss_kb": rss,
                     "seconds": round(secs, 2), "recorded": ledger_lines(out) - n0})
        print(f"  run {k + 1:2d}: kill after {after:.2f} s → {'killed' if killed else f'exit {status}'}, "
              f"recorded {runs[-1]['recorded']}, peak RSS {rss} kB")
    for k in range(2):  # to completion, then once more: nothing left to do
        n0 = ledger_lines(out)
        status, rss, secs, _ = run_batch(args)
        runs.append({"run": a.kills + k + 1, "kill_after": None, "killed": False, "exit": status, "peak_rss_kb": rss,
                     "seconds": round(secs, 2), "recorded": ledger_lines(out) - n0})
        print(f"  final run {k + 1}: exit {status} in {secs:.1f} s, recorded {runs[-1]['recorded']}, peak RSS {rss} kB")
    total = time.monotonic() - started

    problems = []
    ledger, unreadable = batch_ledger.read(out)
    if unreadable:
        problems.append(f"ledger lines that are not entries: {', '.join(unreadable[:5])}")
    done, failed = {}, {}
    for e in ledger:
        # Only done and failed lines count: others (e.g. a 'started' line before a conversion) are bookkeeping.
        if e.get("status") in ("done", "failed"):
            (done if e.get("status") == "done" else failed).setdefault(e.get("source"), []).append(e)
    not_once = [g for g in good if len(done.get(g, [])) != 1]
    if not_once:
        problems.append(f"{len(not_once)} good files without exactly one done entry, e.g. "
                        + ", ".join(f"{g} ({len(done.get(g, []))})" for g in not_once[:5]))
    outputs = [os.path.join(out, done[g][0]["output"]) if not os.path.isabs(done[g][0]["output"]) else done[g][0]["output"]
               for g in good if done.get(g)]
    missing = [o for o in outputs if not os.path.isfile(o)]
    if missing:
        problems.append(f"{len(missing)} outputs missing, e.g. {missing[:3]}")
    present = [o for o in outputs if os.path.isfile(o)]
    if present:
        r = subprocess.run([reencode, "inspect", "--json", *present], capture_output=True)
        if r.returncode != 0:
            problems.append(f"reencode inspect of the outputs exited {r.returncode}: {r.stderr.decode()[-300:]}")
    unrecorded = [b for b in broken if not failed.get(b)]
    accepted = [b for b in broken if done.get(b)]
    if unrecorded:
        problems.append(f"{len(unrecorded)} broken files without a failed entry, e.g. {unrecorded[:5]}")
    if accepted:
        problems.append(f"{len(accepted)} broken files recorded done, e.g. {accepted[:5]}")
    left = []
    for root, dirs, files in os.walk(a.work):
        for n in files:
            if ".reencode-tmp-" in n or n.endswith(".claim"):
                left.append(os.path.relpath(os.path.join(root, n), a.work))
    if left:
        problems.append(f"{len(left)} temp files or claims left, e.g. {left[:5]}")
    extra = sum(1 for root, _, files in os.walk(out) if ".reencode" not in root for n in files) - len(present)
    if extra:
        problems.append(f"{extra} files in the output folder beyond the recorded outputs")
    if runs[-2]["exit"] not in (0, 1) or runs[-1]["exit"] not in (0, 1):
        problems.append(f"final runs exited {runs[-2]['exit']}, {runs[-1]['exit']}")
    # Flat over the runs that converted something: a run killed while starting up never reached
    # its working size, and would make any later run look like growth.
    rss = [r["peak_rss_kb"] for r in runs if r["recorded"] > 0] or [r["peak_rss_kb"] for r in runs]
    median = statistics.median(rss)
    flat = max(rss) <= 1.5 * median
    if not flat:
        problems.append(f"peak RSS not flat: max {max(rss)} kB, median {median} kB over {len(rss)} working runs")
    summary = {"files": a.files, "good": len(good), "broken": len(broken), "kills": a.kills, "seed": a.seed,
               "seconds": round(total, 1), "done_entries": sum(len(v) for v in done.values()),
               "failed_entries": sum(len(v) for v in failed.values()),
               "peak_rss_kb": {"min": min(rss), "median": median, "max": max(rss)}, "runs": runs, "problems": problems}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1)
    print(f"soak: {total:.0f} s; done entries {summary['done_entries']} for {len(good)} good files; "
          f"failed entries {summary['failed_entries']} for {len(broken)} broken; peak RSS min/median/max "
          f"{min(rss)}/{median:.0f}/{max(rss)} kB")
    for p in problems:
        print("  PROBLEM: " + p)
    print("soak: " + ("ok" if not problems else f"{len(problems)} problems"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
