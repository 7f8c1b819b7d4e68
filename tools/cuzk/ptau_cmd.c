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

#include "cuzk.h"
#include "util/error.h"
#include "ff/fr.h"
#include "groth16/ptau.h"

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

static int parse_uint(const char *s, unsigned max, unsigned *v) {
    char *end;
    unsigned long x = strtoul(s, &end, 10);
    if (*s == '\0' || *end != '\0' || x > max) return 0;
    *v = (unsigned)x;
    return 1;
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
    unsigned power = 0, threads = 0;
    int have_power = 0;
    const char *seed = DEFAULT_SEED, *out = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc) {
            fprintf(stderr, "cuzk ptau new: %s needs a value\n", a);
            return usage();
        }
        const char *v = argv[++i];
        if (strcmp(a, "--power") == 0) {
            if (!parse_uint(v, CUZK_PTAU_MAX_POWER, &power) || power < 1) {
                fprintf(stderr, "cuzk ptau new: --power must be 1..%u, not '%s'\n",
                        CUZK_PTAU_MAX_POWER, v);
                return 2;
            }
            have_power = 1;
        } else if (strcmp(a, "--seed") == 0) {
            seed = v;
        } else if (strcmp(a, "--threads") == 0) {
            if (!parse_uint(v, 4096, &threads)) {
                fprintf(stderr, "cuzk ptau new: bad --threads '%s'\n", v);
                return 2;
            }
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            out = v;
        } else {
            fprintf(stderr, "cuzk ptau new: unknown option '%s'\n", a);
            return usage();
        }
    }
    if (!have_power || out == NULL) return usage();

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
    return usage();
}
