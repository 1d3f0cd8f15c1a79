"""Issue 23's ledger classes for reliability/run.py (family "batch-ledger"), and the one reader of a
batch ledger the reliability tools share (`read`).

Classes, each tried on several cases:
  - "done" is the output in place: recipes A, B, A into one output name; an output replaced by hand;
    --ignore-recipe-change keeps another recipe's output;
  - a ledger line goes in whole or not at all: a file-size limit and (as root) a full tmpfs in the
    middle of a line, a line left unfinished by a killed writer;
  - one ledger read per run: 10 new files, then an idle rerun, over a 200,000-line ledger;
  - many clients of one folder (sshfs views over a pipe, scripts/sftp-view.sh): hosts appending at
    once lose no line; idle runs through views that number files their own way append nothing;
    a line that is not an entry is reported (JSON and stderr), never skipped in silence.
Python 3 standard library only (ffprobe, when present, counts frames).
"""
import glob
import json
import os
import resource
import shutil
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
FAM = "batch-ledger"


def read(out):
    """The ledger of an output folder: every journal (`ledger-HOST.jsonl`, and `ledger.jsonl` of
    older versions), in the ledger's order (seq, journal, line). Returns (entries, unreadable lines)."""
    state = os.path.join(out, ".reencode")
    placed, bad = [], []
    for path in sorted(glob.glob(os.path.join(state, "ledger.jsonl")) + glob.glob(os.path.join(state, "ledger-*.jsonl"))):
        name = os.path.basename(path)
        data = open(path, "rb").read()
        lines = data.split(b"\n")
        for i, line in enumerate(lines[:-1], 1):   # the last piece has no newline: still being written
            try:
                e = json.loads(line)
                if not isinstance(e, dict):
                    raise ValueError
                placed.append(((e.get("seq") or 0, name, i), e))
            except ValueError:
                bad.append(f"{name} line {i}")
    return [e for _, e in sorted(placed, key=lambda p: p[0])], bad


def frames(path):
    """Video frames of a file (ffprobe), or None."""
    if not shutil.which("ffprobe"):
        return None
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                        "stream=nb_read_packets", "-of", "csv=p=0", path], capture_output=True, text=True)
    try:
        return int(r.stdout.strip())
    except ValueError:
        return None


class Cases:
    def __init__(self, runner, execute):
        self.r, self.execute = runner, execute
        self.proxy = os.path.join(REPO, "recipes", "proxy-540p.yaml")

    def folder(self, names):
        box = self.r.sandbox()
        inp, out = os.path.join(box, "in"), os.path.join(box, "out")
        good = self.r.good_media()
        for n in names:
            os.makedirs(os.path.dirname(os.path.join(inp, n)), exist_ok=True)
            shutil.copyfile(good, os.path.join(inp, n))
        return box, inp, out

    def batch(self, recipe, inp, out, *extra, host="host-a", preexec=None, timeout=None):
        args = [self.r.reencode, "batch", recipe, "--input-dir", inp, "--output-dir", out, "--settle", "0", "--json", *extra]
        env = dict(os.environ, REENCODE_HOSTNAME=host)
        p = subprocess.run(args, capture_output=True, env=env, preexec_fn=preexec, timeout=timeout or self.r.batch_limit)
        try:
            o = json.loads(p.stdout)
        except ValueError:
            o = {}
        return p.returncode, o, p.stderr.decode("utf-8", "replace"), self.r.cmdline(args)

    def check(self, case, ok, kind, detail, repro):
        self.r.family(FAM)["tried"] += 1
        if not ok:
            self.r.fail(FAM, case, kind, detail, repro)
        return ok

    def whole_lines(self, case, out, repro):
        _, bad = read(out)
        return self.check(case, not bad, "ledger damaged", f"unreadable: {', '.join(bad[:5])}", repro)

    # -- "done" is the output in place -------------------------------------------------------------
    def reverted_recipe(self):
        self.r.family(FAM)["cases"] += 3
        box, inp, out = self.folder(["a.mp4", "d/b.mp4", "c.mov"])
        half = os.path.join(box, "half.yaml")
        open(half, "w").write(open(self.proxy).read().replace("frame-rate: 30", "frame-rate: 15"))
        want = {self.proxy: frames(self.r.good_media()), half: None}
        for step, recipe in enumerate([self.proxy, half, self.proxy]):
            rc, o, err, repro = self.batch(recipe, inp, out)
            case = f"recipe A, B, A: run {step + 1}"
            self.check(case, rc == 0 and sorted(o.get("converted", [])) == ["a.mp4", "c.mov", "d/b.mp4"], "skipped work",
                       f"exit {rc}, converted {o.get('converted')}, already done {o.get('alreadyDone')}", repro)
            n = frames(os.path.join(out, "a-proxy.mp4"))
            if recipe == half and n is not None:
                want[half] = n
            if n is not None and want[recipe] is not None:
                self.check(case, n == want[recipe], "wrong output", f"a-proxy.mp4 has {n} frames, this recipe makes {want[recipe]}", repro)
        rc, o, err, repro = self.batch(half, inp, out)
        rc, o, err, repro = self.batch(self.proxy, inp, out, "--ignore-recipe-change")
        self.check("--ignore-recipe-change after another recipe", o.get("converted") == [] and o.get("alreadyDone") == 3,
                   "converted again", f"converted {o.get('converted')}", repro)
        # Replaced by hand with another file: converted again.
        shutil.copyfile(os.path.join(out, "c-proxy.mp4"), os.path.join(out, "a-proxy.mp4"))
        with open(os.path.join(out, "a-proxy.mp4"), "ab") as f:
            f.write(b"\0" * 100)
        rc, o, err, repro = self.batch(half, inp, out)
        self.check("an output replaced by hand", o.get("converted") == ["a.mp4"], "skipped work", f"converted {o.get('converted')}", repro)
        self.whole_lines("recipe A, B, A", out, repro)
        self.r.cleanup(box)

    # -- a ledger line goes in whole or not at all -------------------------------------------------
    def pad(self, out, size):
        """Appends a harmless `skipped` entry (a path no scan finds) so that the ledger is `size` bytes."""
        journals = glob.glob(os.path.join(out, ".reencode", "ledger-*.jsonl")) or [os.path.join(out, ".reencode", "ledger.jsonl")]
        path = journals[0]
        have = os.path.getsize(path) if os.path.exists(path) else 0
        entry = lambda p: json.dumps({"attempt": 0, "error": "p" * p, "fingerprint": "", "host": "pad", "mtime": 0, "pid": 1, "recipe": "",
                                      "size": 0, "source": "zz-pad.txt", "status": "skipped", "time": "2026-01-01T00:00:00Z"},
                                     separators=(",", ":")) + "\n"
        with open(path, "ab") as f:
            f.write(entry(size - have - len(entry(0))).encode())
        return path

    def short_write(self, case, inp, out, journal, limit_bytes, expect):
        before = open(journal, "rb").read()
        shutil.copyfile(self.r.good_media(), os.path.join(inp, "new.mp4"))
        preexec = (lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))) if limit_bytes else None
        rc, o, err, repro = self.batch(self.proxy, inp, out, preexec=preexec)
        failed = (o.get("failed") or [{}])[0]
        self.check(case, rc == 1 and failed.get("exitCode") == 74 and expect in failed.get("error", ""), "wrong answer",
                   f"exit {rc}, failed {o.get('failed')}", repro)
        self.check(case, open(journal, "rb").read() == before, "ledger damaged", "the part of the line that went in stayed", repro)

    def torn_lines(self):
        # A file-size limit in the middle of a line.
        self.r.family(FAM)["cases"] += 1
        box, inp, out = self.folder(["a.mp4"])
        self.batch(self.proxy, inp, out)
        journal = self.pad(out, 512 * 1024 - 37)
        self.short_write("a file-size limit mid-line", inp, out, journal, 512 * 1024, "File too large")
        rc, o, err, repro = self.batch(self.proxy, inp, out)
        self.check("a file-size limit mid-line, then room", o.get("converted") == ["new.mp4"], "skipped work", f"converted {o.get('converted')}", repro)
        self.whole_lines("a file-size limit mid-line", out, repro)
        # A writer killed mid-line: the next entry starts on a line of its own.
        self.r.family(FAM)["cases"] += 1
        with open(journal, "ab") as f:
            f.write(b'{"attempt":1,"fingerprint":"01')
        shutil.copyfile(self.r.good_media(), os.path.join(inp, "later.mp4"))
        rc, o, err, repro = self.batch(self.proxy, inp, out)
        self.check("an unfinished line, then a run", o.get("converted") == ["later.mp4"], "skipped work", f"converted {o.get('converted')}", repro)
        self.whole_lines("an unfinished line, then a run", out, repro)
        self.r.cleanup(box)
        # A full disk (a small tmpfs; root only) in the middle of a line.
        if os.geteuid() != 0:
            return
        box, inp, out = self.folder(["a.mp4"])
        os.makedirs(out)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", out], capture_output=True).returncode != 0:
            self.r.cleanup(box)
            return
        self.r.family(FAM)["cases"] += 1
        try:
            self.batch(self.proxy, inp, out)
            journal = self.pad(out, (os.path.getsize(glob.glob(os.path.join(out, ".reencode", "ledger*.jsonl"))[0]) // 4096 + 2) * 4096 - 37)
            filler = os.path.join(out, "filler")
            with open(filler, "wb", buffering=0) as f:   # unbuffered: nothing left to flush at close
                try:
                    while True:
                        f.write(b"\x55" * 4096)
                except OSError:
                    pass
            size = os.path.getsize(filler) // 4096 * 4096
            os.truncate(filler, size - 4096)   # one page: the claim's
            self.short_write("a full disk mid-line", inp, out, journal, None, "No space left on device")
            os.unlink(filler)
            rc, o, err, repro = self.batch(self.proxy, inp, out)
            self.check("a full disk mid-line, then room", o.get("converted") == ["new.mp4"], "skipped work", f"converted {o.get('converted')}", repro)
            self.whole_lines("a full disk mid-line", out, repro)
        finally:
            subprocess.run(["umount", out])
            self.r.cleanup(box)

    # -- one ledger read per run -------------------------------------------------------------------
    def big_ledger(self):
        self.r.family(FAM)["cases"] += 1
        box, inp, out = self.folder([f"n{i}.mp4" for i in range(10)])
        os.makedirs(os.path.join(out, ".reencode"))
        with open(os.path.join(out, ".reencode", "ledger.jsonl"), "w") as f:
            for i in range(100000):
                base = {"attempt": 1, "fingerprint": "%016x" % i, "host": "old", "mtime": 1.7e9, "ctime": 1.7e9, "output": f"old/{i}-proxy.mp4",
                        "pid": 1, "recipe": "0123456789abcdef", "size": 1000 + i, "source": f"old/{i}.mp4", "stored": 1.7e9, "time": "2026-01-01T00:00:00Z"}
                f.write(json.dumps(dict(base, status="started"), separators=(",", ":")) + "\n")
                f.write(json.dumps(dict(base, status="done", seconds=1.0), separators=(",", ":")) + "\n")
        limit = 120
        t = time.monotonic()
        rc, o, err, repro = self.batch(self.proxy, inp, out, "--jobs", "2", timeout=limit * 2)
        first = time.monotonic() - t
        self.check("10 new files over a 200,000-line ledger", rc == 0 and len(o.get("converted", [])) == 10 and first < limit, "slow",
                   f"exit {rc}, {len(o.get('converted', []))} converted in {first:.1f} s (limit {limit} s)", repro)
        # The idle rerun is measured in CPU time: it is all reading the ledger, which a loaded
        # machine (CI beside builds: 34.6 s of wall for 7.6 s of CPU) stretches in wall time.
        t, before = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
        rc, o, err, repro = self.batch(self.proxy, inp, out, timeout=limit)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        idle, cpu = time.monotonic() - t, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        self.check("an idle rerun over a 200,000-line ledger", rc == 0 and o.get("alreadyDone") == 10 and cpu < limit / 4, "slow",
                   f"exit {rc}, already done {o.get('alreadyDone')} in {cpu:.1f} s of CPU, {idle:.1f} s of wall (limit {limit / 4:.0f} s of CPU)", repro)
        print(f"batch-ledger: 200,000-line ledger: 10 new files in {first:.1f} s, an idle rerun in {idle:.1f} s ({cpu:.1f} s of CPU)")
        self.r.cleanup(box)

    # -- many clients of one folder ----------------------------------------------------------------
    def views(self, box, count):
        """`count` sshfs views of `box`/shared, or None (the reason said) where they cannot be made here."""
        shared = os.path.join(box, "shared")
        os.makedirs(shared, exist_ok=True)
        made = []
        for i in range(count):
            m = os.path.join(box, f"view{i}")
            p = subprocess.run([os.path.join(REPO, "scripts", "sftp-view.sh"), "mount", shared, m], capture_output=True, text=True)
            if p.returncode != 0:
                print(f"batch-ledger: views not tried: {p.stderr.strip()}")
                self.unmount(made)
                return None
            made.append(m)
        return made

    def unmount(self, views):
        for m in views:
            subprocess.run([os.path.join(REPO, "scripts", "sftp-view.sh"), "unmount", m], capture_output=True)

    def shared_folder(self):
        box = self.r.sandbox()
        views = self.views(box, 3)
        if views is None:
            self.r.cleanup(box)
            return
        try:
            # Hosts appending at once, each through its own client: 150 FIFOs named like media
            # per host, names of its own (a left-out path is recorded once, by whichever host sees
            # it first), every one recorded as skipped by its host.
            self.r.family(FAM)["cases"] += 1
            hosts = ("h0", "h1", "h2")
            for h in hosts:
                os.makedirs(os.path.join(box, "fifos", h))
                for i in range(150):
                    os.mkfifo(os.path.join(box, "fifos", h, f"{h}-p{i:03d}.mp4"))
            env = lambda h: dict(os.environ, REENCODE_HOSTNAME=h)
            procs = [subprocess.Popen([self.r.reencode, "batch", self.proxy, "--input-dir", os.path.join(box, "fifos", h),
                                       "--output-dir", os.path.join(v, "out"), "--settle", "0"],
                                      env=env(h), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                     for h, v in zip(hosts, views)]
            for p in procs:
                p.wait(timeout=self.r.batch_limit)
            out = os.path.join(box, "shared", "out")
            entries, bad = read(out)
            per = {h: sum(1 for e in entries if e.get("host") == h and e.get("status") == "skipped" and e.get("source", "").startswith(h))
                   for h in hosts}
            repro = f"3 hosts through 3 sshfs views at once, 150 FIFOs each ({box})"
            self.check("3 hosts append at once through 3 clients", not bad and all(n == 150 for n in per.values()), "lost ledger lines",
                       f"skipped lines per host {per}, unreadable {bad[:3]}", repro)
            # A line that is not an entry is reported.
            self.r.family(FAM)["cases"] += 1
            journal = sorted(glob.glob(os.path.join(out, ".reencode", "ledger-*.jsonl")))[0]
            with open(journal, "ab") as f:
                f.write(b"\0\0\0 overwritten\n")
            rc, o, err, repro = self.batch(self.proxy, os.path.join(box, "fifos", "h0"), out)
            said = o.get("ledgerUnreadable") or []
            self.check("a line that is not an entry", len(said) == 1 and os.path.basename(journal) in said[0] and "ledger" in err,
                       "skipped in silence", f"ledgerUnreadable {said}, stderr {err[:200]!r}", repro)
            # Idle runs through views that number files their own way append nothing.
            self.r.family(FAM)["cases"] += 1
            good = self.r.good_media()
            src = os.path.join(box, "shared", "in")
            os.makedirs(src)
            for n in ("a.mp4", "b.mp4", "c/d.mp4"):
                os.makedirs(os.path.dirname(os.path.join(src, n)), exist_ok=True)
                shutil.copyfile(good, os.path.join(src, n))
            for n in ("c/d.mp4", "b.mp4", "a.mp4"):   # view 1 meets the files in another order: other inode numbers
                os.stat(os.path.join(views[1], "in", n))
            conv = os.path.join(box, "shared", "conv")
            rc, o, err, repro = self.batch(self.proxy, os.path.join(views[0], "in"), os.path.join(views[0], "conv"), host="h0")
            self.check("idle runs through other clients", rc == 0 and len(o.get("converted", [])) == 3, "skipped work", f"exit {rc} {o.get('converted')}", repro)
            size = lambda: sum(os.path.getsize(p) for p in glob.glob(os.path.join(conv, ".reencode", "ledger*.jsonl")))
            # Every view kind meets the files once (the host itself sees other ctimes and mtimes than sshfs).
            for v, h in ((views[1], "h1"), (box + "/shared", "local"), (views[2], "h2")):
                self.batch(self.proxy, os.path.join(v, "in"), os.path.join(v, "conv"), host=h)
            n0 = size()
            for rnd in range(2):
                for v, h in ((views[0], "h0"), (views[1], "h1"), (box + "/shared", "local"), (views[2], "h2")):
                    rc, o, err, repro = self.batch(self.proxy, os.path.join(v, "in"), os.path.join(v, "conv"), host=h)
                    self.check("idle runs through other clients", rc == 0 and o.get("converted") == [] and o.get("alreadyDone") == 3,
                               "converted again", f"{h}: exit {rc}, converted {o.get('converted')}", repro)
            self.check("idle runs through other clients", size() == n0, "ledger grows", f"{size() - n0} bytes appended by idle runs", repro)
        finally:
            self.unmount(views)
            self.r.cleanup(box)


def run(runner, execute):
    c = Cases(runner, execute)
    c.reverted_recipe()
    c.torn_lines()
    c.big_ledger()
    c.shared_folder()
