#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""entropyctl check-image, complete and safe, on constructed image trees:

- each finding alone: the path, kind, state, reason, text and JSON (valid
  against man/entropyctl-check-image.schema.json), exit 1; then --fix and
  what it leaves (file gone, machine ID reset with its mode kept, D-Bus's
  machine ID a symlink), exit 0, and a clean check after;
- our seed where the image's own configuration (file or drop-in) puts it;
- an escaping symlink for each path it reads (configuration, drop-ins,
  /proc/cmdline, the seed directory, every seed, the ESPs, the machine IDs,
  and whole directories on the way), pointing at a "host" tree outside the
  image: reported, never followed, never written through, and the host's
  files never even opened (inotify watches every one of them); also links
  to this machine's real /etc/machine-id and /var/lib/systemd, which must
  not change;
- a machine ID hard-linked from outside: the fix replaces the name only;
- --fix refused on the running system's own root without --force;
- usage: exit 2.

Usage: ctl-check-image.py ENTROPYCTL SCHEMA CONF_FILE
"""
import ctypes
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctl_schema import validate  # noqa: E402

ctl, schema_path, conf_file = sys.argv[1:4]
schema = json.load(open(schema_path))
conf_rel = conf_file.lstrip("/")
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def check(cond, msg):
    if not cond:
        fail(msg)
    return cond


# ---- inotify, to prove the host's files are never opened

IN_ACCESS, IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE, IN_OPEN = 0x1, 0x2, 0x4, 0x8, 0x20
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE, IN_DELETE_SELF, IN_MOVE_SELF = \
    0x40, 0x80, 0x100, 0x200, 0x400, 0x800
IN_ALL = 0xfff & ~0x10  # everything but IN_CLOSE_NOWRITE, which an open already shows
IN_CHANGES = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | \
    IN_DELETE_SELF | IN_MOVE_SELF
libc = ctypes.CDLL(None, use_errno=True)


class Watch:
    def __init__(self):
        self.fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self.paths = {}

    def add(self, path, mask=IN_ALL):
        wd = libc.inotify_add_watch(self.fd, os.fsencode(path), mask)
        if wd < 0:
            raise OSError(ctypes.get_errno(), f"inotify_add_watch {path}")
        self.paths[wd] = path

    def add_tree(self, top):
        """Every directory and file below @top, symlinks themselves not followed."""
        for d, dirs, files in os.walk(top):
            self.add(d)
            for f in files:
                p = os.path.join(d, f)
                if not os.path.islink(p):
                    self.add(p)

    def events(self):
        out = []
        try:
            data = os.read(self.fd, 65536)
        except BlockingIOError:
            return out
        i = 0
        while i < len(data):
            wd, mask, _, n = struct.unpack_from("iIII", data, i)
            name = data[i + 16:i + 16 + n].rstrip(b"\0").decode()
            out.append((self.paths.get(wd, "?"), name, hex(mask)))
            i += 16 + n
        return out

    def close(self):
        os.close(self.fd)


def run(*args):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "SYSTEMD_COLORS")}
    return subprocess.run([ctl, "check-image", *args], capture_output=True, text=True, timeout=60, env=env)


def run_json(*args, want_rc=None):
    p = run(*args, "--json=pretty")
    if want_rc is not None:
        check(p.returncode == want_rc, f"check-image {args}: exit {p.returncode}, expected {want_rc}: {p.stderr}")
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        fail(f"check-image {args}: not JSON ({e}): {p.stdout!r} {p.stderr!r}")
        return None, p
    for err in validate(doc, schema):
        fail(f"check-image {args}: schema: {err}")
    return doc, p


def put(top, rel, data=b"seed bytes", mode=0o644):
    path = os.path.join(top, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.lexists(path):
        os.unlink(path)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    os.chmod(path, mode)
    return path


def link(top, rel, target):
    path = os.path.join(top, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)
    os.symlink(target, path)
    return path


MACHINE_ID = "0123456789abcdef0123456789abcdef\n"

with tempfile.TemporaryDirectory() as tmp:
    root = os.path.join(tmp, "image")

    def fresh():
        if os.path.lexists(root):
            shutil.rmtree(root)
        os.makedirs(os.path.join(root, "etc"))
        put(root, "etc/machine-id", "uninitialized\n", 0o444)
        return root

    # ---- Clean trees: exit 0.
    fresh()
    doc, p = run_json(root, want_rc=0)
    if doc:
        check(doc["findings"] == [] and doc["left"] == 0 and doc["fix"] is False, f"clean: {doc}")
        for must in ("/var/lib/systemd/random-seed", "/var/lib/seedrng/", "/etc/seedrng/", "/efi/loader/random-seed",
                     "/boot/loader/random-seed", "/boot/efi/loader/random-seed", "/var/lib/systemd/credential.secret",
                     "/etc/machine-id", "/var/lib/dbus/machine-id", "/etc/urandom.seed",
                     "/var/lib/urandom/random-seed"):
            check(must in doc["checked"], f"{must} not checked: {doc['checked']}")
    check("clean" in run(root).stdout, "a clean tree not called clean")
    for content in ("", None):
        fresh()
        if content is None:
            os.unlink(os.path.join(root, "etc/machine-id"))
        else:
            put(root, "etc/machine-id", content)
        check(run(root).returncode == 0, f"machine-id {content!r} is not clean")
    fresh()
    link(root, "var/lib/dbus/machine-id", "/etc/machine-id")
    check(run(root).returncode == 0, "dbus machine-id -> /etc/machine-id not clean")
    link(root, "var/lib/dbus/machine-id", "../../../etc/machine-id")
    check(run(root).returncode == 0, "dbus machine-id -> ../../../etc/machine-id not clean")

    # ---- Each finding alone, then --fix.
    seed_dir_default = None
    cases = [
        # (files to write, expected path, kind, action)
        ({"var/lib/entropy-gate/seed": b"x" * 512}, "/var/lib/entropy-gate/seed", "seed", "remove"),
        ({"var/lib/entropy-gate/credentials": b"memory"}, "/var/lib/entropy-gate/credentials",
         "credential-memory", "remove"),
        ({"var/lib/systemd/random-seed": b"s" * 512}, "/var/lib/systemd/random-seed", "legacy-seed", "remove"),
        ({"var/lib/seedrng/seed.credit": b"s"}, "/var/lib/seedrng/seed.credit", "legacy-seed", "remove"),
        ({"var/lib/seedrng/seed.no-credit": b"s"}, "/var/lib/seedrng/seed.no-credit", "legacy-seed", "remove"),
        ({"var/lib/seedrng/seed.credit.new": b"s"}, "/var/lib/seedrng/seed.credit.new", "legacy-seed", "remove"),
        ({"etc/seedrng/seed.credit": b"s"}, "/etc/seedrng/seed.credit", "legacy-seed", "remove"),
        ({"etc/seedrng/seed.no-credit": b"s"}, "/etc/seedrng/seed.no-credit", "legacy-seed", "remove"),
        ({"etc/seedrng/anything": b"s"}, "/etc/seedrng/anything", "legacy-seed", "remove"),
        ({"var/lib/urandom/random-seed": b"s"}, "/var/lib/urandom/random-seed", "legacy-seed", "remove"),
        ({"etc/urandom.seed": b"s"}, "/etc/urandom.seed", "legacy-seed", "remove"),
        ({"efi/loader/random-seed": b"l" * 32}, "/efi/loader/random-seed", "loader-seed", "remove"),
        ({"boot/loader/random-seed": b"l" * 32}, "/boot/loader/random-seed", "loader-seed", "remove"),
        ({"boot/efi/loader/random-seed": b"l" * 32}, "/boot/efi/loader/random-seed", "loader-seed", "remove"),
        ({"var/lib/systemd/credential.secret": b"k" * 32}, "/var/lib/systemd/credential.secret",
         "credential-secret", "remove"),
        ({"etc/credstore/entropy-gate.seed": b"c" * 64}, "/etc/credstore/entropy-gate.seed",
         "seed-credential", "remove"),
        ({"usr/lib/credstore.encrypted/entropy-gate.seed": b"c" * 64},
         "/usr/lib/credstore.encrypted/entropy-gate.seed", "seed-credential", "remove"),
        ({"boot/efi/loader/credentials/entropy-gate.seed.cred": b"c" * 64},
         "/boot/efi/loader/credentials/entropy-gate.seed.cred", "seed-credential", "remove"),
        ({"efi/EFI/Linux/debian.efi.extra.d/entropy-gate.seed.cred": b"c" * 64},
         "/efi/EFI/Linux/debian.efi.extra.d/entropy-gate.seed.cred", "seed-credential", "remove"),
        ({"etc/machine-id": MACHINE_ID}, "/etc/machine-id", "machine-id", "reset"),
        ({"etc/machine-id": "not an id\n"}, "/etc/machine-id", "machine-id", "reset"),
        ({"var/lib/dbus/machine-id": MACHINE_ID}, "/var/lib/dbus/machine-id", "dbus-machine-id", "symlink"),
    ]
    for files, path, kind, action in cases:
        fresh()
        for rel, data in files.items():
            put(root, rel, data, 0o444 if rel == "etc/machine-id" else 0o600)
        doc, p = run_json(root, want_rc=1)
        if not doc:
            continue
        if not check(len(doc["findings"]) == 1, f"{path}: findings {doc['findings']}"):
            continue
        f = doc["findings"][0]
        check(f["path"] == path and f["kind"] == kind and f["state"] == "found" and f["action"] == action and
              f["fixed"] is False and f["why"] and f["what"], f"{path}: {f}")
        text = run(root).stdout
        check(text.startswith(f"{path}: {f['what']} (") and f"\n    {f['why']}\n" in text, f"{path}: text {text!r}")
        doc, p = run_json(root, "--fix", want_rc=0)
        if doc:
            check(doc["findings"][0]["fixed"] is True and doc["left"] == 0 and doc["fix"] is True and
                  doc["machine_id_reset"] == "uninitialized", f"{path} --fix: {doc}")
        full = os.path.join(root, path.lstrip("/"))
        if action == "remove":
            check(not os.path.lexists(full) and os.path.isdir(os.path.dirname(full)),
                  f"{path}: not removed, or its directory went too")
        elif action == "reset":
            check(open(full).read() == "uninitialized\n" and os.stat(full).st_mode & 0o7777 == 0o444,
                  f"{path}: {open(full).read()!r} mode {oct(os.stat(full).st_mode)}")
        else:
            check(os.path.islink(full) and os.readlink(full) == "/etc/machine-id", f"{path}: not a symlink")
        check(run(root).returncode == 0, f"{path}: not clean after --fix")

    # --machine-id=empty; and a D-Bus machine ID linked elsewhere is replaced, the link itself.
    fresh()
    put(root, "etc/machine-id", MACHINE_ID, 0o444)
    link(root, "var/lib/dbus/machine-id", "/run/somewhere/machine-id")
    doc, p = run_json(root, "--fix", "--machine-id=empty", want_rc=0)
    check(doc and doc["machine_id_reset"] == "empty", f"--machine-id=empty: {doc}")
    check(open(os.path.join(root, "etc/machine-id")).read() == "", "--machine-id=empty did not empty it")
    check(os.readlink(os.path.join(root, "var/lib/dbus/machine-id")) == "/etc/machine-id", "dbus link not replaced")
    check("fixed: emptied" in run(root).stdout or run(root).returncode == 0, "empty machine-id not clean")

    # Everything at once: every finding, one --fix, clean.
    fresh()
    for files, _, _, _ in cases:
        for rel, data in files.items():
            put(root, rel, data, 0o444 if rel == "etc/machine-id" else 0o600)
    doc, p = run_json(root, want_rc=1)
    check(doc and len(doc["findings"]) == len(cases) - 1, f"all at once: {len(doc['findings']) if doc else None}")
    before_fix = run(root).stdout
    print(before_fix)
    p = run(root, "--fix")
    print(p.stdout)
    check(p.returncode == 0 and p.stdout.count("    fixed: ") == len(cases) - 1, f"--fix all: {p.stdout}")
    after = run(root)
    print(after.stdout)
    check(after.returncode == 0, "not clean after fixing everything")

    # ---- Our seed where the image's own configuration puts it.
    fresh()
    put(root, "var/lib/entropy-gate/seed", b"unused default")
    put(root, "srv/eg/seed", b"ours")
    put(root, "srv/eg/credentials", b"memory")
    put(root, conf_rel, "[Seed]\nDirectory=/srv/eg\n")
    doc, p = run_json(root, want_rc=1)
    if doc:
        check(doc["seed_directory"] == "/srv/eg", f"seed_directory {doc['seed_directory']}")
        paths = [f["path"] for f in doc["findings"]]
        check(paths == ["/srv/eg/seed", "/srv/eg/credentials"], f"configured seed directory: {paths}")
    # A drop-in wins over the file; a link to a drop-in inside the image is followed inside it.
    put(root, conf_rel + ".d/50-seed.conf", "[Seed]\nDirectory=/opt/seeds\n")
    put(root, "opt/seeds/seed", b"ours")
    doc, p = run_json(root, want_rc=1)
    check(doc and [f["path"] for f in doc["findings"]] == ["/opt/seeds/seed"], f"drop-in: {doc and doc['findings']}")
    os.unlink(os.path.join(root, conf_rel + ".d/50-seed.conf"))
    put(root, "usr/lib/eg/seed.conf", "[Seed]\nDirectory=/opt/seeds\n")
    link(root, conf_rel + ".d/50-seed.conf", "/usr/lib/eg/seed.conf")
    doc, p = run_json(root, want_rc=1)
    check(doc and doc["seed_directory"] == "/opt/seeds", f"drop-in via a link inside the image: {doc}")
    # A configuration that does not parse: said, and the default checked.
    put(root, conf_rel, "[Seed]\nDirectory=relative\n")
    shutil.rmtree(os.path.join(root, conf_rel + ".d"))
    doc, p = run_json(root, want_rc=1)
    check(doc and doc["configuration_problem"] and doc["seed_directory"] == "/var/lib/entropy-gate",
          f"broken configuration: {doc and (doc['configuration_problem'], doc['seed_directory'])}")

    # ---- Escaping symlinks: a "host" tree outside the image, every file watched.
    host = os.path.join(tmp, "host")
    host_files = {
        "etc/machine-id": MACHINE_ID,
        "var/lib/systemd/random-seed": "host seed",
        "var/lib/systemd/credential.secret": "host secret",
        "var/lib/entropy-gate/seed": "host seed",
        "var/lib/entropy-gate/credentials": "host memory",
        "var/lib/seedrng/seed.credit": "host seed",
        "etc/seedrng/seed.credit": "host seed",
        "efi/loader/random-seed": "host loader seed",
        "boot/efi/loader/random-seed": "host loader seed",
        "var/lib/dbus/machine-id": MACHINE_ID,
        "data/eg/seed": "host seed",
        "conf/entropy-gate.conf": "[Seed]\nDirectory=/data/eg\n",
        "conf.d/10-x.conf": "[Seed]\nDirectory=/data/eg\n",
        "proc/cmdline": "entropy_gate.credit=0\n",
        "etc/urandom.seed": "host seed",
    }
    for rel, data in host_files.items():
        put(host, rel, data)
    snapshot = {rel: (open(os.path.join(host, rel)).read(), os.stat(os.path.join(host, rel)).st_mtime_ns)
                for rel in host_files}
    real_targets = [p for p in ("/etc/machine-id", "/var/lib/systemd") if os.path.exists(p)]
    real_before = {p: os.stat(p) for p in real_targets}

    escapes = [
        # (link in the image, its target, the path reported as a symlink)
        ("etc/machine-id", f"{host}/etc/machine-id", "/etc/machine-id"),
        ("etc/machine-id", "/etc/machine-id", "/etc/machine-id"),
        ("var/lib/systemd", f"{host}/var/lib/systemd", "/var/lib/systemd"),
        ("var/lib/systemd", "/var/lib/systemd", "/var/lib/systemd"),
        ("var/lib/systemd/random-seed", "../" * 40 + host.lstrip("/") + "/var/lib/systemd/random-seed",
         "/var/lib/systemd/random-seed"),
        ("var/lib/entropy-gate", f"{host}/var/lib/entropy-gate", "/var/lib/entropy-gate"),
        ("var/lib/entropy-gate/seed", f"{host}/var/lib/entropy-gate/seed", "/var/lib/entropy-gate/seed"),
        ("var/lib/seedrng", f"{host}/var/lib/seedrng", "/var/lib/seedrng"),
        ("etc/seedrng", f"{host}/etc/seedrng", "/etc/seedrng"),
        ("etc/urandom.seed", f"{host}/etc/urandom.seed", "/etc/urandom.seed"),
        ("efi", f"{host}/efi", "/efi"),
        ("boot/efi", f"{host}/boot/efi", "/boot/efi"),
        ("boot", f"{host}/boot", "/boot"),
        ("var/lib/dbus", f"{host}/var/lib/dbus", "/var/lib/dbus"),
        ("var", f"{host}/var", "/var"),
    ]
    watch = Watch()
    watch.add_tree(host)
    for p in real_targets:
        watch.add(p, IN_CHANGES)
    while watch.events():   # our own walk, setting the watches up
        pass
    for rel, target, shown in escapes:
        for fix in ([], ["--fix"]):
            fresh()
            link(root, rel, target)
            doc, p = run_json(root, *fix, want_rc=1)
            if not doc:
                continue
            sl = [f for f in doc["findings"] if f["state"] == "symlink"]
            check(len(sl) >= 1 and all(f"{shown} is a symlink to {target}: not followed" == f["detail"] for f in sl),
                  f"{rel} -> {target}: {doc['findings']}")
            check(all(f["action"] is None and f["fixed"] is False for f in sl), f"{rel}: a symlink was acted on")
            check(os.path.islink(os.path.join(root, rel)), f"{rel}: the symlink was removed")
            ev = watch.events()
            check(not ev, f"{rel} -> {target} {fix}: the host's files were touched: {ev}")
    # The D-Bus machine ID linked to a host file: the link is replaced, the file untouched.
    fresh()
    link(root, "var/lib/dbus/machine-id", f"{host}/var/lib/dbus/machine-id")
    doc, p = run_json(root, "--fix", want_rc=0)
    check(os.readlink(os.path.join(root, "var/lib/dbus/machine-id")) == "/etc/machine-id", "dbus link not replaced")
    check(not watch.events(), "the host's D-Bus machine ID was touched")
    # The configuration, its drop-ins and /proc/cmdline linked out: read inside the image only.
    for rel, target in ((conf_rel, f"{host}/conf/entropy-gate.conf"),
                        (conf_rel, "../" * 40 + host.lstrip("/") + "/conf/entropy-gate.conf"),
                        (conf_rel + ".d", f"{host}/conf.d"),
                        ("proc", f"{host}/proc")):
        fresh()
        link(root, rel, target)
        # Inside the image such a link leads nowhere: a configuration that
        # cannot be read fails closed (exit 1, the default directory checked).
        doc, p = run_json(root, "--fix", want_rc=0 if rel == "proc" else 1)
        check(doc and doc["seed_directory"] == "/var/lib/entropy-gate", f"{rel} -> {target}: {doc}")
        ev = watch.events()
        check(not ev, f"{rel} -> {target}: the host's files were opened: {ev}")
    # Directory= through a link out of the image.
    fresh()
    put(root, conf_rel, "[Seed]\nDirectory=/data/eg\n")
    link(root, "data", f"{host}/data")
    doc, p = run_json(root, "--fix", want_rc=1)
    check(doc and [f["detail"] for f in doc["findings"]] == [f"/data is a symlink to {host}/data: not followed"],
          f"Directory= through a link: {doc and doc['findings']}")
    ev = watch.events()
    check(not ev, f"Directory= through a link: the host's files were opened: {ev}")
    watch.close()
    for rel, (content, mtime) in snapshot.items():
        path = os.path.join(host, rel)
        check(os.path.isfile(path) and open(path).read() == content and os.stat(path).st_mtime_ns == mtime,
              f"host file {rel} changed")
    for p, st in real_before.items():
        now = os.stat(p)
        check((now.st_ino, now.st_mtime_ns, now.st_nlink) == (st.st_ino, st.st_mtime_ns, st.st_nlink),
              f"this machine's {p} changed")

    # A machine ID hard-linked from outside: the fix replaces the name, never the shared inode.
    fresh()
    os.unlink(os.path.join(root, "etc/machine-id"))
    os.link(os.path.join(host, "etc/machine-id"), os.path.join(root, "etc/machine-id"))
    doc, p = run_json(root, "--fix", want_rc=0)
    check(open(os.path.join(root, "etc/machine-id")).read() == "uninitialized\n", "hard link: not reset")
    check(open(os.path.join(host, "etc/machine-id")).read() == MACHINE_ID, "hard link: written through")

    # Not a regular file: reported for a person, left alone, no hang on a FIFO.
    fresh()
    os.makedirs(os.path.join(root, "var/lib/systemd"))
    os.mkfifo(os.path.join(root, "var/lib/systemd/random-seed"))
    os.makedirs(os.path.join(root, "var/lib/systemd/credential.secret"))
    doc, p = run_json(root, "--fix", want_rc=1)
    check(doc and sorted(f["state"] for f in doc["findings"]) == ["unusual", "unusual"] and
          all(f["action"] is None for f in doc["findings"]), f"odd files: {doc and doc['findings']}")
    # A file name meant for the terminal is shown escaped.
    fresh()
    put(root, "etc/seedrng/\x1b[2Jevil", b"s")
    p = run(root)
    check("\x1b" not in p.stdout and "/etc/seedrng/\\x1b[2Jevil" in p.stdout, f"escape in a name: {p.stdout!r}")

    # ---- The running system's own root. Asked as nobody: were the refusal
    # ever to fail, this machine's files would still be out of reach.
    public = tempfile.mkdtemp()
    try:
        os.chmod(public, 0o755)
        link(public, "to-slash", "/")
        as_nobody = None
        if os.geteuid() == 0:
            def as_nobody():
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
        env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "SYSTEMD_COLORS")}
        for r in ("/", "//", "/.", os.path.join(public, "to-slash")):
            for args in ([r, "--fix"], ["--root=" + r, "--fix", "--machine-id=empty"]):
                p = subprocess.run([os.path.abspath(ctl), "check-image", *args], capture_output=True, text=True,
                                   timeout=60, env=env, preexec_fn=as_nobody)
                check(p.returncode == 1 and p.stderr.startswith("entropyctl: Refusing --fix on") and
                      "--force" in p.stderr and not p.stdout, f"{args}: exit {p.returncode} {p.stderr!r} {p.stdout!r}")
    finally:
        shutil.rmtree(public)
    # --force is only about that refusal: an image is fixed the same with it.
    fresh()
    put(root, "etc/urandom.seed", b"s")
    p = run(root, "--fix", "--force")
    check(p.returncode == 0 and not os.path.exists(os.path.join(root, "etc/urandom.seed")), f"--force: {p.stdout}")
    # --root= works as the argument does.
    put(root, "etc/urandom.seed", b"s")
    doc, p = run_json("--root=" + root, want_rc=1)
    check(doc and doc["root"] == root and len(doc["findings"]) == 1, f"--root=: {doc}")

    # ---- Usage and errors.
    for args in ([], ["--force", root], ["--machine-id=empty", root], ["--machine-id=bogus", "--fix", root],
                 [root, root], ["--root=" + root, root], ["--root="]):
        p = run(*args)
        check(p.returncode == 2 and p.stderr.startswith("entropyctl: "), f"{args}: exit {p.returncode} {p.stderr!r}")
    for args in ([os.path.join(tmp, "does-not-exist")], [""], [os.path.join(root, "etc/machine-id")]):
        p = run(*args)
        check(p.returncode == 1 and p.stderr.startswith("entropyctl: Failed to open image root"),
              f"{args}: exit {p.returncode} {p.stderr!r}")

if failures:
    print(f"{failures} failure(s)")
    sys.exit(1)
print("ctl-check-image: ok")
