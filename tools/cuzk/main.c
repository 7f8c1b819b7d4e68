/* main.c — the cuzk command: one binary, subcommands. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cuzk.h"
#include "selftest.h"

static int usage(FILE *f) {
    fprintf(f,
            "usage: cuzk <command> [args]\n"
            "  version           print the version and the CPU kernels in use\n"
            "  selftest          known-answer and random checks of the arithmetic stack\n"
            "  bench field [--json] [--iters N] [--clock cpu|wall]\n"
            "                    time field, group and pairing operations (doc/bench.md)\n");
    return f == stderr ? 2 : 0;
}

/* cuzk bench <name> [args]: each bench parses its own arguments. */
static int cmd_bench(int argc, char **argv) {
    if (argc < 1) return usage(stderr);
    if (strcmp(argv[0], "field") == 0) return cuzk__bench_field(argc - 1, argv + 1);
    fprintf(stderr, "cuzk bench: unknown benchmark '%s'\n", argv[0]);
    return usage(stderr);
}

int main(int argc, char **argv) {
    if (argc < 2) return usage(stderr);
    if (strcmp(argv[1], "version") == 0) {
        printf("cuzk %s (field kernels: %s)\n", cuzk_version(),
               (cuzk_cpu_features() & CUZK_CPU_ADX) ? "x86-64 BMI2/ADX" : "portable C");
        return 0;
    }
    if (strcmp(argv[1], "selftest") == 0) return cuzk__selftest_main(argc - 2, argv + 2);
    if (strcmp(argv[1], "bench") == 0) return cmd_bench(argc - 2, argv + 2);
    if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0) return usage(stdout);
    fprintf(stderr, "cuzk: unknown command '%s'\n", argv[1]);
    return usage(stderr);
}
