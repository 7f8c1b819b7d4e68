/*
 * gpu_ff_model.cpp — the device field arithmetic (src/gpu/ff.cuh) compiled
 * for the host by a C++ compiler (CUZK_GPU_HOST_MODEL: the PTX carry chains
 * run on a carry-flag variable), behind C entry points for
 * test_gpu_ff_model.c. Elements cross as the host's 64-bit limbs, which are
 * the device layout byte for byte (ff.cuh).
 */
#define CUZK_GPU_HOST_MODEL 1
#include <stdint.h>
#include <string.h>

#include "gpu/ff.cuh"

using namespace cuzk_gpu;

template <class E>
static E from(const uint64_t *w) {
    E e;
    memcpy(&e, w, sizeof e);
    return e;
}

template <class E>
static void to(uint64_t *w, const E &e) {
    memcpy(w, &e, sizeof e);
}

extern "C" {

void cuzk_model_fr_mul(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
    fr_t x = from<fr_t>(a), y = from<fr_t>(b), z;
    mul(z, x, y);
    to(r, z);
}

void cuzk_model_fr_sqr(uint64_t r[4], const uint64_t a[4]) {
    fr_t x = from<fr_t>(a), z;
    sqr(z, x);
    to(r, z);
}

void cuzk_model_fp_mul(uint64_t r[6], const uint64_t a[6], const uint64_t b[6]) {
    fp_t x = from<fp_t>(a), y = from<fp_t>(b), z;
    mul(z, x, y);
    to(r, z);
}

void cuzk_model_fp_sqr(uint64_t r[6], const uint64_t a[6]) {
    fp_t x = from<fp_t>(a), z;
    sqr(z, x);
    to(r, z);
}

/* two products through mul_pair / sqr_pair: r0 = a0 b0, r1 = a1 b1 */
void cuzk_model_fp_mul_pair(uint64_t r[12], const uint64_t a[12], const uint64_t b[12]) {
    fp_t a0 = from<fp_t>(a), a1 = from<fp_t>(a + 6), b0 = from<fp_t>(b), b1 = from<fp_t>(b + 6);
    fp_t r0, r1;
    mul_pair(r0, a0, b0, r1, a1, b1);
    to(r, r0);
    to(r + 6, r1);
}

void cuzk_model_fp_sqr_pair(uint64_t r[12], const uint64_t a[12]) {
    fp_t a0 = from<fp_t>(a), a1 = from<fp_t>(a + 6), r0, r1;
    sqr_pair(r0, a0, r1, a1);
    to(r, r0);
    to(r + 6, r1);
}

void cuzk_model_fr_mul_pair(uint64_t r[8], const uint64_t a[8], const uint64_t b[8]) {
    fr_t a0 = from<fr_t>(a), a1 = from<fr_t>(a + 4), b0 = from<fr_t>(b), b1 = from<fr_t>(b + 4);
    fr_t r0, r1;
    mul_pair(r0, a0, b0, r1, a1, b1);
    to(r, r0);
    to(r + 4, r1);
}

void cuzk_model_fp2_mul(uint64_t r[12], const uint64_t a[12], const uint64_t b[12]) {
    fp2_t x = from<fp2_t>(a), y = from<fp2_t>(b), z;
    mul(z, x, y);
    to(r, z);
}

void cuzk_model_fp2_sqr(uint64_t r[12], const uint64_t a[12]) {
    fp2_t x = from<fp2_t>(a), z;
    sqr(z, x);
    to(r, z);
}

} /* extern "C" */
