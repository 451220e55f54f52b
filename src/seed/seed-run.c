// SPDX-License-Identifier: LGPL-2.1-or-later
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "blake2s.h"
#include "credential.h"
#include "credit.h"
#include "io-util.h"
#include "log.h"
#include "machine-id.h"
#include "macro.h"
#include "paths.h"
#include "pool.h"
#include "proc-cmdline.h"
#include "root.h"
#include "runstate.h"
#include "seed-file.h"
#include "seed-run.h"
#include "seed-store.h"
#include "time-util.h"
#include "vm-generation.h"

#define CREDENTIAL_MAX 4096
#define SYSTEM_CREDENTIALS_DIR "/run/credentials/@system"
#define SEED_HASH_KEY "entropy-gate seed v1"
/* A reason in words, as the record and the log carry it (credit.h). */
#define WHY_MAX CREDIT_REASON_MAX

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
        if (r == -ELOOP)
                return "a symbolic link, not followed";
        if (r == -EFBIG) {
                snprintf(buf, sizeof(buf), "larger than %zu bytes", max);
                return buf;
        }
        return strerror(-r);
}

/* Why the atomic replacement of @dir/@name failed: -EEXIST is its fixed
 * temporary name held by something it does not remove (a directory left
 * there by hand), which no retry clears: name it, and not @name. */
static const char *replace_error(int r, const char *dir, const char *name) {
        static char buf[PATH_MAX + 160];
        char tmp[NAME_MAX + 1];

        if (r != -EEXIST || write_file_atomic_tmp_name(name, tmp, sizeof(tmp)) < 0)
                return strerror(-r);
        snprintf(buf, sizeof(buf), "its temporary file %s/%s is in the way (a directory, or not ours to remove), "
                 "and is left alone: remove it", dir, tmp);
        return buf;
}

/* @size bytes as 2 * @size lower-case hex digits and a NUL. */
static void hex_encode(const uint8_t *p, size_t size, char *ret) {
        static const char digits[] = "0123456789abcdef";

        for (size_t i = 0; i < size; i++) {
                ret[2 * i] = digits[p[i] >> 4];
                ret[2 * i + 1] = digits[p[i] & 15];
        }
        ret[2 * size] = 0;
}

static size_t dir_length(const char *path) {
        const char *slash = strrchr(path, '/');
        return slash ? (size_t) (slash - path) : 0;
}

/* Seeds other tools keep: mixed, never credited, never modified. Each
 * directory is opened once through the resolver (inside the root), and
 * each seed in it without following a link: on most systems the directory
 * is not there, and one lookup says so for all of its seeds. */
static unsigned mix_legacy_seeds(void) {
        _cleanup_close_ int dfd = -EBADF;
        char dir[PATH_MAX] = "";
        unsigned n = 0;

        for (size_t i = 0; i < legacy_seeds_count; i++) {
                const char *p = legacy_seeds[i].path, *name = p + dir_length(p) + 1;
                char shown_buf[PATH_MAX], *buf = NULL;
                const char *shown;
                size_t size = 0;
                int r;

                if (!legacy_seeds[i].mixed)
                        continue;
                if (strlen(dir) != dir_length(p) || strncmp(dir, p, dir_length(p)) != 0) {
                        snprintf(dir, sizeof(dir), "%.*s", (int) dir_length(p), p);
                        safe_close(dfd);
                        dfd = root_open(dir, CHASE_DIRECTORY);
                }
                if (dfd < 0)
                        continue;
                shown = root_path_buf(p, shown_buf) ?: p;
                r = read_file_at(dfd, name, LEGACY_SEED_MAX, READ_SECRET, &buf, &size, NULL);
                if (r == -ENOENT)
                        continue;
                if (r < 0) {
                        log_warning("Ignoring legacy seed %s: %s", shown, skip_reason(r, LEGACY_SEED_MAX));
                        continue;
                }
                n += mix(buf, size, "legacy seed", shown);
                erase_free(buf, LEGACY_SEED_MAX + 1);
        }
        return n;
}

/* ---------------------------------------------------------------- the credential */

/* The system credential entropy-gate.seed: fresh bytes from the hypervisor
 * or the boot loader for this boot, as secret as the channel that carried
 * them. */
typedef struct Credential {
        char path[PATH_MAX + 32];    /* for messages */
        char *raw;                   /* as read: mixed whatever it is */
        size_t raw_size;
        FileStat stat, dir_stat;
        uint8_t bytes[CREDENTIAL_MAX]; /* canonical (credential.h) */
        CredentialContent content;
        uint8_t hash[CREDENTIAL_HASH_SIZE];
        char hash_hex[2 * CREDENTIAL_HASH_SIZE + 1];
        bool credit;                 /* the plan: credit it */
        bool remember;               /* ... and remember it first */
        bool earlier;                /* credited earlier in this boot (the initrd) */
        char why_not[WHY_MAX];
} Credential;

static void credential_done(Credential *c) {
        erase_free(c->raw, CREDENTIAL_MAX + 1);
        erase(c, sizeof(*c));
}

/* Where the credential is. Under systemd the unit's LoadCredential= hands
 * it over in $CREDENTIALS_DIRECTORY; run by hand or by another init, the
 * system credential directory is read directly. Either is taken inside the
 * root, through the resolver, and believed only as far as its owner and
 * mode allow (credential_read()): an inherited $CREDENTIALS_DIRECTORY
 * that points at someone else's files gives nothing to credit. */
static const char *credential_dir(void) {
        const char *dir = getenv("CREDENTIALS_DIRECTORY");

        return dir && *dir ? dir : SYSTEM_CREDENTIALS_DIR;
}

/* 1 when there is a credential, 0 when none (an unusable one is logged
 * and counts as none). */
static int credential_read(Credential *c) {
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        const char *dir = credential_dir();
        struct stat st;
        int r, acl;

        snprintf(c->path, sizeof(c->path), "%s%s/%s", root_get() ?: "", dir, CREDENTIAL_NAME);
        if (dir[0] != '/') {
                log_warning("Ignoring $CREDENTIALS_DIRECTORY=%s: not an absolute path", dir);
                return 0;
        }
        dfd = root_open(dir, CHASE_DIRECTORY);
        if (dfd == -ENOENT)
                return 0;
        if (dfd < 0 || fstat(dfd, &st) < 0) {
                log_warning("Ignoring credential %s: its directory cannot be opened: %s", c->path,
                            strerror(dfd < 0 ? -dfd : errno));
                return 0;
        }
        file_stat_from_stat(&st, &c->dir_stat);

        /* The fd kept: its ACL is asked below, of the very file read. */
        fd = open_nofollow_at(dfd, CREDENTIAL_NAME, &c->stat);
        r = fd < 0 ? fd : S_ISDIR(c->stat.mode) ? -EISDIR :
                read_fd_bounded_stat(fd, &c->stat, CREDENTIAL_MAX, READ_SECRET, &c->raw, &c->raw_size);
        if (r == -ENOENT)
                return 0;
        if (r < 0) {
                log_warning("Ignoring credential %s: %s", c->path, skip_reason(r, CREDENTIAL_MAX));
                return 0;
        }
        if (c->raw_size == 0)
                return 0;

        credential_canonicalize((const uint8_t *) c->raw, c->raw_size, c->bytes, &c->content);
        credential_hash(c->bytes, c->content.size, c->hash);
        hex_encode(c->hash, CREDENTIAL_HASH_SIZE, c->hash_hex);

        /* Who could have put it there, or read it: a credential that is not
         * root's alone is no secret, whatever it holds. */
        if (c->stat.uid != 0)
                snprintf(c->why_not, sizeof(c->why_not), "the file is owned by UID %u, not root",
                         (unsigned) c->stat.uid);
        else if ((c->stat.mode & 0027) != 0)
                /* Group read stays allowed: systemd hands credentials to a
                 * service readable by its group (root's). */
                snprintf(c->why_not, sizeof(c->why_not), "the file is mode %04o: others may read or change it",
                         (unsigned) (c->stat.mode & 07777));
        else if ((c->stat.mode & 0040) != 0 && c->stat.gid != 0)
                snprintf(c->why_not, sizeof(c->why_not), "the file is readable by group GID %u, not root's",
                         (unsigned) c->stat.gid);
        else if ((c->stat.mode & 0040) != 0 && (acl = fd_has_access_acl(fd)) != 0)
                /* The group bits are then the ACL's mask: what they allow,
                 * every user and group the ACL names may have. */
                snprintf(c->why_not, sizeof(c->why_not), "%s", acl > 0 ?
                         "the file has an access control list: others may read it" :
                         "whether the file has an access control list cannot be told: others may read it");
        else if (c->dir_stat.uid != 0 || (c->dir_stat.mode & 022) != 0)
                snprintf(c->why_not, sizeof(c->why_not),
                         "its directory is not root's alone (UID %u, mode %04o)", (unsigned) c->dir_stat.uid,
                         (unsigned) (c->dir_stat.mode & 07777));
        else if (fd_mount_is_idmapped(dfd) != 0)
                /* The owners above are the mount's, not the disk's. */
                snprintf(c->why_not, sizeof(c->why_not), "its directory is on an idmapped mount (or one that "
                         "cannot be told apart from it): its owner on the disk may read or change it");
        else if (c->content.class == CREDENTIAL_CLASS_TEXT)
                snprintf(c->why_not, sizeof(c->why_not),
                         "it is text (%s), not binary or hex, so its density is unknown", c->content.encoding);
        return 1;
}

/* ---------------------------------------------------------------- a run */

typedef struct Load {
        const SeedOptions *o;
        int dfd;                     /* the locked seed directory, or -errno */
        FileStat dir_stat;
        bool dir_volatile;           /* a tmpfs, an overlay over one, the initramfs: forgets all at reboot */
        bool dir_idmapped;           /* on an idmapped mount: the owners it shows are not the disk's */
        char dir_id[LEDGER_ID_MAX];
        int ledger_fd;               /* the locked runtime directory, or -errno */
        Ledger ledger;
        bool ledger_changed;
        MachineId machine;
        VmGeneration generation;     /* this boot's, when generation_state > 0 */
        int generation_state;        /* 1 read, 0 none, -errno a source that cannot be read */
        bool first_boot_flag;
        char boot_id[MACHINE_ID_HEX_LEN + 1];
        StoredSeed old;
        char old_hash[LEDGER_ID_MAX];  /* the keyed hash of the old seed, "" when it did not parse */
        Credential cred;
        bool have_cred;
        CredentialMemory memory;
        int memory_state;            /* 0 read (or empty), -errno, 1 not read yet */
        SeedRecord record;
        char written[RUNSTATE_MAX];  /* the record as last written */
        char no_credit[WHY_MAX];     /* why nothing at all may be credited this run, "" when it may */
        char no_seed_credit[WHY_MAX]; /* why the seed may not be credited, "" when it may */
        int error;                   /* the first error, already logged */
        bool earlier_load;           /* a load of this boot may have run, its ledger lost: keep its record */
        bool ledger_unknown;         /* the ledger could not be locked or read */
} Load;

static void load_done(Load *l) {
        /* l->dfd stays open: the lock goes with the process (seed-run.h). */
        safe_close(l->ledger_fd);
        stored_seed_done(&l->old);
        credential_done(&l->cred);
        erase(&l->machine, sizeof(l->machine));
}

static void load_fail(Load *l, int r) {
        if (l->error == 0)
                l->error = r;
}

_printf_(2, 3)
static void forbid(char why[static WHY_MAX], const char *format, ...) {
        va_list ap;

        if (why[0])
                return;
        va_start(ap, format);
        vsnprintf(why, WHY_MAX, format, ap);
        va_end(ap);
}

/* What a check of the seed directory's mount said (@r: 1 yes, 0 no,
 * -errno cannot be told), kept in *@flag and, unless the answer is no, as
 * why the seed is not credited: @yes, or that whether @question cannot be
 * told. */
static void dir_check(char why[static WHY_MAX], int r, bool *flag, const char *yes, const char *question) {
        if (r == 0)
                return;
        *flag = true;
        if (r > 0)
                forbid(why, "%s", yes);
        else
                forbid(why, "cannot tell whether %s: %s", question, strerror(-r));
}

/* Why /etc/machine-id could not be read (MachineId.error), in words. */
static const char *machine_id_error_string(int r) {
        return r == -EBADFD || r == -EISDIR ? "not a regular file" :
               r == -ENOSYS ? "/proc is not mounted (or /proc/self/fd is not the kernel's), and without it no file is opened safely" :
               r == -ESTALE ? "it changed while it was opened, or /proc/self/fd did not lead back to it (something mounted over /proc?): not opened" :
               strerror(-r);
}

static bool machine_id_counts_as_invalid(const MachineId *m) {
        return m->state == MACHINE_ID_INVALID || m->state == MACHINE_ID_EMPTY;
}

/* The first-boot flag: any doubt (an error other than "does not exist")
 * counts as a first boot; it can only cost a credit, never add a wrong one. */
static bool first_boot_flag_read(void) {
        /* O_PATH: only its existence counts, whatever it is. */
        _cleanup_close_ int fd = root_open_path("/run/systemd/first-boot", CHASE_NOFOLLOW);

        return fd != -ENOENT;
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

/* This boot's VM generation (vm-generation.h): 1 and *ret, 0 none, -errno
 * when there is a source that cannot be read, said here once. A seed is then
 * saved unbound, as on a system without one: crediting it after a restore is
 * what every seed risked before generations were read, and refusing to
 * credit any seed on every VM whose kernel is locked down would trade that
 * risk for a pool that is never seeded early. */
static int generation_read(VmGeneration *ret) {
        char why[VM_GENERATION_WHY_MAX];
        int r;

        r = vm_generation_read(ret, why);
        if (r < 0) {
                log_warning("Cannot read the VM generation, so seeds are not bound to it: %s", why);
                *ret = (VmGeneration) { .source = VM_GENERATION_NONE };
        }
        return r;
}

static RecordVmGeneration record_vm_generation(const VmGeneration *g, int state) {
        if (state < 0)
                return RECORD_VM_GENERATION_UNREADABLE;
        if (state == 0)
                return RECORD_VM_GENERATION_NONE;
        return g->source == VM_GENERATION_VMCLOCK ? RECORD_VM_GENERATION_VMCLOCK : RECORD_VM_GENERATION_VMGENID;
}

static void hash_hex(const void *buf, size_t size, const char *key, char ret[static LEDGER_ID_MAX]) {
        uint8_t h[32];

        (void) blake2s(h, sizeof(h), key, strlen(key), buf, size);
        hex_encode(h, sizeof(h), ret);
        erase(h, sizeof(h));
}

/* Build and durably write the next seed, of @fresh's size: derived from
 * the old one (or none), @fresh (wiped here) and both clocks (see
 * seed_derive()), bound to this machine and to the VM generation @gen
 * (NULL: none known). Its keyed hash in @ret_hash, unless NULL. */
static int write_next_seed(int dfd, const MachineId *m, const VmGeneration *gen, const uint8_t *old, size_t old_size,
                           Fresh *fresh, bool want_creditable, bool *ret_creditable, char *ret_hash) {
        _cleanup_(seed_file_erase) SeedFile next = {};
        int r;

        /* Creditable only when derived from a secret this machine alone held,
         * or from an initialized CRNG; never when the machine-id that binds
         * it cannot be read. */
        next.creditable = seed_replacement_creditable(want_creditable, fresh->initialized) &&
                !machine_id_counts_as_invalid(m);
        next.seed_size = fresh->size;
        seed_binding_compute(machine_id_get(m), next.binding);
        vm_generation_binding(gen, next.generation);
        r = seed_derive(old, old_size, fresh->bytes, fresh->size, now_usec(CLOCK_REALTIME), now_usec(CLOCK_BOOTTIME),
                        next.seed, fresh->size);
        erase(fresh, sizeof(*fresh));
        if (r < 0)
                return r;
        /* Before the write: a replacement renamed into place is there even
         * when the fsync of its directory then fails. */
        if (ret_hash)
                hash_hex(next.seed, next.seed_size, SEED_HASH_KEY, ret_hash);
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
                .file_nlink = (unsigned long) l->old.stat.nlink,
                .dir_uid = l->dir_stat.uid,
                .dir_mode = l->dir_stat.mode,
        };
        if (l->old.parsed) {
                uint8_t binding[SEED_BINDING_SIZE], generation[SEED_GENERATION_SIZE];

                seed_binding_compute(machine_id_get(m), binding);
                f->binding_matches = memcmp(binding, l->old.file.binding, SEED_BINDING_SIZE) == 0;
                f->seed_generation_bound = !vm_generation_binding_is_none(l->old.file.generation);
                f->generation_readable = l->generation_state > 0;
                vm_generation_binding(f->generation_readable ? &l->generation : NULL, generation);
                f->generation_matches = f->generation_readable &&
                        memcmp(generation, l->old.file.generation, SEED_GENERATION_SIZE) == 0;
        }
}

/* Whether the seed record @rec may be this boot's (@boot_id): it is, in
 * either case, or its boot id is missing or damaged (cut short, not hex).
 * Only another boot's id, whole, says it is not. */
static bool record_may_be_this_boots(const SeedRecord *rec, const char *boot_id) {
        return strspn(rec->boot_id, "0123456789abcdefABCDEF") != MACHINE_ID_HEX_LEN ||
                rec->boot_id[MACHINE_ID_HEX_LEN] != 0 || strcasecmp(rec->boot_id, boot_id) == 0;
}

/* This boot, and what was consumed and credited in it so far (the ledger,
 * runstate.h): taken under the runtime directory's lock, which is held
 * until this load's own entries are written. Any doubt credits nothing. */
static void ledger_open(Load *l) {
        struct stat st;
        int r;

        r = boot_id_read(l->boot_id);
        if (r < 0) {
                l->boot_id[0] = 0;
                forbid(l->no_credit, "cannot read this boot's id, so cannot tell what was credited in it: %s",
                       strerror(-r));
                log_warning_errno(r, "Failed to read the boot id: %m");
        }

        l->ledger_fd = ledger_lock(SEED_LOCK_TIMEOUT_USEC, &st);
        /* Until it is read whole, what this boot did is not known. */
        l->ledger_unknown = true;
        if (l->ledger_fd == -ETIMEDOUT) {
                /* The seed is still replaced, the pool still fed: only
                 * what this boot credited cannot be known. */
                forbid(l->no_credit, "cannot lock the runtime directory %s: another process has held its lock for %s",
                       runstate_dir(), FORMAT_DURATION(SEED_LOCK_TIMEOUT_USEC));
                log_warning("Failed to lock the runtime directory %s, which holds the record of what this boot "
                            "credited, within %s: another process holds it", runstate_dir(),
                            FORMAT_DURATION(SEED_LOCK_TIMEOUT_USEC));
                return;
        }
        if (l->ledger_fd < 0) {
                forbid(l->no_credit, "cannot lock the runtime directory %s: %s", runstate_dir(), strerror(-l->ledger_fd));
                log_warning_errno(l->ledger_fd, "Failed to open and lock the runtime directory %s: %m", runstate_dir());
                return;
        }
        if (st.st_uid != 0 || (st.st_mode & 022) != 0) {
                forbid(l->no_credit, "the runtime directory %s is not root's alone (UID %u, mode %04o): its "
                       "record of this boot cannot be believed", runstate_dir(), (unsigned) st.st_uid, (unsigned) (st.st_mode & 07777));
                return;
        }

        r = ledger_read(l->ledger_fd, &l->ledger);
        l->ledger_unknown = r < 0;
        if (r < 0) {
                /* A load may have run, and credited: it cannot be ruled out. */
                forbid(l->no_credit, "the record of what this boot credited (%s/%s) %s, so a load may have run",
                       runstate_dir(), RUNSTATE_LEDGER,
                       r == -EBADMSG ? "is damaged" : r == -EPERM ? "is not root's alone" : "cannot be read");
                log_warning_errno(r, "Failed to read %s/%s: %m", runstate_dir(), RUNSTATE_LEDGER);
                return;
        }
        if (r == 0 && l->boot_id[0]) {
                SeedRecord rec;

                /* No ledger, but the record a load writes after it: the
                 * ledger was removed (or never written, and then nothing
                 * was credited), and what it said is lost. Unless the
                 * record is another boot's (where /run outlives a boot),
                 * a load may have run in this one. */
                r = seed_record_read(&rec);
                if (r != 0 && (r < 0 || record_may_be_this_boots(&rec, l->boot_id))) {
                        forbid(l->no_credit, "the record of what this boot credited (%s/%s) is missing, but the "
                               "record %s %s: a load may have run", runstate_dir(), RUNSTATE_LEDGER, RUNSTATE_SEED,
                               r < 0 ? "cannot be read" : !rec.boot_id[0] ? "has no boot id" :
                               strcasecmp(rec.boot_id, l->boot_id) == 0 ? "is this boot's" : "has a damaged boot id");
                        l->earlier_load = true;
                        return;
                }
                r = 0;
        }
        if (r == 0 || !streq(l->ledger.boot_id, l->boot_id)) {
                /* None yet, or another boot's (only where /run outlives a
                 * boot: a --root tree). With no boot id of ours, crediting
                 * is already off. */
                l->ledger = (Ledger) {};
                memcpy(l->ledger.boot_id, l->boot_id, sizeof(l->boot_id));
                l->ledger_changed = true;
        }
}

/* Add to the ledger; when it is full or cannot be written nothing more is
 * credited. */
static void ledger_note(Load *l, LedgerKind kind, const char *id) {
        int r;

        if (l->ledger_fd < 0 || l->no_credit[0])
                return;
        r = ledger_add(&l->ledger, kind, id);
        if (r > 0)
                l->ledger_changed = true;
        if (r < 0)
                forbid(l->no_credit, "cannot record it in %s/%s: %s", runstate_dir(), RUNSTATE_LEDGER,
                       r == -ENOSPC ? "the record is full" : strerror(-r));
}

static int ledger_commit(Load *l) {
        int r;

        if (l->ledger_fd < 0 || !l->ledger_changed || !l->boot_id[0])
                return 0;
        r = ledger_write(l->ledger_fd, &l->ledger);
        if (r >= 0)
                l->ledger_changed = false;
        return r;
}

/* The memory of credited credentials, read once, on demand. */
static int memory_get(Load *l) {
        if (l->memory_state > 0)
                l->memory_state = credential_memory_read(l->dfd, &l->memory);
        return l->memory_state;
}

/* systemd also takes systemd.set_credential= from its SystemdOptions EFI
 * variable (efi_options_read()), which every user can read as they read
 * the kernel command line: a credential it names is no secret either. A
 * copy of it that exists but cannot be read may name it: the same as yes.
 * Returns true, with the reason in @why, when it may. */
static bool efi_options_may_set_credential(char *why, size_t size) {
        static const char *const shown[_EFI_OPTIONS_SOURCE_MAX] = {
                [EFI_OPTIONS_CACHE] = "systemd's copy of the SystemdOptions EFI variable",
                [EFI_OPTIONS_VARIABLE] = "the SystemdOptions EFI variable",
        };

        for (EfiOptionsSource s = 0; s < _EFI_OPTIONS_SOURCE_MAX; s++) {
                _cleanup_free_ char *text = NULL;
                int r;

                r = efi_options_read(s, &text);
                if (r == -ENOENT)
                        continue;
                if (r < 0) {
                        snprintf(why, size, "%s cannot be read to tell whether it came from there (%s)", shown[s],
                                 r == -EFBIG ? "larger than any command line" : skip_reason(r, 0));
                        return true;
                }
                if (proc_cmdline_may_set_credential(text, CREDENTIAL_NAME)) {
                        snprintf(why, size, "it may come from %s (systemd.set_credential=), which any user can read",
                                 shown[s]);
                        return true;
                }
        }
        return false;
}

/* systemd's LoadCredential= without a path, as our unit has it, hands over
 * the file of that name in a credential store when no system credential of
 * that name was passed: on disk, the same bytes at every boot and on every
 * clone of the image; in /run, whatever put it there in this boot (a copy
 * of such a file, as a tmpfs seed directory's seed may be). A credential
 * with the canonical bytes of such a file, or beside one that cannot be
 * read, is no fresh secret from the hypervisor or the boot loader. Returns
 * true, with the reason in @why, when it may come from there. */
static bool credential_may_come_from_disk(const Credential *c, char *why, size_t size) {
        static const char *const stores[] = {
                "/etc/credstore", "/run/credstore", "/usr/local/lib/credstore", "/usr/lib/credstore",
        };

        for (size_t i = 0; i < ELEMENTSOF(stores); i++) {
                _cleanup_close_ int dfd = -EBADF;
                uint8_t bytes[CREDENTIAL_MAX], hash[CREDENTIAL_HASH_SIZE];
                CredentialContent content;
                char *buf = NULL;
                size_t n = 0;
                bool same;
                int r;

                dfd = root_open(stores[i], CHASE_DIRECTORY);
                if (dfd == -ENOENT)
                        continue;
                r = dfd < 0 ? dfd : read_file_at(dfd, CREDENTIAL_NAME, CREDENTIAL_MAX, READ_SECRET, &buf, &n, NULL);
                if (r == -ENOENT)
                        continue;
                if (r < 0) {
                        snprintf(why, size, "%s/%s, in a credential store, cannot be read to tell whether it came "
                                 "from there (%s)", stores[i], CREDENTIAL_NAME, skip_reason(r, CREDENTIAL_MAX));
                        return true;
                }
                credential_canonicalize((const uint8_t *) buf, n, bytes, &content);
                erase_free(buf, CREDENTIAL_MAX + 1);
                credential_hash(bytes, content.size, hash);
                same = memcmp(hash, c->hash, sizeof(hash)) == 0;
                erase(bytes, sizeof(bytes));
                erase(hash, sizeof(hash));
                if (same) {
                        snprintf(why, size, "it is %s/%s, in a credential store, not a fresh one from the "
                                 "hypervisor or the boot loader: the same at every boot, on every copy", stores[i],
                                 CREDENTIAL_NAME);
                        return true;
                }
        }
        return false;
}

static void plan_credential(Load *l, bool dir_usable) {
        Credential *c = &l->cred;
        int r;

        if (!l->have_cred || c->why_not[0])
                return;
        if (l->no_credit[0]) {
                /* Crediting turned off is the answer, whatever else is doubtful. */
                if (!l->o->credit)
                        snprintf(c->why_not, sizeof(c->why_not), "crediting disabled (%s)",
                                 strna(l->o->credit_disabled_by));
                else
                        snprintf(c->why_not, sizeof(c->why_not), "%s", l->no_credit);
                return;
        }
        /* Credited earlier in this boot: by the initrd, whose ledger is
         * carried over in /run, or by another load. Remember it here, where
         * it can be remembered. */
        if (ledger_has(&l->ledger, LEDGER_CREDENTIAL, c->hash_hex)) {
                snprintf(c->why_not, sizeof(c->why_not), "credited earlier in this boot");
                c->earlier = true;
                c->remember = dir_usable && memory_get(l) >= 0;
                return;
        }
        if (!l->o->credit) {
                snprintf(c->why_not, sizeof(c->why_not), "crediting disabled (%s)", strna(l->o->credit_disabled_by));
                return;
        }
        /* systemd imports credentials from the kernel command line too,
         * which every user can read: no secret, whatever its length. */
        if (!l->o->cmdline || proc_cmdline_may_set_credential(l->o->cmdline, CREDENTIAL_NAME)) {
                snprintf(c->why_not, sizeof(c->why_not), l->o->cmdline ?
                         "it may come from the kernel command line (systemd.set_credential=), which any user can read" :
                         "the kernel command line cannot be read to tell whether it came from there");
                return;
        }
        if (efi_options_may_set_credential(c->why_not, sizeof(c->why_not)))
                return;
        if (credential_may_come_from_disk(c, c->why_not, sizeof(c->why_not)))
                return;
        if (c->content.size < SEED_SIZE_MIN) {
                snprintf(c->why_not, sizeof(c->why_not), "%zu bits%s, less than %u", c->content.size * 8,
                         c->content.class == CREDENTIAL_CLASS_HEX ? " after decoding hex" : "", SEED_SIZE_MIN * 8);
                return;
        }
        /* Never twice: what was credited once is remembered in the seed
         * directory, and only there can it be checked. Without one (the
         * initrd, --credential-only) crediting it anyway trusts the
         * hypervisor or boot loader to hand over a fresh one at every boot:
         * an opt-in. A seed directory that was asked for and cannot be used
         * (its lock timed out, say) is no such case: nothing is credited. */
        if (l->o->credential_only) {
                if (l->o->credit_credential_without_memory)
                        c->credit = true;
                else
                        snprintf(c->why_not, sizeof(c->why_not),
                                 "no seed directory to remember it in (CreditCredentialWithoutMemory= is off)");
                return;
        }
        if (!dir_usable) {
                snprintf(c->why_not, sizeof(c->why_not), "the seed directory, which remembers it, cannot be used");
                return;
        }
        if (l->dir_volatile) {
                /* Its memory is the lower layer's again at the next boot. */
                if (l->o->credit_credential_without_memory)
                        c->credit = true;
                else
                        snprintf(c->why_not, sizeof(c->why_not), "the seed directory that remembers it (a tmpfs, "
                                 "a RAM disk, an overlay over one, the initramfs, or what cannot be told apart) "
                                 "forgets at the next boot (CreditCredentialWithoutMemory= is off)");
                return;
        }
        if (l->dir_idmapped) {
                snprintf(c->why_not, sizeof(c->why_not), "the seed directory that remembers it is on an idmapped "
                         "mount (or one that cannot be told apart from it): its owner on the disk may change it");
                return;
        }
        if (l->dir_stat.uid != 0 || (l->dir_stat.mode & 077) != 0) {
                snprintf(c->why_not, sizeof(c->why_not), "the seed directory that remembers it is not root's alone "
                         "(UID %u, mode %04o)", (unsigned) l->dir_stat.uid, (unsigned) (l->dir_stat.mode & 07777));
                return;
        }
        r = memory_get(l);
        if (r < 0) {
                snprintf(c->why_not, sizeof(c->why_not), "the memory of credentials already credited (%s) %s",
                         SEED_CREDENTIALS_NAME,
                         r == -EPERM ? "breaks rule 6 (not a regular file of root's, mode 0600, one link)" :
                         r == -EBADMSG ? "does not parse" : strerror(-r));
                return;
        }
        if (credential_memory_has(&l->memory, c->hash)) {
                snprintf(c->why_not, sizeof(c->why_not), "credited on an earlier boot (a replayed or cloned credential)");
                return;
        }
        c->credit = c->remember = true;
}

/* The credential's fields of the record, as planned or done. */
static void record_credential(Load *l, int have_previous, const SeedRecord *previous) {
        SeedRecord *rec = &l->record;

        rec->credential = !l->have_cred ? CREDENTIAL_NONE : l->cred.credit ? CREDENTIAL_CREDITED : CREDENTIAL_MIXED;
        rec->credential_bits = l->cred.credit ? l->cred.content.size * 8 : 0;
        rec->credential_hash[0] = 0;
        if (l->cred.credit)
                memcpy(rec->credential_hash, l->cred.hash_hex, sizeof(l->cred.hash_hex));
        else if (l->cred.earlier && have_previous > 0 && streq(previous->credential_hash, l->cred.hash_hex)) {
                /* What this boot did with it, for entropyctl. */
                rec->credential = CREDENTIAL_CREDITED;
                rec->credential_bits = previous->credential_bits;
                memcpy(rec->credential_hash, previous->credential_hash, sizeof(rec->credential_hash));
        }
}

/* Write the record unless it already says exactly this. */
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

/* What stopped a tree's walk, in words: a mount on the way said as such
 * (strerror() would say "Invalid cross-device link" or "Object is
 * remote"), anything else as @other says it. */
static const char *tree_error_string(int r, const char *other) {
        return r == -EXDEV ? "a mount point is on the way (--cross-mounts allows crossing it)" :
               r == CHASE_ERR_FOREIGN_MOUNT ? "a mount on the way is of a file system also mounted outside the "
               "tree, or of a type whose files may live outside it (overlay, FUSE, network), or is "
               "this system's root (never crossed, even with --cross-mounts)" : other;
}

/* Why the seed directory could not be opened and locked (for load, only
 * the two refusals): a lock held too long said as one, the runtime
 * directory and the root named, a missing parent and a mount on the way in
 * words. */
static int log_seed_dir_error(int r, const SeedOptions *o) {
        if (r == -ETIMEDOUT)
                return log_error_errno(r, "Failed to lock seed directory %s: another process has held its lock for %s",
                                       o->seed_dir_shown, FORMAT_DURATION(SEED_LOCK_TIMEOUT_USEC));
        if (r == -EDEADLK)
                return log_error_errno(r, "Refusing the seed directory %s: it is the runtime directory %s, "
                                       "whose records would overwrite the seed; set Directory= to another directory",
                                       o->seed_dir_shown, runstate_dir());
        if (r == -EBUSY)
                return log_error_errno(r, "Refusing the seed directory %s: it is the root directory itself; "
                                       "set Directory= to a directory of its own", o->seed_dir_shown);
        if (r == -ENOENT)
                /* The seed directory itself is made when missing: what is
                 * not there is above it (a /var/lib not mounted, or an
                 * image tree without it), and that is never made. */
                return log_error_errno(r, "Failed to open and lock seed directory %s: %m (the seed directory "
                                       "is created when missing, the directories above it are not)",
                                       o->seed_dir_shown);
        return log_error_errno(r, "Failed to open and lock seed directory %s: %s", o->seed_dir_shown,
                               tree_error_string(r, strerror(-r)));
}

int seed_load(const SeedOptions *o) {
        _cleanup_(load_done) Load l = { .o = o, .dfd = -EBADF, .ledger_fd = -EBADF, .memory_state = 1 };
        SeedRecord previous;
        int have_previous;
        struct seed_facts facts;
        CreditDecision d;
        const uint8_t *old;
        size_t old_size, size;
        bool dir_usable, replacement_creditable = false;
        char next_hash[LEDGER_ID_MAX] = "";
        int r;

        l.record = (SeedRecord) {
                .action = SEED_ACTION_NOT_CREDITED,
                .credential = CREDENTIAL_NONE,
                .replacement_creditable = 0,
                .seed_generation = _SEED_GENERATION_INVALID,
        };
        snprintf(l.record.seed_path, sizeof(l.record.seed_path), "%s/%s", o->seed_dir_shown, SEED_FILE_NAME);

        /* 0. This boot, and what it already consumed and credited. */
        ledger_open(&l);

        /* 1. Lock, bounded: a concurrent load or save must not read the seed
         * we are about to consume, and a lock held by anyone else must not
         * hang the boot. Without the directory, what does not need it is
         * still done. */
        l.dfd = o->credential_only ? -EBADF : seed_dir_open_locked(o->seed_dir, 0, SEED_LOCK_TIMEOUT_USEC, &l.dir_stat);
        dir_usable = l.dfd >= 0;
        if (l.dfd == -EDEADLK || l.dfd == -EBUSY)
                /* Nothing written: the records would land in the seed
                 * directory, one of them over the seed; or the seed among
                 * the root's own files. */
                return log_seed_dir_error(l.dfd, o);
        if (o->credential_only) {
                forbid(l.no_seed_credit, "no seed directory (--credential-only)");
                l.record.seed_path[0] = 0;
        } else if (!dir_usable) {
                forbid(l.no_seed_credit, "cannot open and lock the seed directory: %s",
                       l.dfd == -ETIMEDOUT ? "another process holds its lock" : strerror(-l.dfd));
                if (l.dfd == -ETIMEDOUT)
                        load_fail(&l, log_error_errno(l.dfd, "not crediting: cannot open and lock the seed directory %s: "
                                                      "another process has held its lock for %s", o->seed_dir_shown,
                                                      FORMAT_DURATION(SEED_LOCK_TIMEOUT_USEC)));
                else
                        load_fail(&l, log_error_errno(l.dfd, "not crediting: cannot open and lock the seed directory "
                                                      "%s: %m", o->seed_dir_shown));
        } else {
                ledger_directory_id((uint64_t) l.dir_stat.dev, (uint64_t) l.dir_stat.ino, l.dir_id);
                /* Rule 7 is about the next boot: a replacement that only
                 * a tmpfs holds is gone then, and the lower layer's copy
                 * of this very seed is back, to be credited again. */
                dir_check(l.no_seed_credit, fd_overlay_upper_is_volatile(l.dfd), &l.dir_volatile,
                          "the seed directory is on an overlay whose upper layer is a tmpfs or other memory, or "
                          "mounted volatile: the replacement is gone at the next boot, and this seed back",
                          "the seed directory, an overlay, keeps the replacement across a reboot");
                /* The initramfs the kernel unpacked (an OpenWrt initramfs
                 * image, a netboot root) brings the image's seed back at
                 * every boot and keeps no replacement: the same bytes would
                 * be credited each time. */
                dir_check(l.no_seed_credit, fd_is_on_initramfs_root(l.dfd), &l.dir_volatile,
                          "the seed directory is on the initramfs the kernel unpacked at boot: its seed came with "
                          "the boot image and is back at every boot",
                          "the seed directory is on the initramfs the kernel unpacked at boot");
                /* Nor does a tmpfs or a RAM disk keep the replacement. Empty
                 * at boot, it holds a seed only when something put one there
                 * in this boot: a load or a save, from this boot's pool,
                 * which crediting would count twice; or whatever fills it
                 * from a disk at every boot (Alpine's lbu, folder2ram, a
                 * boot script's copy), which brings this seed back after a
                 * crash, or at every boot. The same without an overlay: a
                 * disk seen through a device-mapper snapshot whose changes
                 * are kept in RAM brings the disk's seed back. */
                dir_check(l.no_seed_credit, fd_is_in_memory(l.dfd), &l.dir_volatile,
                          "the seed directory is in memory (a tmpfs, a RAM disk, or a device with one in it, as a "
                          "snapshot whose changes are kept in RAM): the replacement is gone at the next boot, and "
                          "whatever put this seed here may bring it back",
                          "the seed directory is in memory, which keeps no replacement across a reboot");
                /* Rule 6 asks who owns the seed on its file system: through
                 * an idmapped mount, a user's files show as root's, and that
                 * user reads and changes them by any other path. */
                dir_check(l.no_seed_credit, fd_mount_is_idmapped(l.dfd), &l.dir_idmapped,
                          "the seed directory is on an idmapped mount: the owners it shows are not those on the "
                          "disk, who may read or change the seed",
                          "the seed directory is on an idmapped mount, whose owners are not those on the disk");
        }

        /* 2. What every clone may share, mixed only. */
        machine_id_read(&l.machine);
        if (l.machine.state == MACHINE_ID_INVALID && l.machine.error < 0)
                log_warning_errno(l.machine.error, "Failed to read /etc/machine-id: %s",
                                  machine_id_error_string(l.machine.error));
        (void) mix(l.machine.raw, l.machine.raw_size, "the machine-id", NULL);
        l.generation_state = generation_read(&l.generation);
        l.record.vm_generation = record_vm_generation(&l.generation, l.generation_state);
        l.first_boot_flag = first_boot_flag_read();
        l.record.legacy_mixed = mix_legacy_seeds();
        l.have_cred = credential_read(&l.cred) > 0;

        have_previous = seed_record_read(&previous);
        /* What this boot did cannot be read from the ledger, but its
         * record is there: a load of this boot ran, and its record says
         * what it did. One without a boot id too, as where the ledger is
         * missing: the initrd's (--credential-only) replaced no seed. */
        if (l.ledger_unknown && have_previous > 0 && l.boot_id[0] && record_may_be_this_boots(&previous, l.boot_id))
                l.earlier_load = true;

        /* Once per boot, by identity: this directory, however it was named,
         * was consumed by a load of this boot already. */
        if (dir_usable && ledger_has(&l.ledger, LEDGER_DIRECTORY, l.dir_id)) {
                /* Mix what there is, credit nothing, keep the first record. */
                stored_seed_read(l.dfd, &l.old);
                old = stored_seed_bytes(&l.old, &old_size);
                (void) mix(old, old_size, "the seed", l.record.seed_path);
                if (l.have_cred)
                        (void) mix(l.cred.raw, l.cred.raw_size, "credential", l.cred.path);
                log_info("not crediting: the seed directory %s was already loaded in this boot (%s/%s), mixed it only",
                         o->seed_dir_shown, runstate_dir(), RUNSTATE_LEDGER);
                return l.error;
        }
        /* The same, when the ledger that would say which directory is lost:
         * any may have been loaded. */
        if (l.earlier_load) {
                if (dir_usable) {
                        stored_seed_read(l.dfd, &l.old);
                        old = stored_seed_bytes(&l.old, &old_size);
                        (void) mix(old, old_size, "the seed", l.record.seed_path);
                }
                if (l.have_cred)
                        (void) mix(l.cred.raw, l.cred.raw_size, "credential", l.cred.path);
                log_info("not crediting: %s; mixed only, and its record kept", l.no_credit);
                return l.error;
        }

        /* 3. Our seed, bounded, without following or blocking. */
        if (dir_usable) {
                stored_seed_read(l.dfd, &l.old);
                if (!l.old.exists)
                        log_info("No seed file %s yet, writing a fresh one.", l.record.seed_path);
                if (l.old.parsed) {
                        hash_hex(l.old.file.seed, l.old.file.seed_size, SEED_HASH_KEY, l.old_hash);
                        /* The same bytes under another name: a copy, or a
                         * link into another directory. */
                        if (ledger_has(&l.ledger, LEDGER_SEED, l.old_hash) ||
                            ledger_has(&l.ledger, LEDGER_NEXT, l.old_hash))
                                forbid(l.no_seed_credit, "this seed was credited already in this boot, or "
                                       "written by a load of it (from another directory or name, or by a load "
                                       "that failed)");
                }
        }
        facts_fill(&l, &facts);
        if (l.old.parsed)
                l.record.seed_generation = !facts.seed_generation_bound ? SEED_GENERATION_UNBOUND :
                        !facts.generation_readable ? SEED_GENERATION_UNVERIFIABLE :
                        facts.generation_matches ? SEED_GENERATION_SAME : SEED_GENERATION_CHANGED;

        /* 4. The next seed, durable before anything is credited. */
        old = stored_seed_bytes(&l.old, &old_size);
        /* The pool's size only changes with the kernel: the replacement
         * keeps the size of the seed it replaces, which save took from the
         * pool; only without one is the pool asked. */
        size = l.old.parsed ? l.old.file.seed_size : seed_size_for_poolsize(pool_size_bits());
        if (dir_usable) {
                Fresh fresh;

                fresh_get(&fresh, size);
                r = write_next_seed(l.dfd, &l.machine, l.generation_state > 0 ? &l.generation : NULL, old, old_size,
                                    &fresh, seed_credit_rules_2_to_6_hold(&facts),
                                    &replacement_creditable, next_hash);
        } else
                r = -EBADF;
        if (dir_usable && r < 0)
                load_fail(&l, log_error_errno(r, "Failed to write the replacement seed to %s: %s", l.record.seed_path,
                                              replace_error(r, o->seed_dir_shown, SEED_FILE_NAME)));
        facts.replacement_durable = r >= 0;
        l.record.replacement_creditable = replacement_creditable;
        /* The directory counts as consumed only once this load replaced its
         * seed: one that could not be locked or replaced used nothing up,
         * and a later load may do the job. */
        if (facts.replacement_durable) {
                memcpy(l.record.boot_id, l.boot_id, sizeof(l.boot_id));
                ledger_note(&l, LEDGER_DIRECTORY, l.dir_id);
        }
        /* The replacement too: made from this boot's pool, it is not to be
         * credited in this boot, however it is reached (the upper layer of
         * the overlay it was written through, a copy, or this directory
         * after a write that failed only once it was in place): by its
         * bytes, as a seed credited here, but under a name of its own:
         * SEED= says what was credited. */
        if (next_hash[0])
                ledger_note(&l, LEDGER_NEXT, next_hash);

        /* 5. Decide, remember, record; then credit. */
        l.record.boottime_usec = now_usec(CLOCK_BOOTTIME);
        d = seed_credit_decide(&facts);
        if (d.credit && (l.no_credit[0] || l.no_seed_credit[0])) {
                d = (CreditDecision) { .credit = false, .rule = 1 };
                snprintf(d.reason, sizeof(d.reason), "%s", l.no_credit[0] ? l.no_credit : l.no_seed_credit);
        }
        plan_credential(&l, dir_usable);
        if (l.cred.remember) {
                credential_memory_add(&l.memory, l.cred.hash);
                r = credential_memory_write(l.dfd, &l.memory);
                if (r < 0) {
                        if (l.cred.credit)
                                snprintf(l.cred.why_not, sizeof(l.cred.why_not), "it could not be remembered: %s",
                                         strerror(-r));
                        l.cred.credit = false;
                        load_fail(&l, log_error_errno(r, "Failed to remember the credential in %s: %s",
                                                      o->seed_dir_shown,
                                                      replace_error(r, o->seed_dir_shown, SEED_CREDENTIALS_NAME)));
                }
        }
        /* The ledger is the claim "consumed and credited in this boot": in
         * place before anything is credited, or a second load could credit
         * again. */
        if (d.credit)
                ledger_note(&l, LEDGER_SEED, l.old_hash);
        if (l.cred.credit)
                ledger_note(&l, LEDGER_CREDENTIAL, l.cred.hash_hex);
        r = ledger_commit(&l);
        if (r < 0) {
                log_error_errno(r, "not crediting: failed to record this load in %s/%s: %s", runstate_dir(),
                                RUNSTATE_LEDGER, replace_error(r, runstate_dir(), RUNSTATE_LEDGER));
                load_fail(&l, r);
                forbid(l.no_credit, "this load could not be recorded");
        }
        if (l.no_credit[0]) {
                if (d.credit) {
                        d = (CreditDecision) { .credit = false, .rule = 1 };
                        snprintf(d.reason, sizeof(d.reason), "%s", l.no_credit);
                }
                if (l.cred.credit)
                        snprintf(l.cred.why_not, sizeof(l.cred.why_not), "%s", l.no_credit);
                l.cred.credit = false;
        }

        if (l.have_cred && l.cred.credit) {
                r = pool_add_seed(l.cred.bytes, l.cred.content.size, true);
                if (r >= 0)
                        log_info("credited %zu bits from credential %s%s", l.cred.content.size * 8, l.cred.path,
                                 dir_usable && !l.dir_volatile ? "" :
                                 " (not remembered: CreditCredentialWithoutMemory=yes)");
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
                /* Rule 2 also covers "nothing usable there": say what was found.
                 * Crediting turned off is the answer, whatever else is doubtful. */
                snprintf(l.record.reason, sizeof(l.record.reason), "%s",
                         l.no_credit[0] && o->credit ? l.no_credit : d.rule == 2 ? l.old.problem : d.reason);
                log_info("not crediting: %s", l.record.reason);
        } else
                snprintf(l.record.reason, sizeof(l.record.reason), "%s",
                         l.no_seed_credit[0] ? l.no_seed_credit : l.no_credit);
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
        VmGeneration generation;
        const char *bound;
        bool creditable = false, invalid_id, have_generation;
        int dfd, r;

        /* Open, and locked until the process exits (seed-run.h). */
        dfd = seed_dir_open_locked(o->seed_dir, 0, SEED_LOCK_TIMEOUT_USEC, &dst);
        if (dfd < 0)
                return log_seed_dir_error(dfd, o);

        machine_id_read(&m);
        have_generation = generation_read(&generation) > 0;
        /* Bytes from an initialized CRNG are all the next seed needs. Fresh
         * bytes got while it is not initialized may be guessable: chain them
         * with the old seed, which keeps whatever secret it had. */
        fresh_get(&fresh, seed_size);
        if (!fresh.initialized) {
                stored_seed_read(dfd, &old);
                bytes = stored_seed_bytes(&old, &size);
        }
        invalid_id = machine_id_counts_as_invalid(&m);
        r = write_next_seed(dfd, &m, have_generation ? &generation : NULL, bytes, size, &fresh, false, &creditable,
                            NULL);
        erase(&m, sizeof(m));
        bound = have_generation ? vm_generation_source_to_string(generation.source) : NULL;
        erase(&generation, sizeof(generation));
        if (r < 0)
                return log_error_errno(r, "Failed to save a new seed to %s/%s: %s", o->seed_dir_shown, SEED_FILE_NAME,
                                       replace_error(r, o->seed_dir_shown, SEED_FILE_NAME));

        if (creditable)
                log_info("saved %zu bits to %s/%s%s%s%s", seed_size * 8, o->seed_dir_shown, SEED_FILE_NAME,
                         bound ? ", bound to this VM generation (" : "", bound ?: "", bound ? ")" : "");
        else
                log_info("saved %zu bits to %s/%s, not creditable: %s",
                         seed_size * 8, o->seed_dir_shown, SEED_FILE_NAME,
                         invalid_id ? "/etc/machine-id is not valid" : "the kernel's random pool is not initialized");
        return 0;
}

#if ENTROPY_GATE_PROVISION
/* Whether the directory @dfd holds nothing but what entropy-seed keeps
 * there (and a file system's lost+found): 1, or 0 with the first other name
 * in @ret_other, or a negative errno. Asked before provision makes the
 * directory root's with mode 0700: a Directory= that names /etc or
 * /var/lib of the image must not take them from everyone else. */
static int dir_holds_only_ours(int dfd, char *ret_other, size_t size) {
        /* Our files, their temporary names as the atomic write makes them,
         * and lost+found. */
        char ours[5][NAME_MAX + 1] = { SEED_FILE_NAME, SEED_CREDENTIALS_NAME, "", "", "lost+found" };
        struct dirent *de;
        int fd, r = 1;
        DIR *d;

        if (write_file_atomic_tmp_name(SEED_FILE_NAME, ours[2], sizeof(ours[2])) < 0 ||
            write_file_atomic_tmp_name(SEED_CREDENTIALS_NAME, ours[3], sizeof(ours[3])) < 0)
                return -ENAMETOOLONG;
        fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        d = fdopendir(fd);
        if (!d) {
                r = negative_errno();
                close(fd);
                return r;
        }
        errno = 0;
        while (r > 0 && (de = readdir(d))) {
                bool known = streq(de->d_name, ".") || streq(de->d_name, "..");

                for (size_t i = 0; i < ELEMENTSOF(ours) && !known; i++)
                        known = streq(de->d_name, ours[i]);
                if (!known) {
                        snprintf(ret_other, size, "%s", de->d_name);
                        r = 0;
                }
        }
        if (r > 0 && errno != 0)
                r = negative_errno();
        closedir(d);
        return r;
}

/* For image builders: a fresh creditable seed in ROOT's seed directory,
 * bound to the machine-id of the device that will boot it. The tree may
 * be someone else's: every path, read or written, is resolved inside it
 * and, unless --cross-mounts, never through a mount point in it; with it,
 * never through a mount of a file system that is also mounted outside the
 * tree (the rule root_set_tree() gave the root, which @tree only repeats);
 * every write is made relative to the directory fd the resolver found. */
int seed_provision(const SeedOptions *o) {
        _cleanup_close_ int dfd = -EBADF, etc = -EBADF;
        ChaseFlags tree = o->cross_mounts ? 0 : CHASE_NO_XDEV;
        char mid_buf[PATH_MAX], etc_buf[PATH_MAX], name[NAME_MAX + 1], tmp[NAME_MAX + 1];
        char text[MACHINE_ID_HEX_LEN + 2];
        const char *mid_shown = root_path_buf("/etc/machine-id", mid_buf) ?: "/etc/machine-id";
        const char *etc_shown = root_path_buf("/etc/", etc_buf) ?: "/etc/";
        Fresh fresh;
        MachineId m;
        FileStat dst;
        struct stat st;
        bool creditable = false;
        size_t size;
        int r;

        /* Everything that can fail is checked before anything is written:
         * a failed provision leaves the tree as it found it. */
        if (o->machine_id) {
                machine_id_parse(o->machine_id, strlen(o->machine_id), &m);
                if (m.state != MACHINE_ID_VALID)
                        return log_error_errno(-EINVAL, "Invalid --machine-id=%s: expected 32 hex digits, not all zero", o->machine_id);
        } else {
                machine_id_read(&m);
                if (m.state == MACHINE_ID_INVALID && m.error < 0)
                        return log_error_errno(m.error, "Failed to read %s: %s: a provisioned seed must be bound to "
                                               "the device's real machine-id (pass --machine-id=ID to set one)",
                                               mid_shown,
                                               tree_error_string(m.error, machine_id_error_string(m.error)));
                if (m.state != MACHINE_ID_VALID)
                        return log_error_errno(-EINVAL, "%s is %s: a provisioned seed must be bound to the device's "
                                               "real machine-id (pass --machine-id=ID to set one)",
                                               mid_shown, machine_id_state_to_string(m.state));
        }

        /* Never ship an image with a seed that looks good and is not: with
         * this host's pool not initialized nothing is written at all (an
         * earlier good seed stays). */
        r = pool_probe_ready();
        if (r <= 0)
                return log_error_errno(r < 0 ? r : -EAGAIN, "Not provisioning %s/%s: %s", o->seed_dir_shown,
                                       SEED_FILE_NAME, r < 0 ? "cannot ask the kernel whether its random pool is "
                                       "initialized" : "this machine's random pool is not initialized (a seed from "
                                       "it is not creditable); nothing written");

        if (o->machine_id) {
                /* The name itself is replaced (rename): a link there is
                 * replaced, never written through. Its directory, and the
                 * names the write needs, before the seed is written. */
                etc = root_open_parent("/etc/machine-id", tree, name);
                if (etc < 0)
                        return log_error_errno(etc, "Failed to open the directory of %s: %s", mid_shown,
                                               tree_error_string(etc, strerror(-etc)));
                r = write_file_atomic_tmp_name(name, tmp, sizeof(tmp));
                if (r < 0)
                        return log_error_errno(r, "Failed to write %s: %m", mid_shown);
                if (fstatat(etc, name, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISDIR(st.st_mode))
                        return log_error_errno(-EISDIR, "Failed to write %s: it is a directory", mid_shown);
                if (fstatat(etc, tmp, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISDIR(st.st_mode))
                        return log_error_errno(-EISDIR, "Failed to write %s: a directory is in the way at %s%s, the "
                                               "name of its temporary file", mid_shown,
                                               etc_shown, tmp);
                /* A read-only /etc (its own file system, --cross-mounts),
                 * or a machine-id no rename may replace (chattr +i or +a),
                 * known now, not once a good seed has been replaced. */
                if (faccessat(etc, ".", W_OK, AT_EACCESS) < 0)
                        return log_error_errno(errno, "Failed to write %s: %m; nothing changed", mid_shown);
#if defined(STATX_ATTR_IMMUTABLE) && defined(STATX_ATTR_APPEND)
                /* Not in C libraries without statx() (musl before 1.2.5):
                 * there the rename below says so, after the seed. */
                struct statx sx;

                if (statx(etc, name, AT_SYMLINK_NOFOLLOW, 0, &sx) >= 0 &&
                    (sx.stx_attributes & (STATX_ATTR_IMMUTABLE | STATX_ATTR_APPEND)) != 0)
                        return log_error_errno(-EPERM, "Failed to write %s: it is immutable or append-only "
                                               "(chattr -ia removes that); nothing changed", mid_shown);
#endif
        }

        dfd = seed_dir_open_locked(o->seed_dir, tree, SEED_LOCK_TIMEOUT_USEC, &dst);
        if (dfd < 0)
                return log_seed_dir_error(dfd, o);
        /* Rule 6 on the device: root's, and no one else's; on the fd. Only
         * a directory of its own: one that holds other files is the image's
         * (Directory=/etc), and load would not credit a seed there anyway. */
        if (dst.uid != 0 || (dst.mode & 077) != 0) {
                char other[NAME_MAX + 1] = "";

                /* The image's /tmp or /var/tmp is empty while it is built:
                 * its mode, not what it holds, says it is everyone's. */
                if ((dst.mode & (S_ISVTX | S_IWOTH)) != 0)
                        return log_error_errno(-EPERM, "Not provisioning %s: anyone may create files in it "
                                               "(mode %04o), so it is not a seed directory of its own: "
                                               "point Directory= at one (the default is %s); nothing changed",
                                               o->seed_dir_shown, (unsigned) (dst.mode & 07777), SEED_DIR_DEFAULT);
                r = dir_holds_only_ours(dfd, other, sizeof(other));
                if (r < 0)
                        return log_error_errno(r, "Failed to read the directory %s: %m", o->seed_dir_shown);
                if (r == 0)
                        return log_error_errno(-ENOTEMPTY, "Not provisioning %s: it is not root's with mode 0700 and "
                                               "holds other files (%s), so it is not a seed directory of its own: "
                                               "point Directory= at one (the default is %s); nothing changed",
                                               o->seed_dir_shown, other, SEED_DIR_DEFAULT);
                if ((dst.uid != 0 && fchown(dfd, 0, 0) < 0) || ((dst.mode & 077) != 0 && fchmod(dfd, 0700) < 0))
                        return log_error_errno(errno, "Failed to make %s root's with mode 0700: %m",
                                               o->seed_dir_shown);
        }

        size = seed_size_for_poolsize(pool_size_bits());
        fresh_get(&fresh, size);
        if (!fresh.initialized) {
                /* Asked a moment ago: a kernel's pool never goes back. */
                erase(&fresh, sizeof(fresh));
                return log_error_errno(-EAGAIN, "Not provisioning %s/%s: this machine's random pool is not initialized",
                                       o->seed_dir_shown, SEED_FILE_NAME);
        }
        /* No VM generation: the device that boots the image has its own,
         * unknown here; the machine-id binds the seed to it. */
        r = write_next_seed(dfd, &m, NULL, NULL, 0, &fresh, false, &creditable, NULL);
        if (r < 0)
                return log_error_errno(r, "Failed to write a seed to %s/%s: %m", o->seed_dir_shown, SEED_FILE_NAME);
        if (!creditable)
                return log_error_errno(-EAGAIN, "The seed written to %s/%s is not creditable: this machine's random "
                                       "pool is not initialized", o->seed_dir_shown, SEED_FILE_NAME);

        /* The seed first, the machine-id last: the rename of the machine-id
         * is the commit. Should it fail, the tree keeps its old machine-id,
         * and the new seed, bound to the ID that was not written, is mixed
         * and never credited on it (rule 4): an image that boots safely, as
         * before, and a run to repeat. The other order would leave a tree
         * whose identity changed under a failed run, with a seed bound to
         * the old one. */
        if (o->machine_id) {
                snprintf(text, sizeof(text), "%s\n", m.id);
                r = write_file_atomic_at(etc, name, text, strlen(text), 0444, WRITE_DURABLE);
                if (r < 0)
                        return log_error_errno(r, "Failed to write %s (by way of its temporary file %s%s): %s",
                                               mid_shown, etc_shown, tmp, tree_error_string(r, strerror(-r)));
        }
        log_info("provisioned %zu bits in %s/%s, bound to machine-id %s", size * 8, o->seed_dir_shown, SEED_FILE_NAME,
                 m.id);
        return 0;
}
#endif
