/*
 * main.c — the cuzk command: one binary, subcommands. Each subcommand lives
 * in its own file (tools/cuzk/NAME_cmd.c, bench/bench_NAME.c) and parses its own
 * arguments; this file only dispatches, prints the overview and applies the
 * environment (the library itself reads none).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "commands.h"
#include "cuzk.h"

static int usage(FILE *f) {
    fprintf(f,
            "usage: cuzk <command> [args]\n"
            "  version           print the version and the CPU kernels in use\n"
            "  selftest          known-answer and random checks of the arithmetic stack\n"
            "  info [--check-points] [--circuit C] [--no-checksum] FILE\n"
            "                    what a file holds (our circuit or witness, bellman .params or\n"
            "                    .vk, zkey, wtns, r1cs, ptau, snarkjs JSON), its size and\n"
            "                    checksum, and what is wrong with it, with the offset\n"
            "  groth16 prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
            "                    prove (snarkjs-compatible; --threads N, --r1cs FILE)\n"
            "  groth16 verify <verification_key.json> <public.json> <proof.json>\n"
            "                    verify a snarkjs or cuzk proof (exit 0 valid, 1 invalid)\n"
            "  zkey export verificationkey <circuit.zkey> <verification_key.json>\n"
            "  wtns check <circuit.r1cs> <witness.wtns>\n"
            "                    name the first constraint a witness fails\n"
            "  ptau new --power P [--seed S] -o out.ptau\n"
            "                    development prepared powers of tau for snarkjs (NOT FOR PRODUCTION)\n"
            "  gen-circuit --profile porep|dense|sha --log-constraints K -o DIR [--partitions N]\n"
            "                    synthetic circuit DIR/circuit.cuzk and witnesses DIR/w<i>.wit\n"
            "  import CIRCUIT.r1cs -o OUT.cuzk [WITNESS.wtns -w OUT.wit]...\n"
            "                    a circom circuit and witnesses into our files (checked)\n"
            "  setup CIRCUIT -o OUT.params [--vk OUT.vk] [--threads N] [--seed HEX]\n"
            "                    development Groth16 .params for our circuit file (NOT FOR PRODUCTION)\n"
            "  prove --circuit C --params P --witness W0 [W1 ...] -o proof.bin [--threads N]\n"
            "        [--backend cpu|gpu|auto] [--no-verify] [--verbose]\n"
            "                    bellman proofs, one 192-byte partition per witness, self-verified\n"
            "  verify (--vk V | --params P) --inputs IN0 [IN1 ...] proof.bin\n"
            "                    verify each partition (inputs: witness or text files; exit 0/1/2)\n"
            "  bench field [--json] [--iters N] [--clock cpu|wall]\n"
            "                    time field, group and pairing operations (doc/bench.md)\n"
            "  bench ntt [--log N|A-B]... [--threads T] [--reps R] [--all] [--json]\n"
            "                    ms per NTT over Fr (default 2^16..2^22) against the mul floor\n"
            "  bench msm [--log N]... [--g1] [--g2] [--threads T] [--reps R] [--no-batch-add]\n"
            "                    ms per CPU MSM (G1 2^10..2^18, G2 2^10..2^14; 1 and all threads);\n"
            "                    --backend gpu [--copies K]: on the GPU, with K shifted copies\n"
            "                    of the bases\n"
            "  bench prove --zkey K --wtns W [--threads T] [--reps R] [--json]\n"
            "  bench prove --circuit C --params P --witness W.. [--partitions N] [--reps R] [--no-stage]\n"
            "                    per-stage times of whole proofs\n"
            "environment:\n"
            "  CUZK_NO_ASM=1     use the portable C field kernels instead of the x86-64\n"
            "                    BMI2/ADX and AVX-512 IFMA ones (unset or 0: the best the\n"
            "                    CPU has; `cuzk version` names the kernels in use)\n");
    return f == stderr ? 2 : 0;
}

typedef int (*command_fn)(int argc, char **argv);

static const struct {
    const char *name;
    command_fn fn;
} benches[] = {
    {"field", cuzk__bench_field},
    {"ntt", cuzk__bench_ntt},
    {"msm", cuzk__bench_msm},
    {"prove", cuzk__bench_prove},
};

static int cmd_bench(int argc, char **argv) {
    for (size_t i = 0; argc >= 1 && i < sizeof(benches) / sizeof(benches[0]); i++)
        if (strcmp(argv[0], benches[i].name) == 0) return benches[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "cuzk bench: %s%s%s: must be field, ntt, msm or prove\n",
            argc >= 1 ? "unknown benchmark '" : "no benchmark given", argc >= 1 ? argv[0] : "",
            argc >= 1 ? "'" : "");
    return 2;
}

static int cmd_version(int argc, char **argv) {
    if (argc >= 1) {
        fprintf(stderr, "cuzk version: takes no arguments, not '%s'\n", argv[0]);
        return 2;
    }
    printf("cuzk %s (field kernels: %s)\n", cuzk_version(),
           cuzk_cpu_kernels());
    return 0;
}

static const struct {
    const char *name;
    command_fn fn;
} commands[] = {
    {"version", cmd_version},
    {"selftest", cuzk__selftest_main},
    {"info", cuzk__cmd_info},
    {"groth16", cuzk__cmd_groth16},
    {"zkey", cuzk__cmd_zkey},
    {"wtns", cuzk__cmd_wtns},
    {"ptau", cuzk__cmd_ptau},
    {"gen-circuit", cuzk__cmd_gen_circuit},
    {"setup", cuzk__cmd_setup},
    {"import", cuzk__cmd_import},
    {"prove", cuzk__cmd_prove},
    {"verify", cuzk__cmd_verify},
    {"bench", cmd_bench},
};

/* CUZK_NO_ASM set to anything but "" or "0": the portable kernels, before any
 * arithmetic runs. */
static void apply_environment(void) {
    const char *v = getenv("CUZK_NO_ASM");
    if (v != NULL && v[0] != '\0' && strcmp(v, "0") != 0) cuzk_cpu_force_portable(1);
}

int main(int argc, char **argv) {
    apply_environment();
    if (argc < 2) return usage(stderr);
    if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "-h") == 0)
        return usage(stdout);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].fn(argc - 2, argv + 2);
    fprintf(stderr, "cuzk: unknown command '%s' (cuzk --help lists them)\n", argv[1]);
    return 2;
}
