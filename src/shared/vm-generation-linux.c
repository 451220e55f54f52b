// SPDX-License-Identifier: LGPL-2.1-or-later
/* The running system's VM generation (vm-generation.h): the one place that
 * names its devices. Linked into the installed binaries only; their test
 * twins link tests/fake/vm-generation-fake.c instead. */
#include "vm-generation.h"

int vm_generation_read(VmGeneration *ret, char ret_why[static VM_GENERATION_WHY_MAX]) {
        static const VmGenerationPaths system_paths = {
                .vmclock = "/dev/vmclock0",
                .acpi_tables = "/sys/firmware/acpi/tables",
                .mem = "/dev/mem",
        };

        return vm_generation_read_at(&system_paths, ret, ret_why);
}
