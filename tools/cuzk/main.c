/* main.c — the cuzk command: one binary, subcommands. */
#include <stdio.h>
#include <string.h>

#include "cuzk.h"

static int usage(FILE *f) {
    fprintf(f,
            "usage: cuzk <command> [args]\n"
            "  version           print the version and the CPU kernels in use\n");
    return f == stderr ? 2 : 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return usage(stderr);
    if (strcmp(argv[1], "version") == 0) {
        printf("cuzk %s (field kernels: %s)\n", cuzk_version(),
               (cuzk_cpu_features() & CUZK_CPU_ADX) ? "x86-64 BMI2/ADX" : "portable C");
        return 0;
    }
    if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0) return usage(stdout);
    fprintf(stderr, "cuzk: unknown command '%s'\n", argv[1]);
    return usage(stderr);
}
