// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropy-gate's command line comes from unit files, init scripts and
 * people: any argument vector must parse or be refused with a message,
 * never crash, and what it stores must be sane. The input is split at NUL
 * bytes into at most 16 arguments. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "gate.h"

#define MAX_ARGS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *argv[MAX_ARGS + 2] = { (char *) "entropy-gate" };
        char error[256];
        GateArgs a;
        char *buf;
        int argc = 1, r;

        buf = malloc(size + 1);
        if (!buf)
                return 0;
        memcpy(buf, data, size);
        buf[size] = 0;
        for (char *p = buf; argc <= MAX_ARGS && p <= buf + size; p += strlen(p) + 1)
                argv[argc++] = p;
        argv[argc] = NULL;

        memset(error, 0, sizeof(error));
        r = gate_parse_argv(argc, argv, &a, error, sizeof(error));
        if (r == 0) {
                if (a.action != GATE_ACTION_RUN && a.action != GATE_ACTION_HELP && a.action != GATE_ACTION_VERSION &&
                    a.action != GATE_ACTION_INITRD_ENABLED)
                        abort();
                if (a.on_timeout != ON_TIMEOUT_FAIL && a.on_timeout != ON_TIMEOUT_PROCEED)
                        abort();
                if (a.ready_fd < 0 && a.ready_fd != -EBADF)
                        abort();
                /* What was not given keeps its default: the lower layers decide. */
                if ((!a.timeout_set && a.timeout != USEC_INFINITY) ||
                    (!a.on_timeout_set && a.on_timeout != ON_TIMEOUT_FAIL) ||
                    (!a.warn_after_set && a.warn_after != WARN_AFTER_DEFAULT))
                        abort();
        } else {
                /* Refused: with a message that names something, always terminated. */
                if (r != -EINVAL || error[0] == 0 || strnlen(error, sizeof(error)) == sizeof(error))
                        abort();
        }

        free(buf);
        return 0;
}
