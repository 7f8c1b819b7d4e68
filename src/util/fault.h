/*
 * fault.h — a fault plan for tests of recovery: the nth launch of one named
 * kernel stage fails as a device error would. An engine makes one from its
 * options (cuzk_engine_options.fault_stage, fault_nth) and puts it in its
 * context's slot while it lives; every lane's backend holds a pointer to
 * that slot and asks cuzk__fault_hit before each named stage. The slot is
 * empty in production.
 */
#ifndef CUZK_UTIL_FAULT_H
#define CUZK_UTIL_FAULT_H

#include <stdatomic.h>
#include <string.h>

typedef struct cuzk__fault {
    char stage[16];       /* "spmv", "ntt", "msm_h", "batch_add", "tail_msm", "b_g2_msm" */
    unsigned nth;         /* 1: the first launch fails; 0: never */
    atomic_uint launches; /* launches of that stage so far */
} cuzk__fault;

typedef struct cuzk__fault_slot {
    _Atomic(cuzk__fault *) plan; /* NULL: no fault */
} cuzk__fault_slot;

/* The launch number (nonzero) when this launch of stage is the one that
 * fails, else 0; counts the launch either way. */
static inline unsigned cuzk__fault_hit(cuzk__fault_slot *slot, const char *stage) {
    cuzk__fault *f = slot != NULL ? atomic_load(&slot->plan) : NULL;
    if (f == NULL || f->nth == 0 || strcmp(f->stage, stage) != 0) return 0;
    return atomic_fetch_add(&f->launches, 1) + 1 == f->nth ? f->nth : 0;
}

#endif /* CUZK_UTIL_FAULT_H */
