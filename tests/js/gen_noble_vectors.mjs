#!/usr/bin/env node
// gen_noble_vectors.mjs SEED OUTFILE
//
// Writes BLS12-381 test vectors computed by @noble/curves (an implementation
// independent of cuzk) for tests/interop/test_noble.c. The same SEED always
// gives the same file. SEED is a decimal or 0x-hex integer, or "auto": then
// CUZK_SEED is used when set, otherwise a fresh random seed; the seed is
// printed either way so a failing run can be replayed with CUZK_SEED.
//
// Format (version line first, then one case per line, '#' starts a comment):
//   noble-vectors 1 seed=<seed> noble=<version>
//   <kind> <token> <token> ...
// Tokens are lowercase hex without 0x, big-endian and zero-padded to the full
// width (Fp 48 bytes, Fr and scalars 32 bytes), a word (verdicts, reasons),
// or "-" (no value). An Fp2 value is two Fp tokens, c0 then c1. Point bytes are
// the zcash/bellman encoding (G1 48/96, G2 96/192 bytes; Fp2 written c1 || c0).
//
//   fp_mul   a b c            c = a*b mod p
//   fp_inv   a c              c = a^-1 (a != 0)
//   fp_sqrt  a s|-            s = noble's root a^((p+1)/4), "-" when a is not a square
//   fp2_mul  a0 a1 b0 b1 c0 c1
//   fp2_inv  a0 a1 c0 c1
//   fp2_sqrt a0 a1 s0 s1|- -  noble's root (its choice of sign is its own)
//   fr_mul   a b c            mod r
//   fr_inv   a c
//   fp12_mul a[12] b[12] c[12]  coefficient order below
//   g1_mul   k comp uncomp    k*G1; k is a 32-byte scalar, possibly >= r
//   g2_mul   k comp uncomp    k*G2 (noble multiplies by k mod r)
//   g1_add   a b P Q S        P = a*G1, Q = b*G1, S = P+Q; points uncompressed;
//                             includes P = Q, Q = -P and infinities
//   g2_add   a b P Q S
//   g1_curve comp uncomp verdict   a point on E(Fp) built without checks;
//                             verdict "sub" when noble's fromBytes accepts both
//                             encodings (point in the r-torsion), "nosub" when
//                             it rejects both and isTorsionFree() is false
//   g2_curve comp uncomp verdict
//   g1_bad   bytes reason     an encoding noble's fromBytes rejects; reason is
//   g2_bad   bytes reason     the defect we built in: flags | noncanonical | notoncurve
//   pairing  a b P Q f[12]    f = e(a*G1, b*G2), P and Q uncompressed
//   pairing_batch n P1 Q1 ... Pn Qn f[12] verdict
//                             f = prod e(Pi, Qi) (noble's pairingBatch), verdict
//                             "one" or "notone": whether f is 1 (Groth16-style check)
//
// Fp12 coefficient order (noble's tower: Fp2 = Fp[u]/(u^2+1),
// Fp6 = Fp2[v]/(v^3-(u+1)), Fp12 = Fp6[w]/(w^2-v)), element
// f = g0 + g1 w with g_i = h_i0 + h_i1 v + h_i2 v^2 and h_ij = c_ij0 + c_ij1 u;
// the 12 Fp tokens are c000 c001 c010 c011 c020 c021 c100 c101 c110 c111 c120 c121,
// i.e. noble's c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1 (struct order).

import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function die(msg) {
  process.stderr.write(`gen_noble_vectors: ${msg}\n`);
  process.exit(1);
}

// noble 2.x needs node >= 20.19 (its package.json "engines").
{
  const [maj, min] = process.versions.node.split('.').map(Number);
  if (maj < 20 || (maj === 20 && min < 19))
    die(`node ${process.versions.node} is too old: @noble/curves 2.4.0 needs node >= 20.19`);
}

const args = process.argv.slice(2);
if (args.length !== 2) die('usage: gen_noble_vectors.mjs SEED|auto OUTFILE');

let noble, nobleVersion;
try {
  noble = await import('@noble/curves/bls12-381.js');
  // package.json is not in the package's "exports": read it next to the module.
  const dir = dirname(fileURLToPath(import.meta.resolve('@noble/curves/bls12-381.js')));
  nobleVersion = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
} catch (e) {
  die(
    `cannot load @noble/curves (${e.code || e.message}).\n` +
      '  tests/js/node_modules is missing or incomplete: run `npm ci --prefix tests/js` ' +
      'from the repository root (make test does this).'
  );
}
if (nobleVersion !== '2.4.0')
  die(`@noble/curves ${nobleVersion} installed, 2.4.0 expected: run \`npm ci --prefix tests/js\``);

const { bls12_381 } = noble;
const { Fp, Fp2, Fp12, Fr } = bls12_381.fields;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const P = Fp.ORDER;
const R = Fr.ORDER;

// ---- seed and PRNG -----------------------------------------------------------
let seedText = args[0];
if (seedText === 'auto')
  seedText = process.env.CUZK_SEED ? process.env.CUZK_SEED : BigInt('0x' + randomBytes(8).toString('hex')).toString();
let seed;
try {
  seed = BigInt(seedText);
} catch {
  die(`bad seed "${seedText}" (expected a decimal or 0x-hex integer, or auto)`);
}
const M64 = (1n << 64n) - 1n;
seed &= M64;
console.log(`gen_noble_vectors: seed ${seed} (replay with CUZK_SEED=${seed}), @noble/curves ${nobleVersion}`);

// splitmix64 seeds xoshiro256** (same algorithms as tests/harness.h, on BigInt).
const st = [];
{
  let z = seed;
  for (let i = 0; i < 4; i++) {
    z = (z + 0x9e3779b97f4a7c15n) & M64;
    let x = z;
    x = ((x ^ (x >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
    x = ((x ^ (x >> 27n)) * 0x94d049bb133111ebn) & M64;
    st.push(x ^ (x >> 31n));
  }
}
const rotl = (x, k) => ((x << BigInt(k)) | (x >> BigInt(64 - k))) & M64;
function rand64() {
  const result = (rotl((st[1] * 5n) & M64, 7) * 9n) & M64;
  const t = (st[1] << 17n) & M64;
  st[2] ^= st[0];
  st[3] ^= st[1];
  st[1] ^= st[2];
  st[0] ^= st[3];
  st[2] ^= t;
  st[3] = rotl(st[3], 45);
  return result;
}
function randBits(bits) {
  let v = 0n;
  for (let i = 0; i < bits; i += 64) v = (v << 64n) | rand64();
  return v & ((1n << BigInt(bits)) - 1n);
}
// Uniform in [0, m) by rejection.
function randBelow(m) {
  const bits = m.toString(2).length;
  for (;;) {
    const v = randBits(bits);
    if (v < m) return v;
  }
}
const randFp = () => randBelow(P);
const randFr = () => randBelow(R);
const randFrNonzero = () => 1n + randBelow(R - 1n);
const randFp2 = () => Fp2.create({ c0: randFp(), c1: randFp() });

// ---- formatting ----------------------------------------------------------------
const hexN = (v, bytes) => {
  if (v < 0n || v >= 1n << BigInt(8 * bytes)) throw new Error(`value does not fit ${bytes} bytes`);
  return v.toString(16).padStart(2 * bytes, '0');
};
const fp = (v) => hexN(v, 48);
const fr = (v) => hexN(v, 32);
const fp2 = (v) => `${fp(v.c0)} ${fp(v.c1)}`;
const fp12Coeffs = (f) => [f.c0, f.c1].flatMap((g) => [g.c0, g.c1, g.c2]).flatMap((h) => [h.c0, h.c1]);
const fp12 = (f) => fp12Coeffs(f).map(fp).join(' ');
const hexBytes = (b) => Buffer.from(b).toString('hex');
// noble's toBytes refuses an infinity other than the canonical (0, 1, 0), and
// P + (-P) yields another projective form of it: map every infinity to ZERO.
const canon = (pt) => (pt.is0() ? pt.constructor.ZERO : pt);
const comp = (pt) => hexBytes(canon(pt).toBytes(true));
const uncomp = (pt) => hexBytes(canon(pt).toBytes(false));

const lines = [`noble-vectors 1 seed=${seed} noble=${nobleVersion}`];
const counts = {};
function emit(kind, ...tokens) {
  lines.push([kind, ...tokens].join(' '));
  counts[kind] = (counts[kind] || 0) + 1;
}
function assert(cond, what) {
  if (!cond) die(`internal check failed: ${what} (seed ${seed})`);
}

// ---- fields --------------------------------------------------------------------
{
  const edge = [0n, 1n, 2n, P - 1n, P - 2n, (P - 1n) / 2n];
  const vals = [...edge, ...Array.from({ length: 24 }, randFp)];
  for (let i = 0; i < vals.length; i++) {
    const a = vals[i];
    const b = i < edge.length ? vals[(i * 7 + 3) % vals.length] : randFp();
    emit('fp_mul', fp(a), fp(b), fp(Fp.mul(a, b)));
    if (a !== 0n) emit('fp_inv', fp(a), fp(Fp.inv(a)));
    let s = null;
    try {
      s = Fp.sqrt(a);
    } catch {
      s = null;
    }
    emit('fp_sqrt', fp(a), s === null ? '-' : fp(s));
    // Half the random values squared, so both verdicts occur often.
    if (i >= edge.length && i % 2 === 0) {
      const sq = Fp.sqr(a);
      emit('fp_sqrt', fp(sq), fp(Fp.sqrt(sq)));
    }
  }
}
for (let i = 0; i < 20; i++) {
  const a = randFp2();
  const b = i === 0 ? Fp2.ONE : randFp2();
  emit('fp2_mul', fp2(a), fp2(b), fp2(Fp2.mul(a, b)));
  emit('fp2_inv', fp2(a), fp2(Fp2.inv(a)));
  const x = i % 2 ? Fp2.sqr(a) : a;
  let s = null;
  try {
    s = Fp2.sqrt(x);
  } catch {
    s = null;
  }
  emit('fp2_sqrt', fp2(x), s === null ? '- -' : fp2(s));
}
{
  const edge = [0n, 1n, 2n, R - 1n, R - 2n];
  const vals = [...edge, ...Array.from({ length: 25 }, randFr)];
  for (let i = 0; i < vals.length; i++) {
    const a = vals[i];
    const b = i < edge.length ? vals[(i * 5 + 2) % vals.length] : randFr();
    emit('fr_mul', fr(a), fr(b), fr(Fr.mul(a, b)));
    if (a !== 0n) emit('fr_inv', fr(a), fr(Fr.inv(a)));
  }
}
for (let i = 0; i < 10; i++) {
  const rnd12 = () => Fp12.fromBigTwelve(Array.from({ length: 12 }, randFp));
  const a = rnd12();
  const b = rnd12();
  emit('fp12_mul', fp12(a), fp12(b), fp12(Fp12.mul(a, b)));
}

// ---- scalar multiplication ----------------------------------------------------------
// Edge scalars, then random ones. Scalars >= r (up to 2^256-1) test that cuzk's
// multiplication accepts any 256-bit value; noble itself takes k mod r.
const edgeScalars = [0n, 1n, 2n, 3n, R - 1n, R - 2n, R, R + 1n, (1n << 256n) - 1n, 1n << 255n];
const scalars = [...edgeScalars, ...Array.from({ length: 22 }, randFrNonzero)];
for (const [name, G] of [
  ['g1_mul', G1],
  ['g2_mul', G2],
]) {
  for (const k of scalars) {
    const pt = G.BASE.multiplyUnsafe(k % R);
    if (k > 0n && k < R) assert(pt.equals(G.BASE.multiply(k)), 'multiply == multiplyUnsafe');
    emit(name, fr(k), comp(pt), uncomp(pt));
  }
}

// ---- addition -----------------------------------------------------------------------
for (const [name, G] of [
  ['g1_add', G1],
  ['g2_add', G2],
]) {
  const pairs = [
    [0n, 0n],
    [0n, 5n],
    [7n, 0n],
    [1n, 1n],
    [1n, R - 1n],
  ];
  for (let i = 0; i < 20; i++) {
    const a = randFrNonzero();
    const pick = i % 5;
    const b = pick === 0 ? a : pick === 1 ? R - a : randFrNonzero(); // P = Q, Q = -P, general
    pairs.push([a, b]);
  }
  for (const [a, b] of pairs) {
    const Pp = G.BASE.multiplyUnsafe(a);
    const Qp = G.BASE.multiplyUnsafe(b);
    const S = Pp.add(Qp);
    emit(name, fr(a), fr(b), uncomp(Pp), uncomp(Qp), uncomp(S));
  }
}

// ---- points on the curve, in the subgroup or not ----------------------------------
// Bytes are assembled here (noble's toBytes refuses points outside the subgroup).
const setFlags = (bytes, compressed, infinity, largest) => {
  const out = Uint8Array.from(bytes);
  out[0] |= (compressed ? 0x80 : 0) | (infinity ? 0x40 : 0) | (largest ? 0x20 : 0);
  return out;
};
const be = (v) => Buffer.from(fp(v), 'hex');
const largestFp = (y) => y > (P - 1n) / 2n;
const largestFp2 = (y) => (y.c1 !== 0n ? largestFp(y.c1) : largestFp(y.c0));
const encG1 = (x, y) => ({
  comp: setFlags(be(x), true, false, largestFp(y)),
  uncomp: setFlags(Buffer.concat([be(x), be(y)]), false, false, false),
});
const encFp2 = (v) => Buffer.concat([be(v.c1), be(v.c0)]);
const encG2 = (x, y) => ({
  comp: setFlags(encFp2(x), true, false, largestFp2(y)),
  uncomp: setFlags(Buffer.concat([encFp2(x), encFp2(y)]), false, false, false),
});
function nobleAccepts(G, bytes) {
  try {
    G.fromBytes(bytes);
    return true;
  } catch {
    return false;
  }
}
const B1 = 4n;
const B2 = Fp2.create({ c0: 4n, c1: 4n }); // 4(u+1)
const rhs1 = (x) => Fp.add(Fp.mul(Fp.sqr(x), x), B1);
const rhs2 = (x) => Fp2.add(Fp2.mul(Fp2.sqr(x), x), B2);
const trySqrt = (F, v) => {
  try {
    return F.sqrt(v);
  } catch {
    return null;
  }
};
for (const [name, G, F, randX, rhs, enc] of [
  ['g1_curve', G1, Fp, randFp, rhs1, encG1],
  ['g2_curve', G2, Fp2, randFp2, rhs2, encG2],
]) {
  let made = 0;
  while (made < 24) {
    const x = randX();
    let y = trySqrt(F, rhs(x));
    if (y === null) continue;
    if (rand64() & 1n) y = F.neg(y);
    let pt = G.fromAffine({ x, y }); // no validation
    // Every third point is pushed into the subgroup, so both verdicts occur.
    if (made % 3 === 2) pt = pt.clearCofactor();
    const a = pt.toAffine();
    const e = enc(a.x, a.y);
    const okC = nobleAccepts(G, e.comp);
    const okU = nobleAccepts(G, e.uncomp);
    const tf = pt.isTorsionFree();
    assert(okC === okU && okC === tf, `${name}: noble's verdicts disagree`);
    if (okC) assert(hexBytes(e.comp) === comp(pt) && hexBytes(e.uncomp) === uncomp(pt), `${name}: our encoder`);
    emit(name, hexBytes(e.comp), hexBytes(e.uncomp), okC ? 'sub' : 'nosub');
    made++;
  }
}

// ---- encodings noble rejects ------------------------------------------------------
for (const [name, G, F, randX, rhs, enc] of [
  ['g1_bad', G1, Fp, randFp, rhs1, encG1],
  ['g2_bad', G2, Fp2, randFp2, rhs2, encG2],
]) {
  const W = name === 'g1_bad' ? 48 : 96;
  const out = (bytes, reason) => {
    assert(!nobleAccepts(G, bytes), `${name} ${reason}: noble accepted`);
    emit(name, hexBytes(bytes), reason);
  };
  const good = G.BASE.multiplyUnsafe(randFrNonzero());
  const c = good.toBytes(true);
  const u = good.toBytes(false);
  // flags: compressed flag missing on 48/96 bytes, set on 96/192, sort bit on
  // uncompressed, infinity with a nonzero payload, compressed infinity with sort.
  out(Uint8Array.from(c, (v, i) => (i === 0 ? v & 0x7f : v)), 'flags');
  out(Uint8Array.from(u, (v, i) => (i === 0 ? v | 0x80 : v)), 'flags');
  out(Uint8Array.from(u, (v, i) => (i === 0 ? v | 0x20 : v)), 'flags');
  out(Uint8Array.from(c, (v, i) => (i === 0 ? (v & 0x1f) | 0xc0 : v)), 'flags');
  {
    const inf = new Uint8Array(W);
    inf[0] = 0xe0;
    out(inf, 'flags');
    const infU = new Uint8Array(2 * W);
    infU[0] = 0x40;
    infU[2 * W - 1] = 1;
    out(infU, 'flags');
  }
  // noncanonical: the first 48-byte coordinate replaced by itself + p (still
  // < 2^381 for a few values; pick x < 2^381 - p). For G2 the first word is x.c1.
  let made = 0;
  while (made < 4) {
    const xs = randBelow((1n << 381n) - P);
    const big = Buffer.from(hexN(xs + P, 48), 'hex');
    const cc = Uint8Array.from(c);
    cc.set(big, 0);
    cc[0] |= c[0] & 0xe0;
    out(cc, 'noncanonical');
    const uu = Uint8Array.from(u);
    uu.set(big, 0);
    out(uu, 'noncanonical');
    made++;
  }
  // notoncurve: compressed x with no y; uncompressed (x, y+1).
  made = 0;
  while (made < 4) {
    const x = randX();
    if (trySqrt(F, rhs(x)) !== null) continue;
    out(enc(x, F.ONE).comp, 'notoncurve');
    made++;
  }
  for (let i = 0; i < 4; i++) {
    const a = G.BASE.multiplyUnsafe(randFrNonzero()).toAffine();
    out(enc(a.x, F.add(a.y, F.ONE)).uncomp, 'notoncurve');
  }
}

// ---- pairing ------------------------------------------------------------------------
{
  const pairs = [
    [1n, 1n],
    [2n, 1n],
    [1n, 2n],
    [R - 1n, 1n],
  ];
  for (let i = 0; i < 12; i++) pairs.push([randFrNonzero(), randFrNonzero()]);
  for (const [a, b] of pairs) {
    const Pp = G1.BASE.multiplyUnsafe(a);
    const Qp = G2.BASE.multiplyUnsafe(b);
    const f = bls12_381.pairing(Pp, Qp);
    emit('pairing', fr(a), fr(b), uncomp(Pp), uncomp(Qp), fp12(f));
  }
}

// Products of pairings, every other one equal to 1 by construction:
// e(a1 G1, b1 G2) ... e(a_{n-1} G1, b_{n-1} G2) e(c G1, G2) with
// c = -(a1 b1 + ... ) mod r gives 1; c + 1 instead gives e(G1, G2) != 1.
for (let i = 0; i < 8; i++) {
  const one = i % 2 === 0;
  const n = 2 + (i % 3); // 2, 3 or 4 pairs
  const pairs = [];
  let acc = 0n;
  for (let j = 0; j + 1 < n; j++) {
    const a = randFrNonzero();
    const b = randFrNonzero();
    acc = Fr.add(acc, Fr.mul(a, b));
    pairs.push([G1.BASE.multiplyUnsafe(a), G2.BASE.multiplyUnsafe(b)]);
  }
  const c = Fr.add(Fr.neg(acc), one ? 0n : 1n);
  pairs.push([G1.BASE.multiplyUnsafe(c), G2.BASE]);
  const f = bls12_381.pairingBatch(pairs.map(([g1, g2]) => ({ g1, g2 })));
  const isOne = Fp12.eql(f, Fp12.ONE);
  assert(isOne === one, 'pairing_batch: noble breaks bilinearity');
  emit(
    'pairing_batch',
    String(n),
    pairs.map(([p1, p2]) => `${uncomp(p1)} ${uncomp(p2)}`).join(' '),
    fp12(f),
    isOne ? 'one' : 'notone'
  );
}

lines.push('end');
writeFileSync(args[1], lines.join('\n') + '\n');
console.log(
  `gen_noble_vectors: wrote ${args[1]}: ` +
    Object.entries(counts)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')
);
