#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""entropyctl behaves like systemd's own tools: --no-pager, and a pager only
on a terminal and only for output longer than its screen ($SYSTEMD_PAGER/
$PAGER, LESS=FRXMK, secure mode, printing directly when no pager starts); --json=short|pretty|off on every verb,
valid against the schemas in man/; -q; colour on a terminal only, never
with NO_COLOR; errors prefixed "entropyctl:" however it is invoked; a help
verb; --version. Terminals are real: a pty from Python's pty module.

Usage: ctl-cli.py ENTROPYCTL ENTROPYCTL_FAKE_POOL MAN_DIR

ENTROPYCTL_FAKE_POOL takes its root from $EG_TEST_ROOT (a test seam linked
into it alone); MAN_DIR holds the JSON schemas.
"""
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctl_schema import validate  # noqa: E402

ctl, ctl_fake, man_dir = sys.argv[1:4]
schemas = {v: json.load(open(os.path.join(man_dir, f"entropyctl-{v}.schema.json")))
           for v in ("status", "timeline", "check-image", "plot", "metrics", "credential")}
failures = 0
ESC = b"\x1b"


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def check(cond, msg):
    if not cond:
        fail(msg)
    return cond


# A clean environment: nothing of the caller's pager or colour settings.
BASE_ENV = {k: v for k, v in os.environ.items()
            if k not in ("NO_COLOR", "SYSTEMD_COLORS", "SYSTEMD_PAGER", "PAGER", "SYSTEMD_PAGERSECURE",
                         "SYSTEMD_LESS", "LESS", "LESSSECURE", "TERM", "JOURNAL_STREAM")}
BASE_ENV["TERM"] = "xterm"


def run(argv, env=None, binary=None):
    """Standard output and error are pipes: not a terminal."""
    e = dict(BASE_ENV, **(env or {}))
    return subprocess.run([binary or ctl_fake, *argv], env=e, capture_output=True, timeout=60)


def run_pty(argv, env=None, binary=None, timeout=30, rows=50):
    """Standard input, output and error on a new pty, our controlling
    terminal, @rows high: what a person at a terminal gets. Returns (exit
    code, output)."""
    e = dict(BASE_ENV, **(env or {}))
    path = binary or ctl_fake
    pid, fd = pty.fork()
    if pid == 0:
        try:
            import fcntl
            import struct
            import termios
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, 200, 0, 0))
            os.execve(path, [path, *argv], e)
        finally:
            os._exit(127)
    out = b""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            os.kill(pid, signal.SIGKILL)
            fail(f"{argv} on a pty: no end after {timeout}s: {out!r}")
            break
        r, _, _ = select.select([fd], [], [], left)
        if not r:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:
            break  # EIO: every process holding the pty's other side is gone
        if not data:
            break
        out += data
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out


with tempfile.TemporaryDirectory() as tmp:
    # A constructed root for the fake-pool twin: results of this boot, and
    # a kernel log with the CRNG's initialization.
    root = os.path.join(tmp, "root")
    for d in ("etc", "proc", "dev", "run/entropy-gate"):
        os.makedirs(os.path.join(root, d))
    with open(os.path.join(root, "etc/machine-id"), "w") as f:
        f.write("0123456789abcdef0123456789abcdef\n")
    with open(os.path.join(root, "proc/cmdline"), "w") as f:
        f.write("ro quiet\n")
    with open(os.path.join(root, "dev/kmsg"), "w") as f:
        f.write("6,1,0,-;Linux version 6.1.0\n6,2,400000,-;Run /init as init process\n"
                "5,3,2600000,-;random: crng init done\n")
    with open(os.path.join(root, "run/entropy-gate/seed"), "w") as f:
        f.write("ACTION=credited\nBITS=256\nREASON=\nBOOTTIME_USEC=2500000\n")
    with open(os.path.join(root, "run/entropy-gate/gate"), "w") as f:
        f.write("OUTCOME=ready\nREADY_AT_START=no\nSTART_BOOTTIME_USEC=2000000\nEND_BOOTTIME_USEC=3250000\n"
                "WAITED_USEC=1250000\n")
    ENV = {"EG_TEST_ROOT": root, "FAKE_POOL_READY_AFTER_MS": "0"}
    # An image root with one finding, for check-image.
    image = os.path.join(tmp, "image")
    os.makedirs(os.path.join(image, "etc"))
    with open(os.path.join(image, "etc/machine-id"), "w") as f:
        f.write("0123456789abcdef0123456789abcdef\n")
    clean = os.path.join(tmp, "clean")
    os.makedirs(os.path.join(clean, "etc"))

    # ---- --no-pager, and the pager
    p = run(["--no-pager", "status"], ENV)
    check(p.returncode == 0 and b"CRNG: initialized" in p.stdout, f"--no-pager status: {p.returncode} {p.stdout!r}")
    p = run(["--no-pager", "status"], binary=ctl)
    check(p.returncode in (0, 3) and b"CRNG: " in p.stdout, f"host --no-pager status: {p.returncode} {p.stdout!r}")
    print(p.stdout.decode(errors="replace"))

    pager = os.path.join(tmp, "pager")
    with open(pager, "w") as f:
        f.write('#!/bin/sh\necho "PAGER LESS=$LESS LESSSECURE=${LESSSECURE:-unset}"\nexec sed "s/^/PAGED:/"\n')
    os.chmod(pager, 0o755)
    empty_path = os.path.join(tmp, "no-programs")
    os.makedirs(empty_path)
    trusted = {"SYSTEMD_PAGERSECURE": "0", "SYSTEMD_PAGER": pager}

    # The status is 12 lines: on a screen 8 rows high it needs the pager.
    SHORT = 8
    rc, out = run_pty(["status"], dict(ENV, **trusted), rows=SHORT)
    check(rc == 0 and b"PAGED:" in out and b"PAGER LESS=FRXMK LESSSECURE=unset" in out,
          f"status on a small pty with a pager: {rc} {out!r}")
    check(re.search(rb"PAGED:.*CRNG: ", out), f"the status did not go through the pager: {out!r}")
    check(ESC in out, f"no colour through the pager on a terminal: {out!r}")
    # Output that fits needs none: printed as it is.
    rc, out = run_pty(["status"], dict(ENV, **trusted))
    check(rc == 0 and b"CRNG: " in out and b"PAGE" not in out, f"short output paged: {out!r}")
    rc, out = run_pty(["status"], dict(ENV, SYSTEMD_PAGERSECURE="0", PAGER=pager), rows=SHORT)
    check(b"PAGED:" in out, f"$PAGER not used: {out!r}")
    rc, out = run_pty(["status"], dict(ENV, **trusted, SYSTEMD_LESS="XY"), rows=SHORT)
    check(b"PAGER LESS=XY " in out, f"$SYSTEMD_LESS not handed on: {out!r}")
    # Secure mode asked for explicitly: the user vouches for the pager, which gets LESSSECURE=1.
    rc, out = run_pty(["status"], dict(ENV, SYSTEMD_PAGERSECURE="1", SYSTEMD_PAGER=pager), rows=SHORT)
    check(b"PAGER LESS=FRXMK LESSSECURE=1" in out, f"explicit secure mode: {out!r}")
    # Secure mode by default unless we run as the owner of our login session:
    # then only less, and here there is none on $PATH: printed directly.
    owner = None
    for line in open("/proc/self/cgroup"):
        m = re.search(r"/user-(\d+)\.slice/", line)
        if m:
            owner = int(m.group(1))
    secure = owner is None or owner != os.geteuid()
    rc, out = run_pty(["status"], dict(ENV, SYSTEMD_PAGER=pager, PATH=empty_path), rows=SHORT)
    check(rc == 0 and b"CRNG: " in out and (b"PAGED:" in out) == (not secure),
          f"default secure mode {secure} (session owner {owner}): {out!r}")
    # Off: --no-pager, SYSTEMD_PAGER=cat or empty, TERM=dumb, and any output that is not a terminal.
    for argv, env in ((["--no-pager", "status"], trusted), (["status"], dict(SYSTEMD_PAGER="cat")),
                      (["status"], dict(SYSTEMD_PAGER="", PAGER=pager, SYSTEMD_PAGERSECURE="0")),
                      (["status"], dict(trusted, TERM="dumb"))):
        rc, out = run_pty(argv, dict(ENV, **env), rows=SHORT)
        check(rc == 0 and b"CRNG: " in out and b"PAGE" not in out, f"{argv} {env}: paged: {out!r}")
    p = run(["status"], dict(ENV, **trusted))
    check(b"PAGE" not in p.stdout and b"CRNG: " in p.stdout, f"paged into a pipe: {p.stdout!r}")
    # No pager can be started: the output goes to the terminal as it is.
    rc, out = run_pty(["status"], dict(ENV, SYSTEMD_PAGERSECURE="0", SYSTEMD_PAGER="/nonexistent/pager",
                                       PATH=empty_path), rows=SHORT)
    check(rc == 0 and b"CRNG: " in out and b"Other daemons: " in out and b"PAGE" not in out,
          f"no pager to start: {rc} {out!r}")
    # Errors reach the terminal at once, never held back for a pager.
    rc, out = run_pty(["check-image", os.path.join(tmp, "nonexistent")], trusted, rows=SHORT)
    check(rc == 1 and out.startswith(b"entropyctl: Failed to open image root"),
          f"an error on a terminal: {rc} {out!r}")
    # JSON is paged too, and stays JSON.
    rc, out = run_pty(["timeline", "--json=pretty"], dict(ENV, **trusted), rows=SHORT)
    check(rc == 0 and b'PAGED:  "schema_version": 1,' in out, f"JSON through the pager: {out!r}")

    # ---- Colour: on a terminal only, never with NO_COLOR
    rc, out = run_pty(["--no-pager", "status"], ENV)
    check(rc == 0 and b"\x1b[0;1;32minitialized\x1b[0m" in out, f"no colour on a terminal: {out!r}")
    for env in ({"NO_COLOR": "1"}, {"NO_COLOR": ""}, {"NO_COLOR": "1", "SYSTEMD_COLORS": "1"},
                {"SYSTEMD_COLORS": "0"}, {"SYSTEMD_COLORS": "false"}, {"TERM": "dumb"}):
        for argv in (["--no-pager", "status"], ["--no-pager", "timeline"], ["--no-pager", "check-image", image],
                     ["--no-pager", "--help"]):
            rc, out = run_pty(argv, dict(ENV, **env))
            check(ESC not in out and len(out) > 40, f"{env} {argv}: escape sequences on a pty: {out!r}")
    rc, out = run_pty(["status"], dict(ENV, NO_COLOR="1", **trusted), rows=SHORT)
    check(b"PAGED:" in out and ESC not in out, f"NO_COLOR through the pager: {out!r}")
    # Without --no-pager, with the default pager: short output is printed as it is,
    # so a terminal sees no escape sequence at all, not even a pager's.
    rc, out = run_pty(["status"], dict(ENV, NO_COLOR="1"))
    check(rc == 0 and b"CRNG: " in out and ESC not in out, f"NO_COLOR status on a pty: {out!r}")
    p = run(["status"], ENV)
    check(ESC not in p.stdout, f"colour into a pipe: {p.stdout!r}")
    # As in systemd, SYSTEMD_COLORS=1 asks for colour without a terminal (for less -R).
    p = run(["status"], dict(ENV, SYSTEMD_COLORS="1"))
    check(ESC in p.stdout, f"SYSTEMD_COLORS=1 into a pipe: {p.stdout!r}")
    p = run(["check-image", image], dict(ENV, SYSTEMD_COLORS="1", NO_COLOR="1"))
    check(ESC not in p.stdout, f"NO_COLOR lost to SYSTEMD_COLORS: {p.stdout!r}")

    # ---- Errors: "entropyctl:", however it was invoked
    alias = os.path.join(tmp, "some-other-name")
    os.symlink(os.path.abspath(ctl_fake), alias)
    usage_cases = [
        (["--bogus"], "Unknown option '--bogus'"),
        (["-x", "status"], "Unknown option '-x'"),
        ([], "Missing command"),
        (["frobnicate"], "Unknown command 'frobnicate'"),
        (["status", "extra"], "Unexpected argument 'extra' for 'status'. Usage: entropyctl status"),
        (["--json=yaml", "status"], "Unknown --json= format 'yaml'"),
        (["help", "--json"], "'help' does not take --json"),
        (["status", "--fix"], "'status' does not take --fix"),
        (["timeline", "--root=/"], "'timeline' does not take --root="),
        (["check-image", "--machine-id=random", "--fix", image], "Unknown --machine-id= value 'random'"),
        (["check-image", "--machine-id"], "needs a value"),
        (["check-image"], "Usage: entropyctl check-image"),
        (["check-image", "--force", image], "--force only makes sense with --fix"),
        (["check-image", "--root=" + image, image], "Give the image root once"),
    ]
    for binary in (ctl_fake, alias, os.path.join(".", os.path.relpath(ctl_fake))):
        for argv, want in usage_cases:
            p = run(argv, ENV, binary=binary)
            err = p.stderr.decode()
            check(p.returncode == 2 and err.startswith("entropyctl: ") and want in err and not p.stdout,
                  f"{binary} {argv}: exit {p.returncode}, {err!r}, {p.stdout!r}")
    p = run(["check-image", os.path.join(tmp, "nonexistent")], binary=alias)
    check(p.returncode == 1 and p.stderr.decode().startswith("entropyctl: Failed to open image root"),
          f"a failure: {p.returncode} {p.stderr!r}")

    # ---- help, --version
    h = run(["help"], ENV)
    h2 = run(["--help"], ENV)
    h3 = run(["status", "-h"], ENV)
    check(h.returncode == 0 and h.stdout == h2.stdout == h3.stdout, "help, --help and -h differ")
    for word in (b"status", b"timeline", b"check-image", b"help", b"--no-pager", b"--json=", b"--quiet",
                 b"--root=", b"--fix", b"--force", b"--machine-id=", b"entropyctl(1)"):
        check(word in h.stdout, f"help lacks {word!r}")
    v = run(["--version"], ENV)
    check(v.returncode == 0 and re.fullmatch(rb"entropyctl \(entropy-gate\) \d+\.\d+\.\d+\n", v.stdout),
          f"--version: {v.stdout!r}")
    v = run(["--json=help"], ENV)
    check(v.returncode == 0 and sorted(v.stdout.split()) == [b"off", b"pretty", b"short"], f"--json=help: {v.stdout!r}")

    # ---- --json=short|pretty|off on every verb
    for verb, argv, env, want_rc in (("status", ["status"], ENV, 0), ("timeline", ["timeline"], ENV, 0),
                                     ("check-image", ["check-image", image], ENV, 1),
                                     ("check-image", ["check-image", clean], ENV, 0),
                                     ("status", ["status"], {}, None), ("timeline", ["timeline"], {}, 0),
                                     ("plot", ["plot"], ENV, 0), ("metrics", ["metrics"], ENV, 0),
                                     ("credential", ["credential", "--format=libvirt"], {}, 0)):
        binary = ctl if not env else ctl_fake
        docs = {}
        for fmt in ("short", "pretty", None):
            opt = f"--json={fmt}" if fmt else "--json"
            p = run([*argv, opt], env, binary=binary)
            if want_rc is not None:
                check(p.returncode == want_rc, f"{argv} {opt}: exit {p.returncode}: {p.stderr!r}")
            lines = p.stdout.decode().splitlines()
            if fmt == "short":
                check(len(lines) == 1, f"{argv} {opt}: {len(lines)} lines")
            else:
                check(len(lines) > 3 and lines[1].startswith("  \""), f"{argv} {opt}: not indented: {lines[:3]}")
            try:
                doc = json.loads(p.stdout)
            except ValueError as e:
                fail(f"{argv} {opt}: not JSON ({e}): {p.stdout!r}")
                continue
            for err in validate(doc, schemas[verb]):
                fail(f"{argv} {opt}: schema: {err}")
            docs[fmt] = doc
        if verb == "plot":     # each boot's timeline as the timeline schema says
            for fmt, doc in docs.items():
                for b in doc.get("boots", []):
                    for err in validate(b.get("timeline"), schemas["timeline"]):
                        fail(f"plot --json={fmt}: timeline of {b.get('label')!r}: {err}")
        if verb not in ("status", "metrics", "credential"):   # ages move; a seed is new every time
            check(docs.get("short") == docs.get("pretty") == docs.get(None), f"{argv}: the formats say different things")
        p = run([*argv, "--json=off"], env, binary=binary)
        check(not p.stdout.startswith(b"{"), f"{argv} --json=off printed JSON")

    # timeline --json=pretty: what the constructed boot holds, each from where it was found.
    p = run(["timeline", "--json=pretty"], ENV)
    doc = json.loads(p.stdout)
    print(p.stdout.decode())
    events = {(e["event"], e["source"]): e for e in doc["events"]}
    check(doc["events"][0] == {"monotonic_usec": 0, "event": "kernel-started", "source": "kernel", "unit": None,
                               "text": "kernel started"}, f"first event: {doc['events'][0]}")
    check(events.get(("crng-init-done", "kernel-log"), {}).get("monotonic_usec") == 2600000, f"crng: {events}")
    check(events.get(("userspace-started", "kernel-log"), {}).get("monotonic_usec") == 400000, f"init: {events}")
    seed = events.get(("seed-loaded", "runstate"), {})
    check(seed.get("monotonic_usec") == 2500000 and seed.get("unit") == "entropy-seed.service" and
          seed.get("text") == "entropy-seed: seed loaded, credited 256 bits", f"seed: {seed}")
    gate = events.get(("gate-released", "runstate"), {})
    check(gate.get("monotonic_usec") == 3250000 and gate.get("text") == "entropy-gate released: ready, waited 1.250s",
          f"gate: {gate}")
    times = [e["monotonic_usec"] for e in doc["events"]]
    check(times == sorted(times), f"events out of order: {times}")
    check("crng-init-done" not in [m["event"] for m in doc["not_found"]], f"not found: {doc['not_found']}")
    # The same events as the text shows.
    text = run(["timeline"], ENV).stdout.decode()
    for e in doc["events"]:
        check(f"s  {e['text']}" in text, f"text lacks {e['text']!r}")
    # Without the kernel log's record: named as not found.
    os.rename(os.path.join(root, "dev/kmsg"), os.path.join(root, "dev/kmsg.off"))
    doc = json.loads(run(["timeline", "--json=short"], ENV).stdout)
    check("crng-init-done" in [m["event"] for m in doc["not_found"]], f"not found: {doc['not_found']}")
    os.rename(os.path.join(root, "dev/kmsg.off"), os.path.join(root, "dev/kmsg"))
    # The host's own, real binary.
    p = run(["timeline", "--json=pretty"], binary=ctl)
    doc = json.loads(p.stdout)
    check(not validate(doc, schemas["timeline"]), "host timeline: schema")
    print("host timeline:", json.dumps(doc, indent=2))

    # ---- -q: the exit status answers
    # credential: whether a seed could be drawn (the scripted pool: never).
    for argv, want, *extra in ((["-q", "timeline"], 0), (["--quiet", "check-image", image], 1),
                               (["-q", "check-image", clean], 0), (["status", "-q"], 0), (["-q", "plot"], 0),
                               (["-q", "metrics"], 0), (["-q", "credential"], 0),
                               (["-q", "credential"], 1, {"FAKE_POOL_READY_AFTER_MS": "never"})):
        p = run(argv, dict(ENV, **(extra[0] if extra else {})))
        check(p.returncode == want and not p.stdout, f"{argv}: exit {p.returncode}, {p.stdout!r}")
    # entropyctl(1): output asked for with --json= is still printed.
    for argv in (["-q", "status"], ["-q", "timeline"], ["-q", "plot"], ["-q", "metrics"], ["-q", "credential"]):
        p = run([*argv, "--json=short"], ENV)
        check(p.returncode == 0 and p.stdout.startswith(b"{") and p.stdout.endswith(b"}\n"),
              f"{argv} --json=short: exit {p.returncode}, {p.stdout[:60]!r}")
    rc, out = run_pty(["-q", "status"], dict(ENV, **trusted), rows=SHORT)
    check(rc == 0 and out == b"", f"-q on a terminal: {out!r}")

if failures:
    print(f"{failures} failure(s)")
    sys.exit(1)
print("ctl-cli: ok")
