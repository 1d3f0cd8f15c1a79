"""The `limits` family of reliability/run.py: `run` and `batch --jobs 4` under process limits
set on the child with prlimit(1) — open files (`--nofile`, as `ulimit -n`) and address space
(`--as`, as `ulimit -v`) — swept over fixed values, so each case is the same on every run.

Each case must end in 0, 1 or 75 (never a signal, never a hang, never 66 or 73 for a limit), a
failure must name the resource on stderr ("short of open files", "short of memory"), and nothing
may be left in the output folder (no temp file; only the output on success; for batch, its own
`.reencode` folder). Below the dynamic loader's own need (it cannot map the libraries: exit 127)
a limit says nothing about reencode: such a case is counted as skipped by probing `--version`.
Python 3 standard library only.
"""
import os
import shutil

NAMES = {"nofile": "short of open files", "as": "short of memory"}
# Values in descriptors (nofile) and MiB (as).
QUICK = {"nofile": [4, 6, 8, 16, 32, 48, 64, 96], "as": [256, 300, 400, 700, 2048, 8192]}
FULL = {"nofile": list(range(4, 72, 2)) + [96, 128], "as": list(range(256, 1100, 64)) + [1400, 2048, 3072, 8192]}
ALLOWED = {0, 1, 75}


def limit_args(kind, value):
    return ["prlimit", f"--nofile={value}" if kind == "nofile" else f"--as={value << 20}", "--"]


def limits(self, execute):
    """`self` is run.py's Runner; `execute` its process runner."""
    fam = "limits"
    if not shutil.which("prlimit"):
        self.family(fam)["skipped"] = "prlimit (util-linux) is missing"
        return
    good = self.good_media()
    proxy = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "recipes", "proxy-540p.yaml")
    sweep = QUICK if self.a.quick else FULL
    for kind, values in sweep.items():
        for value in values:
            prefix = limit_args(kind, value)
            if execute(prefix + [self.reencode, "--version"], 30).returncode == 127:
                continue  # the loader itself cannot start under this limit
            box = self.sandbox()
            out = os.path.join(box, "out")
            name = f"run under --{kind}={value}"
            self.family(fam)["cases"] += 1
            res = execute(prefix + [self.reencode, "run", proxy, "-i", good, "-o", os.path.join(out, "x.mp4"),
                                    "--progress", "none"], 120, cwd=box)
            judged(self, fam, name, res, kind, box, out, ["x.mp4"] if res.returncode == 0 else [])
            inp = os.path.join(box, "in")
            os.makedirs(inp)
            for i in range(4):
                shutil.copy(good, os.path.join(inp, f"f{i}.mp4"))
            name = f"batch --jobs 4 under --{kind}={value}"
            self.family(fam)["cases"] += 1
            bout = os.path.join(box, "bout")
            res = execute(prefix + [self.reencode, "batch", proxy, "--input-dir", inp, "--output-dir", bout,
                                    "--settle", "0", "--jobs", "4"], 300, cwd=box)
            # Files converted before a shortage stay converted; a temp file never does.
            judged(self, fam, name, res, kind, box, bout, batch_state(bout) + [f"f{i}-proxy.mp4" for i in range(4)])
            self.cleanup(box)


def judged(self, fam, name, res, kind, box, out, allowed_names):
    repro = self.cmdline(res.args, box)
    if not self.judge(fam, name, res, ALLOWED, cwd=box):
        return
    err = res.stderr.decode("utf-8", "replace")
    if res.returncode != 0 and NAMES[kind] not in err:
        self.fail(fam, name, "unnamed", f"exit {res.returncode} without '{NAMES[kind]}': {err.strip()[-200:]}", repro)
    if os.path.isdir(out):
        self.check_leftovers(fam, name, out, allowed_names, repro)


def batch_state(out):
    """The batch's own files (.reencode/: lock, ledger, claims folder): never a temp file."""
    names = []
    for root, dirs, files in os.walk(os.path.join(out, ".reencode")):
        names += [os.path.relpath(os.path.join(root, n), out) for n in dirs + files if ".reencode-tmp-" not in n]
    return [".reencode"] + names
