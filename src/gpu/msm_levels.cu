/*
 * msm_levels.cu — steps 4-5 of the GPU MSM (msm_impl.cuh): each bin's sorted
 * entries summed pairwise in affine coordinates, level by level, with one
 * inversion per thread and level (Montgomery's trick), the level launches'
 * slots divided among the SMs by their measured speeds (level_runs.h); the
 * runs too short to pay for a level go to the XYZZ accumulation
 * (msm_xyzz.cu). VARIABLE TIME (public data, as the CPU MSM).
 */
#include "gpu/level_runs.h"
#include "gpu/msm_impl.cuh"

/* Pairs per resident thread a level needs by default: with the binary-GCD
 * inversion (ff.cuh inv_var) a level pays for itself down to 16 pairs a
 * thread. */
static constexpr uint64_t BA_MIN_BATCH = 16;

/* ---- batch-affine accumulation ----------------------------------------------------
 *
 * Steps 4-5 for the long runs. Per group of windows (the level
 * buffers are bounded by a budget), the sorted entries of each bin are
 * summed pairwise, level by level: a bin holding k points at one level
 * holds ceil(k/2) at the next (pairs (2i, 2i+1), an odd last point passes
 * through). A level's output slots o are cut into equal slices, one per
 * thread, whatever the bins' sizes; slot o of bin g reads inputs
 * off_in[g] + 2 (o - off_out[g]) and the one after it, when that is still
 * in the bin. The new offsets are an exclusive scan of ceil(k/2).
 *
 * Affine addition with a shared inversion (Montgomery's trick): forward,
 * each addition's prefix product (of the denominators before it) is kept
 * in its own output slot's x (ba_st_prefix: with its last sector filled);
 * one inversion per thread and level; backward,
 * 1/d = inv * prefix, inv *= d, then l = (y2 - y1)/(x2 - x1) or
 * 3 x1^2 / (2 y1), x3 = l^2 - x1 - x2, y3 = l (x1 - x3) - y1: 5M + 1S per
 * addition (doubling + 1S) plus 1/slice of an inversion (binary GCD),
 * against 8M + 2S for an XYZZ mixed addition. Infinity
 * (0, 0) as an input passes the other point through; P + (-P) gives (0, 0).
 * The denominators are recomputed from the inputs in the backward pass (the
 * same loads, so the same decisions), nothing else is stored.
 *
 * A level runs only while its pairs give each resident thread enough of
 * them to amortize the inversion (BA_MIN_BATCH, or the configuration's
 * ba_min_pairs); what is left (short runs) goes through the flat XYZZ
 * accumulation (msm_xyzz.cu) with identity indices over the last level's
 * points.
 */

enum { BA_A = 0, BA_B, BA_INF, BA_ADD, BA_DBL }; /* what a level slot does */

/* The slot's kind; d = the denominator for BA_ADD / BA_DBL. A point with
 * y = 0 has order 2 (not in G1, G2): doubling it gives infinity, as on the CPU. */
template <class F>
static __device__ __forceinline__ int ba_kind(const aff_pt<F> &a, const aff_pt<F> &b, bool has_b,
                                              F &d) {
    if (!has_b || aff_is_inf(b)) return BA_A;
    if (aff_is_inf(a)) return BA_B;
    sub(d, b.x, a.x);
    if (!is_zero(d)) return BA_ADD;
    if (!fe_equal(a.y, b.y)) return BA_INF; /* same x, other y: b = -a */
    add(d, a.y, a.y);
    return is_zero(d) ? BA_INF : BA_DBL;
}

/* Asynchronous copies global -> shared (cp.async, sm_80+): in flight while
 * the thread computes, and holding no registers. cg: cached in L2 only. */
static __device__ __forceinline__ void cp_async16(void *smem, const void *gmem) {
    const uint32_t sa = (uint32_t)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sa), "l"(gmem) : "memory");
}
template <class E>
static __device__ __forceinline__ void cp_async(E *smem, const E *gmem) {
    static_assert(sizeof(E) % 16 == 0, "element size");
#pragma unroll
    for (unsigned k = 0; k < sizeof(E) / 16; k++)
        cp_async16(reinterpret_cast<uint4 *>(smem) + k, reinterpret_cast<const uint4 *>(gmem) + k);
}
static __device__ __forceinline__ void cp_async_commit() {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
static __device__ __forceinline__ void cp_async_wait_all() {
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}

template <class F>
constexpr int BA_MIN_BLOCKS = 1;

/* A level thread's shared-memory slot: its slots' inputs, copied ahead by
 * its warp (ba_fetch_warp) into buffer j % 2 for slot j, each coordinate
 * read where it is used (the forward pass takes the x coordinates, and a
 * lone point's y), and the prefix, copied by the thread itself. */
template <class F>
struct ba_stage {
    aff_pt<F> a[2], b[2];
    F pre;
};

/* A read of a stage where it is used: asm volatile, so that the compiler
 * neither merges two reads of one coordinate (keeping it live across the
 * step's calls) nor hoists them. */
template <class E>
static __device__ __forceinline__ E ba_lds(const E &s) {
    static_assert(sizeof(E) % 16 == 0, "element size");
    E r;
    const uint32_t a = (uint32_t)__cvta_generic_to_shared(&s);
    uint4 *d = reinterpret_cast<uint4 *>(&r);
#pragma unroll
    for (unsigned k = 0; k < sizeof(E) / 16; k++)
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(d[k].x), "=r"(d[k].y), "=r"(d[k].z), "=r"(d[k].w)
                     : "r"(a + 16 * k));
    return r;
}

/* The bin of a level thread's current slot, with its bounds in registers
 * (reloaded only when the slot crosses into another bin). */
struct ba_bin {
    uint32_t g, out_lo, out_hi, in_lo, in_hi;
};
static __device__ __forceinline__ void ba_bin_load(ba_bin &b, const uint32_t *__restrict__ off_in,
                                                   const uint32_t *__restrict__ off_out,
                                                   uint32_t g) {
    b.g = g;
    b.out_lo = off_out[g];
    b.out_hi = off_out[g + 1];
    b.in_lo = off_in[g];
    b.in_hi = off_in[g + 1];
}
/* Slot o's inputs ia and, when has_b, ia + 1; the bin moves forward (FWD)
 * or back to o's. */
template <bool FWD>
static __device__ __forceinline__ void ba_slot(ba_bin &b, const uint32_t *__restrict__ off_in,
                                               const uint32_t *__restrict__ off_out, uint32_t o,
                                               uint32_t &ia, bool &has_b) {
    if (FWD) {
        while (o >= b.out_hi) ba_bin_load(b, off_in, off_out, b.g + 1);
    } else {
        while (o < b.out_lo) ba_bin_load(b, off_in, off_out, b.g - 1);
    }
    ia = b.in_lo + 2 * (o - b.out_lo);
    has_b = ia + 1 < b.in_hi;
}

/* Input i's index in its source (the bases at level 0, else the previous
 * level's points); *neg: its y is to be negated (a negative digit). */
template <bool ENTRIES>
static __device__ __forceinline__ uint32_t ba_index(const uint32_t *vals, uint32_t i, bool *neg) {
    if (!ENTRIES) {
        *neg = false;
        return i;
    }
    const uint32_t v = vals[i];
    *neg = (v & SIGN_BIT) != 0;
    return v & ~SIGN_BIT;
}

/* Input i of a level: entry i's base at level 0, else point i of the
 * previous level; *neg as ba_index's. */
template <class F, bool ENTRIES>
static __device__ __forceinline__ const aff_pt<F> *ba_src(const aff_pt<F> *bases,
                                                          const uint32_t *vals,
                                                          const aff_pt<F> *in, uint32_t i,
                                                          bool *neg) {
    return (ENTRIES ? bases : in) + ba_index<ENTRIES>(vals, i, neg);
}

/* A point as loaded or copied, with its digit's sign applied ((0, 0) stays). */
template <class F>
static __device__ __forceinline__ aff_pt<F> ba_arrived(const aff_pt<F> &s, bool neg) {
    aff_pt<F> p = s;
    if (neg) cuzk_gpu::neg(p.y, p.y);
    return p;
}
/* Input i, loaded now (the forward pass's rare cases). */
template <class F, bool ENTRIES>
static __device__ __forceinline__ aff_pt<F> ba_load(const aff_pt<F> *bases, const uint32_t *vals,
                                                    const aff_pt<F> *in, uint32_t i) {
    bool neg;
    const aff_pt<F> *src = ba_src<F, ENTRIES>(bases, vals, in, i, &neg);
    return ba_arrived(ld16(src), neg);
}
/*
 * A forward-pass prefix into its slot's x. A G1 x (48 bytes at the start of
 * a 96-byte point, 32-byte aligned) ends mid-sector, and a sector written in
 * part is completed from DRAM before L2 writes it back (the level's outputs
 * are many times L2: a random read a slot). So the sector is filled: zeros
 * in the first 16 bytes of y, which the slot's result (the backward pass,
 * 96 bytes) overwrites: level 0's forward pass takes a third less time.
 */
template <class F>
static __device__ __forceinline__ void ba_st_prefix(aff_pt<F> *p, const F &acc) {
    st16(&p->x, acc);
    if constexpr (sizeof(F) % 32 != 0) {
        static_assert(sizeof(F) % 32 == 16, "a prefix's last sector is half-filled");
        *reinterpret_cast<uint4 *>(&p->y) = make_uint4(0, 0, 0, 0);
    }
}
/* No input: an index no source reaches (inputs and bases < 2^32 - 1). */
static constexpr uint32_t BA_NONE = 0xffffffffu;

/*
 * The warp's copies of its 32 lanes' inputs into their stages: lane q's a
 * (index ia in src, or BA_NONE: none) into ws[q].a, its b (ib) into ws[q].b,
 * X_ONLY their x coordinates. The lanes copy together, 16 bytes each per
 * access, a point's pieces in adjacent lanes (a point may straddle two
 * accesses): the memory system is bound by the requests it tracks, not by
 * the bytes, and a warp's 32 scattered 16-byte pieces an access (each lane
 * its own points) reach about a third of this rate. Every lane of the warp
 * must call this.
 */
template <class F, bool X_ONLY>
static __device__ __forceinline__ void ba_fetch_warp(ba_stage<F> *ws, unsigned buf,
                                                     const aff_pt<F> *src, uint32_t ia,
                                                     uint32_t ib) {
    constexpr unsigned W = (X_ONLY ? sizeof(F) : sizeof(aff_pt<F>)) / 16; /* pieces per point */
    /* read here, not hoisted: the (q, piece) pairs of every access kept live
     * across the slot loop would cost ~2 W registers (spills in G1's level) */
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
#pragma unroll
    for (unsigned h = 0; h < 2; h++) {
#pragma unroll
        for (unsigned k = 0; k < W; k++) {
            const unsigned w = 32 * k + lane, q = w / W, piece = w % W; /* q: the lane served */
            const uint32_t idx = __shfl_sync(0xffffffffu, h ? ib : ia, q);
            /* X_ONLY: a lane with a lone point (no b) gets that point's y in
             * b's turn, so that its forward pass passes the point on without
             * a load of its own (one lane's load would hold its warp) */
            const uint32_t lone = X_ONLY && h ? __shfl_sync(0xffffffffu, ia, q) : BA_NONE;
            if (idx != BA_NONE)
                cp_async16(reinterpret_cast<uint4 *>(h ? &ws[q].b[buf] : &ws[q].a[buf]) + piece,
                           reinterpret_cast<const uint4 *>(src + idx) + piece);
            else if (lone != BA_NONE)
                cp_async16(reinterpret_cast<uint4 *>(&ws[q].a[buf]) + W + piece,
                           reinterpret_cast<const uint4 *>(src + lone) + W + piece);
        }
    }
}

/* Slot o's inputs queued into the warp's stages (its bin walked to, FWD or
 * back), for the lanes that are active; returns its first input's index,
 * has_b whether the second is in the bin. Every lane of the warp calls it. */
template <class F, bool ENTRIES, bool FWD, bool X_ONLY>
static __device__ __forceinline__ uint32_t
ba_queue_warp(ba_stage<F> *ws, unsigned buf, ba_bin &bin, const uint32_t *__restrict__ off_in,
              const uint32_t *__restrict__ off_out, uint32_t o, bool active,
              const aff_pt<F> *bases, const uint32_t *vals, const aff_pt<F> *in, bool &has_b,
              bool &a_neg, bool &b_neg) {
    uint32_t ia = 0, sa = BA_NONE, sb = BA_NONE;
    has_b = false;
    if (active) {
        ba_slot<FWD>(bin, off_in, off_out, o, ia, has_b);
        /* a lone point was passed on by the forward pass: nothing to copy back */
        if (FWD || has_b) sa = ba_index<ENTRIES>(vals, ia, &a_neg);
        if (has_b) sb = ba_index<ENTRIES>(vals, ia + 1, &b_neg);
    }
    ba_fetch_warp<F, X_ONLY>(ws, buf, ENTRIES ? bases : in, sa, sb);
    return ia;
}

/*
 * The level's field operations. G1's are lazy (ff.cuh's lazy forms: values
 * in [0, 2p), no product pays a final subtraction; the chain's running
 * product, the prefixes and the inverses stay lazy, and a stored
 * coordinate is made canonical once), G2's canonical (its Fp2 products are
 * Karatsuba over canonical calls: ec.cuh for_field). The doubling's 3x^2
 * stays canonical in both (add's bound).
 */
template <class F>
constexpr bool BA_LAZY = sizeof(F) == sizeof(fp_t);
template <class F>
static __device__ __forceinline__ void ba_mul(F &r, const F &a, const F &b) {
    if constexpr (BA_LAZY<F>)
        r = fp_mul_call<true>(a, b);
    else
        fmul(r, a, b);
}
/* Two independent products; G1's in one call with their rows alternating
 * (ff.cuh mul_pair_cios), which the level's few warps per scheduler leave
 * room for. */
template <class F>
static __device__ __forceinline__ void ba_mul2(F &r0, const F &a0, const F &b0, F &r1,
                                               const F &a1, const F &b1) {
    if constexpr (BA_LAZY<F>) {
        const fp_pair q = fp_mul2_lazy_call(a0, b0, a1, b1);
        r0 = q.r0;
        r1 = q.r1;
    } else {
        ba_mul(r0, a0, b0);
        ba_mul(r1, a1, b1);
    }
}
template <class F>
static __device__ __forceinline__ void ba_sqr(F &r, const F &a) {
    if constexpr (BA_LAZY<F>)
        r = fp_sqr_call<true>(a);
    else
        fsqr(r, a);
}
/* r = a + b for canonical a, b: for G1 unreduced (< 2p, a product's operand) */
template <class F>
static __device__ __forceinline__ void ba_add_xs(F &r, const F &a, const F &b) {
    if constexpr (BA_LAZY<F>)
        add_noreduce(r, a, b);
    else
        add(r, a, b);
}
/* r = a - b for canonical a, b as a product's operand: for G1 a + p - b in
 * (0, 2p), with no conditional step */
template <class F>
static __device__ __forceinline__ void ba_diff(F &r, const F &a, const F &b) {
    if constexpr (BA_LAZY<F>)
        sub_plus_m(r, a, b);
    else
        sub(r, a, b);
}
/* d = bx - ax (ba_diff) for a pair's staged x coordinates; true where x
 * alone does not make it a plain addition (either point at infinity, whose
 * x is 0, or equal x) and the points must decide (ba_kind). */
template <class F>
static __device__ __forceinline__ bool ba_x_undecided(F &d, const F &ax, const F &bx) {
    ba_diff(d, bx, ax);
    return is_zero(ax) || is_zero(bx) || fe_equal(ax, bx);
}
/* A staged point's y with its digit's sign applied: for G1 p - y when
 * negated (in [0, p], no zero test), canonical for G2. */
template <class F>
static __device__ __forceinline__ F ba_y(const aff_pt<F> &s, bool neg) {
    F y = ba_lds(s.y);
    if (neg) {
        if constexpr (BA_LAZY<F>)
            neg_lazy(y, y);
        else
            cuzk_gpu::neg(y, y);
    }
    return y;
}
/* r = a - b, both lazy for G1 */
template <class F>
static __device__ __forceinline__ void ba_sub(F &r, const F &a, const F &b) {
    if constexpr (BA_LAZY<F>)
        sub_lazy(r, a, b);
    else
        sub(r, a, b);
}
template <class F>
static __device__ __forceinline__ void ba_canon(F &r) {
    if constexpr (BA_LAZY<F>) reduce_lazy(r, r);
}

/* The pass clock of a level warp (the profile only; clk null otherwise):
 * lane 0 writes the global timer at mark k of BA_CLOCK_MARKS (start,
 * forward pass done, inversion done, backward pass done). */
static constexpr unsigned BA_CLOCK_MARKS = 5; /* the fifth: the warp's SM */
static __device__ __forceinline__ unsigned long long ba_now() {
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    return now;
}
static __device__ __forceinline__ uint32_t ba_smid() {
    uint32_t sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    return sm;
}
static __device__ __forceinline__ void ba_clock(unsigned long long *clk, uint32_t t, unsigned k) {
    if (clk && t % 32 == 0) {
        clk[(size_t)(t / 32) * BA_CLOCK_MARKS + k] = ba_now();
        if (k == 0) clk[(size_t)(t / 32) * BA_CLOCK_MARKS + 4] = ba_smid();
    }
}

/*
 * The run a level block takes when the runs are claimed (ba_level_kernel:
 * runs non-null): the first free one of nruns from its SM's first,
 * sm x per_sm (per_sm: blocks an SM holds), so that a run's key names the
 * same SM from launch to launch and the host can size it by that SM's
 * speed. claim: nruns words, zero before the launch. The grid is nruns
 * blocks and each takes one run, so a block always finds one within nruns
 * tries and every run is taken once, wherever the blocks land.
 */
static __device__ uint32_t ba_claim_run(unsigned long long *claim, uint32_t nruns,
                                        uint32_t per_sm) {
    const uint32_t k0 = (uint32_t)((uint64_t)ba_smid() * per_sm % nruns);
    for (uint32_t i = 0; i < nruns; i++) {
        const uint32_t k = k0 + i < nruns ? k0 + i : k0 + i - nruns;
        if (atomicExch(&claim[k], 1ull) == 0) return k;
    }
    __trap(); /* unreachable: more blocks than runs */
    return 0;
}
/*
 * One level: out[o] for o in [0, total_out). Bins [0, nbins) with offsets
 * off_in (inputs) and off_out (outputs), off_*[nbins] = the totals. Each
 * thread runs one Montgomery chain over up to `slice` slots: warp w takes
 * the run [w 32 slice, (w+1) 32 slice), its lane l the slots l, l + 32, ...
 * of it, so that a warp-wide access to the entries, the offsets, the
 * results (and the inputs of later levels) covers adjacent slots, a few
 * sectors (a contiguous run per thread would touch 32 sectors an access).
 *
 * With runs (non-null: nruns + 1 bounds, runs[nruns] = total_out, nruns
 * the grid's blocks), the runs are a block's, not a warp's: the block
 * claims run k (ba_claim_run on rclk[0, nruns)), and its warps split
 * [runs[k], runs[k + 1]) as above; it records its start and its last
 * warp's end at rclk[nruns + 2k] and [nruns + 2k + 1], from which the host
 * measures the SMs' speeds and sizes the runs of later launches.
 *
 * Both passes queue the next slot's loads (cp.async into the lanes' stages
 * in shared memory) before working on the current one, so that the chain
 * offsets -> entry -> base is in flight during the work, in no registers
 * (loading ahead into registers would cost a third of the warps). The warp
 * copies its lanes' points together
 * (ba_fetch_warp), so the lanes step through their slots in lockstep: a lane
 * with one slot fewer idles through the last step, and in a last run
 * shorter than 32 slots the lanes without one idle through every step. The bin
 * bounds stay in registers. Each pass's stages are double-buffered: slot j's
 * inputs in buffer j % 2 while slot j + 1's (j - 1's going back) are copied
 * into the other, each coordinate read where it is used, so that no point
 * is held in registers across the step's calls: G1's kernel fits 128
 * registers and 16 warps an SM. The forward pass
 * needs only the x coordinates: both nonzero and different is an addition
 * (what ba_kind decides for them); a lone last point of its bin (copied
 * whole) is passed on; anything else (x = 0, equal x) loads the points and
 * asks ba_kind, as the backward pass does.
 */
template <class F, bool ENTRIES>
static __global__ void __launch_bounds__(BA_THREADS<F>, BA_MIN_BLOCKS<F>)
    ba_level_kernel(const aff_pt<F> *__restrict__ bases, const uint32_t *__restrict__ vals,
                    const aff_pt<F> *__restrict__ in, const uint32_t *__restrict__ off_in,
                    const uint32_t *__restrict__ off_out, uint32_t nbins, uint32_t total_out,
                    uint32_t slice, uint32_t nthreads, const uint32_t *__restrict__ runs,
                    uint32_t per_sm, unsigned long long *__restrict__ rclk,
                    aff_pt<F> *__restrict__ out, unsigned long long *__restrict__ clk) {
    extern __shared__ uint4 ba_smem[];
    __shared__ uint32_t run_key; /* with runs: the block's */
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x % 32;
    /* this warp's slots [wb, we); total_out <= (entries + bins) / 2 with
     * entries < 2^32 (msm_dev_body), so no slot index wraps */
    uint64_t wb, we;
    if (runs) {
        if (threadIdx.x == 0) {
            run_key = ba_claim_run(rclk, gridDim.x, per_sm);
            rclk[gridDim.x + 2 * run_key] = ba_now();
        }
        __syncthreads();
        const uint32_t rb = runs[run_key], re = runs[run_key + 1];
        const uint64_t per = ((uint64_t)(re - rb) + blockDim.x - 1) / blockDim.x; /* a lane's */
        wb = rb + (uint64_t)(threadIdx.x / 32) * 32 * per;
        we = wb + 32 * per < re ? wb + 32 * per : re;
    } else {
        if (t >= nthreads) return; /* whole warps: nthreads is a multiple of 32 */
        wb = (uint64_t)(t / 32) * 32 * slice;
        we = wb + 32ull * slice < total_out ? wb + 32ull * slice : total_out;
    }
    if (wb >= we) return; /* the whole warp: no slot (defensive: the launch sizes nthreads) */
    ba_stage<F> *ws = reinterpret_cast<ba_stage<F> *>(ba_smem) + (threadIdx.x - lane);
    ba_stage<F> &sl = ws[lane];
    /* this lane's slots: o0 + 32 j for j < cnt */
    const uint64_t first = wb + lane;
    const uint32_t o0 = (uint32_t)first;
    const uint32_t cnt = first < we ? (uint32_t)((we - 1 - first) / 32 + 1) : 0;
    const uint32_t steps = __shfl_sync(0xffffffffu, cnt, 0); /* lane 0's: the most */
    ba_clock(clk, t, 0);
    /* the bin of o0: the last g with off_out[g] <= o0 (off_out[nbins] > o0) */
    ba_bin bin = {0, 0, 0, 0, 0};
    if (cnt) ba_bin_load(bin, off_in, off_out, bin_of(off_out, 0, nbins, o0));
    F acc;
    set_one(acc);
    bool nhb, na_neg = false, nb_neg = false;
    uint32_t nia = ba_queue_warp<F, ENTRIES, true, true>(ws, 0, bin, off_in, off_out, o0, cnt > 0,
                                                         bases, vals, in, nhb, na_neg, nb_neg);
    cp_async_commit();
    for (uint32_t j = 0; j < steps; j++) {
        const uint32_t o = o0 + 32 * j, ia = nia;
        const bool has_b = nhb, a_neg = na_neg;
        cp_async_wait_all();
        /* every lane's copies into buffer j % 2 have landed, and every lane
         * has finished with the other buffer (the step before) */
        __syncwarp();
        if (j + 1 < steps) { /* the next slot's loads, in flight during this slot's work */
            nia = ba_queue_warp<F, ENTRIES, true, true>(ws, (j + 1) & 1, bin, off_in, off_out,
                                                        o + 32, j + 1 < cnt, bases, vals, in, nhb,
                                                        na_neg, nb_neg);
            cp_async_commit();
        }
        if (j >= cnt) continue;
        const aff_pt<F> &sa = sl.a[j & 1];
        if (!has_b) { /* a lone point, copied whole: passed on (infinity too) */
            st16(out + o, ba_arrived(ba_lds(sa), a_neg));
            continue;
        }
        F d;
        int kind = BA_ADD;
        aff_pt<F> a, b;
        if (ba_x_undecided(d, ba_lds(sa.x), ba_lds(sl.b[j & 1].x))) { /* rare */
            a = ba_load<F, ENTRIES>(bases, vals, in, ia);
            b = ba_load<F, ENTRIES>(bases, vals, in, ia + 1);
            kind = ba_kind(a, b, true, d);
        }
        if (kind >= BA_ADD) {
            ba_st_prefix(out + o, acc); /* the product of the denominators before this one */
            ba_mul(acc, acc, d);
        } else {
            aff_pt<F> r = kind == BA_A ? a : b;
            if (kind == BA_INF) {
                set_zero(r.x);
                set_zero(r.y);
            }
            st16(out + o, r);
        }
    }
    ba_clock(clk, t, 1);
    ba_canon(acc); /* inv's products are canonical */
    finv(acc, acc); /* 1 / (product of all denominators); nonzero: no factor is 0 */
    ba_clock(clk, t, 2);
    /* backward from the last step; the bin is the lane's last slot's, and the
     * prefixes were written by this lane (above) */
    uint32_t j = steps - 1;
    ba_queue_warp<F, ENTRIES, false, false>(ws, j & 1, bin, off_in, off_out, o0 + 32 * j, j < cnt,
                                            bases, vals, in, nhb, na_neg, nb_neg);
    if (j < cnt) cp_async(&sl.pre, &out[o0 + 32 * j].x);
    cp_async_commit();
    for (;; j--) {
        const uint32_t o = o0 + 32 * j;
        const bool has_b = nhb, a_neg = na_neg, b_neg = nb_neg;
        cp_async_wait_all();
        __syncwarp(); /* as in the forward pass */
        const F pre = sl.pre;
        if (j > 0) { /* the previous slot's loads, into the other buffer */
            ba_queue_warp<F, ENTRIES, false, false>(ws, (j - 1) & 1, bin, off_in, off_out, o - 32,
                                                    j - 1 < cnt, bases, vals, in, nhb, na_neg,
                                                    nb_neg);
            /* per lane: the prefixes are adjacent slots, not scattered */
            if (j - 1 < cnt) cp_async(&sl.pre, &out[o - 32].x);
            cp_async_commit();
        }
        if (j < cnt && has_b) { /* a lone point was written in the forward pass */
            const aff_pt<F> &sa = sl.a[j & 1], &sb = sl.b[j & 1];
            F d;
            int kind = BA_ADD;
            if (ba_x_undecided(d, ba_lds(sa.x), ba_lds(sb.x))) /* as forward */
                kind = ba_kind(ba_arrived(ba_lds(sa), a_neg), ba_arrived(ba_lds(sb), b_neg), true,
                               d);
            if (kind >= BA_ADD) { /* the others were written in the forward pass */
                F id, num, l, t2;
                /* 1 / d, and 1 / (the product of the denominators before) */
                ba_mul2(id, acc, pre, acc, acc, d);
                if (kind == BA_ADD) {
                    ba_diff(num, ba_y(sb, b_neg), ba_y(sa, a_neg));
                } else {
                    fsqr(t2, ba_lds(sa.x));
                    add(num, t2, t2);
                    add(num, num, t2);
                }
                ba_mul(l, num, id);
                aff_pt<F> r;
                ba_add_xs(t2, ba_lds(sa.x), ba_lds(sb.x)); /* beside the squaring */
                ba_sqr(r.x, l);
                ba_sub(r.x, r.x, t2);
                ba_canon(r.x);
                ba_diff(t2, ba_lds(sa.x), r.x);
                ba_mul(r.y, l, t2);
                ba_sub(r.y, r.y, ba_y(sa, a_neg));
                ba_canon(r.y);
                st16(out + o, r);
            }
        }
        if (j == 0) break;
    }
    ba_clock(clk, t, 3);
    if (runs && lane == 0) atomicMax(&rclk[gridDim.x + 2 * run_key + 1], ba_now());
}

/* Dynamic shared memory of a level block of `threads`: one ba_stage per thread. */
template <class F>
static constexpr size_t ba_smem_bytes(unsigned threads) {
    return (size_t)threads * sizeof(ba_stage<F>);
}

/* cnt[g] = ceil(k/2) for the k = off_in[g+1] - off_in[g] points of bin g. */
static __global__ void ba_count_kernel(const uint32_t *off_in, uint32_t nbins, uint32_t *cnt) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nbins) cnt[i] = (off_in[i + 1] - off_in[i] + 1) / 2;
}

/* off[i] = start[i] - e0 for i < m: a group's bin starts relative to its first entry. */
static __global__ void ba_rel_kernel(const uint32_t *start, uint32_t m, uint32_t e0, uint32_t *off) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) off[i] = start[i] - e0;
}

/* v[i] = i: the points of the last level read by the XYZZ accumulation. */
static __global__ void ba_iota_kernel(uint32_t *v, uint32_t m) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) v[i] = i;
}

static int u64_asc(const void *x, const void *y) {
    const uint64_t a = *static_cast<const uint64_t *>(x), b = *static_cast<const uint64_t *>(y);
    return a < b ? -1 : a > b;
}
/* The q-th percentile in ms of v[0, n) (n > 0), sorted, in ns. */
static double pct_ms(const uint64_t *v, uint32_t n, unsigned q) {
    return v[(size_t)(n - 1) * q / 100] / 1e6;
}
/* Two lines on stderr for a level launch timed by its warps' pass clocks
 * (ba_clock; a warp with no slot left its marks 0): the launch's span, the
 * median and the longest forward pass, inversion and backward pass of a
 * warp; then the warps' ends and each SM's last end, from the launch's
 * first start, at percentiles 0, 10, 50, 90 and 100 (where the span goes:
 * the warps of a slow SM or the last warps of each). Waits for the launch. */
static cuzk_status ba_clock_report(const unsigned long long *clk, uint32_t nwarps, unsigned lev,
                                   uint32_t slots) {
    const unsigned sms = 1024; /* above any GPU's %nsmid (SM ids may have gaps) */
    const size_t marks = (size_t)nwarps * BA_CLOCK_MARKS;
    /* the marks, then the three passes' times, the ends, and the SMs' ends */
    uint64_t *h = static_cast<uint64_t *>(malloc((marks + 4 * (size_t)nwarps + sms) * sizeof *h));
    if (!h) return CUZK_ERR_NOMEM;
    uint64_t *pass = h + marks, *end = pass + 3 * (size_t)nwarps, *sm_end = end + nwarps;
    const cudaError_t e = d2h(h, clk, marks * sizeof *h);
    if (e != cudaSuccess) {
        free(h);
        cuzk__gpu_record_error(e, "level pass clocks", __FILE__, __LINE__);
        return CUZK_ERR_GPU;
    }
    uint32_t m = 0;
    uint64_t first = UINT64_MAX;
    for (uint32_t w = 0; w < nwarps; w++)
        if (h[(size_t)w * BA_CLOCK_MARKS] != 0 && h[(size_t)w * BA_CLOCK_MARKS] < first)
            first = h[(size_t)w * BA_CLOCK_MARKS];
    memset(sm_end, 0, sms * sizeof *sm_end);
    for (uint32_t w = 0; w < nwarps; w++) {
        const uint64_t *k = h + (size_t)w * BA_CLOCK_MARKS;
        if (k[0] == 0) continue;
        for (unsigned q = 0; q < 3; q++) pass[(size_t)q * nwarps + m] = k[q + 1] - k[q];
        end[m] = k[3] - first;
        if (k[4] < sms && end[m] > sm_end[k[4]]) sm_end[k[4]] = end[m];
        m++;
    }
    uint32_t used = 0; /* the SMs that ran a warp */
    for (unsigned i = 0; i < sms; i++)
        if (sm_end[i] != 0) sm_end[used++] = sm_end[i];
    for (unsigned q = 0; q < 3; q++) qsort(pass + (size_t)q * nwarps, m, sizeof *h, u64_asc);
    qsort(end, m, sizeof *h, u64_asc);
    qsort(sm_end, used, sizeof *h, u64_asc);
    if (m > 0) {
        double med[3], top[3];
        for (unsigned q = 0; q < 3; q++) {
            med[q] = pct_ms(pass + (size_t)q * nwarps, m, 50);
            top[q] = pct_ms(pass + (size_t)q * nwarps, m, 100);
        }
        fprintf(stderr,
                "msm level %u: %u slots, %u warps, span %.2f ms; per warp, median (longest): "
                "forward %.2f (%.2f), inversion %.3f (%.3f), backward %.2f (%.2f) ms\n",
                lev, slots, m, pct_ms(end, m, 100), med[0], top[0],
                med[1], top[1], med[2], top[2]);
        fprintf(stderr, "  warp ends %.2f %.2f %.2f %.2f %.2f", pct_ms(end, m, 0),
                pct_ms(end, m, 10), pct_ms(end, m, 50), pct_ms(end, m, 90), pct_ms(end, m, 100));
        if (used > 0)
            fprintf(stderr, "; SM ends (%u SMs) %.2f %.2f %.2f %.2f %.2f", used,
                    pct_ms(sm_end, used, 0), pct_ms(sm_end, used, 10), pct_ms(sm_end, used, 50),
                    pct_ms(sm_end, used, 90), pct_ms(sm_end, used, 100));
        fprintf(stderr, " ms (percentiles 0 10 50 90 100)\n");
    }
    free(h);
    return CUZK_OK;
}

/* A handle's speeds at level lev. */
static float *ba_speed_row(cuzk__gpu_msm_bases *b, unsigned lev) {
    const unsigned row = lev < BA_SPEED_LEVELS ? lev : BA_SPEED_LEVELS - 1;
    return b->ba_speed + (size_t)row * b->ba_nruns;
}

/*
 * Steps 4-5 (the batch-affine block above): per group of p.ba_gw bucket
 * sets, affine levels over the group's entries while a level has enough
 * pairs, then the XYZZ accumulation and combine levels (msm_xyzz.cu) over
 * what is left, into the group's buckets. verbose:
 * one line per group on stderr (with the profile); clk (with it, or null):
 * room for the level warps' pass clocks, two lines per level launch.
 */
template <class F>
static cuzk_status ba_accumulate_levels(cuzk__gpu_msm_bases *b, const msm_plan &p,
                                        const msm_area &a, const uint32_t *vals, bool verbose,
                                        unsigned long long *clk) {
    typedef aff_pt<F> A;
    xyzz_pt<F> *const buckets = static_cast<xyzz_pt<F> *>(a.buckets);
    const A *bases = static_cast<const A *>(b->bases);
    A *pta = reinterpret_cast<A *>(a.ba_pta), *ptb = reinterpret_cast<A *>(a.ba_ptb);
    /* ew[j] = start[j nb], the first entry of set j; ew[nset] = total */
    uint32_t ew[257];
    CUZK__CUDA_TRY(cudaStreamSynchronize(0)); /* the wait outside the copy: cuzk__sync_copy */
    CUZK__CUDA_TRY(cudaMemcpy2D(ew, sizeof(uint32_t), a.start, (size_t)p.nb * sizeof(uint32_t),
                                sizeof(uint32_t), p.nset + 1, cudaMemcpyDeviceToHost));
    const uint64_t res = p.ba_resident;
    /* claimed runs: k blocks a launch, whose clocks measure the SMs' speeds */
    const uint32_t k = p.ba_nruns;
    const unsigned per_sm = b->ba_blocks > 0 ? (unsigned)b->ba_blocks : 1;
    /* the level whose launch's clocks are still to be read (after the next
     * synchronizing copy: reading them at once would idle the device while
     * the host queues the next level's counts) */
    int unread = -1;
    auto learn = [&]() -> cuzk_status {
        if (unread < 0) return CUZK_OK;
        const cudaError_t e =
            d2h(b->ba_hclk, a.ba_rclk + k, 2 * (size_t)k * sizeof *b->ba_hclk);
        if (e != cudaSuccess) {
            cuzk__gpu_record_error(e, "level run clocks", __FILE__, __LINE__);
            return CUZK_ERR_GPU;
        }
        cuzk__level_speed_learn(ba_speed_row(b, (unsigned)unread), b->ba_hruns, b->ba_hclk, k);
        unread = -1;
        return CUZK_OK;
    };
    const uint64_t min_pairs =
        b->cfg.ba_min_pairs ? b->cfg.ba_min_pairs : res * BA_MIN_BATCH;
    /* no level block fits the device (msm_impl.cuh BA_THREADS): XYZZ alone */
    const unsigned bt = p.ba_threads;
    for (unsigned j0 = 0; j0 < p.nset; j0 += p.ba_gw) {
        const unsigned j1 = j0 + p.ba_gw < p.nset ? j0 + p.ba_gw : p.nset;
        const uint32_t b0 = j0 * p.nb, nbg = (j1 - j0) * p.nb, e0 = ew[j0], eg = ew[j1] - e0;
        if (eg == 0) continue;
        /* level 0 reads the group's entries: offsets relative to its first one */
        ba_rel_kernel<<<grid((size_t)nbg + 1, LIGHT_THREADS), LIGHT_THREADS>>>(a.start + b0,
                                                                             nbg + 1, e0, a.ba_offa);
        CUZK__CUDA_TRY(cudaGetLastError());
        uint32_t *oin = a.ba_offa, *oout = a.ba_offb;
        const A *pin = nullptr;
        A *pout = pta;
        uint32_t tin = eg; /* points at the current level */
        unsigned lev = 0;
        while (bt != 0 && (b->cfg.ba_max_levels == 0 || lev < b->cfg.ba_max_levels)) {
            /* the next level's offsets: scan of ceil(k/2) */
            ba_count_kernel<<<grid(nbg, LIGHT_THREADS), LIGHT_THREADS>>>(oin, nbg, a.ba_cnt);
            CUZK__CUDA_TRY(cudaGetLastError());
            cuzk_status st = cuzk__gpu_msm_excl_scan(a.ba_cnt, nbg, a.tsum, oout, oout);
            if (st != CUZK_OK) return st;
            uint32_t tout = 0;
            CUZK__CUDA_TRY(d2h(&tout, oout + nbg, sizeof tout));
            st = learn(); /* the last launch is done: the copy waited for it */
            if (st != CUZK_OK) return st;
            const uint32_t pairs = tin - tout;
            if (pairs == 0 || pairs < min_pairs) break;
            if (tout > (pout == pta ? p.ba_acap : p.ba_bcap)) return area_too_small();
            /* whole warps, a run of 32 slice slots each */
            const uint64_t warps = res / 32 ? res / 32 : 1;
            uint32_t slice = (uint32_t)((tout + 32 * warps - 1) / (32 * warps));
            if (slice == 0) slice = 1;
            uint32_t nt = (uint32_t)((tout + 32ull * slice - 1) / (32ull * slice) * 32);
            const uint32_t *runs = nullptr;
            if (k) { /* every block, each claiming a run */
                /* the last launch is done (the count's copy waited): the
                 * runs it read may be planned over */
                cuzk__level_runs_plan(b->ba_hruns, ba_speed_row(b, lev), k, tout);
                CUZK__CUDA_TRY(cudaMemsetAsync(a.ba_rclk, 0, 3 * (size_t)k * sizeof *a.ba_rclk));
                runs = b->ba_druns;
                nt = k * bt;
            }
            const size_t sm = ba_smem_bytes<F>(bt);
            const dim3 gr = grid(nt, bt);
            if (clk)
                CUZK__CUDA_TRY(cudaMemsetAsync(clk, 0, (size_t)nt / 32 * BA_CLOCK_MARKS *
                                                           sizeof *clk));
            if (lev == 0)
                ba_level_kernel<F, true><<<gr, bt, sm>>>(
                    bases, vals + e0, nullptr, oin, oout, nbg, tout, slice, nt, runs, per_sm,
                    a.ba_rclk, pout, clk);
            else
                ba_level_kernel<F, false><<<gr, bt, sm>>>(
                    nullptr, nullptr, pin, oin, oout, nbg, tout, slice, nt, runs, per_sm,
                    a.ba_rclk, pout, clk);
            CUZK__CUDA_TRY(cudaGetLastError());
            if (k) unread = (int)lev;
            if (clk) {
                cuzk_status cs = ba_clock_report(clk, nt / 32, lev, tout);
                if (cs != CUZK_OK) return cs;
            }
            pin = pout;
            pout = pout == pta ? ptb : pta;
            uint32_t *ot = oin;
            oin = oout, oout = ot;
            tin = tout;
            lev++;
        }
        cuzk_status lst = learn(); /* a launch the level cap ended the loop after */
        if (lst != CUZK_OK) return lst;
        /* what is left: oin offsets over tin points (the entries when lev = 0) */
        const A *src = bases;
        const uint32_t *sv = vals + e0;
        if (lev > 0) {
            ba_iota_kernel<<<grid(tin, LIGHT_THREADS), LIGHT_THREADS>>>(a.ba_idv, tin);
            CUZK__CUDA_TRY(cudaGetLastError());
            src = pin;
            sv = a.ba_idv;
        }
        cuzk_status ast = cuzk__gpu_msm_accumulate(p.group, src, sv, oin, nbg, tin, p.resident,
                                                   buckets + b0, a.ka, a.pa, a.kb, a.pb);
        if (ast != CUZK_OK) return ast;
        if (verbose)
            fprintf(stderr,
                    "msm batch-affine sets [%u, %u): %u entries, %u affine levels, %u points "
                    "left for XYZZ (%llu resident threads, min pairs %llu)\n",
                    j0, j1, eg, lev, tin, (unsigned long long)res,
                    (unsigned long long)min_pairs);
    }
    return CUZK_OK;
}
extern "C" cuzk_status cuzk__gpu_msm_levels(cuzk__gpu_msm_bases *b, const msm_plan *pp,
                                            const msm_area *ap, const uint32_t *vals,
                                            bool verbose) {
    const msm_plan &p = *pp;
    const msm_area &a = *ap;
    /* the pass clocks: a warp's marks for each warp a level launches
     * (no more than the resident threads' warps); without the memory, the
     * profile goes without them */
    unsigned long long *clk = nullptr;
    const uint64_t warps = p.ba_resident / 32 ? p.ba_resident / 32 : 1;
    if (verbose && cudaMalloc(&clk, warps * BA_CLOCK_MARKS * sizeof *clk) != cudaSuccess) {
        (void)cudaGetLastError();
        clk = nullptr;
    }
    const cuzk_status st = p.group == CUZK__GPU_MSM_G1
                               ? ba_accumulate_levels<fp_t>(b, p, a, vals, verbose, clk)
                               : ba_accumulate_levels<fp2_t>(b, p, a, vals, verbose, clk);
    if (clk) (void)cudaFree(clk);
    return st;
}

/* Threads of a level block whose stages fit `bytes` of shared memory besides
 * the kernels' static `stat`: whole warps, at most BA_THREADS. */
template <class F>
static unsigned ba_fit_threads(size_t bytes, size_t stat) {
    const size_t warp = 32 * sizeof(ba_stage<F>);
    const size_t warps = bytes > stat ? (bytes - stat) / warp : 0;
    return warps * 32 < BA_THREADS<F> ? (unsigned)(warps * 32) : BA_THREADS<F>;
}

template <class F>
static cudaError_t level_shape(size_t limit, unsigned *threads, int *blocks) {
    *threads = 0;
    *blocks = 0;
    const void *lk[2] = {(const void *)ba_level_kernel<F, true>,
                         (const void *)ba_level_kernel<F, false>};
    int dev = 0, optin = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    size_t stat = 0; /* the kernels' static shared memory (the run key) */
    for (int k = 0; k < 2 && e == cudaSuccess; k++) {
        cudaFuncAttributes fa;
        e = cudaFuncGetAttributes(&fa, lk[k]);
        if (e == cudaSuccess && fa.sharedSizeBytes > stat) stat = fa.sharedSizeBytes;
    }
    if (e != cudaSuccess) return e;
    const size_t dev_bytes = optin > 0 ? (size_t)optin : 0;
    /* the attribute is set for the device's own block, the largest any
     * handle launches, so that a handle shaped under a lower limit never
     * lowers it beneath another handle's launches */
    const unsigned full = ba_fit_threads<F>(dev_bytes, stat);
    const unsigned t = ba_fit_threads<F>(limit != 0 && limit < dev_bytes ? limit : dev_bytes, stat);
    if (t == 0) return cudaSuccess; /* not one warp's stages fit: no levels */
    int bmin = 0;
    for (int k = 0; k < 2; k++) {
        int bk = 0;
        e = cudaFuncSetAttribute(lk[k], cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)ba_smem_bytes<F>(full));
        if (e == cudaSuccess) /* the blocks' stages take most of an SM's shared memory */
            e = cudaFuncSetAttribute(lk[k], cudaFuncAttributePreferredSharedMemoryCarveout,
                                     cudaSharedmemCarveoutMaxShared);
        if (e == cudaErrorInvalidValue) { /* the device refuses the size: no levels */
            (void)cudaGetLastError();
            return cudaSuccess;
        }
        if (e == cudaSuccess)
            e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bk, lk[k], (int)t,
                                                              ba_smem_bytes<F>(t));
        if (e != cudaSuccess) return e;
        if (k == 0 || bk < bmin) bmin = bk;
    }
    if (bmin <= 0) return cudaSuccess; /* no block can be resident: no levels */
    *threads = t;
    *blocks = bmin;
    return cudaSuccess;
}

extern "C" cudaError_t cuzk__gpu_msm_levels_shape(cuzk__gpu_msm_group g, size_t limit,
                                                  unsigned *threads, int *blocks) {
    return g == CUZK__GPU_MSM_G1 ? level_shape<fp_t>(limit, threads, blocks)
                                 : level_shape<fp2_t>(limit, threads, blocks);
}

/* The claimed runs' host tables, every SM's speed 1 at first: the clocks
 * and the speeds in one allocation, the runs in page-locked memory that the
 * level kernels read in place. A copy of them would be an upload, and an
 * upload waits behind the chunks a streamed MSM sends on its copy stream
 * (gpu_msm_stream.h): the batch-add would then run after the next chunk's
 * copy instead of beside it. Without the memory the handle runs even runs
 * (ba_nruns = 0). */
extern "C" void cuzk__gpu_msm_level_speeds_new(cuzk__gpu_msm_bases *b) {
    const size_t k = (size_t)b->sms * (size_t)(b->ba_blocks > 0 ? b->ba_blocks : 1);
    b->ba_nruns = 0;
    b->ba_speed = nullptr;
    if (b->ba_threads == 0 || k == 0 || k > BA_MAX_RUNS) return; /* no levels: no runs */
    const size_t speeds = BA_SPEED_LEVELS * k;
    unsigned long long *m =
        static_cast<unsigned long long *>(malloc(2 * k * sizeof *m + speeds * sizeof(float)));
    void *runs = nullptr, *druns = nullptr;
    if (m == nullptr || cudaHostAlloc(&runs, (k + 1) * sizeof(uint32_t), cudaHostAllocMapped) !=
                            cudaSuccess ||
        cudaHostGetDevicePointer(&druns, runs, 0) != cudaSuccess) {
        (void)cudaGetLastError(); /* a refusal leaves even runs, not a sticky error */
        if (runs != nullptr) (void)cudaFreeHost(runs);
        free(m);
        return;
    }
    b->ba_hclk = m;
    b->ba_speed = reinterpret_cast<float *>(m + 2 * k);
    for (size_t i = 0; i < speeds; i++) b->ba_speed[i] = 1.0f;
    b->ba_hruns = static_cast<uint32_t *>(runs);
    b->ba_druns = static_cast<const uint32_t *>(druns);
    b->ba_nruns = (uint32_t)k;
}

extern "C" void cuzk__gpu_msm_level_speeds_free(cuzk__gpu_msm_bases *b) {
    free(b->ba_hclk);
    if (b->ba_hruns != nullptr) (void)cudaFreeHost(b->ba_hruns);
    b->ba_hclk = nullptr;
    b->ba_speed = nullptr;
    b->ba_hruns = nullptr;
    b->ba_druns = nullptr;
    b->ba_nruns = 0;
}

