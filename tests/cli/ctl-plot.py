#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""entropyctl plot: a cold boot against a credited one from saved timelines
(and a timeline written by "timeline --json" itself), this boot, --output=
replacing a file atomically, usage errors; the SVG well-formed and
self-contained; then rendered in headless Chromium and checked there
(tests/tools/svg-check.py), the screenshots kept in ARTIFACT_DIR.

The picture in the README (docs/boot1-vs-boot2.svg, drawn by the demo) is
checked as well: well-formed, self-contained, two boots.

Usage: ctl-plot.py ENTROPYCTL_FAKE_POOL ARTIFACT_DIR SOURCE_DIR
Exit 77 (after everything else passed) when Chromium is not installed."""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ctl, art, src = sys.argv[1], sys.argv[2], sys.argv[3]
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from ctl_schema import validate  # noqa: E402
schemas = {v: json.load(open(os.path.join(src, "man", f"entropyctl-{v}.schema.json"))) for v in ("plot", "timeline")}
os.makedirs(art, exist_ok=True)
failed = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failed.append(what)


def run(args, env_root):
    env = dict(os.environ, EG_TEST_ROOT=env_root, NO_COLOR="1")
    return subprocess.run([ctl] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def ev(usec, kind, text, unit=None, source="systemd"):
    return {"monotonic_usec": usec, "event": kind, "source": source, "unit": unit, "text": text}


def boot(credited):
    """A boot as the systemd tier records it: cold (no seed, the gate waits
    for the kernel) or credited (the pool ready before the gate starts)."""
    crng = 4_300_000 if credited else 7_900_000
    g0, rel = (5_000_000, 5_000_300) if credited else (5_100_000, crng + 2_000)
    es = [
        ev(0, "kernel-started", "kernel started", source="kernel"),
        ev(1_900_000, "userspace-started", "user space started: Run /init as init process", source="journal"),
        ev(3_000_000, "systemd-started", "systemd started (PID 1 on the root file system)"),
        ev(4_200_000, "seed-unit-starting", "entropy-seed.service: starting (load)", "entropy-seed.service"),
        ev(4_300_000, "seed-loaded", "entropy-seed: seed loaded, credited 2048 bits" if credited else
           "entropy-seed: seed loaded, not credited: no seed file", "entropy-seed.service", "runstate"),
        ev(crng, "crng-init-done", "kernel: random: crng init done", source="journal"),
        ev(4_400_000, "gate-unit-starting", "entropy-gate.service: starting", "entropy-gate.service"),
        ev(g0, "gate-started", "entropy-gate started: the pool was " +
           ("already initialized" if credited else "not initialized, waiting"), "entropy-gate.service", "runstate"),
        ev(rel, "gate-released", "entropy-gate released: ready, waited " + ("0.000s" if credited else "2.802s"),
           "entropy-gate.service", "runstate"),
        ev(rel + 3_000, "gate-unit-ready", "entropy-gate.service: ready (READY=1)", "entropy-gate.service"),
        ev(rel + 4_000, "target-reached", "entropy-ready.target reached", "entropy-ready.target"),
    ]
    if credited:
        es.append(ev(4_300_000, "credential-loaded", "entropy-seed: credential credited, 384 bits",
                     "entropy-seed.service", "runstate"))
    for i, u in enumerate(("ssh-keygen-once.service", "eg-vm-consumer.service")):
        es.append(ev(rel + 50_000 + i * 20_000, "unit-starting", f"{u} starting (ordered after entropy-ready.target)", u))
        es.append(ev(rel + 900_000 + i * 300_000, "unit-started", f"{u} started (ordered after entropy-ready.target)", u))
    es.sort(key=lambda e: e["monotonic_usec"])
    return {"schema_version": 1, "events": es, "not_found": [], "notes": []}


def svg_ok(path, what):
    if not os.path.exists(path):
        check(False, f"{what}: exists")
        return None
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        check(False, f"{what}: well-formed XML ({e})")
        return None
    check(root.tag == "{http://www.w3.org/2000/svg}svg", f"{what}: an SVG document ({root.tag})")
    text = open(path, encoding="utf-8").read()
    for bad in ("<script", "href", "@import", "url(", "<image", "<foreignObject"):
        check(bad not in text, f"{what}: nothing external or active ({bad!r} absent)")
    return text


with tempfile.TemporaryDirectory() as tmp:
    cold, cred = os.path.join(tmp, "boot1-cold.json"), os.path.join(tmp, "boot2-credited.json")
    json.dump(boot(False), open(cold, "w"))
    json.dump(boot(True), open(cred, "w"))

    out = os.path.join(art, "cold-vs-credited.svg")
    p = run(["plot", cold, "--compare=" + cred, "--output=" + out], tmp)
    check(p.returncode == 0 and p.stdout == b"", f"plot FILE --compare= --output= exits 0, prints nothing ({p.returncode}, {p.stderr!r})")
    text = svg_ok(out, "two boots")
    if text:
        for want in ("boot1-cold", "boot2-credited", "not credited: no seed file", "credited 2048 bits",
                     "credited, 384 bits", "none passed to this boot", "ready, waited 2.802s",
                     "crng init done 7.90 s", "crng init done 4.30 s", "ssh-keygen-once.service"):
            check(want in text, f"two boots: the picture says {want!r}")
        check(oct(os.stat(out).st_mode & 0o777) == "0o644", "--output= file is 0644")
        check(not [f for f in os.listdir(art) if f.startswith(".")], "no temporary file left behind")

    # Standard output, and a timeline written by entropyctl itself read back.
    run_dir = os.path.join(tmp, "run", "entropy-gate")
    os.makedirs(run_dir)
    open(os.path.join(run_dir, "seed"), "w").write(
        "ACTION=not-credited\nBITS=0\nREASON=seed is bound to another machine (machine-id changed: cloned image?)\n"
        "CREDENTIAL=mixed\nCREDENTIAL_BITS=0\nBOOTTIME_USEC=2500000\n")
    open(os.path.join(run_dir, "gate"), "w").write(
        "OUTCOME=ready\nREADY_AT_START=no\nSTART_BOOTTIME_USEC=2600000\nEND_BOOTTIME_USEC=3250000\nWAITED_USEC=650000\n")
    p = run(["timeline", "--json=short"], tmp)
    check(p.returncode == 0, f"timeline --json exits 0 ({p.returncode})")
    saved = os.path.join(tmp, "saved.json")
    open(saved, "wb").write(p.stdout)
    doc = json.loads(p.stdout)
    kinds = [e["event"] for e in doc["events"]]
    check("gate-started" in kinds and "credential-loaded" in kinds, f"timeline has gate-started and credential-loaded ({kinds})")
    p = run(["plot", saved], tmp)
    check(p.returncode == 0 and p.stdout.startswith(b"<?xml"), f"plot of a saved timeline to standard output ({p.returncode})")
    for want in (b"seed is bound to another machine", b"mixed in, not credited", b"ready, waited 0.650s"):
        check(want in p.stdout, f"saved timeline: the picture says {want!r}")
    p = run(["plot"], tmp)
    check(p.returncode == 0 and b"this boot" in p.stdout, f"plot of this boot exits 0 ({p.returncode}, {p.stderr[-300:]!r})")

    # --json=: the boots it would draw, each the timeline it read, in order.
    p = run(["plot", saved, "--compare=" + cold, "--json=short"], tmp)
    check(p.returncode == 0 and p.stdout.startswith(b"{") and p.stdout.count(b"\n") == 1,
          f"plot --json=short: one line of JSON ({p.returncode}, {p.stdout[:80]!r})")
    doc = json.loads(p.stdout)
    check([b["label"] for b in doc["boots"]] == ["saved", "boot1-cold"], f"plot --json labels: {doc['boots']}")
    check(doc["boots"][0]["timeline"] == json.load(open(saved)), "plot --json: the saved timeline as it was read")
    check(doc["boots"][1]["timeline"]["events"] == json.load(open(cold))["events"],
          "plot --json: the compared boot's events as they were read")
    json_out = os.path.join(tmp, "plot.json")
    p = run(["plot", "--json=pretty", "--output=" + json_out], tmp)
    check(p.returncode == 0 and not p.stdout and json.load(open(json_out))["boots"][0]["label"] == "this boot",
          f"plot --json --output= writes this boot's JSON to the file ({p.returncode}, {p.stdout[:80]!r})")

    # A saved timeline from elsewhere: a source this version does not know,
    # none at all, a unit and a text that are not UTF-8. Its boots are still
    # documents of the schemas.
    foreign = os.path.join(tmp, "foreign.json")
    open(foreign, "wb").write(
        b'{"schema_version": 1, "events": ['
        b'{"monotonic_usec": 1, "event": "kernel-started", "source": "firmware", "unit": null, "text": "k"},'
        b'{"monotonic_usec": 2, "event": "systemd-started", "unit": null, "text": "s"},'
        b'{"monotonic_usec": 3, "event": "unit-started", "source": "systemd", "unit": "a\xffb.service",'
        b' "text": "t\xfe"}], "not_found": [], "notes": []}')
    p = run(["plot", foreign, "--json=short"], tmp)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        doc = {}
    errors = validate(doc, schemas["plot"])
    for b in doc.get("boots", []):
        errors += validate(b.get("timeline"), schemas["timeline"], "timeline")
    check(p.returncode == 0 and doc and not errors, f"plot --json of a foreign timeline: the schemas hold ({p.returncode}, {errors})")
    events = doc["boots"][0]["timeline"]["events"] if doc else []
    check([(e["source"], e["unit"]) for e in events] ==
          [("unknown", None), ("unknown", None), ("systemd", list(b"a\xffb.service"))],
          f"plot --json of a foreign timeline: sources and units as read ({events})")

    # Errors.
    bad = os.path.join(tmp, "bad.json")
    open(bad, "w").write('{"schema_version": 1, "events": [')
    for args, rc, msg in ((["plot", bad], 1, b"is not a saved 'entropyctl timeline --json'"),
                          (["plot", os.path.join(tmp, "missing.json")], 1, b"Failed to read"),
                          (["plot", cold, cred], 2, b"Usage: entropyctl plot"),
                          (["plot", "--json=yaml"], 2, b"Unknown --json= format"),
                          (["timeline", "--compare=" + cold], 2, b"does not take --compare="),
                          (["status", "--output=" + bad], 2, b"does not take --output="),
                          (["plot", "--output="], 2, b"needs a file")):
        p = run(args, tmp)
        check(p.returncode == rc and p.stderr.startswith(b"entropyctl: ") and msg in p.stderr,
              f"{args[0]} {' '.join(a.replace(tmp, '') for a in args[1:])}: exit {rc} saying {msg!r} ({p.returncode}, {p.stderr!r})")

readme_svg = os.path.join(src, "docs", "boot1-vs-boot2.svg")
text = svg_ok(readme_svg, "docs/boot1-vs-boot2.svg")
if text:
    check(text.count('<g class="boot"') == 2 and "crng init done" in text,
          "docs/boot1-vs-boot2.svg: two boots, each with its crng init")
    check("docs/boot1-vs-boot2.svg" in open(os.path.join(src, "README.md"), encoding="utf-8").read(),
          "the README shows docs/boot1-vs-boot2.svg")

if failed:
    print(f"ctl-plot: {len(failed)} failed")
    sys.exit(1)

# What a person sees: in a browser, light and dark.
r = subprocess.run([sys.executable, os.path.join(here, "..", "tools", "svg-check.py"), "--cold",
                    "--label", "boot1-cold", "--label", "boot2-credited",
                    out, os.path.join(art, "cold-vs-credited.png")])
if r.returncode == 77:
    sys.exit(77)
if r.returncode != 0:
    print("ctl-plot: the rendered picture failed its checks")
    sys.exit(1)
print("ctl-plot: ok; screenshots in " + art)
