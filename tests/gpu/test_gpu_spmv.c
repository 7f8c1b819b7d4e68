/*
 * The resident circuit on the GPU (src/gpu/spmv.cu) against the CPU
 * (src/circuit/spmv.c), bit for bit.
 *
 * Random circuits (rows of 0..max entries, repeated columns, coefficients
 * +1, -1 and random constants from a small table) and random assignments
 * mixing 0, 1, -1 and random values, at several sizes: a, b, c from the GPU
 * equal cuzk_circuit_abc_var's; the satisfaction check finds the same first
 * failing row as cuzk_circuit_check_abc, and none once c is replaced by a*b;
 * the A and B variable lists match the density bitmaps; Montgomery
 * conversions and the gather match the CPU. Exits 77 without a device
 * unless CUZK_GPU_REQUIRED=1.
 */
#include <stdlib.h>
#include <string.h>

#include "circuit/circuit.h"
#include "ff/fr.h"
#include "gpu/gpu.h"
#include "gpu/backend_gpu.h"
#include "gpu/gpu_circuit.h"
#include "gpu_test.h"
#include "harness.h"

static void fr_rand(cuzk_fr *r) {
    uint64_t l[4];
    do {
        for (int i = 0; i < 4; i++) l[i] = cuzk_test_rand64();
        l[3] &= 0x7fffffffffffffffULL;
    } while (!cuzk__lt_n(l, cuzk__fr_r, 4));
    cuzk_fr_from_limbs(r, l);
}

static void value_rand(cuzk_fr *r) {
    switch (cuzk_test_rand64() % 5) {
    case 0: cuzk_fr_set_zero(r); break;
    case 1:
    case 2: cuzk_fr_set_one(r); break;
    case 3: cuzk_fr_neg(r, &cuzk__fr_one); break;
    default: fr_rand(r); break;
    }
}

/* A random circuit with value indices into a table of n_values entries. */
static int random_circuit(cuzk_circuit *c, uint64_t nc, uint64_t ni, uint64_t na,
                          unsigned max_row) {
    const uint64_t nvals = 8, nv = ni + na;
    cuzk_fr values[8];
    cuzk_fr_set_one(&values[0]);
    cuzk_fr_neg(&values[1], &cuzk__fr_one);
    for (uint64_t i = 2; i < nvals; i++) fr_rand(&values[i]);
    uint64_t *rp[3];
    uint32_t *col[3], *val[3];
    for (int m = 0; m < 3; m++) {
        rp[m] = malloc((nc + 1) * 8);
        col[m] = malloc((nc * max_row + 1) * 4);
        val[m] = malloc((nc * max_row + 1) * 4);
        uint64_t k = 0;
        rp[m][0] = 0;
        for (uint64_t i = 0; i < nc; i++) {
            unsigned n = (unsigned)(cuzk_test_rand64() % (max_row + 1));
            for (unsigned t = 0; t < n; t++, k++) {
                col[m][k] = (uint32_t)(cuzk_test_rand64() % nv);
                uint64_t r = cuzk_test_rand64() % 4;
                val[m][k] = (uint32_t)(r < 3 ? r % 2 : 2 + cuzk_test_rand64() % (nvals - 2));
            }
            rp[m][i + 1] = k;
        }
    }
    cuzk_error err;
    cuzk_status st = cuzk_circuit_build_indexed(
        c, nc, ni, na, values, nvals, (const uint64_t *const *)rp, (const uint32_t *const *)col,
        (const uint32_t *const *)val, "random", &err);
    if (st != CUZK_OK) printf("build: %s\n", err.msg);
    for (int m = 0; m < 3; m++) {
        free(rp[m]);
        free(col[m]);
        free(val[m]);
    }
    return st == CUZK_OK;
}

static int bit(const uint64_t *bm, uint64_t j) { return (int)((bm[j / 64] >> (j % 64)) & 1); }

static void check_size(uint64_t nc, uint64_t ni, uint64_t na, unsigned max_row) {
    cuzk_circuit c;
    CHECK(random_circuit(&c, nc, ni, na, max_row));
    uint64_t nv = ni + na, dom = c.domain_size;
    cuzk_fr *w = malloc(nv * sizeof(cuzk_fr));
    cuzk_fr *ref = malloc(3 * dom * sizeof(cuzk_fr)), *got = malloc(3 * dom * sizeof(cuzk_fr));
    cuzk_fr_set_one(&w[0]);
    for (uint64_t j = 1; j < nv; j++) value_rand(&w[j]);
    CHECK_EQ_INT(cuzk_circuit_abc_var(&c, ref, ref + dom, ref + 2 * dom, w, CUZK_SPMV_DEFAULT, 0),
                 CUZK_OK);

    cuzk__gpu_circuit_src src;
    cuzk__gpu_circuit_src_of(&src, &c);
    cuzk__gpu_circuit *g = NULL;
    CHECK_EQ_INT(cuzk__gpu_circuit_upload(&g, &src, NULL, NULL), CUZK_OK);
    void *dw = NULL, *dabc = NULL;
    CHECK_EQ_INT(cuzk__gpu_alloc(&dw, nv * sizeof(cuzk_fr)), CUZK_OK);
    CHECK_EQ_INT(cuzk__gpu_alloc(&dabc, 3 * dom * sizeof(cuzk_fr)), CUZK_OK);
    CHECK_EQ_INT(cuzk__gpu_upload(dw, w, nv * sizeof(cuzk_fr)), CUZK_OK);
    cuzk_fr *da = dabc, *db = da + dom, *dc = db + dom;
    CHECK_EQ_INT(cuzk__gpu_circuit_abc(g, da, db, dc, dw, NULL), CUZK_OK);
    memset(got, 0xff, 3 * dom * sizeof(cuzk_fr));
    CHECK_EQ_INT(cuzk__gpu_download(got, dabc, 3 * dom * sizeof(cuzk_fr)), CUZK_OK);
    CHECK_MEM(got, ref, 3 * dom * sizeof(cuzk_fr));

    /* The check finds the CPU's first failing row; none once c = a*b. */
    uint64_t bad_cpu = 0, bad_gpu = 0;
    cuzk_error err;
    cuzk_status cst = cuzk_circuit_check_abc(&c, ref, ref + dom, ref + 2 * dom, "w", 1, &bad_cpu, &err);
    CHECK(cst == (bad_cpu == UINT64_MAX ? CUZK_OK : CUZK_ERR_WITNESS_UNSATISFIED));
    CHECK_EQ_INT(cuzk__gpu_circuit_check(g, da, db, dc, &bad_gpu, NULL), CUZK_OK);
    CHECK(bad_gpu == bad_cpu);
    for (uint64_t i = 0; i < nc; i++) cuzk_fr_mul(&ref[2 * dom + i], &ref[i], &ref[dom + i]);
    CHECK_EQ_INT(cuzk__gpu_upload(dc, ref + 2 * dom, dom * sizeof(cuzk_fr)), CUZK_OK);
    CHECK_EQ_INT(cuzk__gpu_circuit_check(g, da, db, dc, &bad_gpu, NULL), CUZK_OK);
    CHECK(bad_gpu == UINT64_MAX);
    if (nc > 3) { /* break one row in the middle */
        uint64_t r = nc / 2 + cuzk_test_rand64() % (nc / 2);
        cuzk_fr_add(&ref[2 * dom + r], &ref[2 * dom + r], &cuzk__fr_one);
        CHECK_EQ_INT(cuzk__gpu_upload(dc, ref + 2 * dom, dom * sizeof(cuzk_fr)), CUZK_OK);
        CHECK_EQ_INT(cuzk__gpu_circuit_check(g, da, db, dc, &bad_gpu, NULL), CUZK_OK);
        CHECK(bad_gpu == r);
    }

    /* Variable lists of A and B against the bitmaps. */
    const cuzk__gpu_circuit_info *info = cuzk__gpu_circuit_info_of(g);
    CHECK(info->a_count == ni + c.a_aux_count);
    CHECK(info->b_count == c.b_inp_count + c.b_aux_count);
    uint32_t *av = malloc((nv + 1) * 4), *bv = malloc((nv + 1) * 4);
    CHECK_EQ_INT(cuzk__gpu_download(av, info->a_vars, info->a_count * 4), CUZK_OK);
    CHECK_EQ_INT(cuzk__gpu_download(bv, info->b_vars, info->b_count * 4), CUZK_OK);
    uint64_t ka = 0, kb = 0;
    for (uint64_t j = 0; j < nv; j++) {
        int in_a = j < ni || bit(c.a_aux, j - ni);
        int in_b = j < ni ? bit(c.b_inp, j) : bit(c.b_aux, j - ni);
        if (in_a) CHECK(ka < info->a_count && av[ka++] == j);
        if (in_b) CHECK(kb < info->b_count && bv[kb++] == j);
    }
    CHECK(ka == info->a_count && kb == info->b_count);

    /* Plain <-> Montgomery on the device, and the gather of the A list. */
    uint64_t(*plain)[4] = malloc(nv * 32), (*back)[4] = malloc(nv * 32);
    for (uint64_t j = 0; j < nv; j++) cuzk_fr_to_limbs(plain[j], &w[j]);
    CHECK_EQ_INT(cuzk__gpu_upload(dabc, plain, nv * 32), CUZK_OK);
    CHECK_EQ_INT(cuzk__gpu_fr_to_mont(dabc, dabc, nv, NULL), CUZK_OK);
    CHECK_EQ_INT(cuzk__gpu_download(got, dabc, nv * 32), CUZK_OK);
    CHECK_MEM(got, w, nv * 32);
    CHECK_EQ_INT(cuzk__gpu_fr_from_mont(dw, dabc, nv, NULL), CUZK_OK);
    CHECK_EQ_INT(cuzk__gpu_download(back, dw, nv * 32), CUZK_OK);
    CHECK_MEM(back, plain, nv * 32);
    CHECK_EQ_INT(cuzk__gpu_fr_gather(dabc, dw, info->a_vars, info->a_count, NULL), CUZK_OK);
    CHECK_EQ_INT(cuzk__gpu_download(back, dabc, info->a_count * 32), CUZK_OK);
    int gather_ok = 1;
    for (uint64_t k = 0; k < info->a_count; k++)
        gather_ok &= memcmp(back[k], plain[av[k]], 32) == 0;
    CHECK(gather_ok);

    free(plain);
    free(back);
    free(av);
    free(bv);
    cuzk__gpu_free(dw);
    cuzk__gpu_free(dabc);
    cuzk__gpu_circuit_free(g);
    free(w);
    free(ref);
    free(got);
    cuzk_circuit_close(&c);
}

static void test_small(void) {
    check_size(1, 1, 0, 3);
    check_size(5, 2, 3, 4);
    check_size(100, 3, 120, 6);
}

static void test_medium(void) {
    check_size(1000, 10, 1500, 8);
    check_size((1 << 14) - 20, 20, 1 << 14, 5);
    check_size((1 << 18) - 300, 300, 1 << 18, 4);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    int need = cuzk_gpu_test_need_device(argc, argv);
    if (need != 0) return need;
    RUN(test_small);
    RUN(test_medium);
    return cuzk_test_finish();
}
