/*
 * setup_gpu.h — the development setup's fixed-base multiplications on a
 * CUDA device: fills a cuzk_setup_accel (src/groth16/setup.h) with callbacks
 * over src/gpu/fixed_base.cu, for `cuzk setup --backend gpu` and the tests.
 * Part of libcuzk_gpu (built only with CUDA); the core library never sees it.
 *
 * The accelerator asks the setup for c = 16 tables (15 mixed additions per
 * Fr scalar instead of 21 at the CPU's c = 12) and for h scalars 2^24 at a
 * time, uploads both tables
 * in load and frees them in unload. One accelerator serves one setup at a
 * time; it may be reused for the next.
 */
#ifndef CUZK_SETUP_GPU_H
#define CUZK_SETUP_GPU_H

#include "gpu/gpu_fixed_base.h"
#include "groth16/setup.h"
#include "util/error.h"

/* The window the GPU asks for and the h scalars per call. */
#define CUZK__GPU_SETUP_WINDOW_BITS 16u
#define CUZK__GPU_SETUP_H_CHUNK ((size_t)1 << 24)

/*
 * Fills *a for device `device`; host_threads copy between the setup's
 * arrays and pinned buffers (0 = all cores). CUZK_ERR_GPU when there is no
 * such device (the message says why), CUZK_ERR_NOMEM. *a is zeroed on
 * failure (safe to close).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_setup_accel_open(cuzk_setup_accel *a, int device,
                                                               unsigned host_threads,
                                                               cuzk_error *err);

/* The configuration of the fixed-base handles that later loads make (NULL:
 * the defaults; tests: small chunks, few device threads). */
void cuzk__gpu_setup_accel_configure(cuzk_setup_accel *a, const cuzk__gpu_fixed_base_config *cfg);

/* Frees what open and load made and zeroes *a (a zeroed *a is fine). */
void cuzk__gpu_setup_accel_close(cuzk_setup_accel *a);

#endif /* CUZK_SETUP_GPU_H */
