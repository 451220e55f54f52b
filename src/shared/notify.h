/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "time-util.h"

/* The service manager notification protocol (sd_notify(3)), natively: one
 * datagram per message on the AF_UNIX socket named by $NOTIFY_SOCKET, a
 * filesystem path or, with a leading '@', an abstract socket. The protocol is
 * stable and documented; speaking it here keeps libsystemd (and the
 * compression and crypto libraries it pulls in) off the boot path. */

#define NOTIFY_BARRIER_TIMEOUT_DEFAULT (5 * USEC_PER_SEC)
#define NOTIFY_SEND_TIMEOUT_DEFAULT (5 * USEC_PER_SEC)
/* The longest $NOTIFY_SOCKET path: sun_path less its NUL (an abstract name
 * may be one byte longer). */
#define NOTIFY_SOCKET_MAX 107

/* No operation here blocks without bound, whatever the receiver does: one
 * that never reads fills its queue, and a plain blocking send would then
 * wait for ever. */

/* Send @message ("READY=1\nSTATUS=..."), waiting at most @timeout for room
 * in the receiver's queue: 0 does not wait at all (-EAGAIN when there is
 * none: for messages a later one replaces, like STATUS= while waiting);
 * USEC_INFINITY means the default, NOTIFY_SEND_TIMEOUT_DEFAULT. Returns 1
 * when sent, 0 when $NOTIFY_SOCKET is unset or empty (not under a service
 * manager), -ETIMEDOUT, -EAGAIN, -ENAMETOOLONG ($NOTIFY_SOCKET longer than
 * a socket address holds: NOTIFY_SOCKET_MAX bytes), or -errno. */
int notify_send_timeout(const char *message, usec_t timeout);

/* The same, waiting at most NOTIFY_SEND_TIMEOUT_DEFAULT. */
int notify_send(const char *message);

/* BARRIER=1: send a pipe's write end along with the message, close ours and
 * wait until the service manager closes its copy, which it does only after
 * processing every message we sent before. Without this, a process that exits
 * right after READY=1 may be gone before the manager attributes the message
 * to it. Sending the message and waiting for the answer share one deadline,
 * @timeout from now (0 or USEC_INFINITY: the default 5s; never for ever).
 * Returns 1 when the barrier was honoured, 0 when $NOTIFY_SOCKET is unset,
 * -ETIMEDOUT, or -errno. */
int notify_barrier(usec_t timeout);

/* The s6 / dinit readiness convention: write a newline to @fd and close it,
 * waiting at most @timeout (0 or USEC_INFINITY: NOTIFY_SEND_TIMEOUT_DEFAULT)
 * for room in it: a supervisor that never reads its pipe fills it.
 * @fd is closed on every path. Returns 0, -ETIMEDOUT or -errno. */
int notify_ready_fd_timeout(int fd, usec_t timeout);

/* The same, waiting at most NOTIFY_SEND_TIMEOUT_DEFAULT. */
int notify_ready_fd(int fd);
