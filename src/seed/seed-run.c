// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "credit.h"
#include "log.h"
#include "macro.h"
#include "pool.h"
#include "runstate.h"
#include "seed-file.h"
#include "seed-run.h"
#include "seed-store.h"
#include "time-util.h"

/* Bounds for files we only mix: generous for any seed format in use
 * (systemd's random-seed and SeedRNG's seeds are at most 512 bytes), small
 * enough that a huge file costs nothing. */
#define LEGACY_SEED_MAX 4096
#define CREDENTIAL_MAX 4096
#define MACHINE_ID_MAX 64
#define CREDENTIAL_NAME "entropy-gate.seed"

/* Seeds other tools keep: mixed uncredited, never modified. Whether they are
 * secret, or shared by every clone of an image, we cannot know. */
static const char *const legacy_seed_paths[] = {
        "/var/lib/systemd/random-seed",
        "/var/lib/seedrng/seed.credit",
        "/var/lib/seedrng/seed.no-credit",
        "/etc/urandom.seed",
};

/* $ENTROPY_GATE_ROOT prefixes every system path that is not the seed
 * directory (which --seed-dir names): tests point it at a fake root. */
static char *root_path(const char *path) {
        const char *root = getenv("ENTROPY_GATE_ROOT");
        char *p;

        if (asprintf(&p, "%s%s", root && *root ? root : "", path) < 0)
                return NULL;
        return p;
}

/* Why a file we only mix was skipped, for read_file_bounded()'s errors. */
static const char *skip_reason(int r) {
        return r == -EBADFD ? "not a regular file" :
               r == -EFBIG ? "larger than 4096 bytes" : strerror(-r);
}

static void erase_freep(void *p, size_t n) {
        if (p) {
                erase(p, n);
                free(p);
        }
}

typedef struct Machine {
        char *id;               /* /etc/machine-id without trailing whitespace; NULL: absent */
        size_t id_raw_size;
        char *id_raw;           /* the file as read, mixed into the pool */
        bool uninitialized;
        bool first_boot_flag;
} Machine;

static void machine_done(Machine *m) {
        free(m->id);
        erase_freep(m->id_raw, m->id_raw_size);
        *m = (Machine) {};
}

static void machine_read(Machine *m) {
        _cleanup_free_ char *mid_path = root_path("/etc/machine-id");
        _cleanup_free_ char *fb_path = root_path("/run/systemd/first-boot");
        void *buf = NULL;
        size_t n = 0;
        struct stat st;
        int r;

        *m = (Machine) {};
        if (!mid_path || !fb_path) {
                /* Out of memory: treat as a first boot without an id, which
                 * credits nothing. */
                m->first_boot_flag = true;
                return;
        }

        r = read_file_bounded(mid_path, MACHINE_ID_MAX, &buf, &n);
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "Failed to read %s, treating it as absent: %m", mid_path);
        if (r >= 0) {
                char *id;

                m->id_raw = buf;
                m->id_raw_size = n;
                id = strndup(buf, n);
                if (id) {
                        size_t l = strlen(id);
                        while (l > 0 && strchr(" \t\r\n", id[l - 1]))
                                id[--l] = 0;
                        if (l == 0)
                                free(id);
                        else if (streq(id, "uninitialized")) {
                                m->uninitialized = true;
                                free(id);
                        } else
                                m->id = id;
                }
        }

        /* Any doubt (an error other than "does not exist") counts as a
         * first boot: it can only cost a credit, never add a wrong one. */
        m->first_boot_flag = lstat(fb_path, &st) >= 0 || errno != ENOENT;
}

/* Mix a file we do not own into the pool, uncredited. Returns 1 when mixed. */
static int mix_foreign_file(const char *path, const char *what) {
        void *buf = NULL;
        size_t n = 0;
        int r;

        r = read_file_bounded(path, LEGACY_SEED_MAX, &buf, &n);
        if (r == -ENOENT)
                return 0;
        if (r < 0) {
                log_warning("Ignoring %s %s: %s", what, path, skip_reason(r));
                return 0;
        }
        r = n > 0 ? pool_add_seed(buf, n, false) : 0;
        erase_freep(buf, LEGACY_SEED_MAX + 1);
        if (r < 0) {
                log_warning_errno(r, "Failed to mix %s %s into the pool: %m", what, path);
                return 0;
        }
        return n > 0;
}

typedef enum CredentialResult {
        CREDENTIAL_NONE,
        CREDENTIAL_MIXED,
        CREDENTIAL_CREDITED,
} CredentialResult;

static const char *credential_result_to_string(CredentialResult c) {
        return c == CREDENTIAL_CREDITED ? "credited" : c == CREDENTIAL_MIXED ? "mixed" : "none";
}

/* The system credential entropy-gate.seed comes from the hypervisor or the
 * boot loader, fresh for this boot, and is as secret as the channel that
 * carried it: credited when crediting is on and it is long enough to be a
 * seed (256 bits, what initializes the CRNG). */
static CredentialResult load_credential(const SeedOptions *o, size_t *ret_bits, int *ret_error) {
        _cleanup_free_ char *path = NULL;
        const char *dir = getenv("CREDENTIALS_DIRECTORY");
        void *buf = NULL;
        size_t n = 0;
        CredentialResult result = CREDENTIAL_NONE;
        int r;

        *ret_bits = 0;
        *ret_error = 0;
        /* Under systemd the unit's LoadCredential= hands the system
         * credential over in $CREDENTIALS_DIRECTORY, which is then the only
         * place to look: the service sandbox need not be able to read
         * /run/credentials/@system itself. Run by hand or by another init
         * system, the system credential directory is read directly. */
        if (dir && *dir) {
                if (asprintf(&path, "%s/%s", dir, CREDENTIAL_NAME) < 0)
                        path = NULL;
        } else
                path = root_path("/run/credentials/@system/" CREDENTIAL_NAME);
        if (!path)
                return CREDENTIAL_NONE;
        r = read_file_bounded(path, CREDENTIAL_MAX, &buf, &n);
        if (r == -ENOENT)
                return CREDENTIAL_NONE;
        if (r < 0) {
                log_warning("Ignoring credential %s: %s", path, skip_reason(r));
                return CREDENTIAL_NONE;
        }
        if (n == 0)
                goto finish;

        if (o->credit && n >= SEED_SIZE_MIN) {
                r = pool_add_seed(buf, n, true);
                if (r >= 0) {
                        log_info("credited %zu bits from credential %s", n * 8, path);
                        *ret_bits = n * 8;
                        result = CREDENTIAL_CREDITED;
                        goto finish;
                }
                log_error_errno(r, "Failed to credit credential %s%s: %m", path,
                                r == -EPERM ? " (crediting needs root with CAP_SYS_ADMIN)" : "");
                *ret_error = r;
        } else if (o->credit)
                log_notice("Not crediting credential %s: %zu bytes, less than %u", path, n, SEED_SIZE_MIN);

        r = pool_add_seed(buf, n, false);
        if (r < 0)
                log_warning_errno(r, "Failed to mix credential %s into the pool: %m", path);
        else
                result = CREDENTIAL_MIXED;

finish:
        erase_freep(buf, CREDENTIAL_MAX + 1);
        return result;
}

static const char *inode_type_name(mode_t mode) {
        switch (mode & S_IFMT) {
        case S_IFDIR:  return "a directory";
        case S_IFIFO:  return "a FIFO";
        case S_IFSOCK: return "a socket";
        case S_IFCHR:  return "a character device";
        case S_IFBLK:  return "a block device";
        case S_IFLNK:  return "a symbolic link";
        default:       return "not a regular file";
        }
}

/* What was found under the seed's name. */
typedef struct OldSeed {
        bool exists;            /* something is there, of whatever type */
        SeedStat stat;
        uint8_t *raw;           /* the bytes read, when a regular file of sane size */
        size_t raw_size;
        bool parsed;
        SeedFile file;
        char problem[96];       /* why it cannot be credited before any rule */
} OldSeed;

static void old_seed_done(OldSeed *s) {
        erase_freep(s->raw, SEED_FILE_SIZE_MAX + 1);
        seed_file_erase(&s->file);
        *s = (OldSeed) {};
}

static void old_seed_read(int dfd, OldSeed *s) {
        _cleanup_close_ int fd = -EBADF;
        const char *reason = NULL;
        void *buf = NULL;
        size_t n = 0;
        int r;

        *s = (OldSeed) {};
        fd = seed_file_open(dfd, SEED_FILE_NAME, &s->stat);
        if (fd == -ENOENT) {
                snprintf(s->problem, sizeof(s->problem), "no seed file");
                return;
        }
        s->exists = true;
        if (fd == -ELOOP) {
                /* O_NOFOLLOW said no; the rename below replaces the link itself. */
                s->stat.mode = S_IFLNK;
                snprintf(s->problem, sizeof(s->problem), "the seed is a symbolic link, not followed");
                return;
        }
        if (fd < 0) {
                snprintf(s->problem, sizeof(s->problem), "the seed cannot be opened: %s", strerror(-fd));
                return;
        }
        if (!S_ISREG(s->stat.mode)) {
                snprintf(s->problem, sizeof(s->problem), "the seed is %s", inode_type_name(s->stat.mode));
                return;
        }

        r = seed_file_read(fd, SEED_FILE_SIZE_MAX, &buf, &n);
        if (r == -EFBIG) {
                snprintf(s->problem, sizeof(s->problem), "the seed file is larger than %zu bytes",
                         (size_t) SEED_FILE_SIZE_MAX);
                return;
        }
        if (r < 0) {
                snprintf(s->problem, sizeof(s->problem), "the seed file cannot be read: %s", strerror(-r));
                return;
        }
        s->raw = buf;
        s->raw_size = n;
        if (n == 0) {
                snprintf(s->problem, sizeof(s->problem), "the seed file is empty");
                return;
        }
        r = seed_file_parse(s->raw, n, &s->file, &reason);
        if (r < 0) {
                snprintf(s->problem, sizeof(s->problem), "seed file does not parse: %s", reason ?: "unknown format");
                return;
        }
        s->parsed = true;
}

static uint64_t clock_usec(clockid_t id) {
        return (uint64_t) now_usec(id);
}

/* Build, serialize and durably write the next seed. Returns 0 or -errno;
 * logs nothing (the callers know what the failure means for them). */
static int write_next_seed(int dfd, const Machine *m, const uint8_t *old, size_t old_size,
                           const uint8_t *fresh, size_t size, bool creditable) {
        _cleanup_(seed_file_erase) SeedFile next = {};
        uint8_t *buf = NULL;
        size_t bufsize = 0;
        int r;

        next.creditable = creditable;
        next.seed_size = size;
        seed_binding_compute(m->id, next.binding);

        /* See seed_derive(): the old seed keeps the new one as secret as it
         * was when the fresh bytes are weak (early boot), and the fresh bytes
         * make it unpredictable to anyone who saw the old file once. */
        r = seed_derive(old, old_size, fresh, size,
                        clock_usec(CLOCK_REALTIME), clock_usec(CLOCK_BOOTTIME),
                        next.seed, size);
        if (r < 0)
                return r;

        r = seed_file_serialize(&next, &buf, &bufsize);
        if (r < 0)
                return r;
        r = seed_file_write_atomic(dfd, SEED_FILE_NAME, buf, bufsize);
        erase(buf, bufsize);
        free(buf);
        return r;
}

/* Fill @buf from the kernel without blocking. Returns true only when the
 * bytes came from an initialized CRNG; on failure (logged) @buf is zeroed
 * and only the old seed, if any, carries a secret into the next one, which
 * is then marked not creditable. */
static bool fresh_bytes(uint8_t *buf, size_t size) {
        int r = pool_random_bytes(buf, size);

        if (r < 0) {
                log_warning_errno(r, "Failed to get random bytes from the kernel, the new seed will not be creditable: %m");
                erase(buf, size);
                return false;
        }
        return r > 0;
}

static char *seed_path_of(const SeedOptions *o) {
        char *p;
        if (asprintf(&p, "%s/%s", o->seed_dir, SEED_FILE_NAME) < 0)
                return NULL;
        return p;
}

/* Steps 3 to 5 of load, on the locked directory: read our seed, write its
 * replacement durably, then credit or mix the old one. Fills @reason (empty
 * when credited) and returns 0 or a negative errno already logged. */
static int load_consume_seed(const SeedOptions *o, int dfd, const SeedStat *dst, const Machine *m,
                             const char *seed_path, char *reason, size_t reason_size,
                             size_t *ret_credited_bits, bool *ret_replacement_creditable) {
        _cleanup_(old_seed_done) OldSeed old = {};
        uint8_t fresh[SEED_SIZE_MAX];
        struct seed_facts facts;
        CreditDecision d;
        size_t size, credited_bits = 0;
        bool fresh_initialized = false, creditable_next;
        int r, ret = 0;

        /* 3. Our seed, bounded and without following or blocking. */
        old_seed_read(dfd, &old);
        if (!old.exists)
                log_info("No seed file %s yet, writing a fresh one.", seed_path);

        facts = (struct seed_facts) {
                .credit_enabled = o->credit,
                .credit_disabled_by = o->credit_disabled_by,
                .file_parsed = old.parsed,
                .parse_error = old.parsed ? NULL : old.problem,
                .creditable_flag = old.parsed && old.file.creditable,
                .machine_id_present = m->id || m->uninitialized,
                .credit_without_machine_id = o->credit_without_machine_id,
                .machine_id_uninitialized = m->uninitialized,
                .first_boot_flag_present = m->first_boot_flag,
                .file_regular = old.exists && S_ISREG(old.stat.mode),
                .file_uid = old.stat.uid,
                .file_mode = old.stat.mode,
                .dir_uid = dst->uid,
                .dir_mode = dst->mode,
        };
        if (old.parsed) {
                uint8_t binding[SEED_BINDING_SIZE];
                seed_binding_compute(m->id, binding);
                facts.binding_matches = memcmp(binding, old.file.binding, SEED_BINDING_SIZE) == 0;
        }

        /* 4. The next seed, durable before anything is credited. */
        size = seed_size_for_poolsize(pool_size_bits());
        fresh_initialized = fresh_bytes(fresh, size);
        creditable_next = seed_replacement_creditable(seed_credit_rules_2_to_6_hold(&facts), fresh_initialized);
        r = write_next_seed(dfd, m,
                            old.parsed ? old.file.seed : old.raw,
                            old.parsed ? old.file.seed_size : old.raw_size,
                            fresh, size, creditable_next);
        erase(fresh, sizeof(fresh));
        if (r < 0) {
                log_error_errno(r, "Failed to write the replacement seed to %s: %m", seed_path);
                ret = r;
        }
        facts.replacement_durable = r >= 0;

        /* 5. Credit, or mix. */
        d = seed_credit_decide(&facts);
        if (d.credit) {
                r = pool_add_seed(old.file.seed, old.file.seed_size, true);
                if (r >= 0) {
                        credited_bits = old.file.seed_size * 8;
                        log_info("credited %zu bits from %s", credited_bits, seed_path);
                } else {
                        snprintf(reason, reason_size, "crediting failed: %s%s", strerror(-r),
                                 r == -EPERM ? " (needs root with CAP_SYS_ADMIN)" : "");
                        log_error("not crediting: %s", reason);
                        ret = r;
                }
        } else {
                /* Rule 2 also covers "nothing usable there": say what was found. */
                snprintf(reason, reason_size, "%s", d.rule == 2 ? old.problem : d.reason);
                log_info("not crediting: %s", reason);
        }
        if (credited_bits == 0 && old.raw_size > 0) {
                /* Whatever it was, it may hold something secret: mixing never hurts. */
                r = old.parsed ? pool_add_seed(old.file.seed, old.file.seed_size, false)
                               : pool_add_seed(old.raw, old.raw_size, false);
                if (r < 0)
                        log_warning_errno(r, "Failed to mix the old seed into the pool: %m");
        }

        *ret_credited_bits = credited_bits;
        *ret_replacement_creditable = creditable_next && facts.replacement_durable;
        return ret;
}

int seed_load(const SeedOptions *o) {
        _cleanup_close_ int dfd = -EBADF;
        _cleanup_free_ char *seed_path = NULL;
        _cleanup_(machine_done) Machine m = {};
        SeedStat dst = {};
        CredentialResult cred;
        size_t cred_bits = 0, credited_bits = 0;
        unsigned legacy_mixed = 0;
        bool replacement_creditable = false;
        const char *action;
        char reason[CREDIT_REASON_MAX + 64] = "";
        char state[1024];
        int r, ret = 0, cred_error = 0;

        seed_path = seed_path_of(o);
        if (!seed_path)
                return log_error_errno(-ENOMEM, "Out of memory");

        /* 1. Lock: a concurrent load or save must not read the seed we are
         * about to consume. Without the directory, what does not need it
         * (step 2) is still done. */
        dfd = seed_dir_open_locked(o->seed_dir);
        if (dfd >= 0) {
                r = seed_dir_stat(dfd, &dst);
                if (r < 0)
                        dfd = safe_close(dfd);
                else
                        r = dfd;
        } else
                r = dfd;
        if (r < 0) {
                snprintf(reason, sizeof(reason), "cannot open and lock the seed directory: %s", strerror(-r));
                ret = log_error_errno(r, "not crediting: cannot open and lock the seed directory %s: %m", o->seed_dir);
        }

        /* 2. What every clone may share, mixed only: it makes clones diverge
         * and can never make anything worse. */
        machine_read(&m);
        if (m.id_raw && m.id_raw_size > 0) {
                r = pool_add_seed(m.id_raw, m.id_raw_size, false);
                if (r < 0)
                        log_warning_errno(r, "Failed to mix the machine-id into the pool: %m");
        }
        for (size_t i = 0; i < ELEMENTSOF(legacy_seed_paths); i++) {
                _cleanup_free_ char *p = root_path(legacy_seed_paths[i]);
                if (p)
                        legacy_mixed += (unsigned) mix_foreign_file(p, "legacy seed");
        }
        cred = load_credential(o, &cred_bits, &cred_error);
        if (cred_error < 0)
                ret = cred_error;

        if (dfd >= 0) {
                r = load_consume_seed(o, dfd, &dst, &m, seed_path, reason, sizeof(reason),
                                      &credited_bits, &replacement_creditable);
                if (r < 0)
                        ret = r;
        }

        action = ret < 0 ? "error" : credited_bits > 0 ? "credited" : "not-credited";
        snprintf(state, sizeof(state),
                 "ACTION=%s\nBITS=%zu\nSEED_PATH=%s\nREASON=%s\nCREDENTIAL=%s\nCREDENTIAL_BITS=%zu\n"
                 "LEGACY_MIXED=%u\nREPLACEMENT_CREDITABLE=%s\nBOOTTIME_USEC=%" PRIu64 "\n",
                 action, credited_bits, seed_path, reason, credential_result_to_string(cred), cred_bits,
                 legacy_mixed, yes_no(replacement_creditable), clock_usec(CLOCK_BOOTTIME));
        r = runstate_write("seed", state);
        if (r < 0)
                log_warning_errno(r, "Failed to record the result in %s/seed: %m", runstate_dir());

        return ret;
}

int seed_save(const SeedOptions *o) {
        _cleanup_close_ int dfd = -EBADF;
        _cleanup_free_ char *seed_path = NULL;
        _cleanup_(machine_done) Machine m = {};
        _cleanup_(old_seed_done) OldSeed old = {};
        uint8_t fresh[SEED_SIZE_MAX];
        size_t size;
        bool initialized = false;
        int r;

        seed_path = seed_path_of(o);
        if (!seed_path)
                return log_error_errno(-ENOMEM, "Out of memory");

        dfd = seed_dir_open_locked(o->seed_dir);
        if (dfd < 0)
                return log_error_errno(dfd, "Failed to open and lock seed directory %s: %m", o->seed_dir);

        machine_read(&m);
        size = seed_size_for_poolsize(pool_size_bits());
        initialized = fresh_bytes(fresh, size);

        /* Not initialized: the fresh bytes may be guessable, so chain them
         * with the old seed, which keeps whatever secret it had. */
        if (!initialized)
                old_seed_read(dfd, &old);

        r = write_next_seed(dfd, &m,
                            old.parsed ? old.file.seed : old.raw,
                            old.parsed ? old.file.seed_size : old.raw_size,
                            fresh, size, initialized);
        erase(fresh, sizeof(fresh));
        if (r < 0)
                return log_error_errno(r, "Failed to save a new seed to %s: %m", seed_path);

        if (initialized)
                log_info("saved %zu bits to %s", size * 8, seed_path);
        else
                log_info("saved %zu bits to %s, not creditable: the kernel's random pool is not initialized",
                         size * 8, seed_path);
        return 0;
}
