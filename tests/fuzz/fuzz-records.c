// SPDX-License-Identifier: LGPL-2.1-or-later
/* The records under /run/entropy-gate are read by entropyctl and by the
 * next run of entropy-seed: text anyone who could write there may have
 * written. Their parsers must never read past the text, and what they
 * accept must survive a round trip: formatting what was parsed and parsing
 * it again gives the same record, byte for byte (values are escaped
 * losslessly). The gate's entropy_avail samples parse strictly: what is
 * accepted formats back to the same text. The ledger's parser is strict: whatever it accepts, it
 * formats and parses back to the same entries. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "runstate.h"

static char text[RUNSTATE_MAX + 1], buf[RUNSTATE_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static SeedRecord s, s2;
        static Ledger l, l2;
        GateRecord g, g2;

        if (size > RUNSTATE_MAX || memchr(data, 0, size))
                return 0;
        memcpy(text, data, size);
        text[size] = 0;

        seed_record_parse(text, &s);
        if (seed_record_format(&s, buf, sizeof(buf)) >= 0) {
                seed_record_parse(buf, &s2);
                if (memcmp(&s, &s2, sizeof(s)) != 0)
                        abort();
        }

        /* The samples, alone and as the gate record's field. */
        static EntropySamples es;
        static char etext[ENTROPY_SAMPLES_TEXT_MAX];
        if (entropy_samples_parse(text, &es) >= 0 &&
            (entropy_samples_format(&es, etext, sizeof(etext)) < 0 || strcmp(etext, text) != 0))
                abort();

        gate_record_parse(text, &g);
        if (entropy_samples_parse(g.entropy_avail, &es) >= 0 &&
            (entropy_samples_format(&es, etext, sizeof(etext)) < 0 || strcmp(etext, g.entropy_avail) != 0))
                abort();
        if (gate_record_format(&g, buf, sizeof(buf)) >= 0) {
                gate_record_parse(buf, &g2);
                if (memcmp(&g, &g2, sizeof(g)) != 0)
                        abort();
        }

        memset(&l, 0, sizeof(l));
        if (ledger_parse(text, &l) >= 0) {
                int k = ledger_format(&l, buf, sizeof(buf));

                memset(&l2, 0, sizeof(l2));
                if (k < 0 || ledger_parse(buf, &l2) < 0 || l2.n != l.n || strcmp(l.boot_id, l2.boot_id) != 0)
                        abort();
                for (size_t i = 0; i < l.n; i++)
                        if (l.entries[i].kind != l2.entries[i].kind || strcmp(l.entries[i].id, l2.entries[i].id) != 0)
                                abort();
        }
        return 0;
}
