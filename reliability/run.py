#!/usr/bin/env python3
"""The reliability runner: feeds hostile media, mutated recipes and hostile command lines to the
built `reencode` and checks each answer.

    reliability/run.py --quick|--full [--bin DIR] [--work DIR] [--results DIR] [--seed N] [--only FAMILY,...]

Checks, for every command: no crash (killed by a signal, or an exit status of 128+n it was not
asked for), no hang (time limit; the process group is then killed), an exit status in the set
allowed for that input class, nothing left behind in the output folder (no `.reencode-tmp-` file,
no partial output, only the output on success), the source's SHA-256 unchanged, and for valid
media a conversion that exits 0 with an output that probes. Truncated media that "converts" with
exit 0 must give an output at least 90% as long as the whole file (else: damage accepted).

Writes RESULTS/results.json and RESULTS/results.md: per family the checks tried, the failures and
each failing case with the command that reproduces it. Exit status 0 when nothing failed, 1 when
something did, 2 when the runner itself could not run.
Python 3 standard library only (ffprobe, when present, measures output durations).
"""
import argparse
import hashlib
import json
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import time

import process as process_classes  # issue 23's process classes (reliability/process.py)
import limits  # the process-limit family: reliability/limits.py
import batch_ledger

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# Exit statuses a command may give, by command and input class (README, "What it guarantees").
ALLOWED = {
    ("inspect", "valid"): {0},
    ("inspect", "damaged"): {0, 66, 74},
    ("inspect", "notmedia"): {66},
    ("inspect", "special"): {66},
    ("plan", "valid"): {0},
    ("plan", "damaged"): {0, 1, 66, 74},
    ("plan", "notmedia"): {66},
    ("plan", "special"): {66},
    ("run", "valid"): {0},
    ("run", "damaged"): {0, 1, 66, 74},
    ("run", "notmedia"): {66},
    ("run", "special"): {66},
    ("validate", "recipe"): {0, 65},
    ("plan", "recipe"): {0, 65, 66, 73},
    ("run", "recipe"): {0, 1, 65, 66, 73, 74},
}

QUICK_MEDIA = [
    "valid-v.mp4", "valid-v.mkv", "valid-v.mov", "valid-a.m4a", "valid-v.ts",
    "trunc-v-01of21.mkv", "trunc-v-02of21.mkv", "trunc-v-03of21.mkv", "trunc-v-10of21.mkv", "trunc-v-20of21.mkv",
    "trunc-v-01of21.mp4", "trunc-v-10of21.mp4", "trunc-v-20of21.mp4", "trunc-a-10of21.m4a", "trunc-v-10of21.ts",
    "box-v-mvhd-timescale_0.mp4", "box-v-mdhd-timescale_1.mp4", "box-v-mdhd-duration_2p63-1.mp4",
    "box-v-stts-delta_2p32-1.mp4", "box-v-elst-segment_duration_2p63-1.mp4", "box-v-stsz-sample_size_2p31.mp4",
    "ebml-v-TimecodeScale-0.mkv", "ebml-v-Duration-0.mkv",
    "flip-v-00.mp4", "flip-v-03.mkv", "zero-v-1.mp4", "head-v-0.mkv",
    "cut-v-q2.avi", "cut-v-q2.flv", "cut-v-q2.webm", "cut-a-q2.wav", "cut-a-q2.flac", "cut-a-q2.mp3", "unitcut-v-q2.mpg", "unitcut-a-q2.ogg",
    "empty.mp4", "one.mkv", "hundred.mp4", "first100-v.mkv", "first100-v.mp4", "random-1024.mp4", "text.mov",
    "wrongext-v-mkv.mp4", "wrongext-v-ts.mp4",
    "fifo.mp4", "dir.mp4", "loop-a.mp4", "dangling.mp4", "zero-device.mp4", "null-device.mp4", "missing.mp4",
]
QUICK_RECIPES = 60


def output_extension(recipe_path):
    """The extension an output of this recipe must have: reencode refuses (exit 64) an -o whose
    extension contradicts the recipe's `format:`, so the harness names outputs after it."""
    try:
        text = open(recipe_path, encoding="utf-8", errors="replace").read()
    except OSError:
        return ".mp4"
    m = re.search(r"^[ \t]*format:[ \t]*[\"']?([A-Za-z0-9]+)", text, re.M)
    known = {"mp4", "mov", "m4a", "mkv", "webm", "ts"}
    return "." + m.group(1).lower() if m and m.group(1).lower() in known else ".mp4"


def writes_several(recipe_path):
    """Whether the recipe lists its outputs (a top-level `outputs:`), each with its own path."""
    try:
        text = open(recipe_path, encoding="utf-8", errors="replace").read()
    except OSError:
        return False
    return re.search(r"^outputs[ \t]*:", text.replace("\r\n", "\n").replace("\r", "\n"), re.M) is not None


def sha256(path):
    try:
        if not os.path.isfile(path) or os.path.islink(path) and not os.path.exists(path):
            return None
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        return h.hexdigest()
    except OSError:
        return None


def probe_seconds(path):
    if not shutil.which("ffprobe"):
        return None
    try:
        r = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path],
                           capture_output=True, text=True, timeout=30)
        return float(r.stdout.strip())
    except (ValueError, subprocess.TimeoutExpired):
        return None


def listing(folder):
    out = []
    for root, dirs, files in os.walk(folder):
        for n in dirs + files:
            out.append(os.path.relpath(os.path.join(root, n), folder))
    return sorted(out)


class Result:
    def __init__(self, args, returncode, seconds, stdout, stderr, timed_out):
        self.args, self.returncode, self.seconds = args, returncode, seconds
        self.stdout, self.stderr, self.timed_out = stdout, stderr, timed_out
        self.cpu = 0.0


def execute(args, timeout, cwd=None, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=None):
    """Runs in its own process group; on timeout the group gets SIGTERM, then SIGKILL. The
    result's `cpu` is the process's user and system time (the harness runs one at a time)."""
    start = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen(args, cwd=cwd, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE,
                         start_new_session=True, env=env)
    try:
        out, err = p.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                pass
            try:
                out, err = p.communicate(timeout=3)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            out, err = b"", b""
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = Result(args, p.returncode, time.monotonic() - start, out or b"", err or b"", timed_out)
    result.cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return result


class Runner:
    def __init__(self, a):
        self.a = a
        self.bin = os.path.abspath(a.bin)
        self.reencode = os.path.join(self.bin, "reencode")
        self.bench = os.path.join(self.bin, "reencode-bench")
        self.work = os.path.abspath(a.work)
        self.families = {}   # name -> {"tried": n, "failures": [..]}
        self.sandbox_n = 0
        # A batch of a dozen tiny files takes seconds; past this it is hanging.
        self.batch_limit = 30 if a.quick else 300

    # -- bookkeeping -----------------------------------------------------------------------------
    def family(self, name):
        return self.families.setdefault(name, {"tried": 0, "failures": [], "cases": 0})

    def fail(self, fam, case, kind, detail, reproduce):
        self.family(fam)["failures"].append({"case": case, "kind": kind, "detail": detail, "reproduce": reproduce})
        if self.a.verbose:
            print(f"  FAIL {fam} {case}: {kind}: {detail}", file=sys.stderr)

    def sandbox(self):
        self.sandbox_n += 1
        d = os.path.join(self.work, "sandbox", f"{self.sandbox_n:05d}")
        if os.path.exists(d):
            shutil.rmtree(d)
        os.makedirs(d)
        return d

    @staticmethod
    def cmdline(args, cwd=None, suffix=""):
        s = " ".join(shlex.quote(x) for x in args) + suffix
        return f"(cd {shlex.quote(cwd)} && {s})" if cwd else s

    def judge(self, fam, case, res, allowed, cwd=None, expected_signal_exit=None):
        """Crash, hang and exit-status checks shared by every command; True when all passed."""
        self.family(fam)["tried"] += 1
        repro = self.cmdline(res.args, cwd)
        err = res.stderr.decode("utf-8", "replace").strip().splitlines()
        last = err[-1][:300] if err else ""
        if res.timed_out:
            self.fail(fam, case, "hang", f"no answer in {res.seconds:.0f} s (killed)", repro)
            return False
        rc = res.returncode
        if rc < 0:
            self.fail(fam, case, "crash", f"killed by signal {-rc} ({signal.Signals(-rc).name}); {last}", repro)
            return False
        if rc >= 128 and rc != expected_signal_exit:
            self.fail(fam, case, "crash", f"exit {rc} (signal {rc - 128}); {last}", repro)
            return False
        if "Fatal error" in res.stderr.decode("utf-8", "replace"):
            self.fail(fam, case, "crash", f"exit {rc}: {last}", repro)
            return False
        if allowed is not None and rc not in allowed:
            self.fail(fam, case, "exit", f"exit {rc}, allowed {sorted(allowed)}; {last}", repro)
            return False
        return True

    def timeout_for(self, args):
        # Quick mode (CI) answers sooner: a tiny input that needs more than this is hanging anyway.
        limits = {"inspect": 8, "validate": 8, "plan": 15, "run": 30} if self.a.quick else \
            {"inspect": 20, "validate": 10, "plan": 30, "run": 90}
        return limits.get(args[1] if len(args) > 1 else "", 90)

    def rr(self, *args, cwd=None, **kw):
        args = [self.reencode, *args]
        return execute(args, self.timeout_for(args), cwd=cwd, **kw)

    def check_leftovers(self, fam, case, folder, allowed_names, repro):
        left = [n for n in listing(folder) if n not in allowed_names]
        temps = [n for n in left if ".reencode-tmp-" in n]
        if temps or left:
            self.fail(fam, case, "left behind", f"{', '.join((temps or left)[:5])}", repro)
            return False
        return True

    # -- media -----------------------------------------------------------------------------------
    def media(self):
        mdir = os.path.join(self.work, "media")
        r = execute([sys.executable, os.path.join(HERE, "gen_media.py"), "--out", mdir, "--seed", str(self.a.seed),
                     "--bench", self.bench], 300)
        if r.returncode != 0:
            raise SystemExit(f"gen_media failed: {r.stderr.decode()}")
        cases = json.load(open(os.path.join(mdir, "manifest.json")))["cases"]
        if self.a.quick:
            keep = set(QUICK_MEDIA)
            cases = [c for c in cases if c["name"] in keep]
        base_seconds = {b: probe_seconds(os.path.join(mdir, "base", b)) for b in os.listdir(os.path.join(mdir, "base"))}
        recipes = ["proxy-540p"] if self.a.quick else ["proxy-540p", "remux-passthrough", "trim-clip"]
        for c in cases:
            fam = "media/" + c["family"]
            self.family(fam)["cases"] += 1
            src = os.path.join(mdir, "cases", c["name"])
            before = sha256(src)
            klass = c["class"]
            name = c["name"]
            res = self.rr("inspect", src)
            self.judge(fam, name, res, ALLOWED[("inspect", klass)])
            # A case that hangs hangs every command (they all open it first): one hang is enough.
            hung = res.timed_out
            if not self.a.quick and not hung:
                self.judge(fam, name, self.rr("inspect", "--json", src), ALLOWED[("inspect", klass)])
            # Audio-only media gets the audio recipe: a video recipe's 66 would test nothing more.
            for rec in (["extract-audio-m4a"] if (c.get("base") or "").startswith("a.") else recipes[:1] if hung else recipes):
                recipe = os.path.join(REPO, "recipes", rec + ".yaml")
                out = self.sandbox()
                out_name = "out" + output_extension(recipe)
                target = os.path.join(out, out_name)
                if not self.a.quick and not hung:
                    self.judge(fam, name, self.rr("plan", recipe, "-i", src, "-o", target),
                               ALLOWED[("plan", klass)] | ({65} if rec == "trim-clip" and klass == "damaged" else set()))
                allowed = ALLOWED[("run", klass)]
                if rec == "trim-clip" and klass == "damaged":
                    allowed = allowed | {65}  # a cut source can end before the clip starts: 65 at the recipe's line
                if rec == "remux-passthrough" and c.get("base") == "v.ts" and klass == "valid":
                    allowed = allowed | {1}  # ADTS AAC into MP4 needs a bitstream filter (not a crash)
                res = self.rr("run", recipe, "-i", src, "-o", target, "--progress", "none")
                repro = self.cmdline(res.args)
                if self.judge(fam, name, res, allowed):
                    self.family(fam)["tried"] += 1
                    ok_names = [out_name] if res.returncode == 0 else []
                    if self.check_leftovers(fam, name, out, ok_names, repro) and res.returncode == 0:
                        got = probe_seconds(target)
                        whole = base_seconds.get(c.get("base") or "", None)
                        if got is None:
                            self.fail(fam, name, "bad output", "exit 0 but the output does not probe", repro)
                        # MPEG-TS, MPEG-PS and Ogg state no length: a short one is a valid one (gen_media.py).
                        elif c["family"] == "truncate" and whole and rec != "trim-clip" and c.get("states_length", True) \
                                and got < 0.9 * whole:
                            self.fail(fam, name, "damage accepted",
                                      f"exit 0 on a cut file: output {got:.3f} s of {whole:.3f} s", repro)
                shutil.rmtree(out, ignore_errors=True)
            self.family(fam)["tried"] += 1
            if sha256(src) != before:
                self.fail(fam, name, "source changed", "the source's SHA-256 changed", f"sha256sum {shlex.quote(src)}")

    # -- recipes ---------------------------------------------------------------------------------
    def good_media(self):
        path = os.path.join(self.work, "good.mp4")
        if not os.path.exists(path):
            subprocess.run([self.bench, "make-source", "--seconds", "2", "--width", "160", "--height", "120",
                            "--fps", "30", path], check=True)
        return path

    def recipes(self):
        rdir = os.path.join(self.work, "recipes")
        count = QUICK_RECIPES if self.a.quick else self.a.recipe_count
        r = execute([sys.executable, os.path.join(HERE, "mutate_recipes.py"), "--out", rdir, "--seed",
                     str(self.a.seed), "--count", str(count)], 300)
        if r.returncode != 0:
            raise SystemExit(f"mutate_recipes failed: {r.stderr.decode()}")
        good = self.good_media()
        before = sha256(good)
        for c in json.load(open(os.path.join(rdir, "manifest.json")))["cases"]:
            fam = "recipe/" + c["family"]
            self.family(fam)["cases"] += 1
            rec = os.path.join(rdir, c["name"])
            name = f"{c['name']} ({c['description'][:60]})"
            res = self.rr("validate", rec)
            if self.judge(fam, name, res, ALLOWED[("validate", "recipe")]):
                self.family(fam)["tried"] += 1
                # CPU time, not wall time: CI machines are shared, and a busy one stretches the
                # wall clock of a parse that is not slow (a hang is the timeout's to catch).
                if res.cpu > self.a.slow:
                    self.fail(fam, name, "slow", f"validate took {res.cpu:.1f} s of CPU (limit {self.a.slow} s)",
                              self.cmdline(res.args))
            if res.timed_out:
                continue  # plan and run parse it the same way: one hang is enough
            box = self.sandbox()
            if writes_several(rec):
                self.several_outputs(fam, name, rec, good, box)
                continue
            x = "x" + output_extension(rec)
            self.judge(fam, name, self.rr("plan", rec, "-i", good, "-o", os.path.join(box, x), cwd=box),
                       ALLOWED[("plan", "recipe")], cwd=box)
            res = self.rr("run", rec, "-i", good, "-o", os.path.join(box, x), "--progress", "none", cwd=box)
            if self.judge(fam, name, res, ALLOWED[("run", "recipe")], cwd=box):
                self.family(fam)["tried"] += 1
                self.check_leftovers(fam, name, box, [x] if res.returncode == 0 else [],
                                     self.cmdline(res.args, box))
            shutil.rmtree(box, ignore_errors=True)
        self.family("recipe/source")["tried"] += 1
        if sha256(good) != before:
            self.fail("recipe/source", "good.mp4", "source changed", "the source's SHA-256 changed", "")

    def several_outputs(self, fam, name, rec, good, box):
        """A recipe whose `outputs:` names each file's path refuses -o (exit 64): it runs on a copy
        of the source inside the sandbox, so `{dir}` is the sandbox; on success any files may be
        left there but no temporary one, on failure nothing but the copy, and the copy unchanged."""
        src = os.path.join(box, "good.mp4")
        shutil.copyfile(good, src)
        before = sha256(src)
        self.judge(fam, name, self.rr("plan", rec, "-i", src, cwd=box), ALLOWED[("plan", "recipe")], cwd=box)
        res = self.rr("run", rec, "-i", src, "--progress", "none", cwd=box)
        if self.judge(fam, name, res, ALLOWED[("run", "recipe")], cwd=box):
            self.family(fam)["tried"] += 1
            made = [n for n in listing(box) if ".reencode-tmp-" not in n] if res.returncode == 0 else ["good.mp4"]
            self.check_leftovers(fam, name, box, made, self.cmdline(res.args, box))
        if sha256(src) != before:
            self.fail(fam, name, "source changed", "the copied source's SHA-256 changed", self.cmdline(res.args, box))
        shutil.rmtree(box, ignore_errors=True)

    # -- command lines, pipes, signals -----------------------------------------------------------
    def long_media(self):
        path = os.path.join(self.work, "long.mp4")
        if not os.path.exists(path):
            subprocess.run([self.bench, "make-source", "--seconds", "20", "--width", "640", "--height", "360",
                            "--fps", "30", path], check=True)
        return path

    def cli(self):
        fam = "cli"
        good = self.good_media()
        long = self.long_media()
        proxy = os.path.join(REPO, "recipes", "proxy-540p.yaml")
        slow = os.path.join(REPO, "recipes", "hevc-archive.yaml")
        checks = [good, long]
        sums = {p: sha256(p) for p in checks}

        def case(name, args, allowed, cwd, shell=None, expect_signal=None, timeout=90, left_ok=()):
            self.family(fam)["cases"] += 1
            if shell:
                res = execute(["bash", "-c", shell], timeout, cwd=cwd)
                res.args = ["bash", "-c", shell]
            else:
                res = execute([self.reencode, *args], timeout, cwd=cwd)
            repro = self.cmdline(res.args, cwd)
            if self.judge(fam, name, res, allowed, cwd=cwd, expected_signal_exit=expect_signal):
                self.family(fam)["tried"] += 1
                self.check_leftovers(fam, name, cwd, list(left_ok) + (["out.mp4"] if res.returncode == 0 else []), repro)
            return res

        box = self.sandbox()
        case("-o into a missing one-letter folder", ["run", proxy, "-i", good, "-o", "a/x.mp4", "--progress", "none"], {0, 73}, box,
             left_ok=["a", "a/x.mp4"])
        box = self.sandbox()
        case("-o into a missing nested folder", ["run", proxy, "-i", good, "-o", "a/b/c/x.mp4", "--progress", "none"], {0, 73}, box,
             left_ok=["a", "a/b", "a/b/c", "a/b/c/x.mp4"])
        box = self.sandbox()
        case("output under /dev/full", ["run", proxy, "-i", good, "-o", "/dev/full/x.mp4"], {73, 74}, box)
        r = shlex.quote(self.reencode)
        for label, redir in [("stdout closed", ">&-"), ("stderr closed", "2>&-"), ("stdout and stderr closed", ">&- 2>&-"),
                             ("stdout /dev/full", ">/dev/full"), ("stderr /dev/full", "2>/dev/full")]:
            for prog in ("json", "none"):
                box = self.sandbox()
                case(f"run --progress {prog}, {label}", None, {0, 74}, box,
                     shell=f"{r} run {shlex.quote(proxy)} -i {shlex.quote(good)} -o out.mp4 --progress {prog} {redir}")
        for label, redir in [("stdout closed", ">&-"), ("stdout /dev/full", ">/dev/full")]:
            box = self.sandbox()
            case(f"inspect --json, {label}", None, {0, 74}, box, shell=f"{r} inspect --json {shlex.quote(good)} {redir}")
            box = self.sandbox()
            case(f"plan --json, {label}", None, {0, 74}, box, shell=f"{r} plan --json {shlex.quote(proxy)} -i {shlex.quote(good)} {redir}")
        # A consumer that goes away: the run must finish or stop cleanly, never die of SIGPIPE.
        # Read one byte, then close the pipe: a run must finish (0) or stop cleanly (74, or 141 by
        # exit() as documented) — never be killed by SIGPIPE (seen here as a negative status).
        for label, args in [("run --progress json | head -c 1", ["run", slow, "-i", long, "-o", "out.mp4", "--progress", "json"]),
                            ("inspect --json | head -c 1", ["inspect", "--json", good, good, good])]:
            box = self.sandbox()
            self.family(fam)["cases"] += 1
            p = subprocess.Popen([self.reencode, *args], cwd=box, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, start_new_session=True)
            p.stdout.read(1)
            p.stdout.close()
            try:
                err = p.stderr.read()
                p.wait(timeout=90)
                res = Result(p.args, p.returncode, 0, b"", err, False)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                res = Result(p.args, p.returncode, 0, b"", b"", True)
            p.stderr.close()
            repro = self.cmdline([self.reencode, *args], box, " | head -c 1")
            if self.judge(fam, label, res, {0, 74, 141}, cwd=box, expected_signal_exit=141):
                self.family(fam)["tried"] += 1
                self.check_leftovers(fam, label, box, ["out.mp4"] if res.returncode == 0 else [], repro)
        # Termination signals mid-run: exit 128+n, nothing left.
        sigs = ["INT", "TERM", "HUP", "QUIT", "USR1", "USR2", "ALRM", "PIPE"]
        if self.a.quick:
            sigs = ["TERM", "HUP", "USR1", "PIPE"]
        for s in sigs:
            n = signal.Signals["SIG" + s].value
            box = self.sandbox()
            self.family(fam)["cases"] += 1
            args = [self.reencode, "run", slow, "-i", long, "-o", "out.mp4", "--progress", "none"]
            start = time.monotonic()
            p = subprocess.Popen(args, cwd=box, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 start_new_session=True)
            # Wait for the temp file: the signal lands mid-write.
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not any(".reencode-tmp-" in x for x in os.listdir(box)) and p.poll() is None:
                time.sleep(0.05)
            time.sleep(0.3)
            p.send_signal(n)
            try:
                out, err = p.communicate(timeout=30)
                timed_out = False
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                out, err = p.communicate()
                timed_out = True
            res = Result(args, p.returncode, time.monotonic() - start, out, err, timed_out)
            repro = self.cmdline(args, box, f" & sleep 1; kill -{s} $!")
            name = f"SIG{s} mid-run"
            self.family(fam)["tried"] += 1
            if timed_out:
                self.fail(fam, name, "hang", f"no exit 30 s after SIG{s}", repro)
            elif p.returncode != 128 + n:
                how = f"killed by signal {-p.returncode}" if p.returncode < 0 else f"exit {p.returncode}"
                self.fail(fam, name, "exit", f"{how}, expected {128 + n}", repro)
            self.family(fam)["tried"] += 1
            self.check_leftovers(fam, name, box, [], repro)
        # The source given through a link must never be replaced.
        box = self.sandbox()
        shutil.copyfile(good, os.path.join(box, "s.mp4"))
        os.symlink("s.mp4", os.path.join(box, "l.mp4"))
        before = sha256(os.path.join(box, "s.mp4"))
        case("-i link -o its target --overwrite", ["run", proxy, "-i", "l.mp4", "-o", "s.mp4", "--overwrite", "--progress", "none"],
             {64, 73}, box, left_ok=["s.mp4", "l.mp4"])
        self.family(fam)["tried"] += 1
        if sha256(os.path.join(box, "s.mp4")) != before:
            self.fail(fam, "-i link -o its target --overwrite", "source changed", "s.mp4 was replaced",
                      self.cmdline([self.reencode, "run", proxy, "-i", "l.mp4", "-o", "s.mp4", "--overwrite"], box))
        box = self.sandbox()
        shutil.copyfile(good, os.path.join(box, "s.mp4"))
        case("-i x -o the same x --overwrite", ["run", proxy, "-i", "s.mp4", "-o", "./s.mp4", "--overwrite", "--progress", "none"],
             {64, 73}, box, left_ok=["s.mp4"])
        # Recipes that are not files.
        box = self.sandbox()
        os.mkfifo(os.path.join(box, "r.yaml"))
        os.mkdir(os.path.join(box, "d.yaml"))
        for rname in ("r.yaml", "d.yaml", "/dev/zero", "/dev/null"):
            case(f"validate {rname} ({'FIFO' if rname == 'r.yaml' else 'directory' if rname == 'd.yaml' else 'device'})",
                 ["validate", rname], {65, 66}, box, left_ok=["r.yaml", "d.yaml"], timeout=10)
        for p in checks:
            self.family(fam)["tried"] += 1
            if sha256(p) != sums[p]:
                self.fail(fam, os.path.basename(p), "source changed", "a source's SHA-256 changed", "")

    def process(self):
        process_classes.process(self, execute)

    # -- batch -----------------------------------------------------------------------------------
    def ledger(self, out):
        entries, bad = batch_ledger.read(out)
        return entries + [{"status": "corrupt", "line": b} for b in bad]

    def batch_ledger(self):
        batch_ledger.run(self, execute)

    def batch_state_clean(self, fam, name, out, repro):
        left = [n for n in listing(out) if ".reencode-tmp-" in n or (n.startswith(".reencode/claims/") and n.endswith(".claim"))]
        self.family(fam)["tried"] += 1
        if left:
            self.fail(fam, name, "left behind", ", ".join(left[:5]), repro)

    def batch(self):
        fam = "batch"
        mdir = os.path.join(self.work, "media")
        cases = json.load(open(os.path.join(mdir, "manifest.json")))["cases"]
        proxy = os.path.join(REPO, "recipes", "proxy-540p.yaml")
        # One folder of hostile files with valid ones mixed in, per media family.
        groups = {}
        for c in cases:
            groups.setdefault(c["family"], []).append(c)
        fams = ["truncate", "tiny", "special", "boxes"] if self.a.quick else sorted(groups)
        for g in fams:
            self.family(fam)["cases"] += 1
            box = self.sandbox()
            inp, out = os.path.join(box, "in"), os.path.join(box, "out")
            os.makedirs(inp)
            chosen = groups[g] if not self.a.quick else groups[g][:: max(1, len(groups[g]) // 12)]
            media = {}
            for c in chosen:
                src = os.path.join(mdir, "cases", c["name"])
                dst = os.path.join(inp, c["name"])
                if c["name"] == "fifo.mp4":
                    os.mkfifo(dst)
                elif c["name"] == "dir.mp4":
                    os.mkdir(dst)
                elif os.path.islink(src):
                    os.symlink(os.readlink(src), dst)
                elif os.path.exists(src):
                    shutil.copyfile(src, dst)
                else:
                    continue
                media[c["name"]] = c
            for i in range(3):
                shutil.copyfile(self.good_media(), os.path.join(inp, f"good{i}.mp4"))
            sums = {n: sha256(os.path.join(inp, n)) for n in os.listdir(inp)}
            args = ["batch", proxy, "--input-dir", inp, "--output-dir", out, "--settle", "0", "--jobs", "2"]
            name = f"folder of {g} ({len(media)} + 3 good)"
            res = execute([self.reencode, *args], self.batch_limit, cwd=box)
            repro = self.cmdline(res.args, box)
            self.judge(fam, name, res, {0, 1})
            self.batch_state_clean(fam, name, out, repro)
            entries = self.ledger(out)
            done = {}
            for e in entries:
                if e.get("status") == "done":
                    done.setdefault(e.get("source"), []).append(e)
            self.family(fam)["tried"] += 1
            for i in range(3):
                n = f"good{i}.mp4"
                if len(done.get(n, [])) != 1:
                    self.fail(fam, name, "lost work", f"{n}: {len(done.get(n, []))} done entries (expected 1)", repro)
                elif not os.path.exists(os.path.join(out, done[n][0].get("output", "") or "")) and \
                        not os.path.exists(done[n][0].get("output", "") or "/nonexistent"):
                    self.fail(fam, name, "lost work", f"{n}: done but its output {done[n][0].get('output')} is missing", repro)
            recorded = {e.get("source") for e in entries}
            self.family(fam)["tried"] += 1
            stems = {}
            for n in media:
                stems.setdefault(n.rsplit(".", 1)[0], []).append(n)
            for n, c in media.items():
                if c["class"] in ("notmedia", "damaged") and os.path.isfile(os.path.join(inp, n)) and n not in recorded:
                    self.fail(fam, name, "silently skipped", f"{n} ({c['description']}) has no ledger entry", repro)
                if c["class"] != "valid" or not os.path.isfile(os.path.join(inp, n)):
                    continue
                group = stems[n.rsplit(".", 1)[0]]
                if c.get("base") == "a.m4a" or len(group) > 1:
                    # No video for this recipe (66), or one output name for several sources: a
                    # recorded refusal is right, silence is not.
                    if n not in recorded:
                        self.fail(fam, name, "silently skipped", f"{n} ({c['description']}) has no ledger entry", repro)
                    if len(group) > 1 and sum(len(done.get(g, [])) for g in group) != 1 and c.get("base") != "a.m4a":
                        self.fail(fam, name, "lost work", f"{', '.join(group)} share a stem: "
                                  f"{sum(len(done.get(g, [])) for g in group)} done entries (expected 1)", repro)
                elif len(done.get(n, [])) != 1:
                    self.fail(fam, name, "lost work", f"{n}: {len(done.get(n, []))} done entries (expected 1)", repro)
            # A second run converts nothing again.
            res2 = execute([self.reencode, *args], self.batch_limit, cwd=box)
            self.judge(fam, name + ", rerun", res2, {0, 1})
            entries2 = self.ledger(out)
            self.family(fam)["tried"] += 1
            again = [e.get("source") for e in entries2[len(entries):] if e.get("status") == "done"]
            if again:
                self.fail(fam, name + ", rerun", "converted twice", ", ".join(again[:5]), repro)
            self.family(fam)["tried"] += 1
            changed = [n for n, s in sums.items() if s is not None and sha256(os.path.join(inp, n)) != s]
            if changed:
                self.fail(fam, name, "source changed", ", ".join(changed[:5]), repro)
            self.cleanup(box)
        self.batch_scenarios()

    def cleanup(self, box):
        for root, dirs, files in os.walk(box):
            for n in dirs:
                try:
                    os.chmod(os.path.join(root, n), 0o755)
                except OSError:
                    pass
        shutil.rmtree(box, ignore_errors=True)

    def batch_scenarios(self):
        fam = "batch"
        good = self.good_media()
        proxy = os.path.join(REPO, "recipes", "proxy-540p.yaml")

        def folder(files):
            box = self.sandbox()
            inp, out = os.path.join(box, "in"), os.path.join(box, "out")
            os.makedirs(inp)
            for n in files:
                os.makedirs(os.path.dirname(os.path.join(inp, n)), exist_ok=True)
                shutil.copyfile(good, os.path.join(inp, n))
            return box, inp, out

        def outputs(out):
            return [n for n in listing(out) if not n.startswith(".reencode") and n.endswith(".mp4")]

        # Two sources with one stem: two outputs, or one refused with a record; never one output for two.
        self.family(fam)["cases"] += 1
        box, inp, out = folder(["a.mp4", "a.mkv", "b.mov", "b.mp4"])
        args = [self.reencode, "batch", proxy, "--input-dir", inp, "--output-dir", out, "--settle", "0"]
        res = execute(args, self.batch_limit, cwd=box)
        name = "same stem, two extensions"
        if self.judge(fam, name, res, {0, 1}):
            self.family(fam)["tried"] += 1
            done = [e for e in self.ledger(out) if e.get("status") == "done"]
            outs = [e.get("output") for e in done]
            if len(set(outs)) != len(outs) or len(outputs(out)) != len(done):
                self.fail(fam, name, "lost output", f"{len(done)} done entries, outputs {outputs(out)}",
                          self.cmdline(args, box))
        self.cleanup(box)
        # Shards on one host: four slices at once convert every file.
        self.family(fam)["cases"] += 1
        files = [f"f{i:02d}.mp4" for i in range(16)]
        box, inp, out = folder(files)
        ps = []
        for i in range(4):
            a = [self.reencode, "batch", proxy, "--input-dir", inp, "--output-dir", out, "--settle", "0", "--shard", f"{i}/4"]
            ps.append(subprocess.Popen(a, cwd=box, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for p in ps:
            try:
                p.wait(timeout=self.batch_limit)
            except subprocess.TimeoutExpired:
                p.kill()
        name = "4 shards at once on one host"
        self.family(fam)["tried"] += 1
        done = {e.get("source") for e in self.ledger(out) if e.get("status") == "done"}
        missing = [f for f in files if f not in done]
        if missing:
            self.fail(fam, name, "skipped work", f"{len(missing)} of {len(files)} not converted, exit 0",
                      f"(cd {box} && for i in 0 1 2 3; do {shlex.quote(self.reencode)} batch {proxy} --input-dir in --output-dir out --settle 0 --shard $i/4 & done; wait)")
        self.cleanup(box)
        # --dry-run changes nothing.
        self.family(fam)["cases"] += 1
        box, inp, out = folder(["a.mp4"])
        args = [self.reencode, "batch", proxy, "--input-dir", inp, "--output-dir", out, "--settle", "0", "--dry-run"]
        res = execute(args, 60, cwd=box)
        name = "--dry-run"
        if self.judge(fam, name, res, {0}):
            self.family(fam)["tried"] += 1
            if os.path.exists(out):
                self.fail(fam, name, "changed something", f"created {', '.join(listing(out)[:4]) or 'the output folder'}",
                          self.cmdline(args, box))
        self.cleanup(box)
        # A symlink inside the tree is one file, converted once.
        self.family(fam)["cases"] += 1
        box, inp, out = folder(["a.mp4"])
        os.symlink("a.mp4", os.path.join(inp, "link.mp4"))
        args = [self.reencode, "batch", proxy, "--input-dir", inp, "--output-dir", out, "--settle", "0"]
        res = execute(args, 120, cwd=box)
        name = "a symlink inside the tree"
        if self.judge(fam, name, res, {0, 1}):
            self.family(fam)["tried"] += 1
            if len(outputs(out)) != 1:
                self.fail(fam, name, "converted twice", f"outputs {outputs(out)}", self.cmdline(args, box))
        self.cleanup(box)
        # An unreadable subfolder is recorded, not silently skipped (only meaningful when not root).
        if os.geteuid() != 0:
            self.family(fam)["cases"] += 1
            box, inp, out = folder(["a.mp4", "sub/b.mp4"])
            os.chmod(os.path.join(inp, "sub"), 0)
            args = [self.reencode, "batch", proxy, "--input-dir", inp, "--output-dir", out, "--settle", "0"]
            res = execute(args, 120, cwd=box)
            name = "an unreadable subfolder"
            if self.judge(fam, name, res, {1}):
                pass
            self.cleanup(box)
        # A replacement with the same size and mtime is converted again.
        self.family(fam)["cases"] += 1
        box, inp, out = folder(["a.mp4"])
        args = [self.reencode, "batch", proxy, "--input-dir", inp, "--output-dir", out, "--settle", "0"]
        execute(args, 120, cwd=box)
        src = os.path.join(inp, "a.mp4")
        st = os.stat(src)
        with open(src, "r+b") as f:   # same size: flip one byte in the last MiB's range
            f.seek(st.st_size - 10)
            byte = f.read(1)
            f.seek(st.st_size - 10)
            f.write(bytes([byte[0] ^ 0xFF]))
        os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
        # The flipped byte may damage the file: converted again means a new outcome (done, or
        # failed with its error) for the changed version, not necessarily a new output.
        n0 = len([e for e in self.ledger(out) if e.get("status") in ("done", "failed")])
        res = execute(args, 120, cwd=box)
        name = "a replacement with the same size and mtime"
        if self.judge(fam, name, res, {0, 1}):
            self.family(fam)["tried"] += 1
            n1 = len([e for e in self.ledger(out) if e.get("status") in ("done", "failed")])
            if n1 == n0:
                self.fail(fam, name, "skipped work", "the changed file was not converted again", self.cmdline(args, box))
        self.cleanup(box)

    # -- saved reproducers -----------------------------------------------------------------------
    def regressions(self):
        """Every reproducer in reliability/regressions/ (recipes, media) through the CLI: no crash, no
        hang, an allowed exit status, nothing left behind. The fuzzers replay them too (fuzz.sh replay)."""
        fam = "regressions"
        root = os.path.join(HERE, "regressions")
        good = self.good_media()
        proxy = os.path.join(REPO, "recipes", "proxy-540p.yaml")
        for kind in ("recipe", "media"):
            folder = os.path.join(root, kind)
            for n in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
                if n.endswith(".md"):
                    continue
                path = os.path.join(folder, n)
                self.family(fam)["cases"] += 1
                name = f"{kind}/{n}"
                box = self.sandbox()
                target = os.path.join(box, "x.mp4")
                if kind == "recipe":
                    self.judge(fam, name, self.rr("validate", path), ALLOWED[("validate", "recipe")])
                    self.judge(fam, name, self.rr("plan", path, "-i", good, "-o", target, cwd=box), ALLOWED[("plan", "recipe")], cwd=box)
                    res = self.rr("run", path, "-i", good, "-o", target, "--progress", "none", cwd=box)
                    allowed = ALLOWED[("run", "recipe")]
                else:
                    self.judge(fam, name, self.rr("inspect", path), ALLOWED[("inspect", "damaged")])
                    res = self.rr("run", proxy, "-i", path, "-o", target, "--progress", "none", cwd=box)
                    allowed = ALLOWED[("run", "damaged")]
                if self.judge(fam, name, res, allowed, cwd=box):
                    self.family(fam)["tried"] += 1
                    self.check_leftovers(fam, name, box, ["x.mp4"] if res.returncode == 0 else [], self.cmdline(res.args, box))
                shutil.rmtree(box, ignore_errors=True)

    # -- report ----------------------------------------------------------------------------------
    def report(self, started, commit):
        os.makedirs(self.a.results, exist_ok=True)
        total_tried = sum(f["tried"] for f in self.families.values())
        total_fail = sum(len(f["failures"]) for f in self.families.values())
        data = {"mode": "quick" if self.a.quick else "full", "seed": self.a.seed, "commit": commit,
                "binary": self.reencode, "seconds": round(time.monotonic() - started, 1),
                "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "tried": total_tried, "failures": total_fail, "families": self.families}
        lines = [f"# Reliability run ({data['mode']}, seed {self.a.seed})", "",
                 f"Commit `{commit}`, {data['date']}, {data['seconds']} s, binary `{self.reencode}`.", "",
                 "| family | cases | checks | failed checks | failing cases | kinds |", "|---|---:|---:|---:|---:|---|"]
        for name in sorted(self.families):
            f = self.families[name]
            kinds = {}
            for x in f["failures"]:
                kinds[x["kind"]] = kinds.get(x["kind"], 0) + 1
            f["failing_cases"] = len({x["case"] for x in f["failures"]})
            lines.append(f"| {name} | {f['cases']} | {f['tried']} | {len(f['failures'])} | {f['failing_cases']} | "
                         f"{', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))} |")
        lines.append(f"| **all** | {sum(f['cases'] for f in self.families.values())} | {total_tried} | {total_fail} | "
                     f"{sum(f['failing_cases'] for f in self.families.values())} | |")
        lines.append("")
        if total_fail:
            lines.append("## Failures")
            lines.append("")
            for name in sorted(self.families):
                for x in self.families[name]["failures"]:
                    lines.append(f"- **{name}** `{x['case']}` — {x['kind']}: {x['detail']}  ")
                    lines.append(f"  `{x['reproduce']}`")
            lines.append("")
        lines.append(f"Inputs: `reliability/gen_media.py --out {self.work}/media --seed {self.a.seed}`, "
                     f"`reliability/mutate_recipes.py --out {self.work}/recipes --seed {self.a.seed}`.")
        with open(os.path.join(self.a.results, "results.json"), "w") as f:
            json.dump(data, f, indent=1)
        with open(os.path.join(self.a.results, "results.md"), "w") as f:
            f.write("\n".join(lines) + "\n")
        return total_tried, total_fail


from batch_hosts import batch_hosts  # noqa: E402 (issue 23: batch configuration, names, claims, hosts)
Runner.batch_hosts = batch_hosts
Runner.limits = lambda self: limits.limits(self, execute)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    m = p.add_mutually_exclusive_group(required=True)
    m.add_argument("--quick", action="store_true")
    m.add_argument("--full", action="store_true")
    p.add_argument("--bin", default=None, help="folder with reencode and reencode-bench (default .build/release)")
    p.add_argument("--work", default=None)
    p.add_argument("--results", default=None)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--recipe-count", type=int, default=600)
    p.add_argument("--slow", type=float, default=3.0, help="validate taking more than this many seconds of CPU fails")
    p.add_argument("--only", default="regressions,media,recipes,cli,batch,batch_hosts,batch_ledger,process,limits")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--commit", help="the commit the binaries were built from (default: this worktree's HEAD)")
    a = p.parse_args()
    a.bin = a.bin or os.path.join(REPO, ".build", "release")
    mode = "quick" if a.quick else "full"
    a.work = a.work or os.path.join("/tmp", f"reencode-reliability-{mode}")
    a.results = a.results or os.path.join(a.work, "results")
    for tool in ("reencode", "reencode-bench"):
        if not os.access(os.path.join(a.bin, tool), os.X_OK):
            print(f"run.py: {a.bin}/{tool} is missing: build first (swift build -c release)", file=sys.stderr)
            return 2
    if os.path.isdir(os.path.join(a.work, "sandbox")):
        Runner.cleanup(None, os.path.join(a.work, "sandbox"))
    os.makedirs(a.work, exist_ok=True)
    try:
        commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no", "Sources"],
                               capture_output=True, text=True).stdout.strip()
        commit += "+dirty" if dirty else ""
    except OSError:
        commit = "unknown"
    commit = a.commit or commit
    started = time.monotonic()
    r = Runner(a)
    for part in a.only.split(","):
        t = time.monotonic()
        getattr(r, part.strip())()
        print(f"{part}: done in {time.monotonic() - t:.0f} s", file=sys.stderr)
    tried, failed = r.report(started, commit)
    print(open(os.path.join(a.results, "results.md")).read().split("## Failures")[0].rstrip())
    print(f"\n{tried} checks, {failed} failures; details: {a.results}/results.md")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
