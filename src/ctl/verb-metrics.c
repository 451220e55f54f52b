// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropyctl metrics [--output=FILE] [--json=]: this boot's results for
 * Prometheus, or as one JSON object.
 * node_exporter's textfile collector reads every *.prom file of one
 * directory at each scrape; entropy-gate-metrics.service writes ours there
 * once per boot, after entropy-ready.target. */
#include <fcntl.h>
#include <sys/stat.h>

#include "boot-journal.h"
#include "config.h"
#include "ctl.h"
#include "log.h"
#include "machine-id.h"
#include "macro.h"
#include "metrics.h"
#include "output.h"
#include "paths.h"
#include "pool.h"
#include "provenance.h"
#include "root.h"
#include "runstate.h"
#include "seed-store.h"

/* The age of the seed file as entropy-seed finds it; -1 when there is none
 * or it cannot be seen. Never read: its age is all a fleet needs. */
static int64_t seed_file_age(void) {
        _cleanup_close_ int dfd = -EBADF;
        usec_t now, mtime;
        struct stat st;
        Config c;
        int r;

        r = config_load(&c, log_config_warning, NULL);
        if (r >= 0)
                dfd = root_open(c.seed_dir, CHASE_DIRECTORY);
        config_done(&c);
        if (r < 0 || dfd < 0 || fstatat(dfd, SEED_FILE_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                return -1;
        now = now_usec(CLOCK_REALTIME);
        mtime = (usec_t) st.st_mtim.tv_sec * USEC_PER_SEC + (usec_t) st.st_mtim.tv_nsec / NSEC_PER_USEC;
        return now > mtime ? (int64_t) (now - mtime) : 0;
}

static int first_boot(void) {
        _cleanup_close_ int fd = -EBADF;
        MachineId m;

        machine_id_read(&m);
        if (m.state == MACHINE_ID_UNINITIALIZED)
                return 1;
        fd = root_open_path("/run/systemd/first-boot", CHASE_NOFOLLOW);
        return fd >= 0 || fd == -ELOOP ? 1 : fd == -ENOENT ? 0 : -1;
}

int verb_metrics(int argc, char *argv[], const CtlArgs *a) {
        MetricsFacts m = { .version = PROJECT_VERSION };
        BootJournal j = {};
        ProvenanceFacts pf;
        Provenance prov;
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        FILE *f;
        int r;

        r = pool_probe_ready();
        m.pool_initialized = r < 0 ? -1 : r > 0;
        r = boot_journal_read(&j);
        if (r < 0) {
                boot_journal_done(&j);
                return log_error_errno(r, "Failed to read the journal: %m"), CTL_EXIT_FAILURE;
        }
        m.crng_found = j.crng_init.found;
        m.crng_usec = j.crng_init.usec;
        m.have_gate = gate_record_read(&m.gate) > 0;
        m.have_seed = seed_record_read(&m.seed) > 0;
        r = provenance_facts_gather(&pf, m.pool_initialized, &j, m.have_seed ? &m.seed : NULL,
                                    m.have_gate ? &m.gate : NULL);
        boot_journal_done(&j);
        if (r < 0)
                return log_error_errno(r, "Out of memory."), CTL_EXIT_FAILURE;
        provenance_decide(&pf, &prov);
        m.ready_source = prov.verdict;
        m.seed_file_age_usec = seed_file_age();
        m.first_boot = first_boot();

        f = open_memstream(&text, &size);
        if (!f)
                return log_error_errno(-ENOMEM, "Out of memory."), CTL_EXIT_FAILURE;
        if (a->json != JSON_FORMAT_OFF)
                metrics_write_json(f, a->json, &m);
        else
                metrics_write(f, &m);
        if (fclose(f) != 0)
                return log_error_errno(-ENOMEM, "Out of memory."), CTL_EXIT_FAILURE;

        /* -q: as for plot. */
        if (a->quiet && !a->output && a->json == JSON_FORMAT_OFF)
                return CTL_EXIT_OK;
        r = output_write(a->output, text, size);
        if (r == -EEXIST)
                return log_error("%s is not a regular file: not replaced.", a->output), CTL_EXIT_FAILURE;
        if (r < 0)
                return log_error_errno(r, "Failed to write the metrics to %s: %m", a->output ?: "standard output"),
                        CTL_EXIT_FAILURE;
        return CTL_EXIT_OK;
}
