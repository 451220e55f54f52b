// SPDX-License-Identifier: LGPL-2.1-or-later
/* The VM generation parsers read ACPI tables and a device structure that a
 * hypervisor (or, in a test, anyone) wrote: never out of bounds, an address
 * only from a whole Name (VGIA, DWordConst) inside the table's own length,
 * and a generation only from a consistent vmclock structure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "vm-generation.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        uint8_t b[VM_GENERATION_BINDING_SIZE];
        uint64_t address = 0;
        VmGeneration g;
        int r;

        /* A copy of exactly @size bytes, so that ASan sees any read past it. */
        uint8_t *copy = malloc(size ? size : 1);
        if (!copy)
                return 0;
        memcpy(copy, data, size);

        r = vmgenid_ssdt_parse(copy, size, &address);
        if (r == 0 && (address == 0 || address > UINT32_MAX || size < ACPI_TABLE_HEADER_SIZE + 10))
                abort();
        if (r < 0 && r != -ENOENT && r != -EBADMSG && r != -EADDRNOTAVAIL)
                abort();

        r = vmclock_abi_parse(copy, size, &g);
        if (r == 0 && (g.source != VM_GENERATION_VMCLOCK || size < VMCLOCK_ABI_SIZE_WITH_GENERATION))
                abort();
        if (r == 0) {
                vm_generation_binding(&g, b);
                if (vm_generation_binding_is_none(b))
                        abort();
        }

        r = vmgenid_guid_parse(copy, size, &g);
        if (r == 0 && (g.source != VM_GENERATION_VMGENID || memcmp(g.id, copy, VM_GENERATION_ID_SIZE) != 0))
                abort();
        free(copy);
        return 0;
}
