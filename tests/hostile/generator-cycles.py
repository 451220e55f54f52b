#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The generator never makes an ordering cycle with a distribution's units,
whatever the file system layout: every unit that would close one is refused.

For each distribution root (this system's own, or a Debian tree built with
debootstrap) and each layout of /etc/fstab (the root file system alone; a
separate /var, grown at boot, and a separate /var/lib; /var on LUKS), the
distribution's own systemd-fstab-generator (and cryptsetup generator)
writes the mount (and cryptsetup) units, and the distribution's
own systemd-analyze verify decides, over every service, socket, timer and
path unit the distribution ships, which of them close an ordering cycle
through entropy-ready.target when gated (Wants= + After=, the generator's
drop-in). They are found by group testing: everything is gated at once in
one start transaction; each cycle systemd reports through
entropy-ready.target names gated units that close one on their own (the
path from entropy-ready.target to them uses no other gate, or it would have
met the target first); those lose their drop-in and the next round runs,
until no cycle is left. Each unit found is then confirmed alone.

The generator, given every one of those names, must refuse each unit found,
accept the ordinary services (ssh, cron, nginx, ...), and its drop-ins,
all at once, must leave the transaction without a cycle.

usage: generator-cycles.py GENERATOR CONF_FILE UNITS_BUILD_DIR NAME=ROOT [--make-root SCRIPT]

ROOT "/" is this system. Another ROOT is entered with chroot; when it does
not exist and --make-root is given, SCRIPT NAME ROOT builds it
(debootstrap; skip when that is not possible here). KEEP=1 keeps the work
directory.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

GATE = "[Unit]\nWants=entropy-ready.target\nAfter=entropy-ready.target\n"
OURS = ("entropy-seed.service", "entropy-gate.service", "entropy-ready.target")
LAYOUTS = {   # name: (fstab, crypttab)
    "root-only": ("/dev/vda1 / ext4 errors=remount-ro 0 1\n", None),
    "separate-var": ("/dev/vda1 / ext4 errors=remount-ro 0 1\n"
                     "/dev/vda2 /var ext4 defaults,x-systemd.growfs 0 2\n"
                     "/dev/vda3 /var/lib ext4 defaults 0 2\n"
                     "/dev/vda4 none swap sw 0 0\n", None),
    # /var on LUKS: systemd-cryptsetup-generator's units come before it.
    "encrypted-var": ("/dev/vda1 / ext4 errors=remount-ro 0 1\n"
                      "/dev/mapper/var /var ext4 defaults 0 2\n",
                      "var /dev/vda2 none luks\n"),
}
# Services an image builder gates; each one the tree has must be accepted.
ORDINARY = ("ssh.service", "sshd.service", "cron.service", "nginx.service", "chrony.service",
            "dbus.service", "systemd-logind.service", "getty@tty1.service",
            "systemd-timesyncd.service", "systemd-resolved.service", "systemd-networkd.service",
            "e2scrub_all.service", "fstrim.service", "apt-daily.service", "logrotate.service")
UNIT_RE = re.compile(r"([A-Za-z0-9:_.\\@-]+\.(?:service|socket|target|device|mount|automount|swap|timer|path|slice|scope))/[a-z-]+")


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def skip(msg):
    print(f"SKIP: {msg}")
    sys.exit(77)


class Dist:
    def __init__(self, name, root, work):
        self.name, self.root = name, root
        # The work directory, as seen inside the root and from here.
        self.inner = "/" + os.path.relpath(work, root) if root != "/" else work
        self.work = work

    def run(self, argv, env=None):
        if self.root != "/":
            argv = ["chroot", self.root] + argv
        e = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "SYSTEMD_LOG_COLOR": "0"}
        e.update(env or {})
        return subprocess.run(argv, env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, errors="replace")

    def host(self, inner):
        return self.work + inner[len(self.inner):]

    def unit_dirs(self):
        """The distribution's unit directories, inside the root, each once."""
        seen, dirs = set(), []
        for d in ("/etc/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system"):
            p = os.path.join(self.root, d.lstrip("/"))
            if not os.path.isdir(p):
                continue
            st = os.stat(p)
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            dirs.append(d)
        return dirs

    def tool(self, *names):
        for n in names:
            if os.path.exists(os.path.join(self.root, n.lstrip("/"))):
                return n
        return None


# Units that belong to another boot than the normal one: the initrd's, and
# those that stop the machine (they require shutdown.target and its kin and
# conflict with everything else). In one transaction with the normal boot
# they would make systemd drop jobs to resolve conflicts, at random.
OTHER_BOOT = re.compile(
    r"^(Condition|Assert)PathExists=(/usr/lib|/etc)/initrd-release\s*$"
    r"|^(Requires|BindsTo|Wants)=.*\b(shutdown|sleep|final|umount|halt|poweroff|reboot|kexec|exit|soft-reboot"
    r"|rescue|emergency)\.target\b", re.M)
OTHER_BOOT_NAMES = ("rescue.service", "emergency.service")


def other_boot(path):
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError:
        return False
    return OTHER_BOOT.search(text) is not None


def candidates(dist):
    """Every service, socket, timer and path unit the distribution ships
    (templates with an instance), leaving out those of another boot
    (OTHER_BOOT), which never share a transaction with the seed helper."""
    names = set()
    for d in dist.unit_dirs():
        if d.startswith("/etc/"):
            continue    # enablement and local units, not the distribution's
        hd = os.path.join(dist.root, d.lstrip("/"))
        for n in os.listdir(hd):
            p = os.path.join(hd, n)
            if not re.search(r"\.(service|socket|timer|path)$", n) or n.startswith("entropy-"):
                continue
            if os.path.islink(p) and os.readlink(p) == "/dev/null":
                continue
            if os.path.isdir(p) or n in OTHER_BOOT_NAMES or other_boot(p):
                continue
            names.add(re.sub(r"@\.", "@eg-test.", n))
    return sorted(names)


def cycles(output):
    """The cycles systemd-analyze reports, each as the set of units in it.
    systemd 252 writes one line per step ("Found ordering cycle on A/start",
    "Found dependency on B/start", ...); later versions one line ("Found
    ordering cycle: A/start after B/start ..."). Both are read."""
    found, cur = [], None
    for line in output.splitlines():
        if "Found ordering cycle" in line:
            cur = set()
            found.append(cur)
            cur.update(UNIT_RE.findall(line.split("Found ordering cycle", 1)[1]))
        elif "Found dependency on" in line and cur is not None:
            cur.update(UNIT_RE.findall(line.split("Found dependency on", 1)[1]))
        elif "to break ordering cycle" in line:
            cur = None
    return found


class Probe:
    def __init__(self, dist, ours, fstab_out):
        self.dist, self.ours, self.fstab_out = dist, ours, fstab_out
        self.dir = dist.inner + "/probe"
        os.makedirs(dist.host(self.dir), exist_ok=True)

    def verify(self, gate_dir, wanted, debug=False):
        with open(self.dist.host(self.dir) + "/eg-probe.target", "w") as f:
            f.write("[Unit]\nDescription=probe\nWants=entropy-seed.service entropy-ready.target "
                    + " ".join(wanted) + "\n")
        path = ":".join([self.dir, gate_dir, self.ours, self.fstab_out] + self.dist.unit_dirs())
        r = self.dist.run(["systemd-analyze", "verify", "--man=no", self.dir + "/eg-probe.target"],
                          {"SYSTEMD_UNIT_PATH": path, "SYSTEMD_LOG_LEVEL": "debug" if debug else "info"})
        return r.stdout


def write_gates(dist, inner, units):
    d = dist.host(inner)
    shutil.rmtree(d, ignore_errors=True)
    for u in units:
        os.makedirs(f"{d}/{u}.d")
        with open(f"{d}/{u}.d/50-entropy-gate.conf", "w") as f:
            f.write(GATE)


def find_cycling(dist, probe, names, layout):
    """Group testing, as the module's comment says."""
    out = probe.verify(dist.inner + "/none", names, debug=True)
    if cycles(out):
        fail(f"{dist.name}/{layout}: a cycle without any drop-in, the probe cannot tell: "
             + "\n".join(l for l in out.splitlines() if "cycle" in l or "dependency on" in l))
    # A start job dropped to resolve a conflict would hide what it orders.
    dropped = re.findall(r"Fixing conflicting jobs .* by deleting job (\S+/start)", out)
    if dropped:
        fail(f"{dist.name}/{layout}: units of another boot in the transaction, jobs dropped: {dropped}")
    gates = dist.inner + "/gates"
    left, found, rounds = set(names), set(), 0
    while True:
        rounds += 1
        write_gates(dist, gates, sorted(left))
        ours = [c for c in cycles(probe.verify(gates, names)) if c & set(OURS)]
        if not ours:
            break
        new = set().union(*ours) & left
        if not new:
            fail(f"{dist.name}/{layout}: a cycle through our units that no gate closes: {ours}")
        found |= new
        left -= new
    # Each alone, in the same transaction with nothing else gated.
    for u in sorted(found):
        write_gates(dist, gates, [u])
        if not any(u in c and "entropy-ready.target" in c for c in cycles(probe.verify(gates, names))):
            fail(f"{dist.name}/{layout}: {u} closed a cycle among others but not alone")
    return found, rounds


def main():
    args = sys.argv[1:]
    make_root = None
    if "--make-root" in args:
        i = args.index("--make-root")
        make_root = args[i + 1]
        del args[i:i + 2]
    if len(args) != 4 or "=" not in args[3]:
        fail(__doc__.split("usage: ")[1].split("\n")[0])
    gen, conf_file, units_dir, spec = args
    name, root = spec.split("=", 1)

    if root != "/" and not os.path.isdir(os.path.join(root, "usr/lib/systemd/system")):
        if not make_root:
            skip(f"no {name} tree at {root}")
        if os.geteuid() != 0 or not shutil.which("debootstrap"):
            skip(f"no {name} tree at {root}, and building one needs root and debootstrap")
        r = subprocess.run([make_root, name, root])
        if r.returncode != 0:
            skip(f"could not build a {name} tree at {root} ({make_root} exited {r.returncode}): "
                 "no mirror reachable?")
    for u in OURS:
        if not os.path.isfile(os.path.join(units_dir, u)):
            fail(f"no {units_dir}/{u}: build the project first")

    base = os.path.join(root, "tmp") if root != "/" else None
    work = tempfile.mkdtemp(prefix="eg-cycles-", dir=base)
    try:
        dist = Dist(name, root, work)
        if not dist.tool("/usr/bin/systemd-analyze", "/bin/systemd-analyze"):
            skip(f"{name}: no systemd-analyze in {root}")
        fstab_gen = dist.tool("/usr/lib/systemd/system-generators/systemd-fstab-generator",
                              "/lib/systemd/system-generators/systemd-fstab-generator")
        if not fstab_gen:
            skip(f"{name}: no systemd-fstab-generator in {root}")
        version = dist.run(["systemd-analyze", "--version"]).stdout.split("\n")[0]

        os.makedirs(work + "/ours")
        for u in OURS:
            shutil.copy(os.path.join(units_dir, u), work + "/ours/")
        names = candidates(dist)
        if len(names) < 50:
            fail(f"{name}: only {len(names)} units found in {dist.unit_dirs()}: the test proves little")
        print(f"{name}: {version}, {len(names)} units")

        # The generator, once, over every name.
        groot = work + "/genroot"
        os.makedirs(groot + os.path.dirname(conf_file))
        os.makedirs(groot + "/proc")
        open(groot + "/proc/cmdline", "w").close()
        with open(groot + conf_file, "w") as f:
            f.write("[Gate]\nUnits=" + " ".join(names) + "\n")
        os.makedirs(work + "/normal")
        r = subprocess.run([gen, work + "/normal"], stderr=subprocess.PIPE, text=True,
                           env=dict(os.environ, SYSTEMD_LOG_TARGET="console", EG_TEST_ROOT=groot))
        if r.returncode != 0:
            fail(f"generator exited {r.returncode}: {r.stderr}")
        # Every name is valid and they are fewer than the limit, so what
        # is not gated was refused (the messages stop naming them after 32).
        gated = {d[:-2] for d in os.listdir(work + "/normal")}
        refused = set(names) - gated
        if "Invalid unit name" in r.stderr or not gated <= set(names):
            fail(f"the generator did not take the names as given: {r.stderr}")

        all_cycling = set()
        crypt_gen = dist.tool("/usr/lib/systemd/system-generators/systemd-cryptsetup-generator",
                              "/lib/systemd/system-generators/systemd-cryptsetup-generator")
        for layout, (fstab, crypttab) in LAYOUTS.items():
            if crypttab and not crypt_gen:
                print(f"{name}/{layout}: skipped, no systemd-cryptsetup-generator")
                continue
            with open(work + "/fstab", "w") as f:
                f.write(fstab)
            with open(work + "/crypttab", "w") as f:
                f.write(crypttab or "")
            fs_out = dist.inner + "/fstab-" + layout
            os.makedirs(dist.host(fs_out))
            env = {"SYSTEMD_FSTAB": dist.inner + "/fstab", "SYSTEMD_CRYPTTAB": dist.inner + "/crypttab",
                   "SYSTEMD_PROC_CMDLINE": "root=/dev/vda1 ro", "SYSTEMD_IN_INITRD": "0",
                   "SYSTEMD_LOG_TARGET": "console"}
            for g in [fstab_gen] + ([crypt_gen] if crypttab else []):
                r = dist.run([g, fs_out, fs_out, fs_out], env)
                if r.returncode != 0:
                    fail(f"{name}: {g} failed: {r.stdout}")
            probe = Probe(dist, dist.inner + "/ours", fs_out)
            cycling, rounds = find_cycling(dist, probe, names, layout)
            print(f"{name}/{layout}: {len(cycling)} units close a cycle ({rounds} rounds): "
                  + " ".join(sorted(cycling)))
            all_cycling |= cycling

            # The generator's own drop-ins, all at once: no cycle.
            gen_dir = dist.inner + "/gen-normal"
            shutil.rmtree(dist.host(gen_dir), ignore_errors=True)
            shutil.copytree(work + "/normal", dist.host(gen_dir))
            bad = [c for c in cycles(probe.verify(gen_dir, names)) if c & set(OURS)]
            if bad:
                fail(f"{name}/{layout}: the generator's drop-ins close a cycle: {bad}")

        if not all_cycling:
            fail(f"{name}: no unit closes a cycle on any layout: the probe proves nothing")
        missed = sorted(all_cycling - refused)
        if missed:
            fail(f"{name}: the generator gates units that close an ordering cycle: {' '.join(missed)}")
        wrongly = sorted(u for u in ORDINARY if u in names and u not in gated)
        if wrongly:
            fail(f"{name}: the generator refuses ordinary services: {' '.join(wrongly)}")
        print(f"{name}: generator: {len(gated)} gated, {len(refused)} refused, "
              f"of which {len(refused - all_cycling)} close no cycle here: "
              + " ".join(sorted(refused - all_cycling)))
        print(f"generator-cycles {name}: ok")
    finally:
        if not os.environ.get("KEEP"):
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept {work}")


if __name__ == "__main__":
    main()
