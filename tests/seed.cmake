# SPDX-License-Identifier: LGPL-2.1-or-later
# Tests of the seed helper: its pure core (unit, fuzz) and the entropy-seed binary (cli).

# The pure core: BLAKE2s, the seed file format, the credit decision.
eg_unit_test(test-blake2s)
eg_unit_test(test-seed-file)
eg_unit_test(test-credit)
