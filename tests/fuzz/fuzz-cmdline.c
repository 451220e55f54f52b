// SPDX-License-Identifier: LGPL-2.1-or-later
/* The kernel command line decides whether seeds are credited and whether
 * the initrd waits; anyone who controls the boot loader's entry writes it.
 * Every reader of it, on any bytes: the splitter (quotes, 0xA0, "--"), each
 * question asked of it, the entropy_gate.* layer of the configuration, and
 * the bounded read of /proc/cmdline into the fixed buffer the boot path
 * uses and into the heap, at and around both bounds. No read may go past
 * the bytes read, and every answer must be a piece of the input. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzz-root.h"
#include "fuzz.h"
#include "gate.h"
#include "proc-cmdline.h"

static const char *const keys[] = {
        "entropy_gate.credit", "entropy_gate.timeout", "entropy_gate.units", "entropy_gate.initrd",
        "random.trust_cpu", "a", "-", "",
};

static void check_value(const char *text, size_t size, const char *value) {
        size_t l;

        if (!value)
                return;
        l = strlen(value);
        if (l > size)
                abort();
        /* A value is a piece of the text (quotes taken away at its ends). */
        if (l > 0 && !memmem(text, size, value, l))
                abort();
}

static void questions(const char *text, size_t size) {
        char *invalid = NULL;
        Config c;
        int r;

        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
                char *value = NULL;

                r = proc_cmdline_get_key(text, keys[i], &value);
                if (r < 0 || r > 1 || (r == 0 && value))
                        abort();
                check_value(text, size, value);
                free(value);
        }
        (void) proc_cmdline_may_set_credential(text, "entropy-gate.seed");
        r = gate_initrd_enabled(text, &invalid);
        if (r < 0 || r > 1 || (invalid && r != 1))
                abort();
        check_value(text, size, invalid);
        free(invalid);

        if (config_init(&c) < 0 || config_apply_cmdline(&c, text, NULL, NULL) < 0)
                abort();
        config_done(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static char buf[2048 + 2];   /* config.c's: COMMAND_LINE_SIZE and the bounded read's 2 bytes */
        char *text, *heap = NULL;
        int r;

        /* As text, the way callers hold it: NUL-terminated, nothing after. */
        text = malloc(size + 1);
        if (!text)
                return 0;
        if (size > 0)
                memcpy(text, data, size);
        text[size] = 0;
        questions(text, strlen(text));

        /* As the file it comes from. */
        fuzz_root_write("/proc/cmdline", data, size);
        r = proc_cmdline_read_into(buf, sizeof(buf));
        if (r == 0) {
                if (size > sizeof(buf) - 2 || (size > 0 && memcmp(buf, data, strnlen(buf, size)) != 0))
                        abort();
                questions(buf, strlen(buf));
        } else if (r != -E2BIG || size <= sizeof(buf) - 2)
                abort();
        r = proc_cmdline_read(&heap);
        if (r == 0) {
                if (size > 0 && memcmp(heap, data, strnlen(heap, size)) != 0)
                        abort();
                free(heap);
        } else if (r != -E2BIG && r != -EFBIG)
                abort();

        free(text);
        return 0;
}
