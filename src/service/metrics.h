/*
 * metrics.h — the engine's counts in the Prometheus text exposition format
 * (version 0.0.4), what the daemon serves at /metrics.
 */
#ifndef CUZK_SERVICE_METRICS_H
#define CUZK_SERVICE_METRICS_H

#include <stddef.h>

#include "cuzk.h"

/*
 * Renders e's counters (proofs, self-checks, failures, faults, retries,
 * lane resets), gauges (queued and running partitions, workers, host bytes
 * held and budget, each GPU's busy fraction over the timeline's last
 * window_ms) and one histogram per stage (cuzk_stage_seconds) into a
 * NUL-terminated buffer (*out, freed with free; *len without the NUL).
 * CUZK_ERR_NOMEM when it cannot.
 */
cuzk_status cuzk__metrics_render(cuzk_engine *e, double window_ms, char **out, size_t *len,
                                 cuzk_error *err);

#endif /* CUZK_SERVICE_METRICS_H */
