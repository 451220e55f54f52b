# SPDX-License-Identifier: LGPL-2.1-or-later
"""Helpers of the ci-* hostile tests: an image tree with every file
entropyctl check-image looks at, a "host" tree beside it that stands for
the building machine (a canary: every file's hash and mtime, every
symlink's target, every directory, compared before and after), and this
machine's own files that an escape would reach."""
import hashlib
import json
import os
import shutil
import subprocess

MACHINE_ID = "0123456789abcdef0123456789abcdef\n"

# This machine's files an escape through an absolute symlink or a bind
# mount of / would reach: compared too, never written by the tests.
REAL_FILES = ["/etc/machine-id", "/var/lib/systemd/random-seed", "/var/lib/systemd/credential.secret",
              "/var/lib/dbus/machine-id", "/var/lib/entropy-gate/seed", "/var/lib/entropy-gate/credentials"]


class Failures:
    def __init__(self):
        self.n = 0

    def check(self, cond, msg):
        if not cond:
            self.n += 1
            print("FAIL:", msg, flush=True)
        return cond

    def exit(self, name):
        if self.n:
            print(f"{name}: {self.n} failure(s)")
            raise SystemExit(1)
        print(f"{name}: ok")
        raise SystemExit(0)


def snapshot(top):
    """Everything below @top, symlinks not followed: what must not change."""
    out = {}
    if not os.path.lexists(top):
        return out
    for d, dirs, files in os.walk(top):
        rel = os.path.relpath(d, top)
        out[rel] = ("dir",)
        for name in dirs + files:
            p = os.path.join(d, name)
            r = os.path.relpath(p, top)
            st = os.lstat(p)
            if os.path.islink(p):
                out[r] = ("link", os.readlink(p))
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    out[r] = ("file", hashlib.sha256(f.read()).hexdigest(), st.st_mtime_ns, st.st_mode)
    return out


def snapshot_real():
    out = {}
    for p in REAL_FILES:
        if os.path.isfile(p):
            st = os.stat(p)
            with open(p, "rb") as f:
                out[p] = (hashlib.sha256(f.read()).hexdigest(), st.st_mtime_ns, st.st_ino)
    return out


def diff(before, after):
    keys = sorted(set(before) | set(after))
    return [(k, before.get(k), after.get(k)) for k in keys if before.get(k) != after.get(k)]


def put(top, rel, data="seed bytes", mode=0o600):
    path = os.path.join(top, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.lexists(path):
        os.unlink(path)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)
    os.chmod(path, mode)
    return path


def replace_with_link(top, rel, target):
    path = os.path.join(top, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)
    os.symlink(target, path)


# A command that check-image runs under: [] or BY_HAND, where openat2()
# fails with ENOSYS as before Linux 5.6 (or behind a seccomp filter), so
# that the resolver's rules by hand are what is tried.
WRAPPER = []
BY_HAND = ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=openat2", "-e", "inject=openat2:error=ENOSYS"]


def have_strace():
    return shutil.which("strace") is not None


def run(ctl, *args, preexec=None):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "SYSTEMD_COLORS")}
    env["NO_COLOR"] = "1"
    if WRAPPER:
        # LeakSanitizer cannot work under ptrace: in a sanitizer build the
        # leaks are checked by the runs without strace.
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    return subprocess.run([*WRAPPER, ctl, "check-image", *args], capture_output=True, text=True, timeout=120,
                          env=env, preexec_fn=preexec)


def run_json(ctl, *args, preexec=None):
    p = run(ctl, *args, "--json=short", preexec=preexec)
    try:
        return json.loads(p.stdout), p
    except ValueError:
        return None, p


def checked_files(ctl, root):
    """The files check-image looks at in @root, from its own list: a
    directory (ending in "/") stands for the files in it, here two."""
    doc, p = run_json(ctl, root)
    if not doc:
        raise SystemExit(f"check-image {root}: no JSON: {p.stdout!r} {p.stderr!r}")
    files = []
    for c in doc["checked"]:
        if c.endswith("/"):
            files += [c.strip("/") + "/seed.credit.x", c.strip("/") + "/other"]
        else:
            files.append(c.lstrip("/"))
    return files


def fill(top, files):
    """Every checked file, holding something every clone would share."""
    for rel in files:
        if rel.endswith("etc/machine-id") or rel.endswith("dbus/machine-id"):
            put(top, rel, MACHINE_ID, 0o444)
        else:
            put(top, rel, "shared bytes of " + rel)


def prefixes(files):
    """Every component of every path, as a path from the top: where a
    symlink, a bind mount or a ".." can stand."""
    out = set()
    for rel in files:
        parts = rel.split("/")
        for i in range(1, len(parts) + 1):
            out.add("/".join(parts[:i]))
    return sorted(out)


def as_nobody():
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
