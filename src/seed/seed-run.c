// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "credit.h"
#include "io-util.h"
#include "log.h"
#include "machine-id.h"
#include "macro.h"
#include "pool.h"
#include "proc-cmdline.h"
#include "root.h"
#include "runstate.h"
#include "seed-file.h"
#include "seed-run.h"
#include "seed-store.h"
#include "time-util.h"

#define CREDENTIAL_NAME "entropy-gate.seed"
#define CREDENTIAL_MAX 4096

/* ---------------------------------------------------------------- mixing */

/* Mix bytes we do not trust into the pool, uncredited: it makes clones
 * diverge and can never make anything worse. Returns true when mixed. */
static bool mix(const void *buf, size_t size, const char *what, const char *path) {
        int r;

        if (size == 0)
                return false;
        r = pool_add_seed(buf, size, false);
        if (r < 0) {
                log_warning_errno(r, "Failed to mix %s%s%s into the pool: %m", what, path ? " " : "", path ?: "");
                return false;
        }
        return true;
}

/* Why a file we only mix was skipped. */
static const char *skip_reason(int r, size_t max) {
        static char buf[64];

        if (r == -EBADFD || r == -EISDIR)
                return "not a regular file";
        if (r == -EFBIG) {
                snprintf(buf, sizeof(buf), "larger than %zu bytes", max);
                return buf;
        }
        return strerror(-r);
}

static size_t dir_length(const char *path) {
        const char *slash = strrchr(path, '/');
        return slash ? (size_t) (slash - path) : 0;
}

static bool same_dir(const char *a, const char *b) {
        size_t l = dir_length(a);
        return l == dir_length(b) && strncmp(a, b, l) == 0;
}

/* Whether the directory of @path (inside the root) does not exist. */
static bool dir_missing(const char *path) {
        char dir[PATH_MAX];
        int k;

        k = snprintf(dir, sizeof(dir), "%s%.*s", root_get() ?: "", (int) dir_length(path), path);
        if (k < 0 || (size_t) k >= sizeof(dir))
                return false;
        return access(dir, F_OK) < 0 && errno == ENOENT;
}

/* Seeds other tools keep: mixed, never credited, never modified. Where
 * several are in one directory (SeedRNG's), the directory is looked up
 * first: on most systems it is not there, and one lookup says so for all
 * of them. */
static unsigned mix_legacy_seeds(void) {
        bool dir_gone = false;
        unsigned n = 0;

        for (size_t i = 0; i < legacy_seeds_count; i++) {
                const char *p = legacy_seeds[i].path, *path;
                char path_buf[PATH_MAX], *buf = NULL;
                size_t size = 0;
                int r;

                if (i == 0 || !same_dir(legacy_seeds[i - 1].path, p))
                        dir_gone = i + 1 < legacy_seeds_count && same_dir(p, legacy_seeds[i + 1].path) &&
                                dir_missing(p);
                if (dir_gone || !legacy_seeds[i].mixed)
                        continue;
                path = root_path_buf(p, path_buf);
                if (!path)
                        continue;
                r = read_file_at(AT_FDCWD, path, LEGACY_SEED_MAX, READ_SECRET, &buf, &size, NULL);
                if (r == -ENOENT)
                        continue;
                if (r < 0) {
                        log_warning("Ignoring legacy seed %s: %s", path, skip_reason(r, LEGACY_SEED_MAX));
                        continue;
                }
                n += mix(buf, size, "legacy seed", path);
                erase_free(buf, LEGACY_SEED_MAX + 1);
        }
        return n;
}

/* ---------------------------------------------------------------- the credential */

/* The system credential entropy-gate.seed: fresh bytes from the hypervisor
 * or the boot loader for this boot, as secret as the channel that carried
 * them. */
typedef struct Credential {
        char path[512];
        char *raw;                   /* as read: mixed whatever it is */
        size_t raw_size;
        uint8_t *bytes;              /* what it carries: raw, or decoded from hex */
        size_t size;
        bool hex;
        uint8_t hash[CREDENTIAL_HASH_SIZE];
        char hash_hex[2 * CREDENTIAL_HASH_SIZE + 1];
        bool credit;                 /* the plan: credit it */
        bool remember;               /* ... and remember it first */
        bool earlier;                /* credited earlier in this boot (the initrd) */
        char why_not[160];
} Credential;

static void credential_done(Credential *c) {
        if (c->bytes && (char *) c->bytes != c->raw)
                erase_free(c->bytes, c->size);
        erase_free(c->raw, CREDENTIAL_MAX + 1);
        erase(c->hash, sizeof(c->hash));
        *c = (Credential) {};
}

static int unhex(char c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Text of hex digits (one trailing newline allowed) carries 4 bits a
 * character: decode it, so that what is credited is what it holds. Other
 * printable text holds less than 8 bits a byte, and how much less nobody
 * can say: it is mixed, never credited. */
static int credential_decode(Credential *c) {
        size_t n = c->raw_size, printable = 0;

        while (n > 0 && (c->raw[n - 1] == '\n' || c->raw[n - 1] == '\r'))
                n--;
        for (size_t i = 0; i < n; i++)
                printable += c->raw[i] >= 0x20 && c->raw[i] < 0x7f;

        if (n > 0 && n % 2 == 0 && strspn(c->raw, "0123456789abcdefABCDEF") >= n) {
                c->bytes = malloc(n / 2);
                if (!c->bytes)
                        return -ENOMEM;
                for (size_t i = 0; i < n / 2; i++)
                        c->bytes[i] = (uint8_t) (unhex(c->raw[2 * i]) << 4 | unhex(c->raw[2 * i + 1]));
                c->size = n / 2;
                c->hex = true;
                return 0;
        }
        if (n > 0 && printable == n) {
                snprintf(c->why_not, sizeof(c->why_not),
                         "it is text, not binary or hex, so its density is unknown");
                return 0;
        }
        c->bytes = (uint8_t *) c->raw;
        c->size = c->raw_size;
        return 0;
}

/* 1 when there is a credential, 0 when none, -errno (logged). Under
 * systemd the unit's LoadCredential= hands it over in
 * $CREDENTIALS_DIRECTORY, which is then the only place to look (the
 * sandbox need not see /run/credentials/@system); run by hand or by another
 * init, the system credential directory is read directly. */
static int credential_read(Credential *c) {
        const char *dir = getenv("CREDENTIALS_DIRECTORY");
        int r;

        if (dir && *dir)
                snprintf(c->path, sizeof(c->path), "%s/%s", dir, CREDENTIAL_NAME);
        else
                snprintf(c->path, sizeof(c->path), "%s/run/credentials/@system/%s", root_get() ?: "", CREDENTIAL_NAME);

        r = read_file_at(AT_FDCWD, c->path, CREDENTIAL_MAX, READ_SECRET, &c->raw, &c->raw_size, NULL);
        if (r == -ENOENT)
                return 0;
        if (r < 0) {
                log_warning("Ignoring credential %s: %s", c->path, skip_reason(r, CREDENTIAL_MAX));
                return 0;
        }
        if (c->raw_size == 0)
                return 0;
        r = credential_decode(c);
        if (r < 0)
                return log_error_errno(r, "Out of memory");
        if (c->bytes) {
                credential_hash(c->bytes, c->size, c->hash);
                for (size_t i = 0; i < CREDENTIAL_HASH_SIZE; i++)
                        snprintf(c->hash_hex + 2 * i, 3, "%02x", c->hash[i]);
        }
        return 1;
}

/* ---------------------------------------------------------------- a run */

typedef struct Load {
        const SeedOptions *o;
        int dfd;                     /* the locked seed directory, or -errno */
        FileStat dir_stat;
        MachineId machine;
        bool first_boot_flag;
        char boot_id[MACHINE_ID_HEX_LEN + 1];
        StoredSeed old;
        Credential cred;
        bool have_cred;
        SeedRecord record;
        char written[RUNSTATE_MAX];  /* the record as last written */
        char no_credit[160];         /* why nothing at all may be credited this run, "" when it may */
        int error;                   /* the first error, already logged */
} Load;

static void load_done(Load *l) {
        /* l->dfd stays open: the lock goes with the process (seed-run.h). */
        stored_seed_done(&l->old);
        credential_done(&l->cred);
        erase(&l->machine, sizeof(l->machine));
}

static void load_fail(Load *l, int r) {
        if (l->error == 0)
                l->error = r;
}

static void load_forbid_credit(Load *l, const char *format, ...) _printf_(2, 3);
static void load_forbid_credit(Load *l, const char *format, ...) {
        va_list ap;

        if (l->no_credit[0])
                return;
        va_start(ap, format);
        vsnprintf(l->no_credit, sizeof(l->no_credit), format, ap);
        va_end(ap);
}

static bool machine_id_counts_as_invalid(const MachineId *m) {
        return m->state == MACHINE_ID_INVALID || m->state == MACHINE_ID_EMPTY;
}

/* The first-boot flag: any doubt (an error other than "does not exist")
 * counts as a first boot; it can only cost a credit, never add a wrong one. */
static bool first_boot_flag_read(void) {
        char buf[PATH_MAX];
        const char *path = root_path_buf("/run/systemd/first-boot", buf);
        struct stat st;

        if (!path)
                return true;
        return lstat(path, &st) >= 0 || errno != ENOENT;
}

/* Fresh kernel bytes for the next seed. */
typedef struct Fresh {
        uint8_t bytes[SEED_SIZE_MAX];
        size_t size;
        bool initialized;            /* they came from an initialized CRNG */
} Fresh;

/* Fill @f with @size bytes from the kernel without blocking. On failure
 * (logged) the bytes are zeroed and only the old seed, if any, carries a
 * secret into the next one, which is then not creditable. */
static void fresh_get(Fresh *f, size_t size) {
        int r = pool_random_bytes(f->bytes, size);

        f->size = size;
        f->initialized = r > 0;
        if (r < 0) {
                log_warning_errno(r, "Failed to get random bytes from the kernel, the new seed will not be creditable: %m");
                erase(f->bytes, size);
        }
}

/* Build and durably write the next seed, of @fresh's size: derived from
 * the old one (or none), @fresh (wiped here) and both clocks (see
 * seed_derive()), bound to this machine. */
static int write_next_seed(int dfd, const MachineId *m, const uint8_t *old, size_t old_size, Fresh *fresh,
                           bool want_creditable, bool *ret_creditable) {
        _cleanup_(seed_file_erase) SeedFile next = {};
        int r;

        /* Creditable only when derived from a secret this machine alone held,
         * or from an initialized CRNG; never when the machine-id that binds
         * it cannot be read. */
        next.creditable = seed_replacement_creditable(want_creditable, fresh->initialized) &&
                !machine_id_counts_as_invalid(m);
        next.seed_size = fresh->size;
        seed_binding_compute(machine_id_get(m), next.binding);
        r = seed_derive(old, old_size, fresh->bytes, fresh->size, now_usec(CLOCK_REALTIME), now_usec(CLOCK_BOOTTIME),
                        next.seed, fresh->size);
        erase(fresh, sizeof(*fresh));
        if (r < 0)
                return r;
        r = stored_seed_write(dfd, &next);
        if (r >= 0 && ret_creditable)
                *ret_creditable = next.creditable;
        return r;
}

static void facts_fill(const Load *l, struct seed_facts *f) {
        const MachineId *m = &l->machine;

        *f = (struct seed_facts) {
                .credit_enabled = l->o->credit,
                .credit_disabled_by = l->o->credit_disabled_by,
                .file_parsed = l->old.parsed,
                .parse_error = l->old.parsed ? NULL : l->old.problem,
                .creditable_flag = l->old.parsed && l->old.file.creditable,
                .machine_id_present = m->state != MACHINE_ID_ABSENT,
                .machine_id_invalid = machine_id_counts_as_invalid(m),
                .credit_without_machine_id = l->o->credit_without_machine_id,
                .machine_id_uninitialized = m->state == MACHINE_ID_UNINITIALIZED,
                .first_boot_flag_present = l->first_boot_flag,
                .file_regular = l->old.exists && S_ISREG(l->old.stat.mode),
                .file_uid = l->old.stat.uid,
                .file_mode = l->old.stat.mode,
                .dir_uid = l->dir_stat.uid,
                .dir_mode = l->dir_stat.mode,
        };
        if (l->old.parsed) {
                uint8_t binding[SEED_BINDING_SIZE];

                seed_binding_compute(machine_id_get(m), binding);
                f->binding_matches = memcmp(binding, l->old.file.binding, SEED_BINDING_SIZE) == 0;
        }
}

/* The record of an earlier load in this boot, if any: 1 and *ret, 0 none,
 * or -errno (logged): a record that is there but cannot be read may be the
 * first load's. */
static int previous_record_read(SeedRecord *ret) {
        int r = seed_record_read(ret);

        if (r < 0)
                log_warning_errno(r, "Failed to read %s/%s: %m", runstate_dir(), RUNSTATE_SEED);
        return r;
}

/* Whether a load already consumed this seed directory in this boot: its
 * record says so. A second load (a restart, a package upgrade) would
 * otherwise credit the replacement the first one wrote. */
static bool already_loaded_this_boot(const Load *l, int have_previous, const SeedRecord *previous) {
        if (have_previous < 0)
                return true;
        return have_previous > 0 && previous->boot_id[0] && streq(previous->boot_id, l->boot_id) &&
                streq(previous->seed_path, l->record.seed_path);
}

static void plan_credential(Load *l, bool dir_usable, int have_previous, const SeedRecord *previous) {
        Credential *c = &l->cred;
        int r;

        if (!l->have_cred || c->why_not[0])
                return;
        /* The initrd credited it in this boot (its record, carried over in
         * /run, says so): remember it here, where it can be remembered. */
        if (have_previous > 0 && previous->credential == CREDENTIAL_CREDITED &&
            streq(previous->credential_hash, c->hash_hex)) {
                snprintf(c->why_not, sizeof(c->why_not), "credited earlier in this boot (in the initrd)");
                c->earlier = true;
                c->remember = dir_usable;
                return;
        }
        if (!l->o->credit) {
                snprintf(c->why_not, sizeof(c->why_not), "crediting disabled (%s)", strna(l->o->credit_disabled_by));
                return;
        }
        /* systemd imports credentials from the kernel command line too,
         * which every user can read: no secret, whatever its length. */
        if (!l->o->cmdline ||
            proc_cmdline_value_has_prefix(l->o->cmdline, "systemd.set_credential", CREDENTIAL_NAME ":") ||
            proc_cmdline_value_has_prefix(l->o->cmdline, "systemd.set_credential_binary", CREDENTIAL_NAME ":")) {
                snprintf(c->why_not, sizeof(c->why_not), l->o->cmdline ?
                         "it may come from the kernel command line (systemd.set_credential=), which any user can read" :
                         "the kernel command line cannot be read to tell whether it came from there");
                return;
        }
        if (c->size < SEED_SIZE_MIN) {
                snprintf(c->why_not, sizeof(c->why_not), "%zu bits%s, less than %u", c->size * 8,
                         c->hex ? " after decoding hex" : "", SEED_SIZE_MIN * 8);
                return;
        }
        /* Never twice: what was credited once is remembered in the seed
         * directory, and only there can it be checked. Where there is none
         * (the initrd), crediting it anyway trusts the hypervisor or boot
         * loader to hand over a fresh one at every boot: an opt-in. */
        if (!dir_usable) {
                if (l->o->credit_credential_without_memory)
                        c->credit = true;
                else
                        snprintf(c->why_not, sizeof(c->why_not), "no usable seed directory to remember it in%s",
                                 l->o->credential_only ? " (CreditCredentialWithoutMemory= is off)" : "");
                return;
        }
        r = credential_seen(l->dfd, c->hash);
        if (r < 0) {
                snprintf(c->why_not, sizeof(c->why_not), "the list of credentials already credited cannot be read: %s",
                         strerror(-r));
                return;
        }
        if (r > 0) {
                snprintf(c->why_not, sizeof(c->why_not), "credited on an earlier boot (a replayed or cloned credential)");
                return;
        }
        c->credit = c->remember = true;
}

/* The credential's fields of the record, as planned or done. */
static void record_credential(Load *l, int have_previous, const SeedRecord *previous) {
        SeedRecord *rec = &l->record;

        rec->credential = !l->have_cred ? CREDENTIAL_NONE : l->cred.credit ? CREDENTIAL_CREDITED : CREDENTIAL_MIXED;
        rec->credential_bits = l->cred.credit ? l->cred.size * 8 : 0;
        rec->credential_hash[0] = 0;
        if (l->cred.credit)
                memcpy(rec->credential_hash, l->cred.hash_hex, sizeof(l->cred.hash_hex));
        else if (l->cred.earlier && have_previous > 0) {
                /* What this boot did with it, for entropyctl. */
                rec->credential = CREDENTIAL_CREDITED;
                rec->credential_bits = previous->credential_bits;
                memcpy(rec->credential_hash, previous->credential_hash, sizeof(rec->credential_hash));
        }
}

/* Write the record unless it already says exactly this (one write per
 * load on every normal path). */
static int record_write(Load *l) {
        char text[RUNSTATE_MAX];
        int r;

        r = seed_record_format(&l->record, text, sizeof(text));
        if (r < 0)
                return r;
        if (streq(text, l->written))
                return 0;
        r = runstate_write(RUNSTATE_SEED, text);
        if (r >= 0)
                memcpy(l->written, text, sizeof(text));
        return r;
}

int seed_load(const SeedOptions *o) {
        _cleanup_(load_done) Load l = { .o = o, .dfd = -EBADF };
        SeedRecord previous;
        int have_previous;
        struct seed_facts facts;
        CreditDecision d;
        const uint8_t *old;
        size_t old_size, size;
        bool dir_usable, replacement_creditable = false;
        int r;

        l.record = (SeedRecord) {
                .action = SEED_ACTION_NOT_CREDITED,
                .credential = CREDENTIAL_NONE,
                .replacement_creditable = 0,
        };
        snprintf(l.record.seed_path, sizeof(l.record.seed_path), "%s/%s", o->seed_dir, SEED_FILE_NAME);

        /* 1. Lock, bounded: a concurrent load or save must not read the seed
         * we are about to consume, and a lock held by anyone else must not
         * hang the boot. Without the directory, what does not need it is
         * still done. */
        l.dfd = o->credential_only ? -EBADF : seed_dir_open_locked(o->seed_dir, SEED_LOCK_TIMEOUT_USEC, &l.dir_stat);
        dir_usable = l.dfd >= 0;
        if (o->credential_only) {
                load_forbid_credit(&l, "no seed directory (--credential-only)");
                l.record.seed_path[0] = 0;
        } else if (!dir_usable) {
                load_forbid_credit(&l, "cannot open and lock the seed directory: %s",
                                   l.dfd == -ETIMEDOUT ? "another process holds its lock" : strerror(-l.dfd));
                if (l.dfd == -ETIMEDOUT)
                        load_fail(&l, log_error_errno(l.dfd, "not crediting: cannot open and lock the seed directory %s: "
                                                      "another process has held its lock for %s", o->seed_dir,
                                                      FORMAT_DURATION(SEED_LOCK_TIMEOUT_USEC)));
                else
                        load_fail(&l, log_error_errno(l.dfd, "not crediting: cannot open and lock the seed directory "
                                                      "%s: %m", o->seed_dir));
        }

        /* 2. What every clone may share, mixed only. */
        machine_id_read(&l.machine);
        if (l.machine.state == MACHINE_ID_INVALID && l.machine.error < 0)
                log_warning_errno(l.machine.error, "Failed to read /etc/machine-id: %m");
        (void) mix(l.machine.raw, l.machine.raw_size, "the machine-id", NULL);
        l.first_boot_flag = first_boot_flag_read();
        l.record.legacy_mixed = mix_legacy_seeds();
        r = credential_read(&l.cred);
        if (r < 0)
                load_fail(&l, r);
        l.have_cred = r > 0;

        /* Once per boot. */
        r = boot_id_read(l.boot_id);
        if (r < 0) {
                load_forbid_credit(&l, "cannot read this boot's id, so cannot tell whether a load already ran: %s",
                                   strerror(-r));
                log_warning_errno(r, "Failed to read the boot id: %m");
        }
        have_previous = previous_record_read(&previous);
        if (dir_usable && !l.no_credit[0] && already_loaded_this_boot(&l, have_previous, &previous)) {
                /* Mix what there is, credit nothing, keep the first record. */
                stored_seed_read(l.dfd, &l.old);
                old = stored_seed_bytes(&l.old, &old_size);
                (void) mix(old, old_size, "the seed", l.record.seed_path);
                if (l.have_cred)
                        (void) mix(l.cred.raw, l.cred.raw_size, "credential", l.cred.path);
                log_info("not crediting: the seed was already loaded in this boot (%s/%s), mixed it only",
                         runstate_dir(), RUNSTATE_SEED);
                return l.error;
        }

        /* 3. Our seed, bounded, without following or blocking. */
        if (dir_usable) {
                stored_seed_read(l.dfd, &l.old);
                if (!l.old.exists)
                        log_info("No seed file %s yet, writing a fresh one.", l.record.seed_path);
        }
        facts_fill(&l, &facts);

        /* 4. The next seed, durable before anything is credited. */
        old = stored_seed_bytes(&l.old, &old_size);
        /* The pool's size only changes with the kernel: the replacement
         * keeps the size of the seed it replaces, which save took from the
         * pool; only without one is the pool asked. */
        size = l.old.parsed ? l.old.file.seed_size : seed_size_for_poolsize(pool_size_bits());
        if (dir_usable) {
                Fresh fresh;

                fresh_get(&fresh, size);
                r = write_next_seed(l.dfd, &l.machine, old, old_size, &fresh, seed_credit_rules_2_to_6_hold(&facts),
                                    &replacement_creditable);
        } else
                r = -EBADF;
        if (dir_usable && r < 0)
                load_fail(&l, log_error_errno(r, "Failed to write the replacement seed to %s: %m", l.record.seed_path));
        facts.replacement_durable = r >= 0;
        l.record.replacement_creditable = replacement_creditable;
        /* The record names the boot only once this load consumed the
         * directory: a load that could not lock it, or replace the seed,
         * used nothing up, and a later one may do the job. */
        if (facts.replacement_durable)
                memcpy(l.record.boot_id, l.boot_id, sizeof(l.boot_id));

        /* 5. Decide, remember, record; then credit. */
        l.record.boottime_usec = now_usec(CLOCK_BOOTTIME);
        d = seed_credit_decide(&facts);
        if (d.credit && l.no_credit[0])
                d = (CreditDecision) { .credit = false, .rule = 1 };
        plan_credential(&l, dir_usable, have_previous, &previous);
        if (l.cred.remember) {
                r = credential_remember(l.dfd, l.cred.hash);
                if (r < 0) {
                        if (l.cred.credit)
                                snprintf(l.cred.why_not, sizeof(l.cred.why_not), "it could not be remembered: %s",
                                         strerror(-r));
                        l.cred.credit = false;
                        load_fail(&l, log_error_errno(r, "Failed to remember the credential in %s: %m", o->seed_dir));
                }
        }
        if (d.credit || l.cred.credit) {
                /* The record is the claim "loaded in this boot" (and which
                 * credential was credited): it must be in place before
                 * anything is credited, or a second load could credit again. */
                l.record.action = d.credit ? SEED_ACTION_CREDITED : SEED_ACTION_NOT_CREDITED;
                l.record.bits = d.credit ? l.old.file.seed_size * 8 : 0;
                record_credential(&l, have_previous, &previous);
                r = record_write(&l);
                if (r < 0) {
                        log_error_errno(r, "not crediting: failed to record this load in %s/%s: %m",
                                        runstate_dir(), RUNSTATE_SEED);
                        load_fail(&l, r);
                        d = (CreditDecision) { .credit = false, .rule = 1 };
                        snprintf(d.reason, sizeof(d.reason), "this load could not be recorded");
                        if (l.cred.credit)
                                snprintf(l.cred.why_not, sizeof(l.cred.why_not), "this load could not be recorded");
                        l.cred.credit = false;
                }
        }

        if (l.have_cred && l.cred.credit) {
                r = pool_add_seed(l.cred.bytes, l.cred.size, true);
                if (r >= 0)
                        log_info("credited %zu bits from credential %s%s", l.cred.size * 8, l.cred.path,
                                 dir_usable ? "" : " (not remembered: CreditCredentialWithoutMemory=yes)");
                else {
                        load_fail(&l, log_error_errno(r, "Failed to credit credential %s%s: %m", l.cred.path,
                                                      r == -EPERM ? " (crediting needs root with CAP_SYS_ADMIN)" : ""));
                        l.cred.credit = false;
                }
        } else if (l.have_cred && l.cred.why_not[0])
                log_info("Not crediting credential %s: %s", l.cred.path, l.cred.why_not);
        if (l.have_cred && !l.cred.credit)
                (void) mix(l.cred.raw, l.cred.raw_size, "credential", l.cred.path);
        record_credential(&l, have_previous, &previous);

        l.record.bits = 0;
        if (d.credit) {
                r = pool_add_seed(l.old.file.seed, l.old.file.seed_size, true);
                if (r >= 0) {
                        l.record.bits = l.old.file.seed_size * 8;
                        log_info("credited %" PRIu64 " bits from %s", l.record.bits, l.record.seed_path);
                } else {
                        snprintf(l.record.reason, sizeof(l.record.reason), "crediting failed: %s%s", strerror(-r),
                                 r == -EPERM ? " (needs root with CAP_SYS_ADMIN)" : "");
                        log_error("not crediting: %s", l.record.reason);
                        load_fail(&l, r);
                }
        } else if (dir_usable) {
                /* Rule 2 also covers "nothing usable there": say what was found. */
                snprintf(l.record.reason, sizeof(l.record.reason), "%s",
                         l.no_credit[0] ? l.no_credit : d.rule == 2 ? l.old.problem : d.reason);
                log_info("not crediting: %s", l.record.reason);
        } else
                snprintf(l.record.reason, sizeof(l.record.reason), "%s", l.no_credit);
        if (l.record.bits == 0)
                /* Whatever it was, it may hold something secret. */
                (void) mix(old, old_size, "the old seed", l.record.seed_path);

        l.record.action = l.error < 0 ? SEED_ACTION_ERROR :
                l.record.bits > 0 ? SEED_ACTION_CREDITED : SEED_ACTION_NOT_CREDITED;
        r = record_write(&l);
        if (r < 0)
                log_warning_errno(r, "Failed to record the result in %s/%s: %m", runstate_dir(), RUNSTATE_SEED);
        return l.error;
}

int seed_save(const SeedOptions *o) {
        _cleanup_(stored_seed_done) StoredSeed old = {};
        Fresh fresh;
        MachineId m;
        FileStat dst;
        const uint8_t *bytes = NULL;
        size_t size = 0, seed_size = seed_size_for_poolsize(pool_size_bits());
        bool creditable = false, invalid_id;
        int dfd, r;

        /* Open, and locked until the process exits (seed-run.h). */
        dfd = seed_dir_open_locked(o->seed_dir, SEED_LOCK_TIMEOUT_USEC, &dst);
        if (dfd == -ETIMEDOUT)
                return log_error_errno(dfd, "Failed to lock seed directory %s: another process has held its lock for %s",
                                       o->seed_dir, FORMAT_DURATION(SEED_LOCK_TIMEOUT_USEC));
        if (dfd < 0)
                return log_error_errno(dfd, "Failed to open and lock seed directory %s: %m", o->seed_dir);

        machine_id_read(&m);
        /* Bytes from an initialized CRNG are all the next seed needs. Fresh
         * bytes got while it is not initialized may be guessable: chain them
         * with the old seed, which keeps whatever secret it had. */
        fresh_get(&fresh, seed_size);
        if (!fresh.initialized) {
                stored_seed_read(dfd, &old);
                bytes = stored_seed_bytes(&old, &size);
        }
        invalid_id = machine_id_counts_as_invalid(&m);
        r = write_next_seed(dfd, &m, bytes, size, &fresh, false, &creditable);
        erase(&m, sizeof(m));
        if (r < 0)
                return log_error_errno(r, "Failed to save a new seed to %s/%s: %m", o->seed_dir, SEED_FILE_NAME);

        if (creditable)
                log_info("saved %zu bits to %s/%s", seed_size * 8, o->seed_dir, SEED_FILE_NAME);
        else
                log_info("saved %zu bits to %s/%s, not creditable: %s",
                         seed_size * 8, o->seed_dir, SEED_FILE_NAME,
                         invalid_id ? "/etc/machine-id is not valid" : "the kernel's random pool is not initialized");
        return 0;
}

/* For image builders: a fresh creditable seed in ROOT's seed directory,
 * bound to the machine-id of the device that will boot it. */
int seed_provision(const SeedOptions *o) {
        _cleanup_close_ int dfd = -EBADF;
        _cleanup_free_ char *mid_path = NULL, *etc_path = NULL;
        Fresh fresh;
        MachineId m;
        FileStat dst;
        bool creditable = false;
        size_t size;
        int r;

        r = root_path("/etc/machine-id", &mid_path);
        if (r >= 0)
                r = root_path("/etc", &etc_path);
        if (r < 0)
                return log_error_errno(r, "Out of memory");
        if (o->machine_id) {
                char text[MACHINE_ID_HEX_LEN + 2];
                _cleanup_close_ int etc = -EBADF;

                machine_id_parse(o->machine_id, strlen(o->machine_id), &m);
                if (m.state != MACHINE_ID_VALID)
                        return log_error_errno(-EINVAL, "Invalid --machine-id=%s: expected 32 hex digits", o->machine_id);
                snprintf(text, sizeof(text), "%s\n", m.id);
                etc = open(etc_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                r = etc < 0 ? negative_errno() :
                        write_file_atomic_at(etc, "machine-id", text, strlen(text), 0444, WRITE_DURABLE);
                if (r < 0)
                        return log_error_errno(r, "Failed to write %s: %m", mid_path);
        } else {
                machine_id_read(&m);
                if (m.state != MACHINE_ID_VALID)
                        return log_error_errno(-EINVAL, "%s is %s: a provisioned seed must be bound to the device's "
                                               "real machine-id (pass --machine-id=ID to set one)",
                                               mid_path, machine_id_state_to_string(m.state));
        }

        dfd = seed_dir_open_locked(o->seed_dir, SEED_LOCK_TIMEOUT_USEC, &dst);
        if (dfd < 0)
                return log_error_errno(dfd, "Failed to open and lock seed directory %s: %m", o->seed_dir);
        /* Rule 6 on the device: root's, and no one else's. */
        if ((dst.uid != 0 && fchown(dfd, 0, 0) < 0) || ((dst.mode & 077) != 0 && fchmod(dfd, 0700) < 0))
                return log_error_errno(errno, "Failed to make %s root's with mode 0700: %m", o->seed_dir);

        size = seed_size_for_poolsize(pool_size_bits());
        fresh_get(&fresh, size);
        r = write_next_seed(dfd, &m, NULL, 0, &fresh, false, &creditable);
        if (r < 0)
                return log_error_errno(r, "Failed to write a seed to %s/%s: %m", o->seed_dir, SEED_FILE_NAME);
        if (!creditable)
                /* Never ship an image with a seed that looks good and is not:
                 * this host's pool was not initialized. */
                return log_error_errno(-EAGAIN, "The seed written to %s/%s is not creditable: this machine's random "
                                       "pool is not initialized", o->seed_dir, SEED_FILE_NAME);
        log_info("provisioned %zu bits in %s/%s, bound to machine-id %s", size * 8, o->seed_dir, SEED_FILE_NAME, m.id);
        return 0;
}
