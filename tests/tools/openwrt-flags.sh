# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# How OpenWrt's build system would build packaging/openwrt/Makefile, for the
# builds that stand in for it here (bench/run's size, the busybox tier's
# --musl boots). Sourced; openwrt_flags MAKEFILE sets:
#   owrt_cflags   the target's default optimization (-Os, and the
#                 CONFIG_EXTRA_OPTIMIZATION default -fno-caller-saves
#                 -fno-plt), the hardening include/hardening.mk adds under
#                 the default choices of config/Config-build.in, what
#                 package.mk adds for each PKG_BUILD_FLAGS word, and the
#                 Makefile's own TARGET_CFLAGS +=
#   owrt_ldflags  the same for the linker (TARGET_LDFLAGS +=)
#   owrt_opts     the Makefile's CMAKE_OPTIONS, one per element
# Returns non-zero, with a message, on a PKG_BUILD_FLAGS word it does not know.

# The words of a Makefile assignment to $2 ("NAME +=" or "NAME :="), with
# its continuation lines, that are plain options (no make variables).
openwrt_words() {
        awk -v name="$2" '
                !go && $1 == name && ($2 == ":=" || $2 == "+=") { go = 1; sub(/^[^=]*=/, "") }
                go { more = sub(/\\$/, ""); print; if (!more) exit }' "$1" |
                tr ' \t' '\n\n' | grep -E '^-[A-Za-z]' | grep -v -e '\$' -e '%'
}

openwrt_flags() {
        local makefile=$1 f
        owrt_cflags="-Os -fno-caller-saves -fno-plt"
        owrt_ldflags=""
        # include/hardening.mk with Config-build.in's defaults: format
        # checks, FORTIFY_SOURCE_1 (musl's own headers ignore it; OpenWrt's
        # fortify-headers would add its checks), stack protector "Regular",
        # RELRO "Full". ASLR PIE "Regular" builds as PIE only the packages
        # that set PKG_ASLR_PIE_REGULAR:=1 (those that parse the network's
        # data; "None" on small-flash targets): the others are not PIE,
        # which OpenWrt's compiler is not by default and this machine's is.
        owrt_cflags+=" -Wformat -Werror=format-security -D_FORTIFY_SOURCE=1 -fstack-protector"
        owrt_ldflags+=" -Wl,-z,now -Wl,-z,relro"
        if grep -q '^PKG_ASLR_PIE_REGULAR:=1' "$makefile"; then
                owrt_cflags+=" -fPIC"
                owrt_ldflags+=" -fPIC -pie"
        else
                owrt_cflags+=" -fno-pie"
                owrt_ldflags+=" -no-pie"
        fi
        for f in $(sed -n 's/^PKG_BUILD_FLAGS:=//p' "$makefile"); do
                case $f in
                gc-sections)
                        owrt_cflags+=" -ffunction-sections -fdata-sections"
                        owrt_ldflags+=" -Wl,--gc-sections" ;;
                lto)
                        owrt_cflags+=" -flto=auto -fno-fat-lto-objects"
                        owrt_ldflags+=" -flto=auto -fuse-linker-plugin" ;;
                *)
                        echo "PKG_BUILD_FLAGS in $makefile: no flags known for '$f'" >&2
                        return 1 ;;
                esac
        done
        f=$(openwrt_words "$makefile" TARGET_CFLAGS | tr '\n' ' ')
        owrt_cflags+=${f:+ ${f% }}
        f=$(openwrt_words "$makefile" TARGET_LDFLAGS | tr '\n' ' ')
        owrt_ldflags+=${f:+ ${f% }}
        owrt_ldflags=${owrt_ldflags# }
        # shellcheck disable=SC2034 # for the caller
        mapfile -t owrt_opts < <(openwrt_words "$makefile" CMAKE_OPTIONS)
}
