/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <signal.h>
#include <stdbool.h>

#include "config.h"
#include "time-util.h"

/* Exit codes, as documented in entropy-gate(8). */
enum {
        GATE_EXIT_READY = 0,
        GATE_EXIT_ERROR = 1,
        GATE_EXIT_USAGE = 2,
        GATE_EXIT_TIMEOUT = 3,
        GATE_EXIT_INTERRUPTED = 4,
        GATE_EXIT_INITRD_DISABLED = 5,  /* --initrd-enabled: no */
};

/* ---- Command line (pure) ---- */

typedef enum GateAction {
        GATE_ACTION_RUN,
        GATE_ACTION_HELP,
        GATE_ACTION_VERSION,
        GATE_ACTION_INITRD_ENABLED,  /* --initrd-enabled: a question, answered by the exit status */
} GateAction;

/* What the command line said; the *_set flags say which options it gave,
 * so that they override the configuration files and the kernel command
 * line and nothing else does. */
typedef struct GateArgs {
        GateAction action;
        usec_t timeout;
        bool timeout_set;
        OnTimeout on_timeout;
        bool on_timeout_set;
        usec_t warn_after;
        bool warn_after_set;
        int ready_fd;                /* -EBADF: none */
        bool quiet;
} GateArgs;

/* Parse @argv. Returns 0 and fills *ret, or -EINVAL with a message naming
 * the bad option or value in @error (never touching *ret). Pure apart from
 * getopt_long's own state, which it resets: it prints nothing. */
int gate_parse_argv(int argc, char *argv[], GateArgs *ret, char *error, size_t error_size);

/* Pure: does the kernel command line @cmdline leave the gate on in the
 * initrd? Only entropy_gate.initrd= with a false value (0, no, n, false, f,
 * off) turns it off, found as the kernel splits the command line
 * (proc_cmdline_get_key(): quotes, 0xA0, "--"), so that a word inside
 * another parameter's quoted value never counts. Absent, bare, true, or a
 * value that does not parse (returned in *ret_invalid, else NULL) leaves it
 * on: a switch that turns a safety off fails closed. Returns 1 (on), 0 (off)
 * or -ENOMEM. */
int gate_initrd_enabled(const char *cmdline, char **ret_invalid);

/* Layer the explicit options over @c (defaults, files, kernel command line). */
void gate_args_apply(const GateArgs *a, Config *c);

/* ---- Waiting ---- */

typedef enum GateOutcome {
        GATE_OUTCOME_READY,
        GATE_OUTCOME_TIMEOUT,        /* the caller applies --on-timeout */
        GATE_OUTCOME_INTERRUPTED,
} GateOutcome;

typedef enum GateEvent {
        GATE_EVENT_WAITING,          /* not ready at start: about to block */
        GATE_EVENT_TICK,             /* about once a second while waiting */
        GATE_EVENT_WARN,             /* --warn-after passed, once */
} GateEvent;

/* Called from the wait loop (never from a signal handler) with the time
 * waited so far; the front end refreshes STATUS= and logs. */
typedef void (*gate_event_t)(GateEvent event, usec_t elapsed, void *userdata);

typedef struct GateResult {
        GateOutcome outcome;
        bool ready_at_start;
        usec_t start;                /* CLOCK_BOOTTIME */
        usec_t end;
        usec_t waited;
        int signal;                  /* for GATE_OUTCOME_INTERRUPTED */
} GateResult;

#define GATE_TICK_USEC USEC_PER_SEC

/* The common case at boot, on its own: 1 and *ret filled (ready at start)
 * when the CRNG is already initialized; 0 when it is not, with only
 * ret->start set (hand it to gate_wait_since()); -errno when the pool
 * cannot be asked. No signals, no timer. */
int gate_check_ready(GateResult *ret);

/* Wait until the kernel's CRNG is initialized, @timeout passes, or SIGTERM
 * or SIGINT arrives. Blocks in pool_wait_ready() (getrandom(), so kernels
 * >= 5.4 run their jitter entropy generator), woken by a SIGALRM timer
 * without SA_RESTART at each tick and exactly at the @timeout and
 * @warn_after deadlines. Returns 0 and fills *ret, or -errno when the pool
 * cannot be asked (-ENOSYS: no getrandom(2)). Signal dispositions and the
 * timer are restored before returning. */
int gate_wait(usec_t timeout, usec_t warn_after, gate_event_t on_event, void *userdata, GateResult *ret);

/* gate_wait() for a caller whose gate_check_ready() found the pool not
 * ready at @start (CLOCK_BOOTTIME): the wait, @timeout and @warn_after
 * count from then. */
int gate_wait_since(usec_t start, usec_t timeout, usec_t warn_after, gate_event_t on_event, void *userdata,
                    GateResult *ret);
