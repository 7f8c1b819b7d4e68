#!/usr/bin/env python3
"""Generate src/ff/bls12_381_consts.h: every BLS12-381 constant the C code uses,
in the limb layout and Montgomery form of src/ff (64-bit limbs, little-endian
limb order, value * 2^(64n) mod m).  Run: python3 tools/gen_consts.py > src/ff/bls12_381_consts.h
CI regenerates the file and fails on any difference."""

P = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
X = -0xd201000000010000  # the BLS parameter (seed); negative
NP, NR = 6, 4

def limbs(v, n):
    assert 0 <= v < 2 ** (64 * n)
    return "{" + ", ".join("0x%016xULL" % ((v >> (64 * i)) & (2 ** 64 - 1)) for i in range(n)) + "}"

def mont(v, m, n):
    return (v * 2 ** (64 * n)) % m

out = []
def arr(name, v, n):
    out.append("#define %s %s" % (name, limbs(v, n)))
def fp(name, v):
    arr(name, mont(v % P, P, NP), NP)
def fr(name, v):
    arr(name, mont(v % R, R, NR), NR)

class Fp2:
    def __init__(s, a, b=0): s.a, s.b = a % P, b % P
    def __mul__(s, o): return Fp2(s.a * o.a - s.b * o.b, s.a * o.b + s.b * o.a)
    def __add__(s, o): return Fp2(s.a + o.a, s.b + o.b)
    def __sub__(s, o): return Fp2(s.a - o.a, s.b - o.b)
    def __eq__(s, o): return s.a == o.a and s.b == o.b
    def __pow__(s, e):
        r, b = Fp2(1), s
        while e:
            if e & 1: r = r * b
            b = b * b; e >>= 1
        return r
    def inv(s):
        n = pow(s.a * s.a + s.b * s.b, P - 2, P)
        return Fp2(s.a * n, -s.b * n)

def fp2(name, v):
    out.append("#define %s {%s, %s}" % (name, limbs(mont(v.a, P, NP), NP), limbs(mont(v.b, P, NP), NP)))

# ---- fields -------------------------------------------------------------
out.append("/* Fp: p, -p^-1 mod 2^64, R mod p (one), R^2, R^3 (plain limbs). */")
arr("CUZK__FP_P", P, NP)
out.append("#define CUZK__FP_N0 0x%016xULL" % ((-pow(P, -1, 2 ** 64)) % 2 ** 64))
arr("CUZK__FP_ONE", 2 ** 384 % P, NP)
arr("CUZK__FP_R2", 2 ** 768 % P, NP)
arr("CUZK__FP_R3", 2 ** 1152 % P, NP)
out.append("/* Exponents (plain integers). */")
arr("CUZK__FP_P_MINUS_2", P - 2, NP)
arr("CUZK__FP_P_PLUS_1_DIV_4", (P + 1) // 4, NP)
arr("CUZK__FP_P_MINUS_1_DIV_2", (P - 1) // 2, NP)
arr("CUZK__FP_P_MINUS_3_DIV_4", (P - 3) // 4, NP)

out.append("/* Fr: r, -r^-1 mod 2^64, R mod r, R^2, R^3 (plain limbs). */")
arr("CUZK__FR_R", R, NR)
out.append("#define CUZK__FR_N0 0x%016xULL" % ((-pow(R, -1, 2 ** 64)) % 2 ** 64))
arr("CUZK__FR_ONE", 2 ** 256 % R, NR)
arr("CUZK__FR_R2", 2 ** 512 % R, NR)
arr("CUZK__FR_R3", 2 ** 768 % R, NR)
arr("CUZK__FR_R_MINUS_2", R - 2, NR)
arr("CUZK__FR_R_MINUS_1_DIV_2", (R - 1) // 2, NR)
S = 0
t = R - 1
while t % 2 == 0:
    t //= 2; S += 1
out.append("/* Tonelli-Shanks: r - 1 = 2^S * T with T odd; 7 generates Fr^*. */")
out.append("#define CUZK__FR_TWO_ADICITY %d" % S)
arr("CUZK__FR_T_MINUS_1_DIV_2", (t - 1) // 2, NR)
assert pow(7, (R - 1) // 2, R) == R - 1 and pow(5, (R - 1) // 2, R) == R - 1
out.append("/* 7^T (bellman's root of unity, order 2^S) and 5^T (snarkjs's), Montgomery form. */")
fr("CUZK__FR_ROOT7", pow(7, t, R))
fr("CUZK__FR_ROOT5", pow(5, t, R))

# ---- curves -------------------------------------------------------------
G1X = 0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb
G1Y = 0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1
G2X = Fp2(0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8,
          0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e)
G2Y = Fp2(0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801,
          0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be)
assert (G1Y ** 2 - G1X ** 3 - 4) % P == 0
B2 = Fp2(4, 4)
assert G2Y * G2Y == G2X * G2X * G2X + B2
out.append("/* Curves: E: y^2 = x^3 + 4, E': y^2 = x^3 + 4(u+1); standard generators. */")
fp("CUZK__G1_B", 4)
fp("CUZK__G1_B3", 12)
fp("CUZK__G1_GEN_X", G1X)
fp("CUZK__G1_GEN_Y", G1Y)
fp2("CUZK__G2_B", B2)
fp2("CUZK__G2_B3", Fp2(12, 12))
fp2("CUZK__G2_GEN_X", G2X)
fp2("CUZK__G2_GEN_Y", G2Y)
out.append("/* |x| for the seed x = -0xd201000000010000 (the loop count of the pairing). */")
out.append("#define CUZK__BLS_X_ABS 0x%016xULL" % (-X))
out.append("#define CUZK__BLS_X_IS_NEGATIVE 1")

# Cube root of unity in Fp for the G1 endomorphism phi(x, y) = (beta x, y):
# the one for which phi acts as multiplication by -x^2 on G1 (Scott's test).
# Pick beta of order 3; the G1 check is phi(P) == [-x^2]P with this beta.
def g1_add(p1, p2):
    if p1 is None: return p2
    if p2 is None: return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2:
        if (y1 + y2) % P == 0: return None
        l = 3 * x1 * x1 * pow(2 * y1, P - 2, P)
    else:
        l = (y2 - y1) * pow(x2 - x1, P - 2, P)
    x3 = (l * l - x1 - x2) % P
    return (x3, (l * (x1 - x3) - y1) % P)
def g1_mul(pt, k):
    acc = None
    while k:
        if k & 1: acc = g1_add(acc, pt)
        pt = g1_add(pt, pt); k >>= 1
    return acc
w = pow(2, (P - 1) // 3, P)
k = 2
while w == 1:
    k += 1; w = pow(k, (P - 1) // 3, P)
lam = (-X * X) % R  # -x^2 mod r... as an integer scalar: -(x^2)
target = g1_mul((G1X, G1Y), (R - (X * X) % R) % R)
beta = None
for cand in (w, w * w % P):
    if (cand * G1X % P, G1Y) == target: beta = cand
assert beta is not None
fp("CUZK__G1_BETA", beta)

# psi on E'(Fp2): psi(x, y) = (conj(x) * c_x, conj(y) * c_y) with
# c_x = 1 / (u+1)^((p-1)/3), c_y = 1 / (u+1)^((p-1)/2).
xi = Fp2(1, 1)
psi_cx = (xi ** ((P - 1) // 3)).inv()
psi_cy = (xi ** ((P - 1) // 2)).inv()
fp2("CUZK__G2_PSI_CX", psi_cx)
fp2("CUZK__G2_PSI_CY", psi_cy)

# ---- tower Frobenius coefficients ---------------------------------------
# Fp2 = Fp[u]/(u^2+1), Fp6 = Fp2[v]/(v^3 - xi), Fp12 = Fp6[w]/(w^2 - v), xi = u+1.
out.append("/* Frobenius: FP6_C1[i] = xi^((p^i-1)/3), FP6_C2[i] = xi^(2(p^i-1)/3),"
           " FP12_C1[i] = xi^((p^i-1)/6), i = 0..5 (index 0 is one). */")
for i in range(6):
    e = (P ** i - 1)
    fp2("CUZK__FP6_FROB_C1_%d" % i, xi ** (e // 3))
    fp2("CUZK__FP6_FROB_C2_%d" % i, xi ** (2 * e // 3))
    fp2("CUZK__FP12_FROB_C1_%d" % i, xi ** (e // 6))

print("/* Generated by tools/gen_consts.py; do not edit. */")
print("#ifndef CUZK_BLS12_381_CONSTS_H")
print("#define CUZK_BLS12_381_CONSTS_H")
print()
print("\n".join(out))
print()
print("#endif")
