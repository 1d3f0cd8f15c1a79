"""Issue 23, batch configuration, names, claims and hosts (items 2, 3, 7, 9, 11) as classes for the
reliability runner (reliability/run.py --only batch_hosts): each case builds a hostile layout or
condition, runs `reencode batch` on it and checks the answer by content (ledger lines, outputs,
summary lines), never by "a file exists". Python 3 standard library only.

Classes:
  outputs-as-sources   the output folder is the input folder (plainly, through a link, the input
                       inside the output): a second run converts no output of an output
  undecodable-names    Latin-1 file and folder names, a path past PATH_MAX: recorded as skipped
                       with the reason (escaped name), never dropped in silence; `run` refuses such
                       an argument with 64, not "no such file"
  two-recipes          two recipes into one output folder on one host at once: both convert
  move-done-retry      a --move-done that fails is retried by later runs with a clear message
  forged-lines         names with newlines and control characters stay on their own summary line
  clock-free-claims    a live claim stamped an hour in the past (a host whose clock is behind)
                       that keeps beating is never taken over; once it stops it is
  storage-check        (root with scripts/sshfs-hosts.sh only) an sshfs mount without hard links
                       is refused with 73 and the reason
"""
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
FAM = "batch-hosts"


def batch_hosts(r):
    """Runs every class; `r` is run.py's Runner (judge, fail, sandbox, ledger, execute)."""
    # The runner's own process handling (process group, time limit), from whichever module it is.
    execute = sys.modules[type(r).__module__].execute
    proxy = os.path.join(REPO, "recipes", "proxy-540p.yaml")
    good = r.good_media()
    env = dict(os.environ, REENCODE_HOSTNAME="rel-a")

    def box_with(files, inp_rel="in"):
        box = r.sandbox()
        inp = os.path.join(box, inp_rel)
        os.makedirs(inp, exist_ok=True)
        for n in files:
            p = os.path.join(inp.encode(), n if isinstance(n, bytes) else n.encode())
            os.makedirs(os.path.dirname(p), exist_ok=True)
            shutil.copyfile(good, p)
            os.utime(p, (time.time() - 600, time.time() - 600))
        return box, inp

    def batch(inp, out, *extra, host_env=None, limit=None):
        args = [r.reencode, "batch", proxy, "--input-dir", inp, "--output-dir", out, "--settle", "0", *extra]
        return execute(args, limit or r.batch_limit * 2, env=host_env or env), args

    def case(name):
        r.family(FAM)["cases"] += 1
        r.family(FAM)["tried"] += 1
        return name

    def check(ok, name, kind, detail, args):
        if not ok:
            # Bytes that are not UTF-8 (a Latin-1 name) shown as \xNN: the results files are UTF-8.
            shown = [a.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace") for a in map(os.fsdecode, args)]
            r.fail(FAM, name, kind, detail, r.cmdline(shown))

    def jsonl(res):
        try:
            return json.loads(res.stdout.decode("utf-8", "replace"))
        except ValueError:
            return {}

    # outputs-as-sources: three layouts, two runs each.
    for label, inp_rel, out_rel, src in (("same folder", "x", "x", "a.mp4"), ("through a link", "x", "link", "a.mp4"),
                                         ("input inside output", "x/in", "x", "in/a.mp4")):
        name = case(f"outputs-as-sources: {label}")
        box, inp = box_with([src], inp_rel)
        if out_rel == "link":
            os.symlink(inp, os.path.join(box, "link"))
        out = os.path.join(box, out_rel)
        batch(inp, out)
        res, args = batch(inp, out, "--json")
        if r.judge(FAM, name, res, {0}):
            produced = [n for n in (os.path.relpath(os.path.join(d, f), box) for d, _, fs in os.walk(box) for f in fs) if "-proxy-proxy" in n]
            check(not produced and jsonl(res).get("converted") == [], name, "re-converted outputs",
                  f"outputs of outputs: {produced}, second run converted {jsonl(res).get('converted')}", args)
        r.cleanup(box)

    # undecodable-names: a Latin-1 file, a Latin-1 folder, a path past PATH_MAX.
    name = case("undecodable-names: Latin-1 file and folder")
    box, inp = box_with(["a.mp4", b"caf\xe9.mp4", b"d\xe9j\xe0/x.mp4"])
    res, args = batch(inp, os.path.join(box, "out"), "--json")
    if r.judge(FAM, name, res, {0}):
        skipped = sorted(e.get("source") for e in r.ledger(os.path.join(box, "out")) if e.get("status") == "skipped")
        check(skipped == ["caf\\xE9.mp4", "d\\xE9j\\xE0"], name, "silently skipped", f"skipped entries {skipped}", args)
    run_res = execute([r.reencode, "run", proxy, "-i", os.fsdecode(os.path.join(inp.encode(), b"caf\xe9.mp4")), "-o", os.path.join(box, "o.mp4")], 60)
    check(run_res.returncode == 64 and b"is not UTF-8 text" in run_res.stderr, name + " (run)", "wrong answer",
          f"run exit {run_res.returncode}: {run_res.stderr[-200:]!r}", run_res.args)
    r.cleanup(box)
    name = case("undecodable-names: a path past PATH_MAX")
    box, inp = box_with(["a.mp4"])
    fd = os.open(inp, os.O_RDONLY)
    for _ in range(24):
        os.mkdir("d" * 200, dir_fd=fd)
        nfd = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = nfd
    os.close(os.open("deep.mp4", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    os.close(fd)
    res, args = batch(inp, os.path.join(box, "out"), "--json")
    if r.judge(FAM, name, res, {0}):
        reasons = [e.get("error") for e in r.ledger(os.path.join(box, "out")) if e.get("status") == "skipped"]
        check(reasons == ["its path is longer than PATH_MAX (4096 bytes): not converted"], name, "silently skipped", f"{reasons}", args)
    subprocess.run(["rm", "-rf", box])

    # two-recipes: the first holds a claim (test hook) while the second recipe runs.
    name = case("two-recipes: one output folder, one host, at once")
    box, inp = box_with(["a.mp4"])
    small = os.path.join(box, "small.yaml")
    open(small, "w").write(open(proxy).read().replace("{stem}-proxy.mp4", "{stem}-small.mp4"))
    out = os.path.join(box, "out")
    first = subprocess.Popen([r.reencode, "batch", proxy, "--input-dir", inp, "--output-dir", out, "--settle", "0"],
                             env=dict(env, REENCODE_TEST_CLAIM_PAUSE="60"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    claims = os.path.join(out, ".reencode", "claims")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (os.path.isdir(claims) and any(".claim.new-" in n for n in os.listdir(claims))):
        time.sleep(0.02)
    args = [r.reencode, "batch", small, "--input-dir", inp, "--output-dir", out, "--settle", "0", "--json"]
    res = execute(args, r.batch_limit * 2, env=env)
    first.kill()
    first.wait()
    if r.judge(FAM, name, res, {0}):
        check(jsonl(res).get("converted") == ["a.mp4"], name, "stepped aside", res.stdout[-300:].decode("utf-8", "replace"), args)
    r.cleanup(box)

    # move-done-retry: the destination cannot be made, then can.
    name = case("move-done-retry")
    box, inp = box_with(["a.mp4"])
    dest = os.path.join(box, "done")
    open(dest, "w").write("x")
    res, args = batch(inp, os.path.join(box, "out"), "--move-done", dest)
    said = res.stderr.decode("utf-8", "replace")
    check("not moved to" in said and "Error Domain" not in said and "Not a directory" in said, name, "unclear warning", said[-300:], args)
    os.remove(dest)
    res, args = batch(inp, os.path.join(box, "out"), "--move-done", dest)
    check(os.path.exists(os.path.join(dest, "a.mp4")) and not os.path.exists(os.path.join(inp, "a.mp4")), name, "never retried",
          "the source is still in the input folder after a later run", args)
    r.cleanup(box)

    # forged-lines: names that would split a summary line.
    name = case("forged-lines: control characters in names")
    box = r.sandbox()
    inp = os.path.join(box, "in")
    os.makedirs(inp)
    for n in ("x\n  failed: forged.mp4 (exit 0): ok z.mp4", "t\tab.mp4", "esc\x1b[2J.mp4", "cr\r.mp4"):
        open(os.path.join(inp, n), "w").write("not media")
        os.utime(os.path.join(inp, n), (time.time() - 600, time.time() - 600))
    res, args = batch(inp, os.path.join(box, "out"))
    lines = res.stdout.decode("utf-8", "replace").split("\n")[:-1]
    bad = [l for l in lines[1:] if not l.startswith("  failed: ")] + [l for l in lines if any(c in l for c in "\t\r\x1b")]
    check(len(lines) == 5 and not bad, name, "forged line", f"{len(lines)} lines, bad: {bad[:3]}", args)
    r.cleanup(box)

    # clock-free-claims: a claim an hour in the past that keeps beating, then stops.
    name = case("clock-free-claims: a beating claim stamped an hour behind")
    box, inp = box_with(["a.mp4"])
    out = os.path.join(box, "out")
    claims = os.path.join(out, ".reencode", "claims")
    os.makedirs(claims)
    claim = os.path.join(claims, "%016x" % fnv1a(b"a-proxy.mp4") + ".claim")
    open(claim, "w").write('{"host":"elsewhere","pid":1,"token":"t","started":"x","source":"a.mp4"}')
    answers = []
    for beat in (3600, 3599, None):
        if beat is not None and os.path.exists(claim):  # gone: taken over (wrongly) by the run before
            os.utime(claim, (time.time() - beat, time.time() - beat))
        res, args = batch(inp, out, "--json", "--claim-timeout", "1")
        answers.append(jsonl(res).get("converted"))
        time.sleep(1.5)
    check(answers == [[], [], ["a.mp4"]], name, "clock compared", f"converted per run: {answers} (want [], [], ['a.mp4'])", args)
    r.cleanup(box)

    storage_check(r, execute, batch, case, check, box_with)


def storage_check(r, execute, batch, case, check, box_with):
    """An sshfs mount without hard links: refused with 73 (root with FUSE only; else not counted)."""
    script = os.path.join(REPO, "scripts", "sshfs-hosts.sh")
    if os.geteuid() != 0:
        return
    box = r.sandbox()
    hosts = os.path.join(box, "sshfs")
    if subprocess.run([script, "start", hosts], capture_output=True).returncode != 0:
        shutil.rmtree(box, ignore_errors=True)
        return
    try:
        if subprocess.run([script, "mount", hosts, "d", "", "disable_hardlink"], capture_output=True).returncode != 0:
            return
        name = case("storage-check: sshfs without hard links")
        os.makedirs(os.path.join(hosts, "shared", "in"))
        res, args = batch(os.path.join(hosts, "d", "in"), os.path.join(hosts, "d", "out"), "--json")
        err = res.stdout.decode("utf-8", "replace")
        check(res.returncode == 73 and "cannot hold claims: link failed" in err, name, "not refused", f"exit {res.returncode}: {err[-300:]}", args)
    finally:
        subprocess.run([script, "stop", hosts], capture_output=True)
        shutil.rmtree(box, ignore_errors=True)


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h
