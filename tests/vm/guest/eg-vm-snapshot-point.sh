#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The VM generation tier's snapshot point: one kernel log record, which the
# serial console hands to the host as it is written, saying that this boot's
# entropy-seed load is done, what it recorded and the hash of the seed it
# left on disk: the seed a memory snapshot taken now carries to every copy.
# One record, not a line per key: a process's writes to /dev/kmsg are rate
# limited.

sha=$(sha256sum </var/lib/entropy-gate/seed 2>/dev/null | cut -c1-64)
record=$(tr '\n' ' ' </run/entropy-gate/seed 2>/dev/null)
echo "<5>EGSNAP point seed=${sha:-none} $record" >/dev/kmsg
