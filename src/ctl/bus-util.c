// SPDX-License-Identifier: LGPL-2.1-or-later
#include <unistd.h>

#include "bus-util.h"
#include "macro.h"

int bus_open_manager(sd_bus **ret, char **ret_error) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus *bus = NULL;
        uint64_t v;
        int r;

        if (ret_error)
                *ret_error = NULL;
        if (geteuid() == 0 && access("/run/systemd/private", F_OK) >= 0) {
                r = sd_bus_new(&bus);
                if (r < 0)
                        return r;
                r = sd_bus_set_address(bus, "unix:path=/run/systemd/private");
                if (r >= 0)
                        r = sd_bus_start(bus);
                if (r >= 0) {
                        *ret = bus;
                        return 0;
                }
                sd_bus_unref(bus);
                bus = NULL;
        }
        r = sd_bus_open_system(&bus);
        if (r < 0)
                return r;
        /* A bus without systemd on it (a container's D-Bus) is no manager:
         * ask it something every systemd answers. */
        r = sd_bus_get_property_trivial(bus, SD_DEST, SD_PATH, SD_MANAGER, "UserspaceTimestampMonotonic",
                                        &error, 't', &v);
        if (r < 0) {
                if (ret_error && error.message)
                        *ret_error = strdup(error.message);
                sd_bus_flush_close_unref(bus);
                return r;
        }
        *ret = bus;
        return 0;
}

static int unit_path(sd_bus *bus, const char *method, const char *unit, char **ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        const char *path;
        int r;

        r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, method, &error, &reply, "s", unit);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "o", &path);
        if (r >= 0) {
                *ret = strdup(path);
                r = *ret ? 0 : -ENOMEM;
        }
        sd_bus_message_unref(reply);
        return r;
}

int unit_times(sd_bus *bus, const char *unit, UnitTimes *ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;
        UnitTimes u = { .loaded = true };
        uint64_t v;
        int r;

        r = unit_path(bus, "GetUnit", unit, &path);
        if (r < 0) {
                *ret = (UnitTimes) {};
                return r == -ENOMEM ? r : 0;
        }
        r = sd_bus_get_property_trivial(bus, SD_DEST, path, SD_UNIT, "InactiveExitTimestampMonotonic", &error, 't', &v);
        if (r >= 0)
                u.inactive_exit = v;
        sd_bus_error_free(&error);
        r = sd_bus_get_property_trivial(bus, SD_DEST, path, SD_UNIT, "ActiveEnterTimestampMonotonic", &error, 't', &v);
        if (r >= 0)
                u.active_enter = v;
        *ret = u;
        return 0;
}

int unit_before(sd_bus *bus, const char *unit, char ***ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;
        int r;

        r = unit_path(bus, "GetUnit", unit, &path);
        if (r < 0)
                return r;
        return sd_bus_get_property_strv(bus, SD_DEST, path, SD_UNIT, "Before", &error, ret);
}

int unit_state(sd_bus *bus, const char *unit, UnitState *ret) {
        static const char *const names[] = { "LoadState", "ActiveState", "SubState" };
        _cleanup_free_ char *path = NULL;
        char *values[ELEMENTSOF(names)] = {};
        int r;

        r = unit_path(bus, "LoadUnit", unit, &path);
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(names); i++) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;

                r = sd_bus_get_property_string(bus, SD_DEST, path, SD_UNIT, names[i], &error, values + i);
        }
        if (r < 0) {
                for (size_t i = 0; i < ELEMENTSOF(names); i++)
                        free(values[i]);
                *ret = (UnitState) {};
                return r;
        }
        *ret = (UnitState) { .load_state = values[0], .active_state = values[1], .sub_state = values[2] };
        return 0;
}

void unit_state_done(UnitState *s) {
        free(s->load_state);
        free(s->active_state);
        free(s->sub_state);
        *s = (UnitState) {};
}
