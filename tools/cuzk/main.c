/* main.c — the cuzk command: one binary, subcommands. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cuzk.h"
#include "commands.h"

int cuzk__bench_ntt(int argc, char **argv); /* bench/bench_ntt.c */

static int usage(FILE *f) {
    fprintf(f,
            "usage: cuzk <command> [args]\n"
            "  version           print the version and the CPU kernels in use\n"
            "  selftest          known-answer and random checks of the arithmetic stack\n"
            "  groth16 prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
            "                    prove (snarkjs-compatible; --threads N, --r1cs FILE)\n"
            "  groth16 verify <verification_key.json> <public.json> <proof.json>\n"
            "                    verify a snarkjs or cuzk proof (exit 0 valid, 1 invalid)\n"
            "  zkey export verificationkey <circuit.zkey> <verification_key.json>\n"
            "  wtns check <circuit.r1cs> <witness.wtns>\n"
            "                    name the first constraint a witness fails\n"
            "  bench field [--json] [--iters N] [--clock cpu|wall]\n"
            "                    time field, group and pairing operations (doc/bench.md)\n"
            "  bench ntt [--log N|A-B]... [--threads T] [--reps R] [--all] [--json]\n"
            "                    ms per NTT over Fr (default 2^16..2^22) against the mul floor\n"
            "  bench msm [--log N]... [--g1] [--g2] [--threads T] [--reps R] [--no-batch-add]\n"
            "                    ms per CPU MSM (G1 2^10..2^18, G2 2^10..2^14; 1 and all threads)\n");
    return f == stderr ? 2 : 0;
}

int cuzk__bench_msm(int argc, char **argv); /* bench/bench_msm.c */

/* cuzk bench <name> [args]: each bench parses its own arguments. */
static int cmd_bench(int argc, char **argv) {
    if (argc < 1) return usage(stderr);
    if (strcmp(argv[0], "field") == 0) return cuzk__bench_field(argc - 1, argv + 1);
    if (strcmp(argv[0], "ntt") == 0) return cuzk__bench_ntt(argc - 1, argv + 1);
    if (strcmp(argv[0], "msm") == 0) return cuzk__bench_msm(argc - 1, argv + 1);
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
    if (strcmp(argv[1], "groth16") == 0) return cuzk__cmd_groth16(argc - 2, argv + 2);
    if (strcmp(argv[1], "zkey") == 0) return cuzk__cmd_zkey(argc - 2, argv + 2);
    if (strcmp(argv[1], "wtns") == 0) return cuzk__cmd_wtns(argc - 2, argv + 2);
    if (strcmp(argv[1], "bench") == 0) return cmd_bench(argc - 2, argv + 2);
    if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0) return usage(stdout);
    fprintf(stderr, "cuzk: unknown command '%s'\n", argv[1]);
    return usage(stderr);
}
