// SPDX-License-Identifier: LGPL-2.1-or-later
#include <string.h>

#include "blake2s.h"
#include "macro.h"
#include "string-table.h"
#include "vm-generation.h"

static const char *const vm_generation_source_table[_VM_GENERATION_SOURCE_MAX] = {
        [VM_GENERATION_NONE] = "none",
        [VM_GENERATION_VMCLOCK] = "vmclock",
        [VM_GENERATION_VMGENID] = "vmgenid",
};

DEFINE_STRING_TABLE(vm_generation_source, VmGenerationSource)

static uint32_t get_le32(const uint8_t *p) {
        return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static uint64_t get_le64(const uint8_t *p) {
        return (uint64_t) get_le32(p) | (uint64_t) get_le32(p + 4) << 32;
}

/* ACPI table header: Signature[4] Length[4] Revision[1] Checksum[1]
 * OEMID[6] OEM Table ID[8] ..., 36 bytes; the AML follows. */
#define ACPI_OFFSET_LENGTH 4U
#define ACPI_OFFSET_OEM_TABLE_ID 16U

#define AML_NAME_OP 0x08U
#define AML_DWORD_PREFIX 0x0CU

int vmgenid_ssdt_parse(const uint8_t *buf, size_t size, uint64_t *ret_address) {
        static const uint8_t pattern[] = { AML_NAME_OP, 'V', 'G', 'I', 'A', AML_DWORD_PREFIX };
        size_t length;

        if (!ret_address || (!buf && size > 0))
                return -EINVAL;
        if (size < ACPI_TABLE_HEADER_SIZE || memcmp(buf, "SSDT", 4) != 0)
                return -ENOENT;
        /* "VMGENID" padded to 8 bytes with NUL (QEMU) or spaces. */
        if (memcmp(buf + ACPI_OFFSET_OEM_TABLE_ID, "VMGENID", 7) != 0 ||
            (buf[ACPI_OFFSET_OEM_TABLE_ID + 7] != 0 && buf[ACPI_OFFSET_OEM_TABLE_ID + 7] != ' '))
                return -ENOENT;

        /* The table's own length bounds the AML; what the file holds past
         * it (there should be nothing) is not the table. */
        length = get_le32(buf + ACPI_OFFSET_LENGTH);
        if (length < ACPI_TABLE_HEADER_SIZE || length > size)
                return -EBADMSG;

        /* QEMU puts the name first in the AML; look for it anywhere in the
         * table's top level bytes, the name declared exactly once, so that
         * another layout of the same table still works, and a table with two
         * candidates (which one would the kernel use?) counts as damaged. */
        size_t found = 0, n = 0;
        for (size_t i = ACPI_TABLE_HEADER_SIZE; length - i >= sizeof(pattern) + 4; i++)
                if (memcmp(buf + i, pattern, sizeof(pattern)) == 0) {
                        found = i + sizeof(pattern);
                        n++;
                }
        if (n != 1)
                return -EBADMSG;

        uint64_t address = get_le32(buf + found);
        if (address == 0)
                return -EADDRNOTAVAIL;
        *ret_address = address;
        return 0;
}

static bool all_zero(const uint8_t *p, size_t n) {
        uint8_t d = 0;
        for (size_t i = 0; i < n; i++)
                d |= p[i];
        return d == 0;
}

int vmgenid_guid_parse(const uint8_t *buf, size_t size, VmGeneration *ret) {
        if (!ret || (!buf && size > 0))
                return -EINVAL;
        if (size < VM_GENERATION_ID_SIZE)
                return -EBADMSG;
        if (all_zero(buf, VM_GENERATION_ID_SIZE))
                return -ENODATA;
        *ret = (VmGeneration) { .source = VM_GENERATION_VMGENID };
        memcpy(ret->id, buf, VM_GENERATION_ID_SIZE);
        return 0;
}

/* struct vmclock_abi (<linux/vmclock-abi.h>), the offsets used here. */
#define VMCLOCK_OFFSET_MAGIC 0U
#define VMCLOCK_OFFSET_SIZE 4U
#define VMCLOCK_OFFSET_VERSION 8U
#define VMCLOCK_OFFSET_SEQ_COUNT 12U
#define VMCLOCK_OFFSET_FLAGS 24U
#define VMCLOCK_OFFSET_VM_GENERATION_COUNTER 104U

int vmclock_abi_parse(const uint8_t *buf, size_t size, VmGeneration *ret) {
        if (!ret || (!buf && size > 0))
                return -EINVAL;
        if (size < VMCLOCK_OFFSET_FLAGS + 8 || get_le32(buf + VMCLOCK_OFFSET_MAGIC) != VMCLOCK_MAGIC)
                return -EBADMSG;
        /* Version 1 is the only one there is; the generation counter was
         * added to it behind a flag. */
        if ((buf[VMCLOCK_OFFSET_VERSION] | buf[VMCLOCK_OFFSET_VERSION + 1] << 8) != 1)
                return -EBADMSG;
        if ((get_le32(buf + VMCLOCK_OFFSET_SEQ_COUNT) & 1) != 0)
                return -EAGAIN;
        if ((get_le64(buf + VMCLOCK_OFFSET_FLAGS) & VMCLOCK_FLAG_VM_GEN_COUNTER_PRESENT) == 0)
                return -EOPNOTSUPP;
        /* The structure's own size must hold the counter, and so must what
         * was read. */
        if (get_le32(buf + VMCLOCK_OFFSET_SIZE) < VMCLOCK_ABI_SIZE_WITH_GENERATION ||
            size < VMCLOCK_ABI_SIZE_WITH_GENERATION)
                return -EBADMSG;

        *ret = (VmGeneration) { .source = VM_GENERATION_VMCLOCK };
        memcpy(ret->id, buf + VMCLOCK_OFFSET_VM_GENERATION_COUNTER, 8);
        return 0;
}

#define BINDING_KEY "entropy-gate vm generation v1"

void vm_generation_binding(const VmGeneration *g, uint8_t ret[static VM_GENERATION_BINDING_SIZE]) {
        uint8_t in[1 + VM_GENERATION_ID_SIZE];

        if (!g || g->source <= VM_GENERATION_NONE || g->source >= _VM_GENERATION_SOURCE_MAX) {
                memset(ret, 0, VM_GENERATION_BINDING_SIZE);
                return;
        }
        in[0] = (uint8_t) g->source;
        memcpy(in + 1, g->id, VM_GENERATION_ID_SIZE);
        (void) blake2s(ret, VM_GENERATION_BINDING_SIZE, BINDING_KEY, strlen(BINDING_KEY), in, sizeof(in));
        erase(in, sizeof(in));
}

bool vm_generation_binding_is_none(const uint8_t b[static VM_GENERATION_BINDING_SIZE]) {
        return all_zero(b, VM_GENERATION_BINDING_SIZE);
}
