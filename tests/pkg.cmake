# SPDX-License-Identifier: LGPL-2.1-or-later
# The packaging checks (packaging/check-packages): the .debs built twice and
# compared byte for byte, lintian, what the .debs hold, the source package
# and its builds in clean bookworm and trixie chroots with their lintian,
# the .rpms and rpmlint. Labelled "pkg": `ctest -L pkg`. They build the committed tree
# (HEAD), take minutes, and need root once to install the tools; they skip
# (exit 77, saying why) outside a git checkout or when the tools are missing
# and they are not root.
add_test(NAME packages
         COMMAND ${CMAKE_SOURCE_DIR}/packaging/check-packages --out ${CMAKE_CURRENT_BINARY_DIR}/pkg)
set_tests_properties(packages PROPERTIES
  LABELS pkg
  SKIP_RETURN_CODE 77
  RUN_SERIAL TRUE          # two package builds: no competing load
  TIMEOUT 3600)            # the chroots' first build makes their base tarballs
