#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""entropyctl check-image on trees with mounts inside them (needs root: it
makes bind mounts, in a mount namespace of its own that vanishes with it).
Beside the image, a "host" tree stands for the building machine; it and
this machine's own seed and machine-id files must not change:

- the attacks that once worked: the host's etc and var/lib bind-mounted
  into the image (--fix, without --force, reset the host's machine ID and
  removed its seed);
- the class: a bind mount of the host's file or directory at every
  component of every path check-image looks at, a tmpfs at each directory,
  with --fix, --fix --force and without: reported as a mount point, never
  crossed, never changed; with --cross-mounts they are walked (as
  documented), but never a directory that is this system's own;
- this system's root bind-mounted as ROOT, and inside the image: refused,
  not crossed;
- the attacks and the class again with openat2() failing (ENOSYS, injected
  with strace), as on kernels before 5.6: the resolver's rules by hand.

Usage: ci-check-image-mounts.py ENTROPYCTL
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ci_tree as T  # noqa: E402

ctl = os.path.abspath(sys.argv[1])
if os.geteuid() != 0:
    print("SKIP: needs root to make bind mounts (run the suite as root, as .ci/run does)")
    sys.exit(77)
if os.environ.get("CI_TREE_NAMESPACE") != "1":
    # A mount namespace of our own: no mount outlives the test, whatever happens.
    env = dict(os.environ, CI_TREE_NAMESPACE="1")
    try:
        sys.exit(subprocess.run(["unshare", "--mount", "--propagation", "private", sys.executable,
                                 os.path.abspath(__file__), *sys.argv[1:]], env=env).returncode)
    except FileNotFoundError:
        print("SKIP: needs unshare (util-linux)")
        sys.exit(77)

F = T.Failures()
HOST_FILES = []


def mount(*args):
    p = subprocess.run(["mount", *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"FAIL: mount {args}: {p.stderr.strip()}")


def umount(path):
    subprocess.run(["umount", "-l", path], check=False)


def attempt(label, root, host, args, want_rc=1, must_report=None, preexec=None):
    label = ("[by hand] " if T.WRAPPER else "") + label
    before, real = T.snapshot(host), T.snapshot_real()
    doc, p = T.run_json(ctl, root, *args, preexec=preexec)
    after, real_after = T.snapshot(host), T.snapshot_real()
    if not F.check(not T.diff(before, after), f"{label} {args}: the host tree changed: {T.diff(before, after)[:5]}"):
        # Put it back, so that the next attack is judged on its own.
        T.fill(host, HOST_FILES)
    F.check(not T.diff(real, real_after), f"{label} {args}: this machine's files changed: {T.diff(real, real_after)}")
    if not F.check(doc is not None, f"{label} {args}: no JSON: exit {p.returncode} {p.stdout!r} {p.stderr!r}"):
        return None
    F.check(want_rc is None or p.returncode == want_rc, f"{label} {args}: exit {p.returncode}, expected {want_rc}: {p.stderr}")
    if must_report:
        F.check(any(must_report in f["detail"] for f in doc["findings"]),
                f"{label} {args}: nothing says {must_report!r}: {[f['detail'] for f in doc['findings']]}")
    return doc


tmp = tempfile.mkdtemp()
os.chmod(tmp, 0o755)
try:
    img, host = os.path.join(tmp, "img"), os.path.join(tmp, "host")

    def fresh(files):
        shutil.rmtree(img, ignore_errors=True)
        os.makedirs(img)
        T.fill(img, files)

    os.makedirs(img)
    files = T.checked_files(ctl, img)
    HOST_FILES[:] = files
    T.fill(host, files)

    resolvers = [("openat2", [])] + ([("by hand", T.BY_HAND)] if T.have_strace() else [])
    for resolver, T.WRAPPER in resolvers:
        print(f"-- resolver: {resolver}", flush=True)
        # ---- The attacks that once worked: the host's /etc and /var/lib bound in.
        for binds in (["etc"], ["var/lib"], ["etc", "var/lib"]):
            for fix in ([], ["--fix"], ["--fix", "--force"]):
                fresh(files)
                for b in binds:
                    mount("--bind", os.path.join(host, b), os.path.join(img, b))
                doc = attempt(f"bind mounts of {binds}", img, host, fix, must_report=f"/{binds[0]} is a mount point")
                if doc:
                    F.check(all(f["state"] == "mount-point" for f in doc["findings"]
                                if any(f["path"].startswith("/" + b + "/") for b in binds)),
                            f"bind mounts of {binds}: a finding below a mount point: {doc['findings']}")
                for b in binds:
                    umount(os.path.join(img, b))

        # ---- The class: a bind mount at every component of every checked path.
        for pre in T.prefixes(files):
            for fix in ([], ["--fix"], ["--fix", "--force"]):
                fresh(files)
                mount("--bind", os.path.join(host, pre), os.path.join(img, pre))
                attempt(f"bind mount at /{pre}", img, host, fix, must_report=f"/{pre} is a mount point")
                umount(os.path.join(img, pre))
            if os.path.isdir(os.path.join(host, pre)):
                # Another file system: told apart by its device, not only its mount.
                fresh(files)
                mount("-t", "tmpfs", "tmpfs", os.path.join(img, pre))
                T.put(os.path.join(img, pre), "machine-id", T.MACHINE_ID)
                T.put(os.path.join(img, pre), "random-seed")
                inside = T.snapshot(os.path.join(img, pre))
                attempt(f"tmpfs at /{pre}", img, host, ["--fix"], must_report=f"/{pre} is a mount point")
                F.check(not T.diff(inside, T.snapshot(os.path.join(img, pre))), f"tmpfs at /{pre}: changed")
                umount(os.path.join(img, pre))
    T.WRAPPER = []

    # With --cross-mounts a mount is walked as the tree: the image's own ESP, say.
    fresh([])
    esp = os.path.join(tmp, "esp")
    T.put(esp, "loader/random-seed")
    os.makedirs(os.path.join(img, "boot/efi"))
    mount("--bind", esp, os.path.join(img, "boot/efi"))
    attempt("ESP mounted", img, host, ["--fix"], must_report="/boot/efi is a mount point")
    F.check(os.path.exists(os.path.join(esp, "loader/random-seed")), "ESP: crossed without --cross-mounts")
    attempt("ESP mounted", img, host, ["--fix", "--cross-mounts"], want_rc=0)
    F.check(not os.path.exists(os.path.join(esp, "loader/random-seed")), "ESP: not fixed with --cross-mounts")
    umount(os.path.join(img, "boot/efi"))

    # ---- This system's own directories. As nobody: were a refusal to
    # fail, nothing of this machine's could be written.
    os.chmod(tmp, 0o755)
    for rel in ("etc", "var/lib", "var"):
        if not os.path.isdir("/" + rel):
            continue
        for args in (["--fix"], ["--fix", "--cross-mounts"]):
            fresh([])
            os.makedirs(os.path.join(img, rel), exist_ok=True)
            mount("--bind", "/" + rel, os.path.join(img, rel))
            doc = attempt(f"this system's /{rel} bound in", img, host, args, preexec=T.as_nobody,
                          want_rc=None if "--cross-mounts" in args else 1)
            if doc and "--cross-mounts" not in args:
                F.check(all(f["state"] == "mount-point" for f in doc["findings"]), f"/{rel}: {doc['findings']}")
            if doc and "--cross-mounts" in args:
                for f in doc["findings"]:
                    if f["action"]:
                        F.check(not f["fixed"] and "this system's own file" in (f["error"] or ""),
                                f"this system's /{rel} with --cross-mounts: {f}")
            umount(os.path.join(img, rel))
    # This system's root bound as ROOT, and inside the image.
    slash = os.path.join(tmp, "slash")
    os.makedirs(slash)
    for how in ("--bind", "--rbind"):
        mount(how, "/", slash)
        for args in ([slash, "--fix"], [slash + "/.", "--fix", "--cross-mounts"]):
            before = T.snapshot_real()
            p = T.run(ctl, *args, preexec=T.as_nobody)
            F.check(p.returncode == 1 and p.stderr.startswith("entropyctl: Refusing --fix on"),
                    f"/ {how} as ROOT {args}: exit {p.returncode} {p.stderr!r}")
            F.check(not T.diff(before, T.snapshot_real()), f"/ {how} as ROOT: this machine's files changed")
        umount(slash)
    fresh([])
    os.makedirs(os.path.join(img, "var"))
    mount("--bind", "/", os.path.join(img, "var"))
    for args in (["--fix"], ["--fix", "--force"]):
        attempt("/ bound at /var", img, host, args, preexec=T.as_nobody, must_report="/var is a mount point")
    umount(os.path.join(img, "var"))
finally:
    subprocess.run(["umount", "-R", "-l", tmp], stderr=subprocess.DEVNULL)
    shutil.rmtree(tmp, ignore_errors=True)

F.exit("ci-check-image-mounts")
