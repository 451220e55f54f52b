# SPDX-License-Identifier: LGPL-2.1-or-later
eg_unit_test(test-time-util)
eg_unit_test(test-proc-cmdline)
eg_unit_test(test-config)
