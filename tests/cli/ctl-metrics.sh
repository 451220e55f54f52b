#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# entropyctl metrics: the text format (promtool check metrics, when Debian's
# prometheus package is installed), --output= replacing the file, and the
# series as Prometheus sees them: a real prometheus-node-exporter on
# loopback, its textfile collector pointed at our file, scraped over HTTP.
# Two boots' records: a clone whose seed was not credited and whose gate
# waited, then a credited boot written over the same file.
# Then the example unit (systemd-analyze verify and security) and the
# example alerting rules (promtool check rules, and promtool test rules:
# each alert fires on the boot it is about and no other).
# Usage: ctl-metrics.sh ENTROPYCTL_FAKE_POOL ENTROPYCTL SOURCE_DIR
# Exit 77 (after the format checks) without prometheus-node-exporter.
set -eu
ctl=$1 realctl=$2 src=$3
tmp=$(mktemp -d)
exporter_pid=
cleanup() {
        if [ -n "$exporter_pid" ]; then
                kill "$exporter_pid" 2>/dev/null || true
                wait "$exporter_pid" 2>/dev/null || true
        fi
        rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

mkdir -p "$tmp/root/run/entropy-gate" "$tmp/textfile"
rec=$tmp/root/run/entropy-gate
printf 'ACTION=not-credited\nBITS=0\nREASON=seed is bound to another machine (machine-id changed: cloned image?)\nCREDENTIAL=none\nBOOTTIME_USEC=2500000\n' >"$rec/seed"
printf 'OUTCOME=ready\nREADY_AT_START=no\nSTART_BOOTTIME_USEC=2600000\nEND_BOOTTIME_USEC=3250000\nWAITED_USEC=650000\n' >"$rec/gate"
prom=$tmp/textfile/entropy-gate.prom

EG_TEST_ROOT=$tmp/root "$ctl" metrics --output="$prom" >"$tmp/stdout" || fail "metrics --output= exited $?"
[ -s "$tmp/stdout" ] && fail "metrics --output= printed to standard output"
cat "$prom"
[ "$(stat -c %a "$prom")" = 644 ] || fail "the file is mode $(stat -c %a "$prom"), not 0644"
[ -z "$(ls -A "$tmp/textfile" | grep -v '^entropy-gate.prom$')" ] || fail "left a temporary file: $(ls -A "$tmp/textfile")"
EG_TEST_ROOT=$tmp/root "$ctl" metrics >"$tmp/stdout2" || fail "metrics exited $?"
cmp -s "$prom" "$tmp/stdout2" || fail "standard output and --output= differ"
ok "metrics written, 0644, atomically, the same as on standard output"
# The ready source: one series per source, exactly one of them 1; here nothing
# was credited, the gate waited, and the root has no hardware RNG.
[ "$(grep -c '^entropy_gate_ready_source{source="[a-z]*"} [01]$' "$prom")" = 8 ] || fail "not 8 ready_source series"
[ "$(grep -c '^entropy_gate_ready_source{.*} 1$' "$prom")" = 1 ] || fail "not exactly one ready_source is 1"
grep -qxF 'entropy_gate_ready_source{source="jitter"} 1' "$prom" || fail "ready_source is not jitter"
ok "ready_source: jitter"

# --json=: the same facts as one object, each state set the name of the one
# series whose value is 1, durations in microseconds; --output= writes it.
EG_TEST_ROOT=$tmp/root "$ctl" metrics --json=short --output="$tmp/metrics.json" >"$tmp/stdout3" ||
        fail "metrics --json=short --output= exited $?"
[ -s "$tmp/stdout3" ] && fail "metrics --json --output= printed to standard output"
python3 - "$prom" "$tmp/metrics.json" <<'PY' || fail "metrics --json does not say what the text says"
import json, re, sys
text = open(sys.argv[1]).read()
doc = json.load(open(sys.argv[2]))
def one(name, label):
    hits = re.findall(r'^%s\{%s="([a-z_-]+)"\} 1$' % (name, label), text, re.M)
    assert len(hits) == 1, (name, hits)
    return hits[0]
def value(name):
    m = re.search(r"^%s ([0-9.]+)$" % name, text, re.M)
    return m and m.group(1)
want = {
    "gate.outcome": one("entropy_gate_gate_outcome", "outcome"),
    "seed.verdict": one("entropy_gate_seed_verdict", "reason"),
    "ready_source": one("entropy_gate_ready_source", "source"),
    "gate.wait_usec": round(float(value("entropy_gate_gate_wait_seconds")) * 1e6),
    "gate.released_usec": round(float(value("entropy_gate_gate_released_seconds")) * 1e6),
    "seed.credited": value("entropy_gate_seed_credited") == "1",
    "clone_suspected": value("entropy_gate_clone_suspected") == "1",
    "pool_initialized": value("entropy_gate_pool_initialized") == "1",
}
got = {k: (doc[k.split(".")[0]][k.split(".")[1]] if "." in k else doc[k]) for k in want}
print("metrics --json:", got)
assert got == want, (got, want)
assert (doc["schema_version"], doc["gate"]["outcome"], doc["seed"]["verdict"], doc["gate"]["wait_usec"],
        doc["clone_suspected"]) == (1, "ready", "other_machine", 650000, True), doc
PY
ok "metrics --json: the text's facts, as one object"

if command -v promtool >/dev/null; then
        promtool check metrics <"$prom" >"$tmp/promtool" 2>&1 || { cat "$tmp/promtool"; fail "promtool check metrics"; }
        [ -s "$tmp/promtool" ] && { cat "$tmp/promtool"; fail "promtool has remarks on the names"; }
        ok "promtool check metrics: no remarks"
else
        echo "note: promtool not installed (Debian's prometheus package), names not linted"
fi

if command -v promtool >/dev/null; then
        promtool check rules "$src/conf/prometheus/entropy-gate.rules.yml" || fail "promtool check rules"
        (cd "$src/conf/prometheus" && promtool test rules entropy-gate.rules.test.yml) || fail "promtool test rules"
        ok "the example alerting rules check, and each fires where it should"
        # docs/monitoring.md shows the rules verbatim.
        awk '/^```yaml$/ { on = 1; next } /^```$/ { on = 0 } on' "$src/docs/monitoring.md" >"$tmp/doc-rules.yml"
        grep -v '^#' "$src/conf/prometheus/entropy-gate.rules.yml" | cmp -s - "$tmp/doc-rules.yml" ||
                fail "docs/monitoring.md does not show conf/prometheus/entropy-gate.rules.yml as it is"
        ok "docs/monitoring.md shows the rules as they are"
fi

# The unit (installed with entropyctl; units-verify.sh checks it as
# installed) with the example drop-ins, against a tree with this entropyctl
# and this host's units.
if command -v systemd-analyze >/dev/null && [ -d /lib/systemd/system ]; then
        root=$tmp/unit-root
        mkdir -p "$root/usr/bin" "$root/usr/lib/systemd" "$root/etc/systemd/system"
        cp "$realctl" "$root/usr/bin/entropyctl"
        cp -r /lib/systemd/system "$root/usr/lib/systemd/"
        sed 's|@EG_BINDIR@|/usr/bin|g' "$src/units/entropy-gate-metrics.service.in" \
                >"$root/etc/systemd/system/entropy-gate-metrics.service"
        cp -r "$src/units/extra/entropy-gate.service.d" "$src/units/extra/entropy-seed.service.d" "$root/etc/systemd/system/"
        (cd "$root/etc/systemd/system" && SYSTEMD_LOG_COLOR=0 systemd-analyze verify --man=no --root="$root" \
                entropy-gate-metrics.service) >"$tmp/verify" 2>&1 || { cat "$tmp/verify"; fail "systemd-analyze verify"; }
        [ -s "$tmp/verify" ] && { cat "$tmp/verify"; fail "systemd-analyze verify has remarks"; }
        exposure=$(SYSTEMD_LOG_COLOR=0 systemd-analyze security --offline=yes --root="$root" entropy-gate-metrics.service 2>&1 |
                sed -n 's/.*Overall exposure level for entropy-gate-metrics.service: \([0-9.]*\).*/\1/p')
        awk -v e="$exposure" 'BEGIN { exit !(e != "" && e + 0 <= 2.5) }' || fail "exposure ${exposure:-?} above 2.5"
        ok "entropy-gate-metrics.service with the drop-ins of units/extra verifies; exposure $exposure"
fi

exporter=$(command -v prometheus-node-exporter || command -v node_exporter || true)
if [ -z "$exporter" ]; then
        echo "SKIP: prometheus-node-exporter not installed (scripts/install-deps installs it)"
        exit 77
fi
command -v curl >/dev/null || { echo "SKIP: curl not installed"; exit 77; }
# A free port on loopback, then the exporter with only the textfile collector.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$exporter" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults --collector.textfile \
        --collector.textfile.directory="$tmp/textfile" >"$tmp/exporter.log" 2>&1 &
exporter_pid=$!

# Wait for it to listen: as long as it is alive (no deadline of ours; ctest's timeout bounds a hang).
scrape() { curl -sf "http://127.0.0.1:$port/metrics" >"$tmp/scrape"; }
until scrape; do
        kill -0 "$exporter_pid" 2>/dev/null || { cat "$tmp/exporter.log"; fail "the exporter exited"; }
        sleep 0.2
done
ok "$("$exporter" --version 2>&1 | head -n1) on 127.0.0.1:$port"

has() { # has SERIES VALUE: the scrape has the series with exactly this value
        grep -qxF "$1 $2" "$tmp/scrape" || { grep -F "${1%%\{*}" "$tmp/scrape" >&2; fail "scrape lacks '$1 $2'"; }
        ok "scraped: $1 $2"
}
has node_textfile_scrape_error 0
has 'entropy_gate_clone_suspected' 1
has 'entropy_gate_seed_credited' 0
has 'entropy_gate_seed_verdict{reason="other_machine"}' 1
has 'entropy_gate_seed_verdict{reason="credited"}' 0
has 'entropy_gate_gate_outcome{outcome="ready"}' 1
has 'entropy_gate_gate_wait_seconds' 0.65
has 'entropy_gate_gate_released_seconds' 3.25
has 'entropy_gate_credential_credited' 0
# Nothing credited, the gate waited, no hardware RNG in this root: the kernel's own collection.
has 'entropy_gate_ready_source{source="jitter"}' 1
has 'entropy_gate_ready_source{source="seed"}' 0
grep -q '^entropy_gate_info{version="[^"]*"} 1$' "$tmp/scrape" || fail "no entropy_gate_info"

# The next boot: credited; the file is replaced, the exporter serves the new values.
printf 'ACTION=credited\nBITS=2048\nREASON=\nCREDENTIAL=credited\nCREDENTIAL_BITS=384\nBOOTTIME_USEC=2500000\n' >"$rec/seed"
printf 'OUTCOME=ready\nREADY_AT_START=yes\nSTART_BOOTTIME_USEC=2600000\nEND_BOOTTIME_USEC=2600100\nWAITED_USEC=0\n' >"$rec/gate"
EG_TEST_ROOT=$tmp/root "$ctl" metrics --output="$prom" || fail "metrics --output= (second) exited $?"
scrape || fail "second scrape"
has 'entropy_gate_clone_suspected' 0
has 'entropy_gate_seed_credited' 1
has 'entropy_gate_seed_credited_bytes' 256
has 'entropy_gate_seed_verdict{reason="credited"}' 1
has 'entropy_gate_credential_credited' 1
has 'entropy_gate_gate_wait_seconds' 0
# The credential is credited first; the gate found the pool ready.
has 'entropy_gate_ready_source{source="credential"}' 1
has 'entropy_gate_ready_source{source="jitter"}' 0
echo "ctl-metrics: ok"
