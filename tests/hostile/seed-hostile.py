#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""entropy-seed against a hostile tree and hostile inputs.

usage: seed-hostile.py ENTROPY_SEED_FAKEPOOL SEED_INSPECT CONF_FILE

Each case is an attack on a promise of docs/design.md ("Hostile trees and
inputs"), run with the scripted pool of tests/fake/pool-fake.c in temporary
trees (the harness of tests/cli/seed-cli.py): never the host's pool. Where an
attack aims at files outside the tree, a canary tree stands for the build
host: every file in it is hashed, with its mtime, before and after, and
nothing may change. Cases that need bind mounts run in a mount namespace of
their own. Needs root (root-owned seeds, mounts): exits 77 otherwise.
"""
import hashlib
import importlib.util
import os
import shutil
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("seed_cli", os.path.join(HERE, "..", "cli", "seed-cli.py"))
cli = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cli)
Env, Failed, check, SEED_BIN = cli.Env, cli.Failed, cli.check, cli.SEED_BIN

CASES = []


def case(fn):
    CASES.append(fn)
    return fn


class Canary:
    """A stand-in for the build host's files: its own /etc/machine-id, a seed
    directory with a seed, and a secret, all hashed with their mtimes."""

    def __init__(self, top):
        self.dir = os.path.join(top, "host")
        for rel, data, mode in (("etc/machine-id", b"0123456789abcdef0123456789abcdef\n", 0o444),
                                ("var/lib/entropy-gate/seed", os.urandom(100), 0o600),
                                ("var/lib/entropy-gate/credentials", os.urandom(50), 0o600),
                                ("root/.aws/credentials", b"[default]\naws_secret_access_key=x\n", 0o600)):
            p = os.path.join(self.dir, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(data)
            os.chmod(p, mode)
        os.chmod(os.path.join(self.dir, "var/lib/entropy-gate"), 0o700)
        self.before = self.state()

    def state(self):
        out = {}
        for d, dirs, files in os.walk(self.dir):
            for name in dirs + files:
                p = os.path.join(d, name)
                st = os.lstat(p)
                h = ""
                if os.path.isfile(p) and not os.path.islink(p):
                    with open(p, "rb") as f:
                        h = hashlib.sha256(f.read()).hexdigest()
                out[os.path.relpath(p, self.dir)] = (h, st.st_mtime_ns, st.st_mode, st.st_nlink)
        return out

    def unchanged(self, what, ctx=""):
        after = self.state()
        changed = sorted(k for k in set(self.before) | set(after) if self.before.get(k) != after.get(k))
        check(not changed, f"{what}: files outside the tree changed: {changed}", ctx)


def run(args, env, timeout=20, cwd=None):
    p = subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout, cwd=cwd)
    return p.returncode, p.stdout + p.stderr


def in_namespace(script, env):
    """Run a shell script in a mount namespace of its own (bind mounts that
    vanish with it)."""
    return run(["unshare", "--mount", "--propagation", "private", "sh", "-euc", script], env, timeout=60)


def image(top, name="img"):
    """An image tree as an image builder has it, with a valid machine-id."""
    img = os.path.join(top, name)
    for d in ("etc", "var/lib", "run", "proc/sys/kernel/random"):
        os.makedirs(os.path.join(img, d), exist_ok=True)
    with open(os.path.join(img, "etc/machine-id"), "w") as f:
        f.write("fedcba9876543210fedcba9876543210\n")
    return img


# --- provision: writes never leave the tree ---------------------------------------

def provision(e, img, *extra):
    return run([SEED_BIN, "provision", "--root=" + img, *extra], e.env)


@case
def provision_through_symlinked_etc(e):
    # IMG/etc is a link to the host's /etc: a write to /etc/machine-id must
    # stay in the tree (the link resolves inside it, where it leads nowhere).
    host = Canary(e.top)
    img = image(e.top)
    shutil.rmtree(os.path.join(img, "etc"))
    os.symlink(os.path.join(host.dir, "etc"), os.path.join(img, "etc"))
    rc, out = provision(e, img, "--machine-id=00112233445566778899aabbccddeeff")
    check(rc == 1, f"provision through a link to the host's /etc exited {rc}", out)
    host.unchanged("provision --machine-id with IMG/etc -> host /etc", out)


@case
def provision_through_symlinked_var_lib(e):
    host = Canary(e.top)
    img = image(e.top)
    shutil.rmtree(os.path.join(img, "var/lib"))
    os.symlink(os.path.join(host.dir, "var/lib"), os.path.join(img, "var/lib"))
    rc, out = provision(e, img)
    check(rc == 1, f"provision through a link to the host's /var/lib exited {rc}", out)
    host.unchanged("provision with IMG/var/lib -> host /var/lib", out)
    # Relative spellings of the same way out.
    os.unlink(os.path.join(img, "var/lib"))
    os.symlink(os.path.relpath(os.path.join(host.dir, "var/lib"), os.path.join(img, "var")),
               os.path.join(img, "var/lib"))
    rc, out = provision(e, img)
    check(rc == 1, f"provision through a relative link out of the tree exited {rc}", out)
    host.unchanged("provision with IMG/var/lib -> ../../host/var/lib", out)


@case
def provision_directory_dotdot_in_image_config(e):
    # The image's own configuration names a directory above the tree.
    host = Canary(e.top)
    img = image(e.top)
    depth = "/.." * (os.path.join(img).count("/") + 2)
    conf = img + cli.CONF_FILE
    os.makedirs(os.path.dirname(conf), exist_ok=True)
    with open(conf, "w") as f:
        f.write(f"[Seed]\nDirectory={depth}{host.dir}/var/lib/entropy-gate\n")
    rc, out = provision(e, img)
    check(rc == 1 and "Directory=" in out, f"provision with Directory=/../.. exited {rc}", out)
    host.unchanged("provision with Directory=/../..", out)
    check(not os.path.exists(os.path.join(img, "var/lib/entropy-gate/seed")),
          "provision wrote a seed although the image's configuration is broken", out)


@case
def provision_directory_names_a_shared_directory(e):
    # A careless (or hostile) image configuration names one of the image's
    # own shared directories. provision used to make it root's with mode
    # 0700, taking /etc from every other user of the image; now a directory
    # that is not 0700 and holds other files is left alone, and nothing is
    # written. A directory of its own (empty, or only ours) is still made
    # root's 0700.
    img = image(e.top)
    conf = img + cli.CONF_FILE
    os.makedirs(os.path.dirname(conf), exist_ok=True)
    for shared in ("etc", "var/lib"):
        with open(conf, "w") as f:
            f.write(f"[Seed]\nDirectory=/{shared}\n")
        d = os.path.join(img, shared)
        open(os.path.join(d, "keep"), "w").close()
        os.chmod(d, 0o755)
        rc, out = provision(e, img)
        mode = stat.S_IMODE(os.stat(d).st_mode)
        check(rc == 1 and "holds other files" in out and mode == 0o755,
              f"provision with Directory=/{shared}: exit {rc}, mode {mode:o} (want 1, 755 unchanged)", out)
        check(not os.path.exists(os.path.join(d, "seed")), f"provision wrote a seed into /{shared}", out)
    own = os.path.join(img, "var/lib/entropy-gate")
    os.makedirs(own)
    os.chmod(own, 0o755)
    with open(conf, "w") as f:
        f.write("[Seed]\nDirectory=/var/lib/entropy-gate\n")
    rc, out = provision(e, img)
    mode = stat.S_IMODE(os.stat(own).st_mode)
    check(rc == 0 and mode == 0o700 and os.path.isfile(os.path.join(own, "seed")),
          f"provision into a directory of its own, mode 755: exit {rc}, mode {mode:o} (want 0, 700, a seed)", out)


@case
def provision_directory_names_an_empty_shared_directory(e):
    # The image's /tmp or /var/tmp is empty when the image is built, and
    # mode 1777: what it holds says nothing, its mode says that it is
    # everyone's. Neither Directory= nor --seed-dir= may make it root's 0700.
    for rel, how in (("tmp", "conf"), ("var/tmp", "option"), ("srv/drop", "conf")):
        img = image(e.top, "img-" + rel.replace("/", "-"))
        d = os.path.join(img, rel)
        os.makedirs(d)
        os.chmod(d, 0o1777 if "tmp" in rel else 0o777)
        extra = ()
        if how == "conf":
            image_config(img, f"[Seed]\nDirectory=/{rel}\n")
        else:
            extra = (f"--seed-dir=/{rel}",)
        rc, out = provision(e, img, *extra)
        mode = stat.S_IMODE(os.stat(d).st_mode)
        check(rc == 1 and mode == (0o1777 if "tmp" in rel else 0o777) and os.listdir(d) == [],
              f"provision into an empty /{rel} everyone may write ({how}): exit {rc}, mode {mode:o}, "
              f"{os.listdir(d)} (want 1, unchanged, empty)", out)


# Without openat2() (before Linux 5.6, or a seccomp filter that says EPERM
# or ENOSYS) the resolver's rules are applied by hand; without statx() too
# (before 4.11), mount IDs come from /proc/self/fdinfo.
BY_HAND = [("openat2", "")] + ([(f"by hand ({err})", f"strace -f -qq -o /dev/null -e trace=openat2 "
                                                    f"-e inject=openat2:error={err} ")
                                for err in ("ENOSYS", "EPERM")] +
                               [("by hand, no statx", "strace -f -qq -o /dev/null -e trace=openat2,statx "
                                                      "-e inject=openat2,statx:error=ENOSYS ")]
                               if shutil.which("strace") else [])


@case
def provision_bind_mounts_from_host(e):
    # The host's /etc and /var/lib bind-mounted into the tree: never crossed
    # without --cross-mounts, however the resolver resolves (a bind mount
    # from the tree's own file system has its device number).
    host = Canary(e.top)
    img = image(e.top)
    for how, wrap in BY_HAND:
        for sub, extra in (("etc", "--machine-id=00112233445566778899aabbccddeeff"), ("var/lib", ""),
                           ("etc var/lib", "--machine-id=00112233445566778899aabbccddeeff")):
            binds = "; ".join(f"mount --bind '{host.dir}/{s}' '{img}/{s}'" for s in sub.split())
            rc, out = in_namespace(f"{binds}; exec {wrap}'{SEED_BIN}' provision --root='{img}' {extra}", e.env)
            check(rc == 1 and "mount point" in out,
                  f"{how}: provision across a bind mount of the host's {sub} exited {rc}", out)
            host.unchanged(f"{how}: provision with the host's {sub} bind-mounted into the tree", out)
    # --cross-mounts is the documented way to say "that mount is the image's":
    # a file system mounted there and nowhere else (its own /var partition).
    rc, out = in_namespace(f"mount -t tmpfs tmpfs '{img}/var/lib'; "
                           f"'{SEED_BIN}' provision --root='{img}' --cross-mounts; "
                           f"test -f '{img}/var/lib/entropy-gate/seed' || exit 97", e.env)
    check(rc == 0, f"provision --cross-mounts into the image's own /var/lib file system exited {rc}", out)
    # But never into a directory of the host's, bound in: that file system is
    # mounted outside the tree too.
    for sub in ("etc", "var/lib"):
        rc, out = in_namespace(f"mount --bind '{host.dir}/{sub}' '{img}/{sub}'; "
                               f"exec '{SEED_BIN}' provision --root='{img}' --cross-mounts "
                               "--machine-id=00112233445566778899aabbccddeeff", e.env)
        check(rc == 1 and "also mounted outside the tree" in out,
              f"provision --cross-mounts across a bind mount of the host's /{sub} exited {rc}", out)
        host.unchanged(f"provision --cross-mounts with the host's /{sub} bind-mounted into the tree", out)


def image_config(img, text):
    conf = img + cli.CONF_FILE
    os.makedirs(os.path.dirname(conf), exist_ok=True)
    with open(conf, "w") as f:
        f.write(text)


@case
def provision_cross_mounts_never_into_host_directories(e):
    # The image's configuration names a directory that a host directory is
    # bound over (the build host's /dev, /run or /tmp): --cross-mounts must
    # neither take it over (root's, 0700) nor put a seed in it.
    img = image(e.top)
    hostdev = os.path.join(e.top, "hostdev")
    os.makedirs(hostdev)
    os.makedirs(os.path.join(img, "dev"))
    os.chmod(hostdev, 0o1777)
    os.chown(hostdev, 65534, -1)
    image_config(img, "[Seed]\nDirectory=/dev\n")
    for how, wrap in BY_HAND:
        rc, out = in_namespace(f"mount --bind '{hostdev}' '{img}/dev'; "
                               f"exec {wrap}'{SEED_BIN}' provision --root='{img}' --cross-mounts", e.env)
        st = os.stat(hostdev)
        check(rc == 1 and "also mounted outside the tree" in out and "/dev" in out,
              f"{how}: provision --cross-mounts into a host directory bound at IMG/dev exited {rc}", out)
        check(os.listdir(hostdev) == [] and st.st_uid == 65534 and st.st_mode & 0o7777 == 0o1777,
              f"{how}: the host directory bound at IMG/dev changed: {os.listdir(hostdev)} "
              f"uid {st.st_uid} mode {st.st_mode:o}", out)

    # A "host" file system of its own (a tmpfs mounted outside the tree,
    # standing for the build host's /), rbind-mounted into the image, and
    # Directory= through it. Checked inside the namespace, where it exists.
    canary = Canary(e.top)
    hostfs = os.path.join(e.top, "hostfs")
    os.makedirs(hostfs)
    os.makedirs(os.path.join(img, "host"))
    image_config(img, "[Seed]\nDirectory=/host/var/lib/entropy-gate\n")
    state = "find . -exec stat -c '%n %a %u %s %Y' {} + | sort; find . -type f -exec sha256sum {} + | sort"
    for how, wrap in BY_HAND:
        rc, out = in_namespace(f"mount -t tmpfs tmpfs '{hostfs}'; cp -a '{canary.dir}/.' '{hostfs}/'; "
                               f"cd '{hostfs}'; before=$({state}); "
                               f"mount --rbind '{hostfs}' '{img}/host'; "
                               f"rc=0; {wrap}'{SEED_BIN}' provision --root='{img}' --cross-mounts || rc=$?; "
                               f"test \"$before\" = \"$({state})\" || exit 97; exit $rc", e.env)
        check(rc == 1 and "also mounted outside the tree" in out,
              f"{how}: provision --cross-mounts through a host file system rbind-mounted at IMG/host exited {rc} "
              "(97: the host's files changed)", out)

    # An overlayfs mounted only at IMG/var: its anonymous device is mounted
    # nowhere else, but its upper directory (where every write lands) and
    # its lower one are directories outside the tree. Refused by type.
    image_config(img, "")
    ovl = os.path.join(e.top, "ovl")
    for d in ("lower/lib/entropy-gate", "upper/lib/entropy-gate", "work"):
        os.makedirs(os.path.join(ovl, d))
    for d in ("lower", "upper"):
        with open(os.path.join(ovl, d, "lib/entropy-gate/seed"), "w") as f:
            f.write(f"HOST-{d.upper()}-SEED\n")
    os.makedirs(os.path.join(img, "var"), exist_ok=True)
    state = ("cd '{d}' && find . -exec stat -c '%n %a %u %s %Y' {{}} + | sort && "
             "find . -type f -exec sha256sum {{}} + | sort")
    snap = " ; ".join(state.format(d=os.path.join(ovl, d)) for d in ("lower", "upper"))
    for how, wrap in BY_HAND:
        rc, out = in_namespace(f"mount -t overlay overlay -o lowerdir='{ovl}/lower',upperdir='{ovl}/upper',"
                               f"workdir='{ovl}/work' '{img}/var' || exit 96; before=$({snap}); "
                               f"rc=0; {wrap}'{SEED_BIN}' provision --root='{img}' --cross-mounts || rc=$?; "
                               f"test \"$before\" = \"$({snap})\" || exit 97; exit $rc", e.env)
        if rc == 96:
            print("SKIP: overlayfs cannot be mounted here")
            break
        check(rc == 1 and "overlay" in out,
              f"{how}: provision --cross-mounts through an overlayfs at IMG/var whose upper directory is "
              f"outside the tree exited {rc} (97: the directories outside the tree changed)", out)

    # The positive case: a file system mounted only inside the tree.
    rc, out = in_namespace(f"mount -t tmpfs tmpfs '{img}/var/lib'; "
                           f"'{SEED_BIN}' provision --root='{img}' --cross-mounts; "
                           f"test -f '{img}/var/lib/entropy-gate/seed' || exit 97", e.env)
    check(rc == 0, f"provision --cross-mounts into a tmpfs mounted only at IMG/var/lib exited {rc}", out)


@case
def provision_reads_stay_on_the_tree(e):
    # Without --cross-mounts nothing is read across a mount point either:
    # not the configuration, not the machine-id, and the tree's
    # /proc/cmdline (the host's, when a procfs is mounted there) never.
    host = Canary(e.top)
    img = image(e.top)
    evil = os.path.join(e.top, "host-conf")
    os.makedirs(evil)
    with open(os.path.join(evil, "evil.conf"), "w") as f:
        f.write("[Seed]\nDirectory=/from-host\n")
    os.makedirs(os.path.join(img, "mnt"))
    dropins = img + cli.CONF_FILE + ".d"
    os.makedirs(dropins)
    os.symlink("/mnt/evil.conf", os.path.join(dropins, "10.conf"))
    for how, wrap in BY_HAND:
        rc, out = in_namespace(f"mount --bind '{evil}' '{img}/mnt'; "
                               f"exec {wrap}'{SEED_BIN}' provision --root='{img}'", e.env)
        check(rc == 1 and "configuration is broken" in out and "mount point" in out,
              f"{how}: provision with a drop-in linked through a mount point exited {rc}", out)
        check(not os.path.exists(os.path.join(img, "from-host")), f"{how}: the drop-in across a mount was read", out)
    shutil.rmtree(dropins)

    for how, wrap in BY_HAND:
        rc, out = in_namespace(f"mount --bind '{host.dir}/etc/machine-id' '{img}/etc/machine-id'; "
                               f"exec {wrap}'{SEED_BIN}' provision --root='{img}'", e.env)
        check(rc == 1 and "mount point" in out, f"{how}: provision with the host's machine-id bound in exited {rc}", out)
        check(not os.path.exists(os.path.join(img, "var/lib/entropy-gate/seed")),
              f"{how}: a seed bound to the host's machine-id was written", out)
    host.unchanged("provision with the host's machine-id bound in")

    # A command line that would break the configuration, were it read.
    with open(os.path.join(img, "proc/cmdline"), "w") as f:
        f.write("entropy_gate.credit=bogus entropy_gate.timeout=never\n")
    rc, out = provision(e, img)
    check(rc == 0 and "cmdline" not in out and "command line" not in out,
          f"provision read the tree's /proc/cmdline: exited {rc}", out)


@case
def provision_refuses_this_systems_root(e):
    # However the running root is named. The namespace puts tmpfs over /etc
    # and /var/lib first, so that a regression cannot touch this machine.
    for spelling in ("/.", "//", "/proc/self/root", "/proc/1/root/", "BIND", "LINK"):
        root = spelling
        pre = ""
        if spelling == "BIND":
            root = os.path.join(e.top, "bind-of-root")
            os.makedirs(root, exist_ok=True)
            pre = f"mount --rbind / '{root}'; "
        elif spelling == "LINK":
            root = os.path.join(e.top, "link-to-root")
            if not os.path.lexists(root):
                os.symlink("/", root)
        script = ("cp /etc/ld.so.cache /tmp/.eg-ldcache 2>/dev/null || true; "
                  "mount -t tmpfs none /etc; cp /tmp/.eg-ldcache /etc/ld.so.cache 2>/dev/null || true; "
                  "mount -t tmpfs none /var/lib; " + pre +
                  f"rc=0; '{SEED_BIN}' provision --root='{root}' --machine-id=00112233445566778899aabbccddeeff "
                  "|| rc=$?; test ! -e /etc/machine-id || exit 99; test -z \"$(ls -A /var/lib)\" || exit 98; exit $rc")
        rc, out = in_namespace(script, e.env)
        # /proc/1/root may not even be open to us (another PID namespace's
        # init): refused either way, and nothing written.
        check(rc == 1 and ("this running system's own root" in out or "Cannot use --root" in out),
              f"provision --root={spelling} exited {rc}: it must refuse this system's root", out)


@case
def root_that_cannot_be_used_is_an_error(e):
    # Never silently "/" instead.
    f = os.path.join(e.top, "a-file")
    open(f, "w").close()
    # A real directory too deep for the paths below it to be named whole.
    deep = os.path.join(e.top, *(["r" * 200] * ((3900 - len(e.top)) // 201)))
    deep = os.path.join(deep, "r" * (3900 - len(deep) - 1))
    os.makedirs(deep)
    check(len(deep) == 3900, "the deep root's length", str(len(deep)))
    for root, why in ((os.path.join(e.top, "missing"), "No such file"), (f, "Not a directory"),
                      ("/" + "a" * 5000, "too long"), (deep, "too long")):
        for verb in ("load", "save", "provision"):
            rc, out = run([SEED_BIN, verb, "--root=" + root, "--seed-dir=/eg-hostile-never-created"], e.env)
            check(rc == 1 and "--root=" in out and why in out, f"{verb} --root={root[:40]}: exit {rc}", out[:300])
            check(not os.path.exists("/eg-hostile-never-created"), f"{verb} acted on / instead of the root")


@case
def seed_directory_that_is_the_root_in_another_spelling(e):
    # Directory=/ and --seed-dir=/ are refused; so is the root named
    # another way (a "." or ".." that ends there, a symbolic link to it), or
    # the seed and its temporary files land among the root's own files.
    os.symlink("/", os.path.join(e.root, "var/lib/eg-root"))
    os.symlink("../..", os.path.join(e.root, "var/lib/eg-up"))
    spellings = ("/.", "/..", "/var/..", "/var/lib/../..", "/var/lib/eg-root", "/var/lib/eg-up/")
    for verb in ("save", "load"):
        for spelling in spellings:
            rc, out = run([SEED_BIN, verb, "--root=" + e.root, "--seed-dir=" + spelling], e.env)
            check(rc == 1 and "the root directory" in out, f"{verb} --seed-dir={spelling}: exit {rc}", out)
            check(not os.path.lexists(os.path.join(e.root, "seed")), f"{verb} --seed-dir={spelling} wrote /seed", out)
        e.write_conf("[Seed]\nDirectory=/var/lib/eg-root\n")
        rc, out = run([SEED_BIN, verb, "--root=" + e.root], e.env)
        check(rc == 1 and "the root directory" in out, f"{verb} with Directory= a link to /: exit {rc}", out)
        check(not os.path.lexists(os.path.join(e.root, "seed")), f"{verb} with Directory= a link to / wrote /seed", out)
        e.write_conf("")
    img = image(e.top)
    os.symlink("/", os.path.join(img, "var/lib/eg-root"))
    rc, out = provision(e, img, "--seed-dir=/var/lib/eg-root")
    check(rc == 1 and not os.path.lexists(os.path.join(img, "seed")), f"provision into the image's root: exit {rc}", out)


# --- once per boot, by identity ------------------------------------------------------

def load_as(e, *args, env=None):
    ev = dict(e.env)
    ev.update(env or {})
    return run([SEED_BIN, "load", *args], ev)


@case
def every_spelling_of_the_seed_directory(e):
    good = e.make_seed()
    os.symlink("/var/lib/entropy-gate", os.path.join(e.root, "var/lib/eg-link"))
    os.symlink("entropy-gate", os.path.join(e.root, "var/lib/eg-rel"))
    spellings = [["--root=" + e.root, "--seed-dir=/var/lib/entropy-gate"],
                 ["--root=" + e.root, "--seed-dir=/var/lib/entropy-gate/"],
                 ["--root=" + e.root, "--seed-dir=//var//lib//entropy-gate//"],
                 ["--root=" + e.root, "--seed-dir=/./var/./lib/./entropy-gate"],
                 ["--root=" + e.root, "--seed-dir=/var/lib/../lib/entropy-gate"],
                 ["--root=" + e.root, "--seed-dir=/var/lib/eg-link"],
                 ["--root=" + e.root, "--seed-dir=/var/lib/eg-rel/"],
                 ["--root=" + e.root, "--seed-dir=/var/lib/eg-link/../eg-rel"],
                 ["--root=" + e.root + "/.", "--seed-dir=/var/lib/entropy-gate"],
                 ["--root=" + e.root + "//", "--seed-dir=/var/lib/entropy-gate"],
                 ["--root=" + e.root + "/../root", "--seed-dir=/var/lib/entropy-gate"]]
    for args in spellings:
        rc, out = load_as(e, *args)
        check(rc == 0, f"load {args}: exit {rc}", out)
    check(e.credited() == [good], f"one seed, {len(spellings)} spellings: credited {len(e.credited())} times",
          "\n".join(e.credited()))
    # A bind mount of the directory elsewhere is the same directory.
    other = os.path.join(e.root, "var/lib/eg-bind")
    os.makedirs(other)
    rc, out = in_namespace(f"mount --bind '{e.seeds}' '{other}'; "
                           f"exec '{SEED_BIN}' load --root='{e.root}' --seed-dir=/var/lib/eg-bind", e.env)
    check(rc == 0 and len(e.credited()) == 1, "a bind mount of the seed directory credited again", out)


@case
def replacement_reached_another_way_is_not_credited_again(e):
    # An overlay's directory and the same directory in its upper layer
    # (OpenWrt's /etc and /overlay/upper/etc) are two directories by device
    # and inode, and the seed in the second is the replacement the first
    # load wrote from this boot's pool: crediting it counts the same secret
    # twice in one boot.
    good = e.make_seed()
    lower = var_lib_as_lower(e)
    d = os.path.join(e.root, "overlay")
    os.makedirs(d + "/u")
    os.makedirs(d + "/w")
    load = f"'{SEED_BIN}' load --root='{e.root}' --seed-dir="
    rc, out = in_namespace(f"mount -t overlay overlay -o lowerdir='{lower}',upperdir='{d}/u',workdir='{d}/w' "
                           f"'{e.root}/var/lib'; {load}{e.seeds_rel}; {load}/overlay/u/entropy-gate", e.env)
    check(rc == 0, f"load exited {rc}", out)
    check(e.credited() == [good], "the replacement, reached through the overlay's upper layer, was credited "
          "in the boot that wrote it", out)
    check("written by a load" in out, "message", out)
    # SEED= names what was credited, the one seed; the replacements are
    # NEXT= (the second load wrote one too).
    with open(os.path.join(e.run, "consumed")) as f:
        lines = f.read().splitlines()
    check(sum(x.startswith("SEED=") for x in lines) == 1 and sum(x.startswith("NEXT=") for x in lines) == 2,
          "the ledger names one seed credited and two replacements written", "\n".join(lines))


@case
def replacement_in_place_but_not_durable_is_not_credited_again(e):
    # The replacement was renamed over the seed, but the directory's fsync
    # failed (EIO): the load credits nothing and fails. A second load in
    # the same boot (the failed unit restarted) finds that replacement,
    # written from this boot's pool, and must not credit it.
    if not shutil.which("strace"):
        print("skip replacement_in_place_but_not_durable_is_not_credited_again: needs strace(1) to inject EIO")
        return
    good = e.make_seed()
    # Without a credential, load's second fsync is the seed directory's.
    rc, out = run(["strace", "-f", "-qq", "-o", "/dev/null", "--inject=fsync:error=EIO:when=2",
                   SEED_BIN, "load", "--root=" + e.root, "--seed-dir=" + e.seeds_rel], traced_env(e))
    replacement = e.inspect()["SEED"]
    check(rc == 1 and replacement != good and e.credited() == [], "the fault was not where it was meant", out)
    e.run_seed("load")
    check(e.credited() == [], "the replacement a failed load wrote was credited in the boot that wrote it", e.out)
    check("written by a load" in e.out, "message", e.out)
    e.new_boot()
    e.run_seed("load")
    check(len(e.credited()) == 1, "the next boot credits nothing", e.out)


@case
def load_a_load_b_load_a(e):
    a = e.make_seed()
    e.seeds_rel = "/var/lib/b"
    b = e.make_seed()
    e.seeds_rel = "/var/lib/entropy-gate"
    e.run_seed("load")
    e.seeds_rel = "/var/lib/b"
    e.run_seed("load")
    e.seeds_rel = "/var/lib/entropy-gate"
    e.run_seed("load")
    check(sorted(e.credited()) == sorted([a, b]), "A, B, A: one directory was credited twice",
          "\n".join(e.credited()))


@case
def credential_only_does_not_rearm_the_seed(e):
    good = e.make_seed()
    e.run_seed("load")
    e.run_seed("load", "--credential-only")
    e.run_seed("load")
    e.run_seed("load", "--credential-only")
    e.run_seed("load")
    check(e.credited() == [good], "--credential-only re-armed the seed", "\n".join(e.credited()))


@case
def hard_linked_seed_is_not_credited(e):
    e.make_seed()
    other = os.path.join(e.root, "var/lib/other")
    os.makedirs(other, mode=0o700)
    os.link(e.seed, os.path.join(other, "seed"))
    e.seeds_rel = "/var/lib/other"
    e.run_seed("load")
    check(e.credited() == [] and "links, must have exactly one" in e.out, "a hard-linked seed was credited", e.out)


@case
def copied_seed_is_credited_once_per_boot(e):
    good = e.make_seed()
    other = os.path.join(e.root, "var/lib/copy")
    os.makedirs(other, mode=0o700)
    shutil.copy2(e.seed, os.path.join(other, "seed"))
    e.run_seed("load")
    e.seeds_rel = "/var/lib/copy"
    e.run_seed("load")
    check(e.credited() == [good], "the same seed in a second directory was credited twice in one boot", e.out)
    check("credited already in this boot" in e.out, "message", e.out)


@case
def damaged_ledger_means_a_load_may_have_run(e):
    for damage in (b"", b"BOOT_ID=", b"garbage\n", b"BOOT_ID=0123\n", None):
        e.new_boot()
        good = e.make_seed()
        os.makedirs(e.run, exist_ok=True)
        ledger = os.path.join(e.run, "consumed")
        if damage is None:
            # The right boot, cut short after its first line.
            with open(os.path.join(e.root, "proc/sys/kernel/random/boot_id")) as f:
                damage = ("BOOT_ID=" + f.read().strip().replace("-", "") + "\nDIRECTORY=1").encode()
        with open(ledger, "wb") as f:
            f.write(damage)
        before = len(e.credited())
        e.run_seed("load")
        check(len(e.credited()) == before and good in e.mixed(), f"credited over a damaged ledger {damage!r}", e.out)
        check("a load may have run" in e.out, "message", e.out)


@case
def ledger_gone_with_this_boots_record_means_a_load_may_have_run(e):
    # The ledger removed (systemctl clean, rm) while the record of this
    # boot's load is still there: a second load must not credit again.
    good = e.make_seed()
    e.run_seed("load")
    check(e.credited() == [good], "first load", e.out)
    os.unlink(os.path.join(e.run, "consumed"))
    e.run_seed("save")
    e.run_seed("load")
    check(len(e.credited()) == 1, "a second load credited once the ledger was gone", e.out)
    check("a load may have run" in e.out and "record seed is this boot's" in e.out, "message", e.out)
    check(e.runstate().get("ACTION") == "credited", "the first load's record was overwritten", str(e.runstate()))
    # A record that does not parse, or has no boot id: the same doubt. So
    # does one whose boot id is cut short, or this boot's in capitals.
    with open(os.path.join(e.root, "proc/sys/kernel/random/boot_id")) as f:
        boot = f.read().strip().replace("-", "")
    for damage in (b"garbage\n", b"ACTION=credited\n", b"", b"BOOT_ID=" + boot[:20].encode(),
                   b"BOOT_ID=" + boot.upper().encode() + b"\nACTION=credited\n"):
        with open(os.path.join(e.run, "seed"), "wb") as f:
            f.write(damage)
        e.run_seed("load")
        check(len(e.credited()) == 1, f"credited with no ledger and a record {damage!r}", e.out)
        check("a load may have run" in e.out, "message", e.out)
    # Another boot's record (a tree whose /run outlives a boot) is no doubt.
    e.new_boot()
    os.makedirs(e.run)
    with open(os.path.join(e.run, "seed"), "w") as f:
        f.write("BOOT_ID=" + "0123456789abcdef" * 2 + "\nACTION=credited\n")
    e.run_seed("load")
    check(len(e.credited()) == 2, "another boot's record stopped this boot's load from crediting", e.out)


def loads_without_the_ledger_keep_the_record(e, credited, whose):
    """Two more loads of this boot that cannot read the ledger, one with its
    lock held past the timeout, one over a damaged file: neither credits
    (e.credited() stays @credited) nor overwrites @whose record."""
    import fcntl
    with open(os.path.join(e.run, "seed"), "rb") as f:
        record = f.read()
    fd = os.open(e.run, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        e.run_seed("load")
    finally:
        os.close(fd)
    check(e.credited() == credited, "a load without the runtime directory's lock credited", e.out)
    with open(os.path.join(e.run, "seed"), "rb") as f:
        check(f.read() == record, f"a load without the ledger's lock overwrote {whose} record", e.out)
    with open(os.path.join(e.run, "consumed"), "ab") as f:
        f.write(b"damage")
    e.run_seed("load")
    check(e.credited() == credited, "a load over a damaged ledger credited", e.out)
    with open(os.path.join(e.run, "seed"), "rb") as f:
        check(f.read() == record, f"a load over a damaged ledger overwrote {whose} record", e.out)


@case
def ledger_that_cannot_be_read_keeps_this_boots_record(e):
    # A second load whose ledger cannot be read (its lock held past the
    # timeout by a slow first load, or the file damaged) cannot tell that it
    # is the second: this boot's record, which says what the first did, is
    # still there and stays, or status would say nothing was credited.
    good = e.make_seed()
    e.run_seed("load")
    check(e.credited() == [good], "first load", e.out)
    loads_without_the_ledger_keep_the_record(e, [good], "this boot's")
    check("record kept" in e.out, "message", e.out)


@case
def ledger_that_cannot_be_read_keeps_the_initrds_record(e):
    # The initrd's load (--credential-only) writes its record without a
    # boot id: it replaced no seed. A load on the real root whose ledger
    # cannot be read must keep that record too, or status says the
    # credential the initrd credited was only mixed.
    good = e.make_seed()
    data = cli.binary_credential(32)
    cli.write_credential(os.path.join(e.root, cli.CRED), data)
    e.write_conf("[Seed]\nCreditCredentialWithoutMemory=yes\n")
    e.run_seed("load", "--credential-only")
    check(e.credited() == [data.hex()], "the initrd did not credit the credential", e.out)
    e.write_conf("")
    loads_without_the_ledger_keep_the_record(e, [data.hex()], "the initrd's")
    check(good not in e.credited(), "the seed was credited", e.out)


@case
def reasons_under_a_deep_root_are_whole(e):
    # A --root tree (a build directory) with a long name: every reason that
    # names a path in it is still said to its end, in the log and the record.
    d = Env(deep=12)
    try:
        check(len(d.run) > 2400, "the tree is not deep", d.run)
        good = d.make_seed()
        d.run_seed("load")
        check(d.credited() == [good], "first load", d.out)
        os.unlink(os.path.join(d.run, "consumed"))
        d.run_seed("load")
        check(len(d.credited()) == 1, "a second load credited once the ledger was gone", d.out)
        check(d.run + "/consumed) is missing, but the record seed is this boot's: a load may have run;" in d.out,
              "the reason was cut short", d.out)
        check(d.runstate().get("ACTION") == "credited", "the first load's record was overwritten", str(d.runstate()))
        # A damaged ledger in a boot without a record yet: the reason is
        # recorded (beside this boot's record, that record is kept).
        d.new_boot()
        os.makedirs(d.run)
        with open(os.path.join(d.run, "consumed"), "wb") as f:
            f.write(b"garbage\n")
        d.run_seed("load")
        check(d.run + "/consumed) is damaged, so a load may have run\n" in d.out, "the reason was cut short", d.out)
        check(len(d.credited()) == 1, "credited over a damaged ledger", d.out)
        check(d.runstate().get("REASON", "").endswith("/consumed) is damaged, so a load may have run"),
              "the record's reason was cut short", str(d.runstate()))
    finally:
        d.cleanup()


@case
def long_values_in_the_configuration_are_said_to_their_end(e):
    # A key, section or value of extreme length in the configuration or on
    # the kernel command line: each warning and reason is still whole, and
    # says what was done (the value itself may be shortened, with "...").
    good = e.make_seed()
    for text, cmdline, tail in (
            ("[Seed]\nCredit=" + "x" * 600 + "\n", "quiet", "ignoring, and crediting nothing"),
            ("[Seed]\nCredit=" + "x" * 20000 + "\n", "quiet", "ignoring, and crediting nothing"),
            ("[Seed]\n" + "K" * 600 + "=1\n", "quiet", "in section [Seed], ignoring"),
            ("[" + "S" * 600 + "]\nCredit=no\n", "quiet", "', ignoring"),
            ("[" + "S" * 600 + "]\n" + "K" * 600 + "=1\n", "quiet", ""),
            ("", "entropy_gate.credit=" + "y" * 9000, "ignoring, and crediting nothing")):
        e.new_boot()
        e.write_conf(text)
        e.set_cmdline(cmdline)
        e.run_seed("load")
        check(e.credited() == [], "credited with a configuration that does not parse", e.out)
        warnings = [l for l in e.out.splitlines() if "ignoring" in l]
        check(warnings and all(l.endswith(tail) for l in warnings), "a warning was cut short", e.out[:3000])
        reason = e.runstate().get("REASON", "")
        check(reason.endswith("does not parse)") or reason.endswith("does not parse cleanly (1 problem))"),
              "the reason was cut short", reason[-300:])
        check(any(l.endswith(reason) for l in e.out.splitlines()), "the log did not say the whole reason", e.out[-3000:])
    check(good not in e.credited(), "the seed was credited", e.out)


@case
def overlay_over_a_tmpfs_credits_nothing_twice_across_boots(e):
    # systemd.volatile=overlay, overlayroot=tmpfs: the replacement lands on
    # the tmpfs, gone at the next boot, where the lower layer's seed and
    # credential memory are back: every boot would credit the same seed, and
    # a replayed credential again.
    good = e.make_seed()
    x = binary_credential()
    lower = var_lib_as_lower(e)
    up = os.path.join(e.top, "up")
    os.makedirs(up)

    def boot(upper_fs):
        e.new_boot()
        put_credential(e, x)
        mount_upper = f"mount -t tmpfs tmpfs '{up}'; " if upper_fs == "tmpfs" else ""
        rc, out = in_namespace(
            mount_upper + f"mkdir -p '{up}/u' '{up}/w'; "
            f"mount -t overlay overlay -o lowerdir='{lower}',upperdir='{up}/u',workdir='{up}/w' '{e.root}/var/lib'; "
            f"exec '{SEED_BIN}' load --root='{e.root}' --seed-dir={e.seeds_rel}", e.env)
        check(rc == 0, f"load on an overlay over {upper_fs} exited {rc}", out)
        return out

    for _ in range(2):
        out = boot("tmpfs")
        check(good not in e.credited() and good in e.mixed(), "a seed on an overlay over a tmpfs was credited", out)
        check(x.hex() not in e.credited(), "a credential remembered only on a tmpfs was credited", out)
        check("upper layer is a tmpfs" in out, "message", out)
    # An upper layer on a disk keeps the replacement: credited once.
    out = boot("disk")
    check(e.credited() == [good, x.hex()] or sorted(e.credited()) == sorted([good, x.hex()]),
          "an overlay whose upper layer is kept credits as any directory", out)
    boot("disk")
    check(e.credited().count(good) == 1 and e.credited().count(x.hex()) == 1,
          "credited twice with the upper layer kept", "\n".join(e.credited()))


def overlay_boot(e, setup, lower, x):
    """A boot whose seed directory is the overlay mounted at ROOT/var/lib by
    the shell @setup ({lower} and {root} filled in), with the credential @x."""
    e.new_boot()
    put_credential(e, x)
    rc, out = in_namespace(setup.format(lower=lower, root=e.root, top=e.top)
                           + f"; exec '{SEED_BIN}' load --root='{e.root}' --seed-dir={e.seeds_rel}", e.env)
    check(rc == 0, f"load exited {rc}", out)
    return out


@case
def overlay_upper_layer_in_any_spelling_is_found_volatile(e):
    # The upper directory is named in mountinfo as the mounter spelled it:
    # relative to its working directory, through a symbolic link re-pointed
    # since, on a tmpfs since detached, behind overlayfs' own escapes, longer
    # than PATH_MAX once escaped. None of them may pass for an upper layer kept on a disk. And the volatile
    # option makes every fsync() of the overlay a no-op, the disk or not:
    # the replacement is not durable (rule 7).
    good = e.make_seed()
    lower = var_lib_as_lower(e)
    t = "mkdir -p {top}/t && mount -t tmpfs tmpfs {top}/t && "
    ovl = "mount -t overlay overlay -o lowerdir={lower},upperdir=%s,workdir=%s {root}/var/lib"
    long_dir = "/".join([" " * 200] * 8)
    spellings = {
        "relative": t + "mkdir -p {top}/t/u {top}/t/w && (cd {top}/t && " + ovl % ("u", "w") + ")",
        "re-pointed symbolic link": t + "mkdir -p {top}/t/u {top}/t/w {top}/d/u && ln -sfn {top}/t {top}/l && "
            + ovl % ("{top}/l/u", "{top}/l/w") + " && ln -sfn {top}/d {top}/l.new && mv -T {top}/l.new {top}/l",
        "detached tmpfs": t + "mkdir -p {top}/t/u {top}/t/w && " + ovl % ("{top}/t/u", "{top}/t/w")
            + " && umount -l {top}/t",
        "escaped comma": t + "mkdir -p '{top}/t/u,1' {top}/t/w && " + ovl % ("'{top}/t/u\\,1'", "{top}/t/w"),
        "long escaped path": t + f"mkdir -p '{{top}}/t/{long_dir}' {{top}}/t/w && "
            + ovl % (f"'{{top}}/t/{long_dir}'", "{top}/t/w"),
        "volatile on a disk": "rm -rf {top}/d && mkdir -p {top}/d/u {top}/d/w && "
            + ovl % ("{top}/d/u", "{top}/d/w,volatile"),
    }
    wrong = []
    for what, setup in spellings.items():
        x = binary_credential()
        out = overlay_boot(e, setup, lower, x)
        if good in e.credited() or x.hex() in e.credited():
            wrong.append(f"{what}: credited from an overlay that forgets:\n{out}")
        shutil.rmtree(os.path.join(e.top, "d"), ignore_errors=True)
        for d in ("t", "l"):
            p = os.path.join(e.top, d)
            if os.path.islink(p):
                os.unlink(p)
            else:
                shutil.rmtree(p, ignore_errors=True)
    check(not wrong, "\n".join(wrong))


@case
def overlay_upper_layer_on_a_disk_made_of_memory_is_volatile(e):
    # An ext4 is a disk file system, but not on a disk when its block
    # device is memory: a loop device whose file is in a tmpfs (or zram,
    # brd's /dev/ramN). An overlay whose upper layer is there forgets the
    # replacement at the next boot as a tmpfs does (zram-config's
    # overlays); so is one whose file is on such a disk in turn (an ext4
    # on a loop file in a tmpfs, holding the upper layer's loop file). The
    # same ext4 on a loop file on a disk keeps it.
    if not shutil.which("losetup") or not shutil.which("mkfs.ext4"):
        print("SKIP: overlay_upper_layer_on_a_disk_made_of_memory_is_volatile needs losetup and mkfs.ext4")
        return
    good = e.make_seed()
    lower = var_lib_as_lower(e)
    for where in ("tmpfs", "nested", "disk"):
        img_dir = os.path.join(e.top, "img-" + where)
        os.makedirs(img_dir)
        setup = ""
        if where != "disk":
            setup = f"mount -t tmpfs tmpfs '{img_dir}'; "
        if where == "nested":
            setup += (f"truncate -s 40M '{img_dir}/outer'; mkfs.ext4 -q '{img_dir}/outer'; "
                      f"d=$(losetup -f --show '{img_dir}/outer'); mkdir '{img_dir}/o'; mount \"$d\" '{img_dir}/o'; "
                      f"losetup -d \"$d\"; ")
            img_dir += "/o"
        rc, out = in_namespace(setup + f"truncate -s 16M '{img_dir}/ext4'; mkfs.ext4 -q '{img_dir}/ext4'; "
                               f"dev=$(losetup -f --show '{img_dir}/ext4'); mkdir -p '{e.top}/up-{where}'; "
                               f"mount \"$dev\" '{e.top}/up-{where}'; losetup -d \"$dev\"; "
                               f"mkdir '{e.top}/up-{where}/u' '{e.top}/up-{where}/w'; "
                               f"mount -t overlay overlay -o lowerdir='{lower}',upperdir='{e.top}/up-{where}/u',"
                               f"workdir='{e.top}/up-{where}/w' '{e.root}/var/lib'; "
                               f"exec '{SEED_BIN}' load --root='{e.root}' --seed-dir={e.seeds_rel}", e.env)
        if rc == 32 or "losetup" in out:
            print(f"SKIP: overlay_upper_layer_on_a_disk_made_of_memory_is_volatile: no loop device here: {out}")
            return
        check(rc == 0, f"load on an overlay over an ext4 on a loop file on a {where} exited {rc}", out)
        if where != "disk":
            check(good not in e.credited() and good in e.mixed(), "a seed on an overlay whose upper layer is an "
                  f"ext4 on a loop file in a tmpfs ({where}) was credited", out)
            check("upper layer is a tmpfs" in out, "message", out)
        else:
            check(good in e.credited(), "an overlay whose upper layer is an ext4 on a loop file on a disk "
                  "credits as any directory", out)
        e.new_boot()


def var_lib_as_lower(e):
    """ROOT/var/lib, with its seed directory, moved out to be the lower layer
    of an overlay the case mounts back on ROOT/var/lib; its new path."""
    lower = os.path.join(e.top, "lower")
    os.rename(os.path.join(e.root, "var/lib"), lower)
    os.makedirs(os.path.join(e.root, "var/lib"))
    return lower


def upper_layer_boot(e, lower, setup, where):
    """A load on an overlay at ROOT/var/lib over @lower whose upper layer is
    the directory @where, made by the shell @setup; None where loop devices
    cannot be had."""
    rc, out = in_namespace(setup + f"; mkdir '{where}/u' '{where}/w'; "
                           f"mount -t overlay overlay -o lowerdir='{lower}',upperdir='{where}/u',"
                           f"workdir='{where}/w' '{e.root}/var/lib'; "
                           f"exec '{SEED_BIN}' load --root='{e.root}' --seed-dir={e.seeds_rel}", e.env)
    if rc == 32 or "losetup" in out or "mkfs" in out:
        print(f"SKIP: no loop device or mkfs here: {out}")
        return None
    check(rc == 0, f"load exited {rc}", out)
    return out


@case
def overlay_upper_layer_on_a_loop_file_named_elsewhere_is_not_kept(e):
    # The kernel names a loop device's file as it was named, in the mount
    # namespace of whoever set it up, with a newline left as it is: in a
    # tmpfs since detached it is named from that tmpfs' root; in a directory
    # whose name holds a newline, the name read to the first newline is
    # another file. Where that other name is a file on a disk, it must not
    # pass for the loop device's.
    if not shutil.which("losetup") or not shutil.which("mkfs.ext4"):
        print("SKIP: overlay_upper_layer_on_a_loop_file_named_elsewhere_is_not_kept needs losetup and mkfs.ext4")
        return
    good = e.make_seed()
    lower = var_lib_as_lower(e)
    decoy = os.path.join(e.top, "decoy")
    with open(decoy, "wb") as f:
        f.truncate(16 << 20)
    t = os.path.join(e.top, "t")
    setups = {
        # In the detached tmpfs, the file is at the decoy's path.
        "a tmpfs since detached": f"mkdir '{t}'; mount -t tmpfs tmpfs '{t}'; mkdir -p '{t}{e.top}'; "
            f"truncate -s 16M '{t}{decoy}'; mkfs.ext4 -q '{t}{decoy}'; dev=$(losetup -f --show '{t}{decoy}'); "
            f"mkdir '{e.top}/up'; mount \"$dev\" '{e.top}/up'; losetup -d \"$dev\"; umount -l '{t}'",
        # The decoy, then a newline: a tmpfs.
        "a newline in its name": f"mkdir '{decoy}\n'; mount -t tmpfs tmpfs '{decoy}\n'; "
            f"truncate -s 16M '{decoy}\n/img'; mkfs.ext4 -q '{decoy}\n/img'; "
            f"dev=$(losetup -f --show '{decoy}\n/img'); "
            f"mkdir '{e.top}/up'; mount \"$dev\" '{e.top}/up'; losetup -d \"$dev\"",
    }
    for what, setup in setups.items():
        out = upper_layer_boot(e, lower, setup, f"{e.top}/up")
        if out is None:
            return
        check(good not in e.credited(), f"{what}: a seed on an overlay whose upper layer is on a loop file in a "
              "tmpfs was credited, its file taken for another on a disk", out)
        for p in (f"{e.top}/up", t, decoy + "\n"):
            shutil.rmtree(p, ignore_errors=True)
        e.new_boot()


@case
def overlay_upper_layer_on_a_btrfs_made_of_memory_is_volatile(e):
    # A btrfs is on no one block device: its device number is anonymous,
    # found under no /sys/dev/block. Its devices are a loop file in a tmpfs
    # here: it forgets as a tmpfs does, and so does an ext4 on a loop file
    # in it.
    if not shutil.which("losetup") or not shutil.which("mkfs.btrfs"):
        print("SKIP: overlay_upper_layer_on_a_btrfs_made_of_memory_is_volatile needs losetup and mkfs.btrfs")
        return
    good = e.make_seed()
    lower = var_lib_as_lower(e)
    for where in ("tmpfs", "nested", "disk"):
        img_dir = os.path.join(e.top, "img-" + where)
        os.makedirs(img_dir)
        up = os.path.join(e.top, "up-" + where)
        setup = (f"mount -t tmpfs tmpfs '{img_dir}'; " if where != "disk" else "") + \
            (f"truncate -s 160M '{img_dir}/btrfs'; mkfs.btrfs -q '{img_dir}/btrfs' >/dev/null; "
             f"dev=$(losetup -f --show '{img_dir}/btrfs'); mkdir '{up}'; mount \"$dev\" '{up}'; "
             f"losetup -d \"$dev\"")
        if where == "nested":
            setup += (f"; truncate -s 16M '{up}/ext4'; mkfs.ext4 -q '{up}/ext4'; "
                      f"dev=$(losetup -f --show '{up}/ext4'); mkdir '{up}/o'; mount \"$dev\" '{up}/o'; "
                      f"losetup -d \"$dev\"")
            up += "/o"
        out = upper_layer_boot(e, lower, setup, up)
        if out is None:
            return
        if where != "disk":
            check(good not in e.credited() and good in e.mixed(), "a seed on an overlay whose upper layer is a "
                  f"btrfs on a loop file in a tmpfs ({where}) was credited", out)
            check("upper layer is a tmpfs" in out, "message", out)
        else:
            check(good in e.credited(), "an overlay whose upper layer is a btrfs on a loop file on a disk "
                  "credits as any directory", out)
        e.new_boot()


@case
def sysfs_whose_devices_fan_out_in_a_cycle_ends_soon(e):
    # A sysfs that is not the kernel's (a tmpfs over /sys) may say that a
    # device is made of many devices, each of them that device again: a
    # walk bounded only by its depth asks 16^8 times, and the boot waits.
    # It must end soon, and credit nothing.
    if not shutil.which("losetup") or not shutil.which("mkfs.ext4"):
        print("SKIP: sysfs_whose_devices_fan_out_in_a_cycle_ends_soon needs losetup and mkfs.ext4")
        return
    good = e.make_seed()
    lower = var_lib_as_lower(e)
    up = os.path.join(e.top, "up")
    slaves = " ".join(f"s{i}" for i in range(16))
    setup = (f"truncate -s 16M '{e.top}/ext4'; mkfs.ext4 -q '{e.top}/ext4'; "
             f"dev=$(losetup -f --show '{e.top}/ext4'); mkdir '{up}'; mount \"$dev\" '{up}'; "
             f"losetup -d \"$dev\"; n=$(mountpoint -d '{up}'); "
             "mount -t tmpfs tmpfs /sys; mkdir -p /sys/dev/block /sys/devices/dm-0/slaves; "
             "ln -s ../../devices/dm-0 /sys/dev/block/$n; "
             f"for s in {slaves}; do mkdir /sys/devices/dm-0/slaves/$s; "
             "echo $n >/sys/devices/dm-0/slaves/$s/dev; done")
    try:
        out = upper_layer_boot(e, lower, setup, up)
    except subprocess.TimeoutExpired:
        raise Failed("a load asking a sysfs whose devices fan out in a cycle did not end within a minute")
    if out is None:
        return
    check(good not in e.credited() and good in e.mixed(), "credited over a sysfs whose devices make a cycle", out)


@case
def seed_in_memory_is_not_credited(e):
    # A tmpfs is empty at boot: a seed is there only when something put it
    # there in this boot. A boot script's copy from a disk (Alpine's lbu,
    # folder2ram) brings the same seed back at every boot, and the
    # replacement, in memory, is never kept: it was credited at every boot.
    # A save of this boot, in the same tmpfs, is this boot's pool: credited
    # in this boot, it is counted twice.
    good = e.make_seed()
    disk = var_lib_as_lower(e)
    fill = f"mount -t tmpfs tmpfs '{e.root}/var/lib'; cp -a '{disk}/.' '{e.root}/var/lib/'; "
    for _ in range(2):
        e.new_boot()
        rc, out = in_namespace(fill + f"exec '{SEED_BIN}' load --root='{e.root}' --seed-dir={e.seeds_rel}", e.env)
        check(rc == 0, f"load exited {rc}", out)
        check(good not in e.credited() and good in e.mixed(), "a seed copied into a tmpfs at boot was credited", out)
        check("is in memory" in out, "message", out)
    e.new_boot()
    rc, out = in_namespace(f"mount -t tmpfs tmpfs '{e.root}/var/lib'; "
                           f"'{SEED_BIN}' save --root='{e.root}' --seed-dir={e.seeds_rel}; "
                           f"exec '{SEED_BIN}' load --root='{e.root}' --seed-dir={e.seeds_rel}", e.env)
    check(rc == 0 and e.credited() == [], "a seed saved in a tmpfs in this boot was credited in it", out)


@case
def seed_on_a_disk_behind_memory_is_not_credited(e):
    # A disk file system on a device-mapper snapshot whose copy-on-write
    # store is memory (a live system's live-rw, a snapshot over zram): the
    # disk's seed comes back at every boot, the replacement is in RAM. As an
    # overlay over a tmpfs, without an overlay. The kernel here has no
    # device mapper: the device is said to be one by a sysfs of our own, of
    # a disk (sda) and a RAM disk (ram0). A device of a disk alone credits
    # as any directory; one of memory alone is in memory (below).
    if not shutil.which("losetup") or not shutil.which("mkfs.ext4"):
        print("SKIP: seed_on_a_disk_behind_memory_is_not_credited needs losetup and mkfs.ext4")
        return
    for slaves, why in (("sda ram0", "a device with one in it"), ("ram0 sda", "a device with one in it"),
                        ("sda", None), ("ram0", "is in memory")):
        good = e.make_seed()
        img, mnt = os.path.join(e.top, "ext4"), os.path.join(e.top, "mnt")
        sysfs = ("mount -t tmpfs tmpfs /sys; mkdir -p /sys/dev/block /sys/devices/dm-0/slaves; "
                 "ln -s ../../devices/dm-0 /sys/dev/block/$n; ")
        for i, name in enumerate(slaves.split()):
            sysfs += (f"mkdir -p /sys/devices/{name} /sys/devices/dm-0/slaves/{name}; "
                      f"echo 250:{i} >/sys/devices/dm-0/slaves/{name}/dev; "
                      f"ln -s ../../devices/{name} /sys/dev/block/250:{i}; ")
        rc, out = in_namespace(f"rm -f '{img}'; truncate -s 16M '{img}'; mkfs.ext4 -q '{img}'; "
                               f"dev=$(losetup -f --show '{img}'); mkdir -p '{mnt}'; mount \"$dev\" '{mnt}'; "
                               f"losetup -d \"$dev\"; cp -a '{e.root}/var/lib/.' '{mnt}/'; "
                               f"mount --move '{mnt}' '{e.root}/var/lib'; n=$(mountpoint -d '{e.root}/var/lib'); "
                               + sysfs + f"exec '{SEED_BIN}' load --root='{e.root}' --seed-dir={e.seeds_rel}", e.env)
        if rc == 32 or "losetup" in out:
            print(f"SKIP: seed_on_a_disk_behind_memory_is_not_credited: no loop device here: {out}")
            return
        check(rc == 0, f"load on a device of {slaves} exited {rc}", out)
        if not why:
            check(good in e.credited(), f"a seed on a device of {slaves} alone was not credited", out)
        else:
            check(good not in e.credited() and good in e.mixed(), f"a seed on a device of {slaves} was credited", out)
            check(why in out, "message", out)
        e.new_boot()
    # A loop device whose file is on an overlay over a tmpfs: the file is
    # copied up into the tmpfs when written, the lower layer's is back at
    # the next boot.
    good = e.make_seed()
    low, up, mnt = (os.path.join(e.top, d) for d in ("low", "up", "mnt"))
    rc, out = in_namespace(f"mkdir -p '{low}' '{up}' '{mnt}'; truncate -s 16M '{low}/ext4'; mkfs.ext4 -q '{low}/ext4'; "
                           f"dev=$(losetup -f --show '{low}/ext4'); mount \"$dev\" '{mnt}'; "
                           f"cp -a '{e.root}/var/lib/.' '{mnt}/'; umount '{mnt}'; losetup -d \"$dev\"; "
                           f"mount -t tmpfs tmpfs '{up}'; mkdir '{up}/u' '{up}/w'; mkdir -p '{e.top}/ovl'; "
                           f"mount -t overlay overlay -o lowerdir='{low}',upperdir='{up}/u',workdir='{up}/w' "
                           f"'{e.top}/ovl'; dev=$(losetup -f --show '{e.top}/ovl/ext4'); "
                           f"mount \"$dev\" '{e.root}/var/lib'; losetup -d \"$dev\"; "
                           f"exec '{SEED_BIN}' load --root='{e.root}' --seed-dir={e.seeds_rel}", e.env)
    check(rc == 0, f"load on an ext4 on a loop file on an overlay over a tmpfs exited {rc}", out)
    check(good not in e.credited() and good in e.mixed(),
          "a seed on an ext4 on a loop file on an overlay over a tmpfs was credited", out)


@case
def openwrt_layout_credits_once_through_its_run_link(e):
    # OpenWrt has no /run: procd makes /tmp/run, /var is a link to tmp. With
    # the ledger's parent missing, nothing is credited; the init script
    # links /run to /var/run, through which the ledger keeps a second load
    # of the boot from crediting again.
    good = e.make_seed()
    e.new_boot()
    shutil.rmtree(os.path.join(e.root, "run"))
    os.makedirs(os.path.join(e.root, "tmp/run"))
    seed_dir = os.path.join(e.root, "etc/entropy-gate")
    os.rename(os.path.join(e.root, "var/lib/entropy-gate"), seed_dir)
    shutil.rmtree(os.path.join(e.root, "var"))
    os.symlink("tmp", os.path.join(e.root, "var"))
    args = [SEED_BIN, "load", "--root=" + e.root, "--seed-dir=/etc/entropy-gate"]
    rc, out = run(args, e.env)
    check(good not in e.credited() and "runtime directory" in out, "credited without a runtime directory", out)
    # Its replacement, creditable (the seed passed rules 2-6), next boot.
    good = e.inspect(os.path.join(seed_dir, "seed"))["SEED"]
    e.new_boot()
    shutil.rmtree(os.path.join(e.root, "run"))
    shutil.rmtree(os.path.join(e.root, "tmp/run/entropy-gate"), ignore_errors=True)
    os.symlink("/var/run", os.path.join(e.root, "run"))
    for _ in range(2):
        rc, out = run(args, e.env)
        check(rc == 0, f"load through /run -> /var/run exited {rc}", out)
    check(os.path.isfile(os.path.join(e.root, "tmp/run/entropy-gate/consumed")), "no ledger in /tmp/run", out)
    check(e.credited().count(good) == 1, "not credited exactly once through /run -> /var/run", out)


def idmapped_load(e, uid, where=None, probe=None, setup=None):
    """entropy-seed load in a mount namespace of its own where the
    directory @where (the seed directory) is bind-mounted over itself,
    idmapped so that @uid's files show as root's (open_tree, mount_setattr,
    move_mount: Linux 5.12); @probe (the seed) must then show as root's.
    The shell @setup runs there before the load. Returns (exit status,
    output), or None where that cannot be done."""
    where, probe = where or e.seeds, probe or e.seed
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    ns = subprocess.Popen(["unshare", "--user", "sleep", "60"])
    try:
        for m in ("uid_map", "gid_map"):
            for _ in range(100):
                try:
                    with open(f"/proc/{ns.pid}/{m}", "w") as f:
                        f.write(f"{uid} 0 1\n")
                    break
                except OSError:
                    # Not yet in its namespace: unshare(1) still running.
                    subprocess.run(["sleep", "0.05"])
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            os.dup2(w, 1)
            os.dup2(w, 2)
            try:
                class MountAttr(ctypes.Structure):
                    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]
                # The generic numbers, the same on every architecture since 5.2.
                SYS_open_tree, SYS_move_mount, SYS_mount_setattr = 428, 429, 442
                if libc.unshare(0x00020000) < 0 or libc.mount(None, b"/", None, 0x4000 | 0x40000, None) < 0:
                    raise OSError(ctypes.get_errno(), "unshare")
                nsfd = os.open(f"/proc/{ns.pid}/ns/user", os.O_RDONLY)
                t = libc.syscall(SYS_open_tree, -100, where.encode(), 1 | 0o2000000)
                attr = MountAttr(0x00100000, 0, 0, nsfd)
                if t < 0 or libc.syscall(SYS_mount_setattr, t, b"", 0x1000, ctypes.byref(attr),
                                         ctypes.sizeof(attr)) < 0 or \
                   libc.syscall(SYS_move_mount, t, b"", -100, where.encode(), 4) < 0:
                    raise OSError(ctypes.get_errno(), "idmapped mount")
                if os.stat(probe).st_uid != 0:
                    raise OSError(0, f"the idmapped mount does not show {probe} as root's")
                load = [SEED_BIN, "load", "--root=" + e.root, "--seed-dir=" + e.seeds_rel]
                if setup:
                    load = ["sh", "-euc", setup + "; exec \"$@\"", "sh"] + load
                os.execvpe(load[0], load, e.env)
            except OSError as err:
                os.write(1, f"SKIP: {err}\n".encode())
                os._exit(77)
        os.close(w)
        with os.fdopen(r, "r") as f:
            out = f.read()
        rc = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        return None if rc == 77 else (rc, out)
    finally:
        ns.kill()
        ns.wait()


@case
def seed_owned_by_a_user_behind_an_idmapped_mount_is_not_credited(e):
    # Rule 6 is about who may read and change the seed on its file system.
    # Through an idmapped mount, UID 1000's seed directory and seed show as
    # root's, while UID 1000 reads and rewrites them by their own path; the
    # credential memory there is theirs to clear as well.
    good = e.make_seed()
    x = binary_credential()
    e.new_boot()
    put_credential(e, x)
    for p in (e.seeds, e.seed):
        os.chown(p, 1000, 1000)
    res = idmapped_load(e, 1000)
    if res is None:
        print("SKIP: no idmapped mounts here")
        return
    rc, out = res
    check(rc == 0, f"load through an idmapped mount exited {rc}", out)
    check(good not in e.credited() and good in e.mixed(), "a seed that UID 1000 owns on the disk was credited "
          "through an idmapped mount that shows it as root's", out)
    check(x.hex() not in e.credited(), "a credential remembered in UID 1000's directory was credited", out)
    check("idmapped mount" in out, "message", out)

    # The same for the credential: UID 1000's, shown as root's.
    for p in (e.seeds, e.seed):
        os.chown(p, 0, 0)
    e.new_boot()
    x = binary_credential()
    cred = put_credential(e, x, uid=1000)
    os.chown(os.path.dirname(cred), 1000, 1000)
    res = idmapped_load(e, 1000, os.path.dirname(cred), cred)
    check(res is not None, "an idmapped mount worked once and not twice")
    rc, out = res
    check(rc == 0, f"load with the credential behind an idmapped mount exited {rc}", out)
    check(x.hex() not in e.credited() and x.hex() in e.mixed(), "a credential that UID 1000 owns on the disk "
          "was credited through an idmapped mount that shows it as root's", out)
    check("idmapped mount" in out, "message (credential)", out)


@case
def seed_on_an_overlay_over_an_idmapped_layer_is_not_credited(e):
    # An overlay's layers may be idmapped mounts (Linux 5.19): through the
    # overlay, UID 1000's seed directory and seed in its upper layer show
    # as root's, and no "idmapped" is among the overlay's own options. UID
    # 1000 rewrites them by their own path all the same.
    good = e.make_seed()
    up = os.path.join(e.top, "up")
    os.makedirs(os.path.join(up, "w"))
    os.rename(os.path.join(e.root, "var/lib"), os.path.join(up, "u"))
    os.makedirs(os.path.join(e.root, "var/lib"))
    os.makedirs(os.path.join(e.top, "lower"))
    for d, dirs, files in os.walk(up):
        for p in [d] + [os.path.join(d, f) for f in files]:
            os.chown(p, 1000, 1000)
    res = idmapped_load(e, 1000, up, os.path.join(up, "u/entropy-gate/seed"),
                        f"mount -t overlay overlay -o lowerdir='{e.top}/lower',upperdir='{up}/u',"
                        f"workdir='{up}/w' '{e.root}/var/lib'")
    if res is None:
        print("SKIP: no idmapped mounts here")
        return
    rc, out = res
    check(rc == 0, f"load on an overlay over an idmapped upper layer exited {rc}", out)
    check(good not in e.credited() and good in e.mixed(), "a seed that UID 1000 owns on the disk was credited "
          "through an overlay whose upper layer is an idmapped mount that shows it as root's", out)


@case
def seed_directory_that_is_the_runtime_directory_is_refused(e):
    # Its lock is the ledger's (a load waited on itself), and the record
    # named seed would be renamed over the seed.
    e.make_seed()
    with open(e.seed, "rb") as f:
        saved = f.read()
    run_dir = "/run/entropy-gate"
    for how in ("Directory=", "--seed-dir=", "link"):
        e.new_boot()
        shutil.rmtree(e.root + run_dir, ignore_errors=True)
        seed_dir = e.root + run_dir
        if how == "link":
            os.symlink("/var/lib/entropy-gate", e.root + run_dir)
            seed_dir = e.seeds
            args = ["--seed-dir=" + e.seeds_rel]
        else:
            os.makedirs(seed_dir, mode=0o700)
            with open(os.path.join(seed_dir, "seed"), "wb") as f:
                f.write(saved)
            os.chmod(os.path.join(seed_dir, "seed"), 0o600)
            args = ["--seed-dir=" + run_dir] if how == "--seed-dir=" else []
        e.write_conf(f"[Seed]\nDirectory={run_dir}\n" if how == "Directory=" else "")
        before = sorted(os.listdir(seed_dir))
        for verb in ("load", "save"):
            rc, out = run([SEED_BIN, verb, "--root=" + e.root, *args], e.env, timeout=4)
            check(rc == 1 and "is the runtime directory" in out, f"{verb} with the seed directory as the runtime "
                  f"directory ({how}) exited {rc}", out)
            with open(os.path.join(seed_dir, "seed"), "rb") as f:
                check(f.read() == saved, f"{verb} ({how}) changed the seed", out)
            check(sorted(os.listdir(seed_dir)) == before, f"{verb} ({how}) wrote into the directory", out)
        check(e.credited() == [], f"{how}: credited", out)
        e.write_conf("")


@case
def directory_at_the_temporary_name_is_named_and_left_alone(e):
    # Not ours to delete; the message must name it, not blame the seed.
    good = e.make_seed()
    tmp = os.path.join(e.seeds, ".#seed.new")
    os.makedirs(tmp)
    with open(os.path.join(tmp, "x"), "w") as f:
        f.write("someone's\n")
    for verb in ("load", "save"):
        e.run_seed(verb, expect=1)
        check(tmp in e.out and "in the way" in e.out, f"{verb}: the message does not name {tmp}", e.out)
        check(os.path.isfile(os.path.join(tmp, "x")), f"{verb} removed a directory it did not create", e.out)
    check(e.credited() == [] and good in e.mixed(), "credited without a durable replacement", e.out)
    # The same at the ledger's temporary name: named, not "File exists".
    shutil.rmtree(tmp)
    e.new_boot()
    os.makedirs(e.run)
    tmp = os.path.join(e.run, ".#consumed.new")
    os.makedirs(tmp)
    e.run_seed("load", expect=1)
    check(tmp in e.out and "in the way" in e.out and "File exists" not in e.out,
          f"load: the message does not name {tmp}", e.out)
    check(os.path.isdir(tmp) and e.credited() == [], "credited without a ledger, or removed its directory", e.out)


@case
def runtime_directory_lock_timeout_credits_nothing_and_says_so(e):
    import fcntl
    good = e.make_seed()
    os.makedirs(e.run, exist_ok=True)
    fd = os.open(e.run, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        e.run_seed("load")
    finally:
        os.close(fd)
    check(e.credited() == [] and good in e.mixed(), "credited without the runtime directory's lock", e.out)
    check("runtime directory" in e.out and "held its lock for 3" in e.out and "timed out" not in e.out,
          "the message does not say which lock, held for how long", e.out)


@case
def lock_wait_is_bounded_with_sigalrm_blocked(e):
    # A supervisor that starts entropy-seed with SIGALRM blocked (the mask
    # outlives execve): the tick that bounds the wait for a lock must still
    # come, or a lock held by someone else hangs the boot.
    import fcntl
    import signal
    good = e.make_seed()
    os.makedirs(e.run, exist_ok=True)
    for lock, verbs in ((e.seeds, ("load", "save")), (e.run, ("load",))):
        fd = os.open(lock, os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            for verb in verbs:
                p = subprocess.Popen([SEED_BIN, verb, "--root=" + e.root, "--seed-dir=" + e.seeds_rel], env=e.env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM}))
                try:
                    out, _ = p.communicate(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.communicate()
                    raise Failed(f"{verb} with SIGALRM blocked waited for the lock on {lock} for more than 15 s")
                check("held its lock for 3" in out, f"{verb} with SIGALRM blocked: no lock timeout said", out)
        finally:
            os.close(fd)
    check(e.credited() == [] and good in e.mixed(), "credited without a lock", out)


@case
def closed_stdio_takes_no_file_of_ours(e):
    # Started with stdin, stdout and stderr closed (a careless supervisor):
    # a file opened then takes the lowest free number, 0, 1 or 2, and what
    # is written to stderr would land in it, the seed among them. Every
    # file in the tree is opened at 3 or above.
    strace = shutil.which("strace")
    if not strace:
        print("skip closed_stdio_takes_no_file_of_ours: needs strace(1) to see the numbers files are opened at")
        return
    env = traced_env(e)
    good = e.make_seed()
    for verb in ("load", "save"):
        log = os.path.join(e.top, f"stdio-{verb}.strace")
        rc, out = traced(["sh", "-c", 'exec "$0" "$@" <&- >&- 2>&-',
                          SEED_BIN, verb, "--root=" + e.root, "--seed-dir=" + e.seeds_rel], env, log)
        check(rc == 0, f"{verb} with stdio closed: exit {rc}", out)
        with open(log) as f:
            low = [line.strip() for line in f
                   if e.root in line and line.rstrip().endswith((") = 0", ") = 1", ") = 2"))]
        check(not low, f"{verb} with stdio closed: files of the tree opened at 0, 1 or 2", "\n".join(low))
    check(e.credited() == [good], "with stdio closed: the seed not credited once", "\n".join(e.credited()))


@case
def ledger_not_roots_alone(e):
    good = e.make_seed()
    os.makedirs(e.run, exist_ok=True)
    os.chmod(e.run, 0o777)
    e.run_seed("load")
    check(e.credited() == [] and good in e.mixed(), "credited with a world-writable runtime directory", e.out)


# --- configuration that turns crediting off -----------------------------------------

@case
def unlistable_dropin_directory_turns_crediting_off(e):
    # The drop-in directory exists but listing it fails half-way (EIO from
    # getdents64, injected): not an empty directory, since a drop-in in it
    # may say Credit=no.
    strace = shutil.which("strace")
    if not strace:
        print("skip unlistable_dropin_directory_turns_crediting_off: needs strace(1) to inject EIO")
        return
    good = e.make_seed()
    dropins = e.conf + ".d"
    os.makedirs(dropins, exist_ok=True)
    with open(os.path.join(dropins, "50-no-credit.conf"), "w") as f:
        f.write("[Seed]\nCredit=no\n")
    env = traced_env(e)
    rc, out = run([strace, "-f", "-qq", "-o", "/dev/null", "-e", "trace=getdents64",
                   "--inject=getdents64:error=EIO:when=1",
                   SEED_BIN, "load", "--root=" + e.root, "--seed-dir=" + e.seeds_rel], env)
    check(rc == 0 and e.credited() == [] and good in e.mixed(),
          f"credited although the drop-in directory could not be listed (exit {rc})", out)
    check(dropins in out and "crediting nothing" in out,
          "message naming the drop-in directory", out)


# --- credentials -------------------------------------------------------------------

CRED = "run/credentials/@system/entropy-gate.seed"


def put_credential(e, data, mode=0o400, uid=0, dir_rel="run/credentials/@system"):
    path = os.path.join(e.root, dir_rel, "entropy-gate.seed")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.lexists(path):
        os.unlink(path)
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)
    os.chown(path, uid, 0)
    return path


def binary_credential():
    x = bytearray(os.urandom(32))
    x[0] = 0x01              # never printable: binary whatever the rest
    x[-1] |= 0x80            # never a NUL, CR or LF, which a terminator loses
    return bytes(x)


@case
def one_credential_in_many_encodings_is_one(e):
    x = binary_credential()
    h = x.hex()
    spellings = [x, x + b"\n", x + b"\0", x + b"\r\n", x + b"\0\0\n", h.encode(), h.upper().encode(),
                 (h[:32] + h[32:].upper()).encode(), (h + "\n").encode(), (h + "\r\n").encode(),
                 (h + "\0").encode()]
    for i, data in enumerate(spellings):
        e.new_boot()
        put_credential(e, data)
        e.run_seed("load")
        if i == 0:
            check(e.credited().count(h) == 1, "the credential was not credited on its first boot", e.out)
        else:
            check(e.credited().count(h) == 1, f"spelling {i} ({data[-4:]!r}) was credited again", e.out)
            check("credited on an earlier boot" in e.out, f"spelling {i}: message", e.out)


@case
def credential_from_a_quoted_command_line_is_mixed(e):
    # systemd's own splitting of the command line drops quotes anywhere in a
    # word: each of these imports the public value as the credential.
    x = binary_credential()
    h = x.hex()
    for cl in (f"'systemd.set_credential=entropy-gate.seed:{h}'",
               f"systemd.set_credential='entropy-gate.seed:{h}'",
               f"systemd.set_credential=entropy-gate.'seed':{h}",
               f'systemd.set_credential="entropy-gate".seed:{h}',
               f'"systemd.set_credential"=entropy-gate.seed:{h}',
               f"ro rd.systemd.set-credential=entropy-gate.seed:{h}"):
        e.new_boot()
        e.set_cmdline(cl)
        put_credential(e, h.encode())
        e.run_seed("load")
        check(h not in e.credited() and h.encode().hex() in e.mixed(),
              f"a credential on the command line [{cl}] was credited", e.out)
        check("kernel command line" in e.out, f"[{cl}]: message", e.out)


EFI_OPTIONS = "SystemdOptions-8cf2644b-4b0b-428f-9387-6d876050dc67"
EFI_OPTIONS_CACHE = "run/systemd/efivars/" + EFI_OPTIONS
EFI_OPTIONS_VARIABLE = "sys/firmware/efi/efivars/" + EFI_OPTIONS


def efi_variable(text):
    """efivarfs' bytes: attributes (non-volatile, boot and runtime access), then UTF-16LE with its NUL."""
    return b"\x07\0\0\0" + text.encode("utf-16-le") + b"\0\0"


def put_efi_options(e, rel, data):
    """@data at ROOT/@rel: bytes a file, None a FIFO, "dir" a directory."""
    p = os.path.join(e.root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    if data is None:
        os.mkfifo(p)
    elif data == "dir":
        os.makedirs(p)
    else:
        with open(p, "wb") as f:
            f.write(data)
        os.chmod(p, 0o644)


@case
def credential_from_the_systemd_options_efi_variable_is_mixed(e):
    # systemd parses its SystemdOptions EFI variable as kernel command line
    # options: from its copy in /run, and the variable is in efivarfs. Both
    # are world-readable, so a credential named there is public.
    for rel, data in ((EFI_OPTIONS_CACHE, "systemd.set_credential=entropy-gate.seed:{h}\n".encode()),
                      (EFI_OPTIONS_VARIABLE, efi_variable("quiet systemd.set_credential=entropy-gate.seed:{h}")),
                      (EFI_OPTIONS_VARIABLE, efi_variable("тест rd.systemd.set-credential='entropy-gate.seed':{h}")),
                      (EFI_OPTIONS_VARIABLE, efi_variable("systemd.set_credential_binary=entropy-gate.seed:AAAA"))):
        x = binary_credential()
        h = x.hex()
        e.new_boot()
        shutil.rmtree(os.path.join(e.root, "sys"), ignore_errors=True)
        put_efi_options(e, rel, data.replace(b"{h}", h.encode()).replace("{h}".encode("utf-16-le"),
                                                                        h.encode("utf-16-le")))
        put_credential(e, x)
        e.run_seed("load")
        check(h not in e.credited() and h in e.mixed(), f"a credential named in /{rel} was credited", e.out)
        check("SystemdOptions EFI variable" in e.out, f"/{rel}: message", e.out)
    # One that cannot be read may name it.
    for rel, data in ((EFI_OPTIONS_CACHE, None), (EFI_OPTIONS_VARIABLE, "dir"),
                      (EFI_OPTIONS_VARIABLE, efi_variable("quiet " * 20000))):
        x = binary_credential()
        e.new_boot()
        shutil.rmtree(os.path.join(e.root, "sys"), ignore_errors=True)
        put_efi_options(e, rel, data)
        put_credential(e, x)
        e.run_seed("load")
        check(x.hex() not in e.credited() and x.hex() in e.mixed(),
              f"a credential was credited although /{rel} could not be read", e.out)
        check("cannot be read" in e.out, f"unreadable /{rel}: message", e.out)
    # Options that do not name it take nothing away.
    x = binary_credential()
    e.new_boot()
    shutil.rmtree(os.path.join(e.root, "sys"), ignore_errors=True)
    put_efi_options(e, EFI_OPTIONS_CACHE, b"quiet systemd.set_credential=other.seed:00\n")
    put_efi_options(e, EFI_OPTIONS_VARIABLE, efi_variable("quiet systemd.set_credential=other.seed:00"))
    put_credential(e, x)
    e.run_seed("load")
    check(e.credited().count(x.hex()) == 1, "a credential was not credited beside options that do not name it", e.out)


@case
def hex_with_a_stray_byte_is_never_credited(e):
    # The same 256-bit secret in hex, replayed with one stray byte: never
    # binary (528 bits from 256, under a hash its memory does not know).
    h = binary_credential().hex()
    put_credential(e, (h + "\n").encode())
    e.run_seed("load")
    check(e.credited() == [h], "the hex credential was not credited on its first boot", e.out)
    for junk in (b"\n\x1a", b"\x1a", b"\x7f", b"\0\x01", b"\n\x1b\x1b", b"\x01" + os.urandom(32).hex().encode()):
        e.new_boot()
        data = h.encode() + junk
        put_credential(e, data)
        e.run_seed("load")
        check(e.credited().count(h) == 1 and data.rstrip(b"\0\r\n").hex() not in e.credited()
              and data.hex() in e.mixed(), f"hex + {junk[:4]!r} was credited", e.out)
        check("it is text" in e.out, f"hex + {junk[:4]!r}: message", e.out)
    # A fresh secret with a stray byte is not credited either.
    e.new_boot()
    data = binary_credential().hex().encode() + b"\n\x1a"
    put_credential(e, data)
    e.run_seed("load")
    check(data.rstrip(b"\0\r\n").hex() not in e.credited() and bytes.fromhex(data[:64].decode()).hex()
          not in e.credited() and data.hex() in e.mixed(), "fresh hex + ^Z was credited", e.out)


TEXTS = {
    "33 x a + TAB": b"a" * 33 + b"\t",
    "ASCII with newlines": b"correct horse battery staple\nand another line of text here\n",
    "ASCII CRLF": b"line one of a passphrase\r\nline two of a passphrase\r\n",
    "UTF-8": "pässwörd für dïe Ümgebung — ñ ç ø å æ œ ß ünd mehr".encode(),
    "UTF-8 BOM": b"\xef\xbb\xbf" + "zeichenkette mit größe und länge".encode(),
    "Latin-1": "pässwörd für dïe Ümgebung ñ ç ø å æ ß und mehr text".encode("latin-1"),
    "UTF-16LE BOM": "\ufeffa passphrase in UTF-16, little end".encode("utf-16-le"),
    "UTF-16BE BOM": "\ufeffa passphrase in UTF-16, big endian".encode("utf-16-be"),
    "UTF-16LE": "a passphrase without a byte order mark".encode("utf-16-le"),
    "UTF-16LE + NUL": "passphrase with a terminator".encode("utf-16-le") + b"\0\0",
    "UTF-32LE BOM": "\ufeffUTF-32 passphrase".encode("utf-32-le"),
    "hex, odd length": (os.urandom(33).hex()[:65]).encode(),
}


def text_never_credited(e, name, data):
    e.new_boot()
    put_credential(e, data)
    e.run_seed("load")
    check(data.hex() not in e.credited() and data.rstrip(b"\0\r\n").hex() not in e.credited()
          and data.hex() in e.mixed(), f"text ({name}) was credited", e.out)
    check("it is text" in e.out, f"{name}: message", e.out)


@case
def text_in_any_encoding_is_never_credited(e):
    for name, data in TEXTS.items():
        text_never_credited(e, name, data)


RU = "Пароль для виртуальной машины: секретная фраза номер один"


@case
def utf16_with_a_byte_order_mark_is_never_credited(e):
    # Whatever follows the mark: a noncharacter or a lone surrogate in the
    # middle of Cyrillic text once made all of it 8 bits a byte.
    for bo in ("le", "be"):
        t = RU.encode("utf-16-" + bo)
        bom = "\ufeff".encode("utf-16-" + bo)
        lone = b"\x00\xd8" if bo == "le" else b"\xd8\x00"
        text_never_credited(e, f"UTF-16{bo} mark + U+FFFF", bom + t[:20] + b"\xff\xff" + t[20:])
        text_never_credited(e, f"UTF-16{bo} mark + lone surrogate", bom + t[:20] + lone + t[20:])
    text_never_credited(e, "UTF-8 mark + 0xff", b"\xef\xbb\xbf" + RU.encode()[:40] + b"\xff" + RU.encode()[40:])


@case
def utf16_with_an_odd_stray_byte_is_never_credited(e):
    for bo in ("le", "be"):
        t = RU.encode("utf-16-" + bo)
        for stray in (b" ", b"\x1a", b"\xff"):
            text_never_credited(e, f"UTF-16{bo} + {stray!r}", t + stray)
            text_never_credited(e, f"UTF-16{bo} mark + {stray!r}", "\ufeff".encode("utf-16-" + bo) + t + stray)


@case
def utf16_cyrillic_without_a_byte_order_mark_is_never_credited(e):
    for bo in ("le", "be"):
        text_never_credited(e, f"UTF-16{bo} Cyrillic", RU.encode("utf-16-" + bo))
        text_never_credited(e, f"UTF-16{bo} Greek",
                            "Ο κωδικός της εικονικής μηχανής είναι μυστικός".encode("utf-16-" + bo))


@case
def credential_not_roots_alone_is_mixed(e):
    x = binary_credential()
    for what, kw in (("owned by UID 1000", {"uid": 1000}), ("mode 0644", {"mode": 0o644}),
                     ("mode 0606", {"mode": 0o606}), ("mode 0620", {"mode": 0o620})):
        e.new_boot()
        put_credential(e, x, **kw)
        e.run_seed("load")
        check(x.hex() not in e.credited() and x.hex() in e.mixed(), f"a credential {what} was credited", e.out)
    # An inherited $CREDENTIALS_DIRECTORY that is someone else's.
    e.new_boot()
    d = os.path.join(e.root, "home/user/creds")
    put_credential(e, x, dir_rel="home/user/creds")
    os.chown(d, 1000, 1000)
    os.chmod(d, 0o777)
    e.run_seed("load", env={"CREDENTIALS_DIRECTORY": "/home/user/creds"})
    check(x.hex() not in e.credited(), "a credential in a directory others may write was credited", e.out)


def posix_acl(*entries):
    """The kernel's system.posix_acl_access value: version 2, then (tag,
    permissions, id) for each entry."""
    import struct
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *x) for x in entries)


@case
def credential_readable_by_others_through_its_group_is_mixed(e):
    # Group read is there for systemd's root service (group root). Another
    # group, or an access ACL (whose mask is what the group bits then show)
    # naming another user, lets someone who is not root read it.
    x = binary_credential()
    e.new_boot()
    path = put_credential(e, x, mode=0o440)
    os.chown(path, 0, 100)
    e.run_seed("load")
    check(x.hex() not in e.credited() and x.hex() in e.mixed(), "a credential that GID 100 may read was credited",
          e.out)
    check("group" in e.out, "message", e.out)
    e.new_boot()
    path = put_credential(e, x, mode=0o440)
    try:
        # user::r--, user:1000:r--, group::---, mask::r--, other::---
        os.setxattr(path, "system.posix_acl_access",
                    posix_acl((0x01, 4, 0xffffffff), (0x02, 4, 1000), (0x04, 0, 0xffffffff),
                              (0x10, 4, 0xffffffff), (0x20, 0, 0xffffffff)))
    except OSError as err:
        print(f"skip the ACL half of credential_readable_by_others_through_its_group_is_mixed: {err}")
    else:
        e.run_seed("load")
        check(x.hex() not in e.credited() and x.hex() in e.mixed(), "a credential that UID 1000 may read (ACL) was "
              "credited", e.out)
        check("access control list" in e.out, "message", e.out)
    # Root's group alone, as systemd leaves it: still credited.
    y = binary_credential()
    e.new_boot()
    put_credential(e, y, mode=0o440)
    e.run_seed("load")
    check(y.hex() in e.credited(), "a credential of root's, readable by group root, was not credited", e.out)


@case
def credential_memory_obeys_rule_6(e):
    x = binary_credential()
    put_credential(e, x)
    e.run_seed("load")
    check(e.credited() == [x.hex()], "first credit", e.out)
    mem = os.path.join(e.seeds, "credentials")
    for what, spoil, undo in (
            ("mode 0644", lambda: os.chmod(mem, 0o644), lambda: os.chmod(mem, 0o600)),
            ("a second link", lambda: os.link(mem, os.path.join(e.root, "var/lib/mem-link")),
             lambda: os.unlink(os.path.join(e.root, "var/lib/mem-link"))),
            ("owned by UID 1000", lambda: os.chown(mem, 1000, 0), lambda: os.chown(mem, 0, 0))):
        e.new_boot()
        y = binary_credential()
        put_credential(e, y)
        spoil()
        e.run_seed("load")
        undo()
        check(y.hex() not in e.credited(), f"credited with a memory {what}", e.out)
        check("breaks rule 6" in e.out, f"{what}: message", e.out)


@case
def credential_memory_in_memory_is_not_kept(e):
    # systemd.volatile=state, a /var/lib on a tmpfs or a RAM disk: the seed
    # directory is empty at every boot, its memory of credentials too, while
    # the hypervisor hands over the same credential again. Remembered there,
    # it would be credited at every boot.
    mounts = {"a tmpfs": f"mount -t tmpfs tmpfs '{e.root}/var/lib'"}
    if shutil.which("losetup") and shutil.which("mkfs.ext4"):
        ram = os.path.join(e.top, "ram")
        os.makedirs(ram)
        mounts["an ext4 on a loop file in a tmpfs"] = (
            f"mount -t tmpfs tmpfs '{ram}'; truncate -s 16M '{ram}/ext4'; mkfs.ext4 -q '{ram}/ext4'; "
            f"dev=$(losetup -f --show '{ram}/ext4'); mount \"$dev\" '{e.root}/var/lib'; losetup -d \"$dev\"")
    for what, mount in mounts.items():
        x = binary_credential()

        def boot():
            e.new_boot()
            put_credential(e, x)
            rc, out = in_namespace(f"{mount}; exec '{SEED_BIN}' load --root='{e.root}' --seed-dir={e.seeds_rel}",
                                   e.env)
            if rc == 32 or "losetup" in out:
                print(f"SKIP: credential_memory_in_memory_is_not_kept: {what}: no loop device here: {out}")
                return None
            check(rc == 0, f"load with the seed directory on {what} exited {rc}", out)
            return out

        for _ in range(2):
            out = boot()
            if out is None:
                break
            check(x.hex() not in e.credited() and x.hex() in e.mixed(),
                  f"a credential remembered only on {what} was credited", out)
            check("forgets at the next boot" in out, f"{what}: message", out)
    # The opt-in of the initrd: credited, and said not to be remembered.
    e.write_conf("[Seed]\nCreditCredentialWithoutMemory=yes\n")
    x = binary_credential()
    e.new_boot()
    put_credential(e, x)
    rc, out = in_namespace(f"{mounts['a tmpfs']}; exec '{SEED_BIN}' load --root='{e.root}' "
                           f"--seed-dir={e.seeds_rel}", e.env)
    check(rc == 0 and x.hex() in e.credited() and "not remembered" in out,
          "CreditCredentialWithoutMemory=yes did not credit on a tmpfs", out)


@case
def credential_from_a_credential_store_on_disk_is_mixed(e):
    # LoadCredential=entropy-gate.seed without a path: with no system
    # credential of that name, systemd hands over the file of that name in
    # /etc/credstore, /run/credstore, /usr/local/lib/credstore or
    # /usr/lib/credstore. A file on disk, the same at every boot and on
    # every clone of the image: each clone's first boot credited it; in
    # /run, whatever put it there (a copy of such a file).
    svc = "run/credentials/entropy-seed.service"
    env = {"CREDENTIALS_DIRECTORY": "/" + svc}
    for i, store in enumerate(("etc/credstore", "run/credstore", "usr/local/lib/credstore", "usr/lib/credstore")):
        x = binary_credential()
        e.new_boot()
        put_credential(e, x, dir_rel=svc)
        os.chmod(os.path.join(e.root, svc), 0o700)
        # Stored as hex, handed over as it is: one credential.
        put_credential(e, x.hex().encode() + b"\n" if i % 2 else x, mode=0o600, dir_rel=store)
        e.run_seed("load", env=env)
        check(x.hex() not in e.credited() and x.hex() in e.mixed(), f"a credential from {store} was credited", e.out)
        check("credential store" in e.out, f"{store}: message", e.out)
        shutil.rmtree(os.path.join(e.root, store))
    # One that cannot be read may be where it came from.
    x = binary_credential()
    e.new_boot()
    put_credential(e, x, dir_rel=svc)
    os.makedirs(os.path.join(e.root, "etc/credstore/entropy-gate.seed"))
    e.run_seed("load", env=env)
    check(x.hex() not in e.credited(), "credited beside a credential store entry that cannot be read", e.out)
    shutil.rmtree(os.path.join(e.root, "etc/credstore"))
    # Other bytes there: the hypervisor's own, credited.
    e.new_boot()
    put_credential(e, x, dir_rel=svc)
    put_credential(e, binary_credential(), mode=0o600, dir_rel="etc/credstore")
    e.run_seed("load", env=env)
    check(x.hex() in e.credited(), "a credential other than the one on disk was not credited", e.out)


@case
def lock_timeout_credits_no_credential(e):
    # Whatever CreditCredentialWithoutMemory= says.
    import fcntl
    e.make_seed()
    e.write_conf("[Seed]\nCreditCredentialWithoutMemory=yes\n")
    x = binary_credential()
    put_credential(e, x)
    fd = os.open(e.seeds, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        e.run_seed("load", expect=1)
    finally:
        os.close(fd)
    check(e.credited() == [] and x.hex() in e.mixed(), "a credential was credited without its memory", e.out)


@case
def unidentified_boot_credits_no_credential(e):
    x = binary_credential()
    put_credential(e, x)
    os.unlink(os.path.join(e.root, "proc/sys/kernel/random/boot_id"))
    e.run_seed("load")
    check(e.credited() == [] and x.hex() in e.mixed(), "a credential was credited in a boot without an id", e.out)

# --- provision: nothing but regular files is opened; a failure writes nothing -----

def opened_for_reading(log, names):
    """The open calls in strace's @log that name one of @names (a last
    component) without O_PATH, O_DIRECTORY or O_CREAT: a file opened for
    reading, which a device's driver would see."""
    bad = []
    with open(log) as f:
        for line in f:
            if not any(f'"{n}"' in line or f'/{n}"' in line for n in names):
                continue
            if not any(c in line for c in ("open(", "openat(", "openat2(")):
                continue
            if not any(flag in line for flag in ("O_PATH", "O_DIRECTORY", "O_CREAT")):
                bad.append(line.strip())
    return bad


def traced_env(e):
    """@e's environment for a run under strace: LeakSanitizer cannot run
    under ptrace, so it is off in a sanitizer build."""
    return dict(e.env, ASAN_OPTIONS=(os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":"))


def traced(args, env, log):
    return run(["strace", "-f", "-qq", "-o", log, "-e", "trace=open,openat,openat2", *args], env, timeout=60)


@case
def provision_never_opens_a_device_or_fifo(e):
    # A device planted at IMG/etc/machine-id (or at the configuration's path)
    # is reported, never opened: opening one runs its driver (a watchdog's
    # node arms the host's watchdog). /dev/zero's numbers stand for any.
    for rel, what in (("etc/machine-id", "machine-id"), (cli.CONF_FILE.lstrip("/"), "configuration")):
        for kind in ("chr", "fifo"):
            img = image(e.top, f"img-{what}-{kind}")
            p = os.path.join(img, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            if os.path.lexists(p):
                os.unlink(p)
            if kind == "chr":
                os.mknod(p, 0o644 | 0o020000, os.makedev(1, 5))
            else:
                os.mkfifo(p)
            rc, out = provision(e, img)
            check(rc == 1 and "not a regular file" in out, f"provision with a {kind} at /{rel} exited {rc}", out)
            check(not os.path.exists(os.path.join(img, "var/lib/entropy-gate/seed")),
                  f"provision wrote a seed with a {kind} at /{rel}", out)
            if shutil.which("strace"):
                log = os.path.join(e.top, f"strace-{what}-{kind}")
                rc, out = traced([SEED_BIN, "provision", "--root=" + img], e.env, log)
                bad = opened_for_reading(log, [os.path.basename(rel)])
                check(not bad, f"provision opened the {kind} at /{rel} for reading: {bad}", out)


@case
def provision_never_reads_efi_options(e):
    # An image's EFI variables are its firmware's, as its command line is
    # its boot loader's: FIFOs planted there are never opened.
    imgs = [image(e.top, "img-efi"), image(e.top, "img-efi-traced")]
    for img in imgs:
        for rel in (EFI_OPTIONS_CACHE, EFI_OPTIONS_VARIABLE):
            p = os.path.join(img, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            os.mkfifo(p)
    rc, out = provision(e, imgs[0])
    check(rc == 0, f"provision with FIFOs at the EFI options exited {rc}", out)
    if shutil.which("strace"):
        log = os.path.join(e.top, "strace-efi")
        rc, out = traced([SEED_BIN, "provision", "--root=" + imgs[1]], e.env, log)
        bad = opened_for_reading(log, [EFI_OPTIONS])
        check(not bad, f"provision opened the EFI options for reading: {bad}", out)


@case
def provision_failing_writes_nothing(e):
    # A failure after --machine-id= was checked must leave the tree as it
    # was: the machine-id is written last, once everything else held.
    mid = "00112233445566778899aabbccddeeff"
    old_mid = "fedcba9876543210fedcba9876543210\n"

    def mid_now(img):
        with open(os.path.join(img, "etc/machine-id")) as f:
            return f.read()

    # No /var/lib: the state file system is not mounted.
    img = image(e.top, "no-var-lib")
    shutil.rmtree(os.path.join(img, "var/lib"))
    rc, out = provision(e, img, "--machine-id=" + mid)
    check(rc == 1 and mid_now(img) == old_mid, f"provision without /var/lib exited {rc} and left {mid_now(img)!r}", out)

    # The seed directory's lock held by someone else.
    import fcntl
    img = image(e.top, "locked")
    seeds = os.path.join(img, "var/lib/entropy-gate")
    os.makedirs(seeds, mode=0o700)
    fd = os.open(seeds, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        rc, out = provision(e, img, "--machine-id=" + mid)
    finally:
        os.close(fd)
    check(rc == 1 and mid_now(img) == old_mid, f"provision with the lock held exited {rc} and left {mid_now(img)!r}", out)
    check("another process has held its lock" in out and "Connection timed out" not in out,
          "provision's lock timeout: message", out)

    # A leftover directory where the machine-id's temporary file goes:
    # named, and found before the seed is written.
    img = image(e.top, "leftover")
    os.makedirs(os.path.join(img, "etc/.#machine-id.new"))
    rc, out = provision(e, img, "--machine-id=" + mid)
    check(rc == 1 and ".#machine-id.new" in out and "Is a directory" not in out,
          f"provision with a directory at etc/.#machine-id.new exited {rc}", out)
    check(mid_now(img) == old_mid and not os.path.exists(os.path.join(img, "var/lib/entropy-gate/seed")),
          "provision wrote something although the machine-id could not be written", out)

    def provisioned(name):
        """A new image NAME, provisioned once: its path, its seed's, the seed."""
        img = image(e.top, name)
        rc, out = provision(e, img)
        check(rc == 0, f"provision exited {rc}", out)
        seed = os.path.join(img, "var/lib/entropy-gate/seed")
        with open(seed, "rb") as f:
            return img, seed, f.read()

    # A read-only /etc, its own file system (--cross-mounts): found before
    # the seed is written, not after an earlier good seed was replaced by
    # one bound to a machine-id that could not be written.
    img, seed, good = provisioned("etc-read-only")
    rc, out = in_namespace(f"mount -t tmpfs -o ro tmpfs '{img}/etc'; "
                           f"exec '{SEED_BIN}' provision --root='{img}' --cross-mounts --machine-id={mid}", e.env)
    with open(seed, "rb") as f:
        now = f.read()
    check(rc == 1 and "Read-only file system" in out and "nothing changed" in out,
          f"provision into a read-only /etc exited {rc}", out)
    check(now == good, "provision replaced a good seed although /etc was read-only", out)

    # A machine-id no rename may replace (immutable, append-only): the same.
    for attr in ("+i", "+a"):
        img, seed, good = provisioned("etc-machine-id" + attr)
        mid_file = os.path.join(img, "etc/machine-id")
        if subprocess.run(["chattr", attr, mid_file], capture_output=True).returncode != 0:
            print(f"SKIP: chattr {attr} is not supported here")
            continue
        try:
            rc, out = provision(e, img, "--machine-id=" + mid)
        finally:
            subprocess.run(["chattr", "-" + attr[1], mid_file], capture_output=True)
        with open(seed, "rb") as f:
            now = f.read()
        check(rc == 1 and "nothing changed" in out, f"provision over a machine-id chattr {attr} exited {rc}", out)
        check(now == good, f"provision replaced a good seed although the machine-id was chattr {attr}", out)

    # This host's pool not initialized: nothing written, an earlier good
    # seed and its directory's mode kept.
    img, seed, good = provisioned("not-ready")
    os.chmod(os.path.dirname(seed), 0o755)
    env = dict(e.env)
    env.pop("FAKE_POOL_STATE", None)
    env["FAKE_POOL_READY_AFTER_MS"] = "never"
    rc, out = run([SEED_BIN, "provision", "--root=" + img, "--machine-id=" + mid], env)
    with open(seed, "rb") as f:
        now = f.read()
    check(rc == 1 and "not initialized" in out, f"provision with the pool not initialized exited {rc}", out)
    check(now == good, "provision replaced a good seed while the pool was not initialized", out)
    check(os.stat(os.path.dirname(seed)).st_mode & 0o777 == 0o755, "provision changed the directory's mode", out)
    check(mid_now(img) == old_mid, "provision wrote the machine-id while the pool was not initialized", out)


def main():
    if os.geteuid() != 0:
        print("SKIP: seed-hostile needs root: root-owned seeds and bind mounts in a mount namespace")
        return 77
    if shutil.which("unshare") is None:
        print("SKIP: seed-hostile needs unshare(1) (util-linux) for its mount namespaces")
        return 77
    failed = []
    for fn in CASES:
        e = Env()
        try:
            fn(e)
            print(f"ok   {fn.__name__}")
        except (Failed, subprocess.TimeoutExpired) as f:
            print(f"FAIL {fn.__name__}: {f}")
            failed.append(fn.__name__)
        finally:
            e.cleanup()
    print(f"{len(CASES) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
