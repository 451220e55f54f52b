#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Check the output of "entropyctl timeline" from a real boot (the VM tier
# runs it in the guest and this script on the host): every event is there,
# and in the order the design promises. The timeline is sorted by time, so
# the order of the lines is the order of the events; the checks compare
# the times themselves, so equal times count as in order.
#
# Usage: ctl-timeline-order.sh [--seeded] TIMELINE_FILE [GATED_UNIT...]
#   --seeded     this boot had a saved seed: it must be credited, and the
#                CRNG initialized before entropy-gate started
#   GATED_UNIT   units ordered after entropy-ready.target (by the unit file
#                or by Units=) that must start after the target
set -eu
seeded=0
if [ "${1:-}" = --seeded ]; then seeded=1; shift; fi
[ $# -ge 1 ] || { echo "usage: $0 [--seeded] TIMELINE_FILE [GATED_UNIT...]" >&2; exit 2; }
file=$1
shift
failed=0
fail() { echo "FAIL: $*"; failed=1; }
ok() { echo "ok: $*"; }

# the same line's offset in seconds
time_of() { grep -m1 -E "$1" "$file" | awk '{ sub(/s$/, "", $1); print $1 }'; }

need() { # need NAME REGEX -> sets $t_NAME, the event's time
        t=$(time_of "$2")
        if [ -z "$t" ]; then fail "$1 missing (/$2/)"; else ok "$1 at ${t}s"; fi
        eval "t_$1=\$t"
}
before() { # before A B: A happened no later than B (both found)
        eval "a=\${t_$1:-}; b=\${t_$2:-}"
        if [ -n "$a" ] && [ -n "$b" ]; then
                if awk -v a="$a" -v b="$b" 'BEGIN { exit !(a + 0 <= b + 0) }'; then
                        ok "$1 ($a) before $2 ($b)"
                else
                        fail "$1 ($a) not before $2 ($b)"
                fi
        fi
}

need kernel '^ *0\.000000s  kernel started$'
need seed_start 'entropy-seed\.service: starting'
need seed 'entropy-seed: seed loaded'
need crng 'kernel: random: crng init done'
need gate_start 'entropy-gate\.service: starting'
need gate_released 'entropy-gate released: |entropy-gate\.service: ready'
need target 'entropy-ready\.target reached'
before kernel seed_start
before crng gate_released   # never released before the CRNG is initialized
before gate_released target
i=0
for u in "$@"; do
        i=$((i + 1))
        need "unit$i" "^ *[0-9.]+s  $(printf '%s' "$u" | sed 's/[.@]/\\&/g') start(ed|ing) \(ordered after entropy-ready\.target\)"
        before target "unit$i"
done
if [ "$seeded" = 1 ]; then
        need credited 'entropy-seed: seed loaded, credited [0-9]+ bits'
        before seed_start crng  # the credited seed initialized the CRNG...
        before crng gate_start  # ...before the gate even started
fi
if grep -q 'not found' "$file"; then
        echo "note: $(grep -c 'not found' "$file") event(s) not found:"
        grep 'not found' "$file"
fi
[ "$failed" = 0 ] && echo "timeline order: ok" || echo "timeline order: FAILED"
exit "$failed"
