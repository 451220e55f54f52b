/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The libFuzzer entry point every tests/fuzz/fuzz-*.c defines; also called
 * by fuzz-main.c, the driver used where libFuzzer is not available (gcc). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
