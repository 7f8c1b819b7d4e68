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
            "NAME\n"
            "    cuzk - a Groth16 prover for BLS12-381 (CPU and CUDA)\n"
            "\n"
            "SYNOPSIS\n"
            "    cuzk COMMAND [ARGS]\n"
            "    cuzk --help | help | version\n"
            "\n"
            "DESCRIPTION\n"
            "    Proves and verifies Groth16 proofs over BLS12-381: snarkjs keys (.zkey)\n"
            "    with circom witnesses, and bellman/Filecoin parameters (.params) over\n"
            "    our circuit files, one 192-byte proof per partition. Every proof is\n"
            "    verified before it is written, and every output is written whole or\n"
            "    not at all. The commands are clients of libcuzk (include/cuzk.h).\n"
            "\n"
            "PROVING AND VERIFYING\n"
            "    groth16 prove KEY.zkey WITNESS.wtns PROOF.json PUBLIC.json\n"
            "            [--backend cpu|gpu|auto] [--threads N] [--r1cs CIRCUIT.r1cs] [--verbose]\n"
            "        A proof, as `snarkjs groth16 prove` writes it. --r1cs (or a .r1cs\n"
            "        beside the key) names the first constraint a witness fails.\n"
            "    groth16 verify VK.json PUBLIC.json PROOF.json\n"
            "        Verifies a snarkjs or cuzk proof (stricter than snarkjs).\n"
            "    zkey export verificationkey KEY.zkey VK.json\n"
            "    prove --circuit C --params P --witness W0 [W1 ...] -o PROOF.bin\n"
            "            [--backend cpu|gpu|auto] [--device N | --devices all|N,M,...]\n"
            "            [--lanes N] [--threads N] [--no-verify] [--verbose]\n"
            "        Bellman proofs, one 192-byte partition per witness, spread over the\n"
            "        listed GPUs (--devices) or N CPU lanes (--lanes).\n"
            "    verify (--vk V | --params P) --inputs IN0 [IN1 ...] PROOF.bin\n"
            "        Verifies each partition against its public inputs (a witness\n"
            "        file, or text with one number a line).\n"
            "\n"
            "FILES AND KEYS\n"
            "    info [--check-points] [--circuit C] [--no-checksum] FILE\n"
            "        What a file holds (our circuit or witness, .params, .vk, zkey, wtns,\n"
            "        r1cs, ptau, snarkjs JSON), its size and checksum, and what is wrong\n"
            "        with it, with the offset.\n"
            "    wtns check CIRCUIT.r1cs WITNESS.wtns\n"
            "        Names the first constraint a witness fails.\n"
            "    import CIRCUIT.r1cs -o OUT.cuzk [WITNESS.wtns -w OUT.wit]...\n"
            "        A circom circuit and its witnesses as our files (checked).\n"
            "    gen-circuit --profile porep|dense|sha --log-constraints K -o DIR\n"
            "            [--partitions N] [--boolean-fraction F] [--seed S] [--threads N]\n"
            "        A synthetic circuit DIR/circuit.cuzk and witnesses DIR/w<i>.wit.\n"
            "    setup CIRCUIT -o OUT.params [--vk OUT.vk] [--seed HEX] [--threads N]\n"
            "            [--backend cpu|gpu|auto]\n"
            "        Development parameters for our circuit file (NOT FOR PRODUCTION).\n"
            "    ptau new --power P [--seed S] -o OUT.ptau\n"
            "        Development powers of tau for snarkjs (NOT FOR PRODUCTION).\n"
            "\n"
            "THE DAEMON'S CLIENT\n"
            "    submit [--addr A] --key K [--priority P] [--request-id R]\n"
            "            (--witness FILE.. | --witness-path SERVER_PATH..)... [--json]\n"
            "        Submits a job to a running `cuzk daemon` and prints its id.\n"
            "    await [--addr A] ID [--timeout S] [-o PROOF] [--public PUBLIC] [--json]\n"
            "        Waits for a job to end and writes its proofs.\n"
            "    prove --addr A --key K --witness FILE.. [-o PROOF] [--public PUBLIC]\n"
            "        submit and await in one: the daemon proves.\n"
            "    cancel [--addr A] ID\n"
            "    jobs [--addr A] [--state S[,S]] [--after ID] [--limit N] [--json]\n"
            "    status [--addr A] [--json]\n"
            "        Cancels a job; lists jobs; the daemon's keys, jobs and engine.\n"
            "        Each takes --token-file F (the bearer token over TCP) and --help.\n"
            "\n"
            "CHECKS AND BENCHMARKS\n"
            "    version     the version and the CPU kernels in use\n"
            "    selftest    known answers and random checks of the arithmetic\n"
            "    bench field [--json] [--iters N] [--clock cpu|wall]\n"
            "    bench ntt [--log N|A-B]... [--threads T] [--reps R] [--all] [--json]\n"
            "    bench msm [--log N]... [--g1] [--g2] [--threads T] [--reps R]\n"
            "              [--backend cpu|gpu] [--copies K] [--no-batch-add]\n"
            "    bench prove --zkey K --wtns W [--threads T] [--reps R] [--json]\n"
            "    bench prove --circuit C --params P --witness W.. [--partitions N] [--no-stage]\n"
            "    bench batch (--zkey K --wtns W | --circuit C (--params P | --setup-seed HEX)\n"
            "              --witness W..)\n"
            "              [--jobs J] [--partitions N] [--workers W] [--backend cpu|gpu|auto]\n"
            "              [--lanes L | --devices all|N,M,...] [--fault STAGE:N] [--svg FILE]\n"
            "              [--json]\n"
            "        Times of the arithmetic, NTTs, MSMs and whole proofs by stage; batch:\n"
            "        many jobs through the engine (seconds per proof, job latencies, stage\n"
            "        sums, each GPU's busy fraction and partitions from its timeline, jobs\n"
            "        completed and proofs returned; --svg FILE draws it; --workers W per\n"
            "        GPU or CPU lane; --devices the GPUs, as for prove; --fault STAGE:N\n"
            "        fails the Nth launch of a kernel stage, e.g. msm_h:7, as a device\n"
            "        error: the partition is retried on another lane).\n"
            "    bench stress [--addr A] --clients C --jobs J --key K\n"
            "              (--witness FILE.. | --witness-path P..) [--priority P] [--json]\n"
            "        C clients prove J jobs through a daemon: jobs and partitions a second,\n"
            "        latency percentiles, errors by HTTP status.\n"
            "\n"
            "OPTIONS\n"
            "    --backend auto (the default) proves on a GPU when one is present and\n"
            "    the key's domain is at least 2^16, else on the CPU. --threads 0 means\n"
            "    every core. A bad option is named with what it accepts.\n"
            "\n"
            "ENVIRONMENT\n"
            "    CUZK_NO_ASM=1       the portable C field kernels instead of the x86-64\n"
            "                        BMI2/ADX and AVX-512 IFMA ones (`cuzk version`\n"
            "                        names the kernels in use)\n"
            "    CUZK_BENCH_ITERS=N  bench field: each batch lasts N x 4 ms (--iters)\n"
            "    CUZK_BENCH_CLOCK    bench field: cpu or wall (--clock)\n"
            "    CUZK_ADDR           the daemon's address for its client (--addr; default\n"
            "                        unix:/run/cuzk/cuzk.sock)\n"
            "    CUZK_TOKEN          the bearer token for its client (--token-file)\n"
            "\n"
            "EXIT STATUS\n"
            "    0   success (for verify: every proof valid)\n"
            "    1   a proof that does not verify, or a witness that does not satisfy\n"
            "        its circuit; a daemon's job that failed or was cancelled\n"
            "    2   a usage error or bad input: an unreadable or malformed file, a\n"
            "        corrupt key (named with its offset), counts that disagree, an\n"
            "        output that is also an input; for the daemon's client, a request\n"
            "        refused or no connection (named with the address)\n"
            "    3   await, prove --addr: the job did not end within --timeout\n");
    return f == stdout ? 0 : 2;
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
    {"batch", cuzk__bench_batch},
    {"stress", cuzk__bench_stress},
};

static int cmd_bench(int argc, char **argv) {
    for (size_t i = 0; argc >= 1 && i < sizeof(benches) / sizeof(benches[0]); i++)
        if (strcmp(argv[0], benches[i].name) == 0) return benches[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "cuzk bench: %s%s%s: must be field, ntt, msm, prove, batch or stress\n",
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
    {"daemon", cuzk__cmd_daemon},
    {"prove", cuzk__cmd_prove},
    {"verify", cuzk__cmd_verify},
    {"submit", cuzk__cmd_submit},
    {"await", cuzk__cmd_await},
    {"cancel", cuzk__cmd_cancel},
    {"jobs", cuzk__cmd_jobs},
    {"status", cuzk__cmd_status},
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
