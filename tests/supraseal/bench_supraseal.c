/*
 * bench_supraseal.c — seconds per partition through libcuzk_supraseal's
 * generate_groth16_proofs_c against cuzk's own backend proving the same
 * circuit in the same run (the anchor), on a generated PoRep-profile circuit
 * at 2^K.
 *
 *   bench_supraseal [--log K] [--circuits N] [--reps R] [--anchor gpu|cpu|none]
 *                   [--path gpu|cpu] [--seed HEX]
 *
 *   --log K       2^K constraints (10..27, default 20)
 *   --circuits N  circuits a call (default 10, a PoRep proof's partitions)
 *   --reps R      timed calls after one warm-up call of one circuit (default 1)
 *   --anchor      the backend for the anchor (default: gpu where there is a
 *                 device, else cpu; none skips it)
 *   --path        gpu (default where there is a device) or cpu: the
 *                 library's prover
 *   --seed HEX    the development setup's seed (default 2a)
 *
 * Everything is made in memory: the circuit by cuzk's generator (seed 42,
 * as `cuzk gen-circuit`), the parameters by the INSECURE development setup
 * from the seed (on the GPU where there is one, as `cuzk bench prove
 * --setup-seed`; a 2^27 .params file would be 47 GB), handed to the library
 * through its test-only cuzk__ss_srs_wrap; one witness (partition 0), its a,
 * b, c by the CPU's SpMV with the input rows bellperson appends, its
 * assignment in Montgomery form and the circuit's density bitmaps: what
 * bellperson hands over. Every circuit of a call points to that one
 * assignment (host memory: ten copies at 2^27 would be 170 GB), each with its
 * own r and s. The library's calls verify every proof, as in production.
 *
 * Timed: the wall time of each call, over its circuits (the key made on the
 * device by the warm-up call is not timed: the daemon-like steady state);
 * the anchor proves N partitions back to back through the backend interface
 * (prove_start, prove_finish), the next witness announced before each
 * proof, after one warm-up proof, and its first proof is compared with the
 * library's first (the same r, s: the same bytes). The library's SRS is
 * dropped before the anchor's key is made, so that both fit the device one
 * after the other. Output: a table, then one line
 *   RESULT log=K circuits=N path=P supraseal_s=X anchor=B anchor_s=Y ratio=X/Y equal=yes|no
 * Exit status 0 when both ran and the proofs were equal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/gen.h"
#include "circuit/witness.h"
#include "cuzk_supraseal.h"
#include "ff/fr.h"
#include "groth16/backend.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "supraseal/supraseal_impl.h"
#include "util/clock.h"
#include "util/mem.h"
#include "fixture.h" /* rs_of */
#if defined(CUZK_HAVE_CUDA)
#include "gpu/backend_gpu.h"
#include "gpu/gpu.h"
#include "gpu/setup_gpu.h"
#endif

#define MAX_CIRCUITS 64
#define MAX_REPS 16

typedef struct {
    unsigned log;
    int circuits, reps;
    const char *anchor, *path, *seed;
} options;

static int usage(void) {
    fprintf(stderr, "usage: bench_supraseal [--log K] [--circuits N] [--reps R] "
                    "[--anchor gpu|cpu|none] [--path gpu|cpu] [--seed HEX]\n");
    return 2;
}

static int parse(options *o, int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL) return 0;
        if (strcmp(a, "--log") == 0)
            o->log = (unsigned)atoi(v);
        else if (strcmp(a, "--circuits") == 0)
            o->circuits = atoi(v);
        else if (strcmp(a, "--reps") == 0)
            o->reps = atoi(v);
        else if (strcmp(a, "--anchor") == 0)
            o->anchor = v;
        else if (strcmp(a, "--path") == 0)
            o->path = v;
        else if (strcmp(a, "--seed") == 0)
            o->seed = v;
        else
            return 0;
        i++;
    }
    return o->log >= CUZK_GEN_MIN_LOG && o->log <= CUZK_GEN_MAX_LOG && o->circuits >= 1 &&
           o->circuits <= MAX_CIRCUITS && o->reps >= 1 && o->reps <= MAX_REPS &&
           (strcmp(o->path, "gpu") == 0 || strcmp(o->path, "cpu") == 0) &&
           (strcmp(o->anchor, "gpu") == 0 || strcmp(o->anchor, "cpu") == 0 ||
            strcmp(o->anchor, "none") == 0);
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The development setup's toxic waste from a hex seed (as `cuzk setup --seed`). */
static int seed_of(cuzk_setup_toxic *tw, const char *hex) {
    uint8_t seed[64];
    const size_t len = strlen(hex);
    if (len == 0 || len % 2 || len / 2 > sizeof(seed)) return 0;
    for (size_t i = 0; i < len / 2; i++) {
        const int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return 0;
        seed[i] = (uint8_t)(hi << 4 | lo);
    }
    cuzk__setup_toxic_from_seed(tw, seed, len / 2);
    return 1;
}

static double median(double *v, int n) {
    for (int i = 1; i < n; i++) /* insertion sort: a handful of values */
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            const double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int have_device(void) {
#if defined(CUZK_HAVE_CUDA)
    int n = 0;
    return cuzk__gpu_device_count(&n) == CUZK_OK && n > 0;
#else
    return 0;
#endif
}

/* The parameters of c in memory, on the GPU where asked and there is one. */
static cuzk_status setup(cuzk_params *p, const cuzk_circuit *c, const cuzk_setup_toxic *tw,
                         int gpu, cuzk_error *err) {
#if defined(CUZK_HAVE_CUDA)
    if (gpu) {
        cuzk_setup_accel accel;
        memset(&accel, 0, sizeof(accel));
        cuzk_status st = cuzk__gpu_setup_accel_open(&accel, 0, 0, err);
        if (st == CUZK_OK) st = cuzk__groth16_setup_dev_accel(p, c, tw, 0, &accel, NULL, err);
        cuzk__gpu_setup_accel_close(&accel);
        return st;
    }
#else
    (void)gpu;
#endif
    return cuzk_groth16_setup_dev(p, c, tw, 0, err);
}

/* What bellperson hands over for witness w of c (one circuit). */
typedef struct {
    cuzk_fr *abc;      /* a, b, c: N each */
    cuzk_fr *assign;   /* inputs then aux, Montgomery */
    cuzk_supraseal_assignment as;
} handed;

static cuzk_status hand_over(handed *h, const cuzk_circuit *c, const cuzk_witness *w,
                             cuzk_error *err) {
    const uint64_t n = c->domain_size, nv = c->n_inputs + c->n_aux;
    memset(h, 0, sizeof(*h));
    h->abc = cuzk__alloc_large(3 * n * sizeof(cuzk_fr));
    h->assign = cuzk__alloc_large(nv * sizeof(cuzk_fr));
    if (h->abc == NULL || h->assign == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a, b, c and the assignment");
    cuzk_fr *a = h->abc, *b = a + n, *cc = b + n;
    /* the SpMV's rows: the constraints, then input_j * 0 = 0 per input */
    cuzk_status st = cuzk_witness_abc_var(c, w, a, b, cc, CUZK_SPMV_DEFAULT, 0, NULL, err);
    if (st != CUZK_OK) return st;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for schedule(static)
#endif
    for (long long i = 0; i < (long long)nv; i++)
        cuzk_fr_from_limbs(&h->assign[i], w->values + 4 * (size_t)i);
    cuzk_supraseal_assignment *s = &h->as;
    s->a_aux_density = c->a_aux;
    s->a_aux_bit_len = (size_t)c->n_aux;
    s->a_aux_popcount = (size_t)c->a_aux_count;
    s->b_inp_density = c->b_inp;
    s->b_inp_bit_len = (size_t)c->n_inputs;
    s->b_inp_popcount = (size_t)c->b_inp_count;
    s->b_aux_density = c->b_aux;
    s->b_aux_bit_len = (size_t)c->n_aux;
    s->b_aux_popcount = (size_t)c->b_aux_count;
    s->a = (const cuzk_supraseal_fr *)a;
    s->b = (const cuzk_supraseal_fr *)b;
    s->c = (const cuzk_supraseal_fr *)cc;
    s->abc_size = (size_t)(c->n_constraints + c->n_inputs);
    s->inp_assignment_data = (const cuzk_supraseal_fr *)h->assign;
    s->inp_assignment_size = (size_t)c->n_inputs;
    s->aux_assignment_data = (const cuzk_supraseal_fr *)(h->assign + c->n_inputs);
    s->aux_assignment_size = (size_t)c->n_aux;
    return CUZK_OK;
}

/* The library: a warm-up call of one circuit (makes the device key), then
 * reps calls of n; *sec: median seconds per partition; first: proof 0. */
static int run_library(const cuzk_params *p, const handed *h, int n, int reps, double *sec,
                       cuzk_supraseal_proof *first, uint64_t *on_gpu) {
    cuzk_supraseal_srs srs = {NULL};
    cuzk_supraseal_assignment as[MAX_CIRCUITS];
    cuzk_supraseal_fr rm[MAX_CIRCUITS], sm[MAX_CIRCUITS];
    cuzk_supraseal_proof proofs[MAX_CIRCUITS];
    double per[MAX_REPS];
    int ok = 0;
    for (int i = 0; i < n; i++) {
        uint64_t r[4], s[4];
        as[i] = h->as;
        rs_of((size_t)i, r, s, &rm[i], &sm[i]);
    }
    cuzk_supraseal_error e = cuzk__ss_srs_wrap(&srs, p, "porep (development setup)");
    cuzk__ss_counts c0, c1;
    if (e.code == 0) {
        const double t0 = cuzk__now_ms();
        e = generate_groth16_proofs_c(as, 1, rm, sm, proofs, &srs, NULL, 0);
        fprintf(stderr,
                "bench_supraseal: warm-up call (1 circuit, the SRS made resident): %.2f s\n",
                (cuzk__now_ms() - t0) / 1e3);
    }
    cuzk__ss_get_counts(&c0);
    for (int rep = 0; rep < reps && e.code == 0; rep++) {
        const double t0 = cuzk__now_ms();
        e = generate_groth16_proofs_c(as, (size_t)n, rm, sm, proofs, &srs, NULL, 0);
        per[rep] = (cuzk__now_ms() - t0) / 1e3 / n;
        fprintf(stderr, "bench_supraseal: call %d: %d circuits in %.2f s\n", rep + 1, n,
                per[rep] * n);
    }
    cuzk__ss_get_counts(&c1);
    *on_gpu = c1.gpu_circuits - c0.gpu_circuits;
    if (e.code != 0) {
        fprintf(stderr, "bench_supraseal: generate_groth16_proofs_c: code %d: %s\n", e.code,
                e.message ? e.message : "(no message)");
    } else {
        *sec = median(per, reps);
        *first = proofs[0];
        ok = 1;
    }
    free(e.message);
    drop_SRS(&srs); /* the device key goes with it, before the anchor's */
    return ok;
}

/* The anchor: one warm-up proof, then reps x n proofs of w through the
 * backend; *sec: median seconds per partition; first: the first timed
 * proof (circuit 0's r, s). */
static int run_anchor(const cuzk_backend_ops *ops, const cuzk_circuit *c, const cuzk_params *p,
                      const cuzk_witness *w, int n, int reps, double *sec,
                      cuzk_groth16_proof *first) {
    cuzk_backend be;
    cuzk_backend_key *key = NULL;
    cuzk_backend_job *job = NULL;
    cuzk_error err;
    double per[MAX_REPS];
    int ok = 0;
    memset(&be, 0, sizeof(be));
    cuzk__error_clear(&err);
    if (cuzk_backend_open(&be, ops, 0, ops == &cuzk_backend_cpu ? -1 : 0, &err) != CUZK_OK)
        goto fail;
    double t0 = cuzk__now_ms();
    if (cuzk_backend_prepare(&be, &key, c, p, &err) != CUZK_OK) goto fail;
    fprintf(stderr, "bench_supraseal: anchor key (backend %s) made in %.2f s\n", ops->name,
            (cuzk__now_ms() - t0) / 1e3);
    if (cuzk_backend_stage(&be, key, w, &err) != CUZK_OK) goto fail;
    for (int rep = -1, j = 0; rep < reps; rep++) { /* rep -1: the warm-up proof */
        t0 = cuzk__now_ms();
        const int count = rep < 0 ? 1 : n;
        for (int i = 0; i < count; i++, j++) {
            uint64_t r[4], s[4];
            cuzk_supraseal_fr rm, sm;
            cuzk_groth16_proof proof;
            rs_of(rep < 0 ? 0 : (size_t)i, r, s, &rm, &sm);
            const int more = rep < reps - 1 || i + 1 < count;
            if ((more && cuzk_backend_stage(&be, key, w, &err) != CUZK_OK) ||
                cuzk_backend_prove_start(&be, &job, key, w, &err) != CUZK_OK ||
                cuzk_backend_prove_finish(&be, &proof, job, r, s, &err) != CUZK_OK)
                goto fail;
            cuzk_backend_release_job(&be, job);
            job = NULL;
            if (rep == 0 && i == 0) *first = proof;
        }
        if (rep >= 0) per[rep] = (cuzk__now_ms() - t0) / 1e3 / n;
    }
    *sec = median(per, reps);
    ok = 1;
    goto out;
fail:
    fprintf(stderr, "bench_supraseal: anchor (backend %s): %s\n", ops->name,
            cuzk__error_text(&err));
out:
    if (be.ops != NULL) {
        cuzk_backend_release_job(&be, job);
        cuzk_backend_release_key(&be, key);
    }
    cuzk_backend_close(&be);
    return ok;
}

int main(int argc, char **argv) {
    const int device = have_device();
    options o = {20, 10, 1, device ? "gpu" : "cpu", device ? "gpu" : "cpu", "2a"};
    if (!parse(&o, argc, argv)) return usage();
    const int lib_gpu = strcmp(o.path, "gpu") == 0;
#if !defined(CUZK_HAVE_CUDA)
    if (lib_gpu || strcmp(o.anchor, "gpu") == 0) {
        fprintf(stderr, "bench_supraseal: built without CUDA: --path cpu --anchor cpu|none\n");
        return 2;
    }
#endif
    if ((lib_gpu || strcmp(o.anchor, "gpu") == 0) && !device) {
        fprintf(stderr, "bench_supraseal: no CUDA device\n");
        return 1;
    }
    cuzk_setup_toxic tw;
    if (!seed_of(&tw, o.seed)) return usage();
    char name[128] = "CPU";
#if defined(CUZK_HAVE_CUDA)
    int sms = 0;
    if (device && cuzk__gpu_device_name(0, name, sizeof(name), &sms) != CUZK_OK)
        snprintf(name, sizeof(name), "GPU 0");
#endif
    const cuzk__ss_settings settings = {lib_gpu, 0, 0, 1};
    cuzk__ss_set_settings(&settings);

    cuzk_error err;
    cuzk__error_clear(&err);
    cuzk_gen *g = NULL;
    cuzk_params p;
    cuzk_witness w;
    handed h;
    memset(&p, 0, sizeof(p));
    memset(&w, 0, sizeof(w));
    memset(&h, 0, sizeof(h));
    int rc = 1;
    double t0 = cuzk__now_ms();
    const cuzk_gen_params gp = {CUZK_GEN_POREP, o.log, -1, 42, 0};
    if (cuzk_gen_new(&g, &gp, &err) != CUZK_OK) goto fail;
    const cuzk_circuit *c = cuzk_gen_circuit(g);
    fprintf(stderr,
            "bench_supraseal: porep 2^%u circuit (%llu constraints, %llu variables) in %.2f s\n",
            o.log, (unsigned long long)c->n_constraints,
            (unsigned long long)(c->n_inputs + c->n_aux), (cuzk__now_ms() - t0) / 1e3);
    t0 = cuzk__now_ms();
    if (setup(&p, c, &tw, device, &err) != CUZK_OK) goto fail;
    fprintf(stderr, "bench_supraseal: development setup (INSECURE, seed %s) on the %s in %.2f s\n",
            o.seed, device ? "GPU" : "CPU", (cuzk__now_ms() - t0) / 1e3);
    t0 = cuzk__now_ms();
    if (cuzk_gen_witness(g, 0, &w, &err) != CUZK_OK || hand_over(&h, c, &w, &err) != CUZK_OK)
        goto fail;
    fprintf(stderr, "bench_supraseal: witness, a, b, c and the assignment in %.2f s\n",
            (cuzk__now_ms() - t0) / 1e3);

    double lib_s = 0, anc_s = 0;
    uint64_t on_gpu = 0;
    cuzk_supraseal_proof lib_first;
    cuzk_groth16_proof anc_first;
    memset(&lib_first, 0, sizeof(lib_first));
    memset(&anc_first, 0, sizeof(anc_first));
    const int lib_ok = run_library(&p, &h, o.circuits, o.reps, &lib_s, &lib_first, &on_gpu);
    int anc_ok = 0;
    const cuzk_backend_ops *ops = &cuzk_backend_cpu;
#if defined(CUZK_HAVE_CUDA)
    if (strcmp(o.anchor, "gpu") == 0) ops = &cuzk_backend_gpu;
#endif
    if (strcmp(o.anchor, "none") != 0)
        anc_ok = run_anchor(ops, c, &p, &w, o.circuits, o.reps, &anc_s, &anc_first);
    const int equal = lib_ok && anc_ok && memcmp(&lib_first, &anc_first, sizeof(anc_first)) == 0;

    printf("\nlibcuzk_supraseal: porep 2^%u (%llu constraints), %d circuits a call, %d timed "
           "call%s, %s\n",
           o.log, (unsigned long long)c->n_constraints, o.circuits, o.reps,
           o.reps == 1 ? "" : "s", name);
    printf("%-44s %14s\n", "path", "s/partition");
    if (lib_ok)
        printf("%-44s %14.4f\n",
               on_gpu == (uint64_t)o.circuits * (uint64_t)o.reps
                   ? "generate_groth16_proofs_c (GPU)"
                   : on_gpu == 0 ? "generate_groth16_proofs_c (CPU)"
                                 : "generate_groth16_proofs_c (GPU and CPU)",
               lib_s);
    else
        printf("%-44s %14s\n", "generate_groth16_proofs_c", "FAILED");
    if (strcmp(o.anchor, "none") != 0) {
        char what[64];
        snprintf(what, sizeof(what), "anchor: backend %s, same run", ops->name);
        if (anc_ok)
            printf("%-44s %14.4f\n", what, anc_s);
        else
            printf("%-44s %14s\n", what, "FAILED");
    }
    printf("RESULT log=%u circuits=%d path=%s supraseal_s=%.4f anchor=%s anchor_s=%.4f "
           "ratio=%.3f equal=%s\n",
           o.log, o.circuits,
           lib_ok ? (on_gpu == 0 ? "cpu" : on_gpu == (uint64_t)o.circuits * (uint64_t)o.reps
                                              ? "gpu"
                                              : "mixed")
                  : "failed",
           lib_s, o.anchor, anc_s, anc_ok && anc_s > 0 ? lib_s / anc_s : 0.0,
           equal ? "yes" : "no");
    rc = lib_ok && (strcmp(o.anchor, "none") == 0 || (anc_ok && equal)) ? 0 : 1;
    goto out;
fail:
    fprintf(stderr, "bench_supraseal: %s\n", cuzk__error_text(&err));
out:
    cuzk__wipe(&tw, sizeof(tw));
    free(h.abc);
    free(h.assign);
    cuzk_witness_close(&w);
    cuzk_params_close(&p);
    cuzk_gen_free(g);
    cuzk__ss_set_settings(NULL);
    return rc;
}
