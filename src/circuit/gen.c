/*
 * gen.c — synthetic circuits and satisfying witnesses (gen.h).
 *
 * Shape of the work:
 *   1. Count pass: every chunk of rows runs its generator with its own random
 *      stream and only counts entries per matrix.
 *   2. Prefix sums give each chunk its offsets; the fill pass runs the same
 *      generators again (same streams, so the same rows) writing the CSR
 *      arrays in place. Chunks run in parallel; the bytes do not depend on
 *      the thread count.
 *   3. cuzk_circuit_build_indexed copies the arrays into the circuit image
 *      (its checks and density bitmaps); the arrays are then freed.
 *   4. A witness: inputs and free values from per-(partition, chunk) streams,
 *      then every defining row solved in order within its chunk.
 *
 * Variables a chunk defines are only used by later rows of the same chunk;
 * rows may use inputs and (DENSE) the free field variables of any chunk,
 * whose values are drawn before any row is solved. So chunks solve
 * independently and the witness pass is parallel too.
 *
 * Value table: 0 = +1, 1 = -1, 2 = -2, 3..65 = 2^1..2^63 (packing weights),
 * then random constants (round constants / MDS-like entries; DENSE draws its
 * "random field coefficients" from a large table of them).
 */
#include "circuit/gen.h"
#include "util/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(CUZK_HAVE_OPENMP)
#include <omp.h>
#endif

typedef unsigned long long ull;

/* ---- reference numbers: the reference system's PoRep-32G partition ---- */
#define REF_CONSTRAINTS 130278869ull
#define REF_AUX 130169893ull
#define REF_INPUTS 328ull
#define REF_NNZ_A 309.4e6
#define REF_NNZ_B 130.3e6
#define REF_NNZ_C 282.7e6
#define REF_A_AUX 0.997
#define REF_B_AUX (33.1e6 / 130169893.0)
/* The reference gives no number for the share of 0/1 aux values, only that
 * the 0/1 parts dominate (batch-add 0.65 s against 0.08-0.13 s of tail MSMs
 * per partition in its measurements). 0.97 is our
 * estimate: SHA-256 bits everywhere, field elements in Poseidon and packing. */
#define POREP_BOOL_DEFAULT 0.97
#define DENSE_BOOL_DEFAULT 0.05
#define SHA_BOOL_DEFAULT 0.999

/* Value-table indices. */
enum { V_ONE = 0, V_M1 = 1, V_M2 = 2, V_POW2 = 2 /* 2^i at V_POW2 + i, i = 1..63 */ };
#define N_POW2 63u
#define V_RAND (V_POW2 + N_POW2 + 1) /* first random constant: 66 */

/* Row kinds for the witness solver. */
enum { K_NONE = 0, K_SOLVE = 1, K_FREEBIT = 2 };

enum { MA = CUZK_CIRCUIT_A, MB = CUZK_CIRCUIT_B, MC = CUZK_CIRCUIT_C };

/* Row types of the POREP generator. */
enum { T_BOOL, T_XOR, T_AND, T_CH, T_MAJP, T_COPY, T_FMUL, T_FLIN, T_PACK, T_N };

#define NONE UINT32_MAX

/* ---- random streams -------------------------------------------------------- */

/* splitmix64's finalizer (Steele, Lea, Flood 2014) to derive stream seeds;
 * xoshiro256** (Blackman, Vigna) for the streams themselves. */
static uint64_t mix64(uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

typedef struct {
    uint64_t s[4];
} rng;

static void rng_init(rng *r, uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
    uint64_t z = mix64(a ^ mix64(b ^ mix64(c ^ mix64(d))));
    for (int i = 0; i < 4; i++) {
        z += 0x9e3779b97f4a7c15ULL;
        r->s[i] = mix64(z);
    }
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(rng *r) {
    uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return res;
}

/* Uniform in [0, n) by the multiply-high method (Lemire); n >= 1. */
static inline uint64_t rng_below(rng *r, uint64_t n) {
    return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}
static inline double rng_unit(rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }
static inline bool rng_chance(rng *r, double p) { return rng_unit(r) < p; }

/* A uniform field element < r (rejection on 255-bit draws, ~2.2 tries). */
static void rng_fr(rng *r, cuzk_fr *out) {
    uint64_t l[4];
    do {
        for (int i = 0; i < 4; i++) l[i] = rng_next(r);
        l[3] &= 0x7fffffffffffffffULL;
    } while (!cuzk__lt_n(l, cuzk__fr_r, CUZK_FR_LIMBS));
    cuzk_fr_from_limbs(out, l);
}

/* Stream purposes. */
enum { S_STRUCT = 1, S_CONST = 2, S_INPUT = 3, S_FREE = 4, S_BITS = 5 };

/* ---- the generator ---------------------------------------------------------- */

typedef struct {
    double cum[T_N]; /* cumulative event probabilities (MAJP emits two rows) */
    double row_frac[T_N];
    double pack_len; /* PACK: mean A length (one field term + bits) */
    double fresh_b;  /* probability that a B operand is a variable not yet in B */
    double exempt;   /* probability that a defined variable never enters A */
} mix;

struct cuzk_gen {
    cuzk_gen_params p;
    double F; /* boolean fraction used */
    uint64_t nc, ni, naux;
    uint64_t chunk, nchunks;
    uint64_t nondef;            /* rows that define nothing (POREP) */
    uint64_t free_num, free_den; /* free field variables per row (DENSE) */
    uint64_t n_rand;            /* random constants in the value table */
    uint64_t stream;            /* hash of everything the structure depends on */
    mix m;
    uint8_t *kind; /* per row */
    cuzk_circuit c;
};

static uint64_t chunk_start(const cuzk_gen *g, uint64_t j) { return j * g->chunk; }
static uint64_t chunk_end(const cuzk_gen *g, uint64_t j) {
    uint64_t e = (j + 1) * g->chunk;
    return e < g->nc ? e : g->nc;
}
/* Non-defining rows among rows [0, r): spread evenly by a floor formula. */
static uint64_t nondef_before(const cuzk_gen *g, uint64_t r) {
    return g->nc ? (uint64_t)(((unsigned __int128)g->nondef * r) / g->nc) : 0;
}
static bool is_nondef(const cuzk_gen *g, uint64_t r) {
    return g->nondef && nondef_before(g, r + 1) > nondef_before(g, r);
}
static uint64_t free_before(const cuzk_gen *g, uint64_t r) {
    return g->free_num ? r * g->free_num / g->free_den : 0;
}
/* The first aux variable of chunk j: free ones first, then one per defining row. */
static uint64_t aux_base(const cuzk_gen *g, uint64_t j) {
    uint64_t s = chunk_start(g, j);
    return s - nondef_before(g, s) + free_before(g, s);
}
static uint64_t chunk_free(const cuzk_gen *g, uint64_t j) {
    return free_before(g, chunk_end(g, j)) - free_before(g, chunk_start(g, j));
}

/* POREP mix for a boolean fraction F. Row types and their entries (A, B, C):
 *   BOOL (2,1,0)  (1 - b) * b = 0, a free bit
 *   XOR  (2,1,3)  (x + x) * y = x + y - z       (bellman's Boolean::xor)
 *   AND  (1,1,1)  x * y = z
 *   CH   (2,1,2)  (f - g) * e = ch - g
 *   MAJP (1,1,1)+(3,1,2)  b * c = bc; (b + c - 2 bc) * a = maj - bc
 *   COPY (1,1,1)  input * ONE = z
 *   FMUL (1,1,1)  x * y = z over field values
 *   FLIN (3,1,2)  (c1 x1 + c2 x2 + c3 x3) * ONE = z + c4 w
 *   PACK (L,1,1)  (f + sum 2^i b_i) * ONE = z
 * Boolean rows: BOOL..MAJP; CH and MAJP take 10% of F each; XOR, AND and
 * BOOL solve the C-per-row equation with BOOL kept under the b_aux target;
 * PACK's length then meets the A-per-row target. Outside about
 * F in [0.6, 0.995] the equations have no solution and the nearest mix is
 * used (the achieved numbers are printed). */
static void porep_mix(double F, uint64_t nc, uint64_t ni, mix *m) {
    double g = 1.0 - F;
    double TA = REF_NNZ_A / (double)REF_CONSTRAINTS, TC = REF_NNZ_C / (double)REF_CONSTRAINTS;
    double r[T_N] = {0};
    double rc = 0.1 * F, rm = 0.1 * F, S = F - rc - rm;
    double RC = TC - 2 * rc - 1.5 * rm - 1.4 * g; /* = 3 rx + ra */
    double lo = fmax(0.0, (RC - S) / 2), hi = fmin(fmin(RC / 3, S), (0.2 - S + RC) / 2);
    double rx = lo <= hi ? (lo + hi) / 2 : (RC - S > 0 ? fmin(S, RC / 3) : 0);
    rx = fmin(fmax(rx, 0.0), S);
    double ra = fmin(fmax(RC - 3 * rx, 0.0), S - rx);
    double rb = S - rx - ra;
    r[T_BOOL] = rb;
    r[T_XOR] = rx;
    r[T_AND] = ra;
    r[T_CH] = rc;
    r[T_MAJP] = rm;
    double copy = fmin(0.1 * g, ni > 1 ? 4.0 * (double)(ni - 1) / (double)nc : 0.0);
    r[T_COPY] = copy;
    r[T_FMUL] = 0.3 * g - copy;
    r[T_FLIN] = 0.4 * g;
    r[T_PACK] = 0.3 * g;
    double abool = 2 * rb + 2 * rx + ra + 2 * rc + 2 * rm;
    double L = g > 0 ? ((TA - abool) / g - 1.5) / 0.3 : 2;
    m->pack_len = fmin(fmax(L, 2.0), 512.0);
    double slots = rx + ra + rc + rm / 2 + 0.3 * g;
    /* MAJP's c enters B in its AND row, but is often a variable already in B
     * (taken for A from the recent ones): 0.38 rm new B variables, measured. */
    double q = slots > 0 ? (REF_B_AUX - rb - 0.38 * rm) / slots : 0;
    m->fresh_b = fmin(fmax(q, 0.0), 1.0);
    m->exempt = rb < 1 ? fmin((1 - REF_A_AUX) / (1 - rb), 1.0) : 0;
    /* Events: MAJP is two rows. */
    double e[T_N], tot = 0;
    for (int t = 0; t < T_N; t++) {
        e[t] = r[t] / (t == T_MAJP ? 2.0 : 1.0);
        tot += e[t];
        m->row_frac[t] = r[t];
    }
    double acc = 0;
    for (int t = 0; t < T_N; t++) {
        acc += e[t] / tot;
        m->cum[t] = acc;
    }
    m->cum[T_N - 1] = 1.0;
}

/* ---- chunk context ------------------------------------------------------------ */

enum { BIT = 0, FLD = 1 };
enum { F_IN_A = 1, F_IN_B = 2 };
#define RING 64
enum { R_A = 0, R_B = 2, R_ALL = 4, R_N = 6 }; /* + kind */

typedef struct {
    const cuzk_gen *g;
    bool fill, full;
    uint64_t *rp[3];
    uint32_t *col[3], *val[3];
    uint8_t *kind;
    uint64_t pos[3];
    uint64_t row, start, end; /* global rows */
    uint64_t aux, aux0;       /* next aux, the chunk's first aux */
    rng r;
    /* POREP pools: local index = aux - aux0. */
    uint8_t *flags;
    uint32_t *pend_a[2]; /* FIFO of defined vars waiting for an A use */
    uint64_t pa_head[2], pa_tail[2];
    uint32_t *pend_b[2]; /* LIFO of vars not yet in B */
    uint64_t pb_top[2];
    uint32_t ring[R_N][RING];
    uint32_t ring_n[R_N], ring_i[R_N];
    uint64_t count[2];
    /* SHA: message schedule */
    uint32_t (*W)[32];
    uint64_t n_pack;
} ctx;

static inline uint64_t auxcol(const ctx *x, uint32_t a) { return x->g->ni + a; }

static inline void put(ctx *x, int m, uint64_t col, uint32_t v) {
    if (x->fill) {
        x->col[m][x->pos[m]] = (uint32_t)col;
        x->val[m][x->pos[m]] = v;
    }
    x->pos[m]++;
}
static inline void put_aux(ctx *x, int m, uint32_t a, uint32_t v) { put(x, m, auxcol(x, a), v); }

static inline void end_row(ctx *x, uint8_t kind) {
    if (x->fill) {
        for (int m = 0; m < 3; m++) x->rp[m][x->row + 1] = x->pos[m];
        x->kind[x->row] = kind;
    }
    x->row++;
}

static inline void ring_push(ctx *x, int w, uint32_t a) {
    x->ring[w][x->ring_i[w]++ % RING] = a;
    if (x->ring_n[w] < RING) x->ring_n[w]++;
}
static inline uint32_t ring_pick(ctx *x, int w) {
    return x->ring[w][rng_below(&x->r, x->ring_n[w])];
}
static inline uint8_t *flag(ctx *x, uint32_t a) { return &x->flags[a - x->aux0]; }

static uint32_t new_var(ctx *x, int k) {
    uint32_t a = (uint32_t)x->aux++;
    if (x->flags) *flag(x, a) = 0;
    x->count[k]++;
    ring_push(x, R_ALL + k, a);
    return a;
}
static void mark_a(ctx *x, int k, uint32_t a) {
    if (!(*flag(x, a) & F_IN_A)) {
        *flag(x, a) |= F_IN_A;
        ring_push(x, R_A + k, a);
    }
}
static void mark_b(ctx *x, int k, uint32_t a) {
    if (!(*flag(x, a) & F_IN_B)) {
        *flag(x, a) |= F_IN_B;
        ring_push(x, R_B + k, a);
    }
}
/* A defined variable joins the pools it still needs. */
static void offer(ctx *x, int k, uint32_t a) {
    uint8_t f = *flag(x, a);
    if (!(f & F_IN_A) && !rng_chance(&x->r, x->g->m.exempt)) x->pend_a[k][x->pa_tail[k]++] = a;
    if (!(f & F_IN_B)) x->pend_b[k][x->pb_top[k]++] = a;
}

/* An A operand of kind k: the oldest variable still waiting for an A use,
 * else a recent one already in A. Requires count[k] > 0. */
static uint32_t take_a(ctx *x, int k) {
    while (x->pa_head[k] < x->pa_tail[k]) {
        uint32_t a = x->pend_a[k][x->pa_head[k]++];
        if (!(*flag(x, a) & F_IN_A)) {
            mark_a(x, k, a);
            return a;
        }
    }
    if (x->ring_n[R_A + k]) return ring_pick(x, R_A + k);
    uint32_t a = ring_pick(x, R_ALL + k);
    mark_a(x, k, a);
    return a;
}

/* A B operand of kind k, not `avoid` where possible: with probability
 * fresh_b the newest variable not yet in B, else a recent one already in B. */
static uint32_t take_b(ctx *x, int k, uint32_t avoid) {
    bool fresh = rng_chance(&x->r, x->g->m.fresh_b);
    if (fresh || x->ring_n[R_B + k] == 0) {
        while (x->pb_top[k] > 0) {
            uint64_t i = x->pb_top[k] - 1;
            uint32_t a = x->pend_b[k][i];
            if (*flag(x, a) & F_IN_B) {
                x->pb_top[k]--;
                continue;
            }
            if (a == avoid) { /* usually the newest variable, just taken for A */
                if (i == 0) break;
                uint32_t b = x->pend_b[k][i - 1];
                x->pend_b[k][i - 1] = a; /* avoid stays on the stack */
                x->pb_top[k]--;
                if (*flag(x, b) & F_IN_B) continue;
                mark_b(x, k, b);
                return b;
            }
            x->pb_top[k]--;
            mark_b(x, k, a);
            return a;
        }
    }
    if (x->ring_n[R_B + k]) {
        uint32_t a = ring_pick(x, R_B + k);
        if (a == avoid) a = ring_pick(x, R_B + k);
        return a;
    }
    uint32_t a = ring_pick(x, R_ALL + k);
    mark_b(x, k, a);
    return a;
}

static uint32_t rand_const(ctx *x) {
    return (uint32_t)(V_RAND + rng_below(&x->r, x->g->n_rand));
}

/* ---- POREP rows ---------------------------------------------------------------- */

static void row_bool(ctx *x) {
    uint32_t b = new_var(x, BIT);
    put(x, MA, 0, V_ONE);
    put_aux(x, MA, b, V_M1);
    put_aux(x, MB, b, V_ONE);
    end_row(x, K_FREEBIT);
    if (x->flags) {
        mark_a(x, BIT, b);
        mark_b(x, BIT, b);
    }
}

static void row_boolchk(ctx *x) {
    if (x->count[BIT] == 0) { /* ONE * ONE = ONE */
        put(x, MA, 0, V_ONE);
        put(x, MB, 0, V_ONE);
        put(x, MC, 0, V_ONE);
        end_row(x, K_NONE);
        return;
    }
    uint32_t b = ring_pick(x, R_ALL + BIT);
    put(x, MA, 0, V_ONE);
    put_aux(x, MA, b, V_M1);
    put_aux(x, MB, b, V_ONE);
    end_row(x, K_NONE);
    mark_a(x, BIT, b);
    mark_b(x, BIT, b);
}

static void row_xor(ctx *x) {
    uint32_t a = take_a(x, BIT), b = take_b(x, BIT, a), z = new_var(x, BIT);
    put_aux(x, MA, a, V_ONE);
    put_aux(x, MA, a, V_ONE);
    put_aux(x, MB, b, V_ONE);
    put_aux(x, MC, z, V_M1);
    put_aux(x, MC, a, V_ONE);
    put_aux(x, MC, b, V_ONE);
    end_row(x, K_SOLVE);
    offer(x, BIT, z);
}

static void row_and(ctx *x) {
    uint32_t a = take_a(x, BIT), b = take_b(x, BIT, a), z = new_var(x, BIT);
    put_aux(x, MA, a, V_ONE);
    put_aux(x, MB, b, V_ONE);
    put_aux(x, MC, z, V_ONE);
    end_row(x, K_SOLVE);
    offer(x, BIT, z);
}

static void row_ch(ctx *x) {
    /* f and g must differ: f - f would make A's row empty after summing, and
     * a variable whose A (or B) coefficients all cancel has u(tau) = 0, an
     * identity point the setup refuses (bellman would drop it and misalign
     * its query; doc/lessons.md). */
    uint32_t f = take_a(x, BIT), gg = take_a(x, BIT);
    for (int t = 0; gg == f && t < 16; t++) gg = take_a(x, BIT);
    uint32_t e = take_b(x, BIT, f);
    uint32_t z = new_var(x, BIT);
    if (gg == f) { /* a single bit in play: an and row instead */
        put_aux(x, MA, f, V_ONE);
        put_aux(x, MB, e, V_ONE);
        put_aux(x, MC, z, V_ONE);
        end_row(x, K_SOLVE);
        offer(x, BIT, z);
        return;
    }
    put_aux(x, MA, f, V_ONE);
    put_aux(x, MA, gg, V_M1);
    put_aux(x, MB, e, V_ONE);
    put_aux(x, MC, z, V_ONE);
    put_aux(x, MC, gg, V_M1);
    end_row(x, K_SOLVE);
    offer(x, BIT, z);
}

static void row_majp(ctx *x) {
    uint32_t b = take_a(x, BIT), c = take_a(x, BIT), a = take_b(x, BIT, b);
    uint32_t bc = new_var(x, BIT);
    put_aux(x, MA, b, V_ONE);
    put_aux(x, MB, c, V_ONE);
    put_aux(x, MC, bc, V_ONE);
    end_row(x, K_SOLVE);
    mark_b(x, BIT, c);
    uint32_t z = new_var(x, BIT);
    put_aux(x, MA, b, V_ONE);
    put_aux(x, MA, c, V_ONE);
    put_aux(x, MA, bc, V_M2);
    put_aux(x, MB, a, V_ONE);
    put_aux(x, MC, z, V_ONE);
    put_aux(x, MC, bc, V_M1);
    end_row(x, K_SOLVE);
    mark_a(x, BIT, bc);
    offer(x, BIT, bc);
    offer(x, BIT, z);
}

static void row_copy(ctx *x) {
    uint32_t z = new_var(x, FLD);
    if (x->g->ni > 1)
        put(x, MA, 1 + rng_below(&x->r, x->g->ni - 1), V_ONE);
    else
        put(x, MA, 0, rand_const(x));
    put(x, MB, 0, V_ONE);
    put_aux(x, MC, z, V_ONE);
    end_row(x, K_SOLVE);
    offer(x, FLD, z);
}

static void row_fmul(ctx *x) {
    uint32_t a = take_a(x, FLD), b = take_b(x, FLD, a), z = new_var(x, FLD);
    put_aux(x, MA, a, V_ONE);
    put_aux(x, MB, b, V_ONE);
    put_aux(x, MC, z, V_ONE);
    end_row(x, K_SOLVE);
    offer(x, FLD, z);
}

static void row_flin(ctx *x) {
    uint32_t t[3];
    for (int i = 0; i < 3; i++) t[i] = take_a(x, FLD);
    uint32_t w = ring_pick(x, R_ALL + FLD), z = new_var(x, FLD);
    for (int i = 0; i < 3; i++) put_aux(x, MA, t[i], rand_const(x));
    put(x, MB, 0, V_ONE);
    put_aux(x, MC, z, V_ONE);
    put_aux(x, MC, w, rand_const(x));
    end_row(x, K_SOLVE);
    offer(x, FLD, z);
}

static void row_pack(ctx *x) {
    double L = x->g->m.pack_len;
    uint64_t n = (uint64_t)L;
    if (rng_chance(&x->r, L - (double)n)) n++;
    uint32_t f = take_a(x, FLD);
    put_aux(x, MA, f, V_ONE);
    for (uint64_t i = 1; i < n; i++)
        put_aux(x, MA, take_a(x, BIT), (uint32_t)(V_POW2 + 1 + (i - 1) % N_POW2));
    uint32_t z = new_var(x, FLD);
    put(x, MB, 0, V_ONE);
    put_aux(x, MC, z, V_ONE);
    end_row(x, K_SOLVE);
    offer(x, FLD, z);
}

static void gen_porep(ctx *x) {
    const mix *m = &x->g->m;
    /* Row types follow a Weyl sequence (k * golden ratio mod 1, random start)
     * over the cumulative probabilities rather than independent draws: the
     * type counts then stay within a few rows of their expectation, so even a
     * 2^10 circuit, with a handful of long PACK rows, meets the nnz targets. */
    double weyl = rng_unit(&x->r);
    while (x->row < x->end) {
        if (is_nondef(x->g, x->row)) {
            row_boolchk(x);
            continue;
        }
        weyl += 0.6180339887498949;
        if (weyl >= 1.0) weyl -= 1.0;
        double u = weyl;
        int t = 0;
        while (t < T_N - 1 && u >= m->cum[t]) t++;
        uint64_t nb = x->count[BIT];
        if ((t == T_XOR || t == T_AND) && nb < 2) t = T_BOOL;
        if ((t == T_CH || t == T_MAJP) && nb < 3) t = T_BOOL;
        if (t == T_MAJP && (x->row + 1 >= x->end || is_nondef(x->g, x->row + 1))) t = T_AND;
        if ((t == T_FMUL || t == T_FLIN || t == T_PACK) && x->count[FLD] == 0) t = T_COPY;
        if (t == T_PACK && nb == 0) t = T_COPY;
        switch (t) {
        case T_BOOL: row_bool(x); break;
        case T_XOR: row_xor(x); break;
        case T_AND: row_and(x); break;
        case T_CH: row_ch(x); break;
        case T_MAJP: row_majp(x); break;
        case T_COPY: row_copy(x); break;
        case T_FMUL: row_fmul(x); break;
        case T_FLIN: row_flin(x); break;
        default: row_pack(x); break;
        }
    }
}

/* ---- DENSE rows -------------------------------------------------------------- */

/* A column for a dense term: 45% a free field variable of any chunk (global
 * gathers), 45% a variable of this chunk so far, 10% an input. */
static uint64_t dense_term(ctx *x) {
    const cuzk_gen *g = x->g;
    double u = rng_unit(&x->r);
    if (u < 0.45) {
        uint64_t j = rng_below(&x->r, g->nchunks), nf = chunk_free(g, j);
        if (nf) return g->ni + aux_base(g, j) + rng_below(&x->r, nf);
    } else if (u < 0.9) {
        uint64_t nl = x->aux - x->aux0;
        if (nl) return g->ni + x->aux0 + rng_below(&x->r, nl);
    }
    return rng_below(&x->r, g->ni);
}

static uint32_t dense_coeff(ctx *x) {
    if (rng_chance(&x->r, 0.1)) return rng_chance(&x->r, 0.5) ? V_ONE : V_M1;
    return rand_const(x);
}

/* Up to k distinct dense terms into t (returns how many). A variable drawn
 * twice for one matrix of a row could cancel (1 and -1, or c and -c from the
 * constant table), and if those were its only entries in that matrix the
 * variable would be listed with a zero column, which the setup refuses; a
 * repeat is drawn again, a few times (a row keeps fewer terms only when the
 * pools are tiny). */
static uint64_t dense_terms(ctx *x, uint64_t *t, uint64_t k) {
    uint64_t n = 0;
    for (uint64_t i = 0; i < k; i++)
        for (int tries = 0; tries < 8; tries++) {
            const uint64_t j = dense_term(x);
            bool repeat = false;
            for (uint64_t q = 0; q < n; q++) repeat = repeat || t[q] == j;
            if (!repeat) {
                t[n++] = j;
                break;
            }
        }
    return n;
}

static void gen_dense(ctx *x) {
    while (x->row < x->end) {
        /* free variables make aux 1.25 rows: F of the aux are bits */
        if (rng_chance(&x->r, x->g->F * (double)(x->g->free_den + x->g->free_num) /
                                  (double)x->g->free_den)) {
            uint32_t b = new_var(x, BIT);
            put(x, MA, 0, V_ONE);
            put_aux(x, MA, b, V_M1);
            put_aux(x, MB, b, V_ONE);
            end_row(x, K_FREEBIT);
            continue;
        }
        uint64_t ka = 8 + rng_below(&x->r, 9), kb = 8 + rng_below(&x->r, 9);
        uint64_t kc = 7 + rng_below(&x->r, 9);
        uint64_t t[16];
        uint32_t v[16];
        ka = dense_terms(x, t, ka);
        for (uint64_t i = 0; i < ka; i++) put(x, MA, t[i], dense_coeff(x));
        kb = dense_terms(x, t, kb);
        for (uint64_t i = 0; i < kb; i++) put(x, MB, t[i], dense_coeff(x));
        /* C's terms before z exists: z is not one of them */
        kc = dense_terms(x, t, kc);
        for (uint64_t i = 0; i < kc; i++) v[i] = dense_coeff(x);
        uint32_t z = new_var(x, FLD);
        put_aux(x, MC, z, V_ONE);
        for (uint64_t i = 0; i < kc; i++) put(x, MC, t[i], v[i]);
        end_row(x, K_SOLVE);
    }
}

/* ---- SHA rows ---------------------------------------------------------------- */
/* Words are 32 variables, bit i of weight 2^i; NONE is a constant 0 bit
 * (from a shift). Every operation stops emitting once the chunk is full. */

static bool room(ctx *x) {
    if (x->row < x->end) return true;
    x->full = true;
    return false;
}

static uint32_t s_xor(ctx *x, uint32_t a, uint32_t b) {
    if (a == NONE) return b;
    if (b == NONE) return a;
    if (!room(x)) return NONE;
    uint32_t z = new_var(x, BIT);
    put_aux(x, MA, a, V_ONE);
    put_aux(x, MA, a, V_ONE);
    put_aux(x, MB, b, V_ONE);
    put_aux(x, MC, z, V_M1);
    put_aux(x, MC, a, V_ONE);
    put_aux(x, MC, b, V_ONE);
    end_row(x, K_SOLVE);
    return z;
}

static uint32_t s_and(ctx *x, uint32_t a, uint32_t b) {
    if (a == NONE || b == NONE || !room(x)) return NONE;
    uint32_t z = new_var(x, BIT);
    put_aux(x, MA, a, V_ONE);
    put_aux(x, MB, b, V_ONE);
    put_aux(x, MC, z, V_ONE);
    end_row(x, K_SOLVE);
    return z;
}

/* carry' = c * t + u (c*t and u = x AND y never both 1). */
static uint32_t s_carry(ctx *x, uint32_t c, uint32_t t, uint32_t u) {
    if (c == NONE || t == NONE) return u;
    if (!room(x)) return NONE;
    uint32_t z = new_var(x, BIT);
    put_aux(x, MA, c, V_ONE);
    put_aux(x, MB, t, V_ONE);
    put_aux(x, MC, z, V_ONE);
    if (u != NONE) put_aux(x, MC, u, V_M1);
    end_row(x, K_SOLVE);
    return z;
}

static void s_free_word(ctx *x, uint32_t *w) {
    for (int i = 0; i < 32; i++) {
        if (!room(x)) {
            w[i] = NONE;
            continue;
        }
        w[i] = new_var(x, BIT);
        put(x, MA, 0, V_ONE);
        put_aux(x, MA, w[i], V_M1);
        put_aux(x, MB, w[i], V_ONE);
        end_row(x, K_FREEBIT);
    }
}

/* Keeps the share of non-boolean rows at 1 - F: packs of a word, z = sum 2^i w_i. */
static void s_balance(ctx *x, const uint32_t *w) {
    double g = 1.0 - x->g->F;
    while (!x->full && (double)(x->n_pack + 1) <= g * (double)(x->row - x->start + 1)) {
        if (!room(x)) return;
        unsigned rot = (unsigned)(x->n_pack % 32);
        for (unsigned i = 0; i < 32; i++) {
            uint32_t b = w[(i + rot) % 32];
            if (b != NONE) put_aux(x, MA, b, i == 0 ? V_ONE : (uint32_t)(V_POW2 + i));
        }
        uint32_t z = new_var(x, FLD);
        put(x, MB, 0, V_ONE);
        put_aux(x, MC, z, V_ONE);
        end_row(x, K_SOLVE);
        x->n_pack++;
    }
}

static void s_add(ctx *x, uint32_t *out, const uint32_t *a, const uint32_t *b) {
    uint32_t carry = NONE;
    for (int i = 0; i < 32; i++) { /* out may alias a or b: read bit i first */
        uint32_t t = s_xor(x, a[i], b[i]);
        uint32_t u = i < 31 ? s_and(x, a[i], b[i]) : NONE;
        out[i] = s_xor(x, t, carry);
        if (i < 31) carry = s_carry(x, carry, t, u);
    }
    s_balance(x, out);
}

/* rotr(r1) ^ rotr(r2) ^ (r3 >= 0 ? rotr(r3) : shr(-r3)) */
static void s_sigma(ctx *x, uint32_t *out, const uint32_t *w, int r1, int r2, int r3) {
    for (int i = 0; i < 32; i++) {
        uint32_t a = w[(i + r1) % 32], b = w[(i + r2) % 32], c;
        if (r3 >= 0)
            c = w[(i + r3) % 32];
        else
            c = i - r3 < 32 ? w[i - r3] : NONE;
        out[i] = s_xor(x, s_xor(x, a, b), c);
    }
    s_balance(x, out);
}

static void s_ch(ctx *x, uint32_t *out, const uint32_t *e, const uint32_t *f, const uint32_t *g) {
    for (int i = 0; i < 32; i++) {
        if (e[i] == NONE || f[i] == NONE || g[i] == NONE || !room(x)) {
            out[i] = NONE;
            continue;
        }
        uint32_t z = new_var(x, BIT);
        put_aux(x, MA, f[i], V_ONE);
        put_aux(x, MA, g[i], V_M1);
        put_aux(x, MB, e[i], V_ONE);
        put_aux(x, MC, z, V_ONE);
        put_aux(x, MC, g[i], V_M1);
        end_row(x, K_SOLVE);
        out[i] = z;
    }
    s_balance(x, out);
}

static void s_maj(ctx *x, uint32_t *out, const uint32_t *a, const uint32_t *b, const uint32_t *c) {
    for (int i = 0; i < 32; i++) {
        uint32_t bc = s_and(x, b[i], c[i]);
        if (bc == NONE || a[i] == NONE || !room(x)) {
            out[i] = NONE;
            continue;
        }
        uint32_t z = new_var(x, BIT);
        put_aux(x, MA, b[i], V_ONE);
        put_aux(x, MA, c[i], V_ONE);
        put_aux(x, MA, bc, V_M2);
        put_aux(x, MB, a[i], V_ONE);
        put_aux(x, MC, z, V_ONE);
        put_aux(x, MC, bc, V_M1);
        end_row(x, K_SOLVE);
        out[i] = z;
    }
    s_balance(x, out);
}

/* One SHA-256 compression of H (FIPS 180-4 §6.2.2 without the K_t). */
static void s_compress(ctx *x, uint32_t H[8][32]) {
    uint32_t (*W)[32] = x->W;
    uint32_t v[8][32], s0[32], s1[32], t1[32], t2[32], tmp[32], tmp2[32];
    for (int t = 0; t < 16 && !x->full; t++) s_free_word(x, W[t]);
    memcpy(v, H, sizeof(v));
    for (int t = 0; t < 64 && !x->full; t++) {
        if (t >= 16) {
            s_sigma(x, s1, W[t - 2], 17, 19, -10);
            s_sigma(x, s0, W[t - 15], 7, 18, -3);
            s_add(x, tmp, s1, W[t - 7]);
            s_add(x, tmp2, tmp, s0);
            s_add(x, W[t], tmp2, W[t - 16]);
        }
        s_sigma(x, s1, v[4], 6, 11, 25);
        s_ch(x, tmp, v[4], v[5], v[6]);
        s_add(x, tmp2, v[7], s1);
        s_add(x, t1, tmp2, tmp);
        s_add(x, tmp2, t1, W[t]);
        memcpy(t1, tmp2, sizeof(t1));
        s_sigma(x, s0, v[0], 2, 13, 22);
        s_maj(x, tmp, v[0], v[1], v[2]);
        s_add(x, t2, s0, tmp);
        memmove(v[1], v[0], 7 * sizeof(v[0]));
        s_add(x, v[4], v[4], t1); /* v[4] now holds the old d */
        s_add(x, v[0], t1, t2);
    }
    for (int i = 0; i < 8 && !x->full; i++) s_add(x, H[i], H[i], v[i]);
}

static void gen_sha(ctx *x) {
    uint32_t H[8][32];
    for (int i = 0; i < 8; i++) s_free_word(x, H[i]);
    while (!x->full && x->row < x->end) s_compress(x, H);
}

/* ---- passes ------------------------------------------------------------------ */

typedef struct {
    uint8_t *flags;
    uint32_t *pend[4];
    uint32_t (*W)[32];
} scratch;

static bool scratch_new(scratch *s, const cuzk_gen *g) {
    memset(s, 0, sizeof(*s));
    if (g->p.profile == CUZK_GEN_SHA) {
        s->W = malloc(64 * sizeof(*s->W));
        return s->W != NULL;
    }
    if (g->p.profile != CUZK_GEN_POREP) return true;
    size_t cap = (size_t)g->chunk + 2;
    s->flags = malloc(cap);
    bool ok = s->flags != NULL;
    for (int i = 0; i < 4; i++) ok = ok && (s->pend[i] = malloc(cap * 4)) != NULL;
    return ok;
}
static void scratch_free(scratch *s) {
    free(s->flags);
    for (int i = 0; i < 4; i++) free(s->pend[i]);
    free(s->W);
}

/* Runs chunk j; in count mode (rp == NULL) nnz[m] receives its entries.
 * false when its context cannot be allocated. */
static bool run_chunk(const cuzk_gen *g, uint64_t j, scratch *s, uint64_t *const rp[3],
                      uint32_t *const col[3], uint32_t *const val[3], uint8_t *kind,
                      const uint64_t base[3], uint64_t nnz[3], uint64_t *aux_end) {
    ctx *x = malloc(sizeof(ctx));
    if (x == NULL) return false;
    memset(x, 0, sizeof(*x));
    x->g = g;
    x->fill = rp != NULL;
    for (int m = 0; m < 3; m++) {
        x->rp[m] = rp ? rp[m] : NULL;
        x->col[m] = col ? col[m] : NULL;
        x->val[m] = val ? val[m] : NULL;
        x->pos[m] = base ? base[m] : 0;
    }
    x->kind = kind;
    x->start = x->row = chunk_start(g, j);
    x->end = chunk_end(g, j);
    x->aux0 = aux_base(g, j);
    x->aux = x->aux0 + chunk_free(g, j);
    rng_init(&x->r, g->stream, S_STRUCT, j, 0);
    x->flags = s->flags;
    x->pend_a[0] = s->pend[0];
    x->pend_a[1] = s->pend[1];
    x->pend_b[0] = s->pend[2];
    x->pend_b[1] = s->pend[3];
    x->W = s->W;
    switch (g->p.profile) {
    case CUZK_GEN_POREP: gen_porep(x); break;
    case CUZK_GEN_DENSE: gen_dense(x); break;
    default: gen_sha(x); break;
    }
    /* SHA stops inside an operation when the chunk is full; the rest is
     * padded with free bits (at most a few rows: every row is a single step). */
    while (x->row < x->end) {
        uint32_t b = new_var(x, BIT);
        put(x, MA, 0, V_ONE);
        put_aux(x, MA, b, V_M1);
        put_aux(x, MB, b, V_ONE);
        end_row(x, K_FREEBIT);
    }
    for (int m = 0; m < 3; m++) nnz[m] = x->pos[m] - (base ? base[m] : 0);
    *aux_end = x->aux;
    free(x);
    return true;
}

/* ---- public ------------------------------------------------------------------- */

int cuzk_gen_profile_from_name(const char *name) {
    if (name == NULL) return -1;
    if (strcmp(name, "porep") == 0) return CUZK_GEN_POREP;
    if (strcmp(name, "dense") == 0) return CUZK_GEN_DENSE;
    if (strcmp(name, "sha") == 0) return CUZK_GEN_SHA;
    return -1;
}

const char *cuzk_gen_profile_name(cuzk_gen_profile p) {
    switch (p) {
    case CUZK_GEN_POREP: return "porep";
    case CUZK_GEN_DENSE: return "dense";
    case CUZK_GEN_SHA: return "sha";
    }
    return "?";
}

void cuzk_gen_targets_for(cuzk_gen_profile p, cuzk_gen_targets *t) {
    memset(t, 0, sizeof(*t));
    t->a_aux = t->b_aux = -1;
    switch (p) {
    case CUZK_GEN_POREP:
        t->nnz_per_row[0] = REF_NNZ_A / (double)REF_CONSTRAINTS;
        t->nnz_per_row[1] = REF_NNZ_B / (double)REF_CONSTRAINTS;
        t->nnz_per_row[2] = REF_NNZ_C / (double)REF_CONSTRAINTS;
        t->a_aux = REF_A_AUX;
        t->b_aux = REF_B_AUX;
        t->aux_per_row = (double)REF_AUX / (double)REF_CONSTRAINTS;
        t->boolean_fraction = POREP_BOOL_DEFAULT;
        t->b_inp_count = 1;
        break;
    case CUZK_GEN_DENSE: t->boolean_fraction = DENSE_BOOL_DEFAULT; break;
    case CUZK_GEN_SHA: t->boolean_fraction = SHA_BOOL_DEFAULT; break;
    }
}

const cuzk_circuit *cuzk_gen_circuit(const cuzk_gen *g) { return &g->c; }
double cuzk_gen_boolean_fraction_used(const cuzk_gen *g) { return g->F; }

void cuzk_gen_free(cuzk_gen *g) {
    if (g == NULL) return;
    cuzk_circuit_close(&g->c);
    free(g->kind);
    free(g);
}

static uint64_t dbl_bits(double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

cuzk_status cuzk_gen_new(cuzk_gen **out, const cuzk_gen_params *p, cuzk_error *err) {
    *out = NULL;
    if (p == NULL || (unsigned)p->profile > CUZK_GEN_SHA)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "gen-circuit: unknown profile");
    if (p->log_constraints < CUZK_GEN_MIN_LOG || p->log_constraints > CUZK_GEN_MAX_LOG)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "gen-circuit: log-constraints %u outside %u..%u", p->log_constraints,
                          CUZK_GEN_MIN_LOG, CUZK_GEN_MAX_LOG);
    cuzk_gen_targets tg;
    cuzk_gen_targets_for(p->profile, &tg);
    double F = p->boolean_fraction < 0 ? tg.boolean_fraction : p->boolean_fraction;
    if (!(F >= 0.0 && F <= 1.0))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "gen-circuit: boolean fraction %g outside [0, 1]", F);
    cuzk_gen *g = calloc(1, sizeof(*g));
    if (g == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "gen-circuit: out of memory");
    g->p = *p;
    g->F = F;
    unsigned K = p->log_constraints;
    uint64_t dom = (uint64_t)1 << K;
    /* The PoRep ratio of constraints to the domain for every profile. */
    g->nc = (REF_CONSTRAINTS << K) >> 27;
    uint64_t room_in = dom - g->nc, want_in = p->profile == CUZK_GEN_POREP ? REF_INPUTS : 32;
    g->ni = want_in < room_in ? want_in : room_in;
    if (p->profile == CUZK_GEN_POREP) {
        uint64_t naux = (uint64_t)(((unsigned __int128)REF_AUX * g->nc + REF_CONSTRAINTS / 2) /
                                   REF_CONSTRAINTS);
        g->nondef = g->nc - naux;
        g->chunk = (uint64_t)1 << 14;
        g->n_rand = g->nc / 64 < 64 ? 64 : g->nc / 64 > 4096 ? 4096 : g->nc / 64;
    } else if (p->profile == CUZK_GEN_DENSE) {
        g->free_num = 1;
        g->free_den = 4;
        g->chunk = (uint64_t)1 << 14;
        g->n_rand = g->nc < 1024 ? 1024 : g->nc > ((uint64_t)1 << 20) ? (uint64_t)1 << 20 : g->nc;
    } else {
        g->chunk = (uint64_t)1 << 17; /* one compression (~87k rows) and more per chunk */
        g->n_rand = 1;
    }
    g->nchunks = (g->nc + g->chunk - 1) / g->chunk;
    g->naux = g->nc - g->nondef + free_before(g, g->nc);
    g->stream = mix64(p->seed ^ mix64((uint64_t)p->profile * 131 + K) ^ mix64(dbl_bits(F)));
    if (p->profile == CUZK_GEN_POREP) porep_mix(F, g->nc, g->ni, &g->m);

    cuzk_status st = CUZK_OK;
    uint64_t nc = g->nc, nch = g->nchunks;
    int t = (int)cuzk_circuit_threads(p->threads);
    (void)t;
    uint64_t *cnt = calloc((size_t)nch * 3, sizeof(uint64_t));
    uint64_t *rp[3] = {NULL, NULL, NULL};
    uint32_t *col[3] = {NULL, NULL, NULL}, *val[3] = {NULL, NULL, NULL};
    uint64_t n_values = V_RAND + g->n_rand;
    cuzk_fr *values = malloc((size_t)n_values * sizeof(cuzk_fr));
    g->kind = cuzk__alloc_large((size_t)nc ? (size_t)nc : 1);
    int bad = 0;
    uint64_t nnz[3] = {0, 0, 0}, mism = 0;
    if (cnt == NULL || values == NULL || g->kind == NULL) {
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "gen-circuit: out of memory");
        goto done;
    }
    /* Count pass. */
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel num_threads(t) reduction(| : bad)
#endif
    {
        scratch s;
        if (!scratch_new(&s, g)) {
            bad = 1;
        } else {
#if defined(CUZK_HAVE_OPENMP)
#pragma omp for schedule(dynamic, 1)
#endif
            for (int64_t j = 0; j < (int64_t)nch; j++) {
                uint64_t ae;
                if (!run_chunk(g, (uint64_t)j, &s, NULL, NULL, NULL, NULL, NULL, &cnt[3 * j], &ae)) {
                    bad |= 1;
                    continue;
                }
                uint64_t want = (uint64_t)j + 1 < nch ? aux_base(g, (uint64_t)j + 1) : g->naux;
                bad |= (ae != want) << 1;
            }
        }
        scratch_free(&s);
    }
    if (bad) {
        st = (bad & 1) ? cuzk__fail(err, CUZK_ERR_NOMEM, "gen-circuit: out of memory for chunk scratch")
                       : cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                                    "gen-circuit: internal error: a chunk defined the wrong number "
                                    "of variables");
        goto done;
    }
    /* Offsets. */
    for (uint64_t j = 0; j < nch; j++)
        for (int m = 0; m < 3; m++) {
            uint64_t c = cnt[3 * j + m];
            cnt[3 * j + m] = nnz[m];
            nnz[m] += c;
        }
    for (int m = 0; m < 3; m++) {
        rp[m] = cuzk__alloc_large((size_t)(nc + 1) * 8);
        col[m] = cuzk__alloc_large(nnz[m] ? (size_t)nnz[m] * 4 : 4);
        val[m] = cuzk__alloc_large(nnz[m] ? (size_t)nnz[m] * 4 : 4);
        if (rp[m] == NULL || col[m] == NULL || val[m] == NULL) {
            st = cuzk__fail(err, CUZK_ERR_NOMEM,
                            "gen-circuit: out of memory for %llu entries of matrix %c",
                            (ull)nnz[m], "ABC"[m]);
            goto done;
        }
        rp[m][0] = 0;
    }
    /* Fill pass. */
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel num_threads(t) reduction(| : bad) reduction(+ : mism)
#endif
    {
        scratch s;
        if (!scratch_new(&s, g)) {
            bad = 1;
        } else {
#if defined(CUZK_HAVE_OPENMP)
#pragma omp for schedule(dynamic, 1)
#endif
            for (int64_t j = 0; j < (int64_t)nch; j++) {
                uint64_t got[3];
                const uint64_t *base = &cnt[3 * j];
                uint64_t ae;
                if (!run_chunk(g, (uint64_t)j, &s, rp, col, val, g->kind, base, got, &ae)) {
                    bad |= 1;
                    continue;
                }
                uint64_t nxt[3];
                for (int m = 0; m < 3; m++)
                    nxt[m] = (uint64_t)j + 1 < nch ? cnt[3 * (j + 1) + m] : nnz[m];
                for (int m = 0; m < 3; m++) mism += base[m] + got[m] != nxt[m];
            }
        }
        scratch_free(&s);
    }
    if (bad || mism) {
        st = cuzk__fail(err, bad ? CUZK_ERR_NOMEM : CUZK_ERR_UNSUPPORTED,
                        bad ? "gen-circuit: out of memory for chunk scratch"
                            : "gen-circuit: internal error: the fill pass disagrees with the "
                              "count pass");
        goto done;
    }
    /* Value table. */
    cuzk_fr_set_one(&values[V_ONE]);
    cuzk_fr_neg(&values[V_M1], &values[V_ONE]);
    cuzk_fr_add(&values[V_M2], &values[V_M1], &values[V_M1]);
    cuzk_fr_add(&values[V_POW2 + 1], &values[V_ONE], &values[V_ONE]);
    for (unsigned i = 2; i <= N_POW2; i++)
        cuzk_fr_add(&values[V_POW2 + i], &values[V_POW2 + i - 1], &values[V_POW2 + i - 1]);
    {
        rng r;
        rng_init(&r, g->stream, S_CONST, 0, 0);
        for (uint64_t i = 0; i < g->n_rand; i++) rng_fr(&r, &values[V_RAND + i]);
    }
    {
        char name[64];
        snprintf(name, sizeof(name), "gen-%s-2^%u", cuzk_gen_profile_name(p->profile), K);
        const uint64_t *crp[3] = {rp[0], rp[1], rp[2]};
        const uint32_t *ccol[3] = {col[0], col[1], col[2]}, *cval[3] = {val[0], val[1], val[2]};
        st = cuzk_circuit_build_indexed(&g->c, nc, g->ni, g->naux, values, n_values, crp, ccol,
                                        cval, name, err);
    }
done:
    for (int m = 0; m < 3; m++) {
        free(rp[m]);
        free(col[m]);
        free(val[m]);
    }
    free(values);
    free(cnt);
    if (st != CUZK_OK) {
        cuzk_gen_free(g);
        return st;
    }
    *out = g;
    return CUZK_OK;
}

/* ---- witness ------------------------------------------------------------------ */

/* sum over the row's entries from `skip` on of coefficient * w[col]. */
static void lc_eval(cuzk_fr *out, const cuzk_csr *m, const cuzk_fr *vals, uint64_t row,
                    uint64_t skip, const cuzk_fr *w) {
    cuzk_fr acc, t;
    cuzk_fr_set_zero(&acc);
    for (uint64_t k = m->row_ptr[row] + skip, e = m->row_ptr[row + 1]; k < e; k++) {
        uint32_t v = m->val[k];
        const cuzk_fr *x = &w[m->col[k]];
        if (v == V_ONE) {
            cuzk_fr_add(&acc, &acc, x);
        } else if (v == V_M1) {
            cuzk_fr_sub(&acc, &acc, x);
        } else {
            cuzk_fr_mul(&t, &vals[v], x);
            cuzk_fr_add(&acc, &acc, &t);
        }
    }
    *out = acc;
}

static void solve_chunk(const cuzk_gen *g, uint64_t j, unsigned partition, cuzk_fr *w) {
    const cuzk_circuit *c = &g->c;
    const cuzk_csr *A = &c->m[MA], *B = &c->m[MB], *C = &c->m[MC];
    rng r;
    rng_init(&r, g->stream, S_BITS, partition, j);
    uint64_t bits = 0;
    unsigned nbits = 0;
    for (uint64_t row = chunk_start(g, j), e = chunk_end(g, j); row < e; row++) {
        uint8_t k = g->kind[row];
        if (k == K_FREEBIT) {
            if (nbits == 0) {
                bits = rng_next(&r);
                nbits = 64;
            }
            cuzk_fr *v = &w[B->col[B->row_ptr[row]]];
            if (bits & 1)
                cuzk_fr_set_one(v);
            else
                cuzk_fr_set_zero(v);
            bits >>= 1;
            nbits--;
        } else if (k == K_SOLVE) {
            cuzk_fr a, b, rest, z;
            lc_eval(&a, A, c->values, row, 0, w);
            lc_eval(&b, B, c->values, row, 0, w);
            lc_eval(&rest, C, c->values, row, 1, w);
            cuzk_fr_mul(&z, &a, &b);
            cuzk_fr_sub(&z, &z, &rest);
            uint64_t k0 = C->row_ptr[row];
            if (C->val[k0] == V_M1) cuzk_fr_neg(&z, &z);
            w[C->col[k0]] = z;
        }
    }
}

cuzk_status cuzk_gen_witness(const cuzk_gen *g, unsigned partition, cuzk_witness *wit,
                             cuzk_error *err) {
    memset(wit, 0, sizeof(*wit));
    uint64_t ni = g->ni, n = ni + g->naux;
    cuzk_fr *w = cuzk__calloc_large((size_t)n, sizeof(cuzk_fr));
    if (w == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "gen-circuit: out of memory for %llu values",
                          (ull)n);
    int t = (int)cuzk_circuit_threads(g->p.threads);
    (void)t;
    {
        rng r;
        rng_init(&r, g->stream, S_INPUT, partition, 0);
        cuzk_fr_set_one(&w[0]);
        for (uint64_t i = 1; i < ni; i++) rng_fr(&r, &w[i]);
    }
    int64_t nch = (int64_t)g->nchunks;
    if (g->free_num) {
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(t) schedule(dynamic, 1)
#endif
        for (int64_t j = 0; j < nch; j++) {
            rng r;
            rng_init(&r, g->stream, S_FREE, partition, (uint64_t)j);
            uint64_t a0 = ni + aux_base(g, (uint64_t)j), nf = chunk_free(g, (uint64_t)j);
            for (uint64_t i = 0; i < nf; i++) rng_fr(&r, &w[a0 + i]);
        }
    }
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(t) schedule(dynamic, 1)
#endif
    for (int64_t j = 0; j < nch; j++) solve_chunk(g, (uint64_t)j, partition, w);
    /* Montgomery -> plain limbs in place (same 32 bytes per value). */
    int64_t sn = (int64_t)n;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(t) schedule(static)
#endif
    for (int64_t i = 0; i < sn; i++) {
        cuzk_fr v = w[i];
        cuzk_fr_to_limbs(w[i].l, &v);
    }
    char name[80];
    snprintf(name, sizeof(name), "gen-%s-2^%u-w%u", cuzk_gen_profile_name(g->p.profile),
             g->p.log_constraints, partition);
    cuzk_status st = cuzk_witness_from_values(wit, (const uint64_t *)(const void *)w, ni, g->naux,
                                              name, err);
    free(w);
    return st;
}

/* ---- statistics ---------------------------------------------------------------- */

void cuzk_gen_stats_of(const cuzk_circuit *c, cuzk_gen_stats *s, unsigned threads) {
    memset(s, 0, sizeof(*s));
    s->n_constraints = c->n_constraints;
    s->n_inputs = c->n_inputs;
    s->n_aux = c->n_aux;
    s->domain_size = c->domain_size;
    s->n_values = c->n_values;
    uint64_t pm1 = 0, tot = 0, maxlen = 0;
    uint64_t nw = (c->n_values + 63) / 64;
    uint64_t *used = calloc((size_t)nw, 8);
    int t = (int)cuzk_circuit_threads(threads);
    (void)t;
    for (int m = 0; m < 3; m++) {
        const cuzk_csr *x = &c->m[m];
        s->nnz[m] = x->nnz;
        s->nnz_per_row[m] = c->n_constraints ? (double)x->nnz / (double)c->n_constraints : 0;
        int64_t n = (int64_t)x->nnz, nr = (int64_t)c->n_constraints;
        uint64_t p = 0, ml = 0;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(t) schedule(static) reduction(+ : p)
#endif
        for (int64_t k = 0; k < n; k++) {
            uint32_t v = x->val[k];
            p += v <= V_M1;
            if (used != NULL) {
                uint64_t bit = (uint64_t)1 << (v % 64), *wd = &used[v / 64];
                if ((__atomic_load_n(wd, __ATOMIC_RELAXED) & bit) == 0)
                    __atomic_fetch_or(wd, bit, __ATOMIC_RELAXED);
            }
        }
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(t) schedule(static) reduction(max : ml)
#endif
        for (int64_t i = 0; i < nr; i++) {
            uint64_t len = x->row_ptr[i + 1] - x->row_ptr[i];
            if (len > ml) ml = len;
        }
        pm1 += p;
        tot += x->nnz;
        if (ml > maxlen) maxlen = ml;
    }
    s->pm1_fraction = tot ? (double)pm1 / (double)tot : 0;
    s->max_row_len = maxlen;
    if (used != NULL)
        for (uint64_t i = 0; i < nw; i++) s->values_used += (uint64_t)__builtin_popcountll(used[i]);
    free(used);
    s->a_aux = c->n_aux ? (double)c->a_aux_count / (double)c->n_aux : 0;
    s->b_aux = c->n_aux ? (double)c->b_aux_count / (double)c->n_aux : 0;
    s->b_inp_count = c->b_inp_count;
}

double cuzk_gen_witness_boolean_fraction(const cuzk_witness *w, unsigned threads) {
    int64_t n = (int64_t)w->n_aux;
    const uint64_t *v = w->values + 4 * w->n_inputs;
    uint64_t cnt = 0;
    int t = (int)cuzk_circuit_threads(threads);
    (void)t;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(t) schedule(static) reduction(+ : cnt)
#endif
    for (int64_t i = 0; i < n; i++) {
        const uint64_t *x = v + 4 * i;
        cnt += x[0] <= 1 && x[1] == 0 && x[2] == 0 && x[3] == 0;
    }
    return n ? (double)cnt / (double)n : 0;
}
