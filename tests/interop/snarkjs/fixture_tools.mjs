#!/usr/bin/env node
// fixture_tools.mjs COMMAND ARGS...
//
// Helpers for the snarkjs/circom Groth16 fixtures (tests/interop/fixtures.sh,
// tests/interop/check_groth16.sh). Written from the iden3 container, .wtns,
// .r1cs and snarkjs JSON formats with plain BigInt arithmetic, so they judge
// r1cs/wtns files independently of snarkjs (ffjavascript) and of cuzk. @noble/curves (an
// independent curve implementation) is loaded only by the commands that need
// point arithmetic or a pairing.
//
//   power R1CS                    the domain power k snarkjs setup needs:
//                                 floor(log2(m + nPublic)) + 1
//   check R1CS WTNS               exit 0 when the witness satisfies every
//                                 constraint, 1 (and the first bad ones) when not
//   bad-witness R1CS WTNS OUT.wtns OUT.json
//                                 copy WTNS with one wire changed (+1 mod r): the
//                                 first internal wire whose change breaks a
//                                 constraint (a private input when there is no
//                                 internal wire). OUT.json records the wire, its
//                                 old and new value and the unsatisfied
//                                 constraints (0-based r1cs order).
//   tamper PROOF PUBLIC OUTDIR    write invalid variants of a snarkjs proof.json
//                                 and public.json into OUTDIR (names below)
//   verify VK PUBLIC PROOF        a Groth16 verifier on @noble/curves: exit 0 for
//                                 a valid proof, 1 for an invalid one, 2 for
//                                 malformed input
//   expected NAME INPUT.json      the public signals circuit NAME must output for
//                                 INPUT, computed here independently of circom
//                                 (exit 3 when there is no model for NAME)
//
// Tampered variants (tamper): each must be rejected by any verifier.
//   proof_tampered.json      pi_a negated: a valid subgroup point, wrong proof
//   proof_offcurve.json      pi_c with y + 1: not on the curve
//   proof_notsubgroup.json   pi_a replaced by a point of E(Fq) outside the
//                            r-torsion (on the curve, fails only a subgroup check
//                            or the pairing)
//   public_tampered.json     first public signal + 1 mod r
//   public_noncanonical.json first public signal + r (same value mod r, >= r)
//   public_short.json        the last public signal dropped

import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const JS_DIR = process.env.CUZK_JS_DIR || join(HERE, '..', '..', 'js');

// BLS12-381 base field and group order (also checked against noble's
// constants when noble is loaded).
const Q = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn;
const R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;

function die(msg, code = 2) {
  process.stderr.write(`fixture_tools: ${msg}\n`);
  process.exit(code);
}

// ---- iden3 binary container ------------------------------------------------

function readBin(path, magic) {
  const buf = readFileSync(path);
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== magic) die(`${path}: not a ${magic} file`);
  const nSections = buf.readUInt32LE(8);
  const sections = new Map();
  let off = 12;
  for (let i = 0; i < nSections; i++) {
    if (off + 12 > buf.length) die(`${path}: section header ${i} runs past the end`);
    const id = buf.readUInt32LE(off);
    const size = Number(buf.readBigUInt64LE(off + 4));
    off += 12;
    if (off + size > buf.length) die(`${path}: section ${id} runs past the end`);
    if (sections.has(id)) die(`${path}: duplicate section ${id}`);
    sections.set(id, { off, size });
    off += size;
  }
  return { buf, sections, version: buf.readUInt32LE(4) };
}

function section(f, id, path) {
  const s = f.sections.get(id);
  if (!s) die(`${path}: no section ${id}`);
  return s;
}

function leToBig(buf, off, n) {
  let hex = '';
  for (let i = n - 1; i >= 0; i--) hex += buf[off + i].toString(16).padStart(2, '0');
  return BigInt('0x' + hex);
}

function bigToLe(v, buf, off, n) {
  for (let i = 0; i < n; i++) {
    buf[off + i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

function readR1cs(path) {
  const f = readBin(path, 'r1cs');
  const h = section(f, 1, path);
  const b = f.buf;
  let o = h.off;
  const fs = b.readUInt32LE(o);
  o += 4;
  const prime = leToBig(b, o, fs);
  o += fs;
  const hdr = {
    fs,
    prime,
    nWires: b.readUInt32LE(o),
    nPubOut: b.readUInt32LE(o + 4),
    nPubIn: b.readUInt32LE(o + 8),
    nPrvIn: b.readUInt32LE(o + 12),
    nLabels: b.readBigUInt64LE(o + 16),
    nConstraints: b.readUInt32LE(o + 24),
  };
  hdr.nPublic = hdr.nPubOut + hdr.nPubIn;
  if (prime !== R) die(`${path}: prime is not the BLS12-381 group order (compile with --prime bls12381)`);
  return { f, hdr };
}

// Constraints as arrays of [wire, coefficient] per A, B, C.
function r1csConstraints(r) {
  const s = section(r.f, 2, 'r1cs');
  const b = r.f.buf;
  const fs = r.hdr.fs;
  let o = s.off;
  const out = [];
  for (let c = 0; c < r.hdr.nConstraints; c++) {
    const lcs = [];
    for (let k = 0; k < 3; k++) {
      const n = b.readUInt32LE(o);
      o += 4;
      const lc = [];
      for (let t = 0; t < n; t++) {
        lc.push([b.readUInt32LE(o), leToBig(b, o + 4, fs)]);
        o += 4 + fs;
      }
      lcs.push(lc);
    }
    out.push(lcs);
  }
  if (o !== s.off + s.size) die(`r1cs: section 2 has ${s.off + s.size - o} bytes left over`);
  return out;
}

function readWtns(path) {
  const f = readBin(path, 'wtns');
  const h = section(f, 1, path);
  const b = f.buf;
  const n8 = b.readUInt32LE(h.off);
  const prime = leToBig(b, h.off + 4, n8);
  const nWitness = b.readUInt32LE(h.off + 4 + n8);
  const d = section(f, 2, path);
  if (d.size !== n8 * nWitness) die(`${path}: section 2 holds ${d.size} bytes, expected ${n8 * nWitness}`);
  const w = new Array(nWitness);
  for (let i = 0; i < nWitness; i++) w[i] = leToBig(b, d.off + i * n8, n8);
  return { f, n8, prime, w, dataOff: d.off };
}

function evalLc(lc, w, p) {
  let acc = 0n;
  for (const [wire, coef] of lc) acc += coef * w[wire];
  return acc % p;
}

function unsatisfied(cons, w, p, limit = Infinity) {
  const bad = [];
  for (let c = 0; c < cons.length && bad.length < limit; c++) {
    const [a, b, cc] = cons[c];
    if ((evalLc(a, w, p) * evalLc(b, w, p) - evalLc(cc, w, p)) % p !== 0n) bad.push(c);
  }
  return bad;
}

function loadPair(r1csPath, wtnsPath) {
  const r = readR1cs(r1csPath);
  const wt = readWtns(wtnsPath);
  if (wt.prime !== r.hdr.prime) die(`${wtnsPath}: prime differs from ${r1csPath}`);
  if (wt.w.length !== r.hdr.nWires) die(`${wtnsPath}: ${wt.w.length} values, the r1cs has ${r.hdr.nWires} wires`);
  if (wt.w[0] !== 1n) die(`${wtnsPath}: w[0] = ${wt.w[0]}, expected 1`);
  return { r, wt, cons: r1csConstraints(r) };
}

// ---- commands -----------------------------------------------------------------

function cmdPower([r1csPath]) {
  const { hdr } = readR1cs(r1csPath);
  const n = hdr.nConstraints + hdr.nPublic;
  let k = 0;
  while (2 ** (k + 1) <= n) k++; // floor(log2 n)
  console.log(k + 1);
}

function cmdCheck([r1csPath, wtnsPath]) {
  const { r, wt, cons } = loadPair(r1csPath, wtnsPath);
  const bad = unsatisfied(cons, wt.w, r.hdr.prime, 10);
  if (bad.length === 0) {
    console.log(`${wtnsPath}: all ${cons.length} constraints satisfied`);
    return;
  }
  console.log(`${wtnsPath}: unsatisfied constraint(s) ${bad.join(', ')}${bad.length === 10 ? ', ...' : ''}`);
  process.exit(1);
}

function cmdBadWitness([r1csPath, wtnsPath, outWtns, outJson]) {
  const { r, wt, cons } = loadPair(r1csPath, wtnsPath);
  const p = r.hdr.prime;
  if (unsatisfied(cons, wt.w, p, 1).length) die(`${wtnsPath}: the original witness does not satisfy the r1cs`);
  const firstInternal = 1 + r.hdr.nPublic + r.hdr.nPrvIn;
  // Internal wires first, then (tiny circuits) the private inputs.
  const order = [];
  for (let i = firstInternal; i < r.hdr.nWires; i++) order.push(i);
  for (let i = firstInternal - 1; i > r.hdr.nPublic; i--) order.push(i);
  // Constraints that mention each wire, to test few candidates cheaply.
  const uses = new Map();
  cons.forEach((lcs, c) => {
    for (const lc of lcs) for (const [wire] of lc) (uses.get(wire) || uses.set(wire, new Set()).get(wire)).add(c);
  });
  for (const wire of order) {
    if (!uses.has(wire)) continue;
    const w = wt.w.slice();
    w[wire] = (w[wire] + 1n) % p;
    const bad = [...uses.get(wire)].sort((x, y) => x - y).filter((c) => unsatisfied([cons[c]], w, p).length);
    if (bad.length === 0) continue;
    const buf = Buffer.from(wt.f.buf);
    bigToLe(w[wire], buf, wt.dataOff + wire * wt.n8, wt.n8);
    writeFileSync(outWtns, buf);
    // Re-read what we wrote and recheck the whole system.
    const all = unsatisfied(cons, readWtns(outWtns).w, p);
    if (all.join() !== bad.join()) die('bad-witness: rechecking the written file disagrees');
    const meta = {
      wire,
      kind: wire >= firstInternal ? 'internal' : 'private input',
      old: wt.w[wire].toString(),
      new: w[wire].toString(),
      unsatisfied: bad,
      first_unsatisfied: bad[0],
    };
    writeFileSync(outJson, JSON.stringify(meta, null, 1) + '\n');
    console.log(`bad witness: wire ${wire} (${meta.kind}) + 1 breaks constraint(s) ${bad.join(', ')}`);
    return;
  }
  die('bad-witness: no single-wire change breaks a constraint');
}

// Fq helpers (BigInt) for the proof variants.
const mod = (a, m) => ((a % m) + m) % m;
function powmod(b, e, m) {
  let r = 1n;
  b = mod(b, m);
  for (; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) r = (r * b) % m;
  return r;
}
const onCurveG1 = (x, y) => mod(y * y - (x * x * x + 4n), Q) === 0n;

async function loadNoble() {
  const path = join(JS_DIR, 'node_modules', '@noble', 'curves', 'bls12-381.js');
  let m;
  try {
    m = await import(pathToFileURL(path).href);
  } catch (e) {
    die(`cannot load ${path} (${e.code || e.message}): run npm ci --prefix tests/js`);
  }
  const { bls12_381 } = m;
  if (bls12_381.fields.Fp.ORDER !== Q || bls12_381.fields.Fr.ORDER !== R) die('noble constants differ from ours');
  return bls12_381;
}

async function cmdTamper([proofPath, publicPath, outDir]) {
  const bls = await loadNoble();
  const proof = JSON.parse(readFileSync(proofPath, 'utf8'));
  const pub = JSON.parse(readFileSync(publicPath, 'utf8'));
  mkdirSync(outDir, { recursive: true });
  const put = (name, v) => writeFileSync(join(outDir, name), JSON.stringify(v, null, 1) + '\n');
  const [ax, ay] = proof.pi_a.map(BigInt);
  const [cx, cy] = proof.pi_c.map(BigInt);
  if (!onCurveG1(ax, ay) || !onCurveG1(cx, cy)) die(`${proofPath}: pi_a or pi_c is not on the curve`);

  put('proof_tampered.json', { ...proof, pi_a: [ax.toString(), (Q - ay).toString(), '1'] });

  let y2 = mod(cy + 1n, Q);
  while (onCurveG1(cx, y2)) y2 = mod(y2 + 1n, Q);
  put('proof_offcurve.json', { ...proof, pi_c: [cx.toString(), y2.toString(), '1'] });

  // The first x >= 1 with x^3 + 4 a square gives a point of E(Fq); noble
  // confirms it is outside the r-torsion (the cofactor is ~2^126).
  for (let x = 1n; ; x++) {
    const rhs = mod(x * x * x + 4n, Q);
    const y = powmod(rhs, (Q + 1n) / 4n, Q); // q = 3 mod 4
    if ((y * y) % Q !== rhs) continue;
    const P = bls.G1.Point.fromAffine({ x, y });
    if (P.isTorsionFree()) continue;
    put('proof_notsubgroup.json', { ...proof, pi_a: [x.toString(), y.toString(), '1'] });
    break;
  }

  if (!Array.isArray(pub) || pub.length === 0) die(`${publicPath}: expected a non-empty array`);
  const p0 = BigInt(pub[0]);
  put('public_tampered.json', [mod(p0 + 1n, R).toString(), ...pub.slice(1)]);
  put('public_noncanonical.json', [(p0 + R).toString(), ...pub.slice(1)]);
  put('public_short.json', pub.slice(0, -1));
}

// Groth16 verification: with the snarkjs convention
// e(A, B) = e(alpha, beta) * e(IC0 + sum pub_i IC_i, gamma) * e(C, delta).
async function cmdVerify([vkPath, publicPath, proofPath]) {
  const bls = await loadNoble();
  const { Fp2, Fp12 } = bls.fields;
  const G1 = bls.G1.Point;
  const G2 = bls.G2.Point;
  let vk, pub, proof;
  try {
    vk = JSON.parse(readFileSync(vkPath, 'utf8'));
    pub = JSON.parse(readFileSync(publicPath, 'utf8'));
    proof = JSON.parse(readFileSync(proofPath, 'utf8'));
  } catch (e) {
    die(`cannot read inputs: ${e.message}`);
  }
  const fe = (s, m) => {
    if (typeof s !== 'string' || !/^[0-9]+$/.test(s)) throw new Error(`not a decimal string: ${s}`);
    const v = BigInt(s);
    if (v >= m) throw new Error(`not canonical: ${s}`);
    return v;
  };
  const g1 = (p) => {
    if (p[2] === '0') return G1.ZERO;
    if (p[2] !== '1') throw new Error('G1 z must be 1 or 0');
    const P = G1.fromAffine({ x: fe(p[0], Q), y: fe(p[1], Q) });
    P.assertValidity(); // on the curve and in the subgroup
    return P;
  };
  const g2 = (p) => {
    if (p[2][0] === '0' && p[2][1] === '0') return G2.ZERO;
    if (p[2][0] !== '1' || p[2][1] !== '0') throw new Error('G2 z must be 1 or 0');
    const f2 = (c) => Fp2.create({ c0: fe(c[0], Q), c1: fe(c[1], Q) });
    const P = G2.fromAffine({ x: f2(p[0]), y: f2(p[1]) });
    P.assertValidity();
    return P;
  };
  let ok;
  try {
    if (vk.protocol !== 'groth16' || proof.protocol !== 'groth16') throw new Error('protocol is not groth16');
    if (!Array.isArray(pub) || pub.length !== vk.nPublic || vk.IC.length !== vk.nPublic + 1)
      throw new Error(`public has ${pub.length} signals, the key ${vk.nPublic}`);
    let acc = g1(vk.IC[0]);
    pub.forEach((s, i) => {
      acc = acc.add(g1(vk.IC[i + 1]).multiplyUnsafe(fe(s, R)));
    });
    const pairs = [
      [g1(proof.pi_a), g2(proof.pi_b)],
      [g1(vk.vk_alpha_1).negate(), g2(vk.vk_beta_2)],
      [acc.negate(), g2(vk.vk_gamma_2)],
      [g1(proof.pi_c).negate(), g2(vk.vk_delta_2)],
    ].filter(([a, b]) => !a.equals(G1.ZERO) && !b.equals(G2.ZERO)); // e(0, .) = 1; noble throws on it
    ok = Fp12.eql(bls.pairingBatch(pairs.map(([a, b]) => ({ g1: a, g2: b }))), Fp12.ONE);
  } catch (e) {
    console.log(`noble verify: rejected (${e.message})`);
    process.exit(1);
  }
  console.log(`noble verify: ${ok ? 'OK' : 'INVALID'}`);
  process.exit(ok ? 0 : 1);
}

// Independent models of the circuits in tests/interop/circuits.
async function cmdExpected([name, inputPath]) {
  const inp = JSON.parse(readFileSync(inputPath, 'utf8'));
  let out;
  if (name === 'multiplier') {
    out = [mod(BigInt(inp.a) * BigInt(inp.b), R)];
  } else if (name === 'multi_public') {
    const [x, y, z] = [inp.x, inp.y, inp.z].map(BigInt);
    const k = inp.k.map(BigInt);
    let s = mod(x + 7n * y - z, R);
    let c = 0x3141592653589793238462643383279502884197169399375105820974944592n;
    for (let i = 0; i < 36; i++) { // MultiPublic(36)
      c = mod(c * 0x2718281828459045235360287471352662497757247093699959574966967627n + 0x1618033988749894848204586834365638117720309179805762862135448622n, R);
      const t = i % 3 === 0 ? s + k[0] + c : i % 3 === 1 ? s + k[1] - c : s + 5n * z + c;
      s = powmod(t, 5n, R);
    }
    const lt = x < y && mod(k[1] - z, R) !== 0n ? 1n : 0n;
    out = [s, lt, x, y, z];
  } else if (name === 'sha256') {
    const { createHash } = await import('node:crypto');
    const d = createHash('sha256').update(Buffer.from(inp.msg.map(Number))).digest('hex');
    out = [BigInt('0x' + d.slice(0, 32)), BigInt('0x' + d.slice(32))];
  } else {
    die(`no model for circuit ${name}`, 3);
  }
  console.log(JSON.stringify(out.map(String)));
}

const [cmd, ...args] = process.argv.slice(2);
const table = {
  power: [cmdPower, 1],
  check: [cmdCheck, 2],
  'bad-witness': [cmdBadWitness, 4],
  tamper: [cmdTamper, 3],
  verify: [cmdVerify, 3],
  expected: [cmdExpected, 2],
};
if (!table[cmd] || args.length !== table[cmd][1])
  die('usage: fixture_tools.mjs power|check|bad-witness|tamper|verify|expected ARGS (see the header)');
await table[cmd][0](args);
