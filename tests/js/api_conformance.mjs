// api_conformance.mjs — a real `cuzk daemon` (CPU backend, a temporary Unix
// socket and a 127.0.0.1 TCP port) against doc/openapi.json and doc/api.md.
//
//   node api_conformance.mjs --cuzk BUILD/cuzk [--source REPO] [--keep]
//
// Every answer is checked by openapi_check.mjs: its status code is one the
// document lists for the operation the request reaches (404 for an unknown
// route, 405 with Allow for another method, 401 over TCP without the token),
// its Content-Type is a listed one and a JSON body validates against the
// listed schema. On top of that each step checks what doc/api.md says the
// answer means (ids, states, idempotent request ids, queue order, paging,
// the proofs themselves: `cuzk groth16 verify` / `cuzk verify` and snarkjs
// verify them, @noble/curves re-encodes proof_json to the hex encoding).
// At the end every operation of the document must have been answered with
// a 2xx at least once, and doc/api.md must name exactly the document's
// routes. Exit status 0 when all is well, 1 with the failures listed; the
// temporary folder (/tmp/api-conf-*) is kept when something failed.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync,
  symlinkSync, writeFileSync,
} from 'node:fs';
import http from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

import {
  METHODS, checkAnswer, checkDocument, findOperation, needsToken, operationKeys, selfTest, validate,
} from './openapi_check.mjs';

// ---- arguments -------------------------------------------------------------------

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
let CUZK = null;
let SRC = resolve(here, '..', '..');
let KEEP = false;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--cuzk') CUZK = resolve(argv[++i]);
  else if (argv[i] === '--source') SRC = resolve(argv[++i]);
  else if (argv[i] === '--keep') KEEP = true;
  else { console.error(`api_conformance: unknown argument ${argv[i]}`); process.exit(2); }
}
if (!CUZK) { console.error('usage: node api_conformance.mjs --cuzk BUILD/cuzk [--source REPO] [--keep]'); process.exit(2); }

const DOC_PATH = join(SRC, 'doc', 'openapi.json');
const API_MD = join(SRC, 'doc', 'api.md');
const SAMPLE = join(SRC, 'examples', 'sample');
const doc = JSON.parse(readFileSync(DOC_PATH, 'utf8'));

// ---- bookkeeping -----------------------------------------------------------------

const failures = [];
const coverage = new Map(); // "METHOD /template" -> Set of statuses
let step = '';
const fail = (msg) => { failures.push(`[${step}] ${msg}`); console.log(`  FAIL ${msg}`); };
const expect = (cond, msg) => { if (!cond) fail(msg); return !!cond; };
const section = (name) => { step = name; console.log(`-- ${name}`); };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- the daemon's files ----------------------------------------------------------

const TMP = mkdtempSync('/tmp/api-conf-');
const SOCK = join(TMP, 'd.sock');
const TOKEN = randomBytes(24).toString('hex');
const SPOOL = join(TMP, 'spool');
const LOG = join(TMP, 'daemon.log');
let PORT = 0;
let daemon = null;
let daemonExit = null;


// ---- HTTP --------------------------------------------------------------------------

// One request on a fresh connection. via: 'unix' or 'tcp'. body: Buffer or
// string. partial: send this many body bytes, then the rest only if no
// answer came within 2 s (a server may answer 413 before the whole body).
// chunked: the body without Content-Length, in chunks.
function request(via, method, path, { headers = {}, body, token, timeoutMs = 150000, partial, chunked } = {}) {
  return new Promise((res, rej) => {
    const h = { ...headers };
    if (token !== undefined) h.Authorization = `Bearer ${token}`;
    const buf = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body);
    if (buf !== undefined && !chunked) h['Content-Length'] = String(buf.length);
    if (chunked) h['Transfer-Encoding'] = 'chunked';
    const opt = { method, path, headers: h, agent: false };
    if (via === 'unix') opt.socketPath = SOCK;
    else { opt.host = '127.0.0.1'; opt.port = PORT; }
    let done = false;
    const finish = (f, v) => { if (!done) { done = true; clearTimeout(timer); f(v); } };
    const req = http.request(opt, (r) => {
      const chunks = [];
      r.on('data', (c) => chunks.push(c));
      r.on('end', () => finish(res, { status: r.statusCode, headers: r.headers, body: Buffer.concat(chunks) }));
      r.on('error', (e) => finish(rej, e));
    });
    const timer = setTimeout(() => { req.destroy(new Error(`no answer in ${timeoutMs} ms`)); }, timeoutMs);
    req.on('error', (e) => finish(rej, e));
    if (buf === undefined) req.end();
    else if (chunked) {
      for (let i = 0; i < buf.length; i += 16384) req.write(buf.subarray(i, i + 16384));
      req.end();
    } else if (partial === undefined || partial >= buf.length) req.end(buf);
    else {
      req.write(buf.subarray(0, partial));
      setTimeout(() => { if (!done && !req.destroyed) req.end(buf.subarray(partial)); }, 2000);
    }
  });
}

// A request whose answer is checked against the document; returns the answer
// with .json (the parsed body, when JSON). what: what the step expects, for messages.
async function call(via, method, path, opt = {}) {
  const url = new URL(path, 'http://x');
  let r;
  try {
    r = await request(via, method, path, opt);
  } catch (e) {
    fail(`${method} ${path} over ${via}: ${e.message}`);
    return { status: 0, headers: {}, body: Buffer.alloc(0), json: undefined };
  }
  const { errors, opKey, json } = checkAnswer(doc, method, url.pathname, r);
  for (const e of errors) fail(`contract: ${e} (body: ${r.body.toString('utf8').slice(0, 300)})`);
  if (!coverage.has(opKey)) coverage.set(opKey, new Set());
  coverage.get(opKey).add(r.status);
  r.json = json;
  return r;
}

const jsonBody = (v) => ({ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(v) });

// A multipart/form-data body: parts {name, value} or {name, filename, data}.
function multipart(parts, { boundary = `cuzk${randomBytes(12).toString('hex')}`, close = true } = {}) {
  const bufs = [];
  for (const p of parts) {
    let h = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"`;
    if (p.filename !== undefined) h += `; filename="${p.filename}"\r\nContent-Type: application/octet-stream`;
    bufs.push(Buffer.from(`${h}\r\n\r\n`), Buffer.from(p.data ?? p.value), Buffer.from('\r\n'));
  }
  if (close) bufs.push(Buffer.from(`--${boundary}--\r\n`));
  return { headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` }, body: Buffer.concat(bufs) };
}

// expect an answer's status (and, for errors, that the message is not empty)
function expectStatus(r, want, what) {
  const list = Array.isArray(want) ? want : [want];
  const ok = expect(list.includes(r.status), `${what}: status ${r.status}, expected ${list.join(' or ')} (body: ${r.body.toString('utf8').slice(0, 300)})`);
  if (ok && r.status >= 400 && r.json && r.json.error) expect(r.json.error.message.length > 0, `${what}: an error with an empty message`);
  return ok;
}

// ---- the daemon ----------------------------------------------------------------------

// Starts the daemon and waits until it answers on its socket and its log
// names the TCP port it took (it listens on port 0: no port is picked here
// that another process could take before the daemon binds it).
async function startDaemon(confPath, overrides) {
  const fs = await import('node:fs');
  const logFd = fs.openSync(LOG, 'a');
  const logFrom = fs.fstatSync(logFd).size;
  daemonExit = null;
  daemon = spawn(CUZK, ['daemon', '--config', confPath, ...overrides], { stdio: ['ignore', logFd, logFd] });
  daemon.on('exit', (code, signal) => { daemonExit = { code, signal }; });
  const t0 = Date.now();
  while (Date.now() - t0 < 60000) {
    if (daemonExit) break;
    try {
      const r = await request('unix', 'GET', '/v1/status', { timeoutMs: 5000 });
      const m = readFileSync(LOG).subarray(logFrom).toString('utf8')
        .match(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
      if (r.status === 200 && m) {
        PORT = Number(m[1]);
        return true;
      }
    } catch { /* not listening yet */ }
    await sleep(100);
  }
  fail(`the daemon did not answer GET /v1/status within 60 s (exit: ${JSON.stringify(daemonExit)}); its log:\n${logTail()}`);
  return false;
}

function logTail() {
  try { return readFileSync(LOG, 'utf8').split('\n').slice(-40).join('\n'); } catch { return '(no log)'; }
}

async function waitExit(ms) {
  const t0 = Date.now();
  while (!daemonExit && Date.now() - t0 < ms) await sleep(50);
  return daemonExit;
}

// ---- proofs ----------------------------------------------------------------------------

let noble = null;
let snarkjs = null;
const VK_SAMPLE = join(SAMPLE, 'verification_key.json');

// proof_json re-encoded with @noble/curves (zcash/bellman compressed points), in hex
function encodeProofJson(p) {
  const { bls12_381 } = noble;
  const Fp2 = bls12_381.fields.Fp2;
  const g2 = (v) => Fp2.create({ c0: BigInt(v[0]), c1: BigInt(v[1]) });
  const a = bls12_381.G1.Point.fromAffine({ x: BigInt(p.pi_a[0]), y: BigInt(p.pi_a[1]) });
  const b = bls12_381.G2.Point.fromAffine({ x: g2(p.pi_b[0]), y: g2(p.pi_b[1]) });
  const c = bls12_381.G1.Point.fromAffine({ x: BigInt(p.pi_c[0]), y: BigInt(p.pi_c[1]) });
  return Buffer.concat([a.toBytes(true), b.toBytes(true), c.toBytes(true)]).toString('hex');
}

let verifiedWithSnarkjs = false;

// Checks a result answer (JSON) of a job: shape against the job, every
// partition's proof verified. kind: 'snarkjs' (vk: verification_key.json)
// or 'bellman' (vk: a .vk file).
async function checkResult(res, job, kind, vk, what) {
  if (!expect(res && res.proofs, `${what}: no result`)) return;
  expect(res.id === job.id && res.key === job.key && res.partitions === job.partitions,
    `${what}: result id/key/partitions ${res.id}/${res.key}/${res.partitions}, job ${job.id}/${job.key}/${job.partitions}`);
  expect(res.format === kind, `${what}: format ${res.format}, expected ${kind}`);
  expect(res.proofs.length === job.partitions, `${what}: ${res.proofs.length} proofs for ${job.partitions} partitions`);
  for (let i = 0; i < res.proofs.length; i++) {
    const p = res.proofs[i];
    const w = `${what} partition ${i}`;
    expect(p.partition === i, `${w}: partition field ${p.partition}`);
    const dir = mkdtempSync(join(TMP, 'proof-'));
    if (kind === 'snarkjs') {
      if (!expect(p.proof_json, `${w}: no proof_json for a snarkjs key`)) continue;
      expect(p.proof_json.pi_a[2] === '1' && p.proof_json.pi_c[2] === '1' &&
        p.proof_json.pi_b[2][0] === '1' && p.proof_json.pi_b[2][1] === '0', `${w}: proof_json not affine (z != 1)`);
      try {
        expect(encodeProofJson(p.proof_json) === p.proof, `${w}: proof (hex) is not proof_json's points compressed`);
      } catch (e) {
        fail(`${w}: proof_json's points: ${e.message}`);
      }
      writeFileSync(join(dir, 'proof.json'), JSON.stringify(p.proof_json));
      writeFileSync(join(dir, 'public.json'), JSON.stringify(p.public));
      const v = spawnSync(CUZK, ['groth16', 'verify', vk, join(dir, 'public.json'), join(dir, 'proof.json')], { encoding: 'utf8' });
      expect(v.status === 0, `${w}: cuzk groth16 verify refused the daemon's proof: ${v.stdout}${v.stderr}`);
      if (snarkjs && !verifiedWithSnarkjs) {
        verifiedWithSnarkjs = true;
        const ok = await snarkjs.groth16.verify(JSON.parse(readFileSync(vk, 'utf8')), p.public, p.proof_json);
        expect(ok === true, `${w}: snarkjs groth16 verify refused the daemon's proof`);
      }
    } else {
      expect(p.proof_json === undefined, `${w}: proof_json for a bellman key`);
      writeFileSync(join(dir, 'proof.bin'), Buffer.from(p.proof, 'hex'));
      writeFileSync(join(dir, 'inputs.txt'), p.public.join('\n') + '\n');
      const v = spawnSync(CUZK, ['verify', '--vk', vk, '--inputs', join(dir, 'inputs.txt'), join(dir, 'proof.bin')], { encoding: 'utf8' });
      expect(v.status === 0, `${w}: cuzk verify refused the daemon's proof with its public inputs: ${v.stdout}${v.stderr}`);
    }
  }
}

// ---- the document itself ---------------------------------------------------------------------

function checkTheDocuments() {
  section('the documents');
  for (const p of [...selfTest(), ...checkDocument(doc)]) fail(`openapi_check: ${p}`);
  const md = readFileSync(API_MD, 'utf8');
  // every "METHOD /path" api.md names is an operation of the document, and the other way round
  const named = new Set();
  for (const m of md.matchAll(/`(GET|POST|PUT|PATCH|DELETE)\s+(\/[^`?\s]*)/g)) named.add(`${m[1]} ${m[2]}`);
  const ops = new Set(operationKeys(doc));
  for (const k of named) expect(ops.has(k), `doc/api.md names ${k}, doc/openapi.json has no such operation`);
  for (const k of ops) expect(named.has(k), `doc/openapi.json has ${k}, doc/api.md does not name it`);
  // api.md's complete JSON examples validate against the document's schemas
  const blocks = [...md.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]);
  const parsed = blocks.map((b) => { try { return JSON.parse(b); } catch { return undefined; } });
  const job = parsed.find((v) => v && v.state !== undefined && v.queue_position !== undefined);
  const status = parsed.find((v) => v && v.engine !== undefined && v.uptime_s !== undefined);
  const S = (n) => ({ $ref: `#/components/schemas/${n}` });
  if (expect(job, 'doc/api.md: no complete JSON example of a job')) {
    for (const e of validate(doc, S('Job'), job, 'api.md job')) fail(e);
    expect(validate(doc, S('Job'), { ...job, extra: 1 }).length > 0, 'Job accepts an unknown field');
    expect(validate(doc, S('Job'), { ...job, state: 'paused' }).length > 0, 'Job accepts an unknown state');
    const { error: _e, ...noError } = job;
    expect(validate(doc, S('Job'), noError).length > 0, 'Job accepts a job without its error field');
    expect(validate(doc, S('Job'), { ...job, error: { status: 'ERR_WITNESS_UNSATISFIED', message: 'partition 3: x' } }).length === 0,
      'Job refuses a failed job\'s error');
  }
  if (expect(status, 'doc/api.md: no complete JSON example of the status')) {
    for (const e of validate(doc, S('DaemonStatus'), status, 'api.md status')) fail(e);
  }
  const err = md.match(/\{"error": \{"status": "([A-Z_]+)"/);
  if (expect(err, 'doc/api.md: no example of the error object')) {
    expect(validate(doc, S('Status'), err[1]).length === 0, `doc/api.md's error example status ${err[1]} is not a status name`);
  }
}

// ---- the test ---------------------------------------------------------------------------------

async function main() {
  console.log(`api_conformance: ${CUZK} against ${DOC_PATH}; files in ${TMP}`);
  checkTheDocuments();

  section('fixtures');
  try {
    noble = await import('@noble/curves/bls12-381.js');
  } catch (e) {
    fail(`@noble/curves is not installed in tests/js (npm ci --prefix tests/js): ${e.message}`);
    return;
  }
  try { snarkjs = await import('snarkjs'); } catch { snarkjs = null; console.log('  (snarkjs not installed: proofs verified by cuzk and re-encoded by noble only)'); }
  // a witness that does not satisfy the sample circuit: public output 1 plus one
  const wtns = readFileSync(join(SAMPLE, 'witness.wtns'));
  const bad = Buffer.from(wtns);
  {
    // wtns: "wtns", version, nSections, then (type u32, size u64, data)...; section 2 holds the values
    let off = 12;
    let n8 = 32;
    let values = -1;
    while (off < bad.length) {
      const type = bad.readUInt32LE(off);
      const size = Number(bad.readBigUInt64LE(off + 4));
      if (type === 1) n8 = bad.readUInt32LE(off + 12);
      if (type === 2) values = off + 12;
      off += 12 + size;
    }
    if (!expect(values > 0, 'the sample witness has no values section')) return;
    bad[values + n8] ^= 1; // witness[1], the first public output
  }
  const BAD_WTNS = join(TMP, 'bad.wtns');
  writeFileSync(BAD_WTNS, bad);
  const WTNS = join(TMP, 'w.wtns');
  symlinkSync(join(SAMPLE, 'witness.wtns'), WTNS);
  const chk = spawnSync(CUZK, ['wtns', 'check', join(SAMPLE, 'circuit.r1cs'), BAD_WTNS], { encoding: 'utf8' });
  expect(chk.status !== 0, `the altered witness still satisfies the sample circuit (cuzk wtns check: ${chk.stdout}${chk.stderr})`);
  // a bellman key slow enough (2^16) to see jobs queued and running on the CPU
  const SLOW = join(TMP, 'slow');
  try {
    execFileSync(CUZK, ['gen-circuit', '--profile', 'porep', '--log-constraints', '16', '--partitions', '1',
      '--seed', '7', '-o', SLOW], { stdio: 'pipe' });
    execFileSync(CUZK, ['setup', join(SLOW, 'circuit.cuzk'), '-o', join(SLOW, 'circuit.params'),
      '--vk', join(SLOW, 'circuit.vk')], { stdio: 'pipe' });
  } catch (e) {
    fail(`making the bellman key: ${e.message} ${e.stderr ?? ''}`);
    return;
  }
  const SLOW_W = join(SLOW, 'w0.wit');

  writeFileSync(join(TMP, 'token'), `${TOKEN}\n`, { mode: 0o600 });
  chmodSync(join(TMP, 'token'), 0o600);
  const conf = join(TMP, 'cuzk.conf');
  writeFileSync(conf, [
    '[server]', `unix_socket = ${SOCK}`, 'unix_socket_mode = 0600', 'tcp_listen = 127.0.0.1:0',
    `token_file = ${join(TMP, 'token')}`, 'max_body_bytes = 1M', 'request_timeout_s = 300',
    '[store]', `database = ${join(TMP, 'cuzk.db')}`, `spool_dir = ${SPOOL}`, 'result_retention_s = 3600',
    // two threads a lane: the slow key's job outlasts the waits below on a
    // machine of many cores too
    '[engine]', 'backend = auto', 'max_queued_partitions = 64', 'threads = 2',
    '[key sample]', `zkey = ${join(SAMPLE, 'circuit.zkey')}`, `r1cs = ${join(SAMPLE, 'circuit.r1cs')}`, '',
  ].join('\n'));
  // the command line's overrides: the CPU backend and a 64K body limit
  const overrides = ['--engine.backend', 'cpu', '--server.max_body_bytes', '64K'];

  section('start');
  if (!(await startDaemon(conf, overrides))) return;

  // ---- authentication over TCP ---------------------------------------------------------------
  section('authentication (TCP)');
  for (const key of operationKeys(doc)) {
    const [method, tpath] = key.split(' ');
    const path = tpath.replace('{id}', '1').replace('{name}', 'sample');
    const { op } = findOperation(doc, method, path);
    const secured = needsToken(doc, op);
    const none = await call('tcp', method, path);
    expectStatus(none, secured ? 401 : 200, `${key} over TCP without a token`);
    const wrong = await call('tcp', method, path, { token: `${TOKEN}x` });
    expectStatus(wrong, secured ? 401 : 200, `${key} over TCP with a wrong token`);
    if (secured) {
      const lower = await call('tcp', method, path, { headers: { Authorization: `Basic ${TOKEN}` } });
      expectStatus(lower, 401, `${key} over TCP with the token as Basic`);
    }
  }
  expectStatus(await call('tcp', 'GET', '/v1/nowhere'), 401, 'an unknown path over TCP without a token');
  expectStatus(await call('tcp', 'GET', '/v1/nowhere', { token: TOKEN }), 404, 'an unknown path over TCP with the token');
  {
    const r = await call('tcp', 'GET', '/v1/status', { token: TOKEN });
    expectStatus(r, 200, 'GET /v1/status over TCP with the token');
  }

  // ---- static files and the contract ------------------------------------------------------------
  section('static');
  for (const p of ['/', '/status.js', '/status.css']) {
    const r = await call('unix', 'GET', p);
    if (expectStatus(r, 200, `GET ${p}`)) expect(r.body.length > 0, `GET ${p}: empty`);
  }
  {
    const r = await call('unix', 'GET', '/openapi.json');
    if (expectStatus(r, 200, 'GET /openapi.json')) {
      expect(isDeepStrictEqual(r.json, doc), 'GET /openapi.json is not doc/openapi.json');
    }
  }

  // ---- status and keys -------------------------------------------------------------------------
  section('status and keys');
  {
    const r = await call('unix', 'GET', '/v1/status');
    if (expectStatus(r, 200, 'GET /v1/status') && r.json) {
      const s = r.json;
      expect(s.backend === 'cpu', `status backend ${s.backend}, configured cpu (by the override)`);
      expect(s.draining === false, 'status draining before any signal');
      expect(s.devices.length === 0, 'status devices on the CPU backend');
      expect(s.keys.some((k) => k.name === 'sample' && k.format === 'snarkjs'), 'status keys lack the configured sample (snarkjs)');
      expect(Math.abs(s.started_ms - Date.now()) < 600000, `status started_ms ${s.started_ms} is not near now`);
    }
  }
  {
    const r = await call('unix', 'GET', '/v1/keys');
    if (expectStatus(r, 200, 'GET /v1/keys') && r.json) {
      expect(r.json.keys.some((k) => k.name === 'sample' && k.format === 'snarkjs'), 'GET /v1/keys lacks sample');
    }
  }
  const KEYREQ = { $ref: '#/components/schemas/KeyRegistration' };
  const addKey = async (body, want, what) => {
    const r = await call('unix', 'POST', '/v1/keys', jsonBody(body));
    expectStatus(r, want, what);
    const schemaOk = validate(doc, KEYREQ, body).length === 0;
    if (want === 201) expect(schemaOk, `${what}: the document's KeyRegistration refuses a body the route accepts`);
    return r;
  };
  {
    const r = await addKey({ name: 'slow', circuit: join(SLOW, 'circuit.cuzk'), params: join(SLOW, 'circuit.params') }, 201, 'POST /v1/keys (circuit + params)');
    if (r.json) expect(r.json.name === 'slow' && r.json.format === 'bellman', `POST /v1/keys answered ${JSON.stringify(r.json)}`);
    const r2 = await addKey({ name: 'sample2', zkey: join(SAMPLE, 'circuit.zkey'), r1cs: join(SAMPLE, 'circuit.r1cs') }, 201, 'POST /v1/keys (zkey + r1cs)');
    if (r2.json) expect(r2.json.name === 'sample2' && r2.json.format === 'snarkjs', `POST /v1/keys answered ${JSON.stringify(r2.json)}`);
  }
  await addKey({ name: 'slow', circuit: join(SLOW, 'circuit.cuzk'), params: join(SLOW, 'circuit.params') }, 400, 'POST /v1/keys with a name in use');
  await addKey({ name: 'sample', zkey: join(SAMPLE, 'circuit.zkey') }, 400, 'POST /v1/keys with a configured name');
  await addKey({ name: 'nofile', zkey: join(TMP, 'missing.zkey') }, 404, 'POST /v1/keys with a file that does not exist');
  await addKey({ name: 'both', zkey: join(SAMPLE, 'circuit.zkey'), circuit: join(SLOW, 'circuit.cuzk'), params: join(SLOW, 'circuit.params') }, 400, 'POST /v1/keys with both forms');
  await addKey({ name: 'halfb', circuit: join(SLOW, 'circuit.cuzk') }, 400, 'POST /v1/keys with a circuit and no params');
  await addKey({ name: 'rel', zkey: 'examples/sample/circuit.zkey' }, 400, 'POST /v1/keys with a relative path');
  await addKey({ name: 'bad/name', zkey: join(SAMPLE, 'circuit.zkey') }, 400, 'POST /v1/keys with a name outside A-Z a-z 0-9 . _ -');
  await addKey({ name: 'x'.repeat(65), zkey: join(SAMPLE, 'circuit.zkey') }, 400, 'POST /v1/keys with a 65-byte name');
  await addKey({ name: 'extra', zkey: join(SAMPLE, 'circuit.zkey'), colour: 'red' }, 400, 'POST /v1/keys with an unknown field');
  for (const [body, what] of [['{"name": "k", "zkey": ', 'JSON cut short'], ['[1, 2]', 'a JSON array'], ['', 'an empty body']]) {
    expectStatus(await call('unix', 'POST', '/v1/keys', { headers: { 'Content-Type': 'application/json' }, body }), 400, `POST /v1/keys with ${what}`);
  }
  {
    const r = await call('unix', 'GET', '/v1/keys');
    if (r.json) {
      const names = r.json.keys.map((k) => k.name).sort();
      expect(isDeepStrictEqual(names, ['sample', 'sample2', 'slow']), `keys after the registrations: ${names}`);
    }
  }
  {
    let r = await call('unix', 'POST', '/v1/keys/sample2/preload?tier=warm');
    if (expectStatus(r, 200, 'preload warm') && r.json) expect(r.json.tier === 'warm', `preload warm left tier ${r.json.tier}`);
    r = await call('unix', 'POST', '/v1/keys/sample2/preload');
    if (expectStatus(r, 200, 'preload (hot)') && r.json) {
      expect(r.json.tier === 'hot', `preload left tier ${r.json.tier}`);
      expect(r.json.loads >= 1, `a preloaded key with loads ${r.json.loads}`);
    }
    r = await call('unix', 'POST', '/v1/keys/sample2/preload?tier=tepid');
    expectStatus(r, 400, 'preload ?tier=tepid');
    r = await call('unix', 'POST', '/v1/keys/nokey/preload');
    expectStatus(r, 404, 'preload of an unknown key');
    r = await call('unix', 'POST', '/v1/keys/sample2/evict');
    if (expectStatus(r, 200, 'evict') && r.json) expect(r.json.tier === 'cold', `evict left tier ${r.json.tier}`);
    r = await call('unix', 'POST', '/v1/keys/sample2/evict');
    if (expectStatus(r, 200, 'evict of a cold key') && r.json) expect(r.json.tier === 'cold', `evict of a cold key left tier ${r.json.tier}`);
    r = await call('unix', 'POST', '/v1/keys/nokey/evict');
    expectStatus(r, 404, 'evict of an unknown key');
  }

  // ---- submissions -----------------------------------------------------------------------------
  section('submit');
  const SUBJ = { $ref: '#/components/schemas/SubmitJson' };
  const jobs = []; // {id, kind, vk}
  const submitJson = async (body, want, what, path = '/v1/jobs') => {
    const r = await call('unix', 'POST', path, jsonBody(body));
    expectStatus(r, want, what);
    const schemaErrs = validate(doc, SUBJ, body);
    if (Array.isArray(want) ? want.some((w) => w < 300) : want < 300) {
      expect(schemaErrs.length === 0, `${what}: the document's SubmitJson refuses a body the route accepts: ${schemaErrs}`);
    }
    return r;
  };
  let j1;
  {
    const r = await submitJson({ key: 'sample', witness_paths: [WTNS] }, 201, 'POST /v1/jobs (JSON)');
    if (r.json) {
      j1 = r.json;
      expect(j1.key === 'sample' && j1.partitions === 1 && j1.request_id === null && j1.priority === 'normal',
        `a new job: ${JSON.stringify(j1)}`);
      expect(['queued', 'running', 'done'].includes(j1.state), `a new job in state ${j1.state}`);
      jobs.push({ id: j1.id, kind: 'snarkjs', vk: VK_SAMPLE });
    }
  }
  let jr;
  {
    const body = { key: 'sample', priority: 'high', request_id: 'rq-json', witness_paths: [WTNS, join(SAMPLE, 'witness.wtns')] };
    const r = await submitJson(body, 201, 'POST /v1/jobs with a new request_id');
    if (r.json) {
      jr = r.json;
      expect(jr.request_id === 'rq-json' && jr.priority === 'high' && jr.partitions === 2, `job with request_id: ${JSON.stringify(jr)}`);
      if (j1) expect(jr.id > j1.id, `ids not increasing: ${j1.id} then ${jr.id}`);
      jobs.push({ id: jr.id, kind: 'snarkjs', vk: VK_SAMPLE });
      const again = await submitJson(body, 200, 'POST /v1/jobs with the same request_id');
      if (again.json) expect(again.json.id === jr.id, `the same request_id gave job ${again.json.id}, not ${jr.id}`);
      await submitJson({ ...body, priority: 'low' }, 200, 'POST /v1/jobs with the same request_id and another priority');
      await submitJson({ ...body, witness_paths: [WTNS] }, 400, 'POST /v1/jobs with the same request_id and another partition count');
      await submitJson({ ...body, key: 'sample2' }, 400, 'POST /v1/jobs with the same request_id and another key');
    }
  }
  let jm;
  {
    const parts = [
      { name: 'key', value: 'sample' }, { name: 'priority', value: 'low' }, { name: 'request_id', value: 'rq-multipart' },
      { name: 'witness', filename: 'witness.wtns', data: wtns }, { name: 'witness_path', value: WTNS },
    ];
    const r = await call('unix', 'POST', '/v1/jobs', multipart(parts));
    if (expectStatus(r, 201, 'POST /v1/jobs (multipart: a file and a path)') && r.json) {
      jm = r.json;
      expect(jm.partitions === 2 && jm.priority === 'low' && jm.request_id === 'rq-multipart', `multipart job: ${JSON.stringify(jm)}`);
      jobs.push({ id: jm.id, kind: 'snarkjs', vk: VK_SAMPLE });
      const again = await call('unix', 'POST', '/v1/jobs', multipart(parts));
      if (expectStatus(again, 200, 'POST /v1/jobs (multipart) again with its request_id') && again.json) {
        expect(again.json.id === jm.id, `the same multipart request_id gave job ${again.json.id}, not ${jm.id}`);
      }
    }
    const mp = { key: 'sample', priority: 'low', request_id: 'rq-multipart', witness: ['...'], witness_path: [WTNS] };
    const e = validate(doc, { $ref: '#/components/schemas/SubmitMultipart' }, mp);
    expect(e.length === 0, `the document's SubmitMultipart refuses the parts the route accepts: ${e}`);
  }
  {
    const r = await call('tcp', 'POST', '/v1/jobs', { ...multipart([{ name: 'key', value: 'sample' }, { name: 'witness', filename: 'w', data: wtns }]), token: TOKEN });
    if (expectStatus(r, 201, 'POST /v1/jobs (multipart) over TCP with the token') && r.json) jobs.push({ id: r.json.id, kind: 'snarkjs', vk: VK_SAMPLE });
  }
  section('submit: refused');
  await submitJson({ key: 'nokey', witness_paths: [WTNS] }, 404, 'POST /v1/jobs for an unknown key');
  await submitJson({ witness_paths: [WTNS] }, 400, 'POST /v1/jobs without a key');
  await submitJson({ key: 'sample' }, 400, 'POST /v1/jobs without witness_paths');
  await submitJson({ key: 'sample', witness_paths: [] }, 400, 'POST /v1/jobs with no witness');
  await submitJson({ key: 'sample', witness_paths: ['w.wtns'] }, 400, 'POST /v1/jobs with a relative witness path');
  await submitJson({ key: 'sample', witness_paths: WTNS }, 400, 'POST /v1/jobs with witness_paths a string');
  await submitJson({ key: 7, witness_paths: [WTNS] }, 400, 'POST /v1/jobs with a number as key');
  await submitJson({ key: 'sample', priority: 'urgent', witness_paths: [WTNS] }, 400, 'POST /v1/jobs with priority urgent');
  await submitJson({ key: 'sample', request_id: '', witness_paths: [WTNS] }, 400, 'POST /v1/jobs with an empty request_id');
  await submitJson({ key: 'sample', request_id: 'r'.repeat(256), witness_paths: [WTNS] }, 400, 'POST /v1/jobs with a 256-byte request_id');
  await submitJson({ key: 'sample', witness_paths: [WTNS], colour: 'red' }, 400, 'POST /v1/jobs with an unknown field');
  for (const [body, what] of [['{"key": "sample", "witness_paths": [', 'JSON cut short'], ['"sample"', 'a JSON string'],
    ['{"key": "sample", "witness_paths": ["/a"]} x', 'text after the JSON'], ['', 'an empty body']]) {
    expectStatus(await call('unix', 'POST', '/v1/jobs', { headers: { 'Content-Type': 'application/json' }, body }), 400, `POST /v1/jobs with ${what}`);
  }
  expectStatus(await call('unix', 'POST', '/v1/jobs', { headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify({ key: 'sample', witness_paths: [WTNS] }) }),
    400, 'POST /v1/jobs with Content-Type text/plain');
  expectStatus(await call('unix', 'POST', '/v1/jobs', { body: JSON.stringify({ key: 'sample', witness_paths: [WTNS] }) }),
    400, 'POST /v1/jobs without a Content-Type');
  const mpBad = [
    [[{ name: 'key', value: 'sample' }], {}, 'no witness part'],
    [[{ name: 'witness', filename: 'w', data: wtns }], {}, 'no key part'],
    [[{ name: 'key', value: 'sample' }, { name: 'colour', value: 'red' }, { name: 'witness', filename: 'w', data: wtns }], {}, 'an unknown part'],
    [[{ name: 'key', value: 'sample' }, { name: 'priority', value: 'urgent' }, { name: 'witness', filename: 'w', data: wtns }], {}, 'priority urgent'],
    [[{ name: 'key', value: 'sample' }, { name: 'witness_path', value: 'w.wtns' }], {}, 'a relative witness_path'],
    [[{ name: 'key', value: 'sample' }, { name: 'witness', filename: 'w', data: wtns }], { close: false }, 'no closing boundary'],
  ];
  for (const [parts, o, what] of mpBad) {
    expectStatus(await call('unix', 'POST', '/v1/jobs', multipart(parts, o)), 400, `POST /v1/jobs (multipart) with ${what}`);
  }
  {
    const m = multipart([{ name: 'key', value: 'sample' }, { name: 'witness', filename: 'w', data: wtns }]);
    expectStatus(await call('unix', 'POST', '/v1/jobs', { headers: { 'Content-Type': 'multipart/form-data' }, body: m.body }), 400,
      'POST /v1/jobs (multipart) without a boundary');
    const other = multipart([{ name: 'key', value: 'sample' }, { name: 'witness', filename: 'w', data: wtns }], { boundary: 'AAAA' });
    expectStatus(await call('unix', 'POST', '/v1/jobs', { headers: { 'Content-Type': 'multipart/form-data; boundary=BBBB' }, body: other.body }), 400,
      'POST /v1/jobs (multipart) whose boundary never comes');
    const m404 = multipart([{ name: 'key', value: 'nokey' }, { name: 'witness', filename: 'w', data: wtns }]);
    expectStatus(await call('unix', 'POST', '/v1/jobs', m404), 404, 'POST /v1/jobs (multipart) for an unknown key');
  }
  section('413');
  {
    const big = { key: 'sample', witness_paths: Array.from({ length: 1200 }, (_, i) => `${WTNS}?${'x'.repeat(60)}${i}`) };
    const b = JSON.stringify(big);
    expect(b.length > 65536, 'the 413 JSON body is not above 64K');
    expectStatus(await call('unix', 'POST', '/v1/jobs', { headers: { 'Content-Type': 'application/json' }, body: b, partial: 4096 }), 413,
      `POST /v1/jobs with a ${b.length}-byte JSON body (max_body_bytes 64K)`);
    const m = multipart([{ name: 'key', value: 'sample' }, { name: 'witness', filename: 'w', data: Buffer.concat(Array(12).fill(wtns)) }]);
    expectStatus(await call('unix', 'POST', '/v1/jobs', { ...m, partial: 4096 }), 413, `POST /v1/jobs (multipart) with a ${m.body.length}-byte body`);
    expectStatus(await call('unix', 'POST', '/v1/prove', { headers: { 'Content-Type': 'application/json' }, body: b, partial: 4096 }), 413,
      'POST /v1/prove with a body above max_body_bytes');
    expectStatus(await call('unix', 'POST', '/v1/keys', { headers: { 'Content-Type': 'application/json' }, body: b, partial: 4096 }), 413,
      'POST /v1/keys with a body above max_body_bytes');
    // without a Content-Length the server finds out as the body comes
    expectStatus(await call('unix', 'POST', '/v1/jobs', { headers: { 'Content-Type': 'application/json' }, body: b, chunked: true }), 413,
      `POST /v1/jobs with a ${b.length}-byte JSON body in chunks`);
    expectStatus(await call('unix', 'POST', '/v1/jobs', { ...m, chunked: true }), 413, `POST /v1/jobs (multipart) with a ${m.body.length}-byte body in chunks`);
    {
      const ok = multipart([{ name: 'key', value: 'sample' }, { name: 'witness', filename: 'w', data: wtns }]);
      const r = await call('unix', 'POST', '/v1/jobs', { ...ok, chunked: true });
      if (expectStatus(r, 201, 'POST /v1/jobs (multipart) in chunks') && r.json) jobs.push({ id: r.json.id, kind: 'snarkjs', vk: VK_SAMPLE });
    }
    // the daemon still answers
    expectStatus(await call('unix', 'GET', '/v1/status'), 200, 'GET /v1/status after the 413s');
  }

  // ---- await, one job, results ---------------------------------------------------------------------
  section('await and results');
  for (const j of jobs) {
    const r = await call('unix', 'GET', `/v1/jobs/${j.id}/await?timeout_ms=120000`);
    if (!expectStatus(r, 200, `await job ${j.id}`) || !r.json) continue;
    const job = r.json;
    if (!expect(job.state === 'done', `job ${j.id} ended ${job.state} (${JSON.stringify(job.error)})`)) continue;
    expect(job.partitions_done === job.partitions && job.partitions_running === 0 && job.queue_position === 0,
      `done job ${j.id}: done ${job.partitions_done}/${job.partitions}, running ${job.partitions_running}, position ${job.queue_position}`);
    expect(job.finished_ms !== null && job.finished_ms >= job.created_ms && job.updated_ms >= job.created_ms && job.error === null,
      `done job ${j.id}: times ${job.created_ms}/${job.updated_ms}/${job.finished_ms}, error ${JSON.stringify(job.error)}`);
    const g = await call('unix', 'GET', `/v1/jobs/${j.id}`);
    if (expectStatus(g, 200, `GET job ${j.id}`) && g.json) expect(isDeepStrictEqual(g.json, job), `GET job ${j.id} differs from its await: ${JSON.stringify(g.json)} vs ${JSON.stringify(job)}`);
    const res = await call('unix', 'GET', `/v1/jobs/${j.id}/result`);
    if (expectStatus(res, 200, `result of job ${j.id}`) && res.json) {
      await checkResult(res.json, job, j.kind, j.vk, `job ${j.id}`);
      const bin = await call('unix', 'GET', `/v1/jobs/${j.id}/result?format=binary`);
      if (expectStatus(bin, 200, `binary result of job ${j.id}`)) {
        expect((bin.headers['content-type'] || '').startsWith('application/octet-stream'), `binary result Content-Type ${bin.headers['content-type']}`);
        expect(bin.body.toString('hex') === res.json.proofs.map((p) => p.proof).join(''), `binary result of job ${j.id} is not the JSON's proofs back to back`);
      }
      const js = await call('unix', 'GET', `/v1/jobs/${j.id}/result?format=json`);
      if (expectStatus(js, 200, `result ?format=json of job ${j.id}`)) expect(isDeepStrictEqual(js.json, res.json), 'result ?format=json differs from the default');
    }
  }
  if (jobs.length) {
    const id = jobs[0].id;
    expectStatus(await call('unix', 'GET', `/v1/jobs/${id}/result?format=xml`), 400, 'result ?format=xml');
    for (const t of ['-1', '3600001', 'abc', '1.5']) {
      expectStatus(await call('unix', 'GET', `/v1/jobs/${id}/await?timeout_ms=${t}`), 400, `await ?timeout_ms=${t}`);
    }
    const r = await call('unix', 'GET', `/v1/jobs/${id}/await?timeout_ms=0`);
    expectStatus(r, 200, 'await ?timeout_ms=0 of a done job');
  }
  for (const bad of ['999999', 'abc', '0', '-1', '1x', '1.0']) {
    expectStatus(await call('unix', 'GET', `/v1/jobs/${bad}`), 404, `GET /v1/jobs/${bad}`);
  }
  expectStatus(await call('unix', 'GET', '/v1/jobs/999999/await?timeout_ms=0'), 404, 'await of an unknown job');
  expectStatus(await call('unix', 'GET', '/v1/jobs/999999/result'), 404, 'result of an unknown job');
  expectStatus(await call('unix', 'POST', '/v1/jobs/999999/cancel'), 404, 'cancel of an unknown job');
  expectStatus(await call('unix', 'DELETE', '/v1/jobs/999999'), 404, 'DELETE of an unknown job');

  // ---- prove ---------------------------------------------------------------------------------------
  section('prove');
  {
    const r = await call('unix', 'POST', '/v1/prove?timeout_ms=120000', jsonBody({ key: 'sample', witness_paths: [WTNS] }));
    if (expectStatus(r, 200, 'POST /v1/prove (JSON)') && r.json) {
      expect(r.json.state === 'done', `prove answered state ${r.json.state}`);
      if (expect(r.json.result, 'prove of a done job without its result')) {
        const { result, ...job } = r.json;
        await checkResult(result, job, 'snarkjs', VK_SAMPLE, `prove job ${job.id}`);
      }
    }
    const m = multipart([{ name: 'key', value: 'sample2' }, { name: 'request_id', value: 'rq-prove' }, { name: 'witness', filename: 'w', data: wtns }]);
    const r2 = await call('unix', 'POST', '/v1/prove?timeout_ms=120000', m);
    if (expectStatus(r2, 200, 'POST /v1/prove (multipart)') && r2.json) {
      if (expect(r2.json.state === 'done' && r2.json.result, `prove (multipart) answered ${r2.json.state} without a result`)) {
        const { result, ...job } = r2.json;
        await checkResult(result, job, 'snarkjs', VK_SAMPLE, `prove job ${job.id}`);
        const again = await call('unix', 'POST', '/v1/prove?timeout_ms=1000', m);
        if (expectStatus(again, 200, 'POST /v1/prove again with its request_id') && again.json) {
          expect(again.json.id === job.id && isDeepStrictEqual(again.json.result, result), 'prove with a done job\'s request_id: another job or result');
        }
      }
    }
    const f = await call('unix', 'POST', '/v1/prove?timeout_ms=120000', jsonBody({ key: 'sample', witness_paths: [BAD_WTNS] }));
    if (expectStatus(f, 200, 'POST /v1/prove with a witness that does not satisfy the circuit') && f.json) {
      expect(f.json.state === 'failed' && f.json.error !== null && f.json.result === undefined,
        `a job with a bad witness: state ${f.json.state}, error ${JSON.stringify(f.json.error)}, result ${f.json.result !== undefined}`);
      const res = await call('unix', 'GET', `/v1/jobs/${f.json.id}/result`);
      if (expectStatus(res, 409, 'result of a failed job') && res.json) {
        expect(/failed/.test(res.json.error.message), `result of a failed job: the message does not name the state: ${res.json.error.message}`);
      }
    }
    expectStatus(await call('unix', 'POST', '/v1/prove?timeout_ms=abc', jsonBody({ key: 'sample', witness_paths: [WTNS] })), 400, 'prove ?timeout_ms=abc');
    expectStatus(await call('unix', 'POST', '/v1/prove?timeout_ms=3600001', jsonBody({ key: 'sample', witness_paths: [WTNS] })), 400, 'prove ?timeout_ms=3600001');
    expectStatus(await call('unix', 'POST', '/v1/prove', jsonBody({ key: 'nokey', witness_paths: [WTNS] })), 404, 'prove for an unknown key');
    expectStatus(await call('unix', 'POST', '/v1/prove', jsonBody({ key: 'sample', witness_paths: [] })), 400, 'prove with no witness');
  }

  // ---- the slow key: running, queued, a full queue, cancel, collect ---------------------------------------
  section('running and queued jobs');
  let big;
  {
    const r = await submitJson({ key: 'slow', witness_paths: Array(64).fill(SLOW_W) }, 201, 'POST /v1/jobs, 64 partitions of the slow key');
    big = r.json;
  }
  if (big) {
    let running = null;
    for (let t0 = Date.now(); Date.now() - t0 < 120000;) {
      const r = await call('unix', 'GET', `/v1/jobs/${big.id}`);
      if (r.json && r.json.state === 'running' && r.json.partitions_running > 0) { running = r.json; break; }
      if (r.json && !['queued', 'running'].includes(r.json.state)) break;
      await sleep(50);
    }
    if (expect(running, 'the 64-partition job was never seen running')) {
      expect(running.partitions_done < 64 && running.finished_ms === null && running.queue_position === 0,
        `a running job: ${JSON.stringify(running)}`);
      const res = await call('unix', 'GET', `/v1/jobs/${big.id}/result`);
      if (expectStatus(res, 409, 'result of a running job') && res.json) {
        expect(/running/.test(res.json.error.message), `result of a running job: the message does not name the state: ${res.json.error.message}`);
      }
      // the store records RUNNING within a quarter of a second (the daemon's
      // finisher tick); the list and the status count from the store
      await sleep(600);
      let conflicts = 0;
      for (let i = 0; i < 8 && conflicts === 0; i++) {
        const e = await call('unix', 'POST', '/v1/keys/slow/evict');
        expectStatus(e, [409, 200], 'evict of a key being proved');
        if (e.status === 409) conflicts++;
      }
      expect(conflicts > 0, 'evict never answered 409 while the key was being proved');
      const l = await call('unix', 'GET', '/v1/jobs?state=running');
      if (l.json) expect(l.json.jobs.some((j) => j.id === big.id) && l.json.jobs.every((j) => j.state === 'running'), 'GET /v1/jobs?state=running');
      // partitions go to the engine one by one, so between one partition's end
      // and the next one's start none may be running: look a few times
      let slow = null;
      for (let i = 0; i < 40; i++, await sleep(50)) {
        const k = await call('unix', 'GET', '/v1/keys');
        slow = k.json && k.json.keys.find((x) => x.name === 'slow');
        if (slow && slow.running_partitions > 0 && slow.queued_partitions > 0) break;
      }
      expect(slow && slow.running_partitions > 0 && slow.queued_partitions > 0, `the slow key while its job runs: ${JSON.stringify(slow)}`);
      let st = null;
      for (let i = 0; i < 40; i++, await sleep(50)) {
        st = (await call('unix', 'GET', '/v1/status')).json;
        if (st && st.jobs.running >= 1 && st.engine.running_partitions >= 1) break;
      }
      if (st) expect(st.jobs.running >= 1 && st.engine.running_partitions >= 1, `status while a job runs: ${JSON.stringify(st.jobs)} ${JSON.stringify(st.engine)}`);

      section('503: the queue full');
      const t0 = Date.now();
      const full = await submitJson({ key: 'slow', witness_paths: Array(64).fill(SLOW_W) }, 503,
        'POST /v1/jobs of 64 partitions while 64 are queued (max_queued_partitions 64)');
      const waited = Date.now() - t0;
      if (full.status === 503) expect(waited >= 9000, `the full queue answered 503 after ${waited} ms, not after waiting 10 s`);

      section('queued, cancel, collect');
      const q = await submitJson({ key: 'sample', priority: 'low', witness_paths: [WTNS] }, 201, 'POST /v1/jobs (low) behind the running job');
      if (q.json) {
        expect(q.json.state === 'queued' && q.json.queue_position > 0, `a low job behind a running normal one: state ${q.json.state}, queue_position ${q.json.queue_position}`);
        const lq = await call('unix', 'GET', '/v1/jobs?state=queued');
        if (lq.json) expect(lq.json.jobs.some((j) => j.id === q.json.id) && lq.json.jobs.every((j) => j.state === 'queued'), 'GET /v1/jobs?state=queued');
        const aw = await call('unix', 'GET', `/v1/jobs/${q.json.id}/await?timeout_ms=300`);
        if (expectStatus(aw, 200, 'await ?timeout_ms=300 of a queued job') && aw.json) expect(aw.json.state === 'queued', `a queued job awaited 300 ms: ${aw.json.state}`);
        const res = await call('unix', 'GET', `/v1/jobs/${q.json.id}/result`);
        if (expectStatus(res, 409, 'result of a queued job') && res.json) expect(/queued/.test(res.json.error.message), `result of a queued job: ${res.json.error.message}`);
        const c = await call('unix', 'POST', `/v1/jobs/${q.json.id}/cancel`);
        if (expectStatus(c, 200, 'cancel of a queued job') && c.json) expect(c.json.state === 'cancelled' && c.json.error === null, `a cancelled queued job: ${JSON.stringify(c.json)}`);
        const c2 = await call('unix', 'POST', `/v1/jobs/${q.json.id}/cancel`);
        if (expectStatus(c2, 200, 'cancel of a cancelled job') && c2.json) expect(c2.json.state === 'cancelled', `cancel again: ${c2.json.state}`);
        const res2 = await call('unix', 'GET', `/v1/jobs/${q.json.id}/result`);
        expectStatus(res2, 409, 'result of a cancelled job');
      }
      const d = await submitJson({ key: 'slow', priority: 'low', witness_paths: [SLOW_W, SLOW_W] }, 201, 'POST /v1/jobs to collect while queued');
      if (d.json) {
        const del = await call('unix', 'DELETE', `/v1/jobs/${d.json.id}`);
        if (expectStatus(del, 204, 'DELETE of a queued job')) expect(del.body.length === 0, 'a 204 with a body');
        expectStatus(await call('unix', 'GET', `/v1/jobs/${d.json.id}`), 404, 'GET of a collected job');
      }
      const c = await call('unix', 'POST', `/v1/jobs/${big.id}/cancel`);
      if (expectStatus(c, 200, 'cancel of a running job') && c.json) expect(['cancelled', 'running'].includes(c.json.state), `a running job cancelled: ${c.json.state}`);
      const aw = await call('unix', 'GET', `/v1/jobs/${big.id}/await?timeout_ms=60000`);
      if (aw.json) {
        expect(aw.json.state === 'cancelled' && aw.json.finished_ms !== null && aw.json.error === null,
          `the running job after cancel: ${JSON.stringify(aw.json)}`);
        expect(aw.json.partitions_done < 64, `the cancelled job proved all ${aw.json.partitions_done} partitions`);
      }
      expectStatus(await call('unix', 'GET', `/v1/jobs/${big.id}/result`), 409, 'result of a cancelled running job');
      // its partition being proved stops at its next stage; then the key is free
      let ev;
      for (let t0 = Date.now(); Date.now() - t0 < 30000; await sleep(100)) {
        ev = await call('unix', 'POST', '/v1/keys/slow/evict');
        if (!expectStatus(ev, [200, 409], 'evict after the cancel') || ev.status === 200) break;
      }
      if (expectStatus(ev, 200, 'evict once the cancelled job\'s partition stopped') && ev.json) expect(ev.json.tier === 'cold', `evicted: ${ev.json.tier}`);
    }
  }
  section('prove: 202 and a bellman result');
  {
    const r = await call('unix', 'POST', '/v1/prove?timeout_ms=0', jsonBody({ key: 'slow', witness_paths: [SLOW_W, SLOW_W, SLOW_W] }));
    if (expectStatus(r, 202, 'POST /v1/prove?timeout_ms=0 of 3 slow partitions') && r.json) {
      expect(['queued', 'running'].includes(r.json.state) && r.json.result === undefined, `a 202 job: ${JSON.stringify(r.json)}`);
      const aw = await call('unix', 'GET', `/v1/jobs/${r.json.id}/await?timeout_ms=120000`);
      if (aw.json && expect(aw.json.state === 'done', `the 202 job ended ${aw.json.state}`)) {
        const res = await call('unix', 'GET', `/v1/jobs/${r.json.id}/result`);
        if (expectStatus(res, 200, 'result of a bellman job') && res.json) {
          await checkResult(res.json, aw.json, 'bellman', join(SLOW, 'circuit.vk'), `bellman job ${r.json.id}`);
          expect(res.json.proofs.every((p) => p.public.length === res.json.proofs[0].public.length && p.public.length > 0), 'bellman result: public inputs per partition');
        }
        const bin = await call('unix', 'GET', `/v1/jobs/${r.json.id}/result?format=binary`);
        if (expectStatus(bin, 200, 'binary result of a bellman job')) {
          expect(bin.body.length === 3 * 192, `binary result of 3 partitions: ${bin.body.length} bytes`);
          const p = join(TMP, 'bellman.bin');
          writeFileSync(p, bin.body);
          const v = spawnSync(CUZK, ['verify', '--vk', join(SLOW, 'circuit.vk'), '--inputs', SLOW_W, SLOW_W, SLOW_W, p], { encoding: 'utf8' });
          expect(v.status === 0, `cuzk verify refused the binary result against the witness's inputs: ${v.stdout}${v.stderr}`);
        }
      }
    }
  }

  // ---- the list --------------------------------------------------------------------------------------
  section('list');
  {
    const all = await call('unix', 'GET', '/v1/jobs?limit=1000');
    if (expectStatus(all, 200, 'GET /v1/jobs?limit=1000') && all.json) {
      const ids = all.json.jobs.map((j) => j.id);
      expect(ids.every((v, i) => i === 0 || v > ids[i - 1]), `list not in id order: ${ids}`);
      expect(all.json.next_after === null, `a complete list with next_after ${all.json.next_after}`);
      const dflt = await call('unix', 'GET', '/v1/jobs');
      if (dflt.json) expect(isDeepStrictEqual(dflt.json.jobs.map((j) => j.id), ids.slice(0, 100)), 'GET /v1/jobs is not the first 100 jobs');
      const paged = [];
      let after = 0;
      for (let i = 0; i < 100; i++) {
        const p = await call('unix', 'GET', `/v1/jobs?limit=2&after=${after}`);
        if (!p.json) break;
        expect(p.json.jobs.length <= 2 && p.json.jobs.every((j) => j.id > after), `page after ${after}: ${p.json.jobs.map((j) => j.id)}`);
        paged.push(...p.json.jobs.map((j) => j.id));
        if (p.json.next_after === null) break;
        expect(p.json.next_after === p.json.jobs[p.json.jobs.length - 1].id, `next_after ${p.json.next_after} is not the last id listed`);
        after = p.json.next_after;
      }
      expect(isDeepStrictEqual(paged, ids), `paging by 2 gave ${paged}, the whole list ${ids}`);
      const exact = await call('unix', 'GET', `/v1/jobs?limit=${ids.length}`);
      if (exact.json) expect(exact.json.next_after === null, `a list of exactly all ${ids.length} jobs with next_after ${exact.json.next_after}`);
      const done = await call('unix', 'GET', '/v1/jobs?state=done,cancelled');
      if (done.json) {
        const want = all.json.jobs.filter((j) => j.state === 'done' || j.state === 'cancelled').map((j) => j.id);
        expect(isDeepStrictEqual(done.json.jobs.map((j) => j.id), want), `?state=done,cancelled gave ${done.json.jobs.map((j) => j.id)}, expected ${want}`);
      }
      const failed = await call('unix', 'GET', '/v1/jobs?state=failed');
      if (failed.json) expect(failed.json.jobs.length === 1 && failed.json.jobs[0].error !== null, `?state=failed: ${JSON.stringify(failed.json.jobs)}`);
      const st = await call('unix', 'GET', '/v1/status');
      if (st.json) {
        for (const s of ['queued', 'running', 'done', 'failed', 'cancelled']) {
          const n = all.json.jobs.filter((j) => j.state === s).length;
          expect(st.json.jobs[s] === n, `status jobs.${s} ${st.json.jobs[s]}, the list has ${n}`);
        }
      }
    }
    for (const q of ['limit=0', 'limit=1001', 'limit=abc', 'after=-1', 'after=x', 'state=bogus', 'state=done,bogus']) {
      expectStatus(await call('unix', 'GET', `/v1/jobs?${q}`), 400, `GET /v1/jobs?${q}`);
    }
    expectStatus(await call('unix', 'GET', '/v1/jobs?colour=red'), 200, 'GET /v1/jobs with an unknown query parameter');
  }

  // ---- collect ---------------------------------------------------------------------------------------
  section('collect');
  if (jobs.length) {
    const id = jobs[0].id;
    const del = await call('unix', 'DELETE', `/v1/jobs/${id}`);
    if (expectStatus(del, 204, 'DELETE of a done job')) expect(del.body.length === 0, 'a 204 with a body');
    expectStatus(await call('unix', 'GET', `/v1/jobs/${id}`), 404, 'GET of a collected job');
    expectStatus(await call('unix', 'GET', `/v1/jobs/${id}/result`), 404, 'result of a collected job');
    expectStatus(await call('unix', 'GET', `/v1/jobs/${id}/await?timeout_ms=0`), 404, 'await of a collected job');
    expectStatus(await call('unix', 'POST', `/v1/jobs/${id}/cancel`), 404, 'cancel of a collected job');
    expectStatus(await call('unix', 'DELETE', `/v1/jobs/${id}`), 404, 'DELETE of a collected job');
    if (jr) {
      // its request id is free again: the same request makes a new job
      expectStatus(await call('unix', 'DELETE', `/v1/jobs/${jr.id}`), 204, 'DELETE of the rq-json job');
      const r = await submitJson({ key: 'sample', request_id: 'rq-json', witness_paths: [WTNS] }, 201, 'POST /v1/jobs with a collected job\'s request_id');
      if (r.json) {
        expect(r.json.id > jr.id, `a collected request id gave id ${r.json.id}, not a new one`);
        await call('unix', 'GET', `/v1/jobs/${r.json.id}/await?timeout_ms=60000`);
      }
    }
  }

  // ---- the cluster (a SQLite store: this daemon alone) ---------------------------------------------
  section('cluster');
  {
    const c = await call('unix', 'GET', '/v1/cluster');
    if (expectStatus(c, 200, 'GET /v1/cluster') && c.json) {
      const me = c.json.self;
      expect(c.json.store === 'sqlite' && c.json.daemons.length === 0 && me.id === 0 && me.lease_ms === 0, `a SQLite daemon's cluster: ${JSON.stringify(c.json)}`);
      expect(me.claimed >= me.recorded && me.recorded > 0 && me.queue_cost_ms.samples > 0 && me.queue_cost_ms.median <= me.queue_cost_ms.p99, `its counts after the jobs: ${JSON.stringify(me)}`);
    }
    expectStatus(await call('unix', 'POST', '/v1/cluster'), 405, 'POST /v1/cluster');
  }

  // ---- timeline and metrics -------------------------------------------------------------------------
  section('timeline and metrics');
  {
    const t = await call('unix', 'GET', '/v1/timeline');
    if (expectStatus(t, 200, 'GET /v1/timeline') && t.json) {
      const ev = t.json.events;
      expect(ev.length > 0, 'no timeline events after the jobs ran');
      expect(t.json.workers.length > 0 && t.json.workers.every((w) => w.device === -1), `workers on the CPU backend: ${JSON.stringify(t.json.workers)}`);
      expect(ev.every((e) => e.end_ms >= e.start_ms && e.end_ms <= t.json.now_ms + 1 && e.device === -1), 'timeline events out of order with now_ms, or on a device');
      expect(ev.every((e, i) => i === 0 || e.end_ms >= ev[i - 1].end_ms || e.start_ms >= ev[i - 1].start_ms), 'timeline events not oldest first');
      if (ev.length > 1) {
        const mid = ev[Math.floor(ev.length / 2)].end_ms;
        const s = await call('unix', 'GET', `/v1/timeline?since_ms=${mid}`);
        if (expectStatus(s, 200, `GET /v1/timeline?since_ms=${mid}`) && s.json) {
          // (times are printed to the microsecond: an event that ended within one of T may be listed)
          const early = s.json.events.find((e) => !(e.end_ms > mid - 0.001));
          expect(!early, `?since_ms=${mid} listed an event that ended before: ${JSON.stringify(early)}`);
          expect(s.json.events.length < ev.length, `?since_ms=${mid} listed as many events as since 0`);
        }
      }
    }
    for (const q of ['since_ms=-1', 'since_ms=abc']) expectStatus(await call('unix', 'GET', `/v1/timeline?${q}`), 400, `GET /v1/timeline?${q}`);
    const m = await call('unix', 'GET', '/metrics');
    if (expectStatus(m, 200, 'GET /metrics')) {
      const text = m.body.toString('utf8');
      const st = (await call('unix', 'GET', '/v1/status')).json;
      for (const name of ['cuzk_http_requests_total', 'cuzk_partitions_proved_total', 'cuzk_stage_seconds_bucket']) {
        expect(new RegExp(`^${name}(\\{[^}]*\\})? [0-9.e+]+$`, 'm').test(text), `/metrics has no sample of ${name}`);
      }
      const done = text.match(/^cuzk_jobs\{state="done"\} ([0-9.e+]+)$/m);
      if (expect(done, '/metrics has no cuzk_jobs{state="done"}') && st) expect(Number(done[1]) === st.jobs.done, `cuzk_jobs{state="done"} ${done[1]}, status ${st.jobs.done}`);
      for (const line of text.split('\n')) {
        if (line === '' || line.startsWith('#')) continue;
        if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*",?)*\})? -?([0-9.e+-]+|NaN|\+Inf|-Inf)( -?[0-9]+)?$/.test(line)) {
          fail(`/metrics: a line outside the text format: ${line}`);
          break;
        }
      }
    }
  }

  // ---- unknown routes and other methods -------------------------------------------------------------
  section('404 and 405');
  const someId = jm ? jm.id : 1;
  for (const [path, item] of Object.entries(doc.paths)) {
    const concrete = path.replace('{id}', String(someId)).replace('{name}', 'sample');
    const other = ['put', 'patch', 'delete', 'post'].find((m) => !item[m]);
    const r = await call('unix', other.toUpperCase(), concrete, other === 'get' ? {} : jsonBody({}));
    expectStatus(r, 405, `${other.toUpperCase()} ${concrete}`);
  }
  expectStatus(await call('tcp', 'PUT', '/v1/status', { token: TOKEN }), 405, 'PUT /v1/status over TCP with the token');
  for (const p of ['/v1/nowhere', '/v1/jobs/1/nowhere', '/v2/jobs', '/v1/keys/sample', '/status.html']) {
    expectStatus(await call('unix', 'GET', p), 404, `GET ${p}`);
  }

  // ---- drain ------------------------------------------------------------------------------------------
  section('drain (SIGTERM)');
  let drained = null;
  {
    const r = await submitJson({ key: 'slow', witness_paths: Array(8).fill(SLOW_W) }, 201, 'POST /v1/jobs before SIGTERM');
    drained = r.json;
    if (r.json) {
      for (let t0 = Date.now(); Date.now() - t0 < 60000;) {
        const g = await call('unix', 'GET', `/v1/jobs/${r.json.id}`);
        if (!g.json || g.json.state !== 'queued') break;
        await sleep(20);
      }
    }
    daemon.kill('SIGTERM');
    const killedAt = Date.now();
    let refused = 0;
    let answered = 0;
    for (let i = 0; i < 200 && !daemonExit; i++) {
      let a;
      const sentAt = Date.now() - killedAt;
      try {
        a = await request('unix', 'POST', '/v1/jobs', { ...jsonBody({ key: 'sample', witness_paths: [WTNS] }), timeoutMs: 20000 });
      } catch { break; }
      const { errors } = checkAnswer(doc, 'POST', '/v1/jobs', a);
      for (const e of errors) fail(`contract: ${e}`);
      answered++;
      if (a.status === 503) {
        refused++;
        const s = await request('unix', 'GET', '/v1/status', { timeoutMs: 20000 }).catch(() => null);
        if (s && s.status === 200) expect(JSON.parse(s.body.toString()).draining === true, 'status while draining says draining false');
        break;
      }
      // the signal reaches the daemon's threads a moment after kill(): a
      // submission sent in that moment may still be taken (it stays queued
      // for the next start); one sent 500 ms later may not
      expect(a.status === 201 && sentAt < 500, `POST /v1/jobs sent ${sentAt} ms after SIGTERM answered ${a.status} (${answered} answers)`);
    }
    expect(refused > 0 || answered === 0 || daemonExit, 'submissions during the drain were not refused with 503');
    const ex = await waitExit(120000);
    expect(ex && ex.code === 0, `the daemon after SIGTERM: ${JSON.stringify(ex)}; its log:\n${logTail()}`);
  }

  // ---- restart: what was stored is there ----------------------------------------------------------------
  section('restart');
  // the slow key was registered over the API, which lasts until the daemon
  // stops: the restart names it on the command line so that its job resumes
  const slowKey = ['--key.slow.circuit', join(SLOW, 'circuit.cuzk'), '--key.slow.params', join(SLOW, 'circuit.params')];
  if (await startDaemon(conf, [...overrides, ...slowKey])) {
    if (jm) {
      const r = await call('unix', 'GET', `/v1/jobs/${jm.id}/result`);
      if (expectStatus(r, 200, 'result of a done job after a restart') && r.json) await checkResult(r.json, { ...jm, state: 'done' }, 'snarkjs', VK_SAMPLE, 'after restart');
    }
    const l = await call('unix', 'GET', '/v1/jobs?state=queued,running&limit=1000');
    if (drained) expect(l.json && l.json.jobs.some((j) => j.id === drained.id), `the job left by the drain (${drained.id}) is not queued after the restart`);
    for (const j of (l.json && l.json.jobs) || []) {
      const a = await call('unix', 'GET', `/v1/jobs/${j.id}/await?timeout_ms=120000`);
      if (a.json) expect(a.json.state === 'done', `job ${j.id} left by the drain ended ${a.json.state} after the restart`);
    }
    const left = readdirSync(SPOOL).filter((f) => f !== '.lock');
    expect(left.length === 0, `spool files with every job ended: ${left}`);
    daemon.kill('SIGTERM');
    const ex = await waitExit(60000);
    expect(ex && ex.code === 0, `the restarted daemon after SIGTERM: ${JSON.stringify(ex)}`);
  }

  // ---- coverage -----------------------------------------------------------------------------------------
  section('coverage');
  for (const k of operationKeys(doc)) {
    const seen = coverage.get(k);
    const codes = seen ? [...seen].sort().join(' ') : 'never called';
    console.log(`  ${k.padEnd(34)} ${codes}`);
    expect(seen && [...seen].some((c) => c >= 200 && c < 300), `${k} was never answered with a 2xx`);
  }
}

let crashed = null;
try {
  await main();
} catch (e) {
  crashed = e;
  fail(`the test itself threw: ${e.stack}`);
}
if (daemon && !daemonExit) {
  daemon.kill('SIGKILL');
  await waitExit(10000);
}
if (globalThis.curve_bls12381) await globalThis.curve_bls12381.terminate();
if (failures.length) {
  console.log(`\napi_conformance: ${failures.length} failure(s):`);
  for (const f of failures) console.log(`  ${f}`);
  console.log(`files kept in ${TMP}; the daemon's log: ${LOG}`);
  process.exit(1);
}
if (!KEEP) rmSync(TMP, { recursive: true, force: true });
console.log('api_conformance: all passed');
process.exit(crashed ? 1 : 0);
