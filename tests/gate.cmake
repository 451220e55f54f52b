# SPDX-License-Identifier: LGPL-2.1-or-later
eg_unit_test(test-notify)
