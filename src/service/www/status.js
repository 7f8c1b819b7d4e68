// status.js — the daemon's status page (index.html; doc/api.md, doc/design.md).
//
// Every second it reads GET /v1/status, the most recent jobs (GET /v1/jobs,
// paged with after=), the engine's timeline events since the last read
// (GET /v1/timeline?since_ms=) and the cluster (GET /v1/cluster: shown only
// when the daemon shares a PostgreSQL store), and draws them. Over TCP the API wants the
// daemon's token: the page takes it from its URL's fragment (#token=...),
// which the browser never sends to the server, and puts it in an
// Authorization header. A 401 shows how to give the token; a daemon that is
// gone or answers with an error leaves the last figures greyed out under a
// banner, and polling goes on. Everything from the server is set as text,
// never as markup.
'use strict';

const POLL_MS = 1000;
const AUTH_POLL_MS = 5000; // while the token is missing or refused
const FETCH_TIMEOUT_MS = 8000;
const WINDOW_MS = 30000; // the timeline's width
const RECENT_JOBS = 20;
const PAGE_LIMIT = 1000; // jobs per GET /v1/jobs
const MAX_PAGES = 20; // per poll, catching up with a long list
const TIMELINE_MAX = 5000; // events per answer (doc/api.md)
const DRAW_MS = 50;

// The stages in the engine's order, coloured as its SVG timeline
// (src/engine/timeline_svg.c): the H path in blues, the A/B/C MSMs in
// purples, waiting grey, the host's work warm, the self-check green.
const STAGES = [
  ['load', '#bf812d'],
  ['lock_wait', '#a3a3a3'],
  ['spmv', '#08519c'],
  ['ntt', '#3182bd'],
  ['msm_h', '#6baed6'],
  ['prep', '#bcbddc'],
  ['batch_add', '#9e9ac8'],
  ['tail_msm', '#756bb1'],
  ['b_g2_msm', '#54278f'],
  ['finish', '#fd8d3c'],
  ['verify', '#31a354'],
];
const STAGE_COLOUR = new Map(STAGES);
const OTHER_COLOUR = '#d9d9d9';
const JOB_STATES = ['queued', 'running', 'done', 'failed', 'cancelled'];

class AuthError extends Error {}
class NetError extends Error {}
class ApiError extends Error {}

const $ = (id) => document.getElementById(id);

// ---- the API ----------------------------------------------------------------

function token() {
  return new URLSearchParams(location.hash.slice(1)).get('token') || '';
}

// GET a route (relative, so the page works under a proxy's prefix): its JSON,
// or an AuthError, NetError or ApiError.
async function api(route) {
  const headers = { Accept: 'application/json' };
  const t = token();
  if (t) headers.Authorization = 'Bearer ' + t;
  let res;
  try {
    res = await fetch(route, {
      headers,
      cache: 'no-store',
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch (e) {
    const why = e && e.name === 'TimeoutError' ? 'no answer in ' + FETCH_TIMEOUT_MS / 1000 + ' s' : String(e && e.message || e);
    throw new NetError(why);
  }
  if (res.status === 401) throw new AuthError(t ? 'refused' : 'missing');
  let body = null;
  try {
    body = await res.json();
  } catch (e) {
    body = null;
  }
  if (!res.ok) {
    const err = body && body.error;
    const detail = err ? ' ' + err.status + ': ' + err.message : '';
    throw new ApiError('GET /' + route.split('?')[0] + ': HTTP ' + res.status + detail);
  }
  if (body === null || typeof body !== 'object') {
    throw new ApiError('GET /' + route.split('?')[0] + ': the answer is not JSON');
  }
  return body;
}

// ---- formatting -------------------------------------------------------------

function fmtBytes(n) {
  if (typeof n !== 'number' || !isFinite(n)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let u = 0;
  while (Math.abs(n) >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return (u === 0 ? String(n) : n.toFixed(n < 10 ? 2 : n < 100 ? 1 : 0)) + ' ' + units[u];
}

function fmtSeconds(s) {
  if (typeof s !== 'number' || !isFinite(s)) return '–';
  if (s < 0) s = 0;
  if (s < 60) return s.toFixed(s < 10 ? 1 : 0) + ' s';
  const m = Math.floor(s / 60);
  if (m < 60) return m + ' min ' + Math.floor(s % 60) + ' s';
  const h = Math.floor(m / 60);
  if (h < 48) return h + ' h ' + (m % 60) + ' min';
  return Math.floor(h / 24) + ' d ' + (h % 24) + ' h';
}

function fmtMs(ms) {
  return ms < 1000 ? ms.toFixed(ms < 10 ? 2 : 1) + ' ms' : (ms / 1000).toFixed(2) + ' s';
}

function fmtCount(n) {
  return typeof n === 'number' ? n.toLocaleString('en-US') : '–';
}

function fmtFraction(f) {
  return typeof f === 'number' && isFinite(f) ? (100 * f).toFixed(0) + '%' : '–';
}

// ---- DOM helpers --------------------------------------------------------------

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function setText(e, text) {
  if (e.textContent !== text) e.textContent = text;
}

// A bar of fraction f (0..1) with a label after it.
function meter(f, label) {
  const wrap = el('span', 'bar-row');
  const m = el('span', 'meter');
  const fill = el('span');
  const frac = typeof f === 'number' && isFinite(f) ? Math.min(1, Math.max(0, f)) : 0;
  fill.style.width = (100 * frac).toFixed(1) + '%';
  if (frac > 0.9) m.classList.add('high');
  m.append(fill);
  m.setAttribute('role', 'meter');
  m.setAttribute('aria-valuemin', '0');
  m.setAttribute('aria-valuemax', '1');
  m.setAttribute('aria-valuenow', frac.toFixed(3));
  wrap.append(m, el('span', 'meter-label', label));
  return wrap;
}

// The [name, value] pairs of a <dl>, its terms made once and its values
// updated in place.
function setCounters(dl, counters) {
  if (dl.children.length !== counters.length) {
    dl.replaceChildren(...counters.map(([name]) => {
      const div = el('div');
      div.append(el('dt', '', name), el('dd'));
      return div;
    }));
  }
  counters.forEach(([, value], i) => setText(dl.children[i].lastChild, value));
}

// Rows of a table's body, reusing the rows already there so that a second's
// refresh does not lose a selection. A cell is a string, a Node, or
// {text, cls, title}.
function setRows(tbody, rows) {
  while (tbody.rows.length > rows.length) tbody.deleteRow(-1);
  rows.forEach((cells, i) => {
    const tr = tbody.rows[i] || tbody.insertRow();
    while (tr.cells.length > cells.length) tr.deleteCell(-1);
    cells.forEach((c, j) => {
      const td = tr.cells[j] || tr.insertCell();
      const spec = c instanceof Node || typeof c !== 'object' || c === null ? { content: c } : c;
      const cls = spec.cls || '';
      if (td.className !== cls) td.className = cls;
      const title = spec.title || '';
      if (td.title !== title) td.title = title;
      const content = spec.content !== undefined ? spec.content : spec.text;
      if (content instanceof Node) {
        td.replaceChildren(content);
      } else {
        setText(td, content === null || content === undefined ? '' : String(content));
      }
    });
  });
}

// ---- what the page knows ----------------------------------------------------

const state = {
  clockOffsetMs: 0, // the server's Unix ms minus this browser's
  lastOk: null, // Date of the last complete refresh
  failing: false,
  jobs: { cursor: 0, recent: [] },
  tl: null,
};

function resetTimeline() {
  state.tl = {
    workers: [],
    events: new Map(), // key -> event
    parts: new Map(), // job/partition/worker -> [first start, last end]
    nowMs: null, // the engine's clock at the last answer
    nowAt: 0, // performance.now() then
    maxSpanMs: 0, // longest partition seen (load to verify)
    probed: false, // the engine's clock read
    filled: false, // the window read once
  };
}
resetTimeline();

// ---- jobs: the last RECENT_JOBS, listed from a cursor below them -------------

async function fetchJobs() {
  const j = state.jobs;
  let after = j.cursor;
  let seen = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await api('v1/jobs?after=' + after + '&limit=' + PAGE_LIMIT);
    const list = Array.isArray(r.jobs) ? r.jobs : [];
    seen = seen.concat(list).slice(-RECENT_JOBS);
    if (r.next_after === null || r.next_after === undefined || list.length === 0) break;
    after = r.next_after;
  }
  if (seen.length === 0 && j.cursor > 0) {
    // everything from the cursor on was collected: look from the start
    j.cursor = 0;
    return fetchJobs();
  }
  j.recent = seen;
  if (seen.length === RECENT_JOBS) {
    j.cursor = seen[0].id - 1;
  } else if (j.cursor > 0) {
    // fewer than wanted (jobs collected meanwhile): widen the next look
    j.cursor = Math.max(0, j.cursor - 10 * RECENT_JOBS);
  }
  return seen;
}

// ---- the timeline: events ending since the last answer ------------------------

function eventKey(e) {
  return e.worker + '/' + e.job + '/' + e.partition + '/' + e.stage + '/' + e.start_ms;
}

async function fetchTimeline() {
  const tl = state.tl;
  if (!tl.probed) {
    // the engine's clock first, so that the first read covers the window
    // only, not the ring's whole history
    const r = await api('v1/timeline?since_ms=1000000000000');
    tl.probed = true;
    tl.nowMs = r.now_ms;
    tl.nowAt = performance.now();
  }
  // The first read covers the window. After it, a partition's kernel stages
  // are recorded when it finishes, with the times they ran: look back over
  // the longest partition seen, so none is missed; events already held are
  // recognised by their key.
  const lookBack = tl.filled ? Math.min(WINDOW_MS, tl.maxSpanMs + 2 * POLL_MS) : WINDOW_MS;
  let since = Math.max(0, tl.nowMs - lookBack);
  for (let round = 0; round < 8; round++) {
    const r = await api('v1/timeline?since_ms=' + since.toFixed(3));
    if (typeof r.now_ms !== 'number') throw new ApiError('GET /v1/timeline: no now_ms');
    if (r.now_ms + 1 < tl.nowMs) {
      // a clock that went back: the daemon started again
      resetTimeline();
      state.tl.probed = true;
      return fetchTimeline();
    }
    tl.nowMs = r.now_ms;
    tl.nowAt = performance.now();
    tl.workers = Array.isArray(r.workers) ? r.workers : [];
    const events = Array.isArray(r.events) ? r.events : [];
    let lastEnd = since;
    for (const e of events) {
      if (e.stage === 'queued') continue;
      tl.events.set(eventKey(e), e);
      const pk = e.job + '/' + e.partition + '/' + e.worker;
      const span = tl.parts.get(pk);
      if (span) {
        span[0] = Math.min(span[0], e.start_ms);
        span[1] = Math.max(span[1], e.end_ms);
      } else {
        tl.parts.set(pk, [e.start_ms, e.end_ms]);
      }
      lastEnd = Math.max(lastEnd, e.end_ms);
    }
    tl.filled = true;
    if (events.length < TIMELINE_MAX || lastEnd <= since) break;
    since = lastEnd; // a full answer: read on from where it stopped
  }
  // forget what slid out of the window, and measure the partitions left
  const oldest = tl.nowMs - WINDOW_MS - 2 * POLL_MS;
  for (const [k, e] of tl.events) if (e.end_ms < oldest) tl.events.delete(k);
  let maxSpan = 0;
  for (const [k, s] of tl.parts) {
    if (s[1] < oldest) tl.parts.delete(k);
    else maxSpan = Math.max(maxSpan, s[1] - s[0]);
  }
  tl.maxSpanMs = maxSpan;
}

// ---- rendering ----------------------------------------------------------------

function renderStatus(s) {
  setText($('version'), String(s.version ?? '–'));
  setText($('uptime'), fmtSeconds(s.uptime_s));
  setText($('backend'), String(s.backend ?? '–'));
  const d = $('draining');
  const draining = s.draining === true;
  d.replaceChildren(el('span', 'badge ' + (draining ? 'draining' : 'ok'), draining ? 'draining' : 'serving'));
  if (typeof s.started_ms === 'number' && typeof s.uptime_s === 'number') {
    state.clockOffsetMs = s.started_ms + 1000 * s.uptime_s - Date.now();
  }

  const e = s.engine || {};
  const counters = [
    ['workers', fmtCount(e.workers)],
    ['lane slots', fmtCount(e.lane_slots)],
    ['queued partitions', fmtCount(e.queued_partitions)],
    ['running partitions', fmtCount(e.running_partitions)],
    ['proofs', fmtCount(e.proofs)],
    ['verified', fmtCount(e.verified)],
    ['failed partitions', fmtCount(e.failed_partitions)],
    ['device faults', fmtCount(e.faults)],
    ['retries', fmtCount(e.retries)],
    ['lane resets', fmtCount(e.lane_resets)],
    ['lanes stepped down', fmtCount(e.lane_step_downs)],
    ['host memory', fmtBytes(e.host_bytes_used) + ' of ' + fmtBytes(e.host_bytes_budget)],
  ];
  setCounters($('engine'), counters);

  const devices = Array.isArray(s.devices) ? s.devices : [];
  const busy = Array.isArray(e.busy) ? e.busy : [];
  const busyBars = busy.map((f, i) => {
    const who = devices.length === busy.length ? 'GPU ' + devices[i].index : 'slot ' + i;
    const row = el('div', 'bar-row');
    row.append(el('span', '', who + ' busy'), meter(f, fmtFraction(f)));
    return row;
  });
  $('busy').replaceChildren(...busyBars);

  $('devices-none').hidden = devices.length > 0;
  $('devices').hidden = devices.length === 0;
  setRows($('devices').tBodies[0], devices.map((dev, i) => {
    const total = dev.memory_total, free = dev.memory_free;
    const used = typeof total === 'number' && typeof free === 'number' ? total - free : NaN;
    return [
      { text: String(dev.index), cls: 'num' },
      String(dev.name ?? ''),
      meter(total > 0 ? used / total : 0, fmtBytes(used) + ' of ' + fmtBytes(total)),
      { text: fmtBytes(free), cls: 'num' },
      devices.length === busy.length ? meter(busy[i], fmtFraction(busy[i])) : '–',
    ];
  }));

  const keys = Array.isArray(s.keys) ? s.keys : [];
  $('keys-none').hidden = keys.length > 0;
  $('keys').hidden = keys.length === 0;
  setRows($('keys').tBodies[0], keys.map((k) => [
    String(k.name ?? ''),
    String(k.format ?? ''),
    { text: String(k.tier ?? ''), cls: 'tier-' + k.tier },
    { text: fmtBytes(k.bytes), cls: 'num', title: fmtCount(k.bytes) + ' bytes' },
    { text: fmtCount(k.queued_partitions), cls: 'num' },
    { text: fmtCount(k.running_partitions), cls: 'num' },
    { text: fmtCount(k.loads), cls: 'num' },
    { text: fmtCount(k.evictions), cls: 'num' },
  ]));

  const counts = s.jobs || {};
  for (const st of JOB_STATES) setText($('count-' + st), fmtCount(counts[st]));
}

// The daemons sharing the store; nothing for a daemon alone on SQLite.
function renderCluster(c) {
  const shared = c.store === 'postgres';
  $('cluster-section').hidden = !shared;
  if (!shared) return;
  const me = c.self || {};
  setText($('cluster-where'), '(' + String(c.where ?? '') + ')');
  const cost = me.queue_cost_ms || {};
  const counters = [
    ['this daemon', String(me.name ?? '–') + ' (id ' + fmtCount(me.id) + ')'],
    ['holds', fmtCount(me.held)],
    ['claimed', fmtCount(me.claimed)],
    ['recorded', fmtCount(me.recorded)],
    ['failed', fmtCount(me.failed)],
    ['fenced', fmtCount(me.fenced)],
    ['lost', fmtCount(me.lost)],
    ['given back', fmtCount(me.released)],
    ['put back for others', fmtCount(me.requeued)],
    ['store errors', fmtCount(me.store_errors)],
    ['reconnects', fmtCount(me.reconnects)],
    ['queue cost a partition', typeof cost.median === 'number'
      ? fmtMs(cost.median) + ' median, ' + fmtMs(cost.p99) + ' p99' : '–'],
  ];
  setCounters($('cluster-self'), counters);
  const daemons = Array.isArray(c.daemons) ? c.daemons : [];
  const lease = typeof me.lease_ms === 'number' ? me.lease_ms : 0;
  setRows($('cluster').tBodies[0], daemons.map((d) => {
    const age = typeof d.heartbeat_age_ms === 'number' ? d.heartbeat_age_ms : NaN;
    const silent = lease > 0 && age > lease; // its leases have run out: it is gone or cut off
    return [
      { text: String(d.id), cls: 'num' + (d.id === me.id ? ' self' : '') },
      { text: String(d.name ?? '') + (d.id === me.id ? ' (this one)' : ''), cls: d.id === me.id ? 'self' : '' },
      { text: Number.isFinite(age) ? fmtSeconds(age / 1000) + ' ago' : '–', cls: 'num' + (silent ? ' error' : ''),
        title: silent ? 'silent for longer than its lease: its partitions go to the others' : '' },
      { text: fmtCount(d.held), cls: 'num' },
      String(d.info ?? ''),
    ];
  }));
}

function renderJobs(jobs) {
  $('jobs-none').hidden = jobs.length > 0;
  $('jobs').hidden = jobs.length === 0;
  setText($('jobs-caption'), jobs.length === RECENT_JOBS
    ? 'the ' + RECENT_JOBS + ' most recent jobs' : 'the most recent jobs');
  const now = Date.now() + state.clockOffsetMs;
  // newest first
  setRows($('jobs').tBodies[0], jobs.slice().reverse().map((j) => {
    let parts = fmtCount(j.partitions_done) + ' / ' + fmtCount(j.partitions);
    if (j.partitions_running > 0) parts += ' (' + j.partitions_running + ' running)';
    const ended = typeof j.finished_ms === 'number';
    const age = typeof j.created_ms === 'number' ? fmtSeconds((now - j.created_ms) / 1000) : '–';
    const took = ended && typeof j.created_ms === 'number'
      ? 'ended after ' + fmtSeconds((j.finished_ms - j.created_ms) / 1000) : '';
    const err = j.error ? String(j.error.status) + ': ' + String(j.error.message) : '';
    return [
      { text: String(j.id), cls: 'num' },
      { text: String(j.state), cls: 'state state-' + j.state },
      String(j.key ?? ''),
      String(j.priority ?? ''),
      parts,
      { text: age, cls: 'num', title: (typeof j.created_ms === 'number'
        ? 'submitted ' + new Date(j.created_ms).toISOString() : '') + (took ? '; ' + took : '') },
      j.request_id === null || j.request_id === undefined ? '' : String(j.request_id),
      { text: err, cls: err ? 'error' : '' },
    ];
  }));
}

// ---- the timeline on a canvas ----------------------------------------------------

const LABEL_W = 120;
const AXIS_H = 18;
const LANE_H = 22;
const LANE_GAP = 4;
let lastDraw = 0;
let drawnBars = []; // [x, y, w, h, event] of the last frame, for the tooltip

function timelineNow() {
  const tl = state.tl;
  if (tl.nowMs === null) return null;
  // between answers the clock runs on here; it stops while the daemon is away
  const ahead = state.failing ? 0 : Math.min(performance.now() - tl.nowAt, 3 * POLL_MS);
  return tl.nowMs + ahead;
}

function laneList() {
  const tl = state.tl;
  const lanes = tl.workers.map((w) => w.worker);
  for (const e of tl.events.values()) if (!lanes.includes(e.worker)) lanes.push(e.worker);
  return lanes;
}

function laneLabel(worker) {
  const w = state.tl.workers.find((x) => x.worker === worker);
  const where = !w ? '' : w.device < 0 ? ' · cpu' : ' · GPU ' + w.device;
  return 'worker ' + worker + where;
}

function drawTimeline() {
  const canvas = $('timeline');
  const lanes = laneList();
  const dpr = window.devicePixelRatio || 1;
  const cssW = Math.max(300, canvas.clientWidth);
  const cssH = AXIS_H + Math.max(1, lanes.length) * (LANE_H + LANE_GAP) + LANE_GAP;
  if (canvas.width !== Math.round(cssW * dpr) || canvas.height !== Math.round(cssH * dpr)) {
    canvas.width = Math.round(cssW * dpr);
    canvas.height = Math.round(cssH * dpr);
    canvas.style.height = cssH + 'px';
  }
  const g = canvas.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, cssW, cssH);
  const style = getComputedStyle(canvas);
  const fg = style.color;
  g.font = '12px ' + style.fontFamily;
  g.textBaseline = 'middle';

  const now = timelineNow();
  const plotX = LABEL_W, plotW = Math.floor(cssW) - LABEL_W - 8;
  drawnBars = [];
  const drawnStages = new Set();
  if (now === null || lanes.length === 0) {
    g.fillStyle = fg;
    g.fillText(now === null ? 'waiting for the engine…' : 'no workers', plotX, AXIS_H + LANE_H / 2);
    canvas.dataset.lanes = '0';
    canvas.dataset.bars = '0';
    canvas.dataset.stages = '';
    return;
  }
  const t0 = now - WINDOW_MS;
  const xOf = (t) => plotX + ((t - t0) / WINDOW_MS) * plotW;

  // the axis: a tick every 5 s, labelled in seconds before now
  g.strokeStyle = fg;
  g.globalAlpha = 0.25;
  g.lineWidth = 1;
  for (let s = 0; s <= WINDOW_MS / 1000; s += 5) {
    const x = Math.round(xOf(now - s * 1000)) + 0.5;
    g.beginPath();
    g.moveTo(x, AXIS_H - 4);
    g.lineTo(x, cssH);
    g.stroke();
  }
  g.globalAlpha = 1;
  g.fillStyle = fg;
  g.textAlign = 'center';
  for (let s = 0; s <= WINDOW_MS / 1000; s += 5) {
    const x = xOf(now - s * 1000);
    g.textAlign = s === 0 ? 'right' : 'center';
    g.fillText(s === 0 ? 'now' : '−' + s + ' s', x, AXIS_H / 2);
  }

  // lanes and their labels
  g.textAlign = 'left';
  const laneY = new Map();
  lanes.forEach((w, i) => {
    const y = AXIS_H + LANE_GAP + i * (LANE_H + LANE_GAP);
    laneY.set(w, y);
    g.fillStyle = fg;
    g.globalAlpha = 0.06;
    g.fillRect(plotX, y, plotW, LANE_H);
    g.globalAlpha = 1;
    g.fillText(laneLabel(w), 6, y + LANE_H / 2);
  });

  // the events: one bar each, at least a pixel wide
  g.save();
  g.beginPath();
  g.rect(plotX, 0, plotW, cssH);
  g.clip();
  for (const e of state.tl.events.values()) {
    if (e.end_ms < t0 || e.start_ms > now) continue;
    const y = laneY.get(e.worker);
    if (y === undefined) continue;
    // whole pixels: crisp edges, and each bar's colour exact
    const x0 = Math.round(Math.max(plotX, xOf(e.start_ms)));
    const x1 = Math.round(Math.min(plotX + plotW, xOf(e.end_ms)));
    const w = Math.max(1, x1 - x0);
    g.fillStyle = STAGE_COLOUR.get(e.stage) || OTHER_COLOUR;
    g.fillRect(x0, y + 2, w, LANE_H - 4);
    drawnBars.push([x0, y, w, LANE_H, e]);
    drawnStages.add(e.stage);
  }
  g.restore();
  canvas.dataset.lanes = String(lanes.length);
  canvas.dataset.bars = String(drawnBars.length);
  canvas.dataset.stages = [...drawnStages].sort().join(',');
}

function frame(t) {
  if (t - lastDraw >= DRAW_MS) {
    lastDraw = t;
    drawTimeline();
  }
  requestAnimationFrame(frame);
}

function onTimelineHover(ev) {
  const canvas = $('timeline');
  const tip = $('timeline-tip');
  const r = canvas.getBoundingClientRect();
  const x = ev.clientX - r.left, y = ev.clientY - r.top;
  // the topmost (last drawn) bar under the pointer, or one within 3 px
  let hit = null, best = 4;
  for (let i = drawnBars.length - 1; i >= 0; i--) {
    const [bx, by, bw, bh, e] = drawnBars[i];
    if (y < by || y > by + bh) continue;
    const d = x < bx ? bx - x : x > bx + bw ? x - bx - bw : 0;
    if (d < best) {
      best = d;
      hit = e;
      if (d === 0) break;
    }
  }
  if (!hit) {
    tip.hidden = true;
    return;
  }
  tip.textContent = hit.stage + '  ' + fmtMs(hit.end_ms - hit.start_ms) + '\n' +
    (hit.job > 0 ? 'job ' + hit.job : 'a job no longer followed') + ', partition ' + hit.partition + '\n' +
    laneLabel(hit.worker);
  tip.hidden = false;
  const left = Math.min(x + 12, r.width - tip.offsetWidth - 4);
  tip.style.left = Math.max(0, left) + 'px';
  tip.style.top = (y + 14) + 'px';
}

function buildLegend() {
  $('legend').replaceChildren(...STAGES.map(([name, colour]) => {
    const li = el('li');
    li.dataset.stage = name;
    const sw = el('i');
    sw.style.background = colour;
    li.append(sw, document.createTextNode(name));
    return li;
  }));
}

// ---- the poll -------------------------------------------------------------------

function showProblem(e) {
  const auth = e instanceof AuthError;
  $('auth').hidden = !auth;
  if (auth) {
    const here = location.origin + location.pathname + '#token=<token>';
    setText($('auth-message'), e.message === 'refused'
      ? 'The daemon refused the token in this page\'s address (401). Enter the word in its ' +
        '[server] token_file, or open this page as ' + here + '; the token stays in the ' +
        'URL\'s fragment, which the browser never sends to the server.'
      : 'This daemon asks for its bearer token (401): open this page as ' + here + ', with ' +
        'the word in its [server] token_file, or enter it here. It stays in the URL\'s ' +
        'fragment, which the browser never sends to the server.');
  }
  const banner = $('banner');
  if (auth) {
    banner.hidden = true;
  } else {
    const since = state.lastOk ? ' Last update ' + state.lastOk.toLocaleTimeString() + '.' : '';
    banner.textContent = (e instanceof NetError
      ? 'Cannot reach the daemon (' + e.message + '); trying again every second.'
      : 'The daemon answered with an error: ' + (e && e.message || String(e)) + '.') + since;
    banner.hidden = false;
  }
  state.failing = true;
  $('main').classList.add('stale');
}

function showOk() {
  $('auth').hidden = true;
  $('banner').hidden = true;
  state.failing = false;
  state.lastOk = new Date();
  setText($('updated'), state.lastOk.toLocaleTimeString());
  $('main').classList.remove('stale');
}

let timer = null;
let generation = 0; // a new token starts a new generation; older polls' answers are dropped

async function poll() {
  const gen = generation;
  const started = performance.now();
  const [s, j, t, c] = await Promise.allSettled([api('v1/status'), fetchJobs(), fetchTimeline(),
    api('v1/cluster')]);
  if (gen !== generation) return;
  if (s.status === 'fulfilled') renderStatus(s.value);
  if (j.status === 'fulfilled') renderJobs(j.value);
  if (c.status === 'fulfilled') renderCluster(c.value);
  const failed = [s, j, t, c].filter((r) => r.status === 'rejected').map((r) => r.reason);
  // a 401 says most; then the daemon being away; then the rest
  const problem = failed.find((e) => e instanceof AuthError) ||
    failed.find((e) => e instanceof NetError) || failed[0];
  if (problem) showProblem(problem);
  else showOk();
  const wait = problem instanceof AuthError ? AUTH_POLL_MS : POLL_MS;
  timer = setTimeout(poll, Math.max(0, wait - (performance.now() - started)));
}

function restart() {
  generation++;
  clearTimeout(timer);
  state.jobs = { cursor: 0, recent: [] };
  resetTimeline();
  poll();
}

function init() {
  buildLegend();
  $('auth-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const t = $('auth-token').value.trim();
    if (t) location.hash = 'token=' + encodeURIComponent(t); // hashchange restarts
  });
  window.addEventListener('hashchange', restart);
  const canvas = $('timeline');
  canvas.addEventListener('mousemove', onTimelineHover);
  canvas.addEventListener('mouseleave', () => { $('timeline-tip').hidden = true; });
  requestAnimationFrame(frame);
  poll();
}

init();
