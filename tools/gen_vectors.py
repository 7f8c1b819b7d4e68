#!/usr/bin/env python3
"""Generate tests/unit/vectors_deser.h from tests/data/bls12-381-deserialization-vectors.json
(the ethereum/bls12-381-tests deserialization cases), plus reference encodings of
k*G for G1 and G2 computed here with plain Python integers, independently of the C
code: zcash compressed, zcash uncompressed and snarkjs (LE Montgomery) bytes.

  python3 tools/gen_vectors.py > tests/unit/vectors_deser.h
  python3 tools/gen_vectors.py --corpus fuzz/corpus/point_decode   # fuzz seeds

The generator coordinates are the standard ones (zkcrypto/IETF pairing-friendly
curves draft); the script checks that they lie on the curves and have order r,
and that G1 compresses to 97f1d3a7... and G2 to 93e02b60... (doc/formats.md,
zcash point encoding).
"""
import json
import os
import sys

P = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
HALF = (P - 1) // 2
MONT = 2 ** 384

G1X = 0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb
G1Y = 0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1
G2X0 = 0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8
G2X1 = 0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e
G2Y0 = 0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801
G2Y1 = 0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JSON = os.path.join(ROOT, "tests", "data", "bls12-381-deserialization-vectors.json")


class Fp:
    __slots__ = ("v",)

    def __init__(s, v): s.v = v % P
    def __add__(s, o): return Fp(s.v + o.v)
    def __sub__(s, o): return Fp(s.v - o.v)
    def __mul__(s, o): return Fp(s.v * o.v)
    def __neg__(s): return Fp(-s.v)
    def __eq__(s, o): return s.v == o.v
    def inv(s): return Fp(pow(s.v, P - 2, P))
    def is_zero(s): return s.v == 0
    def largest(s): return s.v > HALF


class Fp2:
    __slots__ = ("a", "b")  # a + b*u, u^2 = -1

    def __init__(s, a, b): s.a, s.b = a % P, b % P
    def __add__(s, o): return Fp2(s.a + o.a, s.b + o.b)
    def __sub__(s, o): return Fp2(s.a - o.a, s.b - o.b)
    def __mul__(s, o): return Fp2(s.a * o.a - s.b * o.b, s.a * o.b + s.b * o.a)
    def __neg__(s): return Fp2(-s.a, -s.b)
    def __eq__(s, o): return s.a == o.a and s.b == o.b

    def inv(s):
        n = pow(s.a * s.a + s.b * s.b, P - 2, P)
        return Fp2(s.a * n, -s.b * n)

    def is_zero(s): return s.a == 0 and s.b == 0
    # zcash: compare c1, or c0 when c1 = 0
    def largest(s): return s.b > HALF if s.b != 0 else s.a > HALF


def add(p1, p2):
    """Affine addition; None is the point at infinity."""
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2:
        if (y1 + y2).is_zero():
            return None
        lam = (x1 * x1 + x1 * x1 + x1 * x1) * (y1 + y1).inv()
    else:
        lam = (y2 - y1) * (x2 - x1).inv()
    x3 = lam * lam - x1 - x2
    return (x3, lam * (x1 - x3) - y1)


def mul(k, pt):
    acc = None
    for bit in bin(k)[2:] if k else "":
        acc = add(acc, acc)
        if bit == "1":
            acc = add(acc, pt)
    return acc


def on_curve(pt, b):
    x, y = pt
    return y * y == x * x * x + b


def be(v): return v.to_bytes(48, "big")
def le_mont(v): return (v * MONT % P).to_bytes(48, "little")


def fp_parts(c):
    """Coordinates as plain integers in zcash order (Fp2: c1 then c0)."""
    return [c.v] if isinstance(c, Fp) else [c.b, c.a]


def sj_parts(c):
    return [c.v] if isinstance(c, Fp) else [c.a, c.b]


def zcash(pt, compressed, nfp):
    if pt is None:
        out = bytearray(nfp * 48 * (1 if compressed else 2))
        out[0] = 0xC0 if compressed else 0x40
        return bytes(out)
    x, y = pt
    out = bytearray(b"".join(be(v) for v in fp_parts(x)))
    if compressed:
        out[0] |= 0x80 | (0x20 if y.largest() else 0)
    else:
        out += b"".join(be(v) for v in fp_parts(y))
    return bytes(out)


def snarkjs(pt, nfp):
    if pt is None:
        return bytes(nfp * 96)
    x, y = pt
    return b"".join(le_mont(v) for v in sj_parts(x) + sj_parts(y))


def c_bytes(b, indent="        "):
    lines = []
    for i in range(0, len(b), 16):
        lines.append(indent + ", ".join("0x%02x" % c for c in b[i:i + 16]) + ",")
    return "{\n" + "\n".join(lines) + "\n" + indent[:-4] + "}"


def limbs4(k):
    return "{" + ", ".join("0x%016xULL" % ((k >> (64 * i)) & (2 ** 64 - 1)) for i in range(4)) + "}"


# Fixed scalars: small ones, r-1 (gives -G, the other sign flag), and a few
# arbitrary 255-bit values chosen by hand (no RNG, so the output is stable).
SCALARS = [
    0, 1, 2, 3, 7, R - 1, R - 2,
    0x0123456789abcdef0fedcba9876543210123456789abcdef0fedcba987654321,
    0x5a5a5a5a5a5a5a5aa5a5a5a5a5a5a5a53c3c3c3c3c3c3c3cc3c3c3c3c3c3c3c3,
    0x3fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff,
]


def main():
    g1 = (Fp(G1X), Fp(G1Y))
    g2 = (Fp2(G2X0, G2X1), Fp2(G2Y0, G2Y1))
    b1, b2 = Fp(4), Fp2(4, 4)
    assert on_curve(g1, b1) and on_curve(g2, b2)
    assert mul(R, g1) is None and mul(R, g2) is None
    assert zcash(g1, True, 1).hex().startswith("97f1d3a7")
    assert zcash(g2, True, 2).hex().startswith("93e02b60")

    corpus = None
    if len(sys.argv) == 3 and sys.argv[1] == "--corpus":
        corpus = sys.argv[2]
    elif len(sys.argv) != 1:
        sys.exit(__doc__)

    with open(JSON) as f:
        data = json.load(f)

    refs = {"G1": [], "G2": []}
    for k in SCALARS:
        p1, p2 = mul(k, g1), mul(k, g2)
        refs["G1"].append((k, zcash(p1, True, 1), zcash(p1, False, 1), snarkjs(p1, 1)))
        refs["G2"].append((k, zcash(p2, True, 2), zcash(p2, False, 2), snarkjs(p2, 2)))
        for pt, b in ((p1, b1), (p2, b2)):
            assert pt is None or on_curve(pt, b)

    if corpus:
        write_corpus(corpus, data, refs)
        return

    o = []
    o.append("/* generated by tools/gen_vectors.py, do not edit.")
    o.append(" * Source: tests/data/bls12-381-deserialization-vectors.json")
    o.append(" * (" + data["source"].replace("*/", "* /") + ")")
    o.append(" * and reference encodings of k*G computed with Python integers. */")
    o.append("#ifndef CUZK_TEST_VECTORS_DESER_H")
    o.append("#define CUZK_TEST_VECTORS_DESER_H")
    o.append("")
    o.append("#include <stddef.h>")
    o.append("#include <stdint.h>")
    o.append("")
    o.append("#define DESER_MAX_BYTES 200")
    o.append("typedef struct {")
    o.append("    const char *name;")
    o.append("    size_t len;")
    o.append("    int valid; /* 1: a checked decoder must accept it */")
    o.append("    uint8_t bytes[DESER_MAX_BYTES];")
    o.append("} deser_case;")
    o.append("")
    o.append("/* k (little-endian limbs) and k*G encoded: zcash compressed (zc), zcash")
    o.append(" * uncompressed (zu), snarkjs little-endian Montgomery (sj). */")
    o.append("typedef struct {")
    o.append("    uint64_t k[4];")
    o.append("    uint8_t zc[48], zu[96], sj[96];")
    o.append("} ref_g1;")
    o.append("typedef struct {")
    o.append("    uint64_t k[4];")
    o.append("    uint8_t zc[96], zu[192], sj[192];")
    o.append("} ref_g2;")
    o.append("")
    for grp in ("G1", "G2"):
        o.append("static const deser_case deser_%s_cases[] = {" % grp.lower())
        for c in data[grp]:
            b = bytes.fromhex(c["compressed_hex"])
            assert len(b) <= 200
            o.append("    {\"%s\", %d, %d, %s}," % (c["name"], len(b), 1 if c["valid"] else 0,
                                                  c_bytes(b, "        ")))
        o.append("};")
        o.append("#define DESER_%s_COUNT %d" % (grp, len(data[grp])))
        o.append("")
    for grp in ("G1", "G2"):
        o.append("static const ref_%s ref_%s_points[] = {" % (grp.lower(), grp.lower()))
        for k, zc, zu, sj in refs[grp]:
            o.append("    {%s," % limbs4(k))
            o.append("     %s," % c_bytes(zc, "         "))
            o.append("     %s," % c_bytes(zu, "         "))
            o.append("     %s}," % c_bytes(sj, "         "))
        o.append("};")
        o.append("#define REF_%s_COUNT %d" % (grp, len(refs[grp])))
        o.append("")
    o.append("#endif /* CUZK_TEST_VECTORS_DESER_H */")
    sys.stdout.write("\n".join(o) + "\n")


# Fuzz seeds: byte 0 selects the decoder (see fuzz/fuzz_point_decode.c), the
# rest is the encoding.
SEL_G1_ZCASH, SEL_G2_ZCASH, SEL_G1_SNARKJS, SEL_G2_SNARKJS, SEL_NO_SUBGROUP = 0, 1, 2, 3, 0x10


def write_corpus(d, data, refs):
    os.makedirs(d, exist_ok=True)
    seeds = {}
    for grp, sel in (("G1", SEL_G1_ZCASH), ("G2", SEL_G2_ZCASH)):
        for c in data[grp]:
            name = "%s_%s" % (grp.lower(), c["name"].replace("deserialization_", ""))
            seeds[name] = bytes([sel]) + bytes.fromhex(c["compressed_hex"])
            if "not_in_G" in c["name"]:  # on the curve: accepted without the subgroup check
                seeds[name + "_nosub"] = bytes([sel | SEL_NO_SUBGROUP]) + bytes.fromhex(c["compressed_hex"])
    for grp, zsel, ssel in (("G1", SEL_G1_ZCASH, SEL_G1_SNARKJS), ("G2", SEL_G2_ZCASH, SEL_G2_SNARKJS)):
        for k, zc, zu, sj in refs[grp][:4]:  # 0, G, 2G, 3G
            tag = "%s_k%d" % (grp.lower(), k)
            seeds[tag + "_zc"] = bytes([zsel]) + zc
            seeds[tag + "_zu"] = bytes([zsel]) + zu
            seeds[tag + "_sj"] = bytes([ssel]) + sj
    for name, blob in sorted(seeds.items()):
        with open(os.path.join(d, name), "wb") as f:
            f.write(blob)


if __name__ == "__main__":
    main()
