# SPDX-License-Identifier: LGPL-2.1-or-later
# Tests of the seed helper: its pure core (unit, fuzz) and the entropy-seed binary (cli).
