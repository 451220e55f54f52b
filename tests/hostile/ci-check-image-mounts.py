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
  crossed, never changed; with --cross-mounts only a file system that is
  mounted nowhere outside the tree is walked (an ESP, a tmpfs mounted into
  the image), never a directory of the host's bound in (the host's /dev
  under a configured Directory=/dev, a "host" file system rbind-mounted
  into the image), never one that is this system's own;
- reads across mount points: a configuration drop-in linked through a
  mount point, the tree's /proc/cmdline (never read: it would be this
  machine's);
- this system's root bind-mounted as ROOT, and inside the image: refused,
  not crossed;
- the attacks and the class again with openat2() failing (ENOSYS, injected
  with strace), as on kernels before 5.6: the resolver's rules by hand.

Usage: ci-check-image-mounts.py ENTROPYCTL CONF_FILE
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ci_tree as T  # noqa: E402

ctl = os.path.abspath(sys.argv[1])
conf_rel = (sys.argv[2] if len(sys.argv) > 2 else "/usr/local/etc/entropy-gate.conf").lstrip("/")
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

    FOREIGN = "also mounted outside the tree"
    for resolver, T.WRAPPER in resolvers:
        print(f"-- --cross-mounts, resolver: {resolver}", flush=True)
        # With --cross-mounts a file system mounted only in the tree is
        # walked as the tree: the image's own ESP, say.
        fresh([])
        os.makedirs(os.path.join(img, "boot/efi"))
        mount("-t", "tmpfs", "tmpfs", os.path.join(img, "boot/efi"))
        T.put(img, "boot/efi/loader/random-seed")
        attempt("ESP mounted", img, host, ["--fix"], must_report="/boot/efi is a mount point")
        F.check(os.path.exists(os.path.join(img, "boot/efi/loader/random-seed")), "ESP: crossed without --cross-mounts")
        attempt("ESP mounted", img, host, ["--fix", "--cross-mounts"], want_rc=0)
        F.check(not os.path.exists(os.path.join(img, "boot/efi/loader/random-seed")), "ESP: not fixed with --cross-mounts")
        umount(os.path.join(img, "boot/efi"))
        # A tmpfs mounted only at /var/lib: the image's own /var partition.
        fresh([])
        os.makedirs(os.path.join(img, "var/lib"))
        mount("-t", "tmpfs", "tmpfs", os.path.join(img, "var/lib"))
        T.put(img, "var/lib/entropy-gate/seed")
        attempt("tmpfs at /var/lib", img, host, ["--fix", "--cross-mounts"], want_rc=0)
        F.check(not os.path.exists(os.path.join(img, "var/lib/entropy-gate/seed")), "tmpfs at /var/lib: not fixed")
        umount(os.path.join(img, "var/lib"))

        # But a directory of the host's, bound in, never: the same ESP as a
        # host directory, and the host's /dev under Directory=/dev.
        fresh([])
        esp = os.path.join(tmp, "esp")
        T.put(esp, "loader/random-seed")
        os.makedirs(os.path.join(img, "boot/efi"))
        mount("--bind", esp, os.path.join(img, "boot/efi"))
        attempt("host directory as ESP", img, esp, ["--fix", "--cross-mounts"], must_report=FOREIGN)
        F.check(os.path.exists(os.path.join(esp, "loader/random-seed")), "host directory as ESP: changed")
        umount(os.path.join(img, "boot/efi"))
        shutil.rmtree(esp)

        fresh([])
        hostdev = os.path.join(tmp, "hostdev")
        T.put(hostdev, "seed")
        T.put(hostdev, "credentials")
        T.put(img, conf_rel, "[Seed]\nDirectory=/dev\n")
        os.makedirs(os.path.join(img, "dev"))
        mount("--bind", hostdev, os.path.join(img, "dev"))
        attempt("host /dev under Directory=/dev", img, hostdev, ["--fix", "--cross-mounts"], must_report=FOREIGN)
        umount(os.path.join(img, "dev"))
        shutil.rmtree(hostdev)

        # A "host" file system of its own (a tmpfs mounted outside the tree,
        # standing for this machine's /) rbind-mounted into the image, and
        # Directory= through it.
        fresh([])
        hostfs = os.path.join(tmp, "hostfs")
        os.makedirs(hostfs, exist_ok=True)
        mount("-t", "tmpfs", "tmpfs", hostfs)
        T.fill(hostfs, HOST_FILES)
        T.put(hostfs, "var/lib/entropy-gate/seed")
        T.put(img, conf_rel, "[Seed]\nDirectory=/host/var/lib/entropy-gate\n")
        os.makedirs(os.path.join(img, "host"), exist_ok=True)
        mount("--rbind", hostfs, os.path.join(img, "host"))
        for args in (["--fix", "--cross-mounts"], ["--fix", "--cross-mounts", "--force"]):
            attempt("host file system rbind-mounted at /host", img, hostfs, args, must_report=FOREIGN)
        umount(os.path.join(img, "host"))
        umount(hostfs)

        # An overlayfs mounted only at /var: its anonymous device is mounted
        # nowhere else, but its upper directory (where writes land) and its
        # lower one are directories outside the tree: refused by its type.
        fresh([])
        ovl, ovlwork = os.path.join(tmp, "ovl"), os.path.join(tmp, "ovlwork")
        for d in ("lower", "upper"):
            T.put(os.path.join(ovl, d), "lib/entropy-gate/seed")
            T.put(os.path.join(ovl, d), "lib/systemd/random-seed")
        os.makedirs(ovlwork, exist_ok=True)
        os.makedirs(os.path.join(img, "var"), exist_ok=True)
        mount("-t", "overlay", "overlay", "-o", f"lowerdir={ovl}/lower,upperdir={ovl}/upper,workdir={ovlwork}",
              os.path.join(img, "var"))
        for args in (["--fix", "--cross-mounts"], ["--fix", "--cross-mounts", "--force"]):
            attempt("overlayfs at /var, upper directory outside the tree", img, ovl, args,
                    must_report="(overlay, FUSE, network)")
        umount(os.path.join(img, "var"))
        shutil.rmtree(ovl)
        shutil.rmtree(ovlwork)
    T.WRAPPER = []

    # ---- Reads across mount points: a drop-in linked through one.
    for resolver, T.WRAPPER in resolvers:
        fresh([])
        evil = os.path.join(tmp, "evil")
        T.put(evil, "evil.conf", "[Seed]\nDirectory=/from-host\n")
        os.makedirs(os.path.join(img, "mnt"))
        os.makedirs(os.path.join(img, conf_rel + ".d"))
        os.symlink("/mnt/evil.conf", os.path.join(img, conf_rel + ".d", "10.conf"))
        mount("--bind", evil, os.path.join(img, "mnt"))
        doc = attempt(f"drop-in through a mount point ({resolver})", img, evil, [])
        if doc:
            F.check(doc["seed_directory"] != "/from-host" and doc["configuration_problem"] and
                    "mount point" in doc["configuration_problem"],
                    f"drop-in through a mount point ({resolver}): read: {doc['seed_directory']!r} "
                    f"{doc['configuration_problem']!r}")
        umount(os.path.join(img, "mnt"))
        shutil.rmtree(evil)
    T.WRAPPER = []
    # The tree's /proc/cmdline is not the image's kernel command line (a
    # procfs mounted there is this machine's): never read.
    fresh([])
    T.put(img, "proc/cmdline", "entropy_gate.credit=bogus\n")
    doc = attempt("a /proc/cmdline in the tree", img, host, [], want_rc=0)
    if doc:
        F.check(doc["configuration_problem"] is None, f"/proc/cmdline in the tree was read: {doc['configuration_problem']!r}")

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
                    F.check(not f["fixed"] and (FOREIGN in f["detail"] or "this system's own file" in (f["error"] or "")),
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
