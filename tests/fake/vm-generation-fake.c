// SPDX-License-Identifier: LGPL-2.1-or-later
/* A VM generation for tests, linked in place of vm-generation-linux.c (the
 * link-time seam, like pool-fake.c): the same reader over stand-ins that
 * the test makes, named in the environment. Unset, there is no source.
 *
 *   FAKE_VMGEN_VMCLOCK=PATH   a file holding a struct vmclock_abi
 *   FAKE_VMGEN_TABLES=DIR     a directory of ACPI tables (SSDT, SSDT1, ...)
 *   FAKE_VMGEN_MEM=PATH       a (sparse) file standing for /dev/mem
 */
#include <stdlib.h>

#include "vm-generation.h"

int vm_generation_read(VmGeneration *ret, char ret_why[static VM_GENERATION_WHY_MAX]) {
        const VmGenerationPaths fake = {
                .vmclock = getenv("FAKE_VMGEN_VMCLOCK"),
                .acpi_tables = getenv("FAKE_VMGEN_TABLES"),
                .mem = getenv("FAKE_VMGEN_MEM") ?: "/nonexistent/mem",
        };

        return vm_generation_read_at(&fake, ret, ret_why);
}
