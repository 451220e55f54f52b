// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "macro.h"
#include "notify.h"

/* Fill @ret/@ret_len from $NOTIFY_SOCKET. 1 when set, 0 when not (or empty),
 * -EAFNOSUPPORT for anything that is not an AF_UNIX address (systemd also
 * knows vsock: for VM guests, which no boot-path service of ours runs
 * under), -EINVAL when the path does not fit. */
static int notify_address(struct sockaddr_un *ret, socklen_t *ret_len) {
        const char *e = getenv("NOTIFY_SOCKET");
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        size_t l;

        if (!e || !*e)
                return 0;
        if (e[0] != '/' && e[0] != '@')
                return -EAFNOSUPPORT;
        l = strlen(e);
        if (l > sizeof(sa.sun_path) || (e[0] == '/' && l == sizeof(sa.sun_path)))
                return -EINVAL; /* a path needs room for its NUL; an abstract name does not */
        if (l < 2)
                return -EINVAL; /* "/" or a bare "@" names nothing */

        memcpy(sa.sun_path, e, l);
        if (e[0] == '@')
                sa.sun_path[0] = 0;
        /* An abstract name is exactly its bytes: no trailing NUL in the length,
         * or it would name a different socket. */
        *ret = sa;
        *ret_len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + l + (e[0] == '/'));
        return 1;
}

static int notify_send_fd(const char *message, int fd) {
        _cleanup_close_ int sock = -EBADF;
        struct sockaddr_un sa;
        socklen_t salen;
        struct iovec iov = {
                .iov_base = (char *) message,
                .iov_len = strlen(message),
        };
        union {
                struct cmsghdr cmsghdr;
                char buf[CMSG_SPACE(sizeof(int))];
        } control = {};
        struct msghdr mh = {
                .msg_name = &sa,
                .msg_iov = &iov,
                .msg_iovlen = 1,
        };
        ssize_t n;
        int r;

        r = notify_address(&sa, &salen);
        if (r <= 0)
                return r;
        mh.msg_namelen = salen;

        if (fd >= 0) {
                struct cmsghdr *c;

                mh.msg_control = &control;
                mh.msg_controllen = sizeof(control.buf);
                c = CMSG_FIRSTHDR(&mh);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int));
                memcpy(CMSG_DATA(c), &fd, sizeof(int));
        }

        sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (sock < 0)
                return negative_errno();

        /* MSG_NOSIGNAL: a vanished receiver must be an error, not SIGPIPE. */
        do
                n = sendmsg(sock, &mh, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return negative_errno();
        if ((size_t) n != iov.iov_len)
                return -EIO; /* a datagram goes whole or not at all */
        return 1;
}

int notify_send(const char *message) {
        if (!message)
                return -EINVAL;
        return notify_send_fd(message, -EBADF);
}

int notify_barrier(usec_t timeout) {
        int pipefd[2];
        usec_t deadline;
        int r;

        if (timeout == 0)
                timeout = NOTIFY_BARRIER_TIMEOUT_DEFAULT;

        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return negative_errno();
        _cleanup_close_ int rfd = pipefd[0];
        _cleanup_close_ int wfd = pipefd[1];

        r = notify_send_fd("BARRIER=1", wfd);
        if (r <= 0)
                return r;
        /* Now only the receiver holds the write end: POLLHUP on ours means it
         * closed it, i.e. it has handled everything we sent before. */
        wfd = safe_close(wfd);

        deadline = timeout == USEC_INFINITY ? USEC_INFINITY : now_usec(CLOCK_MONOTONIC) + timeout;
        for (;;) {
                struct pollfd p = { .fd = rfd, .events = 0 }; /* POLLHUP is always reported */
                int ms = -1;

                if (deadline != USEC_INFINITY) {
                        usec_t now = now_usec(CLOCK_MONOTONIC);
                        if (now >= deadline)
                                return -ETIMEDOUT;
                        /* Round up, so we never wake a hair early and spin. */
                        ms = (int) MIN((deadline - now + USEC_PER_MSEC - 1) / USEC_PER_MSEC, (usec_t) INT32_MAX);
                }
                r = poll(&p, 1, ms);
                if (r < 0) {
                        if (errno == EINTR)
                                continue; /* a timer signal of the caller; the deadline stays */
                        return negative_errno();
                }
                if (r > 0)
                        return p.revents & POLLNVAL ? -EBADF : 1;
        }
}

int notify_ready_fd(int fd) {
        ssize_t n;
        int r = 0;

        if (fd < 0)
                return -EBADF;
        do
                n = write(fd, "\n", 1);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                r = negative_errno();
        else if (n != 1)
                r = -EIO;
        /* The supervisor waits for the newline, then may wait for EOF too. */
        if (close(fd) < 0 && r == 0 && errno != EINTR)
                r = negative_errno();
        return r;
}
