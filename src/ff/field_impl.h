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

static void field_shr1(uint64_t *a, uint64_t top) {
    for (size_t i = 0; i + 1 < CUZK__N; i++) a[i] = (a[i] >> 1) | (a[i + 1] << 63);
    a[CUZK__N - 1] = (a[CUZK__N - 1] >> 1) | (top << 63);
}

/* x = x/2 mod m for x < m (m odd, one spare top bit so x + m cannot carry out). */
static void field_half_mod(uint64_t *x) {
    if (x[0] & 1) {
        uint64_t c = 0;
        for (size_t i = 0; i < CUZK__N; i++) x[i] = cuzk__adc(x[i], CUZK__MOD[i], &c);
        field_shr1(x, c);
    } else {
        field_shr1(x, 0);
    }
}

static int field_is_one_plain(const uint64_t *a) {
    uint64_t acc = a[0] ^ 1;
    for (size_t i = 1; i < CUZK__N; i++) acc |= a[i];
    return acc == 0;
}

void CUZK__F(inv_var)(CUZK__T *r, const CUZK__T *a) {
    if (CUZK__F(is_zero)(a)) {
        CUZK__F(set_zero)(r);
        return;
    }
    /* Binary extended Euclid on the Montgomery representative u = aR gives
     * u^-1 = a^-1 R^-1; one Montgomery product with R^3 yields a^-1 R. */
    uint64_t u[CUZK__N], v[CUZK__N], x1[CUZK__N] = {1}, x2[CUZK__N] = {0};
    memcpy(u, a->l, sizeof(u));
    memcpy(v, CUZK__MOD, sizeof(v));
    while (!field_is_one_plain(u) && !field_is_one_plain(v)) {
        while ((u[0] & 1) == 0) {
            field_shr1(u, 0);
            field_half_mod(x1);
        }
        while ((v[0] & 1) == 0) {
            field_shr1(v, 0);
            field_half_mod(x2);
        }
        uint64_t borrow = 0, t[CUZK__N];
        for (size_t i = 0; i < CUZK__N; i++) t[i] = cuzk__sbb(u[i], v[i], &borrow);
        if (!borrow) {
            memcpy(u, t, sizeof(u));
            cuzk__sub_mod_n(x1, x1, x2, CUZK__MOD, CUZK__N);
        } else {
            borrow = 0;
            for (size_t i = 0; i < CUZK__N; i++) v[i] = cuzk__sbb(v[i], u[i], &borrow);
            cuzk__sub_mod_n(x2, x2, x1, CUZK__MOD, CUZK__N);
        }
    }
    CUZK__T inv, r3;
    memcpy(inv.l, field_is_one_plain(u) ? x1 : x2, sizeof(inv.l));
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
