// SPDX-License-Identifier: LGPL-2.1-or-later
/* A test seam, linked only into the test twins of binaries that take no
 * --root= of their own (entropy-gate, the generator, entropyctl status): the
 * root comes from $EG_TEST_ROOT, before main() runs. The installed binaries
 * never contain this file and read no path from the environment. */
#include <stdlib.h>

#include "root.h"

__attribute__((constructor)) static void test_root_from_env(void) {
        root_set(getenv("EG_TEST_ROOT"));
}
