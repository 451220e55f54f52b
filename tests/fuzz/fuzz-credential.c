// SPDX-License-Identifier: LGPL-2.1-or-later
/* A credential comes from a hypervisor or a boot loader: any bytes, up to
 * the 4096 entropy-seed reads. The classifier must never read past them,
 * never write past @size canonical bytes, and keep its promises: hex is
 * decoded at 4 bits a digit, text and binary keep their bytes less the
 * trailing terminators, and nothing it calls binary is text. The memory of
 * credited credentials parses any file without reading past it. */
#include <stdlib.h>
#include <string.h>

#include "credential.h"
#include "fuzz.h"
#include "seed-store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static CredentialMemory m;
        CredentialContent c, again;
        uint8_t *raw, *out;
        size_t n = size;

        if (size > 4096)
                return 0;
        /* Exactly @size bytes, each buffer its own allocation: a read or
         * write past either is the sanitizer's to see. */
        raw = malloc(size ? size : 1);
        out = malloc(size ? size : 1);
        if (!raw || !out)
                abort();
        memcpy(raw, data, size);
        credential_canonicalize(raw, size, out, &c);

        while (n > 0 && (data[n - 1] == 0 || data[n - 1] == '\n' || data[n - 1] == '\r'))
                n--;
        if (c.size > size || (c.class == CREDENTIAL_CLASS_TEXT) != (c.encoding != NULL))
                abort();
        switch (c.class) {
        case CREDENTIAL_CLASS_HEX:
                if (n == 0 || n % 2 != 0 || c.size != n / 2)
                        abort();
                break;
        case CREDENTIAL_CLASS_TEXT:
        case CREDENTIAL_CLASS_BINARY:
                if (c.size != n || memcmp(out, data, n) != 0)
                        abort();
                /* The canonical bytes are classified as the raw ones were:
                 * binary stays binary, so what is credited does not depend
                 * on a terminator. */
                if (c.class == CREDENTIAL_CLASS_BINARY) {
                        uint8_t *o2 = malloc(n ? n : 1);

                        if (!o2)
                                abort();
                        credential_canonicalize(out, n, o2, &again);
                        if (again.class != CREDENTIAL_CLASS_BINARY || again.size != n || memcmp(o2, out, n) != 0)
                                abort();
                        free(o2);
                }
                break;
        default:
                abort();
        }
        free(out);

        (void) credential_memory_parse(raw, size, &m);
        free(raw);
        return 0;
}
