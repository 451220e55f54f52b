// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropy-gate and entropy-seed in one binary (ENTROPY_GATE_MULTICALL=ON),
 * chosen by the name it runs as. */
#include <errno.h>
#include <string.h>

#include "multicall.h"

int main(int argc, char *argv[]) {
        if (strcmp(program_invocation_short_name, "entropy-seed") == 0)
                return entropy_seed_main(argc, argv);
        return entropy_gate_main(argc, argv);
}
