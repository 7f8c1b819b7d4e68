/*
 * zkey.h — snarkjs Groth16 proving keys (.zkey; doc/formats.md, zkey),
 * BLS12-381 only.
 *
 * The file is memory-mapped. Point sections are exposed as arrays of
 * cuzk_g1_aff / cuzk_g2_aff: the LEM encoding (6 little-endian 64-bit words
 * of x*2^384 mod p per coordinate, c0 then c1, infinity all zero) is exactly
 * their in-memory layout, so a section whose payload is 8-byte aligned is
 * used in place and any other is copied once into an aligned buffer. In
 * files written by snarkjs every section header is 12 bytes, so consecutive
 * point sections alternate between offsets 0 and 4 mod 8: expect about half
 * of them to be copies. `raw` always points at the bytes in the mapping (for
 * a device upload that needs no host copy).
 *
 * Checks done by cuzk_zkey_open, in order: container (binfile.h); protocol
 * 1 (Groth16); header: n8q = 48 and q = BLS12-381 p, n8r = 32 and r = the
 * BLS12-381 group order (a BN254 key fails with "curve not supported: BN254
 * (q = 0x...)"), 1 <= nPublic + 1 <= nVars, domainSize a power of two in
 * [2, 2^31] and > nPublic; every section size against its count (64-bit
 * math); coefficient records: matrix 0 or 1, constraint < domainSize, signal
 * < nVars, value < r; every coordinate of every point canonical (< p).
 * Optional (flags): each point on its curve; each point in the prime-order
 * subgroup (costly on big keys: CUZK_ZKEY_PARALLEL spreads it over OpenMP
 * threads). The first bad point is reported with its section and index
 * ("section 9 (H) point 17"), whichever thread found it.
 * The six header points always get the full curve and subgroup check (cheap).
 */
#ifndef CUZK_ZKEY_H
#define CUZK_ZKEY_H

#include <stdbool.h>
#include <stdint.h>

#include "io/binfile.h"
#include "util/error.h"
#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "poly/ntt.h"

/* Section ids (doc/formats.md, zkey sections). */
enum {
    CUZK_ZKEY_SEC_PROTOCOL = 1,
    CUZK_ZKEY_SEC_HEADER = 2,
    CUZK_ZKEY_SEC_IC = 3,
    CUZK_ZKEY_SEC_COEFS = 4,
    CUZK_ZKEY_SEC_A = 5,
    CUZK_ZKEY_SEC_B1 = 6,
    CUZK_ZKEY_SEC_B2 = 7,
    CUZK_ZKEY_SEC_C = 8,
    CUZK_ZKEY_SEC_H = 9,
    CUZK_ZKEY_SEC_MPC = 10 /* contributions; not read */
};

/* Open flags. */
#define CUZK_ZKEY_CHECK_CURVE 1u    /* every point on its curve */
#define CUZK_ZKEY_CHECK_SUBGROUP 2u /* every point in the r-torsion (implies CURVE) */
#define CUZK_ZKEY_PARALLEL 4u       /* run the point checks on OpenMP threads */

/* The key's domain was built on the root cuzk_ntt_root (ntt.h; doc/formats.md,
 * zkey domain and root of unity). */

/* What the H bases are (doc/formats.md, zkey H points; Two H conventions). */
typedef enum {
    /* n Lagrange points on the odd coset of the 2n domain; scalars are
     * A*B - C at those points, no division by Z. */
    CUZK_H_ODD_COSET_LAGRANGE = 1,
    /* n - 1 monomial points tau^i Z(tau)/delta (bellman .params). */
    CUZK_H_MONOMIAL = 2
} cuzk_h_kind;

/* A point section. p[i], i < n, is point i; p is NULL when n is 0. */
typedef struct {
    const cuzk_g1_aff *p;
    uint64_t n;
    const uint8_t *raw; /* the bytes in the mapping, 96 per point */
    uint64_t offset;    /* file offset of the payload */
    void *owned;        /* aligned copy when the payload was misaligned, else NULL */
} cuzk_zkey_g1_vec;

typedef struct {
    const cuzk_g2_aff *p;
    uint64_t n;
    const uint8_t *raw; /* 192 bytes per point */
    uint64_t offset;
    void *owned;
} cuzk_zkey_g2_vec;

/* One record of the coefficient section (decoded; see cuzk_zkey_coef_get). */
typedef struct {
    uint32_t matrix;     /* 0 = A, 1 = B (there is no C matrix) */
    uint32_t constraint; /* row, < domain_size; rows >= m are the public rows */
    uint32_t signal;     /* witness index, < n_vars */
    /* The stored value v*R^2 mod r (R = 2^256), plain little-endian limbs,
     * NOT the value v and NOT its Montgomery form v*R: one Montgomery product
     * with a plain witness value w gives v*w*R, the Montgomery form of v*w
     * (copy value into a cuzk_fr c, then cuzk_fr_mul(&out, &c, &w_plain)).
     * Always < r. */
    uint64_t value[CUZK_FR_LIMBS];
} cuzk_zkey_coef;

#define CUZK_ZKEY_COEF_BYTES 44u /* u32 matrix, u32 constraint, u32 signal, 32-byte value */

typedef struct {
    cuzk_binfile file; /* the mapping; file.path for messages */
    uint32_t protocol; /* 1 (Groth16) */

    /* Section 2. */
    uint32_t n8q, n8r;                 /* 48, 32 */
    uint64_t q[CUZK_FP_LIMBS];         /* base field prime, plain limbs */
    uint64_t r[CUZK_FR_LIMBS];         /* group order, plain limbs */
    uint32_t n_vars;                   /* witness length, signal 0 = 1 */
    uint32_t n_public;                 /* outputs + public inputs */
    uint32_t domain_size;              /* n, a power of two */
    uint32_t log_domain_size;          /* k with n = 2^k */
    cuzk_g1_aff alpha1, beta1, delta1; /* copies (Montgomery coordinates) */
    cuzk_g2_aff beta2, gamma2, delta2;

    /* Conventions the prover must follow with this key (never guessed). */
    cuzk_ntt_root root;   /* CUZK_NTT_ROOT5 for every zkey */
    cuzk_h_kind h_kind;   /* CUZK_H_ODD_COSET_LAGRANGE for every zkey */

    /* Section 4: n_coefs records of CUZK_ZKEY_COEF_BYTES at coef_bytes (in
     * the mapping, unaligned); read them with cuzk_zkey_coef_get. Entries for
     * one (matrix, constraint) may repeat: accumulate, do not assume order. */
    uint32_t n_coefs;
    const uint8_t *coef_bytes;
    /* 1 + the largest constraint index in section 4 (0 if none). In a
     * snarkjs key that is m + nPublic + 1 (m circuit constraints, then one
     * public row per signal 0..nPublic); always <= domain_size. */
    uint32_t n_rows;

    cuzk_zkey_g1_vec ic; /* section 3: n_public + 1 points */
    cuzk_zkey_g1_vec a;  /* section 5: n_vars */
    cuzk_zkey_g1_vec b1; /* section 6: n_vars */
    cuzk_zkey_g2_vec b2; /* section 7: n_vars */
    cuzk_zkey_g1_vec c;  /* section 8: n_vars - n_public - 1 (signals n_public+1..) */
    cuzk_zkey_g1_vec h;  /* section 9: domain_size */
} cuzk_zkey;

/* Opens and checks path (see the top of this file); flags as above.
 * On failure *zk is left closed. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_zkey_open(cuzk_zkey *zk, const char *path,
                                                   unsigned flags, cuzk_error *err);
/* The same over a borrowed buffer (alive until close); name is for messages. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_zkey_open_mem(cuzk_zkey *zk, const void *data,
                                                       size_t size, const char *name,
                                                       unsigned flags, cuzk_error *err);
/* Frees copies and unmaps. Safe on a zeroed or closed object. */
void cuzk_zkey_close(cuzk_zkey *zk);

/* Record i < n_coefs of section 4 (already validated by open). */
static inline void cuzk_zkey_coef_get(const cuzk_zkey *zk, uint32_t i, cuzk_zkey_coef *out) {
    const uint8_t *p = zk->coef_bytes + (uint64_t)i * CUZK_ZKEY_COEF_BYTES;
    out->matrix = cuzk__load_le32(p);
    out->constraint = cuzk__load_le32(p + 4);
    out->signal = cuzk__load_le32(p + 8);
    cuzk__load_le64_n(out->value, p + 12, CUZK_FR_LIMBS);
}

/*
 * Checks the points of every section again with the given level (flags
 * CUZK_ZKEY_CHECK_CURVE / _SUBGROUP / _PARALLEL), e.g. to verify a key
 * opened without checks once and cache the verdict. Reports the first bad
 * point as cuzk_zkey_open would.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_zkey_check_points(const cuzk_zkey *zk, unsigned flags,
                                                           cuzk_error *err);

#endif /* CUZK_ZKEY_H */
