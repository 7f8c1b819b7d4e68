/*
 * prove.c — the GPU mutexes and the proving calls of supraseal-c2's interface
 * (doc/formats.md §17.7, §17.8), on cuzk's prover.
 *
 * A call proves its circuits (cuzk__ss_prove, route.c: on the device
 * gpu_index picks, with the SRS resident there, or on the CPU with every
 * core, cuzk__groth16_prove_start_abc; the same bytes either way), then
 * assembles each proof with its r and s (converted from Montgomery form in
 * constant time; cuzk_groth16_prove_finish is constant time in them) and
 * verifies it against the SRS's verifying key with its public inputs
 * (inp_assignment[1..]) before writing it. Every circuit's shape is checked
 * before the first is proved, so a bad circuit 9 costs no proof of 0..8.
 *
 * gpu_mtx is held around the computation, device or CPU (all of start but
 * the checks; the stock library holds one static mutex around a whole
 * call): callers that share a mutex take turns on the device, or instead of
 * splitting the cores.
 *
 * The split calls. Start does all the heavy work (it has read a, b, c, r_s,
 * s_s, the densities and the assignments for the last time when it returns,
 * which is more than the contract of §17.8 asks) and leaves a handle that
 * owns the MSM results, r and s (plain, wiped when freed), the public inputs
 * and a reference to the SRS, so the SRS may be dropped before finalize.
 * Finalize assembles and verifies; both free the handle. A handle is a
 * number never given twice, not an address, and live ones are kept in a
 * registry: finalize of a handle not in it is an error that touches
 * nothing, destroy of one is ignored (Curio's bellperson calls destroy on a
 * handle that a failed finalize has freed, by which time another start may
 * have been given that memory).
 */
#include "supraseal/supraseal_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ff/fr.h"
#include "io/params.h"
#include "util/clock.h"
#include "util/mem.h"

/* ---- GPU mutexes --------------------------------------------------------- */

typedef struct {
    pthread_mutex_t mu;
} gpu_mutex;

static pthread_mutex_t default_gpu_mu = PTHREAD_MUTEX_INITIALIZER; /* gpu_mtx NULL */

void *create_gpu_mutex(void) {
    gpu_mutex *m = malloc(sizeof(*m));
    if (m == NULL) return NULL;
    if (pthread_mutex_init(&m->mu, NULL) != 0) {
        free(m);
        return NULL;
    }
    return m;
}

void destroy_gpu_mutex(void *mtx) {
    if (mtx == NULL) return;
    gpu_mutex *m = mtx;
    pthread_mutex_destroy(&m->mu);
    free(m);
}

static pthread_mutex_t *mutex_of(void *gpu_mtx) {
    return gpu_mtx == NULL ? &default_gpu_mu : &((gpu_mutex *)gpu_mtx)->mu;
}

/* ---- pending proofs and their registry ---------------------------------------- */

typedef struct pending {
    struct pending *next; /* the registry's list */
    uintptr_t id;         /* the caller's handle */
    size_t n;
    const cuzk__ss_srs *srs; /* one reference */
    cuzk_groth16_partial *parts;
    uint64_t (*r)[4], (*s)[4]; /* plain, secret */
    size_t n_public;           /* per circuit */
    uint64_t (*pub)[4];        /* n x n_public plain public inputs */
} pending;

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static pending *registry;
static uintptr_t registry_last_id;

/* Registers p under a new id: its handle. */
static void *registry_add(pending *p) {
    pthread_mutex_lock(&registry_mu);
    p->id = ++registry_last_id; /* from 1: a handle is never NULL */
    p->next = registry;
    registry = p;
    pthread_mutex_unlock(&registry_mu);
    return (void *)p->id;
}

/* Unlinks handle if it is live; returns it, or NULL when it is not. */
static pending *registry_take(const void *handle) {
    pending *found = NULL;
    pthread_mutex_lock(&registry_mu);
    for (pending **pp = &registry; *pp != NULL; pp = &(*pp)->next)
        if ((*pp)->id == (uintptr_t)handle) {
            found = *pp;
            *pp = found->next;
            found->next = NULL;
            break;
        }
    pthread_mutex_unlock(&registry_mu);
    return found;
}

static void pending_free(pending *p) {
    if (p == NULL) return;
    if (p->parts != NULL) cuzk__wipe(p->parts, p->n * sizeof(p->parts[0]));
    if (p->r != NULL) cuzk__wipe(p->r, p->n * sizeof(p->r[0]));
    if (p->s != NULL) cuzk__wipe(p->s, p->n * sizeof(p->s[0]));
    free(p->parts);
    free(p->r);
    free(p->s);
    free(p->pub);
    if (p->srs != NULL) cuzk__ss_srs_unref(p->srs);
    free(p);
}

/* ---- the calls ------------------------------------------------------------------ */

/* provers[i] in the prover's terms (borrowing everything). */
static void abc_input_of(cuzk_groth16_abc_input *in, const cuzk_supraseal_assignment *a,
                         char *name) {
    in->a = (const cuzk_fr *)(const void *)a->a;
    in->b = (const cuzk_fr *)(const void *)a->b;
    in->c = (const cuzk_fr *)(const void *)a->c;
    in->abc_size = a->abc_size;
    in->inputs = (const cuzk_fr *)(const void *)a->inp_assignment_data;
    in->n_inputs = a->inp_assignment_size;
    in->aux = (const cuzk_fr *)(const void *)a->aux_assignment_data;
    in->n_aux = a->aux_assignment_size;
    in->a_aux = (cuzk_groth16_density){a->a_aux_density, a->a_aux_bit_len, a->a_aux_popcount};
    in->b_inp = (cuzk_groth16_density){a->b_inp_density, a->b_inp_bit_len, a->b_inp_popcount};
    in->b_aux = (cuzk_groth16_density){a->b_aux_density, a->b_aux_bit_len, a->b_aux_popcount};
    in->name = name;
}

/* A Montgomery scalar's plain limbs, constant time; false if it is >= r. */
static bool scalar_plain(uint64_t out[4], const cuzk_supraseal_fr *m) {
    if (!cuzk__lt_n(m->l, cuzk__fr_r, 4)) return false;
    cuzk_fr f;
    memcpy(f.l, m->l, sizeof(f.l));
    cuzk_fr_to_limbs(out, &f);
    cuzk__wipe(&f, sizeof(f));
    return true;
}

/* each(ctx, i, err) for i < n side by side on the host's cores: the
 * lowest i that failed, with its status and error in *st and *err (as if
 * run in order); n when none did, SIZE_MAX without memory. */
typedef cuzk_status (*each_fn)(void *ctx, size_t i, cuzk_error *err);
static size_t side_by_side(size_t n, each_fn each, void *ctx, cuzk_status *st,
                           cuzk_error *err) {
    if (n == 0) return 0;
    cuzk_status *sts = calloc(n, sizeof(*sts));
    cuzk_error *errs = calloc(n, sizeof(*errs));
    if (sts == NULL || errs == NULL) {
        free(sts);
        free(errs);
        return SIZE_MAX;
    }
    const long long nl = (long long)n;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for schedule(dynamic, 1) if (nl > 1)
#endif
    for (long long i = 0; i < nl; i++) sts[i] = each(ctx, (size_t)i, &errs[i]);
    size_t bad = 0;
    while (bad < n && sts[bad] == CUZK_OK) bad++;
    if (bad < n) {
        *st = sts[bad];
        *err = errs[bad];
    }
    free(sts);
    free(errs);
    return bad;
}

/* A circuit's shape against the parameters (the density popcounts are
 * ~9 ms a circuit at 2^26). */
typedef struct {
    const cuzk_groth16_abc_input *ins;
    const cuzk_params *p;
} shape_check;
static cuzk_status check_one(void *ctx, size_t i, cuzk_error *err) {
    const shape_check *c = ctx;
    return cuzk_groth16_check_abc_input(&c->ins[i], c->p, err);
}

/* start over the circuits in the prover's terms (ins): their shapes
 * checked, the pending proof made, proved; *out NULL on failure. */
static cuzk_supraseal_error start_inputs(pending **out, const cuzk_groth16_abc_input *ins,
                                         size_t num_circuits, const cuzk_supraseal_fr r_s[],
                                         const cuzk_supraseal_fr s_s[], const cuzk__ss_srs *sr,
                                         void *gpu_mtx, int gpu_index, const char *who,
                                         double t_begin) {
    cuzk_error err;
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "%s: ", who);
    /* every circuit's shape against the SRS before any work */
    shape_check chk = {ins, &sr->p};
    cuzk_status cst;
    size_t bad = side_by_side(num_circuits, check_one, &chk, &cst, &err);
    if (bad == SIZE_MAX)
        return cuzk__ss_fail(ENOMEM, "%s: no memory to check %zu circuits", who, num_circuits);
    if (bad < num_circuits) return cuzk__ss_from(&err, prefix);

    pending *p = calloc(1, sizeof(*p));
    if (p == NULL) return cuzk__ss_fail(ENOMEM, "%s: no memory for a pending proof", who);
    const size_t nn = num_circuits ? num_circuits : 1;
    p->n = num_circuits;
    p->n_public = (size_t)sr->p.n_inputs - 1;
    p->parts = calloc(nn, sizeof(p->parts[0]));
    p->r = calloc(nn, sizeof(p->r[0]));
    p->s = calloc(nn, sizeof(p->s[0]));
    p->pub = calloc(nn * (p->n_public ? p->n_public : 1), sizeof(p->pub[0]));
    cuzk__ss_srs_ref(sr);
    p->srs = sr;
    if (p->parts == NULL || p->r == NULL || p->s == NULL || p->pub == NULL) {
        pending_free(p);
        return cuzk__ss_fail(ENOMEM, "%s: no memory for a pending proof of %zu circuits", who,
                             num_circuits);
    }
    for (size_t i = 0; i < num_circuits; i++)
        if (!scalar_plain(p->r[i], &r_s[i]) || !scalar_plain(p->s[i], &s_s[i])) {
            pending_free(p);
            return cuzk__ss_fail(EINVAL, "%s: r_s[%zu] or s_s[%zu] is not a Montgomery scalar "
                                         "below r",
                                 who, i, i);
        }

    pthread_mutex_t *mu = mutex_of(gpu_mtx);
    const double t_wait = cuzk__now_ms();
    pthread_mutex_lock(mu);
    const double t_prove = cuzk__now_ms();
    cuzk_status st = cuzk__ss_prove(sr, gpu_index, ins, num_circuits, p->parts, &err);
    pthread_mutex_unlock(mu);
    if (cuzk__ss_timing())
        fprintf(stderr,
                "cuzk_supraseal: %s: %zu circuits: checks %.1f ms, gpu_mtx wait %.1f ms, "
                "proving %.1f ms\n",
                who, num_circuits, t_wait - t_begin, t_prove - t_wait, cuzk__now_ms() - t_prove);
    if (st != CUZK_OK) {
        pending_free(p);
        return cuzk__ss_from(&err, prefix);
    }
    for (size_t i = 0; i < num_circuits; i++) /* the public inputs, canonical (checked) */
        for (size_t j = 0; j < p->n_public; j++)
            cuzk_fr_to_limbs(p->pub[i * p->n_public + j], &ins[i].inputs[1 + j]);
    *out = p;
    return cuzk__ss_ok();
}

/* Everything start does up to the handle; *out NULL on failure. */
static cuzk_supraseal_error start(pending **out, const cuzk_supraseal_assignment provers[],
                                  size_t num_circuits, const cuzk_supraseal_fr r_s[],
                                  const cuzk_supraseal_fr s_s[], const cuzk_supraseal_srs *srs,
                                  void *gpu_mtx, int gpu_index, const char *who) {
    *out = NULL;
    const char *why;
    const cuzk__ss_srs *sr = cuzk__ss_srs_of(srs, &why);
    if (sr == NULL) return cuzk__ss_fail(EINVAL, "%s: %s", who, why);
    if (num_circuits > 0 && (provers == NULL || r_s == NULL || s_s == NULL))
        return cuzk__ss_fail(EINVAL, "%s: provers, r_s or s_s is NULL (%zu circuits)", who,
                             num_circuits);

    /* the circuits in the prover's terms, named for its messages */
    const double t_begin = cuzk__now_ms();
    const size_t nn = num_circuits ? num_circuits : 1;
    cuzk_groth16_abc_input *ins = calloc(nn, sizeof(*ins));
    char(*names)[32] = calloc(nn, sizeof(*names));
    cuzk_supraseal_error e;
    if (ins == NULL || names == NULL) {
        e = cuzk__ss_fail(ENOMEM, "%s: no memory for %zu circuits", who, num_circuits);
    } else {
        for (size_t i = 0; i < num_circuits; i++) {
            snprintf(names[i], sizeof(names[i]), "circuit %zu", i);
            abc_input_of(&ins[i], &provers[i], names[i]);
        }
        e = start_inputs(out, ins, num_circuits, r_s, s_s, sr, gpu_mtx, gpu_index, who, t_begin);
    }
    free(ins);
    free(names);
    return e;
}

/* Circuit i's proof assembled and checked against the verifying key. */
typedef struct {
    const pending *p;
    cuzk_groth16_proof *out;
} assembly;
static cuzk_status assemble_one(void *ctx, size_t i, cuzk_error *err) {
    const assembly *a = ctx;
    const pending *p = a->p;
    cuzk_groth16_prove_finish(&a->out[i], &p->parts[i], p->r[i], p->s[i]);
    return cuzk_groth16_verify(&p->srs->vk, (const uint64_t(*)[4])(p->pub + i * p->n_public),
                               p->n_public, &a->out[i], err);
}

/* Assembles and verifies p's proofs into proofs[] (all or none written),
 * then frees p. */
static cuzk_supraseal_error finish(pending *p, cuzk_supraseal_proof proofs[], const char *who) {
    cuzk_supraseal_error e = cuzk__ss_ok();
    cuzk_groth16_proof *out = NULL;
    if (p->n > 0 && proofs == NULL) {
        e = cuzk__ss_fail(EINVAL, "%s: proofs is NULL (%zu circuits)", who, p->n);
        goto done;
    }
    out = calloc(p->n ? p->n : 1, sizeof(*out));
    if (out == NULL) {
        e = cuzk__ss_fail(ENOMEM, "%s: no memory for %zu proofs", who, p->n);
        goto done;
    }
    /* the proofs side by side (each is a few ms of scalar multiplications
     * and pairings), then the lowest failing circuit named, as in order */
    const double t_begin = cuzk__now_ms();
    assembly as = {p, out};
    cuzk_status bst = CUZK_OK;
    cuzk_error berr;
    const size_t bad = side_by_side(p->n, assemble_one, &as, &bst, &berr);
    if (bad == SIZE_MAX) {
        e = cuzk__ss_fail(ENOMEM, "%s: no memory for %zu proofs", who, p->n);
        goto done;
    }
    if (bad < p->n) {
        /* name a corrupt point of the parameters, if there is one */
        cuzk_error perr;
        const cuzk_status pst = cuzk__ss_srs_check_points(p->srs, &perr);
        if (pst != CUZK_OK)
            e = cuzk__ss_fail(EBADMSG,
                              "%s: circuit %zu: the proof does not verify, and the parameters "
                              "are corrupt: %s",
                              who, bad, cuzk__error_text(&perr));
        else
            e = cuzk__ss_fail(cuzk__ss_code(bst),
                              "%s: circuit %zu: the proof does not verify against the SRS's "
                              "verifying key (%s): a, b, c and the densities are not those "
                              "of the circuit %s was made for",
                              who, bad, cuzk__error_text(&berr), p->srs->path);
        goto done;
    }
    if (p->n > 0) memcpy(proofs, out, p->n * sizeof(*out));
    if (cuzk__ss_timing())
        fprintf(stderr, "cuzk_supraseal: %s: %zu proofs assembled and self-checked in %.1f ms\n",
                who, p->n, cuzk__now_ms() - t_begin);
done:
    free(out);
    pending_free(p);
    return e;
}

cuzk_supraseal_error generate_groth16_proofs_c(const cuzk_supraseal_assignment provers[],
                                               size_t num_circuits,
                                               const cuzk_supraseal_fr r_s[],
                                               const cuzk_supraseal_fr s_s[],
                                               cuzk_supraseal_proof proofs[],
                                               const cuzk_supraseal_srs *srs, void *gpu_mtx,
                                               int gpu_index) {
    static const char who[] = "generate_groth16_proofs_c";
    if (num_circuits > 0 && proofs == NULL)
        return cuzk__ss_fail(EINVAL, "%s: proofs is NULL (%zu circuits)", who, num_circuits);
    pending *p;
    cuzk_supraseal_error e =
        start(&p, provers, num_circuits, r_s, s_s, srs, gpu_mtx, gpu_index, who);
    if (e.code != 0) return e;
    return finish(p, proofs, who);
}

cuzk_supraseal_error generate_groth16_proofs_start_c(const cuzk_supraseal_assignment provers[],
                                                     size_t num_circuits,
                                                     const cuzk_supraseal_fr r_s[],
                                                     const cuzk_supraseal_fr s_s[],
                                                     const cuzk_supraseal_srs *srs,
                                                     void *gpu_mtx, int gpu_index,
                                                     void **pending_out) {
    static const char who[] = "generate_groth16_proofs_start_c";
    if (pending_out == NULL) return cuzk__ss_fail(EINVAL, "%s: pending_out is NULL", who);
    *pending_out = NULL;
    pending *p;
    cuzk_supraseal_error e =
        start(&p, provers, num_circuits, r_s, s_s, srs, gpu_mtx, gpu_index, who);
    if (e.code != 0) return e;
    *pending_out = registry_add(p);
    return e;
}

cuzk_supraseal_error finalize_groth16_proof_c(void *handle, cuzk_supraseal_proof proofs[]) {
    static const char who[] = "finalize_groth16_proof_c";
    pending *p = registry_take(handle);
    if (p == NULL)
        return cuzk__ss_fail(EINVAL, "%s: %p is not a pending proof (NULL, already finalized "
                                     "or destroyed, or not from generate_groth16_proofs_start_c)",
                             who, handle);
    return finish(p, proofs, who);
}

void destroy_pending_proof(void *handle) { pending_free(registry_take(handle)); }
