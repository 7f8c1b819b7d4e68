/*
 * test_circuit.c — the circuit and witness files (src/circuit), the SpMV that
 * turns a witness into a, b, c, and conversion from circom .r1cs/.wtns.
 *
 * References that do not share code with what they check:
 *  - XXH64 vectors from the system libxxhash (0.8.1) through Python ctypes;
 *  - a hand-worked circuit (x^3 + x + 5 = out) with hand-derived a, b, c and
 *    density bitmaps;
 *  - random circuits evaluated through dense matrices built from the test's
 *    own entry lists (not the CSR arrays), densities from those lists;
 *  - the .r1cs reader's own witness check (src/io/r1cs.c) for the converted
 *    circuits, and direct evaluation of the .r1cs linear combinations.
 *
 * Options: --interop runs only the snarkjs-fixture test and fails when the
 * fixtures are missing (for an interop-labelled registration);
 * CUZK_SNARKJS_FIXTURES=<dir> points at them (default:
 * $CUZK_SOURCE_DIR/build/tests/interop/snarkjs). CUZK_CIRCUIT_CORPUS=<dir>
 * writes the fuzz seeds to <dir>/circuit and <dir>/witness.
 * CUZK_BENCH_SPMV=1 adds the 2^16-constraint throughput measurement with all
 * flag combinations (otherwise it runs once, default paths, for the log).
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "test_util.h"

#include "circuit/circuit.h"
#include "io/r1cs.h"
#include "circuit/witness.h"
#include "io/wtns.h"

#if defined(CUZK_HAVE_OPENMP)
#include <omp.h>
#endif

static char tmpdir[256];

static void make_tmpdir(void) {
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof(tmpdir), "%s/cuzk_circuit_XXXXXX", base && *base ? base : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        exit(1);
    }
}

static void tmp_path(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", tmpdir, name);
}

static bool read_file(const char *path, uint8_t **out, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return false;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    *out = malloc(len > 0 ? (size_t)len : 1);
    *n = (size_t)len;
    bool ok = *out != NULL && fread(*out, 1, *n, f) == *n;
    fclose(f);
    return ok;
}

/* ---- field helpers ---------------------------------------------------------- */

static void fr_u64(cuzk_fr *r, uint64_t v) { cuzk_fr_from_u64(r, v); }

/* Coefficient mix: +-1, 0, small, random. */
static void coeff_rand(cuzk_fr *r) {
    switch (cuzk_test_rand64() % 6) {
    case 0: cuzk_fr_set_one(r); break;
    case 1: cuzk_fr_neg(r, &cuzk__fr_one); break;
    case 2: cuzk_fr_set_zero(r); break;
    case 3: fr_u64(r, 2 + cuzk_test_rand64() % 5); break;
    default: cuzk_test_rand_fr(r); break;
    }
}

/* Witness mix: mostly 0 and 1, some random, some -1. */
static void value_rand(cuzk_fr *r) {
    switch (cuzk_test_rand64() % 5) {
    case 0: cuzk_fr_set_zero(r); break;
    case 1:
    case 2: cuzk_fr_set_one(r); break;
    case 3: cuzk_fr_neg(r, &cuzk__fr_one); break;
    default: cuzk_test_rand_fr(r); break;
    }
}

/* ---- a circuit model: entry lists per matrix --------------------------------- */

typedef struct {
    uint64_t nc, ni, na;
    uint64_t *rp[3];
    uint32_t *col[3];
    cuzk_fr *cf[3];
} model;

static void model_free(model *m) {
    for (int j = 0; j < 3; j++) {
        free(m->rp[j]);
        free(m->col[j]);
        free(m->cf[j]);
    }
    memset(m, 0, sizeof(*m));
}

/* Random model: up to max_row entries per row, columns anywhere (repeats
 * allowed), coefficients from coeff_rand. */
static void model_random(model *m, uint64_t nc, uint64_t ni, uint64_t na, unsigned max_row) {
    m->nc = nc;
    m->ni = ni;
    m->na = na;
    uint64_t nv = ni + na;
    for (int j = 0; j < 3; j++) {
        m->rp[j] = malloc((nc + 1) * 8);
        m->col[j] = malloc((nc * max_row + 1) * 4);
        m->cf[j] = malloc((nc * max_row + 1) * sizeof(cuzk_fr));
        uint64_t k = 0;
        m->rp[j][0] = 0;
        for (uint64_t i = 0; i < nc; i++) {
            unsigned n = (unsigned)(cuzk_test_rand64() % (max_row + 1));
            for (unsigned t = 0; t < n; t++) {
                m->col[j][k] = (uint32_t)(cuzk_test_rand64() % nv);
                coeff_rand(&m->cf[j][k]);
                k++;
            }
            m->rp[j][i + 1] = k;
        }
    }
}

static cuzk_status model_build(cuzk_circuit *c, const model *m, const char *name,
                               cuzk_error *err) {
    cuzk_circuit_matrix_in in[3];
    for (int j = 0; j < 3; j++) {
        in[j].row_ptr = m->rp[j];
        in[j].col = m->col[j];
        in[j].coeff = m->cf[j];
    }
    return cuzk_circuit_build(c, m->nc, m->ni, m->na, in, name, err);
}

/* Dense reference: out[i] = sum_j D[i][j] w[j], D summed from the entry list. */
static void dense_eval(cuzk_fr *out, const model *m, int j, const cuzk_fr *w) {
    uint64_t nv = m->ni + m->na;
    cuzk_fr *D = calloc(m->nc * nv + 1, sizeof(cuzk_fr));
    for (uint64_t i = 0; i < m->nc; i++)
        for (uint64_t k = m->rp[j][i]; k < m->rp[j][i + 1]; k++)
            cuzk_fr_add(&D[i * nv + m->col[j][k]], &D[i * nv + m->col[j][k]], &m->cf[j][k]);
    for (uint64_t i = 0; i < m->nc; i++) {
        cuzk_fr acc, t;
        cuzk_fr_set_zero(&acc);
        for (uint64_t v = 0; v < nv; v++) {
            cuzk_fr_mul(&t, &D[i * nv + v], &w[v]);
            cuzk_fr_add(&acc, &acc, &t);
        }
        out[i] = acc;
    }
    free(D);
}

/* Density from the entry lists: bit v - lo for entries with lo <= col < hi. */
static bool bit_of(const uint64_t *bm, uint64_t i) { return bm[i / 64] >> (i % 64) & 1; }
static void check_density(const cuzk_circuit *c, const model *m) {
    uint64_t nv = m->ni + m->na;
    bool *ina = calloc(nv + 1, 1), *inb = calloc(nv + 1, 1);
    for (uint64_t k = 0; k < m->rp[0][m->nc]; k++) ina[m->col[0][k]] = true;
    for (uint64_t k = 0; k < m->rp[1][m->nc]; k++) inb[m->col[1][k]] = true;
    uint64_t ca = 0, cbi = 0, cba = 0;
    for (uint64_t v = 0; v < m->na; v++) {
        CHECK(bit_of(c->a_aux, v) == ina[m->ni + v]);
        CHECK(bit_of(c->b_aux, v) == inb[m->ni + v]);
        ca += ina[m->ni + v];
        cba += inb[m->ni + v];
    }
    for (uint64_t v = 0; v < m->ni; v++) {
        CHECK(bit_of(c->b_inp, v) == inb[v]);
        cbi += inb[v];
    }
    /* Bits past the counts are zero. */
    if (m->na % 64) {
        CHECK((c->a_aux[m->na / 64] >> (m->na % 64)) == 0);
        CHECK((c->b_aux[m->na / 64] >> (m->na % 64)) == 0);
    }
    if (m->ni % 64) CHECK((c->b_inp[m->ni / 64] >> (m->ni % 64)) == 0);
    CHECK_EQ_INT(c->a_aux_count, ca);
    CHECK_EQ_INT(c->b_inp_count, cbi);
    CHECK_EQ_INT(c->b_aux_count, cba);
    free(ina);
    free(inb);
}

/* The circuit holds exactly the model's entries, in order. */
static void check_matches(const cuzk_circuit *c, const model *m) {
    CHECK_EQ_INT(c->n_constraints, m->nc);
    CHECK_EQ_INT(c->n_inputs, m->ni);
    CHECK_EQ_INT(c->n_aux, m->na);
    uint64_t rows = m->nc + m->ni, dom = 1;
    while (dom < rows) dom *= 2;
    CHECK_EQ_INT(c->domain_size, dom);
    CHECK_EQ_INT((uint64_t)1 << c->domain_log, dom);
    cuzk_fr m1;
    cuzk_fr_neg(&m1, &cuzk__fr_one);
    CHECK(c->n_values >= 2 && cuzk_fr_is_one(&c->values[0]) && cuzk_fr_eq(&c->values[1], &m1));
    for (int j = 0; j < 3; j++) {
        CHECK_EQ_INT(c->m[j].nnz, m->rp[j][m->nc]);
        CHECK_MEM(c->m[j].row_ptr, m->rp[j], (m->nc + 1) * 8);
        bool ok = true;
        for (uint64_t k = 0; k < c->m[j].nnz && ok; k++)
            ok = c->m[j].col[k] == m->col[j][k] && c->m[j].val[k] < c->n_values &&
                 cuzk_fr_eq(&c->values[c->m[j].val[k]], &m->cf[j][k]);
        CHECK(ok);
    }
    /* Values are distinct. */
    bool distinct = true;
    for (uint64_t a = 0; a < c->n_values && distinct; a++)
        for (uint64_t b = a + 1; b < c->n_values && distinct; b++)
            distinct = !cuzk_fr_eq(&c->values[a], &c->values[b]);
    CHECK(distinct);
    check_density(c, m);
}

/* ---- tests ------------------------------------------------------------------ */

static void test_xxh64(void) {
    /* From libxxhash 0.8.1 (XXH64 through ctypes). */
    uint8_t buf[1280];
    CHECK(cuzk__xxh64("", 0, 0) == 0xef46db3751d8e999ULL);
    CHECK(cuzk__xxh64("a", 1, 0) == 0xd24ec4f1a98c6e5bULL);
    CHECK(cuzk__xxh64("abc", 3, 0) == 0x44bc2cf5ad770999ULL);
    CHECK(cuzk__xxh64("abc", 3, 0x1234) == 0xfc775f091949e650ULL);
    for (int i = 0; i < 1280; i++) buf[i] = (uint8_t)i;
    CHECK(cuzk__xxh64(buf, 100, 0) == 0x6ac1e58032166597ULL);
    CHECK(cuzk__xxh64(buf, 1280, 0) == 0xafc184ad7938a354ULL);
    /* data[i] = 7i + 3 mod 256: prefixes across the 32-byte stripe edge,
     * and the blockwise file checksum of 2.5 MiB + 13 bytes. */
    size_t n = ((size_t)5 << 19) + 13;
    uint8_t *d = malloc(n);
    for (size_t i = 0; i < n; i++) d[i] = (uint8_t)(i * 7 + 3);
    static const struct {
        size_t len;
        uint64_t h;
    } v[] = {{31, 0xa2aa5f33cc4a6119ULL}, {32, 0x23c3c17ef790fd97ULL},
             {33, 0x50a7cfc7ba588784ULL}, {63, 0x5e3e54b431c7493cULL},
             {64, 0x0eb64b3ef6eeb01fULL}, {65, 0xa383b724b2bd12f1ULL}};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        CHECK(cuzk__xxh64(d, v[i].len, 0) == v[i].h);
    CHECK(cuzk__circuit_checksum(d, n, 0) == 0x28ea1d0b8a97ed44ULL);
    CHECK(cuzk__circuit_checksum(d, n, 1) == 0x28ea1d0b8a97ed44ULL);
    free(d);
}

/*
 * x^3 + x + 5 = out. Variables: inputs ONE (0), out (1); aux x (2), x2 (3),
 * x3 (4). Constraints: x*x = x2; x2*x = x3; (x3 + x + 5*ONE)*ONE = out.
 */
static void xcube_model(model *m) {
    static const uint64_t rpa[4] = {0, 1, 2, 5}, rpb[4] = {0, 1, 2, 3}, rpc[4] = {0, 1, 2, 3};
    static const uint32_t ca[5] = {2, 3, 4, 2, 0}, cb[3] = {2, 2, 0}, cc[3] = {3, 4, 1};
    m->nc = 3;
    m->ni = 2;
    m->na = 3;
    const uint64_t *rp[3] = {rpa, rpb, rpc};
    const uint32_t *cl[3] = {ca, cb, cc};
    uint64_t n[3] = {5, 3, 3};
    for (int j = 0; j < 3; j++) {
        m->rp[j] = malloc(4 * 8);
        memcpy(m->rp[j], rp[j], 4 * 8);
        m->col[j] = malloc(n[j] * 4);
        memcpy(m->col[j], cl[j], n[j] * 4);
        m->cf[j] = malloc(n[j] * sizeof(cuzk_fr));
        for (uint64_t k = 0; k < n[j]; k++) cuzk_fr_set_one(&m->cf[j][k]);
    }
    fr_u64(&m->cf[0][4], 5);
}

/* x = 3: out = 35. Plain limbs. */
static void xcube_witness(uint64_t w[5][4]) {
    static const uint64_t v[5] = {1, 35, 3, 9, 27};
    memset(w, 0, 5 * 4 * 8);
    for (int i = 0; i < 5; i++) w[i][0] = v[i];
}

static void check_small_vec(const cuzk_fr *x, const uint64_t *want, size_t n) {
    for (size_t i = 0; i < n; i++) {
        cuzk_fr t;
        fr_u64(&t, want[i]);
        if (!cuzk_fr_eq(&x[i], &t)) {
            fprintf(stderr, "  row %zu differs (want %llu)\n", i, (unsigned long long)want[i]);
            CHECK(0);
        }
    }
}

static void test_xcube(void) {
    model m;
    xcube_model(&m);
    cuzk_circuit c;
    cuzk_error err;
    CHECK_EQ_INT(model_build(&c, &m, "xcube", &err), CUZK_OK);
    char path[300];
    tmp_path(path, sizeof(path), "xcube.circuit");
    CHECK_EQ_INT(cuzk_circuit_write(&c, path, &err), CUZK_OK);
    cuzk_circuit_close(&c);
    CHECK_EQ_INT(cuzk_circuit_open(&c, path, 0, &err), CUZK_OK);
    check_matches(&c, &m);
    /* Hand-derived: 3 + 2 rows -> domain 8; values +1, -1, 5. */
    CHECK_EQ_INT(c.domain_size, 8);
    CHECK_EQ_INT(c.n_values, 3);
    CHECK_EQ_INT(c.a_aux[0], 7);
    CHECK_EQ_INT(c.b_inp[0], 1);
    CHECK_EQ_INT(c.b_aux[0], 1);
    CHECK(c.checksum != 0);

    uint64_t wv[5][4];
    xcube_witness(wv);
    cuzk_witness w;
    CHECK_EQ_INT(cuzk_witness_from_values(&w, &wv[0][0], 2, 3, "xcube.wit", &err), CUZK_OK);
    char wpath[300];
    tmp_path(wpath, sizeof(wpath), "xcube.wit");
    CHECK_EQ_INT(cuzk_witness_write(&w, wpath, &err), CUZK_OK);
    cuzk_witness_close(&w);
    CHECK_EQ_INT(cuzk_witness_open(&w, wpath, &err), CUZK_OK);
    CHECK_EQ_INT(w.n_inputs, 2);
    CHECK_EQ_INT(w.n_aux, 3);
    CHECK_MEM(w.values, wv, sizeof(wv));

    cuzk_fr a[8], b[8], cc[8];
    for (unsigned flags = 0; flags < 4; flags++) {
        memset(a, 0xff, sizeof(a)); /* the padding must be written */
        memset(b, 0xff, sizeof(b));
        memset(cc, 0xff, sizeof(cc));
        uint64_t bad = 0;
        CHECK_EQ_INT(cuzk_witness_abc_var(&c, &w, a, b, cc, flags, 0, &bad, &err), CUZK_OK);
        CHECK(bad == UINT64_MAX);
        static const uint64_t wa[8] = {3, 9, 35, 1, 35, 0, 0, 0};
        static const uint64_t wb[8] = {3, 3, 1, 0, 0, 0, 0, 0};
        static const uint64_t wc[8] = {9, 27, 35, 0, 0, 0, 0, 0};
        check_small_vec(a, wa, 8);
        check_small_vec(b, wb, 8);
        check_small_vec(cc, wc, 8);
    }
    /* x3 = 28: constraint 1 (x2*x = x3) fails first. */
    wv[4][0] = 28;
    cuzk_witness w2;
    CHECK_EQ_INT(cuzk_witness_from_values(&w2, &wv[0][0], 2, 3, "bad.wit", &err), CUZK_OK);
    uint64_t bad = 0;
    EXPECT_FAIL(cuzk_witness_abc_var(&c, &w2, a, b, cc, CUZK_SPMV_DEFAULT, 0, &bad, &err),
                CUZK_ERR_WITNESS_UNSATISFIED, err, "constraint 1 ", NULL);
    CHECK_EQ_INT(bad, 1);
    CHECK(strstr(err.msg, "bad.wit") != NULL && strstr(err.msg, path) != NULL);
    cuzk_witness_close(&w2);
    /* Counts that do not match the circuit. */
    CHECK_EQ_INT(cuzk_witness_from_values(&w2, &wv[0][0], 1, 4, "shifted.wit", &err), CUZK_OK);
    EXPECT_FAIL(cuzk_witness_abc_var(&c, &w2, a, b, cc, 0, 0, &bad, &err), CUZK_ERR_INVALID_ARG,
                err, "shifted.wit", NULL);
    cuzk_witness_close(&w2);
    cuzk_witness_close(&w);
    cuzk_circuit_close(&c);
    model_free(&m);
}

static void test_random_roundtrip(void) {
    for (unsigned it = 0; it < ITERS(12); it++) {
        model m;
        uint64_t nc = cuzk_test_rand64() % 40, ni = 1 + cuzk_test_rand64() % 70,
                 na = cuzk_test_rand64() % 90;
        model_random(&m, nc, ni, na, 1 + (unsigned)(cuzk_test_rand64() % 6));
        cuzk_circuit c, d;
        cuzk_error err;
        CHECK_EQ_INT(model_build(&c, &m, "random", &err), CUZK_OK);
        check_matches(&c, &m);
        uint8_t *bytes;
        size_t n;
        CHECK_EQ_INT(cuzk_circuit_to_bytes(&c, &bytes, &n, &err), CUZK_OK);
        CHECK_EQ_INT(n, c.size);
        CHECK_EQ_INT(n % 64, 8); /* the trailer follows a 64-aligned part */
        /* Through a file and through memory (unaligned: copied). */
        char path[300];
        tmp_path(path, sizeof(path), "random.circuit");
        CHECK_EQ_INT(cuzk_circuit_write(&c, path, &err), CUZK_OK);
        uint8_t *fb = NULL;
        size_t fn;
        CHECK(read_file(path, &fb, &fn) && fn == n && memcmp(fb, bytes, n) == 0);
        CHECK_EQ_INT(cuzk_circuit_open(&d, path, 0, &err), CUZK_OK);
        check_matches(&d, &m);
        cuzk_circuit_close(&d);
        uint8_t *un = malloc(n + 1);
        memcpy(un + 1, bytes, n);
        CHECK_EQ_INT(cuzk_circuit_open_mem(&d, un + 1, n, "mem", 0, &err), CUZK_OK);
        check_matches(&d, &m);
        CHECK(d.owned != NULL);
        cuzk_circuit_close(&d);
        /* Write again from the opened copy: the same bytes. */
        CHECK_EQ_INT(cuzk_circuit_open_mem(&d, bytes, n, "mem", 0, &err), CUZK_OK);
        uint8_t *again;
        size_t an;
        CHECK_EQ_INT(cuzk_circuit_to_bytes(&d, &again, &an, &err), CUZK_OK);
        CHECK(an == n && memcmp(again, bytes, n) == 0);
        free(again);
        cuzk_circuit_close(&d);
        free(un);
        free(fb);
        free(bytes);
        cuzk_circuit_close(&c);
        model_free(&m);
    }
}

/* SpMV against the dense reference, every flag combination, 1 and all threads. */
static void test_spmv_random(void) {
    for (unsigned it = 0; it < ITERS(10); it++) {
        model m;
        uint64_t nc = cuzk_test_rand64() % 300, ni = 1 + cuzk_test_rand64() % 20,
                 na = cuzk_test_rand64() % 60;
        model_random(&m, nc, ni, na, 1 + (unsigned)(cuzk_test_rand64() % 5));
        cuzk_circuit c;
        cuzk_error err;
        CHECK_EQ_INT(model_build(&c, &m, "spmv", &err), CUZK_OK);
        uint64_t nv = ni + na, dom = c.domain_size;
        cuzk_fr *w = malloc(nv * sizeof(cuzk_fr));
        cuzk_fr_set_one(&w[0]);
        for (uint64_t v = 1; v < nv; v++) value_rand(&w[v]);
        cuzk_fr *ref[3], *out[3];
        for (int j = 0; j < 3; j++) {
            ref[j] = calloc(dom, sizeof(cuzk_fr));
            out[j] = malloc(dom * sizeof(cuzk_fr));
            dense_eval(ref[j], &m, j, w);
        }
        for (uint64_t i = 0; i < ni; i++) ref[0][nc + i] = w[i];
        for (unsigned flags = 0; flags < 4; flags++)
            for (unsigned th = 0; th < 2; th++) {
                for (int j = 0; j < 3; j++) memset(out[j], 0xa5, dom * sizeof(cuzk_fr));
                CHECK_EQ_INT(cuzk_circuit_abc_var(&c, out[0], out[1], out[2], w, flags,
                                                  th ? 0 : 1),
                             CUZK_OK);
                for (int j = 0; j < 3; j++) CHECK_MEM(out[j], ref[j], dom * sizeof(cuzk_fr));
            }
        /* The check against the reference: first row with a*b != c. */
        uint64_t want = UINT64_MAX, got = 0;
        for (uint64_t i = 0; i < nc && want == UINT64_MAX; i++) {
            cuzk_fr p;
            cuzk_fr_mul(&p, &ref[0][i], &ref[1][i]);
            if (!cuzk_fr_eq(&p, &ref[2][i])) want = i;
        }
        cuzk_status st = cuzk_circuit_check_abc(&c, out[0], out[1], out[2], "w", 0, &got, &err);
        CHECK_EQ_INT(st, want == UINT64_MAX ? CUZK_OK : CUZK_ERR_WITNESS_UNSATISFIED);
        CHECK(got == want);
        /* Make it satisfied: c := a*b, then break one row. */
        for (uint64_t i = 0; i < nc; i++) cuzk_fr_mul(&out[2][i], &out[0][i], &out[1][i]);
        CHECK_EQ_INT(cuzk_circuit_check_abc(&c, out[0], out[1], out[2], "w", 0, &got, &err),
                     CUZK_OK);
        if (nc > 0) {
            uint64_t r = cuzk_test_rand64() % nc;
            cuzk_fr_add(&out[2][r], &out[2][r], &cuzk__fr_one);
            char needle[64];
            snprintf(needle, sizeof(needle), "constraint %llu ", (unsigned long long)r);
            EXPECT_FAIL(cuzk_circuit_check_abc(&c, out[0], out[1], out[2], "w.wit", 0, &got,
                                               &err),
                        CUZK_ERR_WITNESS_UNSATISFIED, err, needle, NULL);
            CHECK_EQ_INT(got, r);
        }
        for (int j = 0; j < 3; j++) {
            free(ref[j]);
            free(out[j]);
        }
        free(w);
        cuzk_circuit_close(&c);
        model_free(&m);
    }
}

/* Builder input errors name the matrix and the row. */
static void test_build_errors(void) {
    model m;
    xcube_model(&m);
    cuzk_circuit c;
    cuzk_error err;
    m.col[1][2] = 5;
    EXPECT_FAIL(model_build(&c, &m, "b", &err), CUZK_ERR_INVALID_ARG, err, "matrix B row 2", NULL);
    m.col[1][2] = 0;
    memset(&m.cf[2][1], 0xff, sizeof(cuzk_fr));
    EXPECT_FAIL(model_build(&c, &m, "b", &err), CUZK_ERR_NOT_CANONICAL, err, "matrix C row 1",
                NULL);
    cuzk_fr_set_one(&m.cf[2][1]);
    m.rp[0][2] = 0;
    EXPECT_FAIL(model_build(&c, &m, "b", &err), CUZK_ERR_INVALID_ARG, err, "decreases", NULL);
    m.rp[0][2] = 2;
    uint64_t ni = m.ni;
    m.ni = 0;
    EXPECT_FAIL(model_build(&c, &m, "b", &err), CUZK_ERR_INVALID_ARG, err, "n_inputs = 0", NULL);
    m.ni = ni;
    CHECK_EQ_INT(model_build(&c, &m, "b", &err), CUZK_OK);
    cuzk_circuit_close(&c);
    /* Domain above 2^31. */
    cuzk_circuit_matrix_in in[3] = {{NULL, NULL, NULL}, {NULL, NULL, NULL}, {NULL, NULL, NULL}};
    EXPECT_FAIL(cuzk_circuit_build(&c, (uint64_t)1 << 31, 1, 0, in, "huge", &err),
                CUZK_ERR_UNSUPPORTED, err, "2^31", NULL);
    model_free(&m);
}

/* ---- corrupted circuit files ---------------------------------------------------- */

static void st64le(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t ld64le(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static void resign(uint8_t *b, size_t n) { st64le(b + n - 8, cuzk__circuit_checksum(b, n - 8, 0)); }

#define BADNAME "mem/bad.circuit"

static cuzk_status open_bytes(const uint8_t *b, size_t n, unsigned flags, cuzk_error *err) {
    uint8_t *cp = malloc(n ? n : 1);
    memcpy(cp, b, n);
    cuzk_circuit c;
    cuzk_status st = cuzk_circuit_open_mem(&c, cp, n, BADNAME, flags, err);
    if (st == CUZK_OK) {
        cuzk_circuit_close(&c);
    } else {
        static const cuzk_circuit zero;
        CHECK(memcmp(&c, &zero, sizeof(c)) == 0);
        CHECK(strstr(err->msg, BADNAME) != NULL);
    }
    free(cp);
    return st;
}

static void test_circuit_corrupt(void) {
    model m;
    model_random(&m, 20, 3, 30, 4);
    /* Fix shapes the edits below rely on: entries in A, B and C. */
    m.col[0][0] = 0;
    cuzk_circuit c;
    cuzk_error err;
    CHECK_EQ_INT(model_build(&c, &m, "x", &err), CUZK_OK);
    uint8_t *g;
    size_t n;
    CHECK_EQ_INT(cuzk_circuit_to_bytes(&c, &g, &n, &err), CUZK_OK);
    CHECK_EQ_INT(open_bytes(g, n, 0, &err), CUZK_OK);
    uint8_t *b = malloc(n + 64);

    /* Every truncation. */
    for (size_t len = 0; len < n; len++) {
        cuzk_status st = open_bytes(g, len, 0, &err);
        CHECK_EQ_INT(st, CUZK_ERR_BAD_LENGTH);
        CHECK(strstr(err.msg, "truncated") != NULL);
    }
    memcpy(b, g, n);
    b[n] = 0;
    EXPECT_FAIL(open_bytes(b, n + 1, 0, &err), CUZK_ERR_BAD_LENGTH, err, "trailing", NULL);

#define MUT(stmt, sign, want, needle)                                                            \
    do {                                                                                        \
        memcpy(b, g, n);                                                                        \
        stmt;                                                                                   \
        if (sign) resign(b, n);                                                                 \
        EXPECT_FAIL(open_bytes(b, n, 0, &err), want, err, needle, NULL);                        \
    } while (0)

    MUT(b[3] ^= 1, 1, CUZK_ERR_BAD_ENCODING, "wrong magic");
    MUT(b[8] = 2, 1, CUZK_ERR_UNSUPPORTED, "version 2");
    MUT(b[12] = 1, 1, CUZK_ERR_UNSUPPORTED, "flags");
    MUT(b[120] = 1, 1, CUZK_ERR_BAD_ENCODING, "reserved");
    MUT(st64le(b + 24, 0), 1, CUZK_ERR_BAD_ENCODING, "n_inputs = 0");
    MUT(st64le(b + 32, (uint64_t)1 << 40), 1, CUZK_ERR_BAD_ENCODING, "2^32 variables");
    MUT(st64le(b + 40, 64), 1, CUZK_ERR_BAD_ENCODING, "domain_size");
    MUT(st64le(b + 16, (uint64_t)1 << 40), 1, CUZK_ERR_UNSUPPORTED, "domain above");
    MUT(st64le(b + 48, ld64le(b + 48) + 64), 1, CUZK_ERR_BAD_LENGTH, "counts need");
    MUT(st64le(b + 56, (uint64_t)1 << 62), 1, CUZK_ERR_BAD_ENCODING, "overflow");
    MUT(st64le(b + 72, 1), 1, CUZK_ERR_BAD_ENCODING, "n_values");
    MUT(st64le(b + 104, n + 64), 1, CUZK_ERR_BAD_LENGTH, "file_size");
    /* Checksum: any flipped byte, and the trailer itself. */
    MUT(b[200] ^= 0x10, 0, CUZK_ERR_BAD_ENCODING, "checksum mismatch");
    MUT(b[n - 1] ^= 1, 0, CUZK_ERR_BAD_ENCODING, "checksum mismatch");
    /* The same flip is accepted or caught otherwise when the checksum is skipped. */
    memcpy(b, g, n);
    b[n - 1] ^= 1;
    CHECK_EQ_INT(open_bytes(b, n, CUZK_CIRCUIT_SKIP_CHECKSUM, &err), CUZK_OK);

    /* Structure, with a valid checksum. Offsets from the circuit's own view. */
    const uint8_t *base = c.image;
#define OFF(p) ((size_t)((const uint8_t *)(p) - base))
    size_t o_val = OFF(c.values), o_rpb = OFF(c.m[1].row_ptr), o_colc = OFF(c.m[2].col),
           o_vala = OFF(c.m[0].val), o_aaux = OFF(c.a_aux), o_binp = OFF(c.b_inp);
    MUT(memset(b + o_val + 32 * 2, 0xff, 32), 1, CUZK_ERR_NOT_CANONICAL, "value 2");
    MUT(b[o_val] ^= 1, 1, CUZK_ERR_BAD_ENCODING, "+1, -1");
    MUT(st64le(b + o_rpb + 8, 1000000), 1, CUZK_ERR_BAD_ENCODING, "matrix B row_ptr decreases");
    MUT(st64le(b + o_rpb, 1), 1, CUZK_ERR_BAD_ENCODING, "row_ptr[0]");
    MUT(memset(b + o_colc, 0xee, 4), 1, CUZK_ERR_BAD_ENCODING, "matrix C row");
    MUT(memset(b + o_vala, 0x77, 4), 1, CUZK_ERR_BAD_ENCODING, "value index");
    /* Density: clear a set bit, set a clear bit, a bit past the end, popcount. */
    uint64_t aw = ld64le(b + o_aaux);
    if (aw != 0) {
        uint64_t lo = aw & (0 - aw);
        MUT(st64le(b + o_aaux, aw & ~lo), 1, CUZK_ERR_BAD_ENCODING, "bit is clear");
    }
    uint64_t bi = ld64le(g + o_binp);
    if (~bi & 7) {
        uint64_t bit = (~bi & 7) & (0 - (~bi & 7));
        MUT(st64le(b + o_binp, bi | bit), 1, CUZK_ERR_BAD_ENCODING, "does not appear");
    }
    MUT(st64le(b + o_binp, bi | (1ULL << 40)), 1, CUZK_ERR_BAD_ENCODING, "past its");
    MUT(st64le(b + 80, ld64le(b + 80) + 1), 1, CUZK_ERR_BAD_ENCODING, "popcount");
    /* Non-zero padding: the 8-byte b_aux bitmap is followed by 56 bytes of it. */
    MUT(b[n - 9] = 1, 1, CUZK_ERR_BAD_ENCODING, "padding");

    /* Through a file: the path is named. */
    char path[300];
    tmp_path(path, sizeof(path), "short.circuit");
    CHECK(cuzk_test_write_file(path, g, n - 1));
    cuzk_circuit d;
    EXPECT_FAIL(cuzk_circuit_open(&d, path, 0, &err), CUZK_ERR_BAD_LENGTH, err, path, NULL);
    tmp_path(path, sizeof(path), "missing.circuit");
    EXPECT_FAIL(cuzk_circuit_open(&d, path, 0, &err), CUZK_ERR_IO, err, path, NULL);
    free(b);
    free(g);
    cuzk_circuit_close(&c);
    model_free(&m);
}

/* ---- witness file ------------------------------------------------------------------ */

#define WNAME "mem/bad.wit"

static cuzk_status wopen_bytes(const uint8_t *b, size_t n, cuzk_error *err) {
    uint8_t *cp = malloc(n ? n : 1);
    memcpy(cp, b, n);
    cuzk_witness w;
    cuzk_status st = cuzk_witness_open_mem(&w, cp, n, WNAME, err);
    if (st == CUZK_OK) {
        cuzk_witness_close(&w);
    } else {
        static const cuzk_witness zero;
        CHECK(memcmp(&w, &zero, sizeof(w)) == 0);
        CHECK(strstr(err->msg, WNAME) != NULL);
    }
    free(cp);
    return st;
}

static void test_witness_file(void) {
    uint64_t ni = 3, na = 5, v[8][4];
    cuzk_error err;
    for (int i = 0; i < 8; i++) {
        cuzk_fr x;
        cuzk_test_rand_fr(&x);
        cuzk_fr_to_limbs(v[i], &x);
    }
    memset(v[0], 0, 32);
    v[0][0] = 1;
    cuzk_witness w;
    CHECK_EQ_INT(cuzk_witness_from_values(&w, &v[0][0], ni, na, "w", &err), CUZK_OK);
    uint8_t *g;
    size_t n;
    CHECK_EQ_INT(cuzk_witness_to_bytes(&w, &g, &n, &err), CUZK_OK);
    CHECK_EQ_INT(n, 32 + 8 * 32);
    /* Independent layout check: header fields and plain LE values. */
    CHECK(memcmp(g, "cuzkwitn", 8) == 0 && ld64le(g + 8) == 1 && ld64le(g + 16) == ni &&
          ld64le(g + 24) == na);
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 4; k++) CHECK(ld64le(g + 32 + 32 * i + 8 * k) == v[i][k]);
    /* Montgomery conversion. */
    cuzk_fr mont[8];
    cuzk_witness_to_mont(mont, &w, 0);
    for (int i = 0; i < 8; i++) {
        uint64_t back[4];
        cuzk_fr_to_limbs(back, &mont[i]);
        CHECK_MEM(back, v[i], 32);
    }
    cuzk_witness_close(&w);
    CHECK_EQ_INT(wopen_bytes(g, n, &err), CUZK_OK);
    for (size_t len = 0; len < n; len++) {
        CHECK_EQ_INT(wopen_bytes(g, len, &err), CUZK_ERR_BAD_LENGTH);
        CHECK(strstr(err.msg, "truncated") != NULL);
    }
    uint8_t *b = malloc(n + 32);
#define WMUT(stmt, len, want, needle)                                                           \
    do {                                                                                        \
        memcpy(b, g, n);                                                                        \
        memset(b + n, 0, 32);                                                                   \
        stmt;                                                                                   \
        EXPECT_FAIL(wopen_bytes(b, len, &err), want, err, needle, NULL);                        \
    } while (0)
    WMUT((void)0, n + 32, CUZK_ERR_BAD_LENGTH, "trailing");
    WMUT(b[0] = 'X', n, CUZK_ERR_BAD_ENCODING, "wrong magic");
    WMUT(b[8] = 9, n, CUZK_ERR_UNSUPPORTED, "version 9");
    WMUT(b[13] = 1, n, CUZK_ERR_UNSUPPORTED, "flags");
    WMUT(st64le(b + 16, 0), n, CUZK_ERR_BAD_ENCODING, "n_inputs = 0");
    WMUT(st64le(b + 24, UINT64_MAX - 1), n, CUZK_ERR_BAD_ENCODING, "overflow");
    WMUT(st64le(b + 24, na + 1), n, CUZK_ERR_BAD_LENGTH, "truncated");
    WMUT(st64le(b + 24, na - 1), n, CUZK_ERR_BAD_LENGTH, "trailing");
    WMUT(memcpy(b + 32 + 32 * 5, cuzk__fr_r, 32), n, CUZK_ERR_NOT_CANONICAL, "aux 2 is >= r");
    WMUT(memset(b + 32 + 32 * 1 + 24, 0xff, 8), n, CUZK_ERR_NOT_CANONICAL, "input 1 is >= r");
    WMUT(b[32] = 2, n, CUZK_ERR_BAD_ENCODING, "input 0 must be 1");
    /* Through a file. */
    char path[300];
    tmp_path(path, sizeof(path), "trunc.wit");
    CHECK(cuzk_test_write_file(path, g, n - 3));
    EXPECT_FAIL(cuzk_witness_open(&w, path, &err), CUZK_ERR_BAD_LENGTH, err, path, NULL);
    free(b);
    free(g);
}

/* ---- circom .r1cs / .wtns -------------------------------------------------------------- */

static void put_section(cuzk_test_buf *b, uint32_t id, const cuzk_test_buf *payload) {
    cuzk_test_put_le32(b, id);
    cuzk_test_put_le64(b, payload->n);
    cuzk_test_put(b, payload->p, payload->n);
}

/* The x^3 circuit as circom would number it: 0 ONE, 1 out (public output),
 * 2 x (private input), 3 x2, 4 x3. Coefficients plain LE. */
static cuzk_test_buf xcube_r1cs(void) {
    cuzk_test_buf h = {0}, s = {0}, f = {0};
    cuzk_test_put_le32(&h, 32);
    cuzk_test_put(&h, cuzk__fr_r, 32);
    cuzk_test_put_le32(&h, 5);  /* nWires */
    cuzk_test_put_le32(&h, 1);  /* nPubOut */
    cuzk_test_put_le32(&h, 0);  /* nPubIn */
    cuzk_test_put_le32(&h, 1);  /* nPrvIn */
    cuzk_test_put_le64(&h, 5);  /* nLabels */
    cuzk_test_put_le32(&h, 3);  /* nConstraints */
    const struct {
        int n;
        uint32_t w[3];
        uint64_t c[3];
    } lcs[9] = {{1, {2}, {1}},       {1, {2}, {1}}, {1, {3}, {1}}, /* x*x = x2 */
                {1, {3}, {1}},       {1, {2}, {1}}, {1, {4}, {1}}, /* x2*x = x3 */
                {3, {4, 2, 0}, {1, 1, 5}}, {1, {0}, {1}}, {1, {1}, {1}}};
    for (int i = 0; i < 9; i++) {
        cuzk_test_put_le32(&s, (uint32_t)lcs[i].n);
        for (int t = 0; t < lcs[i].n; t++) {
            cuzk_test_put_le32(&s, lcs[i].w[t]);
            cuzk_test_put_le64(&s, lcs[i].c[t]);
            cuzk_test_put_le64(&s, 0);
            cuzk_test_put_le64(&s, 0);
            cuzk_test_put_le64(&s, 0);
        }
    }
    cuzk_test_put(&f, "r1cs", 4);
    cuzk_test_put_le32(&f, 1);
    cuzk_test_put_le32(&f, 2);
    put_section(&f, 2, &s); /* circom writes section 2 first */
    put_section(&f, 1, &h);
    free(h.p);
    free(s.p);
    return f;
}

static cuzk_test_buf make_wtns(const uint64_t (*v)[4], uint32_t n) {
    cuzk_test_buf h = {0}, s = {0}, f = {0};
    cuzk_test_put_le32(&h, 32);
    cuzk_test_put(&h, cuzk__fr_r, 32);
    cuzk_test_put_le32(&h, n);
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 4; k++) cuzk_test_put_le64(&s, v[i][k]);
    cuzk_test_put(&f, "wtns", 4);
    cuzk_test_put_le32(&f, 2);
    cuzk_test_put_le32(&f, 2);
    put_section(&f, 1, &h);
    put_section(&f, 2, &s);
    free(h.p);
    free(s.p);
    return f;
}

/* <lc, w> straight from the .r1cs terms, for comparison. */
static void r1cs_lc_eval(cuzk_fr *acc, const cuzk_r1cs_lc *lc, const cuzk_fr *w) {
    cuzk_fr_set_zero(acc);
    for (uint32_t i = 0; i < lc->n; i++) {
        uint32_t wire;
        uint64_t cf[4];
        cuzk_fr c, t;
        cuzk_r1cs_lc_term(lc, i, &wire, cf);
        cuzk_fr_from_limbs(&c, cf);
        cuzk_fr_mul(&t, &c, &w[wire]);
        cuzk_fr_add(acc, acc, &t);
    }
}

/*
 * Converts r and checks it against the .r1cs: counts, domain, a, b, c of the
 * good witness row by row against the terms, satisfaction verdicts equal to
 * cuzk_r1cs_check_witness for the good and (optional) bad witness.
 */
static void check_conversion(const cuzk_r1cs *r, const cuzk_wtns *good, const cuzk_wtns *bad,
                             uint64_t want_inputs) {
    cuzk_circuit c0, c;
    cuzk_error err;
    CHECK_EQ_INT(cuzk_circuit_from_r1cs(&c0, r, &err), CUZK_OK);
    if (c0.image == NULL) return;
    char path[300];
    tmp_path(path, sizeof(path), "conv.circuit");
    CHECK_EQ_INT(cuzk_circuit_write(&c0, path, &err), CUZK_OK);
    cuzk_circuit_close(&c0);
    CHECK_EQ_INT(cuzk_circuit_open(&c, path, 0, &err), CUZK_OK);
    CHECK_EQ_INT(c.n_inputs, want_inputs);
    CHECK_EQ_INT(c.n_inputs + c.n_aux, r->n_wires);
    CHECK_EQ_INT(c.n_constraints, r->n_constraints);
    CHECK_EQ_INT(c.m[0].nnz + c.m[1].nnz + c.m[2].nnz, r->n_terms);
    uint64_t dom = c.domain_size;
    cuzk_fr *abc[3];
    for (int j = 0; j < 3; j++) abc[j] = malloc(dom * sizeof(cuzk_fr));
    const cuzk_wtns *ws[2] = {good, bad};
    for (int k = 0; k < 2; k++) {
        if (ws[k] == NULL) continue;
        uint64_t rbad = 0, cbad = 0;
        cuzk_status rst = cuzk_r1cs_check_witness(r, ws[k]->values, ws[k]->n_witness, "w",
                                                  &rbad, &err);
        cuzk_witness w;
        CHECK_EQ_INT(cuzk_witness_from_wtns(&w, &c, ws[k], &err), CUZK_OK);
        char wpath[300];
        tmp_path(wpath, sizeof(wpath), "conv.wit");
        CHECK_EQ_INT(cuzk_witness_write(&w, wpath, &err), CUZK_OK);
        cuzk_witness_close(&w);
        CHECK_EQ_INT(cuzk_witness_open(&w, wpath, &err), CUZK_OK);
        cuzk_status st =
            cuzk_witness_abc_var(&c, &w, abc[0], abc[1], abc[2], CUZK_SPMV_DEFAULT, 0, &cbad, &err);
        CHECK_EQ_INT(st == CUZK_OK, rst == CUZK_OK);
        CHECK(cbad == rbad);
        if (k == 0) CHECK_EQ_INT(st, CUZK_OK);
        if (k == 1) {
            CHECK_EQ_INT(st, CUZK_ERR_WITNESS_UNSATISFIED);
            CHECK(strstr(err.msg, "conv.wit") != NULL);
        }
        /* Row by row against the .r1cs terms. */
        cuzk_fr *wm = malloc(r->n_wires * sizeof(cuzk_fr));
        cuzk_witness_to_mont(wm, &w, 0);
        cuzk_r1cs_iter it;
        cuzk_r1cs_constraint kc;
        cuzk_r1cs_iter_init(&it, r);
        bool same = true;
        uint64_t i = 0;
        while (cuzk_r1cs_iter_next(&it, &kc)) {
            cuzk_fr x[3];
            r1cs_lc_eval(&x[0], &kc.a, wm);
            r1cs_lc_eval(&x[1], &kc.b, wm);
            r1cs_lc_eval(&x[2], &kc.c, wm);
            for (int j = 0; j < 3; j++) same = same && cuzk_fr_eq(&x[j], &abc[j][i]);
            i++;
        }
        for (uint64_t in = 0; in < c.n_inputs; in++)
            same = same && cuzk_fr_eq(&abc[0][c.n_constraints + in], &wm[in]) &&
                   cuzk_fr_is_zero(&abc[1][c.n_constraints + in]);
        CHECK(same);
        free(wm);
        cuzk_witness_close(&w);
    }
    for (int j = 0; j < 3; j++) free(abc[j]);
    cuzk_circuit_close(&c);
}

static void test_r1cs_tiny(void) {
    cuzk_test_buf f = xcube_r1cs();
    cuzk_r1cs r;
    cuzk_error err;
    CHECK_EQ_INT(cuzk_r1cs_open_mem(&r, f.p, f.n, "mem/xcube.r1cs", &err), CUZK_OK);
    uint64_t wv[5][4];
    xcube_witness(wv);
    cuzk_test_buf g = make_wtns((const uint64_t(*)[4])wv, 5);
    wv[3][0] = 10; /* x2 = 10: constraint 0 fails */
    cuzk_test_buf bw = make_wtns((const uint64_t(*)[4])wv, 5);
    cuzk_wtns good, bad;
    CHECK_EQ_INT(cuzk_wtns_open_mem(&good, g.p, g.n, "mem/good.wtns", &err), CUZK_OK);
    CHECK_EQ_INT(cuzk_wtns_open_mem(&bad, bw.p, bw.n, "mem/bad.wtns", &err), CUZK_OK);
    check_conversion(&r, &good, &bad, 2);
    /* The converted circuit equals the hand-built one, byte for byte. */
    cuzk_circuit c1, c2;
    model m;
    xcube_model(&m);
    CHECK_EQ_INT(cuzk_circuit_from_r1cs(&c1, &r, &err), CUZK_OK);
    CHECK_EQ_INT(model_build(&c2, &m, "x", &err), CUZK_OK);
    CHECK(c1.size == c2.size && memcmp(c1.image, c2.image, c1.size) == 0);
    /* A wtns of the wrong length is refused naming both files. */
    cuzk_wtns shortw;
    cuzk_test_buf sw = make_wtns((const uint64_t(*)[4])wv, 4);
    CHECK_EQ_INT(cuzk_wtns_open_mem(&shortw, sw.p, sw.n, "mem/short.wtns", &err), CUZK_OK);
    cuzk_witness w;
    EXPECT_FAIL(cuzk_witness_from_wtns(&w, &c1, &shortw, &err), CUZK_ERR_INVALID_ARG,
                err, "mem/short.wtns", NULL);
    CHECK(strstr(err.msg, "mem/xcube.r1cs") != NULL);
    cuzk_wtns_close(&shortw);
    cuzk_circuit_close(&c1);
    cuzk_circuit_close(&c2);
    model_free(&m);
    cuzk_wtns_close(&good);
    cuzk_wtns_close(&bad);
    cuzk_r1cs_close(&r);
    free(f.p);
    free(g.p);
    free(bw.p);
    free(sw.p);
}

static bool interop_only;

/* The snarkjs fixture multi_public: 250 constraints, 5 public signals. */
static void test_r1cs_snarkjs(void) {
    char dir[512], p1[600], p2[600], p3[600];
    const char *env = getenv("CUZK_SNARKJS_FIXTURES"), *src = getenv("CUZK_SOURCE_DIR");
    if (env && *env)
        snprintf(dir, sizeof(dir), "%s/multi_public", env);
    else
        snprintf(dir, sizeof(dir), "%s/build/tests/interop/snarkjs/multi_public",
                 src && *src ? src : ".");
    snprintf(p1, sizeof(p1), "%s/circuit.r1cs", dir);
    snprintf(p2, sizeof(p2), "%s/witness.wtns", dir);
    snprintf(p3, sizeof(p3), "%s/witness_bad.wtns", dir);
    if (access(p1, R_OK) != 0 || access(p2, R_OK) != 0) {
        printf("  snarkjs fixtures not found in %s: skipped (make the interop fixtures)\n", dir);
        CHECK(!interop_only);
        return;
    }
    cuzk_r1cs r;
    cuzk_wtns good, bad;
    cuzk_error err;
    CHECK_EQ_INT(cuzk_r1cs_open(&r, p1, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk_wtns_open(&good, p2, &err), CUZK_OK);
    bool have_bad = cuzk_wtns_open(&bad, p3, &err) == CUZK_OK;
    CHECK_EQ_INT(r.n_pub_out + r.n_pub_in, 5);
    check_conversion(&r, &good, have_bad ? &bad : NULL, 6);
    cuzk_circuit c;
    CHECK_EQ_INT(cuzk_circuit_from_r1cs(&c, &r, &err), CUZK_OK);
    CHECK_EQ_INT(c.domain_size, 256); /* 250 + 6 rows fill 2^8 exactly */
    printf("  multi_public: %llu constraints, %llu inputs, %llu aux, nnz %llu/%llu/%llu, "
           "%llu distinct coefficients, density a_aux %llu b_inp %llu b_aux %llu\n",
           (unsigned long long)c.n_constraints, (unsigned long long)c.n_inputs,
           (unsigned long long)c.n_aux, (unsigned long long)c.m[0].nnz,
           (unsigned long long)c.m[1].nnz, (unsigned long long)c.m[2].nnz,
           (unsigned long long)c.n_values, (unsigned long long)c.a_aux_count,
           (unsigned long long)c.b_inp_count, (unsigned long long)c.b_aux_count);
    cuzk_circuit_close(&c);
    if (have_bad) cuzk_wtns_close(&bad);
    cuzk_wtns_close(&good);
    cuzk_r1cs_close(&r);
}

/* ---- PoRep-like throughput ------------------------------------------------------------- */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/*
 * 2^16 constraints, 328 inputs, aux ~ constraints; per row A 2.4, B 1.0,
 * C 2.2 entries on average; a_aux ~ all aux, b_aux ~ 25% of aux; 90% of
 * coefficients +-1, the rest from 64 constants; 90% of aux values bits.
 * Columns mostly near the row (gadgets use nearby variables).
 */
static void test_spmv_porep_like(void) {
    const uint64_t nc = 1 << 16, ni = 328, na = 1 << 16, nv = ni + na;
    const uint64_t nvals = 66;
    cuzk_fr *values = malloc(nvals * sizeof(cuzk_fr));
    cuzk_fr_set_one(&values[0]);
    cuzk_fr_neg(&values[1], &cuzk__fr_one);
    for (uint64_t i = 2; i < nvals; i++) cuzk_test_rand_fr(&values[i]);
    const unsigned per_row10[3] = {24, 10, 22}; /* tenths */
    uint64_t *rp[3];
    uint32_t *col[3], *val[3];
    for (int j = 0; j < 3; j++) {
        rp[j] = malloc((nc + 1) * 8);
        col[j] = malloc(nc * 5 * 4);
        val[j] = malloc(nc * 5 * 4);
        uint64_t k = 0;
        rp[j][0] = 0;
        for (uint64_t i = 0; i < nc; i++) {
            /* n entries with mean per_row10/10: floor plus a Bernoulli. */
            unsigned n = per_row10[j] / 10 + (cuzk_test_rand64() % 10 < per_row10[j] % 10);
            for (unsigned t = 0; t < n; t++) {
                uint64_t v;
                if (j == 0 && t == 0) {
                    v = ni + i % na; /* every aux appears in A */
                } else if (j == 1) {
                    v = cuzk_test_rand64() % 400 == 0 ? 0 : ni + (i % (na / 4)) * 4;
                } else if (cuzk_test_rand64() % 16 == 0) {
                    v = cuzk_test_rand64() % nv;
                } else {
                    int64_t d = (int64_t)(cuzk_test_rand64() % 64) - 32;
                    int64_t x = (int64_t)(i % na) + d;
                    v = ni + (uint64_t)(x < 0 ? 0 : x >= (int64_t)na ? (int64_t)na - 1 : x);
                }
                col[j][k] = (uint32_t)v;
                uint64_t rr = cuzk_test_rand64() % 20;
                val[j][k] = rr < 14 ? 0 : rr < 18 ? 1 : (uint32_t)(2 + cuzk_test_rand64() % 64);
                k++;
            }
            rp[j][i + 1] = k;
        }
    }
    cuzk_circuit c;
    cuzk_error err;
    const uint64_t *crp[3] = {rp[0], rp[1], rp[2]};
    const uint32_t *ccol[3] = {col[0], col[1], col[2]}, *cval[3] = {val[0], val[1], val[2]};
    CHECK_EQ_INT(cuzk_circuit_build_indexed(&c, nc, ni, na, values, nvals, crp, ccol, cval,
                                            "porep-like", &err),
                 CUZK_OK);
    cuzk_fr *w = malloc(nv * sizeof(cuzk_fr));
    cuzk_fr_set_one(&w[0]);
    for (uint64_t v = 1; v < nv; v++) {
        if (v >= ni && cuzk_test_rand64() % 10 != 0)
            fr_u64(&w[v], cuzk_test_rand64() & 1);
        else
            cuzk_test_rand_fr(&w[v]);
    }
    uint64_t dom = c.domain_size, nnz = c.m[0].nnz + c.m[1].nnz + c.m[2].nnz;
    cuzk_fr *out[2][3];
    for (int s = 0; s < 2; s++)
        for (int j = 0; j < 3; j++) out[s][j] = malloc(dom * sizeof(cuzk_fr));
    bool full = getenv("CUZK_BENCH_SPMV") != NULL;
    unsigned allt = cuzk_circuit_threads(0);
    printf("  porep-like: %llu constraints, nnz A %.2f B %.2f C %.2f per row, a_aux %.1f%%, "
           "b_aux %.1f%%, %u threads available\n",
           (unsigned long long)nc, (double)c.m[0].nnz / nc, (double)c.m[1].nnz / nc,
           (double)c.m[2].nnz / nc, 100.0 * c.a_aux_count / na, 100.0 * c.b_aux_count / na,
           allt);
    const unsigned flag_set[2] = {CUZK_SPMV_DEFAULT, 0};
    for (int s = 0; s < 2; s++) {
        unsigned ths[2] = {1, allt};
        for (int ti = 0; ti < (allt > 1 ? 2 : 1); ti++) {
            if (!full && (s == 1 || ti == 0) && allt > 1) continue;
            double best = 1e30;
            for (int rep = 0; rep < 3; rep++) {
                double t0 = now_s();
                CHECK_EQ_INT(cuzk_circuit_abc_var(&c, out[s][0], out[s][1], out[s][2], w,
                                                  flag_set[s], ths[ti]),
                             CUZK_OK);
                double dt = now_s() - t0;
                if (dt < best) best = dt;
            }
            printf("  spmv %-8s %2u thread(s): %.2f ms, %.1f M nnz/s\n",
                   flag_set[s] ? "fast" : "generic", ths[ti], best * 1e3,
                   (double)nnz / best / 1e6);
        }
    }
    if (!full) /* the comparison needs the generic result */
        CHECK_EQ_INT(cuzk_circuit_abc_var(&c, out[1][0], out[1][1], out[1][2], w, 0, 0),
                     CUZK_OK);
    for (int j = 0; j < 3; j++) CHECK_MEM(out[0][j], out[1][j], dom * sizeof(cuzk_fr));
    for (int s = 0; s < 2; s++)
        for (int j = 0; j < 3; j++) free(out[s][j]);
    for (int j = 0; j < 3; j++) {
        free(rp[j]);
        free(col[j]);
        free(val[j]);
    }
    free(w);
    free(values);
    cuzk_circuit_close(&c);
}

/* ---- write failures --------------------------------------------------------------------- */

/* Both writers (one helper, src/util/atomic_write.c) fail naming the step and
 * the file, and leave no temporary file: a missing directory (cannot create)
 * and a directory in the target's place (refused, left as it is). */
static void test_write_errors(void) {
    cuzk_error err;
    model m;
    xcube_model(&m);
    cuzk_circuit c;
    CHECK_EQ_INT(model_build(&c, &m, "x", &err), CUZK_OK);
    uint64_t wv[5][4];
    xcube_witness(wv);
    cuzk_witness w;
    CHECK_EQ_INT(cuzk_witness_from_values(&w, &wv[0][0], 2, 3, "w", &err), CUZK_OK);
    char path[300];
    tmp_path(path, sizeof(path), "none/x.circuit");
    EXPECT_FAIL(cuzk_circuit_write(&c, path, &err), CUZK_ERR_IO, err, "none/x.circuit: ",
                "cannot create");
    tmp_path(path, sizeof(path), "none/x.wit");
    EXPECT_FAIL(cuzk_witness_write(&w, path, &err), CUZK_ERR_IO, err, "none/x.wit: ",
                "cannot create");
    tmp_path(path, sizeof(path), "dir.out");
    CHECK(mkdir(path, 0755) == 0);
    EXPECT_FAIL(cuzk_circuit_write(&c, path, &err), CUZK_ERR_INVALID_ARG, err, path,
                "is a directory");
    EXPECT_FAIL(cuzk_witness_write(&w, path, &err), CUZK_ERR_INVALID_ARG, err, path,
                "is a directory");
    CHECK(rmdir(path) == 0); /* still an empty directory: nothing was left in it */
    cuzk_witness_close(&w);
    cuzk_circuit_close(&c);
    model_free(&m);
}

/* ---- fuzz seeds ------------------------------------------------------------------------- */

static void write_corpus(const char *dir) {
    cuzk_error err;
    model m;
    xcube_model(&m);
    cuzk_circuit c;
    uint8_t *b;
    size_t n;
    if (model_build(&c, &m, "x", &err) == CUZK_OK &&
        cuzk_circuit_to_bytes(&c, &b, &n, &err) == CUZK_OK) {
        cuzk_test_write_seed(dir, "circuit", "xcube", b, n);
        free(b);
    }
    cuzk_circuit_close(&c);
    model_free(&m);
    model_random(&m, 12, 3, 14, 4);
    if (model_build(&c, &m, "x", &err) == CUZK_OK &&
        cuzk_circuit_to_bytes(&c, &b, &n, &err) == CUZK_OK) {
        cuzk_test_write_seed(dir, "circuit", "random", b, n);
        free(b);
    }
    cuzk_circuit_close(&c);
    model_free(&m);
    uint64_t wv[5][4];
    xcube_witness(wv);
    cuzk_witness w;
    if (cuzk_witness_from_values(&w, &wv[0][0], 2, 3, "w", &err) == CUZK_OK &&
        cuzk_witness_to_bytes(&w, &b, &n, &err) == CUZK_OK) {
        cuzk_test_write_seed(dir, "witness", "xcube", b, n);
        free(b);
    }
    cuzk_witness_close(&w);
    if (cuzk_witness_from_values(&w, &wv[0][0], 1, 0, "w", &err) == CUZK_OK &&
        cuzk_witness_to_bytes(&w, &b, &n, &err) == CUZK_OK) {
        cuzk_test_write_seed(dir, "witness", "one", b, n);
        free(b);
    }
    cuzk_witness_close(&w);
    printf("wrote seed corpora under %s\n", dir);
}

static void cleanup_tmpdir(void) {
    static const char *names[] = {"xcube.circuit", "xcube.wit",  "random.circuit",
                                  "short.circuit", "trunc.wit", "conv.circuit", "conv.wit"};
    char p[300];
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        tmp_path(p, sizeof(p), names[i]);
        unlink(p);
    }
    rmdir(tmpdir);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--interop") == 0) interop_only = true;
    make_tmpdir();
    if (interop_only) { /* after the fixtures are made (ctest: test_circuit_snarkjs) */
        RUN(test_r1cs_snarkjs);
    } else {
        RUN(test_xxh64);
        RUN(test_xcube);
        RUN(test_random_roundtrip);
        RUN(test_spmv_random);
        RUN(test_build_errors);
        RUN(test_circuit_corrupt);
        RUN(test_witness_file);
        RUN(test_write_errors);
        RUN(test_r1cs_tiny);
        RUN(test_spmv_porep_like);
        const char *corpus = getenv("CUZK_CIRCUIT_CORPUS");
        if (corpus && *corpus) write_corpus(corpus);
    }
    cleanup_tmpdir();
    return cuzk_test_finish();
}
