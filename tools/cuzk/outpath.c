/*
 * outpath.c — refuse an output path before the work, not after: `cuzk setup`
 * at 2^27 runs for many minutes and `cuzk prove` for seconds per partition,
 * so a missing or read-only output folder, an output that is a directory, an
 * output that is also an input, or two outputs that are one file are
 * reported up front (exit status 2), before anything is read or written.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "util/atomic_write.h"

int cuzk__cli_output_ok(const char *path, const char *cmd) {
    const cuzk__cli_files f = {"-o", &path, 1, 1};
    return cuzk__cli_files_ok(cmd, &f, 1);
}

/* "-o x" is also the "--params" input ("(./x)" when spelled otherwise). */
static void say_same(const char *cmd, const cuzk__cli_files *out, const char *op,
                     const cuzk__cli_files *other, const char *p) {
    if (other->output) /* the other output comes first on the command line */
        fprintf(stderr, "cuzk %s: %s %s and %s %s are the same file\n", cmd, other->opt, p,
                out->opt, op);
    else if (strcmp(op, p) == 0)
        fprintf(stderr, "cuzk %s: %s %s is also the %s input\n", cmd, out->opt, op, other->opt);
    else
        fprintf(stderr, "cuzk %s: %s %s is also the %s input (%s)\n", cmd, out->opt, op,
                other->opt, p);
}

int cuzk__cli_files_ok(const char *cmd, const cuzk__cli_files *files, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (!files[i].output) continue;
        for (size_t a = 0; a < files[i].n; a++) {
            const char *op = files[i].paths[a];
            if (op == NULL) continue;
            cuzk_error err;
            cuzk__error_clear(&err);
            if (cuzk__out_check(op, &err) != CUZK_OK) {
                fprintf(stderr, "cuzk %s: %s\n", cmd, cuzk__error_text(&err));
                return 0;
            }
            /* a device or FIFO written in place is no file to protect:
             * -o /dev/null twice is fine */
            if (cuzk__out_in_place(op)) continue;
            /* against every input, and every output before this one */
            for (size_t j = 0; j < n; j++) {
                for (size_t b = 0; b < files[j].n; b++) {
                    const char *p = files[j].paths[b];
                    if (p == NULL || (j == i && b == a)) continue;
                    if (files[j].output && (j > i || (j == i && b > a))) continue;
                    if (cuzk__same_file(op, p)) {
                        say_same(cmd, &files[i], op, &files[j], p);
                        return 0;
                    }
                }
            }
        }
    }
    return 1;
}
