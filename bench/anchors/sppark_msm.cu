// sppark_msm.cu — supranational/sppark's BLS12-381 G1 MSM, timed like ours.
//
// Our own harness around sppark's headers (msm/pippenger.cuh, ec/, ff/), which
// come from a checkout given at build time: scripts/bench-sppark.sh builds it
// (doc/bench.md, "The sppark anchor"). Nothing from sppark is in this tree.
//
//   sppark_msm [--log K]... [--reps R]
//
//   --log K   one size, 2^K points (repeatable, 12..30; default 24, 26, 27)
//   --reps R  timed runs per size and scalar placement (default 5)
//
// Per size: N bases are uploaded once with sppark's msm_t constructor, which
// keeps them on the device; then after one warm-up of each placement, R timed
// runs alternate between the two placements of the scalars:
//
//   device  the scalars already in device memory, handed to msm_t::invoke as a
//           dev_ptr_t: sppark's breakdown kernel reads them where they lie, no
//           copy (invoke's own HtoD runs only for a host pointer);
//   host    the scalars in pageable host memory (plain malloc): invoke uploads
//           them itself, one stride at a time, inside the timed call.
//
// Each run is timed on the host clock around invoke() and a device
// synchronize; invoke returns after its own host-side window combination, so
// a time is the whole MSM as a caller sees it.
//
// Checks (any failure prints an error and exits 1):
//   - at 2^12 first, with random scalars plus 0, 1 and r-1: both placements
//     against a naive MSM on the host, with sppark's host point types;
//   - at every size: the two placements' results equal each other, and equal
//     k*G for the k that the bases' construction gives (below), on every run.
// A size is skipped, with a line saying why, when the device or the host lacks
// the memory for it.
//
// Bases: P_j = (j+1)*G for j < 2^16 (a chain P_{j+1} = P_j + G, each point
// normalized to affine), tiled to N: base i is P_{i mod 2^16}. The MSM's cost
// does not depend on the bases being distinct (every bucket addition is a
// general addition of a random-looking point), and the tiling gives the exact
// answer cheaply: sum_i s_i*P_{i mod 2^16} = k*G with
// k = sum_j (j+1) * (sum_{i = j mod 2^16} s_i) mod r.
//
// Scalars: uniform below r from a fixed-seed generator, in canonical (not
// Montgomery) form, little-endian 64-bit limbs, passed with mont = false.

#include <cuda.h>
#include <cuda_runtime.h>

#include <ff/bls12-381.hpp>
#include <ec/jacobian_t.hpp>
#include <ec/xyzz_t.hpp>

typedef jacobian_t<fp_t> point_t;
typedef xyzz_t<fp_t> bucket_t;
typedef bucket_t::affine_t affine_t;
typedef fr_t scalar_t;

#include <msm/pippenger.cuh>

#ifndef __CUDA_ARCH__

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

const int CHAIN_LOG = 16;                 // distinct bases: 2^16
const size_t CHAIN = (size_t)1 << CHAIN_LOG;
const int CHECK_LOG = 12;                 // the size checked naively on the host

// r, little-endian 64-bit limbs
const uint64_t R_LIMBS[4] = {
    0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
    0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL
};

[[noreturn]] void fail(const char* what)
{
    std::fprintf(stderr, "sppark_msm: error: %s\n", what);
    std::exit(1);
}

void cuda_check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess) {
        std::fprintf(stderr, "sppark_msm: CUDA error: %s: %s\n", what,
                     cudaGetErrorString(e));
        std::exit(1);
    }
}

// splitmix64: fixed-seed, fast, good enough for benchmark inputs
struct rng_t {
    uint64_t s;
    explicit rng_t(uint64_t seed) : s(seed) {}
    uint64_t next()
    {
        uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
};

bool below_r(const uint64_t v[4])
{
    for (int i = 3; i >= 0; i--)
        if (v[i] != R_LIMBS[i])
            return v[i] < R_LIMBS[i];
    return false;
}

void set_limbs(scalar_t& s, const uint64_t v[4])
{
    static_assert(sizeof(scalar_t) == 32, "fr_t is four 64-bit limbs");
    std::memcpy(&s, v, 32);
}

// uniform below r: 255 random bits, rejected when >= r (about 1 in 11)
void random_scalars(scalar_t* out, size_t n, uint64_t seed)
{
    rng_t g(seed);
    for (size_t i = 0; i < n; i++) {
        uint64_t v[4];
        do {
            for (int j = 0; j < 4; j++) v[j] = g.next();
            v[3] >>= 1;
        } while (!below_r(v));
        set_limbs(out[i], v);
    }
}

// canonical scalar -> Montgomery fr_t (host), and back
scalar_t to_mont(const scalar_t& canon)
{
    scalar_t m = canon;
    m.to();
    return m;
}

bool bit_of(const scalar_t& canon, unsigned b)
{
    uint64_t v[4];
    std::memcpy(v, &canon, 32);
    return (v[b / 64] >> (b % 64)) & 1;
}

point_t mul_g(const affine_t& G, const scalar_t& canon_k)
{
    point_t acc;
    acc.inf();
    for (int b = 254; b >= 0; b--) {
        acc.dbl();
        if (bit_of(canon_k, (unsigned)b))
            acc.add(G);
    }
    return acc;
}

affine_t generator()
{
    const fp_t x("0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905"
                 "a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    const fp_t y("0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af6"
                 "00db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
    // y^2 = x^3 + 4: catches a broken host field (e.g. a mismatched blst)
    fp_t lhs = y * y, rhs = x * x * x + fp_t(4);
    if (lhs != rhs)
        fail("host field arithmetic: G1's generator is not on the curve");
    return affine_t(x, y);
}

// P_j = (j+1)*G, j < 2^16, affine
std::vector<affine_t> base_chain(const affine_t& G)
{
    std::vector<affine_t> chain(CHAIN);
    point_t p = G;
    for (size_t j = 0; j < CHAIN; j++) {
        chain[j] = (affine_t)p;
        p.add(G);
    }
    // spot checks: the chain's last point and a middle one by double-and-add
    uint64_t k[4] = {CHAIN, 0, 0, 0};
    scalar_t ks;
    set_limbs(ks, k);
    if (point_t(chain[CHAIN - 1]) != mul_g(G, ks))
        fail("host base chain: P_(2^16-1) != 2^16 * G");
    k[0] = 12345;
    set_limbs(ks, k);
    if (point_t(chain[12344]) != mul_g(G, ks))
        fail("host base chain: P_12344 != 12345 * G");
    return chain;
}

// k = sum_j (j+1) * T_j mod r, T_j = sum of the scalars at i = j mod 2^16
scalar_t closed_form_k(const scalar_t* s, size_t n)
{
    std::vector<scalar_t> t(CHAIN);
    const uint64_t zero[4] = {0, 0, 0, 0};
    for (auto& x : t) set_limbs(x, zero);
    // additions mod r do not care whether the values are canonical or
    // Montgomery: T_j stays canonical
    for (size_t i = 0; i < n; i++)
        t[i & (CHAIN - 1)] += s[i];
    scalar_t k;
    set_limbs(k, zero);                       // Montgomery 0
    for (size_t j = 0; j < CHAIN; j++)
        k += to_mont(t[j]) * scalar_t((uint64_t)(j + 1));
    k.from();
    return k;
}

// sum_i s_i * B_i on the host, bit by bit: acc = 2*acc + sum of the bases
// whose scalar has that bit set
point_t naive_msm(const affine_t* bases, const scalar_t* s, size_t n)
{
    point_t acc;
    acc.inf();
    for (int b = 254; b >= 0; b--) {
        acc.dbl();
        for (size_t i = 0; i < n; i++)
            if (bit_of(s[i], (unsigned)b))
                acc.add(bases[i]);
    }
    return acc;
}

size_t host_mem_available()
{
    FILE* f = std::fopen("/proc/meminfo", "r");
    if (!f) return SIZE_MAX;
    char line[256];
    size_t kb = SIZE_MAX;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "MemAvailable: %zu kB", &kb) == 1)
            break;
    std::fclose(f);
    return kb == SIZE_MAX ? SIZE_MAX : kb * 1024;
}

double gib(size_t b) { return (double)b / (1024.0 * 1024.0 * 1024.0); }

struct row_t {
    int log;
    const char* mode;
    double median, min, max;
};

double median_of(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef msm_t<bucket_t, point_t, affine_t, scalar_t> msm_g1_t;

enum { RUN_OK, RUN_OOM };

// one MSM; returns RUN_OOM on an allocation failure, exits on other errors
int run_once(msm_g1_t& msm, size_t n, const scalar_t* d_scalars,
             const scalar_t* h_scalars, point_t& out, double& ms)
{
    cuda_check(cudaDeviceSynchronize(), "synchronize before the MSM");
    auto t0 = std::chrono::steady_clock::now();
    RustError err;
    if (d_scalars) {
        // a device pointer: invoke() takes the dev_ptr_t overload, which
        // reads the scalars in place (no copy); the bases are the resident
        // ones (points == nullptr)
        dev_ptr_t<scalar_t> dp{const_cast<scalar_t*>(d_scalars)}; // not owned
        err = msm.invoke(out, (const affine_t*)nullptr, n, dp, false);
    } else {
        err = msm.invoke(out, (const affine_t*)nullptr, n, h_scalars, false);
    }
    cudaError_t sync = cudaDeviceSynchronize();
    auto t1 = std::chrono::steady_clock::now();
    ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    if (err.code != 0) {
        // sppark returns the negated cudaError_t
        int code = -err.code;
        std::fprintf(stderr, "sppark_msm: msm_t::invoke failed: %s (%s)\n",
                     err.message ? err.message : "",
                     cudaGetErrorString((cudaError_t)code));
        std::free(err.message);
        if (code == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            return RUN_OOM;
        }
        std::exit(1);
    }
    cuda_check(sync, "synchronize after the MSM");
    cuda_check(cudaGetLastError(), "after the MSM");
    return RUN_OK;
}

// Upper bound of sppark's device memory at N points with device scalars:
// bases 96 B, our scalars 32 B, invoke's temporaries (scalar staging,
// sort space and digits, at most 32 + 16*4 B a point, in fact per batch
// stride only), plus 1 GiB for the buckets and the context.
size_t device_need(size_t n)
{
    return n * (96 + 32 + 32 + 16 * 4) + ((size_t)1 << 30);
}

// Host memory at N points: tiled bases (96 B) and scalars (32 B).
size_t host_need(size_t n) { return n * (96 + 32) + ((size_t)1 << 30); }

// Benchmark (or, with check_naive, check) one size. Returns false when
// skipped.
bool bench_size(int lg, int reps, const affine_t& G,
                const std::vector<affine_t>& chain, bool check_naive,
                std::vector<row_t>& rows)
{
    const size_t n = (size_t)1 << lg;
    size_t free_b = 0, total_b = 0;
    cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    if (device_need(n) > free_b) {
        std::printf("2^%d: skipped, needs up to %.1f GiB of device memory, "
                    "%.1f GiB free of %.1f GiB\n", lg, gib(device_need(n)),
                    gib(free_b), gib(total_b));
        return false;
    }
    size_t host_b = host_mem_available();
    if (host_need(n) > host_b) {
        std::printf("2^%d: skipped, needs %.1f GiB of host memory, "
                    "%.1f GiB available\n", lg, gib(host_need(n)), gib(host_b));
        return false;
    }

    // bases: the chain tiled to n
    affine_t* h_bases = static_cast<affine_t*>(std::malloc(n * sizeof(affine_t)));
    scalar_t* h_scalars = static_cast<scalar_t*>(std::malloc(n * sizeof(scalar_t)));
    if (!h_bases || !h_scalars)
        fail("host malloc of the bases or scalars");
    size_t first = std::min(n, CHAIN);
    std::memcpy(h_bases, chain.data(), first * sizeof(affine_t));
    for (size_t done = first; done < n;) {
        size_t c = std::min(done, n - done);
        std::memcpy(h_bases + done, h_bases, c * sizeof(affine_t));
        done += c;
    }
    random_scalars(h_scalars, n, 0x5a17a7c0ffee0000ULL + (uint64_t)lg);
    if (check_naive && n >= 3) {
        const uint64_t zero[4] = {0, 0, 0, 0}, one[4] = {1, 0, 0, 0};
        uint64_t rm1[4];
        std::memcpy(rm1, R_LIMBS, sizeof rm1);
        rm1[0] -= 1;
        set_limbs(h_scalars[0], zero);
        set_limbs(h_scalars[1], one);
        set_limbs(h_scalars[2], rm1);
    }

    const point_t expect = mul_g(G, closed_form_k(h_scalars, n));
    if (check_naive) {
        point_t naive = naive_msm(h_bases, h_scalars, n);
        if (naive != expect)
            fail("host check: the naive MSM and k*G disagree");
    }

    int status = RUN_OK;
    std::vector<double> t_dev, t_host;
    try {
        msm_g1_t msm{h_bases, n};                 // bases uploaded, resident
        // the constructor's upload runs on sppark's stream 0 and is not
        // awaited there; invoke() uses other streams
        cuda_check(cudaDeviceSynchronize(), "synchronize after the bases' upload");
        cuda_check(cudaGetLastError(), "after the bases' upload");
        std::free(h_bases);
        h_bases = nullptr;

        scalar_t* d_scalars = nullptr;
        cudaError_t e = cudaMalloc(&d_scalars, n * sizeof(scalar_t));
        if (e == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            status = RUN_OOM;
        } else {
            cuda_check(e, "cudaMalloc of the scalars");
            cuda_check(cudaMemcpy(d_scalars, h_scalars, n * sizeof(scalar_t),
                                  cudaMemcpyHostToDevice),
                       "upload of the scalars");

            point_t r_dev, r_host;
            double ms;
            // warm-up of each placement, checked
            status = run_once(msm, n, d_scalars, nullptr, r_dev, ms);
            if (status == RUN_OK)
                status = run_once(msm, n, nullptr, h_scalars, r_host, ms);
            if (status == RUN_OK) {
                if (r_dev != r_host)
                    fail("sppark's results with the scalars on the device and "
                         "from host memory differ");
                if (r_dev != expect)
                    fail("sppark's result differs from the host's k*G");
                if (check_naive)
                    std::printf("check 2^%d: sppark (device and host scalars) "
                                "= naive host MSM = k*G: ok\n", lg);
            }
            for (int i = 0; i < reps && !check_naive && status == RUN_OK; i++) {
                point_t a, b;
                status = run_once(msm, n, d_scalars, nullptr, a, ms);
                if (status != RUN_OK) break;
                t_dev.push_back(ms);
                status = run_once(msm, n, nullptr, h_scalars, b, ms);
                if (status != RUN_OK) break;
                t_host.push_back(ms);
                if (a != r_dev || b != r_dev)
                    fail("a timed run's result differs from the warm-up's");
            }
            cuda_check(cudaFree(d_scalars), "cudaFree of the scalars");
        }
    } catch (const cuda_error& ex) {
        // msm_t's constructor throws on its allocation or upload
        if (-ex.code() == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            status = RUN_OOM;
        } else {
            std::fprintf(stderr, "sppark_msm: CUDA error: %s\n", ex.what());
            std::exit(1);
        }
    }
    std::free(h_bases);
    std::free(h_scalars);

    if (status == RUN_OOM) {
        std::printf("2^%d: skipped, out of device memory\n", lg);
        return false;
    }
    if (check_naive)
        return true;

    const char* modes[2] = {"device", "host"};
    std::vector<double>* ts[2] = {&t_dev, &t_host};
    for (int m = 0; m < 2; m++) {
        auto& t = *ts[m];
        row_t r{lg, modes[m], median_of(t),
                *std::min_element(t.begin(), t.end()),
                *std::max_element(t.begin(), t.end())};
        rows.push_back(r);
        std::printf("sppark G1 MSM 2^%d, scalars %-6s: median %.2f ms, "
                    "min %.2f, max %.2f (%d runs after 1 warm-up; result "
                    "checked)\n", lg, m ? "host" : "device", r.median, r.min,
                    r.max, (int)t.size());
        std::fflush(stdout);
    }
    return true;
}

[[noreturn]] void usage()
{
    std::fprintf(stderr, "usage: sppark_msm [--log K]... [--reps R]\n"
                         "  --log K   2^K points, 12 <= K <= 30 (repeatable; "
                         "default 24 26 27)\n"
                         "  --reps R  timed runs per size and placement "
                         "(default 5)\n");
    std::exit(2);
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<int> logs;
    int reps = 5;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if ((a == "--log" || a == "--reps") && i + 1 < argc) {
            char* end;
            long v = std::strtol(argv[++i], &end, 10);
            if (*end != '\0') usage();
            if (a == "--log") {
                if (v < 12 || v > 30) usage();
                logs.push_back((int)v);
            } else {
                if (v < 1 || v > 1000) usage();
                reps = (int)v;
            }
        } else {
            usage();
        }
    }
    if (logs.empty())
        logs = {24, 26, 27};

    int ndev = 0;
    cuda_check(cudaGetDeviceCount(&ndev), "cudaGetDeviceCount");
    if (ndev == 0)
        fail("no CUDA device");
    cudaDeviceProp prop;
    cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    if (prop.major < 7 || !prop.cooperativeLaunch)
        fail("sppark needs compute capability 7.0 or later with cooperative launch");
    std::printf("device 0: %s, %d SMs, %.1f GiB; %d timed runs per row\n",
                prop.name, prop.multiProcessorCount, gib(prop.totalGlobalMem),
                reps);

    const affine_t G = generator();
    const std::vector<affine_t> chain = base_chain(G);

    std::vector<row_t> rows;
    if (!bench_size(CHECK_LOG, reps, G, chain, true, rows))
        fail("the 2^12 check could not run");
    for (int lg : logs)
        bench_size(lg, reps, G, chain, false, rows);

    std::printf("\nsize  mode    median_ms     min_ms     max_ms\n");
    for (const auto& r : rows)
        std::printf("2^%-3d %-6s %10.2f %10.2f %10.2f\n", r.log, r.mode,
                    r.median, r.min, r.max);
    return 0;
}

#endif // !__CUDA_ARCH__
