/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

#include "time-util.h"

/* What this boot's journal says about the random pool and our units. Times
 * are CLOCK_MONOTONIC µs since the kernel started: a kernel message's own
 * timestamp (_SOURCE_MONOTONIC_TIMESTAMP, which stays right for messages
 * journald imported from the kernel buffer later) when there is one, else
 * when journald received the entry. */

typedef enum EventSource {
        EVENT_SOURCE_JOURNAL,
        EVENT_SOURCE_KERNEL_LOG,     /* /dev/kmsg: the journal did not have it */
        _EVENT_SOURCE_MAX,
} EventSource;

const char *event_source_to_string(EventSource s);

typedef struct JournalEvent {
        bool found;
        usec_t usec;
        char *message;
        EventSource source;
} JournalEvent;

#define JOURNAL_SEED_EVENTS_MAX 8

typedef struct BootJournal {
        int error;                   /* < 0: the journal could not be opened or read */
        unsigned matched;            /* entries of this boot that matched our filters */
        JournalEvent crng_init;      /* kernel: "random: crng init done" */
        JournalEvent init_run;       /* kernel: "Run /init as init process" (the first) */
        JournalEvent efi_tables;     /* kernel: "efi: ACPI=0x... RNG=0x...", the firmware's tables */
        JournalEvent seed[JOURNAL_SEED_EVENTS_MAX]; /* entropy-seed: credited / not crediting / no seed */
        unsigned n_seed;
        JournalEvent gate;           /* entropy-gate: released (initialized, or proceeding) */
        JournalEvent seed_unit;      /* systemd: entropy-seed.service finished starting */
        JournalEvent gate_unit;      /* systemd: entropy-gate.service started */
        JournalEvent target;         /* systemd: reached entropy-ready.target */
} BootJournal;

/* Read the local journal for the current boot (sd_journal, _BOOT_ID of
 * this boot); inside a root (root.h), the journal of that root. The
 * kernel's messages the journal lacks (none at all when journald was not
 * running, or forwarding was off) are looked for in the kernel log,
 * /dev/kmsg inside the root. Returns 0 and fills *ret; j->error says why
 * the journal could not be read. -ENOMEM only. */
int boot_journal_read(BootJournal *ret);
void boot_journal_done(BootJournal *j);
