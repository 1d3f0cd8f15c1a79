"""Issue 23's process classes, for reliability/run.py (family "process"):

  * a termination signal as `main` begins (strace delivers it at main's first pipe2, the console's
    wake-up pipe): `run --progress json` and `batch --json` must exit 128+n with exactly one JSON
    object (the last line), `inspect`/`plan`/`validate` 128+n with nothing on stdout; never killed;
  * `kill -PIPE` from another process mid-run: a termination signal like the others (141, nothing
    left), not ignored;
  * a shortage of the system's: threads (RLIMIT_NPROC for a uid of its own, as a container's pid
    limit) while decoders and encoders open, and open files (`ulimit -n`) wherever they run out:
    exit 75 (or 74 for open files) naming the errno, never 1, 65, 66 or 73; a batch records the file
    `postponed`, spends no attempt, and converts it once the limit is gone.

Needs root for the thread limit (it binds only users other than root) and strace for the early
signals; each part that cannot run says so in its case name instead of failing.
Python 3 standard library only.
"""
import json
import os
import random
import shlex
import shutil
import signal
import subprocess
import time

SIGNALS = ["TERM", "HUP", "INT", "PIPE"]
THREADED = """recipe: 1
output: { path: "{stem}-t.mp4" }
reader: { outputs: { v: { track: video } } }
writer: { inputs: [ { source: v, settings: { base: h264-960x540, codec-options: { preset: ultrafast, threads: 4 } } } ] }
"""
# What a shortage of threads (EAGAIN) or open files (EMFILE/ENFILE) may end in: 75 (try again
# later) or, for open files, 74 (an I/O error) — never the input's, the recipe's or the output's.
SHORTAGE_EXITS = {0, 74, 75}


def json_objects(text):
    """Each top-level JSON value in `text` (pretty-printed objects or JSON lines)."""
    dec, i, found = json.JSONDecoder(), 0, []
    text = text.strip()
    while i < len(text):
        try:
            obj, end = dec.raw_decode(text, i)
        except ValueError:
            return None
        found.append(obj)
        i = end
        while i < len(text) and text[i].isspace():
            i += 1
    return found


def have_strace():
    try:
        return subprocess.run(["strace", "-o", "/dev/null", "true"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def early_signals(r, execute):
    fam = "process"
    if not have_strace():
        r.family(fam)["cases"] += 1
        r.family(fam)["tried"] += 1
        print("process: early signals not tried: strace is missing or cannot trace here")
        return
    good = r.good_media()
    proxy = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "recipes", "proxy-540p.yaml")
    sigs = SIGNALS if not r.a.quick else ["TERM", "PIPE"]
    for s in sigs:
        n = signal.Signals["SIG" + s].value
        for label, args, want_json in [
            ("batch --json", ["batch", proxy, "--input-dir", "in", "--output-dir", "out", "--json"], "status"),
            ("run --progress json", ["run", proxy, "-i", good, "-o", "o.mp4", "--progress", "json"], "type"),
            ("inspect --json", ["inspect", "--json", good], None),
            ("plan --json", ["plan", "--json", proxy, "-i", good], None),
        ]:
            box = r.sandbox()
            os.makedirs(os.path.join(box, "in"))
            name = f"SIG{s} as main begins: {label}"
            r.family(fam)["cases"] += 1
            cmd = ["strace", "-o", "/dev/null", "-e", "trace=pipe2", "-e", f"inject=pipe2:signal={n}:when=1", r.reencode] + args
            res = execute(cmd, 60, cwd=box)
            repro = r.cmdline(cmd, box)
            if not r.judge(fam, name, res, {128 + n}, cwd=box, expected_signal_exit=128 + n):
                continue
            r.family(fam)["tried"] += 1
            out = res.stdout.decode("utf-8", "replace")
            objs = json_objects(out)
            if want_json:
                last = objs[-1] if objs else None
                final = [o for o in objs or [] if o.get("type") != "progress"] if want_json == "type" else objs
                if not last or len(final or []) != 1 or last.get("exitCode") != 128 + n:
                    r.fail(fam, name, "json", f"not exactly one final JSON object with exitCode {128 + n}: {out[:200]!r}", repro)
            elif out:
                r.fail(fam, name, "json", f"stdout not empty: {out[:200]!r}", repro)
            r.family(fam)["tried"] += 1
            r.check_leftovers(fam, name, box, ["in"], repro)


def outside_pipe(r, execute):
    """kill -PIPE mid-run and mid-batch: 141, nothing left."""
    fam = "process"
    long = r.long_media()
    slow = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "recipes", "hevc-archive.yaml")
    for label, args, watch in [("run", ["run", slow, "-i", long, "-o", "out.mp4", "--progress", "none"], "."),
                               ("batch", ["batch", slow, "--input-dir", "in", "--output-dir", "out", "--settle", "0"], "out")]:
        box = r.sandbox()
        os.makedirs(os.path.join(box, "in"))
        shutil.copyfile(long, os.path.join(box, "in", "long.mp4"))
        name = f"kill -PIPE mid-{label}"
        r.family(fam)["cases"] += 1
        p = subprocess.Popen([r.reencode] + args, cwd=box, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
        deadline = time.monotonic() + 30
        where = os.path.join(box, watch)
        while time.monotonic() < deadline and p.poll() is None and not any(
                ".reencode-tmp-" in f for _, _, fs in os.walk(where) for f in fs):
            time.sleep(0.02)
        p.send_signal(signal.SIGPIPE)
        try:
            out, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
        repro = r.cmdline([r.reencode] + args, box, " & sleep 1; kill -PIPE $!")
        r.family(fam)["tried"] += 1
        if p.returncode != 141:
            r.fail(fam, name, "exit", f"exit {p.returncode}, expected 141 (a PIPE from outside stops like TERM)", repro)
        r.family(fam)["tried"] += 1
        # The batch's own state (out/.reencode: ledger, lock) stays; no output, no temp file.
        left = [f for root, _, fs in os.walk(os.path.join(box, "out")) for f in fs
                if ".reencode-tmp-" in f or "/.reencode" not in root + "/"]
        left += [f for f in os.listdir(box) if f not in ("in", "out")]
        if left:
            r.fail(fam, name, "left behind", ", ".join(left[:5]), repro)


def task_limited(r, tasks, args, cwd, execute, uid=None):
    uid = uid or 200000 + random.randrange(100000)
    cmd = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "prlimit", f"--nproc={tasks}", r.reencode] + args
    return cmd, execute(cmd, 120, cwd=cwd)


def shortages(r, execute):
    fam = "process"
    good = r.good_media()
    if os.getuid() != 0:
        r.family(fam)["cases"] += 1
        r.family(fam)["tried"] += 1
        print("process: thread shortage not tried: RLIMIT_NPROC binds only other users, and switching needs root")
    else:
        box = r.sandbox()
        os.chmod(box, 0o777)
        recipe = os.path.join(box, "t.yaml")
        open(recipe, "w").write(THREADED)
        src = os.path.join(box, "s.mp4")
        shutil.copyfile(good, src)
        os.chmod(src, 0o644)
        for tasks in ([2] if r.a.quick else [2, 3]):
            for label, args in [("validate", ["validate", recipe]), ("plan", ["plan", recipe, "-i", src]),
                                ("run", ["run", recipe, "-i", src, "-o", os.path.join(box, "o.mp4")])]:
                name = f"{label} with {tasks} tasks (threads short while codecs open)"
                r.family(fam)["cases"] += 1
                cmd, res = task_limited(r, tasks, args, box, execute)
                if r.judge(fam, name, res, {75}, cwd=box):
                    r.family(fam)["tried"] += 1
                    if b"(EAGAIN: Resource temporarily unavailable); try again later" not in res.stderr:
                        r.fail(fam, name, "message", f"no errno in: {res.stderr.decode('utf-8', 'replace')[-200:]}", r.cmdline(cmd, box))
        # A batch spends no attempt on it, and converts it once threads are to be had.
        name = "batch with 3 tasks, --max-attempts 1, twice, then no limit"
        r.family(fam)["cases"] += 1
        inp, out = os.path.join(box, "in"), os.path.join(box, "out")
        os.makedirs(inp)
        shutil.copyfile(good, os.path.join(inp, "a.mp4"))
        os.chmod(inp, 0o777)
        old = time.time() - 600
        os.utime(os.path.join(inp, "a.mp4"), (old, old))
        args = ["batch", recipe, "--input-dir", inp, "--output-dir", out, "--max-attempts", "1", "--retry-after", "0", "--jobs", "1"]
        uid = 200000 + random.randrange(100000)
        for _ in range(2):
            cmd, res = task_limited(r, 3, args, box, execute, uid)
            if not r.judge(fam, name, res, {75}, cwd=box):
                break
        res = execute([r.reencode] + args, 120, cwd=box)
        r.judge(fam, name, res, {0}, cwd=box)
        statuses = [e.get("status") for e in r.ledger(out)]
        r.family(fam)["tried"] += 1
        if "failed" in statuses or statuses.count("postponed") != 2 or statuses.count("done") != 1:
            r.fail(fam, name, "ledger", f"statuses {statuses}: want 2 postponed, no failed, 1 done", r.cmdline([r.reencode] + args, box))
    # Open files: every limit from where the runtime starts to where nothing is short.
    proxy = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "recipes", "proxy-540p.yaml")
    for files in range(10, 40, 6 if r.a.quick else 2):
        box = r.sandbox()
        name = f"run with ulimit -n {files}"
        r.family(fam)["cases"] += 1
        shell = f"ulimit -n {files}; exec {shlex.quote(r.reencode)} run {shlex.quote(proxy)} -i {shlex.quote(good)} -o out.mp4 --progress none"
        res = execute(["bash", "-c", shell], 60, cwd=box)
        res.args = ["bash", "-c", shell]
        if r.judge(fam, name, res, SHORTAGE_EXITS, cwd=box):
            r.family(fam)["tried"] += 1
            err = res.stderr.decode("utf-8", "replace")
            if res.returncode != 0 and "Too many open files" not in err:
                r.fail(fam, name, "message", f"open files not named: {err[-200:]}", r.cmdline(res.args, box))
            r.family(fam)["tried"] += 1
            r.check_leftovers(fam, name, box, ["out.mp4"] if res.returncode == 0 else [], r.cmdline(res.args, box))


def process(r, execute):
    early_signals(r, execute)
    outside_pipe(r, execute)
    shortages(r, execute)
