// SPDX-License-Identifier: LGPL-2.1-or-later
/* The seed store against a temporary directory: the directory lock and its
 * deadline, reading what is under the seed's name, the durable replace, and
 * the memory of credited credentials. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "macro.h"
#include "seed-store.h"
#include "test-util.h"

static char dir[PATH_MAX];
static int dfd = -EBADF;

static int setup(void **state) {
        FileStat st;

        test_tmpdir(dir, "test-seed-store");
        dfd = seed_dir_open_locked(dir, 0, SEED_LOCK_TIMEOUT_USEC, &st);
        assert_true(dfd >= 0);
        return 0;
}

static int teardown(void **state) {
        safe_close(dfd);
        test_rm_rf(dir);
        return 0;
}

static void put(const char *name, const void *content, size_t size) {
        test_write(dir, name, content, size, 0600);
}

static void test_lock(void **state) {
        _cleanup_close_ int other = -EBADF;
        char path[PATH_MAX + 64];
        FileStat st;
        usec_t t0;
        int fd;

        /* Another open of the directory cannot take the lock while we hold it. */
        other = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(other >= 0);
        assert_int_equal(flock(other, LOCK_EX | LOCK_NB), -1);
        assert_int_equal(errno, EWOULDBLOCK);

        /* A lock held by someone else is waited for a bounded time only. */
        t0 = now_usec(CLOCK_MONOTONIC);
        assert_int_equal(seed_dir_open_locked(dir, 0, 300 * USEC_PER_MSEC, &st), -ETIMEDOUT);
        assert_true(now_usec(CLOCK_MONOTONIC) - t0 >= 300 * USEC_PER_MSEC);

        /* A missing directory is created 0700; only the last component. */
        snprintf(path, sizeof(path), "%s/new", dir);
        fd = seed_dir_open_locked(path, 0, SEED_LOCK_TIMEOUT_USEC, &st);
        assert_true(fd >= 0);
        assert_true(S_ISDIR(st.mode));
        assert_int_equal(st.mode & 07777, 0700);
        safe_close(fd);
        snprintf(path, sizeof(path), "%s/no/such", dir);
        assert_int_equal(seed_dir_open_locked(path, 0, SEED_LOCK_TIMEOUT_USEC, &st), -ENOENT);

        /* A file where the directory should be. */
        put("file", "x", 1);
        snprintf(path, sizeof(path), "%s/file", dir);
        assert_int_equal(seed_dir_open_locked(path, 0, SEED_LOCK_TIMEOUT_USEC, &st), -ENOTDIR);
}

static void test_read_write(void **state) {
        _cleanup_(seed_file_erase) SeedFile f = { .creditable = true, .seed_size = 64 };
        _cleanup_(stored_seed_done) StoredSeed s = {};
        const uint8_t *bytes;
        size_t n;

        (void) unlinkat(dfd, SEED_FILE_NAME, 0);
        stored_seed_read(dfd, &s);
        assert_false(s.exists);
        assert_string_equal(s.problem, "no seed file");

        memset(f.seed, 0xa5, f.seed_size);
        assert_int_equal(stored_seed_write(dfd, &f), 0);
        stored_seed_read(dfd, &s);
        assert_true(s.exists && s.parsed);
        assert_int_equal(s.stat.mode & 07777, 0600);
        assert_true(s.file.creditable);
        bytes = stored_seed_bytes(&s, &n);
        assert_int_equal(n, 64);
        assert_memory_equal(bytes, f.seed, 64);
        stored_seed_done(&s);

        /* Not a seed: what it holds is still there to mix. */
        put(SEED_FILE_NAME, "garbage", 7);
        stored_seed_read(dfd, &s);
        assert_true(s.exists);
        assert_false(s.parsed);
        assert_non_null(strstr(s.problem, "does not parse"));
        bytes = stored_seed_bytes(&s, &n);
        assert_int_equal(n, 7);
        assert_memory_equal(bytes, "garbage", 7);
        stored_seed_done(&s);

        /* A symlink is not followed, a FIFO not read. */
        assert_int_equal(unlinkat(dfd, SEED_FILE_NAME, 0), 0);
        assert_int_equal(symlinkat("/etc/passwd", dfd, SEED_FILE_NAME), 0);
        stored_seed_read(dfd, &s);
        assert_true(s.exists);
        assert_non_null(strstr(s.problem, "symbolic link"));
        stored_seed_done(&s);
        assert_int_equal(unlinkat(dfd, SEED_FILE_NAME, 0), 0);
        assert_int_equal(mkfifoat(dfd, SEED_FILE_NAME, 0600), 0);
        stored_seed_read(dfd, &s);
        assert_non_null(strstr(s.problem, "FIFO"));
        assert_int_equal(unlinkat(dfd, SEED_FILE_NAME, 0), 0);
}

/* The memory's logic, for any user: a buildd runs the unit tests as one. */
static void test_credential_memory(void **state) {
        static CredentialMemory m;
        uint8_t a[CREDENTIAL_HASH_SIZE], b[CREDENTIAL_HASH_SIZE], h[CREDENTIAL_HASH_SIZE];
        uint8_t old[8 + 2 * CREDENTIAL_HASH_SIZE];
        unsigned false_positives = 0;
        FileStat st = { .nlink = 1, .uid = 0, .mode = S_IFREG | 0600 };

        credential_hash("credential one", 14, a);
        credential_hash("credential two", 14, b);
        assert_memory_not_equal(a, b, sizeof(a));

        memset(&m, 0, sizeof(m));
        assert_false(credential_memory_has(&m, a));
        credential_memory_add(&m, a);
        assert_true(credential_memory_has(&m, a));
        assert_false(credential_memory_has(&m, b));

        /* Never forgets: 20,000 more, and the first is still there; a few
         * new ones are taken for seen (mixed, never credited twice). */
        for (unsigned i = 0; i < 20000; i++) {
                credential_hash(&i, sizeof(i), h);
                credential_memory_add(&m, h);
        }
        assert_true(credential_memory_has(&m, a));
        for (unsigned i = 1000000; i < 1010000; i++) {
                credential_hash(&i, sizeof(i), h);
                false_positives += credential_memory_has(&m, h);
        }
        assert_true(false_positives < 10);

        /* The first format, a list of hashes, is carried over. */
        memcpy(old, "\x89" "EGCRED\n", 8);
        memcpy(old + 8, a, CREDENTIAL_HASH_SIZE);
        memcpy(old + 8 + CREDENTIAL_HASH_SIZE, b, CREDENTIAL_HASH_SIZE);
        assert_int_equal(credential_memory_parse(old, sizeof(old), &m), 0);
        assert_true(credential_memory_has(&m, a) && credential_memory_has(&m, b));

        /* A memory that does not parse is an error, never "not seen". */
        assert_int_equal(credential_memory_parse((const uint8_t *) "nonsense", 8, &m), -EBADMSG);

        /* Rule 6 on what the file is: root's, 0600, one link, regular. */
        assert_true(credential_memory_file_ok(&st));
        st.mode = S_IFREG | 0644;
        assert_false(credential_memory_file_ok(&st));
        st.mode = S_IFREG | 0600, st.nlink = 2;
        assert_false(credential_memory_file_ok(&st));
        st.nlink = 1, st.uid = 1000;
        assert_false(credential_memory_file_ok(&st));
        st.uid = 0, st.mode = S_IFLNK | 0600;
        assert_false(credential_memory_file_ok(&st));
}

/* The file: written and read back, and rule 6 on a real one. Its owner
 * must be root, which only root can make it. */
static void test_credential_memory_file(void **state) {
        static CredentialMemory m;
        uint8_t a[CREDENTIAL_HASH_SIZE], b[CREDENTIAL_HASH_SIZE];
        struct stat st;

        if (geteuid() != 0) {
                print_message("test_credential_memory_file: skipped: the memory must be root's (rule 6), "
                              "and this runs as UID %u\n", (unsigned) geteuid());
                skip();
        }
        credential_hash("credential one", 14, a);
        credential_hash("credential two", 14, b);

        (void) unlinkat(dfd, SEED_CREDENTIALS_NAME, 0);
        assert_int_equal(credential_memory_read(dfd, &m), 0);
        assert_false(m.exists);
        assert_false(credential_memory_has(&m, a));
        credential_memory_add(&m, a);
        assert_int_equal(credential_memory_write(dfd, &m), 0);
        assert_int_equal(credential_memory_read(dfd, &m), 0);
        assert_true(credential_memory_has(&m, a));
        assert_false(credential_memory_has(&m, b));
        assert_int_equal(fstatat(dfd, SEED_CREDENTIALS_NAME, &st, 0), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        assert_int_equal(st.st_size, 8 + CREDENTIAL_MEMORY_BYTES);

        /* A memory that does not parse is an error, never "not seen". */
        put(SEED_CREDENTIALS_NAME, "nonsense", 8);
        assert_int_equal(credential_memory_read(dfd, &m), -EBADMSG);

        /* Rule 6: a loose mode, a second link, a symlink are not believed. */
        credential_memory_add(&m, a);
        assert_int_equal(credential_memory_write(dfd, &m), 0);
        assert_int_equal(fchmodat(dfd, SEED_CREDENTIALS_NAME, 0644, 0), 0);
        assert_int_equal(credential_memory_read(dfd, &m), -EPERM);
        assert_int_equal(fchmodat(dfd, SEED_CREDENTIALS_NAME, 0600, 0), 0);
        assert_int_equal(linkat(dfd, SEED_CREDENTIALS_NAME, dfd, "second-link", 0), 0);
        assert_int_equal(credential_memory_read(dfd, &m), -EPERM);
        assert_int_equal(unlinkat(dfd, "second-link", 0), 0);
        assert_int_equal(renameat(dfd, SEED_CREDENTIALS_NAME, dfd, "elsewhere"), 0);
        assert_int_equal(symlinkat("elsewhere", dfd, SEED_CREDENTIALS_NAME), 0);
        assert_int_equal(credential_memory_read(dfd, &m), -EPERM);
}

static void test_legacy_list(void **state) {
        assert_true(legacy_seeds_count >= 4);
        for (size_t i = 0; i < legacy_seeds_count; i++) {
                assert_true(legacy_seeds[i].path[0] == '/');
                assert_non_null(legacy_seeds[i].what);
                assert_non_null(legacy_seeds[i].why);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_lock),
                cmocka_unit_test(test_read_write),
                cmocka_unit_test(test_credential_memory),
                cmocka_unit_test(test_credential_memory_file),
                cmocka_unit_test(test_legacy_list),
        };
        umask(022);
        return cmocka_run_group_tests(tests, setup, teardown);
}
