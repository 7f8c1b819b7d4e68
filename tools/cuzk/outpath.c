/*
 * outpath.c — refuse an output path before the work, not after: `cuzk setup`
 * at 2^27 runs for many minutes and `cuzk prove` for seconds per partition,
 * so a missing or read-only output folder is reported up front.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

int cuzk__cli_output_ok(const char *path, const char *cmd) {
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (slash == NULL) {
        snprintf(dir, sizeof dir, ".");
    } else if (slash == path) {
        snprintf(dir, sizeof dir, "/");
    } else {
        int n = snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
        if (n < 0 || (size_t)n >= sizeof dir) {
            fprintf(stderr, "cuzk %s: %s: path too long\n", cmd, path);
            return 0;
        }
    }
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "cuzk %s: cannot write %s: folder %s: %s\n", cmd, path, dir,
                strerror(errno));
        return 0;
    }
    return 1;
}
