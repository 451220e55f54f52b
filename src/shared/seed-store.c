// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "blake2s.h"
#include "macro.h"
#include "root.h"
#include "seed-store.h"

const LegacySeed legacy_seeds[] = {
        { "/var/lib/systemd/random-seed", "systemd random seed",
          "systemd-random-seed loads it on every clone (and credits it where configured to)", true },
        { "/var/lib/seedrng/seed.credit", "SeedRNG creditable seed",
          "SeedRNG credits it: every clone would count the same bytes as entropy", true },
        { "/var/lib/seedrng/seed.no-credit", "SeedRNG seed",
          "mixed on every clone: not credited, but no secret either", true },
        { "/etc/seedrng/seed.credit", "SeedRNG creditable seed (OpenWrt urandom-seed)",
          "OpenWrt's urandom-seed credits it: every clone would count the same bytes as entropy", true },
        { "/etc/seedrng/seed.no-credit", "SeedRNG seed (OpenWrt urandom-seed)",
          "mixed on every clone: not credited, but no secret either", true },
        /* Not mixed: where the sysvinit urandom script runs it loads this
         * itself, and anywhere else it is a leftover nothing refreshes. */
        { "/var/lib/urandom/random-seed", "urandom init script seed",
          "the urandom init script writes it to /dev/urandom on every clone", false },
        { "/etc/urandom.seed", "urandom seed (init scripts)",
          "init scripts write it to /dev/urandom on every clone", true },
};
const size_t legacy_seeds_count = ELEMENTSOF(legacy_seeds);

int seed_dir_path(const char *configured, char **ret) {
        return root_path(configured, ret);
}

const char *seed_dir_path_buf(const char *configured, char buf[static PATH_MAX]) {
        return root_path_buf(configured, buf);
}

static void on_alarm(int sig) {
        /* Nothing: its only job is to interrupt flock() with EINTR. */
}

/* flock(LOCK_EX) bounded by @timeout: a timer signal installed without
 * SA_RESTART interrupts the wait. The free lock, the common case, costs
 * one system call. */
static int flock_timeout(int fd, usec_t timeout) {
        struct sigaction sa = { .sa_handler = on_alarm }, old_sa;
        struct itimerval it = {}, old_it;
        usec_t deadline;
        int r;

        if (flock(fd, LOCK_EX | LOCK_NB) >= 0)
                return 0;
        if (errno != EWOULDBLOCK)
                return negative_errno();

        deadline = now_usec(CLOCK_MONOTONIC) + timeout;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGALRM, &sa, &old_sa) < 0)
                return negative_errno();
        /* Ticks, not one shot: a signal that lands just before flock()
         * blocks would otherwise be lost. */
        it.it_interval.tv_usec = it.it_value.tv_usec = 100 * 1000;
        if (setitimer(ITIMER_REAL, &it, &old_it) < 0) {
                r = negative_errno();
                (void) sigaction(SIGALRM, &old_sa, NULL);
                return r;
        }
        for (;;) {
                if (flock(fd, LOCK_EX) >= 0) {
                        r = 0;
                        break;
                }
                if (errno != EINTR) {
                        r = negative_errno();
                        break;
                }
                if (now_usec(CLOCK_MONOTONIC) >= deadline) {
                        r = -ETIMEDOUT;
                        break;
                }
        }
        (void) setitimer(ITIMER_REAL, &old_it, NULL);
        (void) sigaction(SIGALRM, &old_sa, NULL);
        return r;
}

int seed_dir_open_locked(const char *path, usec_t timeout, FileStat *ret_stat) {
        _cleanup_close_ int dfd = -EBADF;
        struct stat st;
        int r;

        dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
        if (dfd < 0 && errno == ENOENT) {
                /* Only the last component is created: a missing /var/lib means
                 * the state file system is not mounted, and creating a
                 * directory tree on the root file system underneath the mount
                 * point would hide that. */
                if (mkdir(path, 0700) < 0 && errno != EEXIST)
                        return negative_errno();
                dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
        }
        if (dfd < 0)
                return negative_errno();
        if (fstat(dfd, &st) < 0)
                return negative_errno();

        r = flock_timeout(dfd, timeout);
        if (r < 0)
                return r;
        file_stat_from_stat(&st, ret_stat);
        return TAKE_FD(dfd);
}

void stored_seed_done(StoredSeed *s) {
        erase(s, sizeof(*s));
}

void stored_seed_read(int dfd, StoredSeed *s) {
        _cleanup_close_ int fd = -EBADF;
        const char *reason = NULL;
        int r;

        *s = (StoredSeed) {};
        fd = open_nofollow_at(dfd, SEED_FILE_NAME, &s->stat);
        if (fd == -ENOENT) {
                snprintf(s->problem, sizeof(s->problem), "no seed file");
                return;
        }
        s->exists = true;
        if (fd == -ELOOP) {
                /* O_NOFOLLOW said no; a rename replaces the link itself. */
                s->stat.mode = S_IFLNK;
                snprintf(s->problem, sizeof(s->problem), "the seed is a symbolic link, not followed");
                return;
        }
        if (fd < 0) {
                snprintf(s->problem, sizeof(s->problem), "the seed cannot be opened: %s", strerror(-fd));
                return;
        }
        if (!S_ISREG(s->stat.mode)) {
                snprintf(s->problem, sizeof(s->problem), "the seed is %s", inode_type_to_string(s->stat.mode));
                return;
        }

        r = read_fd_bounded_stat_into(fd, &s->stat, SEED_FILE_SIZE_MAX, READ_SECRET, s->raw_buf, &s->raw_size);
        if (r == -EFBIG) {
                snprintf(s->problem, sizeof(s->problem), "the seed file is larger than %zu bytes",
                         (size_t) SEED_FILE_SIZE_MAX);
                return;
        }
        if (r < 0) {
                snprintf(s->problem, sizeof(s->problem), "the seed file cannot be read: %s", strerror(-r));
                return;
        }
        s->raw = s->raw_buf;
        if (s->raw_size == 0) {
                snprintf(s->problem, sizeof(s->problem), "the seed file is empty");
                return;
        }
        r = seed_file_parse((const uint8_t *) s->raw, s->raw_size, &s->file, &reason);
        if (r < 0) {
                snprintf(s->problem, sizeof(s->problem), "seed file does not parse: %s", reason ?: "unknown format");
                return;
        }
        s->parsed = true;
}

int stored_seed_write(int dfd, const SeedFile *f) {
        uint8_t buf[SEED_FILE_SIZE_MAX];
        size_t size = 0;
        int r;

        r = seed_file_serialize_into(f, buf, &size);
        if (r >= 0)
                r = write_file_atomic_at(dfd, SEED_FILE_NAME, buf, size, 0600, WRITE_DURABLE);
        erase(buf, sizeof(buf));
        return r;
}

/* The list: a magic line, then CREDENTIAL_HASH_SIZE bytes per entry, oldest
 * first. */
#define CREDENTIALS_MAGIC "\x89" "EGCRED\n"
#define CREDENTIALS_MAGIC_SIZE 8U
#define CREDENTIALS_FILE_MAX (CREDENTIALS_MAGIC_SIZE + CREDENTIALS_SEEN_MAX * CREDENTIAL_HASH_SIZE)
#define CREDENTIAL_HASH_KEY "entropy-gate credential v1"

void credential_hash(const void *buf, size_t size, uint8_t ret[static CREDENTIAL_HASH_SIZE]) {
        (void) blake2s(ret, CREDENTIAL_HASH_SIZE, CREDENTIAL_HASH_KEY, strlen(CREDENTIAL_HASH_KEY), buf, size);
}

/* 0 with the entries (a new buffer, possibly empty), or -errno. */
static int credentials_read(int dfd, char **ret_entries, size_t *ret_n) {
        char *buf = NULL;
        size_t size = 0;
        int r;

        r = read_file_at(dfd, SEED_CREDENTIALS_NAME, CREDENTIALS_FILE_MAX, 0, &buf, &size, NULL);
        if (r == -ENOENT) {
                *ret_entries = NULL;
                *ret_n = 0;
                return 0;
        }
        if (r < 0)
                return r;
        if (size < CREDENTIALS_MAGIC_SIZE || memcmp(buf, CREDENTIALS_MAGIC, CREDENTIALS_MAGIC_SIZE) != 0 ||
            (size - CREDENTIALS_MAGIC_SIZE) % CREDENTIAL_HASH_SIZE != 0) {
                free(buf);
                return -EBADMSG;
        }
        memmove(buf, buf + CREDENTIALS_MAGIC_SIZE, size - CREDENTIALS_MAGIC_SIZE);
        *ret_entries = buf;
        *ret_n = (size - CREDENTIALS_MAGIC_SIZE) / CREDENTIAL_HASH_SIZE;
        return 0;
}

int credential_seen(int dfd, const uint8_t hash[static CREDENTIAL_HASH_SIZE]) {
        _cleanup_free_ char *entries = NULL;
        size_t n;
        int r;

        r = credentials_read(dfd, &entries, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if (memcmp(entries + i * CREDENTIAL_HASH_SIZE, hash, CREDENTIAL_HASH_SIZE) == 0)
                        return 1;
        return 0;
}

int credential_remember(int dfd, const uint8_t hash[static CREDENTIAL_HASH_SIZE]) {
        _cleanup_free_ char *entries = NULL, *out = NULL;
        size_t n, keep, size;
        int r;

        r = credentials_read(dfd, &entries, &n);
        if (r < 0)
                return r;
        keep = MIN(n, (size_t) CREDENTIALS_SEEN_MAX - 1);
        size = CREDENTIALS_MAGIC_SIZE + (keep + 1) * CREDENTIAL_HASH_SIZE;
        out = malloc(size);
        if (!out)
                return -ENOMEM;
        memcpy(out, CREDENTIALS_MAGIC, CREDENTIALS_MAGIC_SIZE);
        if (keep > 0)
                memcpy(out + CREDENTIALS_MAGIC_SIZE, entries + (n - keep) * CREDENTIAL_HASH_SIZE,
                       keep * CREDENTIAL_HASH_SIZE);
        memcpy(out + CREDENTIALS_MAGIC_SIZE + keep * CREDENTIAL_HASH_SIZE, hash, CREDENTIAL_HASH_SIZE);
        /* Durable before the credential is credited: a power cut right after
         * crediting must not forget that it was. */
        return write_file_atomic_at(dfd, SEED_CREDENTIALS_NAME, out, size, 0600, WRITE_DURABLE);
}
