/*
 * ptau.c — the development powers-of-tau writer (ptau.h).
 *
 * Work at power p (n = 2^p): 12n - 4 G1 and 3n - 1 G2 fixed-base
 * multiplications (sections 2, 4, 5: 4n - 1; 12: 4n - 1; 14, 15: 4n - 2;
 * sections 3, 13: 3n - 1 in G2; 6: 1), and in Fr 2n tau powers plus, per
 * Lagrange block of size m, m subtractions, one batch inversion (3m M and one
 * inversion) and 3m M for the closed form.
 */
#include "groth16/ptau.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/binfile.h"
#include "util/atomic_write.h"
#include "ec/encode.h"
#include "ec/fixed_base.h"
#include "ec/g1.h"
#include "ec/g2.h"

/* ---- SHA-256 (FIPS 180-4), for deriving the secrets from a seed ------------- */

static const uint32_t sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

static inline uint32_t sha_ror(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static void sha_block(uint32_t h[8], const uint8_t b[64]) {
    uint32_t w[64], s[8];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 |
               (uint32_t)b[4 * i + 2] << 8 | (uint32_t)b[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = sha_ror(w[i - 15], 7) ^ sha_ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = sha_ror(w[i - 2], 17) ^ sha_ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    memcpy(s, h, sizeof(s));
    for (int i = 0; i < 64; i++) {
        uint32_t e = s[4], a = s[0];
        uint32_t t1 = s[7] + (sha_ror(e, 6) ^ sha_ror(e, 11) ^ sha_ror(e, 25)) +
                      ((e & s[5]) ^ (~e & s[6])) + sha_k[i] + w[i];
        uint32_t t2 = (sha_ror(a, 2) ^ sha_ror(a, 13) ^ sha_ror(a, 22)) +
                      ((a & s[1]) ^ (a & s[2]) ^ (s[1] & s[2]));
        memmove(&s[1], &s[0], 7 * sizeof(uint32_t));
        s[4] += t1;
        s[0] = t1 + t2;
    }
    for (int i = 0; i < 8; i++) h[i] += s[i];
}

typedef struct {
    uint32_t h[8];
    uint8_t buf[64];
    uint64_t len; /* bytes hashed so far */
} sha_ctx;

static void sha_init(sha_ctx *c) {
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, iv, sizeof(iv));
    c->len = 0;
}

static void sha_update(sha_ctx *c, const void *data, size_t len) {
    const uint8_t *p = data;
    while (len > 0) {
        size_t have = (size_t)(c->len % 64), take = 64 - have < len ? 64 - have : len;
        memcpy(c->buf + have, p, take);
        c->len += take;
        p += take;
        len -= take;
        if (c->len % 64 == 0) sha_block(c->h, c->buf);
    }
}

static void sha_final(sha_ctx *c, uint8_t out[32]) {
    uint64_t bits = c->len * 8;
    uint8_t pad[72] = {0x80};
    size_t have = (size_t)(c->len % 64), padlen = have < 56 ? 56 - have : 120 - have;
    for (int i = 0; i < 8; i++) pad[padlen + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
    sha_update(c, pad, padlen + 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(c->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)c->h[i];
    }
}

void cuzk__sha256(uint8_t out[32], const void *data, size_t len) {
    sha_ctx c;
    sha_init(&c);
    sha_update(&c, data, len);
    sha_final(&c, out);
}

/* ---- secrets ------------------------------------------------------------------- */

/* a^(2^32) == 1: a is a root of unity of 2-power order (or the test fails for 0). */
static int fr_is_2adic_root(const cuzk_fr *a) {
    cuzk_fr t = *a;
    for (int i = 0; i < 32; i++) cuzk_fr_sqr(&t, &t);
    return cuzk_fr_is_one(&t);
}

static void derive_one(cuzk_fr *r, const char *label, const void *seed, size_t seed_len,
                       int not_root) {
    static const char domain[] = "cuzk-ptau-dev-v1";
    for (uint32_t ctr = 0;; ctr++) {
        uint8_t h[32], c4[4];
        for (int i = 0; i < 4; i++) c4[i] = (uint8_t)(ctr >> (8 * i));
        sha_ctx c;
        sha_init(&c);
        sha_update(&c, domain, sizeof(domain)); /* with its NUL */
        sha_update(&c, label, strlen(label) + 1);
        sha_update(&c, seed, seed_len);
        sha_update(&c, c4, 4);
        sha_final(&c, h);
        h[31] &= 0x7f;
        cuzk_fr t;
        if (!cuzk_fr_from_bytes_le(&t, h) || cuzk_fr_is_zero(&t)) continue;
        if (not_root && fr_is_2adic_root(&t)) continue;
        *r = t;
        return;
    }
}

void cuzk_ptau_secrets_from_seed(cuzk_ptau_secrets *s, const void *seed, size_t seed_len) {
    derive_one(&s->tau, "tau", seed, seed_len, 1);
    derive_one(&s->alpha, "alpha", seed, seed_len, 0);
    derive_one(&s->beta, "beta", seed, seed_len, 0);
}

/* ---- layout ---------------------------------------------------------------------- */

uint64_t cuzk_ptau_section_points(uint32_t id, unsigned power) {
    uint64_t n = (uint64_t)1 << power;
    switch (id) {
    case CUZK_PTAU_SEC_TAU_G1: return 2 * n - 1;
    case CUZK_PTAU_SEC_TAU_G2:
    case CUZK_PTAU_SEC_ALPHA_TAU_G1:
    case CUZK_PTAU_SEC_BETA_TAU_G1: return n;
    case CUZK_PTAU_SEC_BETA_G2: return 1;
    case CUZK_PTAU_SEC_LAGRANGE_TAU_G1: return 4 * n - 1; /* blocks 0..power+1 */
    case CUZK_PTAU_SEC_LAGRANGE_TAU_G2:
    case CUZK_PTAU_SEC_LAGRANGE_ALPHA_G1:
    case CUZK_PTAU_SEC_LAGRANGE_BETA_G1: return 2 * n - 1; /* blocks 0..power */
    default: return 0;
    }
}

static int is_g2_section(uint32_t id) {
    return id == CUZK_PTAU_SEC_TAU_G2 || id == CUZK_PTAU_SEC_BETA_G2 ||
           id == CUZK_PTAU_SEC_LAGRANGE_TAU_G2;
}

uint64_t cuzk_ptau_section_bytes(uint32_t id, unsigned power) {
    if (id == CUZK_PTAU_SEC_HEADER) return 4 + CUZK_FP_BYTES + 4 + 4;
    if (id == CUZK_PTAU_SEC_CONTRIBUTIONS) return 4;
    return cuzk_ptau_section_points(id, power) * (is_g2_section(id) ? 192u : 96u);
}

static const uint32_t file_sections[] = {1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15};
#define N_FILE_SECTIONS (sizeof(file_sections) / sizeof(file_sections[0]))

uint64_t cuzk_ptau_file_bytes(unsigned power) {
    uint64_t total = CUZK_BINFILE_HEADER_BYTES;
    for (size_t i = 0; i < N_FILE_SECTIONS; i++)
        total += CUZK_BINFILE_SECTION_HEADER_BYTES + cuzk_ptau_section_bytes(file_sections[i], power);
    return total;
}

/* ---- Fr: roots, powers, Lagrange coefficients ------------------------------------ */

/* omega_(2^32) = 5^t, t = (r - 1) / 2^32 (ffjavascript: nqr = 5). */
void cuzk__ptau_root(cuzk_fr *w, unsigned j) {
    static const uint64_t r_limbs[4] = CUZK__FR_R;
    uint64_t t[4];
    t[0] = (r_limbs[0] >> 32) | (r_limbs[1] << 32); /* (r - 1) >> 32: the low 32 bits of r - 1 are 0 */
    t[1] = (r_limbs[1] >> 32) | (r_limbs[2] << 32);
    t[2] = (r_limbs[2] >> 32) | (r_limbs[3] << 32);
    t[3] = r_limbs[3] >> 32;
    cuzk_fr five;
    cuzk_fr_from_u64(&five, 5);
    cuzk_fr_pow(w, &five, t, 4);
    for (unsigned i = j; i < 32; i++) cuzk_fr_sqr(w, w);
}

cuzk_status cuzk__ptau_lagrange_scalars(cuzk_fr *out, const cuzk_fr *tau, unsigned last,
                                        int zero_top) {
    if (last > 32 || cuzk_fr_is_zero(tau) || fr_is_2adic_root(tau)) return CUZK_ERR_INVALID_ARG;
    size_t mmax = (size_t)1 << last;
    cuzk_fr *den = malloc(mmax * sizeof(cuzk_fr)), *scratch = malloc(mmax * sizeof(cuzk_fr));
    if (den == NULL || scratch == NULL) {
        free(den);
        free(scratch);
        return CUZK_ERR_NOMEM;
    }
    cuzk_fr one, tau_m = *tau; /* tau^(2^j), squared as j grows */
    cuzk_fr_set_one(&one);
    for (unsigned j = 0; j <= last; j++) {
        size_t m = (size_t)1 << j;
        cuzk_fr *blk = out + (m - 1);
        cuzk_fr w, wi, mf, minv, cz;
        cuzk__ptau_root(&w, j);
        /* den[i] = tau - omega^i */
        cuzk_fr_set_one(&wi);
        for (size_t i = 0; i < m; i++) {
            cuzk_fr_sub(&den[i], tau, &wi);
            cuzk_fr_mul(&wi, &wi, &w);
        }
        cuzk_fr_batch_inv_var(den, den, m, scratch);
        /* cz = (tau^m - 1) / m */
        cuzk_fr_from_u64(&mf, (uint64_t)m);
        cuzk_fr_inv_var(&minv, &mf);
        cuzk_fr_sub(&cz, &tau_m, &one);
        cuzk_fr_mul(&cz, &cz, &minv);
        /* the snarkjs exception: subtract tau^(m-1) omega^i / m */
        cuzk_fr corr;
        int fix = zero_top && j == last;
        if (fix) {
            cuzk_fr tinv;
            cuzk_fr_inv_var(&tinv, tau);
            cuzk_fr_mul(&corr, &tau_m, &tinv);
            cuzk_fr_mul(&corr, &corr, &minv);
        }
        cuzk_fr_set_one(&wi);
        for (size_t i = 0; i < m; i++) {
            cuzk_fr t;
            cuzk_fr_mul(&t, &cz, &wi);
            cuzk_fr_mul(&blk[i], &t, &den[i]);
            if (fix) {
                cuzk_fr_mul(&t, &corr, &wi);
                cuzk_fr_sub(&blk[i], &blk[i], &t);
            }
            cuzk_fr_mul(&wi, &wi, &w);
        }
        cuzk_fr_sqr(&tau_m, &tau_m);
    }
    free(den);
    free(scratch);
    return CUZK_OK;
}

/* ---- writing ------------------------------------------------------------------------ */

/* Points per multiplication batch (bounds the buffers: 2^15 G2 points are
 * 6 MB affine + 6 MB encoded). */
#define SEG ((size_t)1 << 15)

typedef struct {
    FILE *f;
    const char *path;
    cuzk_error *err;
    cuzk_g1_fixed_base g1;
    cuzk_g2_fixed_base g2;
    unsigned threads;
    size_t seg;     /* points per batch: min(SEG, 4n) */
    cuzk_fr *scal;  /* seg scalars */
    void *pts;      /* SEG affine points (G2-sized) */
    uint8_t *bytes; /* SEG encoded points (G2-sized) */
} writer;

static cuzk_status w_bytes(writer *w, const void *p, size_t n) {
    if (n && fwrite(p, 1, n, w->f) != n)
        return cuzk__fail(w->err, CUZK_ERR_IO, "%s: write failed: %s", w->path, strerror(errno));
    return CUZK_OK;
}

static cuzk_status w_u32(writer *w, uint32_t v) {
    uint8_t b[4];
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
    return w_bytes(w, b, 4);
}

static cuzk_status w_u64(writer *w, uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    return w_bytes(w, b, 8);
}

static cuzk_status w_section_start(writer *w, uint32_t id, unsigned power) {
    cuzk_status st = w_u32(w, id);
    return st ? st : w_u64(w, cuzk_ptau_section_bytes(id, power));
}

/* count points mult·src[i]·G (mult NULL: src[i]·G) in G1 (g2 = 0) or G2. */
static cuzk_status w_points(writer *w, int g2, const cuzk_fr *src, size_t count,
                            const cuzk_fr *mult) {
    size_t psz = g2 ? 192 : 96;
    for (size_t lo = 0; lo < count; lo += w->seg) {
        size_t m = count - lo < w->seg ? count - lo : w->seg;
        const cuzk_fr *k = src + lo;
        if (mult != NULL) {
            for (size_t i = 0; i < m; i++) cuzk_fr_mul(&w->scal[i], &src[lo + i], mult);
            k = w->scal;
        }
        cuzk_status st;
        if (g2) {
            cuzk_g2_aff *p = w->pts;
            st = cuzk_g2_fixed_base_mul_batch_fr_var(&w->g2, p, k, m, w->threads);
            if (st == CUZK_OK)
                for (size_t i = 0; i < m; i++) cuzk_g2_to_snarkjs(w->bytes + i * psz, &p[i]);
        } else {
            cuzk_g1_aff *p = w->pts;
            st = cuzk_g1_fixed_base_mul_batch_fr_var(&w->g1, p, k, m, w->threads);
            if (st == CUZK_OK)
                for (size_t i = 0; i < m; i++) cuzk_g1_to_snarkjs(w->bytes + i * psz, &p[i]);
        }
        if (st != CUZK_OK)
            return cuzk__fail(w->err, st, "%s: fixed-base multiplication failed: %s", w->path,
                              cuzk_strerror(st));
        st = w_bytes(w, w->bytes, m * psz);
        if (st != CUZK_OK) return st;
    }
    return CUZK_OK;
}

static cuzk_status write_all(writer *w, unsigned power, const cuzk_ptau_secrets *s) {
    size_t n = (size_t)1 << power;
    cuzk_status st;
    cuzk_fr *tp = NULL, *lag = NULL;

    /* container header and section 1 */
    if ((st = w_bytes(w, "ptau", 4)) || (st = w_u32(w, 1)) ||
        (st = w_u32(w, (uint32_t)N_FILE_SECTIONS)))
        return st;
    uint8_t q[CUZK_FP_BYTES];
    static const uint64_t p_limbs[CUZK_FP_LIMBS] = CUZK__FP_P;
    for (int i = 0; i < CUZK_FP_BYTES; i++) q[i] = (uint8_t)(p_limbs[i / 8] >> (8 * (i % 8)));
    if ((st = w_section_start(w, CUZK_PTAU_SEC_HEADER, power)) || (st = w_u32(w, CUZK_FP_BYTES)) ||
        (st = w_bytes(w, q, sizeof(q))) || (st = w_u32(w, power)) || (st = w_u32(w, power)))
        return st;

    /* tau^i, i < 2n - 1 */
    tp = malloc((2 * n - 1) * sizeof(cuzk_fr));
    lag = malloc((4 * n - 1) * sizeof(cuzk_fr));
    if (tp == NULL || lag == NULL) {
        st = cuzk__fail(w->err, CUZK_ERR_NOMEM, "%s: no memory for %zu scalars", w->path, 6 * n);
        goto out;
    }
    cuzk_fr_set_one(&tp[0]);
    for (size_t i = 1; i < 2 * n - 1; i++) cuzk_fr_mul(&tp[i], &tp[i - 1], &s->tau);

    if ((st = w_section_start(w, CUZK_PTAU_SEC_TAU_G1, power)) ||
        (st = w_points(w, 0, tp, 2 * n - 1, NULL)))
        goto out;
    if ((st = w_section_start(w, CUZK_PTAU_SEC_TAU_G2, power)) || (st = w_points(w, 1, tp, n, NULL)))
        goto out;
    if ((st = w_section_start(w, CUZK_PTAU_SEC_ALPHA_TAU_G1, power)) ||
        (st = w_points(w, 0, tp, n, &s->alpha)))
        goto out;
    if ((st = w_section_start(w, CUZK_PTAU_SEC_BETA_TAU_G1, power)) ||
        (st = w_points(w, 0, tp, n, &s->beta)))
        goto out;
    if ((st = w_section_start(w, CUZK_PTAU_SEC_BETA_G2, power)) ||
        (st = w_points(w, 1, &s->beta, 1, NULL)))
        goto out;
    if ((st = w_section_start(w, CUZK_PTAU_SEC_CONTRIBUTIONS, power)) || (st = w_u32(w, 0)))
        goto out;

    /* Lagrange blocks 0..power+1; the last one with the zeroed tau^(2n-1).
     * Blocks 0..power (the first 2n - 1 entries) serve sections 13-15 too. */
    st = cuzk__ptau_lagrange_scalars(lag, &s->tau, power + 1, 1);
    if (st != CUZK_OK) {
        cuzk__fail(w->err, st, "%s: Lagrange coefficients: %s", w->path, cuzk_strerror(st));
        goto out;
    }
    if ((st = w_section_start(w, CUZK_PTAU_SEC_LAGRANGE_TAU_G1, power)) ||
        (st = w_points(w, 0, lag, 4 * n - 1, NULL)))
        goto out;
    if ((st = w_section_start(w, CUZK_PTAU_SEC_LAGRANGE_TAU_G2, power)) ||
        (st = w_points(w, 1, lag, 2 * n - 1, NULL)))
        goto out;
    if ((st = w_section_start(w, CUZK_PTAU_SEC_LAGRANGE_ALPHA_G1, power)) ||
        (st = w_points(w, 0, lag, 2 * n - 1, &s->alpha)))
        goto out;
    if ((st = w_section_start(w, CUZK_PTAU_SEC_LAGRANGE_BETA_G1, power)) ||
        (st = w_points(w, 0, lag, 2 * n - 1, &s->beta)))
        goto out;
out:
    free(tp);
    free(lag);
    return st;
}

cuzk_status cuzk_ptau_write_dev(const char *path, unsigned power, const cuzk_ptau_secrets *s,
                                unsigned threads, cuzk_error *err) {
    cuzk__error_clear(err);
    if (path == NULL || s == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "ptau: NULL path or secrets");
    if (power < 1 || power > CUZK_PTAU_MAX_POWER)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: power %u outside 1..%u", path, power,
                          CUZK_PTAU_MAX_POWER);
    if (cuzk_fr_is_zero(&s->tau) || cuzk_fr_is_zero(&s->alpha) || cuzk_fr_is_zero(&s->beta))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: a secret is zero", path);
    if (fr_is_2adic_root(&s->tau))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: tau is a root of unity of 2-power order (Lagrange basis undefined)",
                          path);

    writer w;
    memset(&w, 0, sizeof(w));
    w.path = path;
    w.err = err;
    w.threads = threads;
    size_t n = (size_t)1 << power, seg = n * 4 < SEG ? n * 4 : SEG;
    w.seg = seg;
    w.scal = malloc(seg * sizeof(cuzk_fr));
    w.pts = malloc(seg * sizeof(cuzk_g2_aff));
    w.bytes = malloc(seg * 192);
    cuzk_status st = CUZK_OK;
    if (w.scal == NULL || w.pts == NULL || w.bytes == NULL) {
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "%s: no memory for the point buffers", path);
        goto done;
    }
    cuzk_g1_aff g1;
    cuzk_g2_aff g2;
    cuzk_g1_generator(&g1);
    cuzk_g2_generator(&g2);
    /* windows sized for all the points of each group */
    if ((st = cuzk_g1_fixed_base_init(&w.g1, &g1, 0, 12 * n, threads)) != CUZK_OK ||
        (st = cuzk_g2_fixed_base_init(&w.g2, &g2, 0, 3 * n, threads)) != CUZK_OK) {
        cuzk__fail(err, st, "%s: fixed-base tables: %s", path, cuzk_strerror(st));
        goto done;
    }
    /* through a temporary beside path: a failure or a kill leaves path as it was */
    cuzk__outset set;
    cuzk__out *o;
    cuzk__outset_init(&set);
    if ((st = cuzk__outset_add(&set, &o, path, err)) != CUZK_OK) {
        cuzk__outset_abort(&set);
        goto done;
    }
    w.f = cuzk__out_file(o);
    st = write_all(&w, power, s);
    if (st == CUZK_OK)
        st = cuzk__outset_commit(&set, err);
    else
        cuzk__outset_abort(&set);
done:
    cuzk_g1_fixed_base_free(&w.g1);
    cuzk_g2_fixed_base_free(&w.g2);
    free(w.scal);
    free(w.pts);
    free(w.bytes);
    return st;
}
