// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropyctl status [--json]: the random pool, the kernel's trust options,
 * hardware RNGs, the seed file and what our units did this boot. It only
 * reads: the seed file is parsed, never locked, rewritten or credited. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <libudev.h>

#include "boot-journal.h"
#include "config.h"
#include "ctl.h"
#include "json.h"
#include "log.h"
#include "macro.h"
#include "pool.h"
#include "proc-cmdline.h"
#include "runstate.h"
#include "seed-file.h"

#define MACHINE_ID_MAX 128

typedef enum Binding {
        BINDING_UNKNOWN,
        BINDING_THIS_MACHINE,
        BINDING_OTHER_MACHINE,
        BINDING_UNBOUND,
} Binding;

static const char *const binding_json[] = {
        [BINDING_UNKNOWN] = NULL,
        [BINDING_THIS_MACHINE] = "this-machine",
        [BINDING_OTHER_MACHINE] = "other-machine",
        [BINDING_UNBOUND] = "unbound",
};

typedef struct SeedInfo {
        char *path;
        bool present;
        int64_t size;                /* -1: unknown */
        int valid;                   /* -1: unknown (absent or unreadable) */
        const char *problem;         /* static text */
        char problem_buf[128];
        int64_t seed_bits;
        int creditable;
        Binding binding;
        int64_t age_usec;
} SeedInfo;

typedef struct HwRng {
        bool present;
        char *current;
        char *available;             /* space-separated, as the kernel lists them */
} HwRng;

typedef struct Status {
        int crng;                    /* 1, 0, or -errno (-ENOSYS: no getrandom) */
        BootJournal journal;
        struct utsname uts;
        char *trust_cpu, *trust_bootloader;
        bool trust_cpu_set, trust_bootloader_set;
        HwRng hwrng;
        SeedInfo seed;
} Status;

static void status_done(Status *s) {
        boot_journal_done(&s->journal);
        free(s->trust_cpu);
        free(s->trust_bootloader);
        free(s->hwrng.current);
        free(s->hwrng.available);
        free(s->seed.path);
}

/* ---- Gathering ---- */

static char *strip_newline(const char *s) {
        char *c = s ? strdup(s) : NULL;
        size_t l;

        if (!c)
                return NULL;
        l = strlen(c);
        while (l > 0 && (c[l - 1] == '\n' || c[l - 1] == ' '))
                c[--l] = 0;
        return c;
}

static void hwrng_read(HwRng *h) {
        struct udev *udev;
        struct udev_device *d;

        udev = udev_new();
        if (!udev)
                return;
        /* The kernel's hw_random core is the misc device "hw_random" (/dev/hwrng). */
        d = udev_device_new_from_subsystem_sysname(udev, "misc", "hw_random");
        if (d) {
                h->present = true;
                h->current = strip_newline(udev_device_get_sysattr_value(d, "rng_current"));
                h->available = strip_newline(udev_device_get_sysattr_value(d, "rng_available"));
                if (h->available) {
                        /* Drop the kernel's "none" pseudo-choice from the list shown to people. */
                        char *p = h->available, *o = h->available;
                        for (char *w = strsep(&p, " "); w; w = strsep(&p, " ")) {
                                if (!*w || streq(w, "none"))
                                        continue;
                                if (o != h->available)
                                        *o++ = ' ';
                                memmove(o, w, strlen(w));
                                o += strlen(w);
                        }
                        *o = 0;
                }
                /* "none" is how the kernel says there is no current source. */
                if (h->current && (streq(h->current, "none") || !*h->current)) {
                        free(h->current);
                        h->current = NULL;
                }
                udev_device_unref(d);
        }
        udev_unref(udev);
}

/* $ENTROPY_GATE_ROOT prefixes /etc/machine-id, as for entropy-seed (tests). */
static int machine_id_read(char **ret) {
        const char *root = getenv("ENTROPY_GATE_ROOT");
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -EBADF;
        char buf[MACHINE_ID_MAX + 1];
        ssize_t n;

        if (asprintf(&path, "%s/etc/machine-id", root && *root ? root : "") < 0)
                return -ENOMEM;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        n = read(fd, buf, MACHINE_ID_MAX);
        if (n < 0)
                return negative_errno();
        buf[n] = 0;
        while (n > 0 && strchr(" \t\r\n", buf[n - 1]))
                buf[--n] = 0;
        /* Empty or "uninitialized": no identity yet, as entropy-seed sees it. */
        if (n == 0 || streq(buf, "uninitialized")) {
                *ret = NULL;
                return 0;
        }
        *ret = strdup(buf);
        return *ret ? 1 : -ENOMEM;
}

static void seed_problem(SeedInfo *si, const char *what, const char *detail) {
        snprintf(si->problem_buf, sizeof(si->problem_buf), "%s%s%s", what, detail ? ": " : "", detail ?: "");
        si->problem = si->problem_buf;
}

static int seed_read(SeedInfo *si, const char *dir) {
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        uint8_t buf[SEED_FILE_SIZE_MAX + 1];
        _cleanup_(seed_file_erase) SeedFile sf = {};
        _cleanup_free_ char *mid = NULL;
        const char *reason = NULL;
        struct stat st;
        ssize_t n;
        int r;

        si->size = si->seed_bits = si->age_usec = -1;
        si->valid = si->creditable = -1;
        if (asprintf(&si->path, "%s/seed", dir) < 0) {
                si->path = NULL;
                return -ENOMEM;
        }

        /* No lock: the seed is only ever replaced by rename(), so a read
         * sees the old file or the new one, whole. */
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0)
                fd = openat(dfd, "seed", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        if (fd < 0) {
                r = negative_errno();
                if (r == -ENOENT)
                        return 0;
                si->present = r != -ENOENT;
                if (r == -ELOOP)
                        seed_problem(si, "a symlink (never followed)", NULL);
                else if (r == -EACCES)
                        seed_problem(si, "cannot read it (needs root)", strerror(-r));
                else
                        seed_problem(si, "cannot read it", strerror(-r));
                return 0;
        }
        si->present = true;
        if (fstat(fd, &st) < 0) {
                seed_problem(si, "cannot stat it", strerror(errno));
                return 0;
        }
        si->size = (int64_t) st.st_size;
        {
                usec_t now = now_usec(CLOCK_REALTIME);
                usec_t mtime = (usec_t) st.st_mtim.tv_sec * USEC_PER_SEC + (usec_t) st.st_mtim.tv_nsec / 1000;
                si->age_usec = now > mtime ? (int64_t) (now - mtime) : 0;
        }
        if (!S_ISREG(st.st_mode)) {
                seed_problem(si, "not a regular file", NULL);
                si->valid = 0;
                return 0;
        }
        if (st.st_size > (off_t) SEED_FILE_SIZE_MAX) {
                seed_problem(si, "too large to be a seed file", NULL);
                si->valid = 0;
                return 0;
        }

        n = read(fd, buf, sizeof(buf));
        if (n < 0) {
                seed_problem(si, "cannot read it", strerror(errno));
                return 0;
        }
        r = seed_file_parse(buf, (size_t) n, &sf, &reason);
        erase(buf, sizeof(buf));
        if (r < 0) {
                seed_problem(si, "does not parse", reason ?: strerror(-r));
                si->valid = 0;
                return 0;
        }
        si->valid = 1;
        si->seed_bits = (int64_t) sf.seed_size * 8;
        si->creditable = sf.creditable;

        if (seed_binding_is_unbound(sf.binding))
                si->binding = BINDING_UNBOUND;
        else {
                uint8_t binding[SEED_BINDING_SIZE];

                r = machine_id_read(&mid);
                if (r == -ENOMEM)
                        return r;
                if (r < 0 && r != -ENOENT)
                        return 0;       /* unknown: say nothing rather than guess */
                seed_binding_compute(mid, binding);
                si->binding = memcmp(binding, sf.binding, SEED_BINDING_SIZE) == 0 ?
                        BINDING_THIS_MACHINE : BINDING_OTHER_MACHINE;
        }
        return 0;
}

static void config_warning(void *userdata, const char *source, unsigned line, const char *message) {
        if (line > 0)
                log_warning("%s:%u: %s", source, line, message);
        else
                log_warning("%s: %s", source, message);
}

static int status_gather(Status *s) {
        _cleanup_free_ char *cmdline = NULL;
        Config c;
        int r;

        s->crng = pool_probe_ready();

        r = boot_journal_read(&s->journal);
        if (r < 0)
                return r;

        if (uname(&s->uts) < 0)
                return negative_errno();

        /* The configuration, for the seed directory: as entropy-seed sees it. */
        r = config_init(&c);
        if (r < 0)
                return r;
        r = config_load_files(&c, config_warning, NULL);
        if (r >= 0 && proc_cmdline_read(&cmdline) >= 0) {
                r = config_apply_cmdline(&c, cmdline, config_warning, NULL);
                if (r >= 0)
                        r = proc_cmdline_get_key(cmdline, "random.trust_cpu", &s->trust_cpu);
                if (r >= 0)
                        s->trust_cpu_set = r > 0;
                if (r >= 0)
                        r = proc_cmdline_get_key(cmdline, "random.trust_bootloader", &s->trust_bootloader);
                if (r >= 0)
                        s->trust_bootloader_set = r > 0;
        }
        if (r >= 0)
                r = seed_read(&s->seed, c.seed_dir);
        config_done(&c);
        if (r < 0)
                return r;

        hwrng_read(&s->hwrng);
        return 0;
}

/* ---- Runstate ---- */

static char *runstate_get(const char *file, const char *key) {
        char *v = NULL;

        if (runstate_read_key(file, key, &v) <= 0)
                return NULL;
        return v;
}

static bool runstate_u64(const char *file, const char *key, uint64_t *ret) {
        _cleanup_free_ char *v = runstate_get(file, key);
        char *end;
        unsigned long long u;

        if (!v || !*v)
                return false;
        errno = 0;
        u = strtoull(v, &end, 10);
        if (errno != 0 || *end || v[0] == '-')
                return false;
        *ret = u;
        return true;
}

static void json_runstate_u64(JsonWriter *j, const char *file, const char *key, const char *name) {
        uint64_t u;

        if (runstate_u64(file, key, &u))
                json_uint(j, name, u);
        else
                json_null(j, name);
}

static void json_runstate_str(JsonWriter *j, const char *file, const char *key, const char *name) {
        _cleanup_free_ char *v = runstate_get(file, key);
        json_string(j, name, v);
}

static void json_runstate_bool(JsonWriter *j, const char *file, const char *key, const char *name) {
        _cleanup_free_ char *v = runstate_get(file, key);
        int b = v ? parse_boolean(v) : -EINVAL;

        if (b < 0)
                json_null(j, name);
        else
                json_bool(j, name, b);
}

static bool runstate_exists(const char *file) {
        char path[4096];
        struct stat st;

        snprintf(path, sizeof(path), "%s/%s", runstate_dir(), file);
        return lstat(path, &st) >= 0 && S_ISREG(st.st_mode);
}

/* ---- Output ---- */

static void json_int_or_null(JsonWriter *j, const char *key, int64_t v) {
        if (v < 0)
                json_null(j, key);
        else
                json_int(j, key, v);
}

static void json_tristate(JsonWriter *j, const char *key, int v) {
        if (v < 0)
                json_null(j, key);
        else
                json_bool(j, key, v);
}

static void print_json(const Status *s) {
        JsonWriter j;

        json_init(&j, stdout);
        json_object_begin(&j, NULL);
        json_int(&j, "schema_version", 1);

        json_object_begin(&j, "crng");
        json_tristate(&j, "initialized", s->crng < 0 ? -1 : s->crng);
        if (s->journal.crng_init.found)
                json_uint(&j, "init_monotonic_usec", s->journal.crng_init.usec);
        else
                json_null(&j, "init_monotonic_usec");
        json_object_end(&j);

        json_object_begin(&j, "kernel");
        json_string(&j, "release", s->uts.release);
        json_string(&j, "version", s->uts.version);
        json_string(&j, "machine", s->uts.machine);
        /* null: not on the command line, the kernel's built-in default applies. */
        json_string(&j, "trust_cpu", s->trust_cpu_set ? (s->trust_cpu ?: "") : NULL);
        json_string(&j, "trust_bootloader", s->trust_bootloader_set ? (s->trust_bootloader ?: "") : NULL);
        json_object_end(&j);

        json_object_begin(&j, "hw_random");
        json_bool(&j, "present", s->hwrng.present);
        json_string(&j, "current", s->hwrng.current);
        json_array_begin(&j, "available");
        if (s->hwrng.available) {
                _cleanup_free_ char *copy = strdup(s->hwrng.available);
                char *save = NULL;
                /* Newer kernels list "none" as a choice: it is not a device. */
                for (char *w = copy ? strtok_r(copy, " ", &save) : NULL; w; w = strtok_r(NULL, " ", &save))
                        if (!streq(w, "none"))
                                json_string(&j, NULL, w);
        }
        json_array_end(&j);
        json_object_end(&j);

        json_object_begin(&j, "seed");
        json_string(&j, "path", s->seed.path);
        json_bool(&j, "present", s->seed.present);
        json_int_or_null(&j, "size", s->seed.size);
        json_tristate(&j, "valid", s->seed.valid);
        json_string(&j, "problem", s->seed.problem);
        json_int_or_null(&j, "seed_bits", s->seed.seed_bits);
        json_tristate(&j, "creditable", s->seed.creditable);
        json_string(&j, "binding", binding_json[s->seed.binding]);
        json_int_or_null(&j, "age_usec", s->seed.age_usec);
        json_object_end(&j);

        json_object_begin(&j, "this_boot");
        json_string(&j, "runstate_dir", runstate_dir());
        if (runstate_exists("seed")) {
                json_object_begin(&j, "seed_helper");
                json_runstate_str(&j, "seed", "ACTION", "action");
                json_runstate_u64(&j, "seed", "BITS", "bits");
                json_runstate_str(&j, "seed", "REASON", "reason");
                json_runstate_str(&j, "seed", "SEED_PATH", "seed_path");
                json_runstate_str(&j, "seed", "CREDENTIAL", "credential");
                json_runstate_u64(&j, "seed", "CREDENTIAL_BITS", "credential_bits");
                json_runstate_u64(&j, "seed", "LEGACY_MIXED", "legacy_mixed");
                json_runstate_bool(&j, "seed", "REPLACEMENT_CREDITABLE", "replacement_creditable");
                json_runstate_u64(&j, "seed", "BOOTTIME_USEC", "boottime_usec");
                json_object_end(&j);
        } else
                json_null(&j, "seed_helper");
        if (runstate_exists("gate")) {
                json_object_begin(&j, "gate");
                json_runstate_str(&j, "gate", "OUTCOME", "outcome");
                json_runstate_bool(&j, "gate", "READY_AT_START", "ready_at_start");
                json_runstate_u64(&j, "gate", "START_BOOTTIME_USEC", "start_boottime_usec");
                json_runstate_u64(&j, "gate", "END_BOOTTIME_USEC", "end_boottime_usec");
                json_runstate_u64(&j, "gate", "WAITED_USEC", "waited_usec");
                json_object_end(&j);
        } else
                json_null(&j, "gate");
        json_object_end(&j);

        json_object_end(&j);
}

/* "3d 4h", "2h 5min", "5min 3s", "12s": an age, not a stopwatch. */
static const char *format_age(char *buf, size_t size, uint64_t u) {
        uint64_t s = u / USEC_PER_SEC;

        if (s >= 86400)
                snprintf(buf, size, "%" PRIu64 "d %" PRIu64 "h", s / 86400, s % 86400 / 3600);
        else if (s >= 3600)
                snprintf(buf, size, "%" PRIu64 "h %" PRIu64 "min", s / 3600, s % 3600 / 60);
        else if (s >= 60)
                snprintf(buf, size, "%" PRIu64 "min %" PRIu64 "s", s / 60, s % 60);
        else
                snprintf(buf, size, "%" PRIu64 "s", s);
        return buf;
}

#define LABEL "%12s: "

static void print_seed_helper(void) {
        _cleanup_free_ char *action = runstate_get("seed", "ACTION"), *reason = runstate_get("seed", "REASON"),
                *cred = runstate_get("seed", "CREDENTIAL");
        uint64_t bits = 0, at = 0, cbits = 0;
        bool have_at = runstate_u64("seed", "BOOTTIME_USEC", &at);

        (void) runstate_u64("seed", "BITS", &bits);
        (void) runstate_u64("seed", "CREDENTIAL_BITS", &cbits);
        if (!action) {
                printf(LABEL "did not run this boot (no %s/seed)\n", "Seed load", runstate_dir());
                return;
        }
        if (streq(action, "credited"))
                printf(LABEL "loaded, credited %" PRIu64 " bits", "Seed load", bits);
        else if (streq(action, "not-credited"))
                printf(LABEL "loaded, not credited: %s", "Seed load", reason && *reason ? reason : "no reason given");
        else
                printf(LABEL "%s%s%s", "Seed load", action, reason && *reason ? ": " : "", reason ?: "");
        if (have_at)
                printf(" (at %s)", FORMAT_DURATION(at));
        printf("\n");
        if (cred && !streq(cred, "none"))
                printf(LABEL "%s, %" PRIu64 " bits\n", "Credential", cred, cbits);
}

static void print_gate(void) {
        _cleanup_free_ char *outcome = runstate_get("gate", "OUTCOME"), *ras = runstate_get("gate", "READY_AT_START");
        uint64_t waited = 0, end = 0;
        bool have_end = runstate_u64("gate", "END_BOOTTIME_USEC", &end);

        (void) runstate_u64("gate", "WAITED_USEC", &waited);
        if (!outcome) {
                printf(LABEL "did not run this boot (no %s/gate)\n", "Gate", runstate_dir());
                return;
        }
        if (streq(outcome, "ready") && parse_boolean(ras) == 1)
                printf(LABEL "released at once: initialized before it started", "Gate");
        else
                printf(LABEL "%s after waiting %s", "Gate", outcome, FORMAT_DURATION(waited));
        if (have_end)
                printf(" (at %s)", FORMAT_DURATION(end));
        printf("\n");
}

static void print_human(const Status *s) {
        char age[32];

        if (s->crng == 1) {
                printf(LABEL "initialized", "CRNG");
                if (s->journal.crng_init.found)
                        printf(" since %s after boot\n", FORMAT_DURATION(s->journal.crng_init.usec));
                else
                        printf(", since: unknown (no \"crng init done\" in this boot's journal)\n");
        } else if (s->crng == 0)
                printf(LABEL "NOT initialized: getrandom() would block\n", "CRNG");
        else
                printf(LABEL "unknown: %s\n", "CRNG", s->crng == -ENOSYS ? "no getrandom() (Linux < 3.17)" : strerror(-s->crng));

        printf(LABEL "%s %s %s\n", "Kernel", s->uts.sysname, s->uts.release, s->uts.machine);
        printf(LABEL "random.trust_cpu=%s, random.trust_bootloader=%s\n", "Trust",
               s->trust_cpu_set ? strna(s->trust_cpu) : "kernel default",
               s->trust_bootloader_set ? strna(s->trust_bootloader) : "kernel default");

        if (!s->hwrng.present)
                printf(LABEL "none\n", "hw_random");
        else
                printf(LABEL "%s (available: %s)\n", "hw_random",
                       s->hwrng.current ?: "no current source",
                       s->hwrng.available && *s->hwrng.available ? s->hwrng.available : "none");

        if (!s->seed.present)
                printf(LABEL "%s: none yet\n", "Seed file", s->seed.path);
        else if (s->seed.valid != 1)
                printf(LABEL "%s: %s\n", "Seed file", s->seed.path, strna(s->seed.problem));
        else
                printf(LABEL "%s: %" PRId64 " bits, %s, %s, %s old\n", "Seed file", s->seed.path,
                       s->seed.seed_bits,
                       s->seed.creditable ? "creditable" : "not creditable",
                       s->seed.binding == BINDING_THIS_MACHINE ? "bound to this machine" :
                       s->seed.binding == BINDING_OTHER_MACHINE ? "bound to ANOTHER machine" :
                       s->seed.binding == BINDING_UNBOUND ? "not bound to a machine" : "binding unknown",
                       format_age(age, sizeof(age), (uint64_t) MAX(s->seed.age_usec, 0)));

        print_seed_helper();
        print_gate();
}

int verb_status(int argc, char *argv[], const CtlArgs *a) {
        Status s = {};
        int r, ret;

        r = status_gather(&s);
        if (r < 0) {
                status_done(&s);
                log_error_errno(r, "Failed to gather the status: %m");
                return CTL_EXIT_FAILURE;
        }
        if (a->json)
                print_json(&s);
        else
                print_human(&s);
        ret = s.crng == 1 ? CTL_EXIT_OK : s.crng == 0 ? CTL_EXIT_NOT_READY : CTL_EXIT_FAILURE;
        status_done(&s);
        return ret;
}
