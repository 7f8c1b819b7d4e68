/* cli.c — see cli.h. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

/* One ordinal of a checked list into opt (0 after printing why); count: the
 * GPUs present (0: unknown, no range check). */
static int add_device(const char *cmd, cuzk_options *opt, const char *s, int single, long d,
                      int count) {
    if (count > 0 && d >= count) {
        fprintf(stderr, "cuzk %s: %s: GPU %ld requested, %d present\n", cmd,
                single ? "--device" : "--devices", d, count);
        return 0;
    }
    if (opt->n_devices == CUZK_MAX_LANES) {
        fprintf(stderr, "cuzk %s: --devices: more than %d devices in '%s'\n", cmd,
                CUZK_MAX_LANES, s);
        return 0;
    }
    opt->devices[opt->n_devices++] = (int)d;
    return 1;
}

int cuzk__cli_devices(const char *cmd, cuzk_options *opt, const char *s, int single) {
    const int count = cuzk_gpu_count();
    if (strcmp(s, "all") == 0 && !single) {
        if (count <= 0) {
            fprintf(stderr, "cuzk %s: --devices all: no CUDA device present\n", cmd);
            return 0;
        }
        for (int d = 0; d < count && opt->n_devices < CUZK_MAX_LANES; d++)
            opt->devices[opt->n_devices++] = d;
        return 1;
    }
    /* the spelling of the whole list first, then the ordinals' range */
    for (int pass = 0; pass < 2; pass++) {
        for (const char *q = s;;) {
            char *end;
            errno = 0;
            const long d = *q >= '0' && *q <= '9' ? strtol(q, &end, 10) : -1;
            if (d < 0 || errno != 0 || d > 4095 || (*end != ',' && *end != '\0') ||
                (single && *end != '\0')) {
                fprintf(stderr, "cuzk %s: %s '%s': %s\n", cmd, single ? "--device" : "--devices",
                        s, single ? "one ordinal like 1" : "all, or ordinals like 0,1");
                return 0;
            }
            if (pass == 1 && !add_device(cmd, opt, s, single, d, count)) return 0;
            if (*end == '\0') break;
            q = end + 1;
        }
    }
    return 1;
}
