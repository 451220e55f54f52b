// SPDX-License-Identifier: LGPL-2.1-or-later
/* Test-only: BLAKE2s over inputs given as text, so that a script can compare
 * our implementation with another one (tests/cli/blake2s-vs-python.py).
 *
 * Each stdin line: OUTLEN KEYHEX DATAHEX SPLIT1 SPLIT2
 * ("-" for an empty hex string). The data is fed to blake2s_update() in
 * three pieces cut at SPLIT1 and SPLIT2. Each output line is the digest in
 * hex, or "error" when our API rejects the parameters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blake2s.h"
#include "macro.h"

static int unhex(const char *s, uint8_t **ret, size_t *ret_size) {
        size_t l = streq(s, "-") ? 0 : strlen(s);
        uint8_t *buf;

        if (l % 2 != 0)
                return -EINVAL;
        buf = malloc(l / 2 + 1);
        if (!buf)
                return -ENOMEM;
        for (size_t i = 0; i < l / 2; i++) {
                unsigned v;
                if (sscanf(s + 2 * i, "%2x", &v) != 1) {
                        free(buf);
                        return -EINVAL;
                }
                buf[i] = (uint8_t) v;
        }
        *ret = buf;
        *ret_size = l / 2;
        return 0;
}

int main(void) {
        char *line = NULL;
        size_t allocated = 0;
        unsigned long lineno = 0;

        while (getline(&line, &allocated, stdin) > 0) {
                char key_hex[200], data_hex[20000];
                size_t outlen, split1, split2, keylen, datalen;
                _cleanup_free_ uint8_t *key = NULL, *data = NULL;
                uint8_t digest[BLAKE2S_OUTBYTES];
                Blake2s s;

                lineno++;
                if (sscanf(line, "%zu %199s %19999s %zu %zu", &outlen, key_hex, data_hex, &split1, &split2) != 5 ||
                    unhex(key_hex, &key, &keylen) < 0 || unhex(data_hex, &data, &datalen) < 0 ||
                    split1 > split2 || split2 > datalen) {
                        fprintf(stderr, "line %lu: malformed\n", lineno);
                        free(line);
                        return 2;
                }

                if (blake2s_init_key(&s, outlen, key, keylen) < 0) {
                        puts("error");
                        continue;
                }
                blake2s_update(&s, data, split1);
                blake2s_update(&s, data + split1, split2 - split1);
                blake2s_update(&s, data + split2, datalen - split2);
                blake2s_final(&s, digest);
                for (size_t i = 0; i < outlen; i++)
                        printf("%02x", digest[i]);
                putchar('\n');
        }
        free(line);
        return ferror(stdin) ? 1 : 0;
}
