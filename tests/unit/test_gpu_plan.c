/*
 * test_gpu_plan.c — the GPU memory planner (src/gpu/plan.h) without a GPU:
 * the mode is the first of resident, partly resident, streaming and CPU
 * whose need fits min(free, limit) - reserve, each boundary exact to the
 * byte (need fits, need + 1 does not) and the same whether the free memory
 * or the limit sets it; the chunk is the largest that fits streaming every
 * base, whole units, at most the largest streamed vector and 1 GiB; partly
 * resident streams H and keeps the classified vectors, the largest first,
 * as many as fit beside those chunks; the plan's bytes add up; the mode
 * never gets more resident as the memory shrinks and every mode is reached;
 * the reasons name the mode and the numbers. Keys of many sizes (2^10 to
 * 2^28 points, dense and sparse queries) against an MSM work area model
 * that grows with the points (the GPU's own sizing is the backend's: here
 * any monotone model tests the planner).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gpu/plan.h"
#include "harness.h"

/* The work-area model: bytes per point (sorts, levels) and a fixed part
 * (buckets); masked calls take a quarter a point, G2 twice. */
typedef struct {
    uint64_t per_point, fixed;
} area_model;

static uint64_t model_area(void *ctx, int g2, uint64_t n, int masked) {
    const area_model *m = ctx;
    uint64_t per = masked ? m->per_point / 4 : m->per_point;
    if (g2) per *= 2;
    return m->fixed + per * n;
}

static area_model the_model = {200, (uint64_t)64 << 20};

static cuzk__plan_device device_of(uint64_t free_b, uint64_t limit, uint64_t reserve) {
    cuzk__plan_device d;
    d.free_bytes = free_b;
    d.vram_limit = limit;
    d.reserve = reserve;
    d.max_chunk = 0;
    d.floor = CUZK__PLAN_RUNG_RESIDENT;
    d.area = model_area;
    d.area_ctx = &the_model;
    return d;
}

/* A key of n constraints (2^log), its queries `dense` percent of n. */
static cuzk__plan_key key_of(unsigned log, unsigned dense_pct) {
    cuzk__plan_key k;
    memset(&k, 0, sizeof k);
    const uint64_t n = (uint64_t)1 << log, q = n / 100 * dense_pct + 1;
    k.points[0] = n - 1;
    k.points[1] = n;
    k.points[2] = q;
    k.points[3] = q / 2 + 1;
    k.points[4] = q / 2 + 1;
    k.h_masked = 0;
    k.others_masked = 1;
    k.circuit_bytes = 8 * 12 * n;
    k.ntt_bytes = 16 * n;
    k.proof_bytes = 32 * 6 * n;
    k.host_bytes = (uint64_t)64 << 20;
    return k;
}

/* ---- the planner's rules, written out again ------------------------------------- */

static uint64_t vbytes(const cuzk__plan_key *k, unsigned v) {
    return k->points[v] * (v == 4 ? 192u : 96u);
}
static uint64_t fixed_of(const cuzk__plan_key *k) {
    return k->circuit_bytes + k->ntt_bytes + k->proof_bytes;
}
static uint64_t area1(const cuzk__plan_key *k, unsigned v, uint64_t n) {
    return n == 0 ? 0 : model_area(&the_model, v == 4, n, v == 0 ? k->h_masked : k->others_masked);
}
static uint64_t need_resident(const cuzk__plan_key *k) {
    uint64_t need = fixed_of(k), area = 0;
    for (unsigned v = 0; v < 5; v++) {
        need += vbytes(k, v);
        const uint64_t a = area1(k, v, k->points[v]);
        if (a > area) area = a;
    }
    return need + area;
}
#define ALL_VECS 0x1fu

/* A plan that streams `streamed` with chunks of `chunk`: every vector's
 * MSMs at a chunk's points (a resident one in pieces), the others' bases
 * on the device, two chunk buffers. */
static uint64_t need_stream(const cuzk__plan_key *k, unsigned streamed, uint64_t chunk) {
    uint64_t need = fixed_of(k), area = 0;
    for (unsigned v = 0; v < 5; v++) {
        uint64_t n = k->points[v];
        if (!(streamed & (1u << v))) need += vbytes(k, v);
        const uint64_t per = chunk / (v == 4 ? 192u : 96u);
        if (per < n) n = per;
        const uint64_t a = area1(k, v, n);
        if (a > area) area = a;
    }
    return need + area + 2 * chunk;
}
static uint64_t cap_of(const cuzk__plan_key *k, unsigned streamed) {
    uint64_t m = 0;
    for (unsigned v = 0; v < 5; v++)
        if ((streamed & (1u << v)) && vbytes(k, v) > m) m = vbytes(k, v);
    const uint64_t u = CUZK__PLAN_CHUNK_UNIT, c = (m + u - 1) / u * u;
    return c < CUZK__PLAN_MAX_CHUNK ? c : CUZK__PLAN_MAX_CHUNK;
}
static uint64_t least_of(const cuzk__plan_key *k, unsigned streamed) {
    const uint64_t c = cap_of(k, streamed);
    return c < CUZK__PLAN_MIN_CHUNK ? c : CUZK__PLAN_MIN_CHUNK;
}
/* The streaming chunk: the largest whole unit up to the cap that fits
 * avail (0: not even the least). */
static uint64_t stream_chunk(const cuzk__plan_key *k, uint64_t avail) {
    const uint64_t u = CUZK__PLAN_CHUNK_UNIT, least = least_of(k, ALL_VECS);
    if (least == 0 || need_stream(k, ALL_VECS, least) > avail) return 0;
    uint64_t lo = least / u, hi = cap_of(k, ALL_VECS) / u + 1; /* lo fits, hi does not */
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (need_stream(k, ALL_VECS, mid * u) <= avail)
            lo = mid;
        else
            hi = mid;
    }
    return lo * u;
}

static cuzk__plan plan_at(const cuzk__plan_key *k, uint64_t free_b, uint64_t limit,
                          uint64_t reserve) {
    const cuzk__plan_device d = device_of(free_b, limit, reserve);
    cuzk__plan p;
    cuzk__plan_make(&p, k, &d);
    return p;
}

static bool contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

/* The reason starts with the mode's name and names the numbers. */
static bool reason_names(const cuzk__plan *p, uint64_t need, uint64_t limit) {
    char num[32];
    bool ok = strncmp(p->reason, cuzk__plan_mode_name(p->mode),
                      strlen(cuzk__plan_mode_name(p->mode))) == 0;
    snprintf(num, sizeof num, "%" PRIu64 " bytes", need);
    ok = ok && contains(p->reason, num);
    snprintf(num, sizeof num, "(%" PRIu64 " bytes", p->avail);
    ok = ok && contains(p->reason, num);
    ok = ok && contains(p->reason, limit ? "limit " : "no limit");
    if (p->mode == CUZK__PLAN_PARTLY_RESIDENT || p->mode == CUZK__PLAN_STREAMING) {
        char c[24], words[48];
        snprintf(words, sizeof words, "chunks of 2 x %s",
                 cuzk__plan_bytes_str(c, sizeof c, p->chunk_bytes));
        ok = ok && contains(p->reason, words);
    }
    if (!ok) fprintf(stderr, "  reason without its numbers: %s\n", p->reason);
    return ok;
}

/* The plan's own bytes agree with each other and with its mode. */
static bool plan_consistent(const cuzk__plan_key *k, const cuzk__plan *p) {
    uint64_t streamed = 0;
    for (unsigned v = 0; v < 5; v++)
        if (p->streamed & (1u << v)) streamed += vbytes(k, v);
    /* streaming: all; partly resident: H and not all; else none */
    bool ok = p->mode == CUZK__PLAN_STREAMING ? p->streamed == ALL_VECS
              : p->mode == CUZK__PLAN_PARTLY_RESIDENT
                  ? (p->streamed & 1u) && p->streamed != ALL_VECS && p->streamed <= ALL_VECS
                  : p->streamed == 0;
    ok = ok && p->host_pinned == k->host_bytes + streamed + (p->abc_on_cpu ? k->cpu_abc_host_bytes : 0);
    ok = ok && (!p->abc_on_cpu || (p->mode != CUZK__PLAN_RESIDENT && p->mode != CUZK__PLAN_CPU));
    if (p->mode == CUZK__PLAN_CPU) {
        ok = ok && p->device_bytes == 0 && p->chunk_bytes == 0;
    } else {
        ok = ok && p->device_bytes <= p->avail && p->spare_bytes == p->avail - p->device_bytes;
        ok = ok && p->chunk_bytes % CUZK__PLAN_CHUNK_UNIT == 0;
        ok = ok && (p->mode == CUZK__PLAN_RESIDENT) == (p->chunk_bytes == 0);
    }
    if (!ok)
        fprintf(stderr, "  inconsistent plan: mode %s streamed %#x device %" PRIu64
                        " avail %" PRIu64 " chunk %" PRIu64 "\n",
                cuzk__plan_mode_name(p->mode), p->streamed, p->device_bytes, p->avail,
                p->chunk_bytes);
    return ok;
}

/* ---- tests ------------------------------------------------------------------------ */

/* Each boundary to the byte, set by the free memory and by the limit. */
static void test_boundaries(void) {
    static const unsigned logs[] = {10, 16, 20, 24, 27};
    static const unsigned dense[] = {1, 50, 100};
    const uint64_t reserve = (uint64_t)256 << 20;
    for (size_t li = 0; li < sizeof logs / sizeof logs[0]; li++)
        for (size_t di = 0; di < sizeof dense / sizeof dense[0]; di++) {
            const cuzk__plan_key k = key_of(logs[li], dense[di]);
            const uint64_t res = need_resident(&k);
            const uint64_t stream = need_stream(&k, ALL_VECS, least_of(&k, ALL_VECS));
            /* H alone streamed, with the chunk streaming would take there */
            const unsigned h_only = 1u;
            uint64_t keep_all = need_stream(&k, h_only, cap_of(&k, h_only));
            const uint64_t big = (uint64_t)1 << 50;
            /* resident: free memory rules, then the limit rules */
            cuzk__plan p = plan_at(&k, res + reserve, 0, reserve);
            CHECK(p.mode == CUZK__PLAN_RESIDENT && p.device_bytes == res && p.spare_bytes == 0);
            CHECK(reason_names(&p, res, 0));
            p = plan_at(&k, res + reserve - 1, 0, reserve);
            CHECK(p.mode != CUZK__PLAN_RESIDENT);
            p = plan_at(&k, big, res + reserve, reserve);
            CHECK(p.mode == CUZK__PLAN_RESIDENT && p.avail == res);
            CHECK(reason_names(&p, res, 1));
            p = plan_at(&k, big, res + reserve - 1, reserve);
            CHECK(p.mode != CUZK__PLAN_RESIDENT);
            /* the smaller of the two rules: a large limit does not lift free memory */
            p = plan_at(&k, res + reserve - 1, big, reserve);
            CHECK(p.mode != CUZK__PLAN_RESIDENT && p.avail == res - 1);
            /* every classified vector kept, H streamed in chunks of its cap,
             * exactly at its need (when below resident and the streaming
             * chunk there is the cap) */
            if (keep_all < res && stream_chunk(&k, keep_all) >= cap_of(&k, h_only)) {
                p = plan_at(&k, big, keep_all + reserve, reserve);
                CHECK(p.mode == CUZK__PLAN_PARTLY_RESIDENT && p.streamed == h_only);
                CHECK(p.chunk_bytes == cap_of(&k, h_only) && p.device_bytes == keep_all);
                CHECK(reason_names(&p, res, 1));
                p = plan_at(&k, keep_all + reserve - 1, 0, reserve);
                CHECK(p.mode != CUZK__PLAN_RESIDENT && p.streamed != h_only);
            }
            /* streaming down to its smallest chunks, then the CPU */
            if (stream < res) {
                p = plan_at(&k, stream + reserve, 0, reserve);
                CHECK(p.mode == CUZK__PLAN_STREAMING || p.mode == CUZK__PLAN_PARTLY_RESIDENT);
                CHECK(p.chunk_bytes <= least_of(&k, ALL_VECS));
                p = plan_at(&k, big, stream + reserve - 1, reserve);
                CHECK(p.mode == CUZK__PLAN_CPU);
                CHECK(reason_names(&p, stream, 1));
            }
            /* a reserve at least the memory: nothing fits */
            p = plan_at(&k, reserve, 0, reserve);
            CHECK(p.mode == CUZK__PLAN_CPU && p.avail == 0);
        }
}

/* The chunk is the largest whole unit that fits (or the cap), and the mode
 * the first whose smallest layout fits, over many keys and memories. */
static void test_many_sizes(void) {
    const uint64_t u = CUZK__PLAN_CHUNK_UNIT;
    for (unsigned it = 0; it < ITERS(3000); it++) {
        const unsigned log = 10 + (unsigned)(cuzk_test_rand64() % 19);
        const cuzk__plan_key k = key_of(log, (unsigned)(cuzk_test_rand64() % 101));
        const uint64_t res = need_resident(&k);
        const uint64_t reserve = cuzk_test_rand64() % ((uint64_t)1 << 30);
        const uint64_t free_b = cuzk_test_rand64() % (res + res / 4 + reserve + 1);
        const uint64_t limit =
            cuzk_test_rand64() % 3 == 0 ? 0 : cuzk_test_rand64() % (res + reserve + 1) + 1;
        const cuzk__plan p = plan_at(&k, free_b, limit, reserve);
        uint64_t m = free_b;
        if (limit && limit < m) m = limit;
        const uint64_t avail = m > reserve ? m - reserve : 0;
        CHECK(p.avail == avail);
        CHECK(plan_consistent(&k, &p));
        const uint64_t least = need_stream(&k, ALL_VECS, least_of(&k, ALL_VECS));
        CHECK(reason_names(&p, p.mode == CUZK__PLAN_CPU ? least : res, limit != 0));
        if (res <= avail)
            CHECK(p.mode == CUZK__PLAN_RESIDENT);
        else if (least <= avail)
            CHECK(p.mode == CUZK__PLAN_PARTLY_RESIDENT || p.mode == CUZK__PLAN_STREAMING);
        else
            CHECK(p.mode == CUZK__PLAN_CPU);
        if (p.mode == CUZK__PLAN_PARTLY_RESIDENT || p.mode == CUZK__PLAN_STREAMING) {
            /* streaming's chunk, the largest that fits (or its cap), clipped
             * to the cap of what the plan streams */
            const uint64_t c = p.chunk_bytes, sc = stream_chunk(&k, avail);
            const uint64_t cap = cap_of(&k, p.streamed);
            CHECK(c == (sc < cap ? sc : cap));
            CHECK(sc == cap_of(&k, ALL_VECS) || need_stream(&k, ALL_VECS, sc + u) > avail);
            CHECK(need_stream(&k, p.streamed, c) == p.device_bytes);
            /* no classified vector it streams fits beside it as well */
            for (unsigned v = 1; v < 5; v++) {
                if (!(p.streamed & (1u << v)) || k.points[v] == 0) continue;
                const unsigned fewer = p.streamed & ~(1u << v);
                const uint64_t fc = cap_of(&k, fewer) < c ? cap_of(&k, fewer) : c;
                CHECK(need_stream(&k, fewer, fc) > avail);
            }
        }
    }
}

/* Shrinking memory never makes a key more resident, and a sweep reaches
 * every mode. */
static void test_modes_reached(void) {
    const cuzk__plan_key k = key_of(24, 60);
    const uint64_t res = need_resident(&k), reserve = (uint64_t)1 << 28;
    unsigned seen = 0;
    cuzk__plan_mode last = CUZK__PLAN_RESIDENT;
    const uint64_t top = res + reserve + (res >> 3);
    for (uint64_t mem = top;; mem -= top / 4096 + 1) {
        const cuzk__plan p = plan_at(&k, mem, 0, reserve);
        seen |= 1u << p.mode;
        CHECK(p.mode >= last);
        last = p.mode;
        if (mem < top / 4096 + 1) break;
    }
    CHECK(seen == 0xfu);
    /* the same modes with a card of 2^40 bytes under limits */
    seen = 0;
    for (uint64_t lim = top; lim > top / 4096; lim -= top / 4096) {
        const cuzk__plan p = plan_at(&k, (uint64_t)1 << 40, lim, reserve);
        seen |= 1u << p.mode;
    }
    CHECK(seen == 0xfu);
}

/* A device's max_chunk caps the chunk (whole units, one at least): a small
 * key streams in many chunks; without it the same key and memory take its
 * largest streamed vector, rounded up, in one chunk. */
static void test_max_chunk(void) {
    const uint64_t u = CUZK__PLAN_CHUNK_UNIT;
    const cuzk__plan_key k = key_of(12, 100);
    const uint64_t res = need_resident(&k), reserve = (uint64_t)1 << 20;
    static const uint64_t maxes[] = {1, u, u + 1, 3 * u, 5 * u - 1};
    for (size_t i = 0; i < sizeof maxes / sizeof maxes[0]; i++) {
        cuzk__plan_device d = device_of(res + reserve - 1, 0, reserve);
        d.max_chunk = maxes[i];
        cuzk__plan p;
        cuzk__plan_make(&p, &k, &d);
        const uint64_t want = (maxes[i] / u > 0 ? maxes[i] / u : 1) * u;
        CHECK(p.mode == CUZK__PLAN_PARTLY_RESIDENT);
        CHECK(p.chunk_bytes == want);
        CHECK(plan_consistent(&k, &p));
        d.max_chunk = 0;
        cuzk__plan_make(&p, &k, &d);
        CHECK(p.mode == CUZK__PLAN_PARTLY_RESIDENT && p.chunk_bytes == cap_of(&k, p.streamed));
        CHECK(cap_of(&k, p.streamed) > 5 * u);
    }
}

/* A PoRep-sized key (2^27, ~77 GB of bases) on cards of 141, 80 and 24 GB
 * (their limits): the card decides the mode, the reasons say so. */
static void test_porep_cards(void) {
    cuzk__plan_key k;
    memset(&k, 0, sizeof k);
    const uint64_t n = (uint64_t)1 << 27;
    k.points[0] = n - 1;
    k.points[1] = n;
    k.points[2] = n;
    k.points[3] = n;
    k.points[4] = n;
    k.others_masked = 1;
    k.circuit_bytes = (uint64_t)17 << 30;
    k.ntt_bytes = 16 * n;
    k.proof_bytes = 32 * 6 * n;
    k.host_bytes = (uint64_t)64 << 20;
    k.cpu_abc_bytes = 32 * 3 * n + 4 * n;
    k.cpu_abc_host_bytes = 2 * 32 * 3 * n;
    area_model keep = the_model;
    the_model.per_point = 250; /* ~31 GiB for an unmasked 2^27 call */
    the_model.fixed = (uint64_t)1 << 30;
    /* 141 GB: all but H kept; 80 GB: B_G2 (the largest) kept, the rest
     * streamed; 24 GB: the circuit and buffers alone pass it, a, b, c from
     * the CPU stream every base */
    static const struct {
        uint64_t limit;
        cuzk__plan_mode mode;
        unsigned streamed;
    } cards[] = {
        {(uint64_t)200 << 30, CUZK__PLAN_RESIDENT, 0},
        {(uint64_t)141000000000ull, CUZK__PLAN_PARTLY_RESIDENT, 0x1u},
        {(uint64_t)80 << 30, CUZK__PLAN_PARTLY_RESIDENT, 0xfu},
        {(uint64_t)24 << 30, CUZK__PLAN_STREAMING, ALL_VECS},
        {(uint64_t)16 << 30, CUZK__PLAN_CPU, 0},
    };
    for (size_t i = 0; i < sizeof cards / sizeof cards[0]; i++) {
        const cuzk__plan p = plan_at(&k, (uint64_t)1 << 41, cards[i].limit, (uint64_t)1 << 30);
        printf("  limit %" PRIu64 ": %s\n", cards[i].limit, p.reason);
        CHECK(p.mode == cards[i].mode && p.streamed == cards[i].streamed);
        CHECK(p.abc_on_cpu == (cards[i].limit == (uint64_t)24 << 30));
        CHECK(plan_consistent(&k, &p));
    }
    the_model = keep;
}

/* A floor takes the first fitting plan at or below its rung, and says it
 * stepped down: on a card that holds the key whole, each floor gives its
 * own rung (a key that offers a, b, c on the CPU: those rungs too; one
 * that does not: the CPU below streaming), and floor_after names the rung
 * below; on a card that holds only streaming, a floor above it changes
 * nothing but the words. */
static void test_floor(void) {
    cuzk__plan_key k = key_of(20, 60);
    const uint64_t res = need_resident(&k), reserve = (uint64_t)1 << 28;
    cuzk__plan_device d = device_of(res + reserve + ((uint64_t)1 << 30), 0, reserve);
    cuzk__plan p;
    for (int offered = 0; offered < 2; offered++) {
        k.cpu_abc_bytes = offered ? 32 * 3 * ((uint64_t)1 << 20) : 0;
        k.cpu_abc_host_bytes = 2 * k.cpu_abc_bytes;
        for (int f = CUZK__PLAN_RUNG_RESIDENT; f <= CUZK__PLAN_RUNG_CPU; f++) {
            d.floor = (cuzk__plan_rung)f;
            cuzk__plan_make(&p, &k, &d);
            const int lean_rung = f == CUZK__PLAN_RUNG_CPU_ABC || f == CUZK__PLAN_RUNG_CPU_ABC_STREAMING;
            const cuzk__plan_rung want =
                lean_rung && !offered ? CUZK__PLAN_RUNG_CPU : (cuzk__plan_rung)f;
            CHECK_EQ_INT(cuzk__plan_rung_of(&p), want);
            CHECK(p.abc_on_cpu == (lean_rung && offered));
            CHECK(p.abc_offered == offered);
            CHECK(plan_consistent(&k, &p));
            CHECK(contains(p.reason, "stepped down") == (f != CUZK__PLAN_RUNG_RESIDENT));
            if (p.mode != CUZK__PLAN_RESIDENT && p.mode != CUZK__PLAN_CPU)
                CHECK(reason_names(&p, res, 0));
            if (f == CUZK__PLAN_RUNG_CPU) CHECK(contains(p.reason, "ran out of device memory"));
            if ((int)want != f) CHECK(contains(p.reason, "does not offer a, b, c"));
            /* the next floor: the rung below, streaming to the CPU when not offered */
            const cuzk__plan_rung next = cuzk__plan_floor_after(&p);
            if (want == CUZK__PLAN_RUNG_CPU)
                CHECK_EQ_INT(next, CUZK__PLAN_RUNG_CPU);
            else if (want == CUZK__PLAN_RUNG_STREAMING && !offered)
                CHECK_EQ_INT(next, CUZK__PLAN_RUNG_CPU);
            else
                CHECK_EQ_INT(next, want + 1);
        }
    }
    k.cpu_abc_bytes = k.cpu_abc_host_bytes = 0;
    /* no classified vector fits beside streaming's least: floors 0..2 give streaming */
    d.floor = CUZK__PLAN_RUNG_RESIDENT;
    d.free_bytes = reserve + need_stream(&k, ALL_VECS, least_of(&k, ALL_VECS));
    cuzk__plan_make(&p, &k, &d);
    CHECK(p.mode == CUZK__PLAN_STREAMING && p.chunk_bytes == least_of(&k, ALL_VECS));
    CHECK(!contains(p.reason, "stepped down"));
    for (int f = CUZK__PLAN_RUNG_PARTLY; f <= CUZK__PLAN_RUNG_STREAMING; f++) {
        d.floor = (cuzk__plan_rung)f;
        cuzk__plan make;
        cuzk__plan_make(&make, &k, &d);
        CHECK(make.mode == CUZK__PLAN_STREAMING && make.chunk_bytes == p.chunk_bytes);
        CHECK(contains(make.reason, "stepped down"));
    }
}

/* A key without H points (a domain of 1) at floor partly resident with
 * room for everything: some vector still streams, in chunks of a size. */
static void test_no_h_points(void) {
    cuzk__plan_key k = key_of(16, 50);
    k.points[0] = 0;
    cuzk__plan_device d = device_of((uint64_t)1 << 40, 0, (uint64_t)1 << 28);
    d.floor = CUZK__PLAN_RUNG_PARTLY;
    cuzk__plan p;
    cuzk__plan_make(&p, &k, &d);
    CHECK(p.mode == CUZK__PLAN_PARTLY_RESIDENT && p.chunk_bytes != 0);
    CHECK((p.streamed & 0x1eu) != 0);
    CHECK(plan_consistent(&k, &p));
}

/* a, b, c from the CPU: only when streaming with the circuit on the device
 * does not fit, to the byte; the need is then the NTT tables, the offered
 * buffers, the work area and the chunks; below that the CPU, and a key
 * that does not offer it goes to the CPU at once. */
static void test_cpu_abc(void) {
    cuzk__plan_key k = key_of(20, 60);
    const uint64_t n = (uint64_t)1 << 20, reserve = (uint64_t)1 << 28;
    k.cpu_abc_bytes = 32 * 3 * n + 4 * n;
    k.cpu_abc_host_bytes = 2 * 32 * 3 * n;
    const uint64_t least = least_of(&k, ALL_VECS);
    const uint64_t with_circuit = need_stream(&k, ALL_VECS, least);
    const uint64_t lean = with_circuit - fixed_of(&k) + k.ntt_bytes + k.cpu_abc_bytes;
    CHECK(lean < with_circuit);
    cuzk__plan_device d = device_of(reserve + with_circuit, 0, reserve);
    cuzk__plan p;
    cuzk__plan_make(&p, &k, &d);
    CHECK(p.mode == CUZK__PLAN_STREAMING && !p.abc_on_cpu && p.chunk_bytes == least);
    CHECK(!contains(p.reason, "made on the CPU"));
    d.free_bytes = reserve + with_circuit - 1;
    cuzk__plan_make(&p, &k, &d);
    printf("  %s\n", p.reason);
    CHECK(p.abc_on_cpu && p.mode != CUZK__PLAN_CPU && p.chunk_bytes >= least);
    CHECK(contains(p.reason, "a, b, c made on the CPU"));
    CHECK(plan_consistent(&k, &p));
    d.free_bytes = reserve + lean;
    cuzk__plan_make(&p, &k, &d);
    CHECK(p.abc_on_cpu && p.mode == CUZK__PLAN_STREAMING && p.chunk_bytes == least);
    CHECK(p.device_bytes == lean);
    CHECK(plan_consistent(&k, &p));
    d.free_bytes = reserve + lean - 1;
    cuzk__plan_make(&p, &k, &d);
    CHECK(p.mode == CUZK__PLAN_CPU && !p.abc_on_cpu);
    CHECK(plan_consistent(&k, &p));
    char num[32];
    snprintf(num, sizeof num, "%" PRIu64 " bytes", lean); /* the least it would need */
    CHECK(contains(p.reason, num));
    /* not offered: the CPU below streaming with the circuit */
    k.cpu_abc_bytes = 0;
    d.free_bytes = reserve + with_circuit - 1;
    cuzk__plan_make(&p, &k, &d);
    CHECK(p.mode == CUZK__PLAN_CPU && !p.abc_on_cpu);
    /* a floor of CPU (a key that ran out at the bottom) stays the CPU */
    k.cpu_abc_bytes = 32 * 3 * n + 4 * n;
    d.floor = CUZK__PLAN_RUNG_CPU;
    cuzk__plan_make(&p, &k, &d);
    CHECK(p.mode == CUZK__PLAN_CPU && !p.abc_on_cpu);
    /* a key that ran out streaming with the circuit on a card that holds it:
     * the floor below takes a, b, c to the CPU, the room it frees kept */
    d.free_bytes = reserve + with_circuit;
    d.floor = CUZK__PLAN_RUNG_STREAMING;
    cuzk__plan_make(&p, &k, &d);
    CHECK(p.mode == CUZK__PLAN_STREAMING && !p.abc_on_cpu);
    d.floor = cuzk__plan_floor_after(&p);
    CHECK_EQ_INT(d.floor, CUZK__PLAN_RUNG_CPU_ABC);
    cuzk__plan_make(&p, &k, &d);
    printf("  %s\n", p.reason);
    CHECK(p.abc_on_cpu && p.mode != CUZK__PLAN_CPU && p.chunk_bytes >= least);
    CHECK(contains(p.reason, "stepped down: no plan above partly resident with a, b, c"));
    CHECK(plan_consistent(&k, &p));
    if (p.mode == CUZK__PLAN_PARTLY_RESIDENT) { /* then every base streamed */
        d.floor = cuzk__plan_floor_after(&p);
        CHECK_EQ_INT(d.floor, CUZK__PLAN_RUNG_CPU_ABC_STREAMING);
        cuzk__plan_make(&p, &k, &d);
        CHECK(p.abc_on_cpu && p.mode == CUZK__PLAN_STREAMING);
    }
    CHECK_EQ_INT(cuzk__plan_floor_after(&p), CUZK__PLAN_RUNG_CPU);
}

/* The byte form the reasons use. */
static void test_bytes_str(void) {
    char b[24];
    CHECK(strcmp(cuzk__plan_bytes_str(b, sizeof b, 100), "100 B") == 0);
    CHECK(strcmp(cuzk__plan_bytes_str(b, sizeof b, 2048), "2 KiB") == 0);
    CHECK(strcmp(cuzk__plan_bytes_str(b, sizeof b, (uint64_t)3 << 19), "1.5 MiB") == 0);
    CHECK(strcmp(cuzk__plan_bytes_str(b, sizeof b, (uint64_t)80 << 30), "80.00 GiB") == 0);
    CHECK(strcmp(cuzk__plan_mode_name(CUZK__PLAN_PARTLY_RESIDENT), "partly resident") == 0);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    RUN(test_bytes_str);
    RUN(test_boundaries);
    RUN(test_many_sizes);
    RUN(test_modes_reached);
    RUN(test_max_chunk);
    RUN(test_porep_cards);
    RUN(test_floor);
    RUN(test_no_h_points);
    RUN(test_cpu_abc);
    return cuzk_test_finish();
}
