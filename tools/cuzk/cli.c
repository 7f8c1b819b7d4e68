/* cli.c — see cli.h. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cuzk__cli_fail(const char *cmd, const cuzk_error *err) {
    fprintf(stderr, "cuzk %s: %s\n", cmd, cuzk_error_text(err));
    return err->status == CUZK_ERR_PROOF_INVALID || err->status == CUZK_ERR_WITNESS_UNSATISFIED
               ? 1
               : 2;
}

int cuzk__cli_backend_kind(const char *cmd, const char *name, cuzk_backend_kind *kind) {
    if (strcmp(name, "cpu") == 0) {
        *kind = CUZK_BACKEND_CPU;
    } else if (strcmp(name, "auto") == 0) {
        *kind = CUZK_BACKEND_AUTO;
    } else if (strcmp(name, "gpu") == 0) {
        *kind = CUZK_BACKEND_GPU;
    } else {
        fprintf(stderr, "cuzk %s: --backend '%s': must be cpu, gpu or auto\n", cmd, name);
        return 0;
    }
    return 1;
}
