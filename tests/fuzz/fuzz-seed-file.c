// SPDX-License-Identifier: LGPL-2.1-or-later
/* The seed file parser gets bytes from a file anyone with access to the disk
 * (or the image) may have written. It must never read out of bounds, must say
 * why it refuses, and whatever it accepts must be exactly what the serializer
 * writes: a second encoding of the same seed would mean the checksum does not
 * cover everything that is parsed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "macro.h"
#include "seed-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        SeedFile f;
        const char *reason = NULL;
        int r;

        r = seed_file_parse(data, size, &f, &reason);
        if (r < 0) {
                if (!reason || (r != -EBADMSG && r != -EPROTONOSUPPORT && r != -EINVAL))
                        abort();
                return 0;
        }
        if (reason || f.seed_size < SEED_SIZE_MIN || f.seed_size > SEED_SIZE_MAX)
                abort();

        uint8_t *buf = NULL;
        size_t n = 0;
        if (seed_file_serialize(&f, &buf, &n) < 0)
                abort();
        if (n != size || memcmp(buf, data, size) != 0)
                abort();
        erase(buf, n);
        free(buf);

        /* The parsed seed is what load derives from. */
        uint8_t next[SEED_SIZE_MAX];
        if (seed_derive(f.seed, f.seed_size, data, size, 1, 2, next, f.seed_size) < 0)
                abort();
        erase(next, sizeof(next));
        seed_file_erase(&f);
        return 0;
}
