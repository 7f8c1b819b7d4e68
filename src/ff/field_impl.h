/*
 * field_impl.h — representation-level code shared by Fp and Fr, written once
 * and instantiated by fp.c and fr.c. The including file defines:
 *   CUZK__F(name)   pastes the field's prefix (cuzk_fp_##name)
 *   CUZK__T         the element type (cuzk_fp)
 *   CUZK__N         the limb count
 *   CUZK__MOD       the modulus limbs (static array)
 *   CUZK__R3        R^3 mod m as plain limbs (initializer)
 * and includes the field's header first.
 */
#include <string.h>

static const uint64_t field_r3[CUZK__N] = CUZK__R3;
static const uint64_t field_m_minus_2[CUZK__N] = CUZK__M_MINUS_2;
static const uint64_t field_m_minus_1_div_2[CUZK__N] = CUZK__M_MINUS_1_DIV_2;

void CUZK__F(from_limbs)(CUZK__T *r, const uint64_t a[CUZK__N]) {
    CUZK__T t, r2;
    memcpy(t.l, a, sizeof(t.l));
    memcpy(r2.l, field_r2, sizeof(r2.l));
    CUZK__F(mul)(r, &t, &r2);
}

void CUZK__F(to_limbs)(uint64_t r[CUZK__N], const CUZK__T *a) {
    CUZK__T one_plain = {{1}}, t;
    CUZK__F(mul)(&t, a, &one_plain);
    memcpy(r, t.l, sizeof(t.l));
}

void CUZK__F(from_u64)(CUZK__T *r, uint64_t v) {
    uint64_t a[CUZK__N] = {v};
    /* v may exceed a tiny modulus only in theory; both fields are > 2^64. */
    CUZK__F(from_limbs)(r, a);
}

static void field_load_be(uint64_t r[CUZK__N], const uint8_t *in) {
    for (size_t i = 0; i < CUZK__N; i++) {
        uint64_t w = 0;
        for (size_t j = 0; j < 8; j++) w = (w << 8) | in[(CUZK__N - 1 - i) * 8 + j];
        r[i] = w;
    }
}

static void field_load_le(uint64_t r[CUZK__N], const uint8_t *in) {
    for (size_t i = 0; i < CUZK__N; i++) {
        uint64_t w = 0;
        for (size_t j = 8; j-- > 0;) w = (w << 8) | in[i * 8 + j];
        r[i] = w;
    }
}

bool CUZK__F(from_bytes_be)(CUZK__T *r, const uint8_t in[CUZK__N * 8]) {
    uint64_t a[CUZK__N];
    field_load_be(a, in);
    if (!cuzk__lt_n(a, CUZK__MOD, CUZK__N)) return false;
    CUZK__F(from_limbs)(r, a);
    return true;
}

bool CUZK__F(from_bytes_le)(CUZK__T *r, const uint8_t in[CUZK__N * 8]) {
    uint64_t a[CUZK__N];
    field_load_le(a, in);
    if (!cuzk__lt_n(a, CUZK__MOD, CUZK__N)) return false;
    CUZK__F(from_limbs)(r, a);
    return true;
}

void CUZK__F(to_bytes_be)(uint8_t out[CUZK__N * 8], const CUZK__T *a) {
    uint64_t t[CUZK__N];
    CUZK__F(to_limbs)(t, a);
    for (size_t i = 0; i < CUZK__N; i++)
        for (size_t j = 0; j < 8; j++)
            out[(CUZK__N - 1 - i) * 8 + j] = (uint8_t)(t[i] >> (56 - 8 * j));
}

void CUZK__F(to_bytes_le)(uint8_t out[CUZK__N * 8], const CUZK__T *a) {
    uint64_t t[CUZK__N];
    CUZK__F(to_limbs)(t, a);
    for (size_t i = 0; i < CUZK__N; i++)
        for (size_t j = 0; j < 8; j++) out[i * 8 + j] = (uint8_t)(t[i] >> (8 * j));
}

/* Left-to-right square and multiply over a public exponent. */
void CUZK__F(pow)(CUZK__T *r, const CUZK__T *a, const uint64_t *e, size_t nlimbs) {
    CUZK__T acc, base = *a;
    CUZK__F(set_one)(&acc);
    for (size_t i = nlimbs; i-- > 0;)
        for (int b = 63; b >= 0; b--) {
            CUZK__F(sqr)(&acc, &acc);
            if ((e[i] >> b) & 1) CUZK__F(mul)(&acc, &acc, &base);
        }
    *r = acc;
}

void CUZK__F(inv)(CUZK__T *r, const CUZK__T *a) {
    /* a^(m-2); zero maps to zero. The exponent is public, a is not. */
    CUZK__F(pow)(r, a, field_m_minus_2, CUZK__N);
}

/*
 * Variable-time inversion: Pornin's optimized binary GCD (eprint 2020/972,
 * Algorithm 2) with k = 32. Each outer round builds 64-bit approximations of
 * a and b (low k-1 = 31 bits, top k+1 = 33 bits of max(len a, len b, 64)),
 * runs 31 binary-GCD steps on them in registers while accumulating the update
 * factors (f0, g0, f1, g1), |f| + |g| <= 2^31, then applies those to the full
 * a, b (exact division by 2^31, sign fixed up) and to u, v modulo m (Montgomery
 * division by 2^31). Invariants a = u*y, b = v*y (mod m); the paper proves
 * len(a) + len(b) drops by at least 31 per round, so after
 * ceil((2*len(m) - 1) / 31) rounds a = 0, b = gcd = 1 and v = y^-1.
 * Cost per round: ~31 register steps (runs of zeros taken at once with ctz),
 * 4 (N x 1)-limb products for a, b and 6 for u, v. At most 25 rounds for Fp and
 * 17 for Fr; the loop stops early once a = 0.
 */
#define FIELD_GCD_STEPS 31
#define FIELD_GCD_ROUNDS ((2 * 64 * CUZK__N - 1 + FIELD_GCD_STEPS - 1) / FIELD_GCD_STEPS)

static unsigned field_clz64(uint64_t w) { /* w != 0 */
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_clzll(w);
#else
    unsigned n = 0;
    while (!(w >> 63)) w <<= 1, n++;
    return n;
#endif
}

static unsigned field_ctz64(uint64_t w) { /* w != 0 */
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(w);
#else
    unsigned n = 0;
    while (!(w & 1)) w >>= 1, n++;
    return n;
#endif
}

/* Bits [s, s + 64) of a (zero above the top limb); s < 64N. */
static uint64_t field_window(const uint64_t *a, unsigned s) {
    size_t i = s / 64;
    unsigned sh = s % 64;
    uint64_t w = a[i] >> sh;
    if (sh && i + 1 < CUZK__N) w |= a[i + 1] << (64 - sh);
    return w;
}

/* r = a * f (N x 1 limbs -> N+1 limbs) */
static void field_mul_word(uint64_t *r, const uint64_t *a, uint64_t f) {
    uint64_t c = 0;
    for (size_t i = 0; i < CUZK__N; i++) r[i] = cuzk__mac(&c, a[i], f, c, 0);
    r[CUZK__N] = c;
}

/* r = |a*f + b*g| / 2^31 (exact by construction of f, g; fits N limbs since
 * |f| + |g| <= 2^31 and a, b <= m). Returns whether a*f + b*g was negative. */
static int field_gcd_update_ab(uint64_t *r, const uint64_t *a, int64_t f, const uint64_t *b,
                               int64_t g) {
    uint64_t A[CUZK__N + 1], B[CUZK__N + 1], t[CUZK__N + 1], c = 0;
    field_mul_word(A, a, f < 0 ? 0 - (uint64_t)f : (uint64_t)f);
    field_mul_word(B, b, g < 0 ? 0 - (uint64_t)g : (uint64_t)g);
    int neg;
    if ((f < 0) == (g < 0)) {
        for (size_t i = 0; i <= CUZK__N; i++) t[i] = cuzk__adc(A[i], B[i], &c);
        neg = f < 0;
    } else {
        const uint64_t *p = f < 0 ? B : A, *q = f < 0 ? A : B;
        for (size_t i = 0; i <= CUZK__N; i++) t[i] = cuzk__sbb(p[i], q[i], &c);
        neg = (int)c;
        if (neg) { /* two's complement back to the magnitude */
            uint64_t bw = 0;
            for (size_t i = 0; i <= CUZK__N; i++) t[i] = cuzk__sbb(0, t[i], &bw);
        }
    }
    for (size_t i = 0; i < CUZK__N; i++)
        r[i] = (t[i] >> FIELD_GCD_STEPS) | (t[i + 1] << (64 - FIELD_GCD_STEPS));
    return neg;
}

/* r = (u*f + v*g) / 2^31 mod m, u, v < m; nu = m - u, nv = m - v serve the
 * negative factors, so t = u'|f| + v'|g| <= 2^31 m. q = t*n0 mod 2^31 makes
 * t + q m divisible by 2^31, and (t + q m) / 2^31 < 2m. */
static void field_gcd_update_uv(uint64_t *r, const uint64_t *u, const uint64_t *nu, int64_t f,
                                const uint64_t *v, const uint64_t *nv, int64_t g, uint64_t n0) {
    const uint64_t *uu = f < 0 ? nu : u, *vv = g < 0 ? nv : v;
    uint64_t fa = f < 0 ? 0 - (uint64_t)f : (uint64_t)f, ga = g < 0 ? 0 - (uint64_t)g : (uint64_t)g;
    uint64_t t[CUZK__N + 1], c = 0;
    for (size_t i = 0; i < CUZK__N; i++) {
        uint64_t h1, h2, lo = cuzk__mac(&h1, uu[i], fa, c, 0);
        t[i] = cuzk__mac(&h2, vv[i], ga, lo, 0);
        c = h1 + h2; /* each <= 2^31 */
    }
    t[CUZK__N] = c;
    uint64_t q = (t[0] * n0) & (((uint64_t)1 << FIELD_GCD_STEPS) - 1);
    c = 0;
    for (size_t i = 0; i < CUZK__N; i++) t[i] = cuzk__mac(&c, q, CUZK__MOD[i], t[i], c);
    t[CUZK__N] += c;
    uint64_t s[CUZK__N], d[CUZK__N], bw = 0;
    for (size_t i = 0; i < CUZK__N; i++)
        s[i] = (t[i] >> FIELD_GCD_STEPS) | (t[i + 1] << (64 - FIELD_GCD_STEPS));
    for (size_t i = 0; i < CUZK__N; i++) d[i] = cuzk__sbb(s[i], CUZK__MOD[i], &bw);
    uint64_t keep = 0 - bw; /* s < m */
    for (size_t i = 0; i < CUZK__N; i++) r[i] = (s[i] & keep) | (d[i] & ~keep);
}

/* r = m - x for 0 <= x <= m (x = 0 gives m, which is fine as a multiplicand) */
static void field_gcd_neg(uint64_t *r, const uint64_t *x) {
    uint64_t bw = 0;
    for (size_t i = 0; i < CUZK__N; i++) r[i] = cuzk__sbb(CUZK__MOD[i], x[i], &bw);
}

void CUZK__F(inv_var)(CUZK__T *r, const CUZK__T *a) {
    if (CUZK__F(is_zero)(a)) {
        CUZK__F(set_zero)(r);
        return;
    }
    /* n0 = -m^-1 mod 2^64 by Newton's iteration (3 correct bits to 96). */
    uint64_t n0 = CUZK__MOD[0];
    for (int i = 0; i < 5; i++) n0 *= 2 - CUZK__MOD[0] * n0;
    n0 = 0 - n0;

    /* Runs on the Montgomery representative y = aR: v ends as y^-1 = a^-1 R^-1
     * and one Montgomery product with R^3 yields a^-1 R. */
    uint64_t A[CUZK__N], B[CUZK__N], U[CUZK__N] = {1}, V[CUZK__N] = {0};
    memcpy(A, a->l, sizeof(A));
    memcpy(B, CUZK__MOD, sizeof(B));
    const uint64_t low = ((uint64_t)1 << FIELD_GCD_STEPS) - 1;
    for (int round = 0; round < FIELD_GCD_ROUNDS && !cuzk__is_zero_n(A, CUZK__N); round++) {
        unsigned n = 64;
        for (size_t i = CUZK__N; i-- > 1;)
            if (A[i] | B[i]) {
                n = (unsigned)(64 * i + 64) - field_clz64(A[i] | B[i]);
                break;
            }
        uint64_t xa = (A[0] & low) | (field_window(A, n - 33) << FIELD_GCD_STEPS);
        uint64_t xb = (B[0] & low) | (field_window(B, n - 33) << FIELD_GCD_STEPS);
        int64_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;
        /* One step: if xa is odd, order xa >= xb (swapping factor pairs) and
         * subtract; then halve xa and double (f1, g1). xb stays odd, so after
         * a subtraction xa is even and runs of halvings go at once. */
        for (unsigned j = FIELD_GCD_STEPS; j > 0;) {
            if (xa & 1) {
                /* Masked swap: the comparison is a coin flip, a branch
                 * on it mispredicts about half the time. */
                uint64_t sw = 0 - (uint64_t)(xa < xb);
                uint64_t dx = (xa ^ xb) & sw;
                int64_t df = (f0 ^ f1) & (int64_t)sw, dg = (g0 ^ g1) & (int64_t)sw;
                xa ^= dx, xb ^= dx;
                f0 ^= df, f1 ^= df;
                g0 ^= dg, g1 ^= dg;
                xa -= xb;
                f0 -= f1;
                g0 -= g1;
            }
            unsigned z = xa ? field_ctz64(xa) : j;
            if (z > j) z = j;
            xa >>= z;
            f1 *= (int64_t)1 << z;
            g1 *= (int64_t)1 << z;
            j -= z;
        }
        uint64_t nA[CUZK__N], nB[CUZK__N];
        if (field_gcd_update_ab(nA, A, f0, B, g0)) f0 = -f0, g0 = -g0;
        if (field_gcd_update_ab(nB, A, f1, B, g1)) f1 = -f1, g1 = -g1;
        memcpy(A, nA, sizeof(A));
        memcpy(B, nB, sizeof(B));
        uint64_t mU[CUZK__N], mV[CUZK__N], nU[CUZK__N];
        field_gcd_neg(mU, U);
        field_gcd_neg(mV, V);
        field_gcd_update_uv(nU, U, mU, f0, V, mV, g0, n0);
        field_gcd_update_uv(V, U, mU, f1, V, mV, g1, n0);
        memcpy(U, nU, sizeof(U));
    }
    CUZK__T inv, r3;
    memcpy(inv.l, V, sizeof(inv.l));
    memcpy(r3.l, field_r3, sizeof(r3.l));
    CUZK__F(mul)(r, &inv, &r3);
}

void CUZK__F(batch_inv_var)(CUZK__T *out, const CUZK__T *a, size_t n, CUZK__T *scratch) {
    if (n == 0) return;
    CUZK__T acc;
    CUZK__F(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc; /* product of the nonzero a[0..i-1] */
        if (!CUZK__F(is_zero)(&a[i])) CUZK__F(mul)(&acc, &acc, &a[i]);
    }
    CUZK__F(inv_var)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (CUZK__F(is_zero)(&a[i])) {
            CUZK__F(set_zero)(&out[i]);
            continue;
        }
        CUZK__T ai = a[i]; /* out may alias a */
        CUZK__F(mul)(&out[i], &acc, &scratch[i]);
        CUZK__F(mul)(&acc, &acc, &ai);
    }
}

bool CUZK__F(is_square)(const CUZK__T *a) {
    CUZK__T t;
    CUZK__F(pow)(&t, a, field_m_minus_1_div_2, CUZK__N);
    return CUZK__F(is_zero)(a) || CUZK__F(is_one)(&t);
}
