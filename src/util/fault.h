/*
 * fault.h — a fault plan for tests of recovery: the nth launch of one named
 * kernel stage fails as a device error would, or as a device that ran out
 * of memory (nomem). A context holds one slot; an
 * engine over it arms the slot from its options (fault_stage, fault_nth)
 * and disarms it when destroyed. Every lane's backend points at its
 * context's slot and asks cuzk__fault_hit before each named stage. The slot
 * holds the plan by value, so nothing it points to can go away; it is
 * disarmed in production.
 */
#ifndef CUZK_UTIL_FAULT_H
#define CUZK_UTIL_FAULT_H

#include <stdatomic.h>
#include <string.h>

#define CUZK__FAULT_STAGE_MAX 16

typedef struct cuzk__fault_slot {
    /* "spmv", "ntt", "msm_h", "batch_add", "tail_msm", "b_g2_msm"; written
     * only while nth is 0 */
    char stage[CUZK__FAULT_STAGE_MAX];
    int nomem;            /* 1: the launch fails for want of device memory (written
                           * only while nth is 0) */
    atomic_uint nth;      /* 1: the first launch fails; 0: disarmed */
    atomic_uint launches; /* launches of that stage since it was armed */
} cuzk__fault_slot;

/* The launch number (nonzero) when this launch of stage is the one that
 * fails, else 0; counts the launch either way. */
static inline unsigned cuzk__fault_hit(cuzk__fault_slot *slot, const char *stage) {
    const unsigned nth = slot != NULL ? atomic_load(&slot->nth) : 0;
    if (nth == 0 || strcmp(slot->stage, stage) != 0) return 0;
    return atomic_fetch_add(&slot->launches, 1) + 1 == nth ? nth : 0;
}

#endif /* CUZK_UTIL_FAULT_H */
