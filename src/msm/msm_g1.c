/* msm_g1.c — MSM and batch-add in G1 (msm.h): msm_impl.h stamped over Fp, with
 * the GLV route (beta: phi(x, y) = (beta x, y) is -x^2 on G1, src/ec/g1.c)
 * and the buckets' affine batches on AVX-512 IFMA where the CPU has it
 * (src/ec/g1_ifma.h). VARIABLE TIME. */
#include "ec/g1.h"
#include "ec/g1_ifma.h"
#include "msm/msm.h"

#define CUZK__EC(name) cuzk_g1_##name
#define CUZK__FE cuzk_fp
#define CUZK__FE_OP(name) cuzk_fp_##name
#define CUZK__MSM_GLV_BETA CUZK__G1_BETA
#define CUZK__MSM_AFF_BATCH_IFMA cuzk__g1_add_batch_ifma
#include "msm/msm_impl.h"
