/*
 * backend_pick.c — `--backend cpu|gpu|auto` for the commands that reach a
 * backend directly (setup, bench prove). auto picks the GPU when one is
 * present, whatever the size; the commands then weigh the domain.
 */
#include <stdio.h>

#include "api/api.h"
#include "cli.h"
#include "commands.h"

const cuzk_backend_ops *cuzk__cli_backend(const char *name, const char *cmd) {
    cuzk_options o;
    cuzk_options_init(&o);
    if (!cuzk__cli_backend_kind(cmd, name != NULL ? name : "cpu", &o.backend)) return NULL;
    o.auto_gpu_min_log = 0;
    cuzk_error e;
    cuzk_backend_kind chosen;
    const cuzk_backend_ops *ops = cuzk__api_backend_ops(&o, cuzk__api_gpu_ops(), 0, &chosen, &e);
    if (ops == NULL) fprintf(stderr, "cuzk %s: %s\n", cmd, cuzk_error_text(&e));
    return ops;
}

int cuzk__cli_gpu_count(void) { return cuzk_gpu_count(); }
