/* msm_g2.c — MSM and batch-add in G2 (msm.h): msm_impl.h stamped over Fp2.
 * VARIABLE TIME. */
#include "ec/g2.h"
#include "msm/msm.h"

#define CUZK__EC(name) cuzk_g2_##name
#define CUZK__FE cuzk_fp2
#define CUZK__FE_OP(name) cuzk_fp2_##name
#include "msm/msm_impl.h"
