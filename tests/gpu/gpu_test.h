/*
 * gpu_test.h — the start of every GPU test: find a CUDA device or say why
 * there is none. Without one a test is skipped (exit 77) unless
 * CUZK_GPU_REQUIRED is set (not "0"), which makes it fail instead: on the
 * device machine a missing GPU is an error, not a skip.
 *
 * The device: `--device N` on the test's command line, else the
 * environment's CUZK_TEST_DEVICE, else 0. It becomes the main thread's
 * current device, and the tests pass cuzk_gpu_test_dev wherever a call
 * names a device (a backend, the setup accelerator, a context's devices),
 * so that every GPU of a machine can be tested in turn. A device that is
 * asked for and not present fails the test rather than skipping it.
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

/* The ordinal under test (set by cuzk_gpu_test_need_device). */
static int cuzk_gpu_test_dev;

static inline int cuzk_gpu_test_required(void) {
    const char *req = getenv("CUZK_GPU_REQUIRED");
    return req != NULL && *req != '\0' && strcmp(req, "0") != 0;
}

/* The device asked for (--device N, CUZK_TEST_DEVICE) into *dev: 1, or 0
 * after printing why the value is no ordinal. */
static inline int cuzk_gpu_test_pick(int argc, char **argv, int *dev) {
    const char *v = getenv("CUZK_TEST_DEVICE"), *from = "CUZK_TEST_DEVICE";
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--device") == 0) v = argv[i + 1], from = "--device";
    *dev = 0;
    if (v == NULL || *v == '\0') return 1;
    char *end;
    const long d = *v >= '0' && *v <= '9' ? strtol(v, &end, 10) : -1;
    if (d < 0 || d > 4095 || *end != '\0') {
        printf("%s '%s': must be a device ordinal like 1\n", from, v);
        return 0;
    }
    *dev = (int)d;
    return 1;
}

/* 0 when the device under test (cuzk_gpu_test_pick) is usable: it is made
 * the current device and its name and SM count printed. Else the exit code
 * main should return. */
static inline int cuzk_gpu_test_need_device(int argc, char **argv) {
    if (!cuzk_gpu_test_pick(argc, argv, &cuzk_gpu_test_dev)) return 1;
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
    const int dev = cuzk_gpu_test_dev;
    if (dev >= count) {
        printf("device %d asked for, %d present: failing\n", dev, count);
        return 1;
    }
    if (cuzk__gpu_set_device(dev) != CUZK_OK) {
        printf("device %d: cannot make it current (%s)\n", dev, cuzk__gpu_last_error());
        return 1;
    }
    char name[128];
    int sms = 0;
    if (cuzk__gpu_device_name(dev, name, sizeof name, &sms) == CUZK_OK)
        printf("device %d of %d: %s, %d SMs\n", dev, count, name, sms);
    return 0;
}

#endif /* CUZK_TEST_GPU_TEST_H */
