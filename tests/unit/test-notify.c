// SPDX-License-Identifier: LGPL-2.1-or-later
/* The notify protocol against a real receiving socket: the exact bytes of
 * each datagram, path and abstract addresses, and the barrier's pipe fd
 * really travelling by SCM_RIGHTS and being waited for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "macro.h"
#include "notify.h"

typedef struct Receiver {
        char dir[64];
        char path[96];
        int fd;
} Receiver;

static int receiver_bind(Receiver *rc, bool abstract) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        socklen_t len;
        char env[128];

        *rc = (Receiver) { .fd = -EBADF };
        rc->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        assert_true(rc->fd >= 0);
        if (abstract) {
                int n = snprintf(sa.sun_path, sizeof(sa.sun_path), "@eg-test-notify-%ld", (long) getpid());
                snprintf(env, sizeof(env), "%s", sa.sun_path);
                sa.sun_path[0] = 0;
                len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + (size_t) n);
        } else {
                snprintf(rc->dir, sizeof(rc->dir), "/tmp/eg-test-notify.XXXXXX");
                assert_non_null(mkdtemp(rc->dir));
                snprintf(rc->path, sizeof(rc->path), "%s/notify", rc->dir);
                snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", rc->path);
                snprintf(env, sizeof(env), "%s", rc->path);
                len = sizeof(sa);
        }
        assert_int_equal(bind(rc->fd, (struct sockaddr *) &sa, len), 0);
        assert_int_equal(setenv("NOTIFY_SOCKET", env, 1), 0);
        return 0;
}

static void receiver_done(Receiver *rc) {
        rc->fd = safe_close(rc->fd);
        if (rc->path[0])
                (void) unlink(rc->path);
        if (rc->dir[0])
                (void) rmdir(rc->dir);
        (void) unsetenv("NOTIFY_SOCKET");
}

/* Receive one datagram without blocking for ever; returns its length, the
 * bytes NUL-terminated in @buf, and the passed fd (or -EBADF) in *ret_fd. */
static ssize_t receiver_recv(Receiver *rc, char *buf, size_t size, int *ret_fd) {
        union {
                struct cmsghdr cmsghdr;
                char buf[CMSG_SPACE(sizeof(int) * 4)];
        } control = {};
        struct iovec iov = { .iov_base = buf, .iov_len = size - 1 };
        struct msghdr mh = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = &control,
                .msg_controllen = sizeof(control.buf),
        };
        struct timeval tv = { .tv_sec = 5 };
        ssize_t n;

        *ret_fd = -EBADF;
        assert_int_equal(setsockopt(rc->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
        n = recvmsg(rc->fd, &mh, MSG_CMSG_CLOEXEC);
        assert_true(n >= 0);
        assert_false(mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC));
        buf[n] = 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                        assert_int_equal(c->cmsg_len, CMSG_LEN(sizeof(int)));
                        memcpy(ret_fd, CMSG_DATA(c), sizeof(int));
                }
        return n;
}

static void test_unset(void **state) {
        (void) unsetenv("NOTIFY_SOCKET");
        assert_int_equal(notify_send("READY=1"), 0);
        assert_int_equal(notify_barrier(0), 0);
        assert_int_equal(setenv("NOTIFY_SOCKET", "", 1), 0);
        assert_int_equal(notify_send("READY=1"), 0);
        (void) unsetenv("NOTIFY_SOCKET");
}

static void test_bad_address(void **state) {
        char longpath[200];

        assert_int_equal(setenv("NOTIFY_SOCKET", "relative/path", 1), 0);
        assert_int_equal(notify_send("READY=1"), -EAFNOSUPPORT);
        assert_int_equal(setenv("NOTIFY_SOCKET", "vsock:2:1234", 1), 0);
        assert_int_equal(notify_send("READY=1"), -EAFNOSUPPORT);
        assert_int_equal(setenv("NOTIFY_SOCKET", "@", 1), 0);
        assert_int_equal(notify_send("READY=1"), -EINVAL);
        memset(longpath, 'x', sizeof(longpath) - 1);
        longpath[0] = '/';
        longpath[sizeof(longpath) - 1] = 0;
        assert_int_equal(setenv("NOTIFY_SOCKET", longpath, 1), 0);
        assert_int_equal(notify_send("READY=1"), -ENAMETOOLONG);
        /* The longest that fits is sent (and finds nobody). */
        longpath[NOTIFY_SOCKET_MAX] = 0;
        assert_int_equal(setenv("NOTIFY_SOCKET", longpath, 1), 0);
        assert_int_equal(notify_send("READY=1"), -ENOENT);
        longpath[NOTIFY_SOCKET_MAX] = 'x';
        longpath[NOTIFY_SOCKET_MAX + 1] = 0;
        assert_int_equal(setenv("NOTIFY_SOCKET", longpath, 1), 0);
        assert_int_equal(notify_send("READY=1"), -ENAMETOOLONG);
        /* Nobody listening there: an error, never a silent success. */
        assert_int_equal(setenv("NOTIFY_SOCKET", "/nonexistent/eg-test-notify", 1), 0);
        assert_int_equal(notify_send("READY=1"), -ENOENT);
        assert_int_equal(notify_send(NULL), -EINVAL);
        (void) unsetenv("NOTIFY_SOCKET");
}

static void check_send(bool abstract) {
        static const char *const messages[] = {
                "STATUS=Waiting for the kernel random pool to be initialized (1s elapsed)",
                "READY=1\nSTATUS=Kernel random pool initialized, waited 1.234s",
        };
        Receiver rc;
        char buf[512];
        int fd;

        receiver_bind(&rc, abstract);
        for (size_t i = 0; i < ELEMENTSOF(messages); i++) {
                assert_int_equal(notify_send(messages[i]), 1);
                assert_int_equal(receiver_recv(&rc, buf, sizeof(buf), &fd), (ssize_t) strlen(messages[i]));
                assert_string_equal(buf, messages[i]); /* exact bytes, no trailing NUL or newline */
                assert_int_equal(fd, -EBADF);
        }
        receiver_done(&rc);
}

static void test_send_path(void **state) {
        check_send(false);
}

static void test_send_abstract(void **state) {
        check_send(true);
}

/* A receiver in a child process: takes the barrier message, checks the fd
 * is a pipe's write end, holds it @hold_ms, then closes it. */
static void check_barrier_honoured(bool abstract) {
        Receiver rc;
        usec_t t0, elapsed;
        pid_t pid;
        int status;

        receiver_bind(&rc, abstract);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                char buf[64];
                struct stat st;
                int fd, fl;
                ssize_t n = receiver_recv(&rc, buf, sizeof(buf), &fd);

                if (n != 9 || !streq(buf, "BARRIER=1") || fd < 0)
                        _exit(10);
                if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode))
                        _exit(11);
                fl = fcntl(fd, F_GETFL);
                if (fl < 0 || (fl & O_ACCMODE) != O_WRONLY)
                        _exit(12);
                (void) usleep(300 * 1000);
                (void) close(fd);
                _exit(0);
        }

        t0 = now_usec(CLOCK_MONOTONIC);
        assert_int_equal(notify_barrier(5 * USEC_PER_SEC), 1);
        elapsed = now_usec(CLOCK_MONOTONIC) - t0;
        /* It returned because the receiver closed the fd, not before. */
        assert_true(elapsed >= 250 * USEC_PER_MSEC);
        assert_true(elapsed < 4 * USEC_PER_SEC);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        receiver_done(&rc);
}

static void test_barrier_path(void **state) {
        check_barrier_honoured(false);
}

static void test_barrier_abstract(void **state) {
        check_barrier_honoured(true);
}

static void test_barrier_timeout(void **state) {
        Receiver rc;
        usec_t t0, elapsed;
        char buf[64];
        int fd;

        /* Nobody reads the socket: the write end sits queued in it, open, so
         * the barrier must give up at its deadline. */
        receiver_bind(&rc, false);
        t0 = now_usec(CLOCK_MONOTONIC);
        assert_int_equal(notify_barrier(200 * USEC_PER_MSEC), -ETIMEDOUT);
        elapsed = now_usec(CLOCK_MONOTONIC) - t0;
        assert_true(elapsed >= 200 * USEC_PER_MSEC);
        assert_true(elapsed < 2 * USEC_PER_SEC);

        /* And the fd was really in flight. */
        assert_int_equal(receiver_recv(&rc, buf, sizeof(buf), &fd), 9);
        assert_string_equal(buf, "BARRIER=1");
        assert_true(fd >= 0);
        (void) close(fd);
        receiver_done(&rc);
}

static void alarm_handler(int sig) {
}

static void test_barrier_survives_signals(void **state) {
        struct sigaction sa = { .sa_handler = alarm_handler }; /* no SA_RESTART */
        struct sigaction old;
        Receiver rc;
        usec_t t0, elapsed;
        char buf[64];
        int fd;

        /* A timer signal (the gate's own ticks) must neither end the wait
         * early nor stretch it past its deadline. */
        assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
        receiver_bind(&rc, true);
        (void) ualarm(50 * 1000, 50 * 1000);
        t0 = now_usec(CLOCK_MONOTONIC);
        assert_int_equal(notify_barrier(300 * USEC_PER_MSEC), -ETIMEDOUT);
        elapsed = now_usec(CLOCK_MONOTONIC) - t0;
        (void) ualarm(0, 0);
        assert_int_equal(sigaction(SIGALRM, &old, NULL), 0);
        assert_true(elapsed >= 300 * USEC_PER_MSEC);
        assert_true(elapsed < 2 * USEC_PER_SEC);
        assert_int_equal(receiver_recv(&rc, buf, sizeof(buf), &fd), 9);
        (void) close(fd);
        receiver_done(&rc);
}

/* Fill @rc's queue as a receiver that never reads lets it fill: datagrams
 * from fresh sockets (each socket's own send buffer holds only so many)
 * until even a fresh socket's first one finds no room. */
static void receiver_fill(Receiver *rc) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        socklen_t len;
        const char *e = getenv("NOTIFY_SOCKET");

        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", e);
        len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + strlen(e) + (e[0] == '/'));
        if (e[0] == '@')
                sa.sun_path[0] = 0;
        for (unsigned i = 0; i < 100000; i++) {
                _cleanup_close_ int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
                unsigned sent = 0;

                assert_true(s >= 0);
                while (sendto(s, "x", 1, MSG_DONTWAIT, (struct sockaddr *) &sa, len) == 1)
                        sent++;
                assert_true(errno == EAGAIN);
                if (sent == 0)
                        return;
        }
        fail_msg("the receiver's queue never filled");
}

static void check_full_queue(bool abstract) {
        Receiver rc;
        usec_t t0, elapsed;

        receiver_bind(&rc, abstract);
        receiver_fill(&rc);

        /* Not waiting at all: at once. */
        t0 = now_usec(CLOCK_MONOTONIC);
        assert_int_equal(notify_send_timeout("STATUS=x", 0), -EAGAIN);
        assert_true(now_usec(CLOCK_MONOTONIC) - t0 < USEC_PER_SEC);

        /* Waiting: no longer than told. */
        t0 = now_usec(CLOCK_MONOTONIC);
        assert_int_equal(notify_send_timeout("READY=1", 200 * USEC_PER_MSEC), -ETIMEDOUT);
        elapsed = now_usec(CLOCK_MONOTONIC) - t0;
        assert_true(elapsed >= 200 * USEC_PER_MSEC);
        assert_true(elapsed < 2 * USEC_PER_SEC);

        /* The barrier's own message shares its deadline. */
        t0 = now_usec(CLOCK_MONOTONIC);
        assert_int_equal(notify_barrier(300 * USEC_PER_MSEC), -ETIMEDOUT);
        elapsed = now_usec(CLOCK_MONOTONIC) - t0;
        assert_true(elapsed >= 300 * USEC_PER_MSEC);
        assert_true(elapsed < 2 * USEC_PER_SEC);
        receiver_done(&rc);
}

static void test_full_queue_path(void **state) {
        check_full_queue(false);
}

static void test_full_queue_abstract(void **state) {
        check_full_queue(true);
}

static void test_full_queue_signals(void **state) {
        struct sigaction sa = { .sa_handler = alarm_handler }; /* no SA_RESTART */
        struct sigaction old;
        Receiver rc;
        usec_t t0, elapsed;

        /* The gate's ticks interrupt a blocked send: the deadline holds. */
        receiver_bind(&rc, false);
        receiver_fill(&rc);
        assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
        (void) ualarm(30 * 1000, 30 * 1000);
        t0 = now_usec(CLOCK_MONOTONIC);
        assert_int_equal(notify_send_timeout("READY=1", 300 * USEC_PER_MSEC), -ETIMEDOUT);
        elapsed = now_usec(CLOCK_MONOTONIC) - t0;
        (void) ualarm(0, 0);
        assert_int_equal(sigaction(SIGALRM, &old, NULL), 0);
        assert_true(elapsed >= 300 * USEC_PER_MSEC);
        assert_true(elapsed < 2 * USEC_PER_SEC);
        receiver_done(&rc);
}

static void test_ready_fd(void **state) {
        int p[2];
        char buf[8];

        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        assert_int_equal(notify_ready_fd(p[1]), 0);
        assert_int_equal(read(p[0], buf, sizeof(buf)), 1);
        assert_int_equal(buf[0], '\n');
        /* Closed: end of file, not a blocking read. */
        assert_int_equal(read(p[0], buf, sizeof(buf)), 0);
        assert_int_equal(fcntl(p[1], F_GETFD), -1);
        (void) close(p[0]);

        assert_int_equal(notify_ready_fd(-1), -EBADF);
        assert_int_equal(notify_ready_fd(1000), -EBADF);
}

/* A supervisor that never reads its pipe: bounded, like every other
 * notification, through the timer signals of the gate, and the fd closed;
 * the pipe's blocking mode is as it was for whoever shares it. */
static void test_ready_fd_full(void **state) {
        struct sigaction sa = { .sa_handler = alarm_handler }, old; /* no SA_RESTART */
        char fill[4096] = {};
        int p[2], keep;
        usec_t t0, elapsed;

        assert_int_equal(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
        while (write(p[1], fill, sizeof(fill)) > 0)
                ;
        assert_int_equal(fcntl(p[1], F_SETFL, 0), 0);
        keep = dup(p[1]);
        assert_true(keep >= 0);

        assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
        (void) ualarm(50 * 1000, 50 * 1000);
        t0 = now_usec(CLOCK_MONOTONIC);
        assert_int_equal(notify_ready_fd_timeout(p[1], 300 * USEC_PER_MSEC), -ETIMEDOUT);
        elapsed = now_usec(CLOCK_MONOTONIC) - t0;
        (void) ualarm(0, 0);
        assert_int_equal(sigaction(SIGALRM, &old, NULL), 0);
        assert_true(elapsed >= 300 * USEC_PER_MSEC);
        assert_true(elapsed < 2 * USEC_PER_SEC);
        assert_int_equal(fcntl(p[1], F_GETFD), -1);
        assert_int_equal(fcntl(keep, F_GETFL) & O_NONBLOCK, 0);
        (void) close(keep);
        (void) close(p[0]);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_unset),
                cmocka_unit_test(test_bad_address),
                cmocka_unit_test(test_send_path),
                cmocka_unit_test(test_send_abstract),
                cmocka_unit_test(test_barrier_path),
                cmocka_unit_test(test_barrier_abstract),
                cmocka_unit_test(test_barrier_timeout),
                cmocka_unit_test(test_barrier_survives_signals),
                cmocka_unit_test(test_full_queue_path),
                cmocka_unit_test(test_full_queue_abstract),
                cmocka_unit_test(test_full_queue_signals),
                cmocka_unit_test(test_ready_fd),
                cmocka_unit_test(test_ready_fd_full),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
