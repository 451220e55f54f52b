#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""entropyctl check-image on trees prepared by an attacker (no privileges
needed; bind mounts are ci-check-image-mounts.py's). Beside the image, a
"host" tree stands for the building machine; it and this machine's own
seed and machine-id files must not change (content, mtime), whatever the
image holds:

- the attacks that once worked: Directory=/../../..HOST/aws in the
  image's configuration (check-image --fix removed HOST/aws/credentials),
  IMG/etc and IMG/var/lib symlinked to the host's and to this machine's;
- the class: for every path check-image looks at (from its own list, with
  a configured Directory= too), at every component, an absolute symlink to
  the host, a relative one climbing out with "..", and a Directory= with
  ".." at that component; each with --fix and without;
- hard links from the host into the image: --fix removes or replaces the
  name, never writes the file;
- this system's root as ROOT however spelled: --fix refused;
- every offending path reported once, however alike their details;
- a seed credential planted where systemd or systemd-stub passes it to
  every boot (a credential store, an ESP, beside a UKI): every clone
  would credit it once; reported, and removed by --fix;
- an image root too long for the paths below it: an error, no crash;
- the attacks again with openat2() failing (ENOSYS, injected with strace),
  as on kernels before 5.6: the resolver's rules by hand.

Usage: ci-check-image.py ENTROPYCTL CONF_FILE
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ci_tree as T  # noqa: E402

ctl, conf_file = os.path.abspath(sys.argv[1]), sys.argv[2]
conf_rel = conf_file.lstrip("/")
F = T.Failures()
HOST_FILES = []
UP = "../" * 40


def attempt(label, root, host, args, want_rc=1, must_report=None):
    """Run check-image on @root with @args: the host tree and this machine's
    files must not change; with @must_report, a finding whose detail holds it."""
    label = ("[by hand] " if T.WRAPPER else "") + label
    before, real = T.snapshot(host), T.snapshot_real()
    doc, p = T.run_json(ctl, root, *args)
    after, real_after = T.snapshot(host), T.snapshot_real()
    if not F.check(not T.diff(before, after), f"{label} {args}: the host tree changed: {T.diff(before, after)[:5]}"):
        # Put it back, so that the next attack is judged on its own.
        T.fill(host, HOST_FILES)
    F.check(not T.diff(real, real_after), f"{label} {args}: this machine's files changed: {T.diff(real, real_after)}")
    if not F.check(doc is not None, f"{label} {args}: no JSON: exit {p.returncode} {p.stdout!r} {p.stderr!r}"):
        return None
    F.check(p.returncode == want_rc, f"{label} {args}: exit {p.returncode}, expected {want_rc}: {p.stderr}")
    if must_report:
        F.check(any(must_report in f["detail"] for f in doc["findings"]),
                f"{label} {args}: nothing says {must_report!r}: {[f['detail'] for f in doc['findings']]}")
    return doc


with tempfile.TemporaryDirectory() as tmp:
    img, host = os.path.join(tmp, "img"), os.path.join(tmp, "host")

    def fresh(files):
        shutil.rmtree(img, ignore_errors=True)
        os.makedirs(img)
        T.fill(img, files)

    os.makedirs(img)
    files = T.checked_files(ctl, img)
    shutil.rmtree(host, ignore_errors=True)
    HOST_FILES[:] = files + ["aws/credentials", "aws/seed", "srv/eg/seed", "srv/eg/credentials"]
    T.fill(host, HOST_FILES)

    # The attacks with openat2() and with the resolver's rules by hand
    # (openat2() failing with ENOSYS, injected with strace).
    for T.WRAPPER in [[]] + ([T.BY_HAND] if T.have_strace() else []):
        # ---- The attacks that once worked.
        # Directory= leading out of the image with "..": the image's credential
        # memory is named "credentials", as is a cloud provider's key file.
        for directory in (UP + host.lstrip("/") + "/aws", "/.." * 40 + host + "/aws", "/var/lib/" + UP + host + "/aws",
                          "/srv/./eg", "/srv//eg", "/srv/eg/", "srv/eg"):
            for fix in ([], ["--fix"]):
                fresh(files)
                T.put(img, conf_rel, f"[Seed]\nDirectory={directory}\n")
                doc = attempt(f"Directory={directory}", img, host, fix)
                if doc:
                    F.check(doc["configuration_problem"] and doc["seed_directory"] == "/var/lib/entropy-gate",
                            f"Directory={directory}: {doc['configuration_problem']!r} {doc['seed_directory']!r}")
                    F.check(all(not f["path"].startswith("/aws") and ".." not in f["path"] for f in doc["findings"]),
                            f"Directory={directory}: {[f['path'] for f in doc['findings']]}")
        # IMG/etc and IMG/var/lib linked to the host's, and to this machine's.
        for rel in ("etc", "var/lib", "var", "var/lib/systemd", "etc/machine-id"):
            for target in (os.path.join(host, rel), "/" + rel, UP + host.lstrip("/") + "/" + rel):
                for fix in ([], ["--fix"], ["--fix", "--force"]):
                    fresh(files)
                    T.replace_with_link(img, rel, target)
                    attempt(f"{rel} -> {target}", img, host, fix, must_report=f"/{rel} is a symlink to {target}")
    T.WRAPPER = []

    # ---- The class: every component of every path check-image looks at.
    conf_files = files + ["srv/eg/seed", "srv/eg/credentials"]
    for configured in (False, True):
        fs = conf_files if configured else files
        for pre in T.prefixes(fs):
            if configured and not pre.startswith("srv"):
                continue
            for kind, target in (("absolute", os.path.join(host, pre)), ("climbing", UP + host.lstrip("/") + "/" + pre)):
                for fix in ([], ["--fix"]):
                    fresh(fs)
                    if configured:
                        T.put(img, conf_rel, "[Seed]\nDirectory=/srv/eg\n")
                    T.replace_with_link(img, pre, target)
                    if pre == "var/lib/dbus/machine-id":
                        # The one symlink that is a finding of its own:
                        # replaced (the name) by one to /etc/machine-id.
                        attempt(f"{kind} symlink at /{pre}", img, host, fix, want_rc=0 if fix else 1,
                                must_report=f"a symlink to {target}, not to /etc/machine-id")
                        continue
                    attempt(f"{kind} symlink at /{pre}", img, host, fix, must_report=f"/{pre} is a symlink to")
    # ".." at every component of the seed directory, and past the top.
    parts = ["srv", "eg"]
    for i in range(len(parts) + 1):
        for climb in (1, 2, 40):
            d = "/" + "/".join(parts[:i] + [".."] * climb) + host + "/srv/eg"
            for fix in ([], ["--fix"]):
                fresh(conf_files)
                T.put(img, conf_rel, f"[Seed]\nDirectory={d}\n")
                doc = attempt(f"Directory={d}", img, host, fix)
                F.check(doc and doc["configuration_problem"], f"Directory={d}: accepted")

    # ---- Hard links from the host: names removed or replaced, files never written.
    linked = [f for f in files if not f.endswith("/other")]
    for fix in ([], ["--fix"], ["--fix", "--machine-id=empty"]):
        fresh(files)
        for rel in linked:
            os.unlink(os.path.join(img, rel))
            os.link(os.path.join(host, rel), os.path.join(img, rel))
        doc = attempt("hard links", img, host, fix, want_rc=1 if not fix else 0)
        if fix and doc:
            for rel in linked:
                p = os.path.join(img, rel)
                F.check(not os.path.lexists(p) or os.stat(p).st_ino != os.stat(os.path.join(host, rel)).st_ino,
                        f"hard link {rel}: still the host's file after --fix")

    # ---- Each offending path once, however alike the details: two symlinks
    # whose paths agree in their first 1100 bytes, to the same target.
    long_dir = "/srv/" + "/".join(["d" * 200] * 6)
    fresh(files)
    T.put(img, conf_rel, f"[Seed]\nDirectory={long_dir}\n")
    for name in ("seed", "credentials"):
        os.makedirs(os.path.join(img, long_dir.lstrip("/")), exist_ok=True)
        os.symlink("/nowhere", os.path.join(img, long_dir.lstrip("/"), name))
    doc = attempt("long paths alike", img, host, [])
    if doc:
        got = sorted(f["path"] for f in doc["findings"] if f["path"].startswith(long_dir))
        F.check(got == [long_dir + "/credentials", long_dir + "/seed"], f"long paths alike: {got}")
        paths = [f["path"] for f in doc["findings"]]
        F.check(len(paths) == len(set(paths)), f"a path reported twice: {paths}")
    # A Directory= as long as a path may be: the JSON names each file by its
    # whole path, never one cut short ("credentials" as "cred").
    max_parts = ["srv"] + ["m" * 250] * 16 + ["n" * 69]
    max_dir = "/" + "/".join(max_parts)
    fresh(files)
    T.put(img, conf_rel, f"[Seed]\nDirectory={max_dir}\n")
    fd = os.open(img, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in max_parts:
            os.mkdir(part, dir_fd=fd)
            nfd = os.open(part, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = nfd
        for name in ("seed", "credentials"):
            os.close(os.open(name, os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd))
    finally:
        os.close(fd)
    doc = attempt("a Directory= of PATH_MAX", img, host, [])
    if doc:
        got = sorted(f["path"] for f in doc["findings"] if f["path"].startswith(max_dir))
        F.check(got == [max_dir + "/credentials", max_dir + "/seed"],
                f"a Directory= of PATH_MAX: {[p[len(max_dir):] for p in got]}")
        got = sorted(c for c in doc["checked"] if c.startswith(max_dir))
        F.check(got == [max_dir + "/credentials", max_dir + "/seed"],
                f"a Directory= of PATH_MAX, checked: {[p[len(max_dir):] for p in got]}")
    shutil.rmtree(img)
    # A Directory= naming a file another check looks at: the walk to the
    # seed stops there ("not a directory", or a symlink), and that file is
    # still reported as what it is and fixed; once per path must never
    # hide it behind the walk it stopped.
    for rel in [f for f in files if not f.startswith("var/lib/entropy-gate/") and
                not f.endswith(("/seed.credit.x", "/other"))]:
        for link in (False, True):
            fresh(files)
            T.put(img, conf_rel, f"[Seed]\nDirectory=/{rel}\n")
            if link:
                T.replace_with_link(img, rel, "/nowhere")
            left = link and not rel.endswith("dbus/machine-id")
            doc = attempt(f"Directory=/{rel}{' (a symlink)' if link else ''}", img, host, ["--fix"],
                          want_rc=1 if left else 0)
            if not doc:
                continue
            mine = [f for f in doc["findings"] if f["path"] == "/" + rel]
            p = os.path.join(img, rel)
            if left:
                # A symlink there is left for a person, reported once.
                F.check(os.path.islink(p), f"Directory=/{rel}: the symlink changed")
                continue
            F.check(len(mine) == 1 and mine[0]["fixed"],
                    f"Directory=/{rel}{' (a symlink)' if link else ''}: /{rel} not reported and fixed: "
                    f"{[(f['path'], f['detail'], f['fixed']) for f in doc['findings']]}")
            if rel.endswith("dbus/machine-id"):
                F.check(os.readlink(p) == "/etc/machine-id", f"Directory=/{rel}: not replaced by a symlink")
            elif rel.endswith("etc/machine-id"):
                F.check(open(p).read() == "uninitialized\n", f"Directory=/{rel}: not reset")
            else:
                F.check(not os.path.lexists(p), f"Directory=/{rel}: not removed")
    # One symlink on the way to several paths: one finding.
    fresh(files)
    T.replace_with_link(img, "boot", "/nowhere")
    doc = attempt("one symlink, many paths", img, host, [])
    if doc:
        n = [f for f in doc["findings"] if f["detail"].startswith("/boot is a symlink")]
        F.check(len(n) == 1, f"/boot reported {len(n)} times")
    # The image's configuration where its package puts it, whatever this
    # build's prefix: a Directory= there is the directory checked, so its
    # seed is found (a build that read ROOT/usr/local/etc found nothing).
    if conf_file == "/etc/entropy-gate.conf":
        fresh(conf_files)
        T.put(img, "etc/entropy-gate.conf", "[Seed]\nDirectory=/srv/eg\n")
        doc = attempt("a package's configuration", img, host, [])
        if doc:
            F.check(doc["seed_directory"] == "/srv/eg" and
                    any(f["path"] == "/srv/eg/seed" for f in doc["findings"]),
                    f"a package's configuration: {doc['seed_directory']!r} "
                    f"{[f['path'] for f in doc['findings']]}")
    else:
        print(f"note: this build reads {conf_file} (ENTROPY_GATE_CONF_FILE), not /etc/entropy-gate.conf: "
              "the package's path is not checked")

    # ---- This system's root, however spelled: --fix refused. As nobody
    # when root: were the refusal to fail, nothing of this machine's could
    # be written.
    public = tempfile.mkdtemp()
    try:
        os.chmod(public, 0o755)
        os.symlink("/", os.path.join(public, "to-slash"))
        os.symlink("/proc/self/root", os.path.join(public, "to-proc-self-root"))
        for r in ("/", "//", "/.", "/./", "/proc/self/root", "/proc/self/root/.",
                  os.path.join(public, "to-slash"), os.path.join(public, "to-proc-self-root"), "/etc/..", "/var/../"):
            for args in ([r, "--fix"], ["--root=" + r, "--fix", "--machine-id=empty"], [r, "--fix", "--cross-mounts"]):
                before = T.snapshot_real()
                p = T.run(ctl, *args, preexec=T.as_nobody)
                F.check(p.returncode == 1 and p.stderr.startswith("entropyctl: Refusing --fix on") and not p.stdout,
                        f"{args}: exit {p.returncode} {p.stderr!r} {p.stdout[:200]!r}")
                F.check(not T.diff(before, T.snapshot_real()), f"{args}: this machine's files changed")
    finally:
        shutil.rmtree(public)

# ---- Nothing but a regular file is opened: a device (its driver's open()
# has effects: a watchdog's node arms the host's watchdog) or a FIFO at the
# configuration's path or a drop-in's is reported, never opened.
def opened_for_reading(log, name):
    with open(log) as f:
        return [line.strip() for line in f
                if (f'"{name}"' in line or f'/{name}"' in line) and
                not any(flag in line for flag in ("O_PATH", "O_DIRECTORY", "O_CREAT"))]


with tempfile.TemporaryDirectory() as tmp:
    img = os.path.join(tmp, "img")
    kinds = ["fifo"] + (["chr"] if os.geteuid() == 0 else [])
    for rel in (conf_rel, conf_rel + ".d/10-x.conf"):
        for kind in kinds:
            shutil.rmtree(img, ignore_errors=True)
            T.put(img, "etc/machine-id", "uninitialized\n", 0o444)
            p = os.path.join(img, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            if kind == "chr":
                os.mknod(p, 0o644 | 0o020000, os.makedev(1, 5))     # /dev/zero's numbers
            else:
                os.mkfifo(p)
            for fix in ([], ["--fix"]):
                doc, proc = T.run_json(ctl, img, *fix)
                if not F.check(doc is not None, f"{kind} at /{rel} {fix}: no JSON: {proc.returncode} {proc.stderr!r}"):
                    continue
                F.check(proc.returncode == 1 and doc["configuration_problem"] and
                        "not a regular file" in doc["configuration_problem"],
                        f"{kind} at /{rel} {fix}: exit {proc.returncode}, {doc['configuration_problem']!r}")
            if T.have_strace():
                log = os.path.join(tmp, "strace.log")
                proc = subprocess.run(["strace", "-f", "-qq", "-o", log, "-e", "trace=open,openat,openat2", ctl,
                                       "check-image", img], capture_output=True, text=True, timeout=120,
                                      env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
                bad = opened_for_reading(log, os.path.basename(rel))
                F.check(not bad, f"{kind} at /{rel}: opened for reading: {bad}")

    # ---- A broken configuration names no directory to trust, whatever its
    # Directory= says: only the default one is checked and fixed.
    shutil.rmtree(img, ignore_errors=True)
    T.put(img, "etc/machine-id", "uninitialized\n", 0o444)
    T.put(img, "root/.aws/credentials", "aws_secret_access_key=x\n")
    T.put(img, "var/lib/entropy-gate/seed", "seed bytes")
    T.put(img, conf_rel, "[Seed]\nDirectory=/root/.aws\nNoSuchKey=1\n")
    for fix in ([], ["--fix"]):
        doc, proc = T.run_json(ctl, img, *fix)
        if F.check(doc is not None, f"broken configuration {fix}: no JSON: {proc.stderr!r}"):
            F.check(proc.returncode == 1 and doc["configuration_problem"] and
                    doc["seed_directory"] == "/var/lib/entropy-gate",
                    f"broken configuration {fix}: exit {proc.returncode}, {doc['seed_directory']!r}")
            F.check(all(not f["path"].startswith("/root") for f in doc["findings"]),
                    f"broken configuration {fix}: {[f['path'] for f in doc['findings']]}")
        F.check(os.path.exists(os.path.join(img, "root/.aws/credentials")),
                f"broken configuration {fix}: /root/.aws/credentials removed")
    F.check(not os.path.exists(os.path.join(img, "var/lib/entropy-gate/seed")),
            "broken configuration --fix: the default directory's seed was left")
    p = T.run(ctl, img, "--fix")
    F.check("only /var/lib/entropy-gate was checked and fixed" in p.stdout, f"broken configuration: {p.stdout!r}")

    # ---- One root per run: a second one is a usage error, never a silent choice.
    other = os.path.join(tmp, "other")
    os.makedirs(other)
    for args in (["--root=" + img, "--root=" + other], [img, "--root=" + other]):
        p = subprocess.run([ctl, "check-image", *args], capture_output=True, text=True, timeout=60)
        F.check(p.returncode == 2 and "once" in p.stderr, f"{args}: exit {p.returncode} {p.stderr!r}")

    # ---- A directory that cannot be read to its end fails the check: a
    # seed past the failure would otherwise be missed and "clean" said.
    if T.have_strace():
        shutil.rmtree(img, ignore_errors=True)
        T.put(img, "etc/machine-id", "uninitialized\n", 0o444)
        T.put(img, "var/lib/seedrng/seed.credit", "seed bytes")
        p = subprocess.run(["strace", "-f", "-qq", "-o", "/dev/null", "-e", "inject=getdents64:error=EIO", ctl,
                            "check-image", img], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
        F.check(p.returncode == 1 and "Input/output error" in p.stderr and "clean" not in p.stdout,
                f"unreadable directory: exit {p.returncode} {p.stdout!r} {p.stderr!r}")
    else:
        print("SKIP (this case only): no strace to make a directory unreadable")

    # ---- Started with stdin, stdout and stderr closed: --fix writes into
    # the image while it prints, and no file of the image is opened at 0, 1
    # or 2, where what it prints would land.
    if T.have_strace():
        shutil.rmtree(img, ignore_errors=True)
        T.put(img, "etc/machine-id", "0123456789abcdef0123456789abcdef\n", 0o444)
        T.put(img, "var/lib/entropy-gate/seed", "seed bytes")
        log = os.path.join(tmp, "stdio.strace")
        p = subprocess.run(["strace", "-f", "-qq", "-o", log, "-e", "trace=open,openat,openat2",
                            "sh", "-c", 'exec "$0" "$@" <&- >&- 2>&-', ctl, "check-image", "--fix", img],
                           capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
        with open(log) as f:
            low = [line.strip() for line in f
                   if img in line and line.rstrip().endswith((") = 0", ") = 1", ") = 2"))]
        F.check(p.returncode == 0 and not low, f"stdio closed: exit {p.returncode}, opened at 0-2: {low}")
        with open(os.path.join(img, "etc/machine-id")) as f:
            F.check(f.read() == "uninitialized\n", "stdio closed: /etc/machine-id not reset to 'uninitialized'")
    else:
        print("SKIP (this case only): no strace to see the numbers files are opened at")

    # ---- A seed credential planted in the image: systemd's LoadCredential=
    # finds entropy-gate.seed in a credential store when no hypervisor
    # passes one, and systemd-stub hands one on the ESP to every boot. Each
    # clone, its memory of credited credentials fresh (--fix removes the
    # image's), would credit the same bytes once, on its first boot: a
    # finding, removed by --fix, the name only.
    stores = ["etc/credstore", "etc/credstore.encrypted", "usr/lib/credstore", "usr/lib/credstore.encrypted",
              "usr/local/lib/credstore", "usr/local/lib/credstore.encrypted"]
    planted = [d + "/entropy-gate.seed" for d in stores] + \
        [esp + "/loader/credentials/entropy-gate.seed.cred" for esp in ("efi", "boot", "boot/efi")] + \
        [esp + "/EFI/Linux/debian.efi.extra.d/entropy-gate.seed.cred" for esp in ("efi", "boot", "boot/efi")]
    for rel in planted:
        for fix in ([], ["--fix"]):
            shutil.rmtree(img, ignore_errors=True)
            T.put(img, "etc/machine-id", "uninitialized\n", 0o444)
            T.put(img, rel, os.urandom(64))
            T.put(host, "srv/cred", "host credential")
            os.link(os.path.join(host, "srv/cred"), os.path.join(img, rel + ".other"))
            if ".efi.extra.d" in rel:
                # Beside the UKI's own directory: a file of that name, and
                # a link to the host's directory, which is reported.
                uki = os.path.dirname(os.path.dirname(rel))
                T.put(img, uki + "/other.efi.extra.d", "not a directory")
                os.symlink(os.path.join(host, "srv"), os.path.join(img, uki, "host.efi.extra.d"))
                T.put(host, "srv/entropy-gate.seed.cred", "host credential")
            doc = attempt(f"seed credential /{rel}", img, host, fix,
                          want_rc=0 if fix and ".efi.extra.d" not in rel else 1)
            if doc:
                got = [(f["path"], f["kind"], f["action"]) for f in doc["findings"] if f["state"] == "found"]
                F.check(got == [("/" + rel, "seed-credential", "remove")], f"seed credential /{rel}: {got}")
                if ".efi.extra.d" in rel:
                    F.check([f["detail"] for f in doc["findings"] if f["state"] != "found"] ==
                            [f"/{uki}/host.efi.extra.d is a symlink to {host}/srv: not followed"],
                            f"seed credential /{rel}: {doc['findings']}")
            F.check(os.path.exists(os.path.join(img, rel)) != bool(fix),
                    f"seed credential /{rel} {fix}: {'left' if fix else 'removed'}")
    os.unlink(os.path.join(host, "srv/cred"))
    os.unlink(os.path.join(host, "srv/entropy-gate.seed.cred"))

    # ---- An image root too long for the paths below it to be named: a
    # clear error, nothing touched (it once crashed freeing a configuration
    # never read).
    deep = os.path.join(tmp, *(["r" * 200] * ((3900 - len(tmp)) // 201)))
    deep = os.path.join(deep, "r" * (3900 - len(deep) - 1))
    os.makedirs(os.path.join(deep, "var/lib/entropy-gate"))
    T.put(deep, "var/lib/entropy-gate/seed", os.urandom(64))
    for args in ([], ["--fix"], ["--json=short"]):
        p = subprocess.run([ctl, "check-image", *args, deep], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        F.check(p.returncode == 1 and "File name too long" in p.stderr,
                f"a root of 3900 bytes {args}: exit {p.returncode}: {p.stderr[-200:]}")
    F.check(os.path.exists(os.path.join(deep, "var/lib/entropy-gate/seed")), "a root of 3900 bytes: seed removed")

F.exit("ci-check-image")
