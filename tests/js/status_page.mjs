// status_page.mjs — the daemon's status page (src/service/www) in a headless
// Chromium, against a real `cuzk daemon` on the CPU backend.
//
//   node tests/js/status_page.mjs --cuzk build/cuzk --source . [--keep]
//
// It starts the daemon on a free TCP port with a token (examples/sample as
// the key "sample", two CPU lanes), checks that the static files are served
// without the token and byte for byte as in the tree, submits jobs with curl,
// then opens http://127.0.0.1:PORT/#token=T and waits for the page to show
// the key, the jobs done, and the engine's timeline drawn: a lane per worker
// from GET /v1/timeline, bars in the stages' colours in as many lanes as
// workers proved, the legend. The page must log no console error. Without
// the token, and with a wrong one, the page must show its token message;
// with the daemon stopped, a banner, and no exception thrown. The cluster
// section stays hidden; with --cluster the daemon keeps its jobs in the
// PostgreSQL database of $CUZK_PG_URL (check_store_pg.sh starts a server)
// and the section must show it, its heartbeat and its counts.
//
// Exit 0 passed, 1 failed, 77 skipped (no Chromium: set CUZK_CHROMIUM to
// another binary). tests/service/page.cmake registers it.
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const SKIP = 77;
const JOB_TIMEOUT_MS = 180000;
// partitions of the job watched moving: several seconds of work on the CPU
const LONG_PARTITIONS = 600;

class Fail extends Error {}
function die(msg) {
  console.error('status_page: FAIL: ' + msg);
  throw new Fail(msg);
}
function check(cond, msg) {
  if (!cond) die(msg);
  console.log('status_page: ok: ' + msg);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function parseArgs(argv) {
  const a = { keep: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--cuzk') a.cuzk = argv[++i];
    else if (argv[i] === '--source') a.source = argv[++i];
    else if (argv[i] === '--keep') a.keep = true;
    else if (argv[i] === '--artifacts') a.artifacts = argv[++i];
    else if (argv[i] === '--cluster') a.cluster = process.env.CUZK_PG_URL || '';
    else {
      console.error('usage: status_page.mjs --cuzk PATH --source DIR [--keep] [--artifacts DIR] [--cluster]');
      process.exit(2);
    }
  }
  if (a.cluster === '') {
    console.error('status_page: --cluster needs CUZK_PG_URL (tests/service/check_store_pg.sh sets it)');
    process.exit(2);
  }
  if (!a.cuzk || !a.source) {
    console.error('usage: status_page.mjs --cuzk PATH --source DIR [--keep] [--artifacts DIR]');
    process.exit(2);
  }
  a.cuzk = path.resolve(a.cuzk);
  a.source = path.resolve(a.source);
  return a;
}

function findChromium() {
  const env = process.env.CUZK_CHROMIUM;
  if (env) return fs.existsSync(env) ? env : null;
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (fs.existsSync(p)) return p;
  return null;
}

async function freePort() {
  const srv = net.createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address();
  srv.close();
  await once(srv, 'close');
  return port;
}

// ---- the daemon ----------------------------------------------------------------

class Daemon {
  constructor(args, dir) {
    this.dir = dir;
    this.log = path.join(dir, 'daemon.log');
    this.port = null;
    this.token = 'page-test-' + Math.random().toString(36).slice(2) + Date.now().toString(36);
    this.cuzk = args.cuzk;
    this.source = args.source;
    this.proc = null;
    this.exit = null;
    this.store = args.cluster;
  }

  async start() {
    const tokenFile = path.join(this.dir, 'token');
    fs.writeFileSync(tokenFile, this.token + '\n', { mode: 0o600 });
    fs.chmodSync(tokenFile, 0o600);
    const sample = path.join(this.source, 'examples/sample');
    const conf = path.join(this.dir, 'cuzk.conf');
    fs.writeFileSync(conf, [
      '# written by tests/js/status_page.mjs',
      '[server]',
      'unix_socket = ' + path.join(this.dir, 'cuzk.sock'),
      'token_file = ' + tokenFile,
      '[store]',
      'database = ' + path.join(this.dir, 'cuzk.db'),
      'spool_dir = ' + path.join(this.dir, 'spool'),
      ...(this.store ? ['store = "' + this.store + '"', '[cluster]', 'name = page-test'] : []),
      '[engine]',
      'backend = cpu',
      'cpu_lanes = 2',
      'threads = 1',
      '[key sample]',
      'zkey = ' + path.join(sample, 'circuit.zkey'),
      'r1cs = ' + path.join(sample, 'circuit.r1cs'),
      '',
    ].join('\n'));
    // a port that was free a moment ago; another try if someone took it
    for (let attempt = 0; attempt < 3; attempt++) {
      this.port = await freePort();
      const out = fs.openSync(this.log, 'a');
      this.proc = spawn(this.cuzk, ['daemon', '--config', conf,
        '--server.tcp_listen', '127.0.0.1:' + this.port], { stdio: ['ignore', out, out] });
      fs.closeSync(out);
      this.exit = new Promise((resolve) => this.proc.on('exit', (code, sig) => resolve({ code, sig })));
      this.proc.on('error', (e) => fs.appendFileSync(this.log, 'spawn: ' + e.message + '\n'));
      if (await this.ready()) return;
      if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
      await this.exit;
    }
    die('the daemon did not answer on GET /v1/status; its log:\n' + this.logText());
  }

  async ready() {
    const until = Date.now() + 30000;
    while (Date.now() < until) {
      if (this.proc.exitCode !== null || this.proc.signalCode !== null) return false;
      try {
        const r = await this.get('/v1/status');
        if (r.status === 200) return true;
      } catch (e) {
        // not listening yet
      }
      await sleep(100);
    }
    return false;
  }

  url(p) {
    return 'http://127.0.0.1:' + this.port + p;
  }

  get(p, withToken = true) {
    const headers = withToken ? { Authorization: 'Bearer ' + this.token } : {};
    return fetch(this.url(p), { headers, signal: AbortSignal.timeout(10000) });
  }

  async json(p) {
    const r = await this.get(p);
    if (r.status !== 200) die('GET ' + p + ': HTTP ' + r.status + ' ' + (await r.text()));
    return r.json();
  }

  // One job through curl, as a user would: one witness part per partition.
  submit(partitions) {
    const wtns = path.join(this.source, 'examples/sample/witness.wtns');
    const argv = ['-sS', '-o', '-', '-w', '\n%{http_code}', '-H', 'Authorization: Bearer ' + this.token,
      '-F', 'key=sample'];
    for (let i = 0; i < partitions; i++) argv.push('-F', 'witness=@' + wtns);
    argv.push(this.url('/v1/jobs'));
    const out = execFileSync('curl', argv, { encoding: 'utf8', timeout: 60000 });
    const nl = out.lastIndexOf('\n');
    const code = out.slice(nl + 1), body = out.slice(0, nl);
    if (code !== '201') die('POST /v1/jobs: HTTP ' + code + ' ' + body);
    return JSON.parse(body);
  }

  async stop() {
    if (!this.proc || this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    this.proc.kill('SIGTERM');
    const t = setTimeout(() => this.proc.kill('SIGKILL'), 20000);
    await this.exit;
    clearTimeout(t);
  }

  logText() {
    try {
      return fs.readFileSync(this.log, 'utf8').split('\n').slice(-40).join('\n');
    } catch (e) {
      return '(no log)';
    }
  }
}

// ---- the checks ------------------------------------------------------------------

async function checkStatic(d, source) {
  const www = path.join(source, 'src/service/www');
  const files = [
    ['/', 'index.html', 'text/html'],
    ['/status.js', 'status.js', 'text/javascript'],
    ['/status.css', 'status.css', 'text/css'],
  ];
  for (const [route, file, type] of files) {
    const r = await d.get(route, false);
    check(r.status === 200, 'GET ' + route + ' without the token: 200 (' + r.status + ')');
    const ct = r.headers.get('content-type') || '';
    check(ct.startsWith(type), 'GET ' + route + ': Content-Type ' + type + ' (' + ct + ')');
    const body = Buffer.from(await r.arrayBuffer());
    check(body.equals(fs.readFileSync(path.join(www, file))), 'GET ' + route + ' is ' + file + ' byte for byte');
  }
  const r = await d.get('/v1/status', false);
  check(r.status === 401, 'GET /v1/status without the token: 401 (' + r.status + ')');
}

// Pixels of the canvas in the stages' colours, grouped into bands of rows
// (one per lane that has bars).
async function timelinePixels(page) {
  return page.evaluate(() => {
    const c = document.getElementById('timeline');
    const g = c.getContext('2d');
    const { data, width, height } = g.getImageData(0, 0, c.width, c.height);
    const colours = [...document.querySelectorAll('#legend li i')].map((i) => getComputedStyle(i).backgroundColor);
    const rgb = new Set(colours.map((s) => s.match(/\d+/g).slice(0, 3).join(',')));
    let pixels = 0;
    const rows = [];
    const found = new Set();
    for (let y = 0; y < height; y++) {
      let n = 0;
      for (let x = 0; x < width; x++) {
        const o = 4 * (y * width + x);
        if (data[o + 3] !== 255) continue;
        const k = data[o] + ',' + data[o + 1] + ',' + data[o + 2];
        if (rgb.has(k)) {
          n++;
          found.add(k);
        }
      }
      pixels += n;
      rows.push(n > 0);
    }
    let bands = 0;
    rows.forEach((on, y) => { if (on && (y === 0 || !rows[y - 1])) bands++; });
    return { pixels, bands, colours: found.size, legend: colours.length };
  });
}

async function run(args, dir, chromiumPath) {
  const { chromium } = await import('playwright-core').catch((e) => {
    die('playwright-core is not installed (' + e.message + '): run npm ci --prefix tests/js');
  });
  const d = new Daemon(args, dir);
  let browser = null;
  try {
    await d.start();
    console.log('status_page: daemon on port ' + d.port + ', folder ' + dir);
    await checkStatic(d, args.source);

    const jobs = [d.submit(1), d.submit(2), d.submit(1)];
    check(jobs.every((j) => typeof j.id === 'number'), 'three jobs submitted with curl: ids ' + jobs.map((j) => j.id));

    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : [],
    });

    // ---- with the token
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await ctx.newPage();
    const consoleErrors = [], pageErrors = [];
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.goto(d.url('/#token=' + encodeURIComponent(d.token)));

    await page.waitForFunction(() => /^\d+\.\d+\.\d+/.test(document.getElementById('version').textContent),
      null, { timeout: 20000 });
    const status = await d.json('/v1/status');
    check(await page.textContent('#version') === status.version, 'the version shown is the daemon\'s (' + status.version + ')');
    check(await page.textContent('#backend') === status.backend, 'the backend shown is the daemon\'s (' + status.backend + ')');
    check((await page.textContent('#draining')).trim() === 'serving', 'not draining');

    const keyNames = await page.$$eval('#keys tbody tr', (rows) => rows.map((r) => r.cells[0].textContent));
    check(keyNames.includes('sample'), 'the keys table shows "sample" (' + keyNames.join(', ') + ')');
    check(await page.isVisible('#auth') === false && await page.isVisible('#banner') === false,
      'no token message and no error banner');

    await page.waitForFunction((n) => document.getElementById('count-done').textContent === String(n),
      jobs.length, { timeout: JOB_TIMEOUT_MS }).catch(async () => {
      die('the job counts did not reach done: done ' + await page.textContent('#count-done') +
          ', failed ' + await page.textContent('#count-failed') + '; daemon log:\n' + d.logText());
    });
    check(true, 'the job counts reach ' + jobs.length + ' done');
    for (const st of ['queued', 'running', 'failed', 'cancelled']) {
      check(await page.textContent('#count-' + st) === '0', 'no job ' + st);
    }
    // the table catches up within a poll
    await page.waitForFunction(() => [...document.querySelectorAll('#jobs tbody tr')]
      .every((r) => r.cells[1].textContent === 'done'), null, { timeout: 5000 });
    const rows = await page.$$eval('#jobs tbody tr', (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
    check(rows.length === jobs.length, 'the jobs table lists ' + jobs.length + ' jobs (' + rows.length + ')');
    const want = jobs.slice().reverse();
    check(rows.every((r, i) => r[0] === String(want[i].id) && r[1] === 'done' && r[2] === 'sample' &&
      r[3] === 'normal' && r[4] === want[i].partitions + ' / ' + want[i].partitions && r[7] === ''),
    'the jobs table: newest first, done, key, priority, partitions done/total, no error: ' + JSON.stringify(rows));

    // the timeline: lanes as the API's workers, bars in the stages' colours
    const tl = await d.json('/v1/timeline?since_ms=0');
    const busyWorkers = new Set(tl.events.filter((e) => e.end_ms > tl.now_ms - 25000).map((e) => e.worker));
    check(tl.workers.length >= 1 && busyWorkers.size >= 1,
      'GET /v1/timeline: ' + tl.workers.length + ' workers, ' + busyWorkers.size + ' of them with events');
    await page.waitForFunction(() => Number(document.getElementById('timeline').dataset.bars) > 0, null,
      { timeout: 5000 }).catch(() => die('the timeline drew no bars'));
    const ds = await page.$eval('#timeline', (c) => ({ ...c.dataset }));
    check(Number(ds.lanes) === tl.workers.length, 'the timeline has a lane per worker (' + ds.lanes + ')');
    const px = await timelinePixels(page);
    check(px.legend === 11, 'the legend names the 11 stages (' + px.legend + ')');
    check(px.pixels > 0 && px.colours >= 1, 'the canvas holds bars in the stages\' colours (' +
      px.pixels + ' pixels, ' + px.colours + ' colours)');
    check(px.bands >= busyWorkers.size, 'bars in ' + px.bands + ' lanes, for ' + busyWorkers.size + ' busy workers');

    // a page opened seconds after the jobs ended draws their events too: it
    // reads the whole window first
    await sleep(3000);
    const late = await ctx.newPage();
    late.on('pageerror', (e) => pageErrors.push(String(e)));
    late.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    await late.goto(d.url('/#token=' + encodeURIComponent(d.token)));
    await late.waitForFunction(() => Number(document.getElementById('timeline').dataset.bars) > 0, null,
      { timeout: 5000 }).catch(() => die('a page opened after the jobs drew no bars'));
    const tl2 = await d.json('/v1/timeline?since_ms=0');
    const recent = tl2.events.filter((e) => e.stage !== 'queued' && e.end_ms > tl2.now_ms - 25000).length;
    const lateBars = Number(await late.$eval('#timeline', (c) => c.dataset.bars));
    check(lateBars >= recent && lateBars <= tl2.events.length, 'a page opened after the jobs draws their ' +
      lateBars + ' events (' + recent + ' ended in the last 25 s, ' + tl2.events.length + ' in all)');
    await late.close();

    // the cluster: shown for a PostgreSQL store only
    if (args.cluster) {
      await page.waitForFunction(() => !document.getElementById('cluster-section').hidden &&
        document.querySelectorAll('#cluster tbody tr').length > 0, null, { timeout: 5000 })
        .catch(() => die('the cluster section is not shown with a PostgreSQL store'));
      const crow = await page.$$eval('#cluster tbody tr', (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
      check(crow.length === 1 && crow[0][1] === 'page-test (this one)' && /s ago$/.test(crow[0][2]) &&
        /keys sample/.test(crow[0][4]), 'the cluster section lists this daemon: ' + JSON.stringify(crow));
      const selfText = await page.textContent('#cluster-self');
      check(selfText.includes('recorded') && /median/.test(selfText), 'and its counts: ' + selfText.slice(0, 120));
      if (args.artifacts) {
        fs.mkdirSync(args.artifacts, { recursive: true });
        await page.screenshot({ path: path.join(args.artifacts, 'status-page-cluster.png'), fullPage: true });
      }
    } else {
      check(await page.isVisible('#cluster-section') === false, 'no cluster section with a SQLite store');
    }

    const engineText = await page.textContent('#engine');
    check(engineText.includes('proofs') && engineText.includes(String(status.engine.proofs)),
      'the engine counters show the proofs');
    check(consoleErrors.length === 0 && pageErrors.length === 0,
      'no console errors (' + JSON.stringify(consoleErrors.concat(pageErrors)) + ')');

    // ---- without the token, and with a wrong one
    const bare = await browser.newPage();
    const bareErrors = [];
    bare.on('pageerror', (e) => bareErrors.push(String(e)));
    await bare.goto(d.url('/'));
    await bare.waitForSelector('#auth', { state: 'visible', timeout: 10000 })
      .catch(() => die('without the token the page shows no token message'));
    const msg = await bare.textContent('#auth');
    check(/token/i.test(msg) && msg.includes('#token='), 'without the token: "' + msg.trim().slice(0, 80) + '..."');
    check(await bare.isVisible('#banner') === false, 'without the token: no error banner beside it');
    await bare.goto(d.url('/#token=not-the-token'));
    await bare.reload();
    await bare.waitForFunction(() => !document.getElementById('auth').hidden &&
      /refused/.test(document.getElementById('auth-message').textContent), null, { timeout: 10000 })
      .catch(() => die('with a wrong token the page does not say it was refused'));
    check(true, 'with a wrong token: the message says it was refused');
    // the form puts the token in the fragment, and the page goes on from there
    await bare.fill('#auth-token', d.token);
    await bare.click('#auth-form button');
    await bare.waitForFunction((n) => document.getElementById('count-done').textContent === String(n) &&
      document.getElementById('auth').hidden, jobs.length, { timeout: 10000 })
      .catch(() => die('the token entered in the form did not open the page'));
    check(!(new URL(bare.url()).search) && new URL(bare.url()).hash.startsWith('#token='),
      'the token entered goes to the fragment, not the query');
    check(bareErrors.length === 0, 'no exception without the token (' + JSON.stringify(bareErrors) + ')');

    // ---- a job moving through its stages: seen running part way, then done,
    // its partitions' bars arriving in the timeline; the page at both moments
    // is kept as pictures in --artifacts
    const long = d.submit(LONG_PARTITIONS);
    const barsBefore = Number(await page.$eval('#timeline', (c) => c.dataset.bars));
    await page.waitForFunction(({ id, re }) => [...document.querySelectorAll('#jobs tbody tr')].some((r) =>
      r.cells[0].textContent === String(id) && r.cells[1].textContent === 'running' && new RegExp(re).test(r.cells[4].textContent)),
    { id: long.id, re: '^[1-9][0-9]* / ' + LONG_PARTITIONS + '( [(][0-9]+ running[)])?$' }, { timeout: 30000 })
      .catch(() => die('job ' + long.id + ' was never shown running with some partitions done'));
    check(true, 'job ' + long.id + ' shown running with some of its ' + LONG_PARTITIONS + ' partitions done');
    if (args.artifacts) {
      fs.mkdirSync(args.artifacts, { recursive: true });
      await page.screenshot({ path: path.join(args.artifacts, 'status-page-running.png'), fullPage: true });
    }
    await page.waitForFunction(({ id, n }) => [...document.querySelectorAll('#jobs tbody tr')].some((r) =>
      r.cells[0].textContent === String(id) && r.cells[1].textContent === 'done' && r.cells[4].textContent === n + ' / ' + n),
    { id: long.id, n: LONG_PARTITIONS }, { timeout: JOB_TIMEOUT_MS })
      .catch(() => die('job ' + long.id + ' was never shown done'));
    const barsAfter = Number(await page.$eval('#timeline', (c) => c.dataset.bars));
    check(barsAfter > barsBefore, 'then done, its stages drawn (' + barsBefore + ' bars before, ' + barsAfter + ' after)');
    if (args.artifacts) {
      await page.screenshot({ path: path.join(args.artifacts, 'status-page-done.png'), fullPage: true });
      console.log('status_page: pictures in ' + args.artifacts);
    }

    // ---- the daemon gone
    await d.stop();
    await page.waitForSelector('#banner', { state: 'visible', timeout: 10000 })
      .catch(() => die('with the daemon stopped the page shows no banner'));
    const banner = await page.textContent('#banner');
    check(/reach the daemon/.test(banner), 'the daemon stopped: "' + banner + '"');
    check(pageErrors.length === 0, 'no exception with the daemon gone (' + JSON.stringify(pageErrors) + ')');
  } finally {
    if (browser) await browser.close().catch(() => {});
    await d.stop();
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const chromiumPath = findChromium();
  if (!chromiumPath) {
    console.log('status_page: skipped: no Chromium (/usr/bin/chromium; Debian: apt-get install chromium, ' +
      'or set CUZK_CHROMIUM)');
    process.exit(SKIP);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cuzk-test-page-'));
  let ok = false;
  try {
    await run(args, dir, chromiumPath);
    ok = true;
  } catch (e) {
    if (!(e instanceof Fail)) console.error(e && e.stack || e);
  }
  if (ok && !args.keep) fs.rmSync(dir, { recursive: true, force: true });
  else console.log('status_page: left ' + dir);
  console.log(ok ? 'status_page: passed' : 'status_page: failed');
  process.exit(ok ? 0 : 1);
}

main();
