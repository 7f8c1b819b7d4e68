/*
 * gpu_test.h — the start of every GPU test: find a CUDA device or say why
 * there is none. Without one a test is skipped (exit 77) unless
 * CUZK_GPU_REQUIRED is set (not "0"), which makes it fail instead: on the
 * device machine a missing GPU is an error, not a skip.
 */
#ifndef CUZK_TEST_GPU_TEST_H
#define CUZK_TEST_GPU_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "harness.h"

/* PTX multiply-adds (a product's low and high halves counted apart) per
 * device multiplication (ff.cuh mul_cios), for the benches' IMAD rates. */
#define CUZK_TEST_FP_MUL_IMAD 588 /* 4N^2 + N */
#define CUZK_TEST_FR_MUL_IMAD 224 /* 128 products + 8 Fr reduction steps of 12 */

static inline int cuzk_gpu_test_required(void) {
    const char *req = getenv("CUZK_GPU_REQUIRED");
    return req != NULL && *req != '\0' && strcmp(req, "0") != 0;
}

/* 0 when device 0 is usable (its name and SM count printed), else the exit
 * code main should return. */
static inline int cuzk_gpu_test_need_device(void) {
    int count = 0;
    cuzk_status st = cuzk__gpu_device_count(&count);
    if (st != CUZK_OK || count == 0) {
        printf("no CUDA device (%s: %s)\n", cuzk_status_name(st), cuzk__gpu_last_error());
        if (cuzk_gpu_test_required()) {
            printf("CUZK_GPU_REQUIRED is set: failing\n");
            return 1;
        }
        return cuzk_test_skip("no CUDA device");
    }
    char name[128];
    int sms = 0;
    if (cuzk__gpu_device_name(0, name, sizeof name, &sms) == CUZK_OK)
        printf("device 0 of %d: %s, %d SMs\n", count, name, sms);
    return 0;
}

#endif /* CUZK_TEST_GPU_TEST_H */
