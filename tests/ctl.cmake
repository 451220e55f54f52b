# SPDX-License-Identifier: LGPL-2.1-or-later
# Configuration files, the generator and entropyctl.
eg_unit_test(test-conf-parser)
