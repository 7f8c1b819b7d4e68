/*
 * ptau_cmd.c — `cuzk ptau new`: a development powers-of-tau file for
 * snarkjs (src/groth16/ptau.h). NOT FOR PRODUCTION: the secrets come from the
 * seed and are printed.
 *
 *   cuzk ptau new --power P [--seed S] [--threads N] -o out.ptau
 *
 * Exit status: 0 written, 2 usage or write error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "cuzk.h"
#include "util/error.h"
#include "ff/fr.h"
#include "groth16/ptau.h"
#include "opt.h"

int cuzk__cmd_ptau(int argc, char **argv);

#define DEFAULT_SEED "cuzk-dev"

static int usage(void) {
    fprintf(stderr,
            "usage: cuzk ptau new --power P [--seed S] [--threads N] -o out.ptau\n"
            "  writes a snarkjs-compatible prepared powers of tau (BLS12-381, sections\n"
            "  1-7 and 12-15) whose secrets tau, alpha, beta are derived from S\n"
            "  (default \"" DEFAULT_SEED "\"). NOT FOR PRODUCTION: test keys only.\n");
    return 2;
}

static void print_fr(FILE *f, const char *name, const cuzk_fr *a) {
    uint8_t be[CUZK_FR_BYTES];
    cuzk_fr_to_bytes_be(be, a);
    fprintf(f, "  %-5s = 0x", name);
    for (int i = 0; i < CUZK_FR_BYTES; i++) fprintf(f, "%02x", be[i]);
    fputc('\n', f);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmd_new(int argc, char **argv) {
    static const char cmd[] = "cuzk ptau new";
    unsigned power = 0, threads = 0;
    int have_power = 0;
    const char *seed = DEFAULT_SEED, *out = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage();
            return 0;
        }
        if (strcmp(a, "--power") != 0 && strcmp(a, "--seed") != 0 &&
            strcmp(a, "--threads") != 0 && strcmp(a, "-o") != 0 && strcmp(a, "--output") != 0)
            return cuzk__opt_unknown(cmd, a);
        const char *v = cuzk__opt_value(cmd, argc, argv, &i);
        if (v == NULL) return 2;
        if (strcmp(a, "--power") == 0) {
            if (!cuzk__opt_uint(cmd, a, v, 1, CUZK_PTAU_MAX_POWER, &power)) return 2;
            have_power = 1;
        } else if (strcmp(a, "--seed") == 0) {
            seed = v;
        } else if (strcmp(a, "--threads") == 0) {
            if (!cuzk__opt_uint(cmd, a, v, 0, 4096, &threads)) return 2;
        } else {
            out = v;
        }
    }
    if (!have_power)
        return cuzk__opt_fail(cmd, "--power P is required (1..%u)", CUZK_PTAU_MAX_POWER);
    if (out == NULL) return cuzk__opt_fail(cmd, "-o out.ptau is required");
    if (!cuzk__cli_output_ok(out, "ptau new")) return 2; /* before the work */

    cuzk_ptau_secrets s;
    cuzk_ptau_secrets_from_seed(&s, seed, strlen(seed));
    fprintf(stderr,
            "cuzk ptau new: WARNING: NOT FOR PRODUCTION. Development powers of tau: its toxic\n"
            "waste is derived from the seed \"%s\" and printed here; anyone can forge\n"
            "proofs for keys made from %s.\n",
            seed, out);
    print_fr(stderr, "tau", &s.tau);
    print_fr(stderr, "alpha", &s.alpha);
    print_fr(stderr, "beta", &s.beta);

    cuzk_error err;
    double t0 = now_s();
    cuzk_status st = cuzk_ptau_write_dev(out, power, &s, threads, &err);
    if (st != CUZK_OK) {
        fprintf(stderr, "cuzk ptau new: %s\n", cuzk__error_text(&err));
        return 2;
    }
    fprintf(stderr, "cuzk ptau new: wrote %s: power %u, %llu bytes, %.2f s\n", out, power,
            (unsigned long long)cuzk_ptau_file_bytes(power), now_s() - t0);
    return 0;
}

int cuzk__cmd_ptau(int argc, char **argv) {
    if (argc >= 1 && strcmp(argv[0], "new") == 0) return cmd_new(argc - 1, argv + 1);
    if (argc >= 1 && (strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "--help") == 0)) {
        usage();
        return 0;
    }
    if (argc >= 1)
        fprintf(stderr, "cuzk ptau: unknown subcommand '%s' (there is: new)\n", argv[0]);
    return usage();
}
