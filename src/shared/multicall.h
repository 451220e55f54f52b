/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The front ends' bodies. Each binary's main() calls its own; with
 * ENTROPY_GATE_MULTICALL=ON one binary holds both (flash is scarce on
 * routers: the shared code and libc's pieces are there once) and picks by
 * the name it was run as, entropy-seed being a link to entropy-gate. */
int entropy_gate_main(int argc, char *argv[]);
int entropy_seed_main(int argc, char *argv[]);
