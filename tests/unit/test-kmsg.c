// SPDX-License-Identifier: LGPL-2.1-or-later
/* The kernel log reader behind the "crng init done" fallback: the record
 * format of /dev/kmsg, which records count as the kernel's own, and reading
 * a file of records in pieces. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "kmsg.h"
#include "macro.h"
#include "test-util.h"

static void test_parse(void **state) {
        static const char line[] = "5,88,77481,-;random: crng init done";
        KmsgRecord r;

        assert_int_equal(kmsg_record_parse(line, strlen(line), &r), 0);
        assert_int_equal(r.facility, 0);
        assert_int_equal(r.level, 5);
        assert_int_equal(r.seq, 88);
        assert_int_equal(r.usec, 77481);
        assert_int_equal(r.message_len, strlen("random: crng init done"));
        assert_memory_equal(r.message, "random: crng init done", r.message_len);
        assert_true(kmsg_record_is_kernel(&r, "random: crng init done"));
        assert_false(kmsg_record_is_kernel(&r, "random: crng init done!"));

        /* More fields after the flags are the kernel's to add. */
        assert_int_equal(kmsg_record_parse("6,1,2,c,caller=T1;x", 19, &r), 0);
        assert_int_equal(r.message_len, 1);
        /* An empty message is a message. */
        assert_int_equal(kmsg_record_parse("6,1,2,-;", 8, &r), 0);
        assert_int_equal(r.message_len, 0);

        /* What a program wrote to /dev/kmsg carries its facility (LOG_USER
         * at least): it never passes for the kernel's. */
        assert_int_equal(kmsg_record_parse("13,90,80000,-;random: crng init done", 36, &r), 0);
        assert_int_equal(r.facility, 1);
        assert_false(kmsg_record_is_kernel(&r, "random: crng init done"));

        /* Not records. */
        static const char *const bad[] = {
                "", ";", "5;x", "5,1;x", "5,1,x;y", ",1,2,-;x", "5,,2,-;x", "5,1,2x,-;x", "a,1,2,-;x",
                " SUBSYSTEM=acpi", "5,1,2,-", "99999999999999999999,1,2,-;x", "16777216,1,2,-;x",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                print_message("bad %zu: '%s'\n", i, bad[i]);
                assert_int_equal(kmsg_record_parse(bad[i], strlen(bad[i]), &r), -EBADMSG);
        }
}

typedef struct Seen {
        unsigned n;
        uint64_t seqs[16];
        usec_t crng;
        unsigned stop_after;
} Seen;

static int collect(const KmsgRecord *r, void *userdata) {
        Seen *s = userdata;

        if (s->n < ELEMENTSOF(s->seqs))
                s->seqs[s->n] = r->seq;
        s->n++;
        if (kmsg_record_is_kernel(r, "random: crng init done"))
                s->crng = r->usec;
        return s->stop_after > 0 && s->n >= s->stop_after;
}

static void test_read_file(void **state) {
        char dir[PATH_MAX], path[PATH_MAX + 16], *big;
        _cleanup_close_ int fd = -EBADF;
        size_t big_size = 40000;
        Seen seen = {};

        test_tmpdir(dir, "test-kmsg");
        /* Continuation lines, a line that is no record, a user-space forgery. */
        test_write_text(dir, "kmsg",
                        "6,1,0,-;Linux version 6.1\n"
                        " SUBSYSTEM=cpu\n"
                        " DEVICE=+cpu:0\n"
                        "garbage\n"
                        "13,2,50000,-;random: crng init done\n"
                        "5,3,77481,-;random: crng init done\n"
                        "6,4,366871,-;Run /sbin/init as init process\n");
        snprintf(path, sizeof(path), "%s/kmsg", dir);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(kmsg_read_all(fd, collect, &seen), 0);
        assert_int_equal(seen.n, 4);
        assert_int_equal(seen.seqs[0], 1);
        assert_int_equal(seen.seqs[3], 4);
        assert_int_equal(seen.crng, 77481);

        /* The callback stops the reading. */
        fd = safe_close(fd);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        seen = (Seen) { .stop_after = 2 };
        assert_int_equal(kmsg_read_all(fd, collect, &seen), 0);
        assert_int_equal(seen.n, 2);

        /* A line longer than any record is skipped whole, across reads; what
         * follows it still counts. */
        big = malloc(big_size + 64);
        assert_non_null(big);
        memset(big, 'x', big_size);
        big[0] = '6', big[1] = ',', big[2] = '9', big[3] = ',', big[4] = '1', big[5] = ',', big[6] = '-', big[7] = ';';
        strcpy(big + big_size, "\n5,10,42,-;random: crng init done\n");
        test_write(dir, "kmsg", big, strlen(big), 0644);
        free(big);
        fd = safe_close(fd);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        seen = (Seen) {};
        assert_int_equal(kmsg_read_all(fd, collect, &seen), 0);
        assert_int_equal(seen.n, 1);
        assert_int_equal(seen.seqs[0], 10);
        assert_int_equal(seen.crng, 42);

        /* Empty. */
        test_write_text(dir, "kmsg", "");
        fd = safe_close(fd);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        seen = (Seen) {};
        assert_int_equal(kmsg_read_all(fd, collect, &seen), 0);
        assert_int_equal(seen.n, 0);
        test_rm_rf(dir);
}

static void test_read_device(void **state) {
        _cleanup_close_ int fd = -EBADF;
        Seen seen = {};

        /* The real one, where it can be read: it ends (EAGAIN), it parses. */
        fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                print_message("/dev/kmsg: %s, skipped\n", strerror(errno));
                return;
        }
        assert_int_equal(kmsg_read_all(fd, collect, &seen), 0);
        print_message("/dev/kmsg: %u records, crng init done at %llu us\n", seen.n, (unsigned long long) seen.crng);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_read_file),
                cmocka_unit_test(test_read_device),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
