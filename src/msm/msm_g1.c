/* msm_g1.c — MSM and batch-add in G1 (msm.h): msm_impl.h stamped over Fp.
 * VARIABLE TIME. */
#include "g1.h"
#include "msm.h"

#define CUZK__EC(name) cuzk_g1_##name
#define CUZK__FE cuzk_fp
#define CUZK__FE_OP(name) cuzk_fp_##name
#include "msm_impl.h"
