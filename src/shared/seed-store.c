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
#include "runstate.h"
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

int seed_dir_open_locked(const char *path, ChaseFlags flags, usec_t timeout, FileStat *ret_stat) {
        _cleanup_close_ int dfd = -EBADF;
        struct stat st, root;
        int r;

        /* Inside the root, links followed as the booted system would,
         * never out of it. Only the last component is created: a missing
         * /var/lib means the state file system is not mounted, and creating
         * a directory tree on the root file system underneath the mount
         * point would hide that. */
        dfd = root_open(path, flags | CHASE_DIRECTORY | CHASE_MKDIR);
        if (dfd < 0)
                return dfd;
        if (fstat(dfd, &st) < 0)
                return negative_errno();
        if (runstate_dir_is(&st))
                return -EDEADLK;
        /* Directory=/ is refused as written; "/.", "/var/.." or a link to
         * / by what they open: the seed among the root's own files. */
        if (fstat(root_fd(), &root) >= 0 && root.st_dev == st.st_dev && root.st_ino == st.st_ino)
                return -EBUSY;

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

/* The memory of credited credentials: a Bloom filter of
 * CREDENTIAL_MEMORY_BITS bits behind a magic line. A credential credited
 * sets CREDENTIAL_MEMORY_K bits chosen by its keyed hash; one whose bits
 * are all set is taken as seen. It never forgets (no entry is ever dropped
 * to make room); a false positive only means "mix, don't credit". With 512
 * Ki bits and 8 bits an entry, the chance that a new credential is taken
 * for an old one is 2e-7 after 10,000 credited credentials and 0.6 % after
 * 50,000; the file stays 64 KiB. The first format (a list of hashes, oldest
 * dropped beyond 1024) is read and carried over. */
#define CREDENTIALS_MAGIC "\x89" "EGBLM1\n"
#define CREDENTIALS_OLD_MAGIC "\x89" "EGCRED\n"
#define CREDENTIALS_MAGIC_SIZE 8U
#define CREDENTIALS_OLD_MAX 1024U
#define CREDENTIALS_FILE_MAX (CREDENTIALS_MAGIC_SIZE + CREDENTIAL_MEMORY_BYTES)
#define CREDENTIAL_HASH_KEY "entropy-gate credential v1"

void credential_hash(const void *buf, size_t size, uint8_t ret[static CREDENTIAL_HASH_SIZE]) {
        (void) blake2s(ret, CREDENTIAL_HASH_SIZE, CREDENTIAL_HASH_KEY, strlen(CREDENTIAL_HASH_KEY), buf, size);
}

static size_t memory_bit(const uint8_t hash[static CREDENTIAL_HASH_SIZE], unsigned i) {
        uint32_t v = (uint32_t) hash[4 * i] | (uint32_t) hash[4 * i + 1] << 8 |
                (uint32_t) hash[4 * i + 2] << 16 | (uint32_t) hash[4 * i + 3] << 24;
        return v % CREDENTIAL_MEMORY_BITS;
}

bool credential_memory_has(const CredentialMemory *m, const uint8_t hash[static CREDENTIAL_HASH_SIZE]) {
        for (unsigned i = 0; i < CREDENTIAL_MEMORY_K; i++) {
                size_t b = memory_bit(hash, i);
                if (!(m->bits[b / 8] & (1U << (b % 8))))
                        return false;
        }
        return true;
}

void credential_memory_add(CredentialMemory *m, const uint8_t hash[static CREDENTIAL_HASH_SIZE]) {
        for (unsigned i = 0; i < CREDENTIAL_MEMORY_K; i++) {
                size_t b = memory_bit(hash, i);
                m->bits[b / 8] |= (uint8_t) (1U << (b % 8));
        }
}

bool credential_memory_file_ok(const FileStat *st) {
        /* Rule 6, as for the seed: whoever could replace or truncate this
         * file could make a credential credited twice. */
        return S_ISREG(st->mode) && st->uid == 0 && (st->mode & 07177) == 0 && st->nlink == 1;
}

int credential_memory_parse(const uint8_t *buf, size_t size, CredentialMemory *m) {
        memset(m->bits, 0, sizeof(m->bits));
        if (size == CREDENTIALS_FILE_MAX && memcmp(buf, CREDENTIALS_MAGIC, CREDENTIALS_MAGIC_SIZE) == 0) {
                memcpy(m->bits, buf + CREDENTIALS_MAGIC_SIZE, CREDENTIAL_MEMORY_BYTES);
                return 0;
        }
        if (size >= CREDENTIALS_MAGIC_SIZE && memcmp(buf, CREDENTIALS_OLD_MAGIC, CREDENTIALS_MAGIC_SIZE) == 0 &&
            (size - CREDENTIALS_MAGIC_SIZE) % CREDENTIAL_HASH_SIZE == 0 &&
            (size - CREDENTIALS_MAGIC_SIZE) / CREDENTIAL_HASH_SIZE <= CREDENTIALS_OLD_MAX) {
                for (size_t o = CREDENTIALS_MAGIC_SIZE; o < size; o += CREDENTIAL_HASH_SIZE)
                        credential_memory_add(m, buf + o);
                return 0;
        }
        return -EBADMSG;
}

int credential_memory_read(int dfd, CredentialMemory *m) {
        char *buf = NULL;
        size_t size = 0;
        int r;

        m->exists = false;
        r = read_file_at(dfd, SEED_CREDENTIALS_NAME, CREDENTIALS_FILE_MAX, 0, &buf, &size, &m->stat);
        if (r == -ENOENT) {
                memset(m->bits, 0, sizeof(m->bits));
                return 0;
        }
        if (r == -ELOOP)
                return -EPERM;
        if (r < 0)
                return r;
        m->exists = true;
        r = credential_memory_file_ok(&m->stat) ? credential_memory_parse((const uint8_t *) buf, size, m) : -EPERM;
        free(buf);
        return r;
}

int credential_memory_write(int dfd, const CredentialMemory *m) {
        _cleanup_free_ uint8_t *out = malloc(CREDENTIALS_FILE_MAX);

        if (!out)
                return -ENOMEM;
        memcpy(out, CREDENTIALS_MAGIC, CREDENTIALS_MAGIC_SIZE);
        memcpy(out + CREDENTIALS_MAGIC_SIZE, m->bits, CREDENTIAL_MEMORY_BYTES);
        /* Durable before the credential is credited: a power cut right after
         * crediting must not forget that it was. */
        return write_file_atomic_at(dfd, SEED_CREDENTIALS_NAME, out, CREDENTIALS_FILE_MAX, 0600, WRITE_DURABLE);
}
