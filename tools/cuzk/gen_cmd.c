/*
 * gen_cmd.c — `cuzk gen-circuit`: a synthetic circuit in our CSR circuit
 * format and satisfying witnesses (src/circuit/gen.h).
 *
 *   cuzk gen-circuit --profile porep|dense|sha --log-constraints K -o DIR
 *       [--partitions N] [--boolean-fraction F] [--seed S] [--threads N]
 *
 * Writes DIR/circuit.cuzk (doc/formats.md §1) and DIR/w0.wit .. DIR/w<N-1>.wit
 * (§2), prints the seed, the achieved statistics next to the profile's
 * targets, and the time of each step. Exit status: 0 written, 2 usage, input
 * or write error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "commands.h"
#include "cuzk.h"
#include "circuit/gen.h"
#include "opt.h"
#include "util/atomic_write.h"

static int usage(void) {
    fprintf(stderr,
            "usage: cuzk gen-circuit --profile porep|dense|sha --log-constraints K -o DIR\n"
            "         [--partitions N] [--boolean-fraction F] [--seed S] [--threads N]\n"
            "  Writes a synthetic circuit DIR/circuit.cuzk (cuzk circuit file) and N\n"
            "  satisfying witnesses DIR/w0.wit .. DIR/w<N-1>.wit (default N = 1; same\n"
            "  circuit, different random values). K = 10..27: the domain is 2^K and\n"
            "  the circuit has 0.9707 * 2^K constraints (a PoRep-32G partition's\n"
            "  130,278,869 at K = 27).\n"
            "  profiles:\n"
            "    porep  statistical imitation of a PoRep-32G partition as the reference\n"
            "           system reports it: 328 inputs, one aux per constraint, nnz/row\n"
            "           A 2.375 B 1.0 C 2.17, a_aux 99.7%%, b_aux 25.4%%, b_inp = {ONE};\n"
            "           rows are bellman-style boolean, xor, and, ch, maj, packing and\n"
            "           field rows (default F 0.97: an estimate, the reference has no number)\n"
            "    dense  8-16 entries per row per matrix, random field coefficients,\n"
            "           operands spread over all variables: worst case for SpMV and\n"
            "           MSMs (default F 0.05)\n"
            "    sha    real SHA-256 compression structure on bits (message schedule,\n"
            "           rotations, xor, ch, maj, ripple-carry adders mod 2^32) without\n"
            "           the round constants, IV and message as free bits, chained\n"
            "           compressions per 2^17-row chunk; 32-bit packings supply the\n"
            "           non-boolean share (default F 0.999)\n"
            "  --boolean-fraction F  share of aux values that are 0/1 (0..1)\n"
            "  --seed S              64-bit seed (random and printed when not given);\n"
            "                        the same seed gives the same bytes on any thread count\n"
            "  --threads N           threads (default: all cores)\n");
    return 2;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t fresh_seed(void) {
    uint64_t s = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (f != NULL) {
        if (fread(&s, sizeof(s), 1, f) != 1) s = 0;
        fclose(f);
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return s ^ ((uint64_t)ts.tv_sec * 1000000007ULL) ^ (uint64_t)ts.tv_nsec;
}

static void print_stat(const char *name, double got, double want, int pct) {
    double k = pct ? 100.0 : 1.0;
    if (want > 0)
        printf("  %-22s %10.4f%s   target %10.4f%s\n", name, got * k, pct ? "%" : " ",
               want * k, pct ? "%" : " ");
    else
        printf("  %-22s %10.4f%s\n", name, got * k, pct ? "%" : " ");
}

typedef struct {
    char *id;    /* cuzk__file_identity */
    uint64_t i;  /* 0: circuit.cuzk, 1 + k: wk.wit */
} output_id;

static int by_id(const void *a, const void *b) {
    return strcmp(((const output_id *)a)->id, ((const output_id *)b)->id);
}

static void output_name(char *buf, size_t cap, const char *dir, uint64_t i) {
    if (i == 0) snprintf(buf, cap, "%s/circuit.cuzk", dir);
    else snprintf(buf, cap, "%s/w%" PRIu64 ".wit", dir, i - 1);
}

/* 1 when DIR/circuit.cuzk and DIR/w0.wit .. w<parts-1>.wit can all be
 * written and are parts + 1 files (links could make two names one file,
 * which the set would overwrite); else 0 after saying why. Sorted, not
 * compared pair by pair: there may be a million. */
static int outputs_ok(const char *dir, uint64_t parts) {
    const size_t cap = strlen(dir) + 32;
    char *a = malloc(cap), *b = malloc(cap);
    output_id *ids = calloc(parts + 1, sizeof(*ids));
    int ok = a != NULL && b != NULL && ids != NULL;
    if (!ok) fprintf(stderr, "cuzk gen-circuit: out of memory\n");
    uint64_t n = 0;
    for (; ok && n <= parts; n++) {
        output_name(a, cap, dir, n);
        cuzk_error err;
        cuzk__error_clear(&err);
        if (cuzk__out_check(a, &err) != CUZK_OK) {
            fprintf(stderr, "cuzk gen-circuit: %s\n", cuzk__error_text(&err));
            ok = 0;
        } else if ((ids[n].id = cuzk__file_identity(a)) == NULL) {
            fprintf(stderr, "cuzk gen-circuit: out of memory\n");
            ok = 0;
        }
        ids[n].i = n;
    }
    if (ok) qsort(ids, parts + 1, sizeof(*ids), by_id);
    for (uint64_t k = 1; ok && k <= parts; k++)
        if (strcmp(ids[k - 1].id, ids[k].id) == 0) {
            output_name(a, cap, dir, ids[k - 1].i < ids[k].i ? ids[k - 1].i : ids[k].i);
            output_name(b, cap, dir, ids[k - 1].i < ids[k].i ? ids[k].i : ids[k - 1].i);
            fprintf(stderr, "cuzk gen-circuit: %s and %s are one file (a link): both are outputs\n",
                    a, b);
            ok = 0;
        }
    for (uint64_t k = 0; ids != NULL && k <= parts; k++) free(ids[k].id);
    free(ids);
    free(a);
    free(b);
    return ok;
}

int cuzk__cmd_gen_circuit(int argc, char **argv) {
    cuzk_gen_params p = {CUZK_GEN_POREP, 0, -1, 0, 0};
    int have_profile = 0, have_k = 0, have_seed = 0;
    uint64_t parts = 1, v;
    const char *dir = NULL;
    static const char cmd[] = "cuzk gen-circuit";
    static const char *const known[] = {"--profile", "--log-constraints", "--partitions",
                                        "--boolean-fraction", "--seed", "--threads", "-o",
                                        "--output"};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage();
            return 0;
        }
        size_t k = 0;
        while (k < sizeof(known) / sizeof(known[0]) && strcmp(a, known[k]) != 0) k++;
        if (k == sizeof(known) / sizeof(known[0])) return cuzk__opt_unknown(cmd, a);
        const char *val = cuzk__opt_value(cmd, argc, argv, &i);
        if (val == NULL) return 2;
        if (strcmp(a, "--profile") == 0) {
            int pr = cuzk_gen_profile_from_name(val);
            if (pr < 0) {
                fprintf(stderr, "%s: --profile %s: must be porep, dense or sha\n", cmd, val);
                return 2;
            }
            p.profile = (cuzk_gen_profile)pr;
            have_profile = 1;
        } else if (strcmp(a, "--log-constraints") == 0) {
            if (!cuzk__opt_u64(cmd, a, val, CUZK_GEN_MIN_LOG, CUZK_GEN_MAX_LOG, &v)) return 2;
            p.log_constraints = (unsigned)v;
            have_k = 1;
        } else if (strcmp(a, "--partitions") == 0) {
            if (!cuzk__opt_u64(cmd, a, val, 1, 1000000, &parts)) return 2;
        } else if (strcmp(a, "--boolean-fraction") == 0) {
            if (!cuzk__opt_double(cmd, a, val, 0.0, 1.0, &p.boolean_fraction)) return 2;
        } else if (strcmp(a, "--seed") == 0) {
            if (!cuzk__opt_u64(cmd, a, val, 0, UINT64_MAX, &p.seed)) return 2;
            have_seed = 1;
        } else if (strcmp(a, "--threads") == 0) {
            if (!cuzk__opt_u64(cmd, a, val, 0, 4096, &v)) return 2;
            p.threads = (unsigned)v;
        } else {
            dir = val;
        }
    }
    if (!have_profile) return cuzk__opt_fail(cmd, "--profile porep|dense|sha is required");
    if (!have_k)
        return cuzk__opt_fail(cmd, "--log-constraints K is required (%u..%u)", CUZK_GEN_MIN_LOG,
                              CUZK_GEN_MAX_LOG);
    if (dir == NULL) return cuzk__opt_fail(cmd, "-o DIR is required");
    if (!have_seed) p.seed = fresh_seed();
    printf("cuzk gen-circuit: profile %s, 2^%u, seed %" PRIu64 "%s\n",
           cuzk_gen_profile_name(p.profile), p.log_constraints, p.seed,
           have_seed ? "" : " (random; pass --seed to repeat)");
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "cuzk gen-circuit: %s: cannot create: %s\n", dir, strerror(errno));
        return 2;
    }
    size_t dl = strlen(dir);
    char *path = malloc(dl + 32);
    if (path == NULL) return 2;
    if (!outputs_ok(dir, parts)) { /* before the work */
        free(path);
        return 2;
    }

    cuzk_error err;
    cuzk_gen *g = NULL;
    double t0 = now_s();
    if (cuzk_gen_new(&g, &p, &err) != CUZK_OK) {
        fprintf(stderr, "cuzk gen-circuit: %s\n", cuzk__error_text(&err));
        free(path);
        return 2;
    }
    double t1 = now_s();
    const cuzk_circuit *c = cuzk_gen_circuit(g);
    /* the circuit and its witnesses as one set: a failure or a kill replaces
     * none of the folder's files (util/atomic_write.h); each is finished
     * (fsynced, closed) once written, so one descriptor is open at a time */
    cuzk__outset set;
    cuzk__out *o = NULL;
    cuzk__outset_init(&set);
    output_name(path, dl + 32, dir, 0);
    if (cuzk__outset_add(&set, &o, path, &err) != CUZK_OK ||
        cuzk__circuit_write_out(o, c, &err) != CUZK_OK || cuzk__out_finish(o, &err) != CUZK_OK) {
        fprintf(stderr, "cuzk gen-circuit: %s\n", cuzk__error_text(&err));
        cuzk__outset_abort(&set);
        cuzk_gen_free(g);
        free(path);
        return 2;
    }
    double t2 = now_s();
    printf("  circuit: %.2f s to build, %.2f s to write %s (%" PRIu64 " bytes)\n", t1 - t0,
           t2 - t1, path, c->size);

    double boolean = 0, tw = 0, tww = 0;
    for (uint64_t i = 0; i < parts; i++) {
        cuzk_witness w;
        double s0 = now_s();
        if (cuzk_gen_witness(g, (unsigned)i, &w, &err) != CUZK_OK) {
            fprintf(stderr, "cuzk gen-circuit: %s\n", cuzk__error_text(&err));
            cuzk__outset_abort(&set);
            cuzk_gen_free(g);
            free(path);
            return 2;
        }
        double s1 = now_s();
        if (i == 0) boolean = cuzk_gen_witness_boolean_fraction(&w, p.threads);
        output_name(path, dl + 32, dir, i + 1);
        cuzk_status st = cuzk__outset_add(&set, &o, path, &err);
        if (st == CUZK_OK) st = cuzk__witness_write_out(o, &w, &err);
        if (st == CUZK_OK) st = cuzk__out_finish(o, &err);
        cuzk_witness_close(&w);
        if (st != CUZK_OK) {
            fprintf(stderr, "cuzk gen-circuit: %s\n", cuzk__error_text(&err));
            cuzk__outset_abort(&set);
            cuzk_gen_free(g);
            free(path);
            return 2;
        }
        tw += s1 - s0;
        tww += now_s() - s1;
    }
    double s2 = now_s();
    if (cuzk__outset_commit(&set, &err) != CUZK_OK) {
        fprintf(stderr, "cuzk gen-circuit: %s\n", cuzk__error_text(&err));
        cuzk_gen_free(g);
        free(path);
        return 2;
    }
    tww += now_s() - s2;
    printf("  witnesses: %" PRIu64 " x %" PRIu64 " bytes, %.2f s to compute, %.2f s to write "
           "(%s/w0.wit ..)\n",
           parts, 32 + 32 * cuzk_circuit_n_vars(c), tw, tww, dir);

    cuzk_gen_stats s;
    cuzk_gen_targets tg;
    cuzk_gen_stats_of(c, &s, p.threads);
    cuzk_gen_targets_for(p.profile, &tg);
    printf("statistics (target where the profile has one):\n");
    printf("  %-22s %10" PRIu64 "    domain 2^%u\n", "constraints", s.n_constraints,
           c->domain_log);
    printf("  %-22s %10" PRIu64 "\n", "inputs (with ONE)", s.n_inputs);
    printf("  %-22s %10" PRIu64 "\n", "aux", s.n_aux);
    print_stat("aux per constraint", (double)s.n_aux / (double)s.n_constraints, tg.aux_per_row,
               0);
    const char *mn[3] = {"nnz per row A", "nnz per row B", "nnz per row C"};
    for (int m = 0; m < 3; m++) print_stat(mn[m], s.nnz_per_row[m], tg.nnz_per_row[m], 0);
    printf("  %-22s %10" PRIu64 "\n", "longest row", s.max_row_len);
    print_stat("a_aux density", s.a_aux, tg.a_aux, 1);
    print_stat("b_aux density", s.b_aux, tg.b_aux, 1);
    printf("  %-22s %10" PRIu64 "%s\n", "b_inp count", s.b_inp_count,
           tg.b_inp_count ? "    target 1 (ONE)" : "");
    print_stat("boolean aux (w0)", boolean, cuzk_gen_boolean_fraction_used(g), 1);
    print_stat("+-1 coefficients", s.pm1_fraction, 0, 1);
    printf("  %-22s %10" PRIu64 " of %" PRIu64 " in the table\n", "distinct coefficients",
           s.values_used, s.n_values);
    printf("  total %.2f s\n", now_s() - t0);
    cuzk_gen_free(g);
    free(path);
    return 0;
}
