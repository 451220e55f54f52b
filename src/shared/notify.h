/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "time-util.h"

/* The service manager notification protocol (sd_notify(3)), natively: one
 * datagram per message on the AF_UNIX socket named by $NOTIFY_SOCKET, a
 * filesystem path or, with a leading '@', an abstract socket. The protocol is
 * stable and documented; speaking it here keeps libsystemd (and the
 * compression and crypto libraries it pulls in) off the boot path. */

#define NOTIFY_BARRIER_TIMEOUT_DEFAULT (5 * USEC_PER_SEC)

/* Send @message ("READY=1\nSTATUS=..."). Returns 1 when sent, 0 when
 * $NOTIFY_SOCKET is unset or empty (not under a service manager), -errno. */
int notify_send(const char *message);

/* BARRIER=1: send a pipe's write end along with the message, close ours and
 * wait until the service manager closes its copy, which it does only after
 * processing every message we sent before. Without this, a process that exits
 * right after READY=1 may be gone before the manager attributes the message
 * to it. Waits at most @timeout (USEC_INFINITY: for ever; 0: the default 5s).
 * Returns 1 when the barrier was honoured, 0 when $NOTIFY_SOCKET is unset,
 * -ETIMEDOUT, or -errno. */
int notify_barrier(usec_t timeout);

/* The s6 / dinit readiness convention: write a newline to @fd and close it.
 * @fd is closed on every path. Returns 0 or -errno. */
int notify_ready_fd(int fd);
