// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include "macro.h"
#include "notify.h"

/* Fill @ret/@ret_len from $NOTIFY_SOCKET. 1 when set, 0 when not (or empty),
 * -EAFNOSUPPORT for anything that is not an AF_UNIX address (systemd also
 * knows vsock: for VM guests, which no boot-path service of ours runs
 * under), -ENAMETOOLONG when the name does not fit in sun_path, -EINVAL
 * when it names nothing. */
_Static_assert(NOTIFY_SOCKET_MAX + 1 == sizeof(((struct sockaddr_un *) NULL)->sun_path), "sun_path");

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
                return -ENAMETOOLONG; /* a path needs room for its NUL; an abstract name does not */
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

/* Send @mh on @sock by @deadline (CLOCK_MONOTONIC; 0: do not wait at all).
 * A receiver that does not read fills its queue, and a blocking send to it
 * would wait until it reads, perhaps for ever: the first try does not
 * block, which costs nothing when there is room (the common case, and no
 * extra system call); after that each try blocks at most until the
 * deadline (SO_SNDTIMEO, which AF_UNIX datagram sends honour both while
 * the receiver's queue is full and while our buffer is). */
static int send_bounded(int sock, const struct msghdr *mh, usec_t deadline) {
        /* MSG_NOSIGNAL: a vanished receiver must be an error, not SIGPIPE. */
        int flags = MSG_NOSIGNAL | MSG_DONTWAIT;

        for (;;) {
                ssize_t n = sendmsg(sock, mh, flags);
                usec_t now, left;
                struct timeval tv;

                if (n >= 0)
                        return (size_t) n == mh->msg_iov[0].iov_len ? 1 : -EIO; /* a datagram goes whole or not at all */
                if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                        return negative_errno();
                if (deadline == 0) {
                        if (errno == EINTR)
                                continue;
                        return -EAGAIN;
                }
                /* Full, or interrupted by a timer signal of the caller (a
                 * send with a timeout is never restarted): whatever is left
                 * until the deadline, and no more. */
                now = now_usec(CLOCK_MONOTONIC);
                if (now >= deadline)
                        return -ETIMEDOUT;
                left = deadline - now;
                /* Never {0, 0}, which would mean "no timeout": left > 0. */
                tv = (struct timeval) {
                        .tv_sec = (time_t) (left / USEC_PER_SEC),
                        .tv_usec = (suseconds_t) (left % USEC_PER_SEC),
                };
                if (setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
                        return negative_errno();
                flags = MSG_NOSIGNAL;
        }
}

static usec_t deadline_after(usec_t timeout) {
        if (timeout == 0)
                return 0;
        if (timeout == USEC_INFINITY)
                timeout = NOTIFY_SEND_TIMEOUT_DEFAULT; /* never without bound */
        return now_usec(CLOCK_MONOTONIC) + timeout;
}

static int notify_send_fd(const char *message, int fd, usec_t deadline) {
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
        return send_bounded(sock, &mh, deadline);
}

int notify_send(const char *message) {
        return notify_send_timeout(message, NOTIFY_SEND_TIMEOUT_DEFAULT);
}

int notify_send_timeout(const char *message, usec_t timeout) {
        if (!message)
                return -EINVAL;
        return notify_send_fd(message, -EBADF, deadline_after(timeout));
}

int notify_barrier(usec_t timeout) {
        int pipefd[2];
        usec_t deadline;
        int r;

        if (timeout == 0 || timeout == USEC_INFINITY)
                timeout = NOTIFY_BARRIER_TIMEOUT_DEFAULT;
        /* One deadline for sending the message and for the answer. */
        deadline = now_usec(CLOCK_MONOTONIC) + timeout;

        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return negative_errno();
        _cleanup_close_ int rfd = pipefd[0];
        _cleanup_close_ int wfd = pipefd[1];

        r = notify_send_fd("BARRIER=1", wfd, deadline);
        if (r <= 0)
                return r;
        /* Now only the receiver holds the write end: POLLHUP on ours means it
         * closed it, i.e. it has handled everything we sent before. */
        wfd = safe_close(wfd);

        for (;;) {
                struct pollfd p = { .fd = rfd, .events = 0 }; /* POLLHUP is always reported */
                usec_t now = now_usec(CLOCK_MONOTONIC);
                int ms;

                if (now >= deadline)
                        return -ETIMEDOUT;
                /* Round up, so we never wake a hair early and spin. */
                ms = (int) MIN((deadline - now + USEC_PER_MSEC - 1) / USEC_PER_MSEC, (usec_t) INT32_MAX);
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

/* Write @c to @fd by @deadline. The fd is the supervisor's pipe, which a
 * supervisor that does not read fills: the write must not block, and
 * O_NONBLOCK is set on the open file description (which the supervisor may
 * share) only for the time of the write. */
static int write_byte_bounded(int fd, char c, usec_t deadline) {
        int flags, r;

        flags = fcntl(fd, F_GETFL);
        if (flags < 0)
                return negative_errno();
        if (!(flags & O_NONBLOCK) && fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
                return negative_errno();

        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLOUT };
                ssize_t n = write(fd, &c, 1);
                usec_t now;
                int ms;

                if (n == 1) {
                        r = 0;
                        break;
                }
                if (n >= 0) {
                        r = -EIO;
                        break;
                }
                if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                        r = negative_errno();
                        break;
                }
                /* Full, or a timer signal of the caller: wait for room, until
                 * the deadline and no longer. */
                now = now_usec(CLOCK_MONOTONIC);
                if (now >= deadline) {
                        r = -ETIMEDOUT;
                        break;
                }
                ms = (int) MIN((deadline - now + USEC_PER_MSEC - 1) / USEC_PER_MSEC, (usec_t) INT32_MAX);
                if (poll(&p, 1, ms) < 0 && errno != EINTR) {
                        r = negative_errno();
                        break;
                }
        }
        if (!(flags & O_NONBLOCK))
                (void) fcntl(fd, F_SETFL, flags);
        return r;
}

int notify_ready_fd_timeout(int fd, usec_t timeout) {
        int r;

        if (fd < 0)
                return -EBADF;
        if (timeout == 0 || timeout == USEC_INFINITY)
                timeout = NOTIFY_SEND_TIMEOUT_DEFAULT;   /* never without bound */
        r = write_byte_bounded(fd, '\n', now_usec(CLOCK_MONOTONIC) + timeout);
        /* The supervisor waits for the newline, then may wait for EOF too. */
        if (close(fd) < 0 && r == 0 && errno != EINTR)
                r = negative_errno();
        return r;
}

int notify_ready_fd(int fd) {
        return notify_ready_fd_timeout(fd, NOTIFY_SEND_TIMEOUT_DEFAULT);
}
