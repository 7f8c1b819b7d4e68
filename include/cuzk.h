/*
 * cuzk.h — the one public header of cuzk, a Groth16 proving engine for
 * BLS12-381 (CPU and CUDA backends).
 *
 * Conventions (see doc/api.md when it grows):
 *  - Every public identifier starts with cuzk_ (macros CUZK_).
 *  - Functions that can fail on caller input return a cuzk_status; CUZK_OK is 0.
 *  - Argument order: context, outputs, in/out, inputs; a count follows its
 *    array; flags come last.
 *  - Serialized forms are fixed-size byte blobs with parse and serialize calls.
 */
#ifndef CUZK_H
#define CUZK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CUZK_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define CUZK_WARN_UNUSED_RESULT
#endif

#define CUZK_VERSION_MAJOR 0
#define CUZK_VERSION_MINOR 1
#define CUZK_VERSION_PATCH 0

/*
 * Status codes. One table generates the enum, cuzk_strerror and
 * cuzk_status_name, so the three never disagree.
 */
#define CUZK_STATUS_MAP(XX)                                                    \
    XX(OK, "success")                                                          \
    XX(ERR_INVALID_ARG, "invalid argument")                                    \
    XX(ERR_NOMEM, "out of memory")                                             \
    XX(ERR_IO, "input/output error")                                           \
    XX(ERR_BAD_LENGTH, "wrong encoding length")                                \
    XX(ERR_BAD_ENCODING, "malformed encoding (flag bits or layout)")           \
    XX(ERR_NOT_CANONICAL, "field element not in canonical range")              \
    XX(ERR_NOT_ON_CURVE, "point not on the curve")                             \
    XX(ERR_NOT_IN_SUBGROUP, "point not in the prime-order subgroup")           \
    XX(ERR_POINT_AT_INFINITY, "point at infinity where a finite one is required") \
    XX(ERR_NOT_A_SQUARE, "no square root exists")                              \
    XX(ERR_UNSUPPORTED, "unsupported feature or format")                       \
    XX(ERR_PROOF_INVALID, "proof does not verify")                             \
    XX(ERR_WITNESS_UNSATISFIED, "witness does not satisfy the circuit")        \
    XX(ERR_GPU, "GPU error")

typedef enum {
#define CUZK__STATUS_ENUM(name, msg) CUZK_##name,
    CUZK_STATUS_MAP(CUZK__STATUS_ENUM)
#undef CUZK__STATUS_ENUM
    CUZK_STATUS_COUNT
} cuzk_status;

/* A human-readable sentence for a status ("unknown status" if out of range). */
const char *cuzk_strerror(cuzk_status st);
/* The symbolic name without prefix, e.g. "ERR_NOT_ON_CURVE". */
const char *cuzk_status_name(cuzk_status st);

/* "0.1.0" */
const char *cuzk_version(void);

/*
 * CPU features used by the arithmetic. The x86-64 BMI2/ADX path is chosen at
 * run time (CPUID) unless disabled with cuzk_cpu_force_portable(1) or the
 * environment variable CUZK_NO_ASM=1.
 */
#define CUZK_CPU_ADX 1u  /* mulx/adcx/adox Montgomery kernels in use */
#define CUZK_CPU_IFMA 2u /* AVX-512 IFMA batch kernels in use (the MSM's G1 buckets) */
unsigned cuzk_cpu_features(void);
/* Those kernels in words, for reports: "x86-64 BMI2/ADX" or "portable C",
 * with " + AVX-512 IFMA" when the batch kernels run. */
const char *cuzk_cpu_kernels(void);
/* Switch every later field operation to the portable C kernels (1) or back to
 * the best available ones (0). Not thread-safe against concurrent arithmetic;
 * meant for tests and benchmarks. */
void cuzk_cpu_force_portable(int on);

/*
 * Point encodings (BLS12-381). zcash/bellman form: big-endian, flag bits in
 * the top three bits of byte 0, Fp2 as c1 then c0. snarkjs form: little-endian
 * Montgomery coordinates, c0 first, infinity as all zero bytes.
 */
#define CUZK_G1_COMPRESSED_BYTES 48
#define CUZK_G1_UNCOMPRESSED_BYTES 96
#define CUZK_G2_COMPRESSED_BYTES 96
#define CUZK_G2_UNCOMPRESSED_BYTES 192

/*
 * Check a zcash-encoded G1/G2 point (compressed or uncompressed, chosen by
 * len): flags, canonical coordinates, curve equation and subgroup. Returns
 * CUZK_OK for a valid point (the point at infinity included).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g1_validate(const uint8_t *in, size_t len);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g2_validate(const uint8_t *in, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_H */
