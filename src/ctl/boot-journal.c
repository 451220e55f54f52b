// SPDX-License-Identifier: LGPL-2.1-or-later
#include <inttypes.h>
#include <stdio.h>
#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>

#include "boot-journal.h"
#include "provenance.h"
#include "string-table.h"
#include "kmsg.h"
#include "macro.h"
#include "root.h"

/* systemd's SD_MESSAGE_UNIT_STARTED: a start job finished ("Started X",
 * "Finished X", "Reached target X"). */
#define MESSAGE_ID_UNIT_STARTED "39f53479d3a045ac8e11786248231fbf"

static void journal_closep(sd_journal **j) {
        if (*j)
                sd_journal_close(*j);
}

/* A field's value as a new string, NULL when the entry has none. */
static int field_get(sd_journal *j, const char *field, char **ret) {
        const void *data;
        size_t len, flen = strlen(field);
        int r;

        *ret = NULL;
        r = sd_journal_get_data(j, field, &data, &len);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        if (len <= flen || ((const char *) data)[flen] != '=')
                return 0;
        *ret = strndup((const char *) data + flen + 1, len - flen - 1);
        return *ret ? 1 : -ENOMEM;
}

static const char *const event_source_table[_EVENT_SOURCE_MAX] = {
        [EVENT_SOURCE_JOURNAL] = "journal",
        [EVENT_SOURCE_KERNEL_LOG] = "kernel-log",
};

DEFINE_STRING_TABLE_TO_STRING(event_source, EventSource)

static int event_set_from(JournalEvent *e, EventSource source, usec_t usec, const char *message, size_t len) {
        char *m = strndup(message, len);

        if (!m)
                return -ENOMEM;
        free(e->message);
        *e = (JournalEvent) { .found = true, .usec = usec, .message = m, .source = source };
        return 0;
}

static int event_set(JournalEvent *e, usec_t usec, const char *message) {
        return event_set_from(e, EVENT_SOURCE_JOURNAL, usec, message, strlen(message));
}

/* The kernel's messages, the same two the journal is asked for. */
#define KERNEL_CRNG_INIT "random: crng init done"

static bool is_init_run(const KmsgRecord *r) {
        static const char suffix[] = " as init process";
        size_t l = sizeof(suffix) - 1;

        return kmsg_record_is_kernel(r, "Run ") && r->message_len > l &&
                memcmp(r->message + r->message_len - l, suffix, l) == 0;
}

static int kmsg_record_handle(const KmsgRecord *r, void *userdata) {
        BootJournal *b = userdata;
        int k = 0;

        if (!b->crng_init.found && kmsg_record_is_kernel(r, KERNEL_CRNG_INIT))
                k = event_set_from(&b->crng_init, EVENT_SOURCE_KERNEL_LOG, r->usec, r->message, r->message_len);
        else if (!b->init_run.found && is_init_run(r))
                k = event_set_from(&b->init_run, EVENT_SOURCE_KERNEL_LOG, r->usec, r->message, r->message_len);
        else if (!b->efi_tables.found && kmsg_record_is_kernel(r, "efi: ")) {
                _cleanup_free_ char *m = strndup(r->message, r->message_len);

                if (!m)
                        return -ENOMEM;
                if (efi_tables_line(m, NULL))
                        k = event_set_from(&b->efi_tables, EVENT_SOURCE_KERNEL_LOG, r->usec, m, strlen(m));
        }
        if (k < 0)
                return k;
        /* Both found: the rest of the log has nothing for us (the firmware's
         * tables come before init runs). */
        return b->crng_init.found && b->init_run.found;
}

/* What the journal lacked, from the kernel log. Not there (no /dev/kmsg,
 * dmesg_restrict for non-root): nothing more is known; only -ENOMEM fails. */
static int kernel_log_read(BootJournal *b) {
        _cleanup_close_ int fd = -EBADF;
        int r;

        if (b->crng_init.found && b->init_run.found)
                return 0;
        fd = root_open_follow("/dev/kmsg");
        if (fd < 0)
                return 0;
        r = kmsg_read_all(fd, kmsg_record_handle, b);
        return r == -ENOMEM ? r : 0;
}

static int add_group(sd_journal *j, const char *boot_match, const char *const *matches) {
        int r;

        r = sd_journal_add_match(j, boot_match, 0);
        if (r < 0)
                return r;
        for (const char *const *m = matches; *m; m++) {
                r = sd_journal_add_match(j, *m, 0);
                if (r < 0)
                        return r;
        }
        return sd_journal_add_disjunction(j);
}

/* A line is ours when journald says it came from our unit, or from a root
 * process that named itself so (the initrd, a manual run). Any user sets
 * SYSLOG_IDENTIFIER (logger -t entropy-seed); only journald sets _UID and
 * _SYSTEMD_UNIT. */
static bool from(const char *ident, const char *unit, const char *uid, const char *name) {
        char service[64];

        snprintf(service, sizeof(service), "%s.service", name);
        return streq_ptr(unit, service) || (streq_ptr(ident, name) && streq_ptr(uid, "0"));
}

static int entry_handle(sd_journal *j, BootJournal *b) {
        _cleanup_free_ char *msg = NULL, *transport = NULL, *ident = NULL, *sunit = NULL,
                *unit = NULL, *mid = NULL, *src_mono = NULL, *uid = NULL, *pid = NULL, *facility = NULL;
        const char *m;
        usec_t usec;
        sd_id128_t boot;
        int r;

        if ((r = field_get(j, "MESSAGE", &msg)) < 0 ||
            (r = field_get(j, "_TRANSPORT", &transport)) < 0 ||
            (r = field_get(j, "SYSLOG_IDENTIFIER", &ident)) < 0 ||
            (r = field_get(j, "_SYSTEMD_UNIT", &sunit)) < 0 ||
            (r = field_get(j, "UNIT", &unit)) < 0 ||
            (r = field_get(j, "MESSAGE_ID", &mid)) < 0 ||
            (r = field_get(j, "_SOURCE_MONOTONIC_TIMESTAMP", &src_mono)) < 0 ||
            (r = field_get(j, "_UID", &uid)) < 0 ||
            (r = field_get(j, "_PID", &pid)) < 0 ||
            (r = field_get(j, "SYSLOG_FACILITY", &facility)) < 0)
                return r;
        if (!msg)
                return 0;

        if (src_mono && sscanf(src_mono, "%" SCNu64, &usec) == 1)
                ;
        else if (sd_journal_get_monotonic_usec(j, &usec, &boot) < 0)
                return 0;
        b->matched++;

        if (streq_ptr(transport, "kernel")) {
                /* Every record of /dev/kmsg comes in as _TRANSPORT=kernel;
                 * the kernel gives the ones a program wrote facility 1
                 * (user) at least, its own facility 0: only those count,
                 * as in kmsg_record_handle(). */
                if (!streq_ptr(facility, "0"))
                        return 0;
                if (!b->crng_init.found && startswith(msg, KERNEL_CRNG_INIT))
                        return event_set(&b->crng_init, usec, msg);
                /* The first is the initrd's init or, without one, the system's. */
                if (!b->init_run.found && startswith(msg, "Run ") && strstr(msg, " as init process"))
                        return event_set(&b->init_run, usec, msg);
                if (!b->efi_tables.found && efi_tables_line(msg, NULL))
                        return event_set(&b->efi_tables, usec, msg);
                return 0;
        }

        if (streq_ptr(mid, MESSAGE_ID_UNIT_STARTED)) {
                /* The service manager's word, not a line anyone can log
                 * with MESSAGE_ID= and UNIT= (logger --journald). */
                if (!streq_ptr(pid, "1"))
                        return 0;
                if (streq_ptr(unit, "entropy-ready.target") && !b->target.found)
                        return event_set(&b->target, usec, msg);
                if (streq_ptr(unit, "entropy-gate.service") && !b->gate_unit.found)
                        return event_set(&b->gate_unit, usec, msg);
                if (streq_ptr(unit, "entropy-seed.service") && !b->seed_unit.found)
                        return event_set(&b->seed_unit, usec, msg);
                return 0;
        }

        /* Our own lines, with the program prefix when stderr was not the journal's. */
        if (from(ident, sunit, uid, "entropy-seed")) {
                m = startswith(msg, "entropy-seed: ") ?: msg;
                if ((startswith(m, "credited ") || startswith(m, "not crediting") || startswith(m, "No seed file")) &&
                    b->n_seed < JOURNAL_SEED_EVENTS_MAX)
                        return event_set(&b->seed[b->n_seed++], usec, m);
                return 0;
        }
        if (from(ident, sunit, uid, "entropy-gate")) {
                m = startswith(msg, "entropy-gate: ") ?: msg;
                if (!b->gate.found &&
                    (startswith(m, "Kernel random pool initialized") ||
                     startswith(m, "Kernel random pool still not initialized after")))
                        return event_set(&b->gate, usec, m);
        }
        return 0;
}

int boot_journal_read(BootJournal *ret) {
        _cleanup_(journal_closep) sd_journal *j = NULL;
        BootJournal b = {};
        char boot_match[64];
        sd_id128_t boot;
        int r;

        r = sd_id128_get_boot(&boot);
        if (r < 0)
                goto fail;
        snprintf(boot_match, sizeof(boot_match), "_BOOT_ID=" SD_ID128_FORMAT_STR, SD_ID128_FORMAT_VAL(boot));

        if (root_get())
                r = sd_journal_open_directory(&j, root_get(), SD_JOURNAL_OS_ROOT);
        else
                r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);
        if (r < 0)
                goto fail;

        if ((r = add_group(j, boot_match, (const char *const[]) { "_TRANSPORT=kernel", NULL })) < 0 ||
            (r = add_group(j, boot_match, (const char *const[]) {
                        "SYSLOG_IDENTIFIER=entropy-seed", "SYSLOG_IDENTIFIER=entropy-gate", NULL })) < 0 ||
            (r = add_group(j, boot_match, (const char *const[]) {
                        "_SYSTEMD_UNIT=entropy-seed.service", "_SYSTEMD_UNIT=entropy-gate.service", NULL })) < 0 ||
            (r = add_group(j, boot_match, (const char *const[]) {
                        "UNIT=entropy-seed.service", "UNIT=entropy-gate.service", "UNIT=entropy-ready.target", NULL })) < 0)
                goto fail;

        SD_JOURNAL_FOREACH(j) {
                r = entry_handle(j, &b);
                if (r == -ENOMEM)
                        goto nomem;
        }
        r = kernel_log_read(&b);
        if (r < 0)
                goto nomem;
        *ret = b;
        return 0;

fail:
        if (r == -ENOMEM)
                return r;
        boot_journal_done(&b);
        b.error = r;
        r = kernel_log_read(&b);
        if (r < 0)
                goto nomem;
        *ret = b;
        return 0;

nomem:
        boot_journal_done(&b);
        return -ENOMEM;
}

void boot_journal_done(BootJournal *b) {
        free(b->crng_init.message);
        free(b->init_run.message);
        free(b->efi_tables.message);
        for (unsigned i = 0; i < b->n_seed; i++)
                free(b->seed[i].message);
        free(b->gate.message);
        free(b->seed_unit.message);
        free(b->gate_unit.message);
        free(b->target.message);
        *b = (BootJournal) {};
}
