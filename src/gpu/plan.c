/*
 * plan.c — the GPU memory planner (plan.h): the first of resident, partly
 * resident and streaming that fits the memory a key may use on a device,
 * the chunk size and the vectors it streams, and a sentence that says why.
 * Pure host code, built without CUDA too.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gpu/plan.h"

static uint64_t add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static int is_g2(unsigned v) { return v == CUZK__PLAN_VECS - 1; }

static uint64_t vec_bytes(const cuzk__plan_key *k, unsigned v) {
    const uint64_t pb = is_g2(v) ? CUZK__PLAN_G2_BYTES : CUZK__PLAN_G1_BYTES;
    return k->points[v] > UINT64_MAX / pb ? UINT64_MAX : k->points[v] * pb;
}

static int vec_masked(const cuzk__plan_key *k, unsigned v) {
    return v == 0 ? k->h_masked : k->others_masked;
}

const char *cuzk__plan_mode_name(cuzk__plan_mode m) {
    switch (m) {
    case CUZK__PLAN_RESIDENT: return "resident";
    case CUZK__PLAN_PARTLY_RESIDENT: return "partly resident";
    case CUZK__PLAN_STREAMING: return "streaming";
    case CUZK__PLAN_CPU: return "cpu";
    }
    return "?";
}

const char *cuzk__plan_rung_name(cuzk__plan_rung r) {
    switch (r) {
    case CUZK__PLAN_RUNG_RESIDENT: return "resident";
    case CUZK__PLAN_RUNG_PARTLY: return "partly resident";
    case CUZK__PLAN_RUNG_STREAMING: return "streaming";
    case CUZK__PLAN_RUNG_CPU_ABC: return "partly resident with a, b, c on the CPU";
    case CUZK__PLAN_RUNG_CPU_ABC_STREAMING: return "streaming with a, b, c on the CPU";
    case CUZK__PLAN_RUNG_CPU: return "cpu";
    }
    return "?";
}

cuzk__plan_rung cuzk__plan_rung_of(const cuzk__plan *p) {
    switch (p->mode) {
    case CUZK__PLAN_RESIDENT: return CUZK__PLAN_RUNG_RESIDENT;
    case CUZK__PLAN_PARTLY_RESIDENT:
        return p->abc_on_cpu ? CUZK__PLAN_RUNG_CPU_ABC : CUZK__PLAN_RUNG_PARTLY;
    case CUZK__PLAN_STREAMING:
        return p->abc_on_cpu ? CUZK__PLAN_RUNG_CPU_ABC_STREAMING : CUZK__PLAN_RUNG_STREAMING;
    case CUZK__PLAN_CPU: break;
    }
    return CUZK__PLAN_RUNG_CPU;
}

cuzk__plan_rung cuzk__plan_floor_after(const cuzk__plan *p) {
    const cuzk__plan_rung r = cuzk__plan_rung_of(p);
    if (r >= CUZK__PLAN_RUNG_CPU) return CUZK__PLAN_RUNG_CPU;
    if (r == CUZK__PLAN_RUNG_STREAMING && !p->abc_offered) return CUZK__PLAN_RUNG_CPU;
    return (cuzk__plan_rung)(r + 1);
}

const char *cuzk__plan_bytes_str(char *buf, size_t len, uint64_t bytes) {
    const double b = (double)bytes;
    if (bytes >= ((uint64_t)1 << 30))
        snprintf(buf, len, "%.2f GiB", b / (double)((uint64_t)1 << 30));
    else if (bytes >= ((uint64_t)1 << 20))
        snprintf(buf, len, "%.1f MiB", b / (double)((uint64_t)1 << 20));
    else if (bytes >= 1024)
        snprintf(buf, len, "%" PRIu64 " KiB", bytes >> 10);
    else
        snprintf(buf, len, "%" PRIu64 " B", bytes);
    return buf;
}

/* The MSM work area of the largest call: every vector at its size
 * (chunk_bytes 0: resident), or at a chunk's points (a plan that streams
 * sums every vector in chunks, a resident one in pieces of a chunk where a
 * call over all of it does not fit that area). */
static uint64_t area_of(const cuzk__plan_key *k, const cuzk__plan_device *d,
                        uint64_t chunk_bytes) {
    uint64_t area = 0;
    for (unsigned v = 0; v < CUZK__PLAN_VECS; v++) {
        uint64_t n = k->points[v];
        if (chunk_bytes != 0) n = min_u64(n, cuzk__plan_chunk_points(chunk_bytes, v));
        if (n == 0) continue;
        area = max_u64(area, d->area(d->area_ctx, is_g2(v), n, vec_masked(k, v)));
    }
    return area;
}

/* One streaming layout: the vectors in `streamed` from host memory, the
 * others resident. */
typedef struct {
    unsigned streamed;
    uint64_t base;     /* the fixed part and the resident vectors */
    uint64_t max_vec;  /* the largest streamed vector's bytes */
} layout;

static layout layout_of(const cuzk__plan_key *k, uint64_t fixed, unsigned streamed) {
    layout l = {streamed, fixed, 0};
    for (unsigned v = 0; v < CUZK__PLAN_VECS; v++) {
        if (streamed & (1u << v))
            l.max_vec = max_u64(l.max_vec, vec_bytes(k, v));
        else
            l.base = add_sat(l.base, vec_bytes(k, v));
    }
    return l;
}

/* Layout l's device bytes with two chunks of chunk bytes (its work area
 * is a chunk's whatever it keeps). */
static uint64_t layout_need(const cuzk__plan_key *k, const cuzk__plan_device *d,
                            const layout *l, uint64_t chunk) {
    return add_sat(add_sat(l->base, area_of(k, d, chunk)), add_sat(chunk, chunk));
}

/* The chunks layout l may take: whole units from the least to the cap
 * (the largest streamed vector rounded up, at most the device's max_chunk
 * or CUZK__PLAN_MAX_CHUNK). */
static uint64_t layout_cap(const cuzk__plan_device *d, const layout *l) {
    const uint64_t u = CUZK__PLAN_CHUNK_UNIT;
    uint64_t most = CUZK__PLAN_MAX_CHUNK;
    if (d->max_chunk != 0) most = max_u64(d->max_chunk / u, 1) * u;
    return min_u64((l->max_vec / u + (l->max_vec % u != 0)) * u, most);
}
static uint64_t layout_least(const cuzk__plan_device *d, const layout *l) {
    return min_u64(CUZK__PLAN_MIN_CHUNK, layout_cap(d, l));
}

/* The largest chunk (whole units, layout_least .. layout_cap) with which
 * layout l fits avail; 0 when not even the least does. Binary search,
 * keeping a chunk that fits: should the area not grow with the chunk, a
 * fitting one is still returned, if not the largest. */
static uint64_t layout_chunk(const cuzk__plan_key *k, const cuzk__plan_device *d,
                             const layout *l, uint64_t avail) {
    const uint64_t u = CUZK__PLAN_CHUNK_UNIT;
    const uint64_t cap = layout_cap(d, l), least = layout_least(d, l);
    if (cap == 0 || layout_need(k, d, l, least) > avail) return 0;
    if (layout_need(k, d, l, cap) <= avail) return cap;
    uint64_t lo = least / u, hi = cap / u; /* lo fits, hi does not */
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (layout_need(k, d, l, mid * u) <= avail)
            lo = mid;
        else
            hi = mid;
    }
    return lo * u;
}

/* Partly resident: with chunks of *c, the classified vectors (L, A, B_G1,
 * B_G2) kept on the device, the largest first, as many as fit avail; H
 * stays streamed: every scalar of its MSM takes part, so its kernels
 * outlast its copies, while the others' masked MSMs wait on theirs. *l
 * starts as streaming's layout. */
static void keep_classified(const cuzk__plan_key *k, const cuzk__plan_device *d, uint64_t fixed,
                            uint64_t avail, layout *l, uint64_t *c) {
    unsigned order[CUZK__PLAN_VECS - 1];
    for (unsigned i = 0; i < CUZK__PLAN_VECS - 1; i++) order[i] = i + 1;
    for (unsigned i = 1; i < CUZK__PLAN_VECS - 1; i++) /* by bytes, descending */
        for (unsigned j = i; j > 0 && vec_bytes(k, order[j]) > vec_bytes(k, order[j - 1]); j--) {
            const unsigned t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (unsigned i = 0; i < CUZK__PLAN_VECS - 1; i++) {
        const unsigned v = order[i];
        if (k->points[v] == 0) continue;
        const layout next = layout_of(k, fixed, l->streamed & ~(1u << v));
        const uint64_t nc = min_u64(*c, layout_cap(d, &next));
        if (nc != 0 && layout_need(k, d, &next, nc) <= avail) { /* 0: nothing streams */
            *l = next;
            *c = nc;
        }
    }
}

/* The names of the vectors with points that `streamed` streams ("H, B_G1")
 * and of those it keeps, into names[0] and names[1]; returns the streamed
 * bytes. */
static uint64_t vec_names(const cuzk__plan_key *k, unsigned streamed, char names[2][48]) {
    static const char *const vname[CUZK__PLAN_VECS] = {"H", "L", "A", "B_G1", "B_G2"};
    uint64_t bytes = 0;
    names[0][0] = names[1][0] = '\0';
    for (unsigned v = 0; v < CUZK__PLAN_VECS; v++) {
        if (k->points[v] == 0) continue;
        const int st = (streamed >> v) & 1u;
        if (st) bytes = add_sat(bytes, vec_bytes(k, v));
        char *nm = names[st ? 0 : 1];
        const size_t used = strlen(nm);
        snprintf(nm + used, 48 - used, "%s%s", used ? ", " : "", vname[v]);
    }
    return bytes;
}

/* ", 12.00 GiB free, limit 10.00 GiB, 512.0 MiB reserve": the device's side. */
static void device_words(char *buf, size_t len, const cuzk__plan_device *d) {
    char f[24], l[24], r[24];
    cuzk__plan_bytes_str(f, sizeof f, d->free_bytes);
    cuzk__plan_bytes_str(r, sizeof r, d->reserve);
    if (d->vram_limit != 0)
        snprintf(buf, len, "%s free, limit %s, %s reserve", f,
                 cuzk__plan_bytes_str(l, sizeof l, d->vram_limit), r);
    else
        snprintf(buf, len, "%s free, no limit, %s reserve", f, r);
}

void cuzk__plan_make(cuzk__plan *out, const cuzk__plan_key *k, const cuzk__plan_device *d) {
    memset(out, 0, sizeof *out);
    uint64_t m = d->free_bytes;
    if (d->vram_limit != 0 && d->vram_limit < m) m = d->vram_limit;
    out->avail = m > d->reserve ? m - d->reserve : 0;
    const uint64_t fixed = add_sat(add_sat(k->circuit_bytes, k->ntt_bytes), k->proof_bytes);
    for (unsigned v = 0; v < CUZK__PLAN_VECS; v++)
        out->srs_bytes = add_sat(out->srs_bytes, vec_bytes(k, v));
    const unsigned all = (1u << CUZK__PLAN_VECS) - 1;
    const uint64_t area_res = area_of(k, d, 0);
    const uint64_t need_res = add_sat(add_sat(fixed, out->srs_bytes), area_res);

    char dev[128], s1[24], s2[24], s3[24], s4[24], s5[24], s6[24], s7[24];
    device_words(dev, sizeof dev, d);
    cuzk__plan_bytes_str(s1, sizeof s1, need_res);
    cuzk__plan_bytes_str(s2, sizeof s2, out->avail);
    out->host_pinned = k->host_bytes;
    out->abc_offered = k->cpu_abc_bytes != 0;
    char fl[96] = "";
    if (d->floor != CUZK__PLAN_RUNG_RESIDENT)
        snprintf(fl, sizeof fl, " (stepped down: no plan above %s)",
                 cuzk__plan_rung_name(d->floor));
    if (d->floor == CUZK__PLAN_RUNG_RESIDENT && need_res <= out->avail) {
        out->mode = CUZK__PLAN_RESIDENT;
        out->device_bytes = need_res;
        out->area_bytes = area_res;
        out->spare_bytes = out->avail - need_res;
        snprintf(out->reason, sizeof out->reason,
                 "resident: the key needs %s (%" PRIu64 " bytes: SRS %s, circuit %s, NTT %s, "
                 "per-proof buffers %s, MSM work area %s) of %s available (%" PRIu64
                 " bytes: %s); %s spare",
                 s1, need_res, cuzk__plan_bytes_str(s3, sizeof s3, out->srs_bytes),
                 cuzk__plan_bytes_str(s4, sizeof s4, k->circuit_bytes),
                 cuzk__plan_bytes_str(s5, sizeof s5, k->ntt_bytes),
                 cuzk__plan_bytes_str(s6, sizeof s6, k->proof_bytes),
                 cuzk__plan_bytes_str(s7, sizeof s7, area_res), s2, out->avail, dev,
                 cuzk__plan_bytes_str(s3, sizeof s3, out->spare_bytes));
        return;
    }
    /* streaming: every base from host memory, the largest chunk that fits;
     * failing that (or below streaming's rung), with a, b, c made on the
     * CPU where the key offers it */
    uint64_t fx = fixed;
    layout every = layout_of(k, fx, all);
    uint64_t chunk =
        d->floor <= CUZK__PLAN_RUNG_STREAMING ? layout_chunk(k, d, &every, out->avail) : 0;
    const uint64_t lean_fx = add_sat(k->ntt_bytes, k->cpu_abc_bytes);
    const layout lean = layout_of(k, lean_fx, all);
    if (chunk == 0 && every.max_vec != 0 && k->cpu_abc_bytes != 0 &&
        d->floor < CUZK__PLAN_RUNG_CPU) {
        const uint64_t lean_chunk = layout_chunk(k, d, &lean, out->avail);
        if (lean_chunk != 0) {
            fx = lean_fx;
            every = lean;
            chunk = lean_chunk;
            out->abc_on_cpu = 1;
        }
    }
    if (chunk != 0 && every.max_vec != 0) {
        layout l = every;
        uint64_t c = chunk;
        const cuzk__plan_rung keep_rung =
            out->abc_on_cpu ? CUZK__PLAN_RUNG_CPU_ABC : CUZK__PLAN_RUNG_PARTLY;
        if (d->floor <= keep_rung) keep_classified(k, d, fx, out->avail, &l, &c);
        out->mode = l.streamed == all ? CUZK__PLAN_STREAMING : CUZK__PLAN_PARTLY_RESIDENT;
        out->streamed = l.streamed;
        out->chunk_bytes = c;
        out->device_bytes = layout_need(k, d, &l, c);
        out->area_bytes = area_of(k, d, c);
        out->spare_bytes = out->avail - out->device_bytes;
        char names[2][48]; /* the streamed vectors, the kept ones */
        const uint64_t streamed_bytes = vec_names(k, l.streamed, names);
        out->host_pinned = add_sat(k->host_bytes, streamed_bytes);
        char cpu_abc[128] = "";
        if (out->abc_on_cpu) {
            out->host_pinned = add_sat(out->host_pinned, k->cpu_abc_host_bytes);
            snprintf(cpu_abc, sizeof cpu_abc,
                     "; a, b, c made on the CPU, the circuit (%s) not on the device",
                     cuzk__plan_bytes_str(s6, sizeof s6, k->circuit_bytes));
        }
        char what[64] = "every base", kept[96] = "";
        if (out->mode == CUZK__PLAN_PARTLY_RESIDENT) {
            snprintf(what, sizeof what, "the %s bases", names[0]);
            snprintf(kept, sizeof kept, ", the %s bases kept on the device (their work area a "
                                        "chunk's)",
                     names[1]);
        }
        snprintf(out->reason, sizeof out->reason,
                 "%s%s: the whole key needs %s (%" PRIu64 " bytes)%s %s available "
                 "(%" PRIu64 " bytes: %s)%s; %s (%s) streamed from page-locked host "
                 "memory in chunks of 2 x %s%s, %s on the device (%" PRIu64 " bytes)",
                 cuzk__plan_mode_name(out->mode), fl, s1, need_res,
                 need_res > out->avail ? ", more than the" : " of the", s2, out->avail, dev,
                 cpu_abc, what, cuzk__plan_bytes_str(s3, sizeof s3, streamed_bytes),
                 cuzk__plan_bytes_str(s4, sizeof s4, c), kept,
                 cuzk__plan_bytes_str(s5, sizeof s5, out->device_bytes), out->device_bytes);
        return;
    }
    /* streaming's need with its smallest chunks (the CPU's reason), a, b, c
     * made on the CPU where the key offers it */
    uint64_t least_need = fx, least_chunk = 0;
    if (every.max_vec != 0) {
        least_chunk = layout_least(d, &every);
        least_need = layout_need(k, d, &every, least_chunk);
        if (k->cpu_abc_bytes != 0)
            least_need = min_u64(least_need, layout_need(k, d, &lean, least_chunk));
    }
    out->mode = CUZK__PLAN_CPU;
    out->abc_on_cpu = 0;
    out->device_bytes = 0;
    out->spare_bytes = 0;
    if (d->floor == CUZK__PLAN_RUNG_CPU) {
        snprintf(out->reason, sizeof out->reason,
                 "cpu%s: the GPU ran out of device memory even streaming every base", fl);
        return;
    }
    if (d->floor > CUZK__PLAN_RUNG_STREAMING && k->cpu_abc_bytes == 0) {
        snprintf(out->reason, sizeof out->reason,
                 "cpu%s: the key does not offer a, b, c made on the CPU", fl);
        return;
    }
    snprintf(out->reason, sizeof out->reason,
             "cpu%s: not even streaming fits: the circuit%s, NTT tables, per-proof buffers, "
             "MSM work area and two chunks of %s need %s (%" PRIu64 " bytes), %s available "
             "(%" PRIu64 " bytes: %s)",
             fl, k->cpu_abc_bytes != 0 ? " (or a, b, c from the CPU)" : "",
             cuzk__plan_bytes_str(s3, sizeof s3, least_chunk),
             cuzk__plan_bytes_str(s4, sizeof s4, least_need), least_need, s2, out->avail, dev);
}
