// The AX console: a small page over the JSON API (/api/v1). Every value from the server is put
// into the page as text (textContent), never as HTML. A change is a fetch with a JSON body, which
// the API requires (a page of another site cannot send one).
'use strict';

const API = '/api/v1';
const page = () => document.getElementById('page');

function token() { return sessionStorage.getItem('ax.token'); }
function namespace() { return sessionStorage.getItem('ax.namespace') || 'default'; }

async function api(method, path, body) {
  const headers = { 'Accept': 'application/json' };
  if (token()) headers['Authorization'] = 'Bearer ' + token();
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const scoped = path + (path.includes('?') ? '&' : '?') + 'namespace=' + encodeURIComponent(namespace());
  const response = await fetch(API + scoped, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body)
  });
  const json = await response.json().catch(() => ({ code: 'internal', message: response.statusText }));
  if (response.status === 401) { askForToken(json.message); throw new Error(json.message); }
  if (!response.ok) throw new Error(json.code + ': ' + json.message);
  return json;
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.substring(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function duration(ms) { return ms === null || ms === undefined ? '' : ms < 10000 ? ms + ' ms' : (ms / 1000).toFixed(1) + ' s'; }
function time(ms) { return ms === null || ms === undefined ? '' : new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC'); }
function status(text) { return el('span', { class: 's-' + text }, text || ''); }
function link(href, text) { return el('a', { href }, text); }

function table(headers, rows) {
  return el('div', { class: 'scroll' },
    el('table', {}, el('thead', {}, el('tr', {}, headers.map(h => el('th', {}, h)))),
      el('tbody', {}, rows.map(r => el('tr', {}, r.map(c => c instanceof Node ? el('td', {}, c) : el('td', { class: 'wrap' }, c)))))));
}

function say(kind, text) {
  const box = document.getElementById('message');
  box.replaceChildren(el('div', { class: kind }, text));
}

function askForToken(why) {
  page().replaceChildren(el('h1', {}, 'Token'), el('p', {}, why || 'This console needs a token.'),
    el('form', { class: 'filters', id: 'token-form', onsubmit: e => {
      e.preventDefault();
      sessionStorage.setItem('ax.token', e.target.elements.token.value.trim());
      namespaces().then(route);
    } }, el('input', { name: 'token', type: 'password', placeholder: 'token', size: 40 }),
    el('button', { type: 'submit' }, 'Use')));
}

/** A reason field and one button per action; each sends and reports. */
function actions(list) {
  const reason = el('input', { name: 'reason', placeholder: 'reason (required)', size: 30 });
  const buttons = list.map(([label, send, danger]) => el('button', {
    type: 'button', class: danger ? 'danger' : '', 'data-action': label,
    onclick: async () => {
      if (!reason.value.trim()) { say('error', 'Give a reason first.'); return; }
      const shown = location.hash;
      try {
        const out = await send(reason.value.trim());
        say('ok', label + ': ' + describe(out));
        // Ingest applies a command within moments: show its effect, unless the user moved on.
        setTimeout(() => { if (location.hash === shown) route(); }, 700);
      }
      catch (e) { say('error', label + ': ' + e.message); }
    } }, label));
  return el('div', { class: 'actions' }, reason, buttons);
}

function describe(out) {
  if (out.commandId) return 'sent, command ' + out.commandId;
  if (out.message) return out.message;
  if (out.result) return out.result;
  if (out.change) return out.change.toLowerCase();
  if (out.changed !== undefined) return out.changed ? 'set to ' + out.value : 'was already ' + out.value;
  return 'done';
}

/** Summaries read while the overview is shown, oldest first (at most 60: two minutes). */
const samples = [];
let polling = null;

function quantile(buckets, q) {
  const total = buckets.length ? buckets[buckets.length - 1][1] : 0;
  if (total <= 0) return null;
  for (const [le, count] of buckets) if (count >= q * total) return le === null ? '> ' + buckets[buckets.length - 2][0] : le;
  return null;
}

/** Bucket counts between two cumulative reads (the later minus the earlier). */
function between(later, earlier) {
  if (!earlier) return later;
  const before = new Map(earlier.map(([le, c]) => [le, c]));
  return later.map(([le, c]) => [le, c - (before.get(le) || 0)]);
}

function chart(id, series, unit) {
  const W = 560, H = 140, n = Math.max(...series.map(s => s.points.length), 2);
  const max = Math.max(1, ...series.flatMap(s => s.points));
  const picture = svg('svg', { id, width: W, height: H + 20, viewBox: `0 0 ${W} ${H + 20}`, role: 'img' },
    svg('line', { x1: 0, y1: H, x2: W, y2: H, stroke: '#9aa3b2' }),
    svg('text', { x: 4, y: 14, fill: '#5b6475' }, Math.round(max) + ' ' + unit));
  series.forEach((s, k) => {
    const points = s.points.map((v, i) => `${(i * W / (n - 1)).toFixed(1)},${(H - v * (H - 20) / max).toFixed(1)}`).join(' ');
    picture.append(svg('polyline', { points, fill: 'none', stroke: s.colour, 'stroke-width': 2, 'data-series': s.name }));
    picture.append(svg('text', { x: 120 + k * 130, y: H + 16, fill: s.colour }, s.name));
  });
  return el('div', { class: 'scroll chart' }, picture);
}

async function overview() {
  const states = ['ACTIVE', 'PAUSED', 'ENDED', 'CANCELLED'];
  const counts = await Promise.all(states.map(s => api('GET', '/tasks?limit=1&state=' + s)));
  const open = await api('GET', '/deadletters?state=OPEN&limit=1000');
  const switches = await api('GET', '/switches');
  const summary = await api('GET', '/summary');
  samples.push(summary);
  while (samples.length > 60) samples.shift();
  const rates = name => samples.slice(1).map((s, i) =>
    Math.max(0, (s.throughput[name] - samples[i].throughput[name]) * 1000 / Math.max(1, s.readAtMs - samples[i].readAtMs)));
  const first = samples[0], last = samples[samples.length - 1];
  const window = (name) => between(last.lateness[name] || [], samples.length > 1 ? first.lateness[name] : null);
  // A histogram's quantile between each two reads; an open-ended top bucket counts as its bound.
  const perRead = (name, q) => samples.slice(1).map((s, i) => {
    const v = quantile(between(s.lateness[name] || [], samples[i].lateness[name] || []), q);
    return v === null ? 0 : typeof v === 'number' ? v : parseFloat(String(v).replace('> ', ''));
  });
  const lateness = ['start', 'claim', 'run'].map(name => {
    const b = window(name);
    return name + ': p50 ' + (quantile(b, 0.5) ?? '-') + ' ms, p99 ' + (quantile(b, 0.99) ?? '-') + ' ms';
  }).join('; ');
  const down = summary.sources.filter(s => !s.ok);
  page().replaceChildren(el('h1', {}, 'Overview'),
    el('div', { class: 'cards', id: 'cards' },
      states.map((s, i) => el('a', { class: 'card', href: '#/tasks?state=' + s },
        el('div', { class: 'n' }, counts[i].total + (counts[i].totalIsAtLeast ? '+' : '')),
        el('div', { class: 'l' }, s.toLowerCase() + ' tasks'))),
      el('a', { class: 'card', href: '#/deadletters' },
        el('div', { class: 'n' }, open.deadLetters.length + (open.deadLetters.length >= 1000 ? '+' : '')),
        el('div', { class: 'l' }, 'open dead letters')),
      el('div', { class: 'card' }, el('div', { class: 'n' }, String(summary.ticker.epoch)),
        el('div', { class: 'l' }, 'ticker epoch (' + summary.ticker.leaders + ' leader' + (summary.ticker.leaders === 1 ? '' : 's') + ')')),
      el('div', { class: 'card' }, el('div', { class: 'n' }, summary.oldestDueAgeMs + ' ms'),
        el('div', { class: 'l' }, 'oldest due, not started'))),
    down.length ? el('p', { class: 'error' }, 'Metrics not read from: ' + down.map(s => s.url + ' (' + s.error + ')').join(', ')) : '',
    el('h2', {}, 'Throughput, attempts a second'),
    chart('throughput-chart', [
      { name: 'succeeded', colour: '#1f7a3a', points: rates('succeeded') },
      { name: 'failed', colour: '#b3261e', points: rates('failed') },
      { name: 'fired', colour: '#2656c9', points: rates('fired') }], '/s'),
    el('h2', {}, 'Lateness and run time, ms, per read'),
    chart('lateness-chart', [
      { name: 'start p50', colour: '#2656c9', points: perRead('start', 0.5) },
      { name: 'start p99', colour: '#b3261e', points: perRead('start', 0.99) },
      { name: 'run p99', colour: '#1f7a3a', points: perRead('run', 0.99) }], 'ms'),
    el('p', { id: 'lateness' }, 'Over the last ' + Math.round((last.readAtMs - first.readAtMs) / 1000) + ' s: ' + lateness +
      ' (start: due to start, end to end; claim: due to claim; run: claim to finish)'),
    el('h2', {}, 'Backlog by status'),
    table(['status', 'instances'], Object.entries(summary.backlog).map(([k, v]) => [status(k), String(v)])),
    el('h2', {}, 'Switches'),
    table(['switch', 'value', 'version', 'set by'], switches.switches.map(s =>
      [s.name, status(s.value), String(s.version), s.setBy || ''])));
  clearTimeout(polling);
  polling = setTimeout(() => { if ((location.hash || '#/') === '#/') route(); }, 2000);
}

async function tasks(params) {
  const query = new URLSearchParams(params);
  if (!query.get('limit')) query.set('limit', '50');
  const data = await api('GET', '/tasks?' + query);
  const form = el('form', { class: 'filters', id: 'task-filters', onsubmit: e => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const f of ['text', 'group', 'state', 'trigger', 'lastStatus']) {
      if (e.target.elements[f].value) q.set(f, e.target.elements[f].value);
    }
    location.hash = '#/tasks?' + q;
  } },
    el('input', { name: 'text', placeholder: 'task id contains', value: params.get('text') || '' }),
    el('input', { name: 'group', placeholder: 'group', value: params.get('group') || '' }),
    select('state', ['', 'ACTIVE', 'PAUSED', 'CANCELLED', 'DELETED', 'ENDED'], params.get('state')),
    select('trigger', ['', 'ONCE', 'CRON', 'FIXED_RATE', 'FIXED_DELAY', 'DEPENDENCY'], params.get('trigger')),
    select('lastStatus', ['', 'SCHEDULED', 'RUNNING', 'SUCCESS', 'FAILED', 'TIMEOUT', 'RETRYING', 'DEAD', 'CANCELLED', 'PAUSED'], params.get('lastStatus')),
    el('button', { type: 'submit' }, 'Search'));
  const boxes = data.tasks.map(t => el('input', { type: 'checkbox', value: t.taskId, 'data-task': t.taskId }));
  const bulk = actions([
    ['Pause selected', r => each(boxes, id => api('POST', '/tasks/' + encodeURIComponent(id) + '/pause', { reason: r }))],
    ['Resume selected', r => each(boxes, id => api('POST', '/tasks/' + encodeURIComponent(id) + '/resume', { reason: r }))]]);
  const next = data.next ? (() => { const q = new URLSearchParams(query); q.set('after', data.next); return link('#/tasks?' + q, 'next page'); })() : null;
  page().replaceChildren(el('h1', {}, 'Tasks'), form,
    el('p', {}, data.total + (data.totalIsAtLeast ? '+' : '') + ' task(s) match; ' + data.tasks.length + ' shown. ', next),
    bulk,
    table(['', 'task', 'group', 'trigger', 'state', 'version', 'last due', 'last status', 'runs', 'failures', 'last duration', 'mean duration'], data.tasks.map((t, i) => [
      boxes[i], link('#/task/' + encodeURIComponent(t.taskId), t.taskId), t.group, t.triggerType, status(t.state),
      String(t.version), time(t.lastDueAtMs), status(t.lastStatus),
      String(t.recent.runs), t.recent.failures ? el('span', { class: 's-FAILED' }, String(t.recent.failures)) : '0',
      duration(t.recent.lastDurationMs), duration(t.recent.meanDurationMs)])),
    el('p', { class: 'hint' }, 'runs, failures and durations: over each task\'s latest ' + (data.tasks.length ? data.tasks[0].recent.window : 100) + ' instances'));
}

async function each(boxes, send) {
  const chosen = boxes.filter(b => b.checked).map(b => b.value);
  if (chosen.length === 0) throw new Error('select tasks first');
  for (const id of chosen) await send(id);
  return { message: 'sent for ' + chosen.length + ' task(s)' };
}

function select(name, values, chosen) {
  return el('select', { name }, values.map(v => {
    const option = el('option', { value: v }, v || name);
    if (v === chosen) option.selected = true;
    return option;
  }));
}

async function task(id) {
  const t = await api('GET', '/tasks/' + encodeURIComponent(id) + '?instances=50');
  const path = '/tasks/' + encodeURIComponent(id);
  const runs = await api('GET', path + '/runs?limit=20');
  const ahead = await api('GET', path + '/next?n=10');
  page().replaceChildren(el('h1', {}, 'Task ', t.taskId, ' ', status(t.state)),
    el('div', { id: 'task-about' },
      t.spec.name ? el('p', { id: 'task-name', class: 'name' }, t.spec.name) : null,
      t.spec.description ? el('p', { id: 'task-description', class: 'description' }, t.spec.description) : null,
      t.spec.sharding ? el('p', { id: 'task-sharding' }, 'Sharded: each firing runs as ' + t.spec.sharding.total +
        ' shards in parallel (runs <firing>#<index>of<total>); the firing ends when its last shard does.') : null),
    el('p', { id: 'next-firings' }, 'version ' + t.version + '; next firings: ' +
      (t.nextFirings.length ? t.nextFirings.map(at => at.replace('T', ' ').replace('Z', ' UTC')).join(', ') : 'none')),
    actions([
      ['Pause', r => api('POST', path + '/pause', { reason: r })],
      ['Resume', r => api('POST', path + '/resume', { reason: r })],
      ['Run now', r => api('POST', path + '/run-now', { reason: r })],
      ['Cancel', r => api('POST', path + '/cancel', { reason: r }), true],
      ['Delete', r => api('POST', path + '/delete', { reason: r }), true]]),
    el('h2', {}, 'Next firings'),
    el('div', { id: 'upcoming' },
      ahead.notes.map(n => el('p', { class: 'hint' }, n)),
      ahead.firings.length ? table(['slot', 'due (jitter applied)', ''], ahead.firings.map(f => [
        time(f.slotAtMs), time(f.dueAtMs), f.skipped ? el('span', { class: 's-SKIPPED' }, 'skipped: ' + f.reason) : 'runs'])) : null),
    el('h2', {}, 'Runs, newest first'),
    el('div', { id: 'task-runs' }, table(['instance', 'status', 'attempt', 'due', 'started', 'late', 'finished', 'duration', 'error'], t.instances.map(i => [
      link('#/task/' + encodeURIComponent(id) + '/' + encodeURIComponent(i.instanceId), i.instanceId), status(i.status),
      String(i.attempt), time(i.dueAtMs), time(i.claimedAtMs),
      i.claimedAtMs ? duration(Math.max(0, i.claimedAtMs - i.dueAtMs)) : '', time(i.finishedAtMs),
      i.finishedAtMs && i.claimedAtMs ? duration(i.finishedAtMs - i.claimedAtMs) : '', i.lastError || '']))),
    el('h2', {}, 'Run output, newest first'),
    runOutput(runs.runs),
    await backfillSection(path, t),
    el('h2', {}, 'Commands applied'),
    table(['at', 'type', 'command', 'reason'], t.commands.map(c => [time(c.appliedAtMs), c.type, c.commandId, c.reason || ''])),
    el('h2', {}, 'Spec'), specEditor(path, t.spec));
}

/**
 * A CRON or FIXED_RATE task's backfills with their progress, and a form for a new one (from, to,
 * overlap, reason): POST tasks/{id}/backfills, checked at once; the ticker creates its firings at
 * its pace, each <taskId>@backfill:<slotMillis>. Nothing for the other triggers.
 */
async function backfillSection(path, t) {
  const type = t.spec.trigger && t.spec.trigger.type;
  if (type !== 'CRON' && type !== 'FIXED_RATE') return null;
  const list = (await api('GET', path + '/backfills')).backfills;
  const from = el('input', { name: 'from', placeholder: 'from, e.g. 2026-03-01T00:00:00Z', size: 26 });
  const to = el('input', { name: 'to', placeholder: 'to (inclusive)', size: 26 });
  const overlap = select('overlap', ['', 'BUFFER_ALL', 'BUFFER_ONE', 'SKIP', 'ALLOW_ALL'], '');
  const request = async r => {
    const body = { from: from.value.trim(), to: to.value.trim(), reason: r };
    if (overlap.value) body.overlap = overlap.value;
    const b = await api('POST', path + '/backfills', body);
    return { message: 'backfill ' + b.backfillId + ': ' + b.firings + ' firing(s), overlap ' + b.overlap };
  };
  const cancel = id => async r => {
    const b = await api('POST', path + '/backfills/' + encodeURIComponent(id) + '/cancel', { reason: r });
    return { message: 'backfill ' + b.backfillId + ' cancelled after ' + b.created + ' firing(s)' };
  };
  return el('div', { id: 'backfills' },
    el('h2', {}, 'Backfills'),
    list.length ? table(['backfill', 'state', 'from', 'to', 'overlap', 'created', 'skipped', 'existing', 'remaining', 'by', 'ended', ''],
      list.map(b => [b.backfillId, status(b.state), b.from, b.to, b.overlap, b.created + ' / ' + b.firings,
        String(b.skipped), String(b.existing), String(b.remaining), b.requestedBy, b.endedReason || '',
        b.state === 'RUNNING' ? actions([['Cancel backfill', cancel(b.backfillId), true]]) : ''])) :
      el('p', {}, 'No backfills.'),
    el('div', { class: 'filters' }, from, to, overlap),
    actions([['Backfill', request]]));
}

/**
 * Each run's attempt, status, times and what it said: the output as text in a <pre> (a text node,
 * never HTML), the first line as the row's summary.
 */
function runOutput(runs) {
  if (!runs.length) return el('p', { id: 'run-output' }, 'No runs yet.');
  return el('div', { id: 'run-output' }, runs.map(r =>
    el('details', { class: 'run' },
      el('summary', {}, r.instanceId, ' #', String(r.attempt), ' ', status(r.status), ' ',
        time(r.startedAtMs), ' ', duration(r.durationMs), ' ',
        r.output ? r.output.split('\n')[0] : (r.error || '(no output)')),
      el('pre', { class: 'output' }, r.output || '(no output stored)'))));
}

/**
 * The task's spec as an editable JSON text and an Update action (an UPDATE with the whole spec).
 * Masked values (****) must be replaced first: sent as they are, they would become the new values.
 */
function specEditor(path, spec) {
  const text = el('textarea', { name: 'spec', rows: 14, spellcheck: 'false' }, JSON.stringify(spec, null, 2));
  return el('div', { class: 'spec' }, text, actions([
    ['Update', r => {
      let parsed;
      try { parsed = JSON.parse(text.value); } catch (e) { throw new Error('the spec is not JSON: ' + e.message); }
      if (text.value.includes('****')) throw new Error('replace the masked values (****) first');
      return api('POST', path + '/update', { reason: r, spec: parsed });
    }]]));
}

async function instance(taskId, instanceId) {
  const i = await api('GET', '/tasks/' + encodeURIComponent(taskId) + '/instances/' + encodeURIComponent(instanceId));
  page().replaceChildren(el('h1', {}, 'Run ', instanceId, ' ', status(i.instance.status)),
    el('p', {}, link('#/task/' + encodeURIComponent(taskId), '← task ' + taskId), ' · ',
      link('#/flow/' + encodeURIComponent(instanceId), 'the flow run this run started')),
    el('h2', {}, 'Audit timeline'),
    table(['at', 'attempt', 'from', 'to', 'by', 'why'], i.history.map(h => [
      time(h.atMs), String(h.attempt), h.from || '(created)', status(h.to), h.actor, h.reason || ''])));
}

async function deadLetters() {
  const data = await api('GET', '/deadletters?limit=200');
  page().replaceChildren(el('h1', {}, 'Dead letters'),
    table(['id', 'stored', 'state', 'task', 'instance', 'attempts', 'last error'], data.deadLetters.map(d => [
      link('#/deadletter/' + d.id, String(d.id)), time(d.createdAtMs), status(d.state),
      link('#/task/' + encodeURIComponent(d.taskId), d.taskId), d.instanceId, String(d.attemptCount), d.lastError || ''])));
}

async function deadLetter(id) {
  const d = await api('GET', '/deadletters/' + id);
  page().replaceChildren(el('h1', {}, 'Dead letter ', String(d.id), ' ', status(d.state)),
    el('p', {}, 'task ', link('#/task/' + encodeURIComponent(d.taskId), d.taskId), ', instance ' + d.instanceId + ', stored ' + time(d.createdAtMs)),
    d.stateReason ? el('p', {}, d.stateReason) : '',
    actions([
      ['Replay', r => api('POST', '/deadletters/' + id + '/replay', { reason: r })],
      ['Discard', r => api('POST', '/deadletters/' + id + '/discard', { reason: r }), true]]),
    el('h2', {}, 'Attempts'), el('pre', {}, JSON.stringify(d.attempts, null, 2)),
    el('h2', {}, 'Last stack trace'), el('pre', {}, d.lastStack || '(none)'),
    el('h2', {}, 'The task as it was'), el('pre', {}, JSON.stringify(d.task, null, 2)));
}

async function switches() {
  const data = await api('GET', '/switches');
  page().replaceChildren(el('h1', {}, 'Switches'),
    table(['switch', 'value', 'version', 'set by', 'at', 'applied by', 'behind', ''], data.switches.map(s => [
      s.name, status(s.value), String(s.version), s.setBy || '', time(s.setAtMs), s.appliedBy.join(', '), s.behind.join(', '),
      actions([[s.value === 'on' ? 'Turn off' : 'Turn on',
        r => api('POST', '/switches/' + encodeURIComponent(s.name), { value: s.value === 'on' ? 'off' : 'on', reason: r }), s.value === 'on']])])));
}

/** Executor pools: each pool's endpoints with state, heartbeat age and online, drain/undrain. */
async function pools() {
  const data = await api('GET', '/pools');
  page().replaceChildren(el('h1', {}, 'Executor pools'),
    data.pools.length === 0 ? el('p', {}, 'No pool yet: ax pool create <name>.') : '',
    ...data.pools.map(p => el('section', { class: 'pool' },
      el('h2', {}, p.name, ' ', el('small', {}, p.strategy + ', offline after ' + duration(p.offlineAfterMs))),
      table(['endpoint', 'state', 'online', 'last heartbeat', 'age', 'registered', ''], p.endpoints.map(e => [
        e.url, status(e.state), status(e.online ? 'online' : 'offline'), time(e.lastHeartbeatMs), duration(e.ageMs),
        time(e.registeredAtMs),
        actions([[e.state === 'DRAINING' ? 'Undrain' : 'Drain',
          r => api('POST', '/pools/' + encodeURIComponent(p.name) + (e.state === 'DRAINING' ? '/undrain' : '/drain'),
            { url: e.url, reason: r }), e.state !== 'DRAINING']])])))));
}

/** Exclusion calendars of the namespace: each one's zone and the days it excludes. */
async function calendars() {
  const data = await api('GET', '/calendars');
  const days = list => list.length ? list.join(', ') : '';
  page().replaceChildren(el('h1', {}, 'Calendars'),
    el('p', { class: 'hint' }, 'A firing of a task that names a calendar is skipped on the days it excludes, each judged in the calendar\'s zone.'),
    data.calendars.length === 0 ? el('p', {}, 'No calendar yet: ax calendar create <name> --zone <zone> --date ...') :
      table(['calendar', 'zone', 'dates', 'ranges', 'weekly', 'description', 'version', 'updated', ''], data.calendars.map(c => [
        c.name, c.zone, days(c.dates), days(c.ranges.map(r => r.from + '..' + r.to)), days(c.weekly), c.description || '',
        String(c.version), time(c.updatedAtMs),
        actions([['Delete', r => api('POST', '/calendars/' + encodeURIComponent(c.name) + '/delete', { reason: r }), true]])])));
}

async function audit() {
  const data = await api('GET', '/audit?limit=200');
  page().replaceChildren(el('h1', {}, 'Audit'),
    table(['at', 'actor', 'action', 'target', 'why'], data.entries.map(a => [time(a.atMs), a.actor, a.action, a.target, a.reason || ''])));
}

const SVG = 'http://www.w3.org/2000/svg';
const FILL = { SUCCESS: '#d7f0de', FAILED: '#fbe4e2', DEAD: '#fbe4e2', TIMEOUT: '#fbe4e2', CANCELLED: '#eceff3',
  RUNNING: '#dde7fb', DISPATCHED: '#dde7fb', SCHEDULED: '#fdf0d5', RETRYING: '#fdf0d5', PAUSED: '#fdf0d5' };

function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

/** The flow run as columns by depth (longest path from a task no edge leads to), edges as lines. */
function dag(nodes, edges) {
  const depth = Object.fromEntries(nodes.map(n => [n.taskId, 0]));
  for (let pass = 0; pass < nodes.length; pass++) {
    for (const e of edges) depth[e.to] = Math.max(depth[e.to] ?? 0, (depth[e.from] ?? 0) + 1);
  }
  const columns = [];
  for (const n of nodes) (columns[depth[n.taskId]] = columns[depth[n.taskId]] || []).push(n);
  const W = 190, H = 48, GX = 70, GY = 18, at = {};
  columns.forEach((column, c) => column.forEach((n, r) => { at[n.taskId] = { x: 10 + c * (W + GX), y: 10 + r * (H + GY) }; }));
  const width = 20 + columns.length * (W + GX) - GX, height = 20 + Math.max(...columns.map(c => c.length)) * (H + GY) - GY;
  const picture = svg('svg', { id: 'dag', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img' },
    svg('defs', {}, svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 8, markerHeight: 8, orient: 'auto' },
      svg('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#5b6475' }))));
  for (const e of edges) {
    const a = at[e.from], b = at[e.to];
    if (a && b) picture.append(svg('line', { x1: a.x + W, y1: a.y + H / 2, x2: b.x, y2: b.y + H / 2, stroke: '#5b6475', 'marker-end': 'url(#arrow)' }));
  }
  for (const n of nodes) {
    const p = at[n.taskId];
    const label = n.status || (n.waitsOn.length ? 'waits on ' + n.waitsOn.join(', ') : 'no run yet');
    const box = svg('g', { class: 'node', 'data-task': n.taskId, 'data-status': n.status || 'WAITING' },
      svg('rect', { x: p.x, y: p.y, width: W, height: H, rx: 6, fill: FILL[n.status] || '#f1f2f5', stroke: '#9aa3b2' }),
      svg('text', { x: p.x + 10, y: p.y + 20, 'font-weight': 600 }, n.taskId),
      svg('text', { x: p.x + 10, y: p.y + 38, fill: '#5b6475' }, label));
    picture.append(n.instanceId
      ? svg('a', { href: '#/task/' + encodeURIComponent(n.taskId) + '/' + encodeURIComponent(n.instanceId) }, box)
      : box);
  }
  return el('div', { class: 'scroll' }, picture);
}

async function flow(id) {
  const form = el('form', { class: 'filters', id: 'flow-form', onsubmit: e => {
    e.preventDefault();
    location.hash = '#/flow/' + encodeURIComponent(e.target.elements.flowRunId.value.trim());
  } }, el('input', { name: 'flowRunId', placeholder: 'flow run id (the instance that started it)', size: 50, value: id || '' }),
    el('button', { type: 'submit' }, 'Show'));
  if (!id) { page().replaceChildren(el('h1', {}, 'Flow runs'), form); return; }
  const f = await api('GET', '/flows/' + encodeURIComponent(id));
  const waiting = f.nodes.filter(n => !n.instanceId && n.waitsOn.length);
  page().replaceChildren(el('h1', {}, 'Flow run ', f.flowRunId), form, dag(f.nodes, f.edges),
    el('p', {}, waiting.length ? 'Waiting: ' + waiting.map(n => n.taskId + ' on ' + n.waitsOn.join(', ')).join('; ') : 'Waiting: nothing'),
    el('h2', {}, 'Runs, oldest first'),
    table(['task', 'instance', 'status', 'attempt', 'due', 'finished'], f.instances.map(i => [
      link('#/task/' + encodeURIComponent(i.taskId), i.taskId),
      link('#/task/' + encodeURIComponent(i.taskId) + '/' + encodeURIComponent(i.instanceId), i.instanceId),
      status(i.status), String(i.attempt), time(i.dueAtMs), time(i.finishedAtMs)])));
}

async function route() {
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path, query] = hash.split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  for (const a of document.querySelectorAll('nav a')) {
    a.classList.toggle('active', a.dataset.page === (parts[0] === 'task' ? 'tasks' : parts[0] === 'deadletter' ? 'deadletters' : parts[0] === 'flow' ? 'flows' : parts[0] || 'overview'));
  }
  try {
    if (parts.length === 0) await overview();
    else if (parts[0] === 'tasks') await tasks(new URLSearchParams(query || ''));
    else if (parts[0] === 'task' && parts.length === 2) await task(parts[1]);
    else if (parts[0] === 'task' && parts.length === 3) await instance(parts[1], parts[2]);
    else if (parts[0] === 'deadletters') await deadLetters();
    else if (parts[0] === 'deadletter') await deadLetter(parts[1]);
    else if (parts[0] === 'switches') await switches();
    else if (parts[0] === 'flow') await flow(parts[1]);
    else if (parts[0] === 'audit') await audit();
    else if (parts[0] === 'pools') await pools();
    else if (parts[0] === 'calendars') await calendars();
    else page().replaceChildren(el('p', {}, 'No such page.'));
    document.body.dataset.loaded = hash;
  } catch (e) {
    if (!document.getElementById('token-form')) say('error', e.message);
    document.body.dataset.loaded = hash;
  }
}

/** The namespaces the token reaches, in the header's selector; a change shows that namespace. */
async function namespaces() {
  const select = document.getElementById('namespace');
  try {
    const list = (await api('GET', '/namespaces')).namespaces.map(n => n.name);
    if (list.length > 0 && !list.includes(namespace())) sessionStorage.setItem('ax.namespace', list[0]);
    select.replaceChildren(...list.map(name => el('option', { value: name }, name)));
    select.value = namespace();
  } catch (e) { /* the page's own request reports it (a token is asked for first) */ }
}

document.getElementById('namespace').addEventListener('change', e => {
  sessionStorage.setItem('ax.namespace', e.target.value);
  location.hash = '#/tasks';
  route();
});
window.addEventListener('hashchange', () => { document.getElementById('message').replaceChildren(); route(); });
namespaces().then(route);
