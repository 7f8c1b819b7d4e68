/*
 * test_io.c — the iden3 container and the .zkey, .wtns and .r1cs readers.
 *
 * The files are written here by a small writer that knows nothing of the
 * readers (byte by byte, little-endian limbs written with shifts), from a
 * random model; reading them back must give every field of the model.
 * Then the files are damaged systematically (truncation at every header
 * byte and across the body, every size and count field, duplicated,
 * missing and reordered sections, wrong magic, version, BN254 primes,
 * non-canonical values, points off the curve and outside the subgroup) and
 * each damage must fail with the expected status and a message naming the
 * file. Sanitizer builds (ASan/UBSan) catch leaks and misaligned loads.
 *
 * With CUZK_IO_CORPUS=<dir> set, the valid files are also written to
 * <dir>/zkey, <dir>/wtns and <dir>/r1cs (the fuzz seed corpora).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "test_util.h"
#include "io/binfile.h"
#include "ff/fp2.h"
#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "io/r1cs.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "util/mem.h"

/* ---- a tiny writer ------------------------------------------------------- */

static void put_limbs(cuzk_test_buf *b, const uint64_t *l, size_t n) {
    for (size_t i = 0; i < n; i++) cuzk_test_put_le64(b, l[i]);
}
static void buf_free(cuzk_test_buf *b) {
    free(b->p);
    memset(b, 0, sizeof(*b));
}
static void set_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void set_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get_u64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 8; i-- > 0;) v = (v << 8) | p[i];
    return v;
}

typedef struct {
    uint32_t id;
    cuzk_test_buf b;
} section;

#define MAX_SECS 16

/* A container file: sections in file order; off[i] = payload offset of s[i],
 * hdr[i] = offset of its 12-byte record header. */
typedef struct {
    uint8_t *p;
    size_t n;
    uint64_t off[MAX_SECS], hdr[MAX_SECS];
    uint32_t ids[MAX_SECS];
    int nsec;
} file;

static file build(const char *magic, uint32_t version, const section *s, int n) {
    cuzk_test_buf b = {0};
    cuzk_test_put(&b, magic, 4);
    cuzk_test_put_le32(&b, version);
    cuzk_test_put_le32(&b, (uint32_t)n);
    file f;
    memset(&f, 0, sizeof(f));
    for (int i = 0; i < n; i++) {
        f.hdr[i] = b.n;
        cuzk_test_put_le32(&b, s[i].id);
        cuzk_test_put_le64(&b, s[i].b.n);
        f.off[i] = b.n;
        f.ids[i] = s[i].id;
        cuzk_test_put(&b, s[i].b.p, s[i].b.n);
    }
    f.p = b.p;
    f.n = b.n;
    f.nsec = n;
    return f;
}

static void sections_free(section *s, int n) {
    for (int i = 0; i < n; i++) buf_free(&s[i].b);
}

/* Payload offset of the section with this id. */
static uint64_t sec_off(const file *f, uint32_t id) {
    for (int i = 0; i < f->nsec; i++)
        if (f->ids[i] == id) return f->off[i];
    abort();
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n) {
    uint8_t *r = malloc(n ? n : 1);
    if (r == NULL) abort();
    if (n) memcpy(r, p, n);
    return r;
}

/* ---- field and point helpers --------------------------------------------- */

static const uint64_t P_LIMBS[6] = CUZK__FP_P;
static const uint64_t R_LIMBS[4] = CUZK__FR_R;
/* BN254's q and r, plain limbs, written out independently of the library. */
static const uint64_t BN_Q[4] = {0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL,
                                 0xb85045b68181585dULL, 0x30644e72e131a029ULL};
static const uint64_t BN_R[4] = {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL,
                                 0xb85045b68181585dULL, 0x30644e72e131a029ULL};

/* Random plain value < r. */
static void rand_scalar(uint64_t s[4]) {
    for (;;) {
        for (int i = 0; i < 4; i++) s[i] = cuzk_test_rand64();
        s[3] &= 0x7fffffffffffffffULL;
        if (cuzk__lt_n(s, R_LIMBS, 4)) return;
    }
}

static void rand_g1(cuzk_g1_aff *r) {
    cuzk_g1_aff g;
    cuzk_g1_jac gj, t;
    uint64_t k[4];
    rand_scalar(k);
    cuzk_g1_generator(&g);
    cuzk_g1_aff_to_jac(&gj, &g);
    cuzk_g1_jac_mul_var(&t, &gj, k, 4);
    cuzk_g1_jac_to_aff_var(r, &t);
}

static void rand_g2(cuzk_g2_aff *r) {
    cuzk_g2_aff g;
    cuzk_g2_jac gj, t;
    uint64_t k[4];
    rand_scalar(k);
    cuzk_g2_generator(&g);
    cuzk_g2_aff_to_jac(&gj, &g);
    cuzk_g2_jac_mul_var(&t, &gj, k, 4);
    cuzk_g2_jac_to_aff_var(r, &t);
}

/* n points k*G, (k+1)*G, ...: cheap many distinct subgroup points. */
static void rand_g1_run(cuzk_g1_aff *out, size_t n) {
    if (n == 0) return;
    cuzk_g1_aff g;
    cuzk_g1_jac acc;
    cuzk_g1_generator(&g);
    rand_g1(&out[0]);
    cuzk_g1_aff_to_jac(&acc, &out[0]);
    for (size_t i = 1; i < n; i++) {
        cuzk_g1_jac_add_aff_var(&acc, &acc, &g);
        cuzk_g1_jac_to_aff_var(&out[i], &acc);
    }
}

/* A point on E(Fp) outside the r-torsion (the cofactor is large: a random
 * curve point is in G1 with probability ~2^-126). */
static void g1_off_subgroup(cuzk_g1_aff *r) {
    cuzk_fp b, x, rhs, y;
    cuzk_fp_from_u64(&b, 4);
    for (uint64_t t = 1;; t++) {
        cuzk_fp_from_u64(&x, t + (cuzk_test_rand64() & 0xffff));
        cuzk_fp_sqr(&rhs, &x);
        cuzk_fp_mul(&rhs, &rhs, &x);
        cuzk_fp_add(&rhs, &rhs, &b);
        if (cuzk_fp_sqrt(&y, &rhs)) break;
    }
    r->x = x;
    r->y = y;
}

static void g2_off_subgroup(cuzk_g2_aff *r) {
    cuzk_fp2 b, x, rhs, y;
    cuzk_fp_from_u64(&b.c0, 4);
    cuzk_fp_from_u64(&b.c1, 4);
    for (uint64_t t = 1;; t++) {
        cuzk_fp_from_u64(&x.c0, t + (cuzk_test_rand64() & 0xffff));
        cuzk_fp_from_u64(&x.c1, 1);
        cuzk_fp2_sqr(&rhs, &x);
        cuzk_fp2_mul(&rhs, &rhs, &x);
        cuzk_fp2_add(&rhs, &rhs, &b);
        if (cuzk_fp2_sqrt_var(&y, &rhs)) break;
    }
    r->x = x;
    r->y = y;
}

/* LEM: the Montgomery limbs, little-endian, c0 then c1; infinity is (0, 0). */
static void put_g1(cuzk_test_buf *b, const cuzk_g1_aff *p) {
    put_limbs(b, p->x.l, 6);
    put_limbs(b, p->y.l, 6);
}
static void put_g2(cuzk_test_buf *b, const cuzk_g2_aff *p) {
    put_limbs(b, p->x.c0.l, 6);
    put_limbs(b, p->x.c1.l, 6);
    put_limbs(b, p->y.c0.l, 6);
    put_limbs(b, p->y.c1.l, 6);
}



/* Expect status st and a message naming `name` (and `sub` when given). */

/* ---- the container alone ------------------------------------------------ */

/* cuzk__memcpy_parallel: every size class (below one thread's share, at the
 * 256 KiB split, uneven slices, unaligned ends) and thread count gives the
 * bytes of src and touches nothing past dst + n. */
static void test_memcpy_parallel(void) {
    static const size_t sizes[] = {0,           1,           4095,           (size_t)1 << 18,
                                   (1 << 18) + 1, (1 << 20) + 3, (9 << 20) + 4097};
    static const unsigned threads[] = {0, 1, 3, 16, 64};
    const size_t max = (9 << 20) + 4097, guard = 64;
    uint8_t *src = malloc(max + 1), *dst = malloc(max + 1 + guard);
    CHECK(src && dst);
    if (!src || !dst) goto out;
    for (size_t i = 0; i < max + 1; i++) src[i] = (uint8_t)cuzk_test_rand64();
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++) {
            const size_t n = sizes[si];
            memset(dst, 0xa5, max + 1 + guard);
            /* an odd source offset: the slices need no alignment */
            cuzk__memcpy_parallel(dst, src + 1, n, threads[ti]);
            CHECK(n == 0 || memcmp(dst, src + 1, n) == 0);
            bool untouched = true;
            for (size_t i = n; i < n + guard; i++) untouched &= dst[i] == 0xa5;
            CHECK(untouched);
        }
out:
    free(src);
    free(dst);
}

static void test_binfile(void) {
    const char *name = "mem/x.bin";
    cuzk_binfile bf;
    cuzk_error e;
    /* Sections 5, 7, 5, 7, 9: the earliest repeat (the second 5) is named,
     * with the offset of its record and of the first 5. */
    section s[5];
    memset(s, 0, sizeof(s));
    uint32_t ids[5] = {5, 7, 5, 7, 9};
    for (int i = 0; i < 5; i++) {
        s[i].id = ids[i];
        cuzk_test_put_le32(&s[i].b, (uint32_t)i);
    }
    file f = build("ptau", 1, s, 5);
    char want[96];
    snprintf(want, sizeof(want), "offset %llu: duplicate section 5 (first at offset %llu)",
             (unsigned long long)f.hdr[2], (unsigned long long)f.hdr[0]);
    EXPECT_FAIL(cuzk_binfile_open_mem(&bf, f.p, f.n, name, "ptau", 1, 1, &e),
                CUZK_ERR_BAD_ENCODING, e, name, want);
    CHECK(bf.sections == NULL && bf.path == NULL);
    free(f.p);
    /* Distinct ids in any order: indexed, found, read through a cursor. */
    s[2].id = 1;
    s[3].id = 0xffffffffu;
    f = build("ptau", 1, s, 5);
    CHECK_EQ_INT(cuzk_binfile_open_mem(&bf, f.p, f.n, name, "ptau", 1, 1, &e), CUZK_OK);
    CHECK_EQ_INT(bf.n_sections, 5);
    CHECK_EQ_INT(bf.version, 1);
    CHECK(strcmp(bf.magic, "ptau") == 0);
    for (int i = 0; i < 5; i++) {
        const cuzk_binfile_section *sec = cuzk_binfile_find(&bf, s[i].id);
        CHECK(sec != NULL);
        if (sec == NULL) continue;
        CHECK_EQ_INT(sec->offset, f.off[i]);
        CHECK_EQ_INT(sec->size, 4);
        cuzk_binfile_cursor c;
        uint32_t v = 99;
        uint64_t v64;
        cuzk_binfile_cursor_init(&c, &bf, sec);
        CHECK_EQ_INT(cuzk_binfile_cursor_done(&c, &e), CUZK_ERR_BAD_LENGTH);
        CHECK_EQ_INT(cuzk_binfile_read_u64(&c, &v64, "a u64", &e), CUZK_ERR_BAD_LENGTH);
        CHECK(cuzk_test_msg_has(&e, name) && cuzk_test_msg_has(&e, "a u64 needs 8 bytes, 4 left"));
        CHECK_EQ_INT(cuzk_binfile_read_u32(&c, &v, "value", &e), CUZK_OK);
        CHECK_EQ_INT(v, i);
        CHECK_EQ_INT(cuzk_binfile_cursor_done(&c, &e), CUZK_OK);
        CHECK_EQ_INT(cuzk_binfile_read_u32(&c, &v, "more", &e), CUZK_ERR_BAD_LENGTH);
    }
    CHECK(cuzk_binfile_find(&bf, 2) == NULL);
    const cuzk_binfile_section *sec;
    EXPECT_FAIL(cuzk_binfile_require(&bf, 2, "the thing", &sec, &e), CUZK_ERR_BAD_ENCODING, e,
                name, "missing section 2 (the thing)");
    cuzk_binfile_close(&bf);
    cuzk_binfile_close(&bf);
    EXPECT_FAIL(cuzk_binfile_open_mem(&bf, f.p, f.n, name, "ptau", 2, 3, &e),
                CUZK_ERR_UNSUPPORTED, e, name, "ptau version 1 not supported (expected 2..3)");
    f.p[0] = 0x01;
    EXPECT_FAIL(cuzk_binfile_open_mem(&bf, f.p, f.n, name, "ptau", 1, 1, &e),
                CUZK_ERR_BAD_ENCODING, e, name, "wrong magic \"\\x01tau\"");
    free(f.p);
    sections_free(s, 5);
    /* 200000 empty sections (2.4 MB): linear-ish, and a duplicate at the end. */
    uint32_t n = 200000;
    cuzk_test_buf b = {0};
    cuzk_test_put(&b, "zkey", 4);
    cuzk_test_put_le32(&b, 1);
    cuzk_test_put_le32(&b, n);
    for (uint32_t i = 0; i < n; i++) {
        cuzk_test_put_le32(&b, i == n - 1 ? 17 : 1000 + i);
        cuzk_test_put_le64(&b, 0);
    }
    CHECK_EQ_INT(cuzk_binfile_open_mem(&bf, b.p, b.n, name, "zkey", 1, 1, &e), CUZK_OK);
    cuzk_binfile_close(&bf);
    set_u32(b.p + b.n - 12, 1000);
    EXPECT_FAIL(cuzk_binfile_open_mem(&bf, b.p, b.n, name, "zkey", 1, 1, &e),
                CUZK_ERR_BAD_ENCODING, e, name, "duplicate section 1000 (first at offset 12)");
    buf_free(&b);
}

/* ---- zkey model ---------------------------------------------------------- */

typedef struct {
    uint32_t matrix, constraint, signal;
    uint64_t v[4];
} coef;

typedef struct {
    uint32_t n_vars, n_public, domain_size;
    cuzk_g1_aff alpha1, beta1, delta1;
    cuzk_g2_aff beta2, gamma2, delta2;
    cuzk_g1_aff *ic, *a, *b1, *c, *h;
    cuzk_g2_aff *b2;
    uint32_t n_coefs;
    coef *coefs;
} zmodel;

static void zmodel_make(zmodel *m, uint32_t n_vars, uint32_t n_public, uint32_t domain) {
    memset(m, 0, sizeof(*m));
    m->n_vars = n_vars;
    m->n_public = n_public;
    m->domain_size = domain;
    rand_g1(&m->alpha1);
    rand_g1(&m->beta1);
    rand_g1(&m->delta1);
    rand_g2(&m->beta2);
    cuzk_g2_generator(&m->gamma2);
    rand_g2(&m->delta2);
    m->ic = calloc(n_public + 1, sizeof(cuzk_g1_aff));
    m->a = calloc(n_vars, sizeof(cuzk_g1_aff));
    m->b1 = calloc(n_vars, sizeof(cuzk_g1_aff));
    m->b2 = calloc(n_vars, sizeof(cuzk_g2_aff));
    m->c = calloc(n_vars - n_public - 1 + 1, sizeof(cuzk_g1_aff));
    m->h = calloc(domain, sizeof(cuzk_g1_aff));
    rand_g1_run(m->ic, n_public + 1);
    rand_g1_run(m->a, n_vars);
    rand_g1_run(m->b1, n_vars);
    for (uint32_t i = 0; i < n_vars; i++) rand_g2(&m->b2[i]);
    rand_g1_run(m->c, n_vars - n_public - 1);
    rand_g1_run(m->h, domain);
    /* Infinity where snarkjs keys have it (doc/formats.md, zkey points at infinity). */
    cuzk_g1_aff_set_inf(&m->b1[n_vars - 1]);
    cuzk_g2_aff_set_inf(&m->b2[n_vars - 1]);
    if (n_vars - n_public - 1 > 0) cuzk_g1_aff_set_inf(&m->c[0]);
    uint32_t m_rows = domain - n_public - 1; /* circuit constraints */
    m->n_coefs = 2 * m_rows + n_public + 1;
    m->coefs = calloc(m->n_coefs, sizeof(coef));
    uint32_t k = 0;
    for (uint32_t c = 0; c < m_rows; c++)
        for (uint32_t mat = 0; mat < 2; mat++) {
            coef *e = &m->coefs[k++];
            e->matrix = mat;
            e->constraint = c;
            e->signal = (uint32_t)(cuzk_test_rand64() % n_vars);
            rand_scalar(e->v);
        }
    for (uint32_t s = 0; s <= n_public; s++) {
        coef *e = &m->coefs[k++];
        e->matrix = 0;
        e->constraint = m_rows + s;
        e->signal = s;
        /* 1 stored as 1*R^2 mod r */
        const uint64_t r2[4] = CUZK__FR_R2;
        memcpy(e->v, r2, sizeof(r2));
    }
}

static void zmodel_free(zmodel *m) {
    free(m->ic);
    free(m->a);
    free(m->b1);
    free(m->b2);
    free(m->c);
    free(m->h);
    free(m->coefs);
}

/* Sections 1..10 of the model; out[id - 1]. */
static void zkey_sections(const zmodel *m, section out[10]) {
    memset(out, 0, 10 * sizeof(section));
    for (uint32_t i = 0; i < 10; i++) out[i].id = i + 1;
    cuzk_test_put_le32(&out[0].b, 1);
    cuzk_test_buf *h = &out[1].b;
    cuzk_test_put_le32(h, 48);
    put_limbs(h, P_LIMBS, 6);
    cuzk_test_put_le32(h, 32);
    put_limbs(h, R_LIMBS, 4);
    cuzk_test_put_le32(h, m->n_vars);
    cuzk_test_put_le32(h, m->n_public);
    cuzk_test_put_le32(h, m->domain_size);
    put_g1(h, &m->alpha1);
    put_g1(h, &m->beta1);
    put_g2(h, &m->beta2);
    put_g2(h, &m->gamma2);
    put_g1(h, &m->delta1);
    put_g2(h, &m->delta2);
    for (uint32_t i = 0; i <= m->n_public; i++) put_g1(&out[2].b, &m->ic[i]);
    cuzk_test_put_le32(&out[3].b, m->n_coefs);
    for (uint32_t i = 0; i < m->n_coefs; i++) {
        cuzk_test_put_le32(&out[3].b, m->coefs[i].matrix);
        cuzk_test_put_le32(&out[3].b, m->coefs[i].constraint);
        cuzk_test_put_le32(&out[3].b, m->coefs[i].signal);
        put_limbs(&out[3].b, m->coefs[i].v, 4);
    }
    for (uint32_t i = 0; i < m->n_vars; i++) put_g1(&out[4].b, &m->a[i]);
    for (uint32_t i = 0; i < m->n_vars; i++) put_g1(&out[5].b, &m->b1[i]);
    for (uint32_t i = 0; i < m->n_vars; i++) put_g2(&out[6].b, &m->b2[i]);
    for (uint32_t i = 0; i + m->n_public + 1 < m->n_vars; i++) put_g1(&out[7].b, &m->c[i]);
    for (uint32_t i = 0; i < m->domain_size; i++) put_g1(&out[8].b, &m->h[i]);
    /* MPC section: a hash and no contributions; the reader skips it. */
    uint8_t hash[64];
    cuzk_test_rand_bytes(hash, sizeof(hash));
    cuzk_test_put(&out[9].b, hash, sizeof(hash));
    cuzk_test_put_le32(&out[9].b, 0);
}

/* The order `snarkjs groth16 setup` writes. */
static const uint32_t SETUP_ORDER[10] = {1, 2, 4, 3, 9, 8, 5, 6, 7, 10};

/* File of the model's sections in the given order of ids (0 = skip), with an
 * optional extra section (id extra_id, extra_len random bytes) placed before
 * position extra_pos. */
static file zkey_file(const zmodel *m, const uint32_t *order, int n, uint32_t extra_id,
                      size_t extra_len, int extra_pos) {
    section all[10], s[MAX_SECS], extra = {0};
    zkey_sections(m, all);
    int k = 0;
    if (extra_id) {
        extra.id = extra_id;
        uint8_t *junk = malloc(extra_len ? extra_len : 1);
        cuzk_test_rand_bytes(junk, extra_len);
        cuzk_test_put(&extra.b, junk, extra_len);
        free(junk);
    }
    for (int i = 0; i < n; i++) {
        if (extra_id && i == extra_pos) s[k++] = extra;
        s[k++] = all[order[i] - 1];
    }
    if (extra_id && extra_pos >= n) s[k++] = extra;
    file f = build("zkey", 1, s, k);
    sections_free(all, 10);
    buf_free(&extra.b);
    return f;
}

static void zkey_compare(const cuzk_zkey *zk, const zmodel *m) {
    CHECK_EQ_INT(zk->protocol, 1);
    CHECK_EQ_INT(zk->n8q, 48);
    CHECK_EQ_INT(zk->n8r, 32);
    CHECK(memcmp(zk->q, P_LIMBS, sizeof(P_LIMBS)) == 0);
    CHECK(memcmp(zk->r, R_LIMBS, sizeof(R_LIMBS)) == 0);
    CHECK_EQ_INT(zk->n_vars, m->n_vars);
    CHECK_EQ_INT(zk->n_public, m->n_public);
    CHECK_EQ_INT(zk->domain_size, m->domain_size);
    CHECK_EQ_INT(1u << zk->log_domain_size, m->domain_size);
    CHECK_EQ_INT(zk->root, CUZK_NTT_ROOT5);
    CHECK_EQ_INT(zk->h_kind, CUZK_H_ODD_COSET_LAGRANGE);
    CHECK(cuzk_g1_aff_eq(&zk->alpha1, &m->alpha1));
    CHECK(cuzk_g1_aff_eq(&zk->beta1, &m->beta1));
    CHECK(cuzk_g1_aff_eq(&zk->delta1, &m->delta1));
    CHECK(cuzk_g2_aff_eq(&zk->beta2, &m->beta2));
    CHECK(cuzk_g2_aff_eq(&zk->gamma2, &m->gamma2));
    CHECK(cuzk_g2_aff_eq(&zk->delta2, &m->delta2));
    CHECK_EQ_INT(zk->ic.n, m->n_public + 1);
    CHECK_EQ_INT(zk->a.n, m->n_vars);
    CHECK_EQ_INT(zk->b1.n, m->n_vars);
    CHECK_EQ_INT(zk->b2.n, m->n_vars);
    CHECK_EQ_INT(zk->c.n, m->n_vars - m->n_public - 1);
    CHECK_EQ_INT(zk->h.n, m->domain_size);
    /* Byte-compare the memory image too: infinity must stay all zero. */
    if (zk->ic.n) CHECK_MEM(zk->ic.p, m->ic, zk->ic.n * sizeof(cuzk_g1_aff));
    CHECK_MEM(zk->a.p, m->a, zk->a.n * sizeof(cuzk_g1_aff));
    CHECK_MEM(zk->b1.p, m->b1, zk->b1.n * sizeof(cuzk_g1_aff));
    CHECK_MEM(zk->b2.p, m->b2, zk->b2.n * sizeof(cuzk_g2_aff));
    if (zk->c.n) CHECK_MEM(zk->c.p, m->c, zk->c.n * sizeof(cuzk_g1_aff));
    CHECK_MEM(zk->h.p, m->h, zk->h.n * sizeof(cuzk_g1_aff));
    for (uint64_t i = 0; i < zk->a.n; i++) CHECK(cuzk_g1_aff_eq(&zk->a.p[i], &m->a[i]));
    for (uint64_t i = 0; i < zk->b2.n; i++) CHECK(cuzk_g2_aff_eq(&zk->b2.p[i], &m->b2[i]));
    CHECK(cuzk_g1_aff_is_inf(&zk->b1.p[m->n_vars - 1]));
    CHECK(cuzk_g2_aff_is_inf(&zk->b2.p[m->n_vars - 1]));
    CHECK_EQ_INT(zk->n_coefs, m->n_coefs);
    uint32_t rows = 0;
    for (uint32_t i = 0; i < zk->n_coefs && i < m->n_coefs; i++) {
        cuzk_zkey_coef e;
        cuzk_zkey_coef_get(zk, i, &e);
        CHECK_EQ_INT(e.matrix, m->coefs[i].matrix);
        CHECK_EQ_INT(e.constraint, m->coefs[i].constraint);
        CHECK_EQ_INT(e.signal, m->coefs[i].signal);
        CHECK(memcmp(e.value, m->coefs[i].v, 32) == 0);
        if (m->coefs[i].constraint + 1 > rows) rows = m->coefs[i].constraint + 1;
    }
    CHECK_EQ_INT(zk->n_rows, rows);
    /* Sections are either used in place (aligned) or copied (not). */
    const cuzk_zkey_g1_vec *v[5] = {&zk->ic, &zk->a, &zk->b1, &zk->c, &zk->h};
    for (int i = 0; i < 5; i++) {
        if (v[i]->n == 0) continue;
        bool aligned = ((uintptr_t)v[i]->raw & 7u) == 0;
        CHECK(aligned == (v[i]->owned == NULL));
        CHECK(((const uint8_t *)v[i]->p == v[i]->raw) == aligned);
        CHECK(v[i]->raw == zk->file.data + v[i]->offset);
    }
}

/* ---- zkey tests ---------------------------------------------------------- */

static const char *ZNAME = "mem/test.zkey";

static void test_zkey_roundtrip(void) {
    zmodel m;
    zmodel_make(&m, 7, 2, 16);
    static const uint32_t in_order[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    static const uint32_t reversed[10] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
    static const uint32_t no_mpc[9] = {2, 1, 3, 4, 5, 6, 7, 8, 9};
    const uint32_t *orders[4] = {SETUP_ORDER, in_order, reversed, no_mpc};
    int lens[4] = {10, 10, 10, 9};
    for (int o = 0; o < 4; o++) {
        file f = zkey_file(&m, orders[o], lens[o], 0, 0, 0);
        cuzk_zkey zk;
        cuzk_error e;
        cuzk_status st = cuzk_zkey_open_mem(&zk, f.p, f.n, ZNAME,
                                            CUZK_ZKEY_CHECK_SUBGROUP, &e);
        CHECK_EQ_INT(st, CUZK_OK);
        if (st == CUZK_OK) zkey_compare(&zk, &m);
        cuzk_zkey_close(&zk);
        free(f.p);
    }
    /* Random shuffles of all ten sections. */
    for (int t = 0; t < 4; t++) {
        uint32_t ord[10];
        memcpy(ord, in_order, sizeof(ord));
        for (int i = 9; i > 0; i--) {
            int j = (int)(cuzk_test_rand64() % (uint64_t)(i + 1));
            uint32_t x = ord[i];
            ord[i] = ord[j];
            ord[j] = x;
        }
        file f = zkey_file(&m, ord, 10, 0, 0, 0);
        cuzk_zkey zk;
        cuzk_error e;
        CHECK_EQ_INT(cuzk_zkey_open_mem(&zk, f.p, f.n, ZNAME, 0, &e), CUZK_OK);
        if (zk.n_vars) zkey_compare(&zk, &m);
        cuzk_zkey_close(&zk);
        free(f.p);
    }
    zmodel_free(&m);
}

/* An unknown section of odd size before the points shifts them off 8-byte
 * alignment: the reader must copy, and the copies must be exact. */
static void test_zkey_unaligned(void) {
    zmodel m;
    zmodel_make(&m, 5, 1, 8);
    for (size_t extra = 1; extra <= 8; extra++) {
        file f = zkey_file(&m, SETUP_ORDER, 10, 77, extra, 2);
        cuzk_zkey zk;
        cuzk_error e;
        cuzk_status st = cuzk_zkey_open_mem(&zk, f.p, f.n, ZNAME, CUZK_ZKEY_CHECK_SUBGROUP, &e);
        CHECK_EQ_INT(st, CUZK_OK);
        if (st == CUZK_OK) {
            zkey_compare(&zk, &m);
            int copies = (zk.ic.owned != NULL) + (zk.a.owned != NULL) + (zk.b1.owned != NULL) +
                         (zk.b2.owned != NULL) + (zk.c.owned != NULL) + (zk.h.owned != NULL);
            /* Odd extra sizes misalign every point section. */
            if (extra & 1) CHECK_EQ_INT(copies, 6);
        }
        cuzk_zkey_close(&zk);
        free(f.p);
    }
    zmodel_free(&m);
}

/* Truncation at every byte of the headers, then across the body. */
static void test_zkey_truncated(void) {
    zmodel m;
    zmodel_make(&m, 4, 1, 4);
    file f = zkey_file(&m, SETUP_ORDER, 10, 0, 0, 0);
    cuzk_zkey zk;
    cuzk_error e;
    size_t hdr_end = (size_t)sec_off(&f, 2) + 964 + 40;
    for (size_t len = 0; len < f.n; len += (len < hdr_end ? 1 : 37)) {
        uint8_t *t = dup_bytes(f.p, len); /* exact-size block: ASan sees overreads */
        EXPECT_FAIL(cuzk_zkey_open_mem(&zk, t, len, ZNAME, 0, &e), CUZK_ERR_BAD_LENGTH, e, ZNAME,
                    NULL);
        free(t);
    }
    /* Every section boundary and one byte either side. */
    for (int i = 0; i < f.nsec; i++) {
        size_t cut[3] = {(size_t)f.hdr[i] - 1, (size_t)f.hdr[i], (size_t)f.hdr[i] + 1};
        for (int j = 0; j < 3; j++) {
            uint8_t *t = dup_bytes(f.p, cut[j]);
            EXPECT_FAIL(cuzk_zkey_open_mem(&zk, t, cut[j], ZNAME, 0, &e), CUZK_ERR_BAD_LENGTH, e,
                        ZNAME, NULL);
            free(t);
        }
    }
    EXPECT_FAIL(cuzk_zkey_open_mem(&zk, f.p, f.n - 1, ZNAME, 0, &e), CUZK_ERR_BAD_LENGTH, e,
                ZNAME, "overruns");
    /* Trailing bytes after the last section. */
    uint8_t *t = malloc(f.n + 3);
    memcpy(t, f.p, f.n);
    memset(t + f.n, 0, 3);
    EXPECT_FAIL(cuzk_zkey_open_mem(&zk, t, f.n + 3, ZNAME, 0, &e), CUZK_ERR_BAD_LENGTH, e, ZNAME,
                "trailing");
    free(t);
    free(f.p);
    zmodel_free(&m);
}

/* Run the reader on a damaged copy; return its status. */
static cuzk_status zkey_try(const file *f, size_t at, const void *bytes, size_t n, unsigned flags,
                            cuzk_error *e) {
    uint8_t *t = dup_bytes(f->p, f->n);
    memcpy(t + at, bytes, n);
    cuzk_zkey zk;
    cuzk_status st = cuzk_zkey_open_mem(&zk, t, f->n, ZNAME, flags, e);
    if (st == CUZK_OK) cuzk_zkey_close(&zk);
    free(t);
    return st;
}

static cuzk_status zkey_try_u32(const file *f, size_t at, uint32_t v, cuzk_error *e) {
    uint8_t b[4];
    set_u32(b, v);
    return zkey_try(f, at, b, 4, 0, e);
}

static void test_zkey_fields(void) {
    zmodel m;
    zmodel_make(&m, 6, 2, 8);
    file f = zkey_file(&m, SETUP_ORDER, 10, 0, 0, 0);
    cuzk_error e;
    cuzk_zkey zk;
    /* Container header. */
    EXPECT_FAIL(zkey_try(&f, 0, "zkez", 4, 0, &e), CUZK_ERR_BAD_ENCODING, e, ZNAME,
                "magic");
    EXPECT_FAIL(zkey_try(&f, 0, "wtns", 4, 0, &e), CUZK_ERR_BAD_ENCODING, e, ZNAME, "magic");
    EXPECT_FAIL(zkey_try_u32(&f, 4, 0, &e), CUZK_ERR_UNSUPPORTED, e, ZNAME, "version");
    EXPECT_FAIL(zkey_try_u32(&f, 4, 3, &e), CUZK_ERR_UNSUPPORTED, e, ZNAME, "version");
    CHECK_EQ_INT(zkey_try_u32(&f, 4, 2, &e), CUZK_OK); /* readers accept <= 2 */
    EXPECT_FAIL(zkey_try_u32(&f, 8, 0xffffffffu, &e), CUZK_ERR_BAD_LENGTH, e, ZNAME, NULL);
    EXPECT_FAIL(zkey_try_u32(&f, 8, 11, &e), CUZK_ERR_BAD_LENGTH, e, ZNAME, NULL);
    /* Fewer sections declared: the rest are trailing bytes. */
    EXPECT_FAIL(zkey_try_u32(&f, 8, 9, &e), CUZK_ERR_BAD_LENGTH, e, ZNAME, "trailing");
    /* Every section size field: +-1, huge. None may crash or be accepted. */
    for (int i = 0; i < f.nsec; i++) {
        uint64_t sz = get_u64(f.p + f.hdr[i] + 4);
        uint64_t vals[6] = {sz + 1, sz - 1, sz + 96, sz ? sz - 96 : 5, UINT64_MAX,
                            UINT64_MAX - 11};
        for (int j = 0; j < 6; j++) {
            uint8_t b[8];
            set_u64(b, vals[j]);
            cuzk_status st = zkey_try(&f, (size_t)f.hdr[i] + 4, b, 8, 0, &e);
            CHECK(st != CUZK_OK);
            CHECK(cuzk_test_msg_has(&e, ZNAME));
        }
    }
    /* Section 1: protocol. */
    size_t s1 = (size_t)sec_off(&f, 1);
    EXPECT_FAIL(zkey_try_u32(&f, s1, 2, &e), CUZK_ERR_UNSUPPORTED, e, ZNAME, "PLONK");
    /* Section 2 fields. */
    size_t s2 = (size_t)sec_off(&f, 2);
    size_t o_nvars = s2 + 4 + 48 + 4 + 32;
    EXPECT_FAIL(zkey_try_u32(&f, s2, 32, &e), CUZK_ERR_UNSUPPORTED, e, ZNAME, "curve not supported");
    EXPECT_FAIL(zkey_try_u32(&f, s2, 0xffffffffu, &e), CUZK_ERR_BAD_LENGTH, e, ZNAME, "q");
    EXPECT_FAIL(zkey_try_u32(&f, s2 + 52, 0xfffffff0u, &e), CUZK_ERR_BAD_LENGTH, e, ZNAME, NULL);
    EXPECT_FAIL(zkey_try_u32(&f, o_nvars, m.n_vars + 1, &e), CUZK_ERR_BAD_LENGTH, e, ZNAME,
                "nVars");
    EXPECT_FAIL(zkey_try_u32(&f, o_nvars, m.n_vars - 1, &e), CUZK_ERR_BAD_LENGTH, e, ZNAME, NULL);
    EXPECT_FAIL(zkey_try_u32(&f, o_nvars, 0xffffffffu, &e), CUZK_ERR_BAD_LENGTH, e, ZNAME, NULL);
    EXPECT_FAIL(zkey_try_u32(&f, o_nvars, 2, &e), CUZK_ERR_BAD_ENCODING, e, ZNAME, "nPublic");
    EXPECT_FAIL(zkey_try_u32(&f, o_nvars + 4, m.n_public + 1, &e), CUZK_ERR_BAD_LENGTH, e, ZNAME,
                NULL);
    EXPECT_FAIL(zkey_try_u32(&f, o_nvars + 4, 0xffffffffu, &e), CUZK_ERR_BAD_ENCODING, e, ZNAME,
                "nPublic");
    uint32_t bad_dom[5] = {0, 3, 12, 0x80000001u, 0xffffffffu};
    for (int i = 0; i < 5; i++)
        EXPECT_FAIL(zkey_try_u32(&f, o_nvars + 8, bad_dom[i], &e), CUZK_ERR_BAD_ENCODING, e, ZNAME,
                    "power of two");
    /* A power of two but inconsistent with H (and with the coefficients). */
    EXPECT_FAIL(zkey_try_u32(&f, o_nvars + 8, 16, &e), CUZK_ERR_BAD_LENGTH, e, ZNAME, "domainSize");
    EXPECT_FAIL(zkey_try_u32(&f, o_nvars + 8, 4, &e), CUZK_ERR_BAD_LENGTH, e, ZNAME, "domainSize");
    EXPECT_FAIL(zkey_try_u32(&f, o_nvars + 8, 2, &e), CUZK_ERR_BAD_ENCODING, e, ZNAME, "nPublic");
    /* Section 4: count and records. */
    size_t s4 = (size_t)sec_off(&f, 4);
    EXPECT_FAIL(zkey_try_u32(&f, s4, m.n_coefs + 1, &e), CUZK_ERR_BAD_LENGTH, e, ZNAME, "count");
    EXPECT_FAIL(zkey_try_u32(&f, s4, m.n_coefs - 1, &e), CUZK_ERR_BAD_LENGTH, e, ZNAME, "count");
    EXPECT_FAIL(zkey_try_u32(&f, s4, 0xffffffffu, &e), CUZK_ERR_BAD_LENGTH, e, ZNAME, NULL);
    size_t rec3 = s4 + 4 + 3 * 44;
    EXPECT_FAIL(zkey_try_u32(&f, rec3, 2, &e), CUZK_ERR_BAD_ENCODING, e, ZNAME, "matrix");
    EXPECT_FAIL(zkey_try_u32(&f, rec3 + 4, m.domain_size, &e), CUZK_ERR_BAD_ENCODING, e, ZNAME,
                "record 3");
    EXPECT_FAIL(zkey_try_u32(&f, rec3 + 8, m.n_vars, &e), CUZK_ERR_BAD_ENCODING, e, ZNAME,
                "signal");
    uint8_t rb[32];
    for (int i = 0; i < 4; i++) set_u64(rb + 8 * i, R_LIMBS[i]);
    EXPECT_FAIL(zkey_try(&f, rec3 + 12, rb, 32, 0, &e), CUZK_ERR_NOT_CANONICAL, e, ZNAME,
                "non-canonical");
    /* Duplicate section: an extra copy of section 3. */
    {
        section all[10], s[11];
        zkey_sections(&m, all);
        for (int i = 0; i < 10; i++) s[i] = all[SETUP_ORDER[i] - 1];
        s[10] = all[2];
        file g = build("zkey", 1, s, 11);
        EXPECT_FAIL(cuzk_zkey_open_mem(&zk, g.p, g.n, ZNAME, 0, &e), CUZK_ERR_BAD_ENCODING, e,
                    ZNAME, "duplicate section 3");
        free(g.p);
        /* Missing sections: drop each of 1..9 (10 is optional). */
        for (uint32_t drop = 1; drop <= 10; drop++) {
            int k = 0;
            for (int i = 0; i < 10; i++)
                if (SETUP_ORDER[i] != drop) s[k++] = all[SETUP_ORDER[i] - 1];
            g = build("zkey", 1, s, k);
            cuzk_status st = cuzk_zkey_open_mem(&zk, g.p, g.n, ZNAME, 0, &e);
            if (drop == 10) {
                CHECK_EQ_INT(st, CUZK_OK);
                if (st == CUZK_OK) cuzk_zkey_close(&zk);
            } else {
                char want[32];
                snprintf(want, sizeof(want), "missing section %u", drop);
                CHECK_EQ_INT(st, CUZK_ERR_BAD_ENCODING);
                CHECK(cuzk_test_msg_has(&e, ZNAME) && cuzk_test_msg_has(&e, want));
            }
            free(g.p);
        }
        sections_free(all, 10);
    }
    free(f.p);
    zmodel_free(&m);
}

/* BN254 keys and other primes. */
static void test_zkey_curve(void) {
    zmodel m;
    zmodel_make(&m, 3, 1, 4);
    section all[10];
    zkey_sections(&m, all);
    /* A BN254 header: n8q = 32, BN254 q and r. */
    cuzk_test_buf h = {0};
    cuzk_test_put_le32(&h, 32);
    put_limbs(&h, BN_Q, 4);
    cuzk_test_put_le32(&h, 32);
    put_limbs(&h, BN_R, 4);
    cuzk_test_put(&h, all[1].b.p + 88, all[1].b.n - 88);
    buf_free(&all[1].b);
    all[1].b = h;
    file f = build("zkey", 1, all, 10);
    cuzk_zkey zk;
    cuzk_error e;
    EXPECT_FAIL(cuzk_zkey_open_mem(&zk, f.p, f.n, ZNAME, 0, &e), CUZK_ERR_UNSUPPORTED, e, ZNAME,
                "curve not supported: BN254 (q = 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47)");
    free(f.p);
    sections_free(all, 10);
    /* Right q, wrong r (BN254's, then BLS's p in r's place is impossible at
     * 32 bytes, so a BLS r with one bit flipped). */
    zkey_sections(&m, all);
    f = build("zkey", 1, all, 10);
    size_t s2 = (size_t)sec_off(&f, 2);
    uint8_t rb[32];
    for (int i = 0; i < 4; i++) set_u64(rb + 8 * i, BN_R[i]);
    EXPECT_FAIL(zkey_try(&f, s2 + 56, rb, 32, 0, &e), CUZK_ERR_UNSUPPORTED, e, ZNAME,
                "BN254 (r = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001)");
    for (int i = 0; i < 4; i++) set_u64(rb + 8 * i, R_LIMBS[i]);
    rb[0] ^= 2;
    EXPECT_FAIL(zkey_try(&f, s2 + 56, rb, 32, 0, &e), CUZK_ERR_UNSUPPORTED, e, ZNAME,
                "unknown prime");
    uint8_t qb[48];
    for (int i = 0; i < 6; i++) set_u64(qb + 8 * i, P_LIMBS[i]);
    qb[47] ^= 0x10;
    EXPECT_FAIL(zkey_try(&f, s2 + 4, qb, 48, 0, &e), CUZK_ERR_UNSUPPORTED, e, ZNAME,
                "unknown prime");
    free(f.p);
    sections_free(all, 10);
    zmodel_free(&m);
}

/* Non-canonical coordinates, points off the curve and outside the subgroup. */
static void test_zkey_points(void) {
    zmodel m;
    zmodel_make(&m, 6, 2, 128); /* H > 64 points: the parallel path runs */
    file f = zkey_file(&m, SETUP_ORDER, 10, 0, 0, 0);
    cuzk_error e;
    uint8_t pb[48];
    for (int i = 0; i < 6; i++) set_u64(pb + 8 * i, P_LIMBS[i]);
    const unsigned all_checks[3] = {0, CUZK_ZKEY_CHECK_SUBGROUP,
                                    CUZK_ZKEY_CHECK_SUBGROUP | CUZK_ZKEY_PARALLEL};
    /* x = p in A[3]: always refused. */
    size_t a3 = (size_t)sec_off(&f, 5) + 3 * 96;
    for (int k = 0; k < 3; k++)
        EXPECT_FAIL(zkey_try(&f, a3, pb, 48, all_checks[k], &e), CUZK_ERR_NOT_CANONICAL, e, ZNAME,
                    "section 5 (A) point 3");
    /* y.c1 = p in B2[1]. */
    size_t b21 = (size_t)sec_off(&f, 7) + 192 + 144;
    EXPECT_FAIL(zkey_try(&f, b21, pb, 48, 0, &e), CUZK_ERR_NOT_CANONICAL, e, ZNAME,
                "section 7 (B2) point 1");
    /* Several faults at once: open checks the sections on parallel threads but
     * reports in a fixed order: the coefficient records, then the sections in
     * file order (A before B2 before H), the same on every run. */
    {
        uint8_t rb[32];
        for (int i = 0; i < 4; i++) set_u64(rb + 8 * i, R_LIMBS[i]);
        size_t rec0 = (size_t)sec_off(&f, 4) + 4 + 12, h7 = (size_t)sec_off(&f, 9) + 7 * 96;
        for (int run = 0; run < 20; run++) {
            uint8_t *t = dup_bytes(f.p, f.n);
            memcpy(t + h7, pb, 48);
            memcpy(t + b21, pb, 48);
            cuzk_zkey zk;
            EXPECT_FAIL(cuzk_zkey_open_mem(&zk, t, f.n, ZNAME, 0, &e), CUZK_ERR_NOT_CANONICAL, e,
                        ZNAME, "section 7 (B2) point 1");
            memcpy(t + a3, pb, 48);
            EXPECT_FAIL(cuzk_zkey_open_mem(&zk, t, f.n, ZNAME, 0, &e), CUZK_ERR_NOT_CANONICAL, e,
                        ZNAME, "section 5 (A) point 3");
            memcpy(t + rec0, rb, 32);
            EXPECT_FAIL(cuzk_zkey_open_mem(&zk, t, f.n, ZNAME, 0, &e), CUZK_ERR_NOT_CANONICAL, e,
                        ZNAME, "section 4 record 0");
            free(t);
        }
    }
    /* Header point: always fully checked. */
    size_t alpha = (size_t)sec_off(&f, 2) + 100;
    EXPECT_FAIL(zkey_try(&f, alpha, pb, 48, 0, &e), CUZK_ERR_NOT_CANONICAL, e, ZNAME, "alpha1");
    /* Off the curve: y + 1 (in Montgomery form, still < p). */
    cuzk_g1_aff bad = m.h[40];
    cuzk_fp one;
    cuzk_fp_set_one(&one);
    cuzk_fp_add(&bad.y, &bad.y, &one);
    cuzk_test_buf b = {0};
    put_g1(&b, &bad);
    size_t h40 = (size_t)sec_off(&f, 9) + 40 * 96;
    CHECK_EQ_INT(zkey_try(&f, h40, b.p, 96, 0, &e), CUZK_OK);
    EXPECT_FAIL(zkey_try(&f, h40, b.p, 96, CUZK_ZKEY_CHECK_CURVE, &e), CUZK_ERR_NOT_ON_CURVE, e,
                ZNAME, "section 9 (H) point 40");
    EXPECT_FAIL(zkey_try(&f, h40, b.p, 96, CUZK_ZKEY_CHECK_SUBGROUP | CUZK_ZKEY_PARALLEL, &e),
                CUZK_ERR_NOT_ON_CURVE, e, ZNAME, "section 9 (H) point 40");
    EXPECT_FAIL(zkey_try(&f, alpha, b.p, 96, 0, &e), CUZK_ERR_NOT_ON_CURVE, e, ZNAME, "alpha1");
    buf_free(&b);
    /* Outside the subgroup, at H[100] and H[70]: the first (70) is named, in
     * parallel too. */
    cuzk_g1_aff ns;
    g1_off_subgroup(&ns);
    CHECK(cuzk_g1_aff_is_on_curve(&ns) && !cuzk_g1_aff_in_subgroup_naive_var(&ns));
    put_g1(&b, &ns);
    uint8_t *t = dup_bytes(f.p, f.n);
    memcpy(t + sec_off(&f, 9) + 100 * 96, b.p, 96);
    memcpy(t + sec_off(&f, 9) + 70 * 96, b.p, 96);
    cuzk_zkey zk;
    CHECK_EQ_INT(cuzk_zkey_open_mem(&zk, t, f.n, ZNAME, CUZK_ZKEY_CHECK_CURVE, &e), CUZK_OK);
    if (zk.n_vars) {
        /* The deferred check on an open key. */
        EXPECT_FAIL(cuzk_zkey_check_points(&zk, CUZK_ZKEY_CHECK_SUBGROUP, &e),
                    CUZK_ERR_NOT_IN_SUBGROUP, e, ZNAME, "section 9 (H) point 70");
        cuzk_zkey_close(&zk);
    }
    for (int k = 1; k < 3; k++)
        EXPECT_FAIL(cuzk_zkey_open_mem(&zk, t, f.n, ZNAME, all_checks[k], &e),
                    CUZK_ERR_NOT_IN_SUBGROUP, e, ZNAME, "section 9 (H) point 70");
    free(t);
    EXPECT_FAIL(zkey_try(&f, (size_t)sec_off(&f, 2) + 196, b.p, 96, 0, &e),
                CUZK_ERR_NOT_IN_SUBGROUP, e, ZNAME, "beta1");
    buf_free(&b);
    /* G2 outside the subgroup, in B2[4]. */
    cuzk_g2_aff ns2;
    g2_off_subgroup(&ns2);
    CHECK(cuzk_g2_aff_is_on_curve(&ns2) && !cuzk_g2_aff_in_subgroup_naive_var(&ns2));
    put_g2(&b, &ns2);
    size_t b24 = (size_t)sec_off(&f, 7) + 4 * 192;
    CHECK_EQ_INT(zkey_try(&f, b24, b.p, 192, CUZK_ZKEY_CHECK_CURVE, &e), CUZK_OK);
    EXPECT_FAIL(zkey_try(&f, b24, b.p, 192, CUZK_ZKEY_CHECK_SUBGROUP, &e),
                CUZK_ERR_NOT_IN_SUBGROUP, e, ZNAME, "section 7 (B2) point 4");
    buf_free(&b);
    free(f.p);
    zmodel_free(&m);
}

/* ---- files on disk ------------------------------------------------------- */

static char tmpdir[256];

static void make_tmpdir(void) {
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof(tmpdir), "%s/cuzk-test-io-XXXXXX", base && *base ? base : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        abort();
    }
}

static void write_file(const char *path, const uint8_t *p, size_t n) {
    FILE *fp = fopen(path, "wb");
    if (fp == NULL || fwrite(p, 1, n, fp) != n) {
        perror(path);
        abort();
    }
    fclose(fp);
}

/* Megabyte sections (a 2^15 domain: H 3 MiB, 65k records): the first bad
 * index is reported, wherever in the section and on whichever thread a
 * later fault was found first. */
static void test_zkey_large_sections(void) {
    zmodel m;
    zmodel_make(&m, 64, 2, 1u << 15); /* H: 3 MiB, records: 2.9 MB */
    file f = zkey_file(&m, SETUP_ORDER, 10, 0, 0, 0);
    cuzk_error e;
    uint8_t pb[48], rb[32];
    for (int i = 0; i < 6; i++) set_u64(pb + 8 * i, P_LIMBS[i]);
    for (int i = 0; i < 4; i++) set_u64(rb + 8 * i, R_LIMBS[i]);
    cuzk_zkey zk;
    CHECK_EQ_INT(cuzk_zkey_open_mem(&zk, f.p, f.n, ZNAME, 0, &e), CUZK_OK);
    CHECK_EQ_INT(zk.n_rows, m.domain_size);
    cuzk_zkey_close(&zk);
    const size_t h0 = (size_t)sec_off(&f, 9), r0 = (size_t)sec_off(&f, 4) + 4;
    uint8_t *t = dup_bytes(f.p, f.n);
    memcpy(t + h0 + 32767 * 96, pb, 48); /* the last point of the last piece */
    EXPECT_FAIL(cuzk_zkey_open_mem(&zk, t, f.n, ZNAME, 0, &e), CUZK_ERR_NOT_CANONICAL, e, ZNAME,
                "section 9 (H) point 32767");
    memcpy(t + h0 + 25000 * 96 + 48, pb, 48); /* y of a point in the third piece */
    memcpy(t + h0 + 15000 * 96, pb, 48);      /* the second piece */
    for (int run = 0; run < 5; run++) {
        EXPECT_FAIL(cuzk_zkey_open_mem(&zk, t, f.n, ZNAME, 0, &e), CUZK_ERR_NOT_CANONICAL, e,
                    ZNAME, "section 9 (H) point 15000");
        /* every thread on one section at a time (the parallel min-scan) */
        EXPECT_FAIL(cuzk_zkey_open_mem(&zk, t, f.n, ZNAME, CUZK_ZKEY_PARALLEL, &e),
                    CUZK_ERR_NOT_CANONICAL, e, ZNAME, "section 9 (H) point 15000");
    }
    memcpy(t + r0 + 50000 * 44 + 12, rb, 32);
    memcpy(t + r0 + 30000 * 44 + 12, rb, 32);
    for (int run = 0; run < 5; run++)
        EXPECT_FAIL(cuzk_zkey_open_mem(&zk, t, f.n, ZNAME, 0, &e), CUZK_ERR_NOT_CANONICAL, e,
                    ZNAME, "section 4 record 30000");
    free(t);
    free(f.p);
    zmodel_free(&m);
}

static void test_zkey_file(void) {
    zmodel m;
    zmodel_make(&m, 5, 1, 8);
    file f = zkey_file(&m, SETUP_ORDER, 10, 0, 0, 0);
    char path[512];
    snprintf(path, sizeof(path), "%s/key.zkey", tmpdir);
    write_file(path, f.p, f.n);
    cuzk_zkey zk;
    cuzk_error e;
    cuzk_status st = cuzk_zkey_open(&zk, path, CUZK_ZKEY_CHECK_SUBGROUP | CUZK_ZKEY_PARALLEL, &e);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st == CUZK_OK) {
        CHECK(zk.file.map != NULL);
        zkey_compare(&zk, &m);
    }
    cuzk_zkey_close(&zk);
    cuzk_zkey_close(&zk); /* idempotent */
    /* Truncated on disk. */
    write_file(path, f.p, f.n / 2);
    EXPECT_FAIL(cuzk_zkey_open(&zk, path, 0, &e), CUZK_ERR_BAD_LENGTH, e, path, "overruns");
    write_file(path, f.p, 0);
    EXPECT_FAIL(cuzk_zkey_open(&zk, path, 0, &e), CUZK_ERR_BAD_LENGTH, e, path, "truncated");
    remove(path);
    EXPECT_FAIL(cuzk_zkey_open(&zk, path, 0, &e), CUZK_ERR_IO, e, path, "cannot open");
    EXPECT_FAIL(cuzk_zkey_open(&zk, tmpdir, 0, &e), CUZK_ERR_IO, e, tmpdir, NULL);
    free(f.p);
    zmodel_free(&m);
}

/* ---- wtns ---------------------------------------------------------------- */

static const char *WNAME = "mem/test.wtns";

static file wtns_file(const uint64_t (*vals)[4], uint32_t n, const uint64_t *prime, uint32_t n8,
                      uint32_t version, size_t extra_before_values) {
    section s[3];
    memset(s, 0, sizeof(s));
    int k = 0;
    s[k].id = 1;
    cuzk_test_put_le32(&s[k].b, n8);
    put_limbs(&s[k].b, prime, n8 / 8);
    cuzk_test_put_le32(&s[k].b, n);
    k++;
    if (extra_before_values) {
        s[k].id = 9;
        uint8_t z[16] = {0};
        cuzk_test_put(&s[k].b, z, extra_before_values);
        k++;
    }
    s[k].id = 2;
    for (uint32_t i = 0; i < n; i++) put_limbs(&s[k].b, vals[i], 4);
    k++;
    file f = build("wtns", version, s, k);
    sections_free(s, k);
    return f;
}

static void test_wtns(void) {
    enum { N = 9 };
    uint64_t v[N][4];
    for (int i = 0; i < N; i++) rand_scalar(v[i]);
    memset(v[0], 0, 32);
    v[0][0] = 1;
    v[1][0] = R_LIMBS[0] - 1; /* r - 1 is the largest canonical value */
    memcpy(&v[1][1], &R_LIMBS[1], 24);
    cuzk_wtns w;
    cuzk_error e;
    for (size_t extra = 0; extra < 4; extra++) {
        file f = wtns_file((const uint64_t(*)[4])v, N, R_LIMBS, 32, 2, extra);
        cuzk_status st = cuzk_wtns_open_mem(&w, f.p, f.n, WNAME, &e);
        CHECK_EQ_INT(st, CUZK_OK);
        if (st == CUZK_OK) {
            CHECK_EQ_INT(w.n8, 32);
            CHECK(memcmp(w.prime, R_LIMBS, 32) == 0);
            CHECK_EQ_INT(w.n_witness, N);
            for (int i = 0; i < N; i++) CHECK(memcmp(cuzk_wtns_value(&w, i), v[i], 32) == 0);
            bool aligned = (((uintptr_t)(f.p + sec_off(&f, 2))) & 7) == 0;
            CHECK(aligned == (w.owned == NULL));
            CHECK_EQ_INT(w.values_offset, sec_off(&f, 2));
        }
        cuzk_wtns_close(&w);
        if (extra == 0) {
            /* Truncation everywhere (the file is small). */
            for (size_t len = 0; len < f.n; len++) {
                uint8_t *t = dup_bytes(f.p, len);
                EXPECT_FAIL(cuzk_wtns_open_mem(&w, t, len, WNAME, &e), CUZK_ERR_BAD_LENGTH, e,
                            WNAME, NULL);
                free(t);
            }
            /* Sizes and counts. */
            uint8_t *t = dup_bytes(f.p, f.n);
            set_u32(t + sec_off(&f, 1) + 36, N + 1);
            EXPECT_FAIL(cuzk_wtns_open_mem(&w, t, f.n, WNAME, &e), CUZK_ERR_BAD_LENGTH, e, WNAME,
                        "nWitness");
            set_u32(t + sec_off(&f, 1) + 36, 0xffffffffu);
            EXPECT_FAIL(cuzk_wtns_open_mem(&w, t, f.n, WNAME, &e), CUZK_ERR_BAD_LENGTH, e, WNAME,
                        NULL);
            memcpy(t, f.p, f.n);
            set_u32(t + sec_off(&f, 1), 0x7fffffffu);
            EXPECT_FAIL(cuzk_wtns_open_mem(&w, t, f.n, WNAME, &e), CUZK_ERR_BAD_LENGTH, e, WNAME,
                        "prime");
            memcpy(t, f.p, f.n);
            set_u32(t + sec_off(&f, 1), 48);
            EXPECT_FAIL(cuzk_wtns_open_mem(&w, t, f.n, WNAME, &e), CUZK_ERR_BAD_LENGTH, e, WNAME,
                        NULL);
            /* Non-canonical w[5] = r. */
            memcpy(t, f.p, f.n);
            size_t at = (size_t)sec_off(&f, 2) + 5 * 32;
            for (int i = 0; i < 4; i++) set_u64(t + at + 8 * i, R_LIMBS[i]);
            char want[96];
            snprintf(want, sizeof(want), "non-canonical field element at offset %zu", at);
            EXPECT_FAIL(cuzk_wtns_open_mem(&w, t, f.n, WNAME, &e), CUZK_ERR_NOT_CANONICAL, e,
                        WNAME, want);
            /* Magic and version. */
            memcpy(t, f.p, f.n);
            memcpy(t, "zkey", 4);
            EXPECT_FAIL(cuzk_wtns_open_mem(&w, t, f.n, WNAME, &e), CUZK_ERR_BAD_ENCODING, e, WNAME,
                        "magic");
            memcpy(t, f.p, f.n);
            set_u32(t + 4, 1);
            EXPECT_FAIL(cuzk_wtns_open_mem(&w, t, f.n, WNAME, &e), CUZK_ERR_UNSUPPORTED, e, WNAME,
                        "version 1");
            free(t);
        }
        free(f.p);
    }
    /* BN254 witness. */
    file f = wtns_file((const uint64_t(*)[4])v, N, BN_R, 32, 2, 0);
    EXPECT_FAIL(cuzk_wtns_open_mem(&w, f.p, f.n, WNAME, &e), CUZK_ERR_UNSUPPORTED, e, WNAME,
                "curve not supported: BN254 (r = 0x30644e72");
    free(f.p);
    /* Fp in r's place. */
    f = wtns_file((const uint64_t(*)[4])v, N, P_LIMBS, 48, 2, 0);
    EXPECT_FAIL(cuzk_wtns_open_mem(&w, f.p, f.n, WNAME, &e), CUZK_ERR_UNSUPPORTED, e, WNAME,
                "other prime");
    free(f.p);
    /* Missing sections, duplicates. */
    {
        section s[3];
        memset(s, 0, sizeof(s));
        s[0].id = 1;
        cuzk_test_put_le32(&s[0].b, 32);
        put_limbs(&s[0].b, R_LIMBS, 4);
        cuzk_test_put_le32(&s[0].b, 0);
        s[1].id = 2;
        s[2].id = 1;
        cuzk_test_put(&s[2].b, s[0].b.p, s[0].b.n);
        f = build("wtns", 2, s, 2); /* zero values: valid */
        CHECK_EQ_INT(cuzk_wtns_open_mem(&w, f.p, f.n, WNAME, &e), CUZK_OK);
        CHECK(w.n_witness == 0 && w.values == NULL);
        cuzk_wtns_close(&w);
        free(f.p);
        f = build("wtns", 2, s, 1);
        EXPECT_FAIL(cuzk_wtns_open_mem(&w, f.p, f.n, WNAME, &e), CUZK_ERR_BAD_ENCODING, e, WNAME,
                    "missing section 2");
        free(f.p);
        f = build("wtns", 2, s + 1, 1);
        EXPECT_FAIL(cuzk_wtns_open_mem(&w, f.p, f.n, WNAME, &e), CUZK_ERR_BAD_ENCODING, e, WNAME,
                    "missing section 1");
        free(f.p);
        f = build("wtns", 2, s, 3);
        EXPECT_FAIL(cuzk_wtns_open_mem(&w, f.p, f.n, WNAME, &e), CUZK_ERR_BAD_ENCODING, e, WNAME,
                    "duplicate section 1");
        free(f.p);
        sections_free(s, 3);
    }
    /* On disk. */
    f = wtns_file((const uint64_t(*)[4])v, N, R_LIMBS, 32, 2, 0);
    char path[512];
    snprintf(path, sizeof(path), "%s/w.wtns", tmpdir);
    write_file(path, f.p, f.n);
    CHECK_EQ_INT(cuzk_wtns_open(&w, path, &e), CUZK_OK);
    CHECK(w.n_witness == N && memcmp(cuzk_wtns_value(&w, 8), v[8], 32) == 0);
    cuzk_wtns_close(&w);
    write_file(path, f.p, f.n - 5);
    EXPECT_FAIL(cuzk_wtns_open(&w, path, &e), CUZK_ERR_BAD_LENGTH, e, path, NULL);
    remove(path);
    free(f.p);
}

/* ---- r1cs ---------------------------------------------------------------- */

static const char *RNAME = "mem/test.r1cs";

typedef struct {
    uint32_t n;
    uint32_t wire[4];
    uint64_t coeff[4][4];
} lcm;

typedef struct {
    uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in, n_constraints;
    lcm (*k)[3];            /* constraints: A, B, C */
    uint64_t (*w)[4];       /* a satisfying witness, plain */
    uint32_t *out_wire;     /* constraint i defines wire out_wire[i] */
} rmodel;

static void to_plain(uint64_t out[4], const cuzk_fr *a) { cuzk_fr_to_limbs(out, a); }

/* Wires: 0 = 1, then outputs, public inputs, private inputs, then one
 * internal wire per constraint: w_k = <A, w> * <B, w> with A, B random
 * combinations of known wires (wire 0 and -1 coefficients included) and
 * C = {(k, 1)}. The last constraint defines the output, wire 1. */
static void rmodel_make(rmodel *m, uint32_t n_constraints) {
    memset(m, 0, sizeof(*m));
    m->n_pub_out = 1;
    m->n_pub_in = 2;
    m->n_prv_in = 2;
    m->n_constraints = n_constraints;
    uint32_t first = 1 + m->n_pub_out + m->n_pub_in + m->n_prv_in;
    m->n_wires = first + n_constraints;
    m->k = calloc(n_constraints, sizeof(*m->k));
    m->w = calloc(m->n_wires, sizeof(*m->w));
    m->out_wire = calloc(n_constraints, sizeof(uint32_t));
    cuzk_fr *wm = calloc(m->n_wires, sizeof(cuzk_fr));
    cuzk_fr_set_one(&wm[0]);
    for (uint32_t i = 1; i < first; i++) {
        uint64_t s[4];
        rand_scalar(s);
        cuzk_fr_from_limbs(&wm[i], s);
    }
    for (uint32_t c = 0; c < n_constraints; c++) {
        uint32_t out = first + c;
        /* Output wire 1 is defined by the last constraint (circom: outputs
         * come right after wire 0 though computed late). */
        if (c == n_constraints - 1) out = 1;
        m->out_wire[c] = out;
        cuzk_fr ab[2];
        for (int side = 0; side < 2; side++) {
            lcm *l = &m->k[c][side];
            l->n = 1 + (uint32_t)(cuzk_test_rand64() % 3);
            cuzk_fr_set_zero(&ab[side]);
            for (uint32_t t = 0; t < l->n; t++) {
                /* Known so far: wire 0, the inputs 2..first-1 and the
                 * internal wires of constraints 0..c-1 (wire 1, the
                 * output, is defined last). */
                uint32_t pick = (uint32_t)(cuzk_test_rand64() % (first - 1 + c));
                uint32_t wi = pick == 0 ? 0 : pick < first - 1 ? pick + 1 : first + (pick - (first - 1));
                l->wire[t] = wi;
                cuzk_fr cf, tmp;
                uint64_t cl[4];
                if (t == 1) {
                    /* -1 */
                    cuzk_fr_set_one(&cf);
                    cuzk_fr_neg(&cf, &cf);
                } else {
                    rand_scalar(cl);
                    cuzk_fr_from_limbs(&cf, cl);
                }
                to_plain(l->coeff[t], &cf);
                cuzk_fr_mul(&tmp, &cf, &wm[wi]);
                cuzk_fr_add(&ab[side], &ab[side], &tmp);
            }
        }
        cuzk_fr_mul(&wm[out], &ab[0], &ab[1]);
        lcm *lc = &m->k[c][2];
        lc->n = 1;
        lc->wire[0] = out;
        lc->coeff[0][0] = 1;
    }
    for (uint32_t i = 0; i < m->n_wires; i++) to_plain(m->w[i], &wm[i]);
    free(wm);
}

static void rmodel_free(rmodel *m) {
    free(m->k);
    free(m->w);
    free(m->out_wire);
}

static void r1cs_sections(const rmodel *m, section s[3], const uint64_t *prime) {
    memset(s, 0, 3 * sizeof(section));
    s[0].id = 1;
    cuzk_test_put_le32(&s[0].b, 32);
    put_limbs(&s[0].b, prime, 4);
    cuzk_test_put_le32(&s[0].b, m->n_wires);
    cuzk_test_put_le32(&s[0].b, m->n_pub_out);
    cuzk_test_put_le32(&s[0].b, m->n_pub_in);
    cuzk_test_put_le32(&s[0].b, m->n_prv_in);
    cuzk_test_put_le64(&s[0].b, (uint64_t)m->n_wires + 3);
    cuzk_test_put_le32(&s[0].b, m->n_constraints);
    s[1].id = 2;
    for (uint32_t c = 0; c < m->n_constraints; c++)
        for (int j = 0; j < 3; j++) {
            const lcm *l = &m->k[c][j];
            cuzk_test_put_le32(&s[1].b, l->n);
            for (uint32_t t = 0; t < l->n; t++) {
                cuzk_test_put_le32(&s[1].b, l->wire[t]);
                put_limbs(&s[1].b, l->coeff[t], 4);
            }
        }
    s[2].id = 3;
    for (uint32_t i = 0; i < m->n_wires; i++) cuzk_test_put_le64(&s[2].b, 1000 + i);
}

/* circom writes section 2 before 1; with_labels = 0 leaves section 3 out. */
static file r1cs_file(const rmodel *m, const uint64_t *prime, bool circom_order,
                      bool with_labels) {
    section s[3], o[3];
    r1cs_sections(m, s, prime);
    int n = with_labels ? 3 : 2;
    o[0] = s[circom_order ? 1 : 0];
    o[1] = s[circom_order ? 0 : 1];
    o[2] = s[2];
    file f = build("r1cs", 1, o, n);
    sections_free(s, 3);
    return f;
}

static void r1cs_compare(const cuzk_r1cs *r, const rmodel *m, bool with_labels) {
    CHECK_EQ_INT(r->n8, 32);
    CHECK(memcmp(r->prime, R_LIMBS, 32) == 0);
    CHECK_EQ_INT(r->n_wires, m->n_wires);
    CHECK_EQ_INT(r->n_pub_out, m->n_pub_out);
    CHECK_EQ_INT(r->n_pub_in, m->n_pub_in);
    CHECK_EQ_INT(r->n_prv_in, m->n_prv_in);
    CHECK_EQ_INT(r->n_labels, (uint64_t)m->n_wires + 3);
    CHECK_EQ_INT(r->n_constraints, m->n_constraints);
    cuzk_r1cs_iter it;
    cuzk_r1cs_constraint k;
    cuzk_r1cs_iter_init(&it, r);
    uint32_t c = 0;
    uint64_t terms = 0;
    while (cuzk_r1cs_iter_next(&it, &k)) {
        if (c >= m->n_constraints) break;
        const cuzk_r1cs_lc *lcs[3] = {&k.a, &k.b, &k.c};
        for (int j = 0; j < 3; j++) {
            const lcm *l = &m->k[c][j];
            CHECK_EQ_INT(lcs[j]->n, l->n);
            terms += l->n;
            for (uint32_t t = 0; t < l->n && t < lcs[j]->n; t++) {
                uint32_t wire;
                uint64_t cf[4];
                cuzk_r1cs_lc_term(lcs[j], t, &wire, cf);
                CHECK_EQ_INT(wire, l->wire[t]);
                CHECK(memcmp(cf, l->coeff[t], 32) == 0);
            }
        }
        c++;
    }
    CHECK_EQ_INT(c, m->n_constraints);
    CHECK_EQ_INT(r->n_terms, terms);
    if (with_labels) {
        CHECK(r->wire2label != NULL);
        for (uint32_t i = 0; r->wire2label && i < m->n_wires; i++)
            CHECK_EQ_INT(r->wire2label[i], 1000 + i);
    } else {
        CHECK(r->wire2label == NULL);
    }
}

static void test_r1cs_roundtrip(void) {
    rmodel m;
    rmodel_make(&m, 12);
    for (int v = 0; v < 4; v++) {
        bool circom = v & 1, labels = v & 2;
        file f = r1cs_file(&m, R_LIMBS, circom, labels);
        cuzk_r1cs r;
        cuzk_error e;
        cuzk_status st = cuzk_r1cs_open_mem(&r, f.p, f.n, RNAME, &e);
        CHECK_EQ_INT(st, CUZK_OK);
        if (st == CUZK_OK) {
            r1cs_compare(&r, &m, labels);
            uint64_t bad = 0;
            CHECK_EQ_INT(cuzk_r1cs_check_witness(&r, &m.w[0][0], m.n_wires, "w", &bad, &e),
                         CUZK_OK);
            CHECK_EQ_INT(bad, UINT64_MAX);
        }
        cuzk_r1cs_close(&r);
        free(f.p);
    }
    rmodel_free(&m);
}

static void test_r1cs_witness_check(void) {
    rmodel m;
    rmodel_make(&m, 20);
    file f = r1cs_file(&m, R_LIMBS, true, false);
    cuzk_r1cs r;
    cuzk_error e;
    CHECK_EQ_INT(cuzk_r1cs_open_mem(&r, f.p, f.n, RNAME, &e), CUZK_OK);
    uint64_t (*w)[4] = calloc(m.n_wires, sizeof(*w));
    uint64_t bad;
    /* Break the output of constraint c: c is the first failing one (no
     * earlier constraint reads a wire defined later). */
    uint32_t picks[3] = {0, 7, m.n_constraints - 1};
    for (int i = 0; i < 3; i++) {
        memcpy(w, m.w, m.n_wires * sizeof(*w));
        uint32_t c = picks[i], wire = m.out_wire[c];
        w[wire][0] ^= 1;
        EXPECT_FAIL(cuzk_r1cs_check_witness(&r, &w[0][0], m.n_wires, "mine.wtns", &bad, &e),
                    CUZK_ERR_WITNESS_UNSATISFIED, e, RNAME, "mine.wtns");
        CHECK_EQ_INT(bad, c);
        char want[64];
        snprintf(want, sizeof(want), "constraint %u ", c);
        CHECK(cuzk_test_msg_has(&e, want));
    }
    memcpy(w, m.w, m.n_wires * sizeof(*w));
    w[0][0] = 2;
    EXPECT_FAIL(cuzk_r1cs_check_witness(&r, &w[0][0], m.n_wires, "x", &bad, &e),
                CUZK_ERR_INVALID_ARG, e, RNAME, "w[0]");
    CHECK_EQ_INT(bad, UINT64_MAX);
    w[0][0] = 1;
    EXPECT_FAIL(cuzk_r1cs_check_witness(&r, &w[0][0], m.n_wires - 1, "x", &bad, &e),
                CUZK_ERR_INVALID_ARG, e, RNAME, "nWires");
    memcpy(w[3], R_LIMBS, 32);
    EXPECT_FAIL(cuzk_r1cs_check_witness(&r, &w[0][0], m.n_wires, "x", &bad, &e),
                CUZK_ERR_NOT_CANONICAL, e, RNAME, "value 3");
    /* Through real files: r1cs + wtns on disk. */
    char rp[512], wp[512];
    snprintf(rp, sizeof(rp), "%s/c.r1cs", tmpdir);
    snprintf(wp, sizeof(wp), "%s/c.wtns", tmpdir);
    write_file(rp, f.p, f.n);
    file fw = wtns_file((const uint64_t(*)[4])m.w, m.n_wires, R_LIMBS, 32, 2, 0);
    write_file(wp, fw.p, fw.n);
    cuzk_r1cs r2;
    cuzk_wtns wt;
    CHECK_EQ_INT(cuzk_r1cs_open(&r2, rp, &e), CUZK_OK);
    CHECK_EQ_INT(cuzk_wtns_open(&wt, wp, &e), CUZK_OK);
    if (r2.n_wires && wt.n_witness) {
        CHECK_EQ_INT(cuzk_r1cs_check_witness(&r2, wt.values, wt.n_witness, wt.file.path, &bad, &e),
                     CUZK_OK);
    }
    cuzk_wtns_close(&wt);
    cuzk_r1cs_close(&r2);
    remove(rp);
    remove(wp);
    free(fw.p);
    free(w);
    cuzk_r1cs_close(&r);
    free(f.p);
    rmodel_free(&m);
}

static cuzk_status r1cs_try(const file *f, size_t at, const void *bytes, size_t n,
                            cuzk_error *e) {
    uint8_t *t = dup_bytes(f->p, f->n);
    memcpy(t + at, bytes, n);
    cuzk_r1cs r;
    cuzk_status st = cuzk_r1cs_open_mem(&r, t, f->n, RNAME, e);
    if (st == CUZK_OK) cuzk_r1cs_close(&r);
    free(t);
    return st;
}

static cuzk_status r1cs_try_u32(const file *f, size_t at, uint32_t v, cuzk_error *e) {
    uint8_t b[4];
    set_u32(b, v);
    return r1cs_try(f, at, b, 4, e);
}

static void test_r1cs_corrupt(void) {
    rmodel m;
    rmodel_make(&m, 6);
    file f = r1cs_file(&m, R_LIMBS, false, true);
    cuzk_r1cs r;
    cuzk_error e;
    for (size_t len = 0; len < f.n; len++) {
        uint8_t *t = dup_bytes(f.p, len);
        EXPECT_FAIL(cuzk_r1cs_open_mem(&r, t, len, RNAME, &e), CUZK_ERR_BAD_LENGTH, e, RNAME,
                    NULL);
        free(t);
    }
    size_t s1 = (size_t)sec_off(&f, 1), s2 = (size_t)sec_off(&f, 2);
    /* Header fields. */
    EXPECT_FAIL(r1cs_try_u32(&f, s1 + 36, 3, &e), CUZK_ERR_BAD_ENCODING, e, RNAME, "nWires");
    EXPECT_FAIL(r1cs_try_u32(&f, s1 + 36, m.n_wires - 1, &e), CUZK_ERR_BAD_LENGTH, e, RNAME,
                "section 3");
    EXPECT_FAIL(r1cs_try_u32(&f, s1 + 40, 0xffffffffu, &e), CUZK_ERR_BAD_ENCODING, e, RNAME,
                "nWires");
    EXPECT_FAIL(r1cs_try_u32(&f, s1 + 60, m.n_constraints + 1, &e), CUZK_ERR_BAD_LENGTH, e, RNAME,
                NULL);
    EXPECT_FAIL(r1cs_try_u32(&f, s1 + 60, m.n_constraints - 1, &e), CUZK_ERR_BAD_LENGTH, e,
                RNAME, "unexpected bytes");
    EXPECT_FAIL(r1cs_try_u32(&f, s1 + 60, 0xffffffffu, &e), CUZK_ERR_BAD_LENGTH, e, RNAME,
                "nConstraints");
    EXPECT_FAIL(r1cs_try_u32(&f, s1, 0xffffffffu, &e), CUZK_ERR_BAD_LENGTH, e, RNAME, "prime");
    uint8_t pb[32];
    for (int i = 0; i < 4; i++) set_u64(pb + 8 * i, BN_R[i]);
    EXPECT_FAIL(r1cs_try(&f, s1 + 4, pb, 32, &e), CUZK_ERR_UNSUPPORTED, e, RNAME,
                "curve not supported: BN254");
    /* Constraint 0's A: term count, wire id, coefficient. */
    uint32_t n_a = m.k[0][0].n;
    EXPECT_FAIL(r1cs_try_u32(&f, s2, 0xffffffffu, &e), CUZK_ERR_BAD_LENGTH, e, RNAME,
                "constraint 0 A");
    EXPECT_FAIL(r1cs_try_u32(&f, s2, 0x10000000u, &e), CUZK_ERR_BAD_LENGTH, e, RNAME, NULL);
    CHECK(r1cs_try_u32(&f, s2, n_a + 1, &e) != CUZK_OK && cuzk_test_msg_has(&e, RNAME));
    EXPECT_FAIL(r1cs_try_u32(&f, s2 + 4, m.n_wires, &e), CUZK_ERR_BAD_ENCODING, e, RNAME,
                "wire");
    for (int i = 0; i < 4; i++) set_u64(pb + 8 * i, R_LIMBS[i]);
    char want[96];
    snprintf(want, sizeof(want), "non-canonical field element at offset %zu", s2 + 8);
    EXPECT_FAIL(r1cs_try(&f, s2 + 8, pb, 32, &e), CUZK_ERR_NOT_CANONICAL, e, RNAME, want);
    /* Section sizes. */
    for (int i = 0; i < f.nsec; i++) {
        uint64_t sz = get_u64(f.p + f.hdr[i] + 4);
        uint64_t vals[4] = {sz + 1, sz - 1, UINT64_MAX, 1ull << 62};
        for (int j = 0; j < 4; j++) {
            uint8_t b[8];
            set_u64(b, vals[j]);
            CHECK(r1cs_try(&f, (size_t)f.hdr[i] + 4, b, 8, &e) != CUZK_OK);
            CHECK(cuzk_test_msg_has(&e, RNAME));
        }
    }
    EXPECT_FAIL(r1cs_try(&f, 0, "r1cz", 4, &e), CUZK_ERR_BAD_ENCODING, e, RNAME, "magic");
    EXPECT_FAIL(r1cs_try_u32(&f, 4, 2, &e), CUZK_ERR_UNSUPPORTED, e, RNAME, "version");
    /* Missing header/constraints; an extra unknown section is ignored. */
    {
        section s[3], o[4];
        r1cs_sections(&m, s, R_LIMBS);
        file g = build("r1cs", 1, s + 1, 2);
        EXPECT_FAIL(cuzk_r1cs_open_mem(&r, g.p, g.n, RNAME, &e), CUZK_ERR_BAD_ENCODING, e, RNAME,
                    "missing section 1");
        free(g.p);
        o[0] = s[0];
        o[1] = s[2];
        g = build("r1cs", 1, o, 2);
        EXPECT_FAIL(cuzk_r1cs_open_mem(&r, g.p, g.n, RNAME, &e), CUZK_ERR_BAD_ENCODING, e, RNAME,
                    "missing section 2");
        free(g.p);
        section extra = {9, {0}};
        cuzk_test_put_le32(&extra.b, 0);
        o[0] = extra;
        o[1] = s[1];
        o[2] = s[0];
        o[3] = s[1];
        g = build("r1cs", 1, o, 3);
        CHECK_EQ_INT(cuzk_r1cs_open_mem(&r, g.p, g.n, RNAME, &e), CUZK_OK);
        if (r.n_wires) r1cs_compare(&r, &m, false);
        cuzk_r1cs_close(&r);
        free(g.p);
        /* custom gates (sections 4, 5): constraints a Groth16 proof would leave out */
        for (uint32_t id = 4; id <= 5; id++) {
            o[0].id = id;
            g = build("r1cs", 1, o, 3);
            EXPECT_FAIL(cuzk_r1cs_open_mem(&r, g.p, g.n, RNAME, &e), CUZK_ERR_UNSUPPORTED, e,
                        RNAME, "custom gates");
            free(g.p);
        }
        o[0].id = 9;
        g = build("r1cs", 1, o, 4);
        EXPECT_FAIL(cuzk_r1cs_open_mem(&r, g.p, g.n, RNAME, &e), CUZK_ERR_BAD_ENCODING, e, RNAME,
                    "duplicate section 2");
        free(g.p);
        buf_free(&extra.b);
        sections_free(s, 3);
    }
    free(f.p);
    rmodel_free(&m);
}

/* ---- seed corpora -------------------------------------------------------- */

static void corpus_write(const char *dir, const char *sub, const char *name, const file *f) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, sub);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
    write_file(path, f->p, f->n);
}

static void write_corpus(const char *dir) {
    zmodel m;
    zmodel_make(&m, 4, 1, 4);
    file f = zkey_file(&m, SETUP_ORDER, 10, 0, 0, 0);
    corpus_write(dir, "zkey", "setup_order", &f);
    free(f.p);
    static const uint32_t in_order[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    f = zkey_file(&m, in_order, 9, 33, 3, 4);
    corpus_write(dir, "zkey", "unaligned", &f);
    free(f.p);
    zmodel_free(&m);
    uint64_t v[3][4] = {{1, 0, 0, 0}, {5, 0, 0, 0}, {0}};
    rand_scalar(v[2]);
    f = wtns_file((const uint64_t(*)[4])v, 3, R_LIMBS, 32, 2, 0);
    corpus_write(dir, "wtns", "three", &f);
    free(f.p);
    f = wtns_file((const uint64_t(*)[4])v, 3, R_LIMBS, 32, 2, 3);
    corpus_write(dir, "wtns", "unaligned", &f);
    free(f.p);
    rmodel rm;
    rmodel_make(&rm, 3);
    f = r1cs_file(&rm, R_LIMBS, true, true);
    corpus_write(dir, "r1cs", "circom_order", &f);
    free(f.p);
    f = r1cs_file(&rm, R_LIMBS, false, false);
    corpus_write(dir, "r1cs", "no_labels", &f);
    free(f.p);
    rmodel_free(&rm);
    printf("wrote seed corpora under %s\n", dir);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    make_tmpdir();
    RUN(test_memcpy_parallel);
    RUN(test_binfile);
    RUN(test_zkey_roundtrip);
    RUN(test_zkey_unaligned);
    RUN(test_zkey_truncated);
    RUN(test_zkey_fields);
    RUN(test_zkey_curve);
    RUN(test_zkey_points);
    RUN(test_zkey_large_sections);
    RUN(test_zkey_file);
    RUN(test_wtns);
    RUN(test_r1cs_roundtrip);
    RUN(test_r1cs_witness_check);
    RUN(test_r1cs_corrupt);
    const char *corpus = getenv("CUZK_IO_CORPUS");
    if (corpus && *corpus) write_corpus(corpus);
    rmdir(tmpdir);
    return cuzk_test_finish();
}
