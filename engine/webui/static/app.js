// Interlock web UI: renders what the engine says (state, then one change per
// event over SSE) and sends what the user pressed. It never decides state:
// every control follows the session's run_state and eligibility, and while
// the connection is down the state is unknown, so Continue and answers are
// disabled until the server has sent the state again.
//
// Served over a fleet's hub (the state says fleet: true) the same page shows
// every host's sessions with a host column and the host's connection: a
// session of a host that is not connected is shown as it was when the host
// was last heard from, never as current, and takes no answer. Answers name
// the host and the digest of the pause shown; answers, Continue, Stop, a
// prompt and the Revoke of a host's remembered approval go through the hub
// to the host, which applies them or says why not, which the page shows.
'use strict';

const BADGES = { proceeding: 'Proceeding', interrupted: 'Interrupted', blocked: 'Needs input', idle: 'Idle', terminal: 'Done' };

const state = {
  epoch: '',
  counts: { proceeding: 0, eligible: 0, needs_input: 0 },
  sessions: new Map(), // id -> snapshot
  order: [],
  labels: {},
  grants: { grants: [], error: '' }, // approved without asking, as the server lists them
  selected: '',
  history: { id: '', version: -1, messages: [] },
  historyLoading: false,
  authoritative: false, // the last state came from a live connection
  stopRequested: new Set(), // ids this tab asked to stop, until the engine reports
  notice: '',
  fleet: false, // served over a hub: sessions are keyed by host and id
  hosts: [], // the fleet's hosts and their connections
  audit: [], // the fleet's last audit entries, newest first
};

// Measurement hook for the benchmarks: how long from the engine's event to
// the DOM showing it, in ms. Bounded.
window.__interlock = { latencies: [], changes: 0 };

const $ = (id) => document.getElementById(id);

// The token of the printed URL ("?token=..."): kept in this tab's
// sessionStorage (this origin only, port included), taken out of the
// address bar, and sent as a header; never a cookie, which the browser
// would send to every server on 127.0.0.1.
const token = (() => {
  const url = new URL(location.href);
  const t = url.searchParams.get('token');
  if (t) {
    sessionStorage.setItem('interlock-token', t);
    url.searchParams.delete('token');
    history.replaceState(null, '', url.pathname + url.search + url.hash);
  }
  return sessionStorage.getItem('interlock-token') || '';
})();
const AUTH = { Authorization: `Bearer ${token}` };

function nowMs() { return performance.timeOrigin + performance.now(); }

// RFC 3339 with nanoseconds -> ms since the epoch, keeping sub-ms digits.
function eventMs(at) {
  const m = /^(.*T\d\d:\d\d:\d\d)(\.\d+)?(.*)$/.exec(at);
  if (!m) return Date.parse(at);
  return Date.parse(m[1] + (m[3] || 'Z')) + (m[2] ? Number('0' + m[2]) * 1000 : 0);
}

// A pause's answer buttons work only once it has been on screen this long:
// a click on its way to the pause that was there a moment ago (answered from
// another client, or another session selected) never answers the one drawn
// in its place. Stop works at once.
const ANSWER_SETTLE_MS = 500;
const pauseShown = { key: '', at: 0, timer: 0 };

// settleLeft is how long the pause named key still waits before it takes answers, ms.
function settleLeft(key) {
  if (pauseShown.key !== key) Object.assign(pauseShown, { key, at: performance.now() });
  const left = pauseShown.at + ANSWER_SETTLE_MS - performance.now();
  clearTimeout(pauseShown.timer);
  if (left > 0) pauseShown.timer = setTimeout(renderSession, left + 1);
  return left;
}

function label(reason) { return state.labels[reason] || 'Interrupted'; }

// keyOf names a session on this page: its id, or in a fleet its host and id.
function keyOf(snap) { return state.fleet ? JSON.stringify([snap.host, snap.id]) : snap.id; }

// A session of a fleet's host that is not connected: shown as last heard, not current.
function offline(s) { return state.fleet && !s.host_connected; }

function applySnapshot(snap) {
  const key = keyOf(snap);
  const old = state.sessions.get(key);
  // A host's versions start again when it restarts; the hub's row is the latest.
  if (old && old.version >= snap.version && !state.fleet) return;
  if (!old) state.order.push(key);
  state.sessions.set(key, snap);
  if (snap.run_state !== 'proceeding') state.stopRequested.delete(key);
}

function onState(st) {
  state.fleet = !!st.fleet;
  state.hosts = st.hosts || [];
  state.audit = st.audit || [];
  state.epoch = st.epoch;
  state.counts = st.counts;
  state.labels = st.labels;
  state.grants = st.grants;
  state.sessions = new Map();
  state.order = [];
  for (const s of st.sessions) applySnapshot(s);
  if (!state.sessions.has(state.selected)) state.selected = state.order[0] || '';
  state.history = { id: '', version: -1, messages: [] };
  state.authoritative = true;
  render();
  renderAudit();
  loadHistory();
  loadPolicy();
}

function onChange(ch) {
  applySnapshot(ch.session);
  state.counts = ch.counts;
  if (!state.selected) state.selected = keyOf(ch.session);
  render();
  const lat = window.__interlock;
  lat.changes++;
  lat.latencies.push(nowMs() - eventMs(ch.event.at));
  if (lat.latencies.length > 10000) lat.latencies.splice(0, 5000);
  if (keyOf(ch.session) === state.selected) {
    loadHistory();
    // The gate reads the project's file at each command: look again when it may have (a changed file asks again).
    if (['warning', 'run_started', 'run_finished', 'tool_finished'].includes(ch.event.type)) loadPolicy();
  }
}

// A fleet's session no longer mirrored: closed on its host.
function onRemoved(r) {
  const key = keyOf({ host: r.host, id: r.session });
  state.sessions.delete(key);
  state.order = state.order.filter((k) => k !== key);
  state.counts = r.counts;
  if (state.selected === key) state.selected = state.order[0] || '';
  render();
}

function onHosts(hosts) {
  state.hosts = hosts;
  render();
  renderGrants(); // a grant of a host that is not connected cannot be revoked now
}

// hostConnected: whether a fleet's host is connected (always, served by an engine).
function hostConnected(host) { return !state.fleet || !!state.hosts.find((h) => h.host === host)?.connected; }

function onAudit(audit) {
  state.audit = audit;
  renderAudit();
  if (state.fleet) renderHistory();
}

function seen(at) { return new Date(at).toLocaleTimeString(); }

// renderAudit lists the fleet's last audit entries, newest first: text only.
function renderAudit() {
  $('audit').hidden = !state.fleet;
  if (!state.fleet) return;
  $('audit-summary').textContent = `Audit (${state.audit.length})`;
  $('audit-list').replaceChildren(...state.audit.map((a) => el('tr', { 'data-event': a.event },
    el('td', { title: a.at }, seen(a.at)), el('td', {}, a.host), el('td', {}, a.session), el('td', {}, a.event),
    el('td', {}, a.tool || ''), el('td', {}, a.message || ''), el('td', {}, a.answer || ''), el('td', {}, a.by || ''), el('td', {}, a.reason || ''))));
}

async function loadHistory() {
  if (state.fleet) return; // a session's history stays on its host: the page shows its audit entries
  const id = state.selected;
  const snap = state.sessions.get(id);
  if (!id || !snap || state.historyLoading) return;
  if (state.history.id === id && state.history.version >= snap.version) return;
  state.historyLoading = true;
  try {
    const res = await fetch(sessionAPI('history', id), { headers: AUTH });
    if (res.ok) {
      const h = await res.json();
      if (state.selected === id) state.history = { id, version: h.version, messages: h.messages || [] };
      renderHistory();
    }
  } catch { /* the connection state shows it */ }
  state.historyLoading = false;
  const now = state.sessions.get(state.selected);
  if (now && (state.history.id !== state.selected || state.history.version < now.version)) loadHistory();
}

// sessionAPI is the address of a session's action: the id in the query, as
// any text (in a path, "." and ".." would be resolved away by the browser).
function sessionAPI(action, id) { return `/api/${action}?session=${encodeURIComponent(id)}`; }

async function post(path, body) {
  try {
    const res = await fetch(path, { method: 'POST', headers: { ...AUTH, 'Content-Type': 'application/json' }, body: JSON.stringify(body || {}) });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) showNotice(data.error || `${path}: HTTP ${res.status}`);
    return { ok: res.ok, data };
  } catch (err) {
    showNotice(`${path}: ${err.message}: the server is not reachable`);
    return { ok: false, data: {} };
  }
}

function onGrants(g) {
  state.grants = g;
  renderGrants();
}

// The connection state the grants list was last rendered with (its Revoke
// buttons are disabled while the state is unknown).
let grantsShownLive = null;

// renderGrants lists what is approved without asking, each with Revoke: the
// next such confirm asks again. Keys and paths are the tools' words: text only.
function renderGrants() {
  const live = state.authoritative;
  grantsShownLive = live;
  const { grants } = state.grants;
  const error = state.grants.error || '';
  $('grants-summary').textContent = `Remembered approvals (${grants.length})`;
  $('grants-error').textContent = printable(error || '');
  $('grants-error').hidden = !error;
  $('grants-empty').hidden = grants.length > 0 || !!error;
  $('grants-table').hidden = grants.length === 0;
  $('grants-list').replaceChildren(...grants.map((g) => {
    // A fleet's grant is revoked by its host, through the hub, while the host is connected.
    const revoke = el('button', { type: 'button', 'data-revoke': '', onclick: () => revokeGrant(g) }, 'Revoke');
    revoke.disabled = !live || !hostConnected(g.host);
    const since = el('td', { class: 'grant-at', title: g.at }, new Date(g.at).toLocaleString());
    return el('tr', { 'data-scope': g.scope, 'data-host': g.host || '' },
      el('td', { class: 'grant-tool' }, g.tool),
      el('td', { class: 'grant-key' }, el('code', {}, g.key)),
      el('td', { class: 'grant-scope' }, g.scope === 'session' ? 'This session' : 'This project'),
      el('td', { class: 'grant-where' }, (g.host ? `${g.host}: ` : '') + (g.scope === 'session' ? g.session : g.root)),
      since, el('td', {}, revoke));
  }));
}

async function revokeGrant(g) {
  const body = { tool: g.tool, key: g.key, scope: g.scope, session: g.session, root: g.root };
  if (state.fleet) body.host = g.host; // the grant's host revokes it; the list follows the hub
  const { ok, data } = await post('/api/grants/revoke', body);
  if (ok) {
    showNotice(data.pending ? `Revoke on ${g.host}: ${data.message}` : '');
    if (!state.fleet) onGrants(data.grants);
  }
}

function showNotice(text) {
  state.notice = text;
  const n = $('notice');
  n.textContent = printable(text);
  n.hidden = !text;
}

// Characters that act on the text around them instead of showing: C0
// controls but tab and newline, DEL, C1 controls, and the bidirectional
// marks, overrides and isolates (U+202E shows what follows it reversed).
const ACTED_ON = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

// printable shows them as visible signs, as the TUI does (␍, ␛, <U+202E>):
// a command reads as it runs.
function printable(text) {
  return text.replace(ACTED_ON, (c) => {
    const code = c.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
  });
}

// el makes an element; its text children (the engine's strings among them) are text, shown by printable.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c != null) e.append(typeof c === 'string' ? printable(c) : c);
  return e;
}

function render() {
  const live = state.authoritative;
  document.body.classList.toggle('stale', !live);
  const conn = $('connection');
  conn.textContent = live ? 'Connected' : 'Disconnected — state unknown';
  conn.className = live ? 'connected' : 'disconnected';
  document.querySelector('h1').textContent = state.fleet ? 'Interlock — fleet' : 'Interlock';
  $('hosts').hidden = !state.fleet;
  if (state.fleet) {
    $('hosts').replaceChildren(...state.hosts.map((h) => el('li', { 'data-host': h.host, class: h.connected ? 'connected' : 'disconnected' },
      h.connected ? `${h.host}: connected` : `${h.host}: disconnected, last seen ${seen(h.seen_at)}`)));
  }
  const es = $('emergency-stop');
  es.textContent = `Emergency stop (${state.counts.proceeding} proceeding)`;
  es.disabled = !live || state.counts.proceeding === 0;
  const ra = $('resume-all');
  ra.textContent = `Resume all (${state.counts.eligible} eligible)`;
  ra.disabled = !live || state.counts.eligible === 0;
  if (!live) $('resume-confirm').hidden = true;
  if (grantsShownLive !== live) renderGrants(); // the list itself changes only with a grants message

  const list = $('sessions');
  list.replaceChildren(...state.order.map((key) => {
    const s = state.sessions.get(key);
    let detail = '';
    if (s.run_state === 'interrupted' && s.interruption) detail = label(s.interruption.reason);
    if (s.pause) detail = `Waiting for: ${s.pause.message}`; // blocked, or a call still runs beside it
    if (s.run_state === 'blocked' && !s.pause && s.needs_input) detail = `Asks again: ${s.needs_input.message}`;
    let badge = el('span', { class: `badge ${s.run_state}` }, BADGES[s.run_state] || s.run_state);
    if (offline(s)) { // not current: what it was, said as such
      const host = state.hosts.find((h) => h.host === s.host);
      detail = `Host disconnected${host?.seen_at ? `, last seen ${seen(host.seen_at)}` : ''}; then: ${BADGES[s.run_state] || s.run_state}${detail ? ` — ${detail}` : ''}`;
      badge = el('span', { class: 'badge offline' }, 'Unknown');
    }
    const attrs = { class: key === state.selected ? 'selected' : '', 'data-session': s.id, onclick: () => select(key) };
    if (state.fleet) attrs['data-host'] = s.host;
    return el('li', attrs,
      el('span', {}, state.fleet ? el('span', { class: 'host' }, s.host) : null, state.fleet ? ' ' : null,
        el('span', { class: 'name' }, s.id), el('br'), el('span', { class: 'detail' }, detail)),
      badge);
  }));
  renderSession();
}

function renderSession() {
  const s = state.sessions.get(state.selected);
  // A fleet's session whose host is not connected is not current: no control works on it.
  const live = state.authoritative && !(s && offline(s));
  $('fleet-note').hidden = !state.fleet;
  const primary = $('primary');
  const pause = $('pause');
  if (!s || !s.pause) pauseShown.key = ''; // a pause that comes back waits again
  if (!s) {
    primary.disabled = true;
    pause.hidden = true;
    $('continue-row').hidden = true;
    $('waiting').hidden = true;
    return;
  }
  const proceeding = s.run_state === 'proceeding';
  const stopping = s.status === 'stopping' || (proceeding && state.stopRequested.has(state.selected));
  primary.textContent = stopping ? 'Stopping…' : proceeding ? 'Stop' : 'Send';
  primary.dataset.action = stopping ? 'none' : proceeding ? 'stop' : 'send';
  // A question a restart cut (asks_again) is no pending pause: Continue asks
  // it again, and a new message drops it.
  const asksAgain = !!(s.eligibility && s.eligibility.asks_again);
  primary.disabled = !live || stopping || s.run_state === 'terminal' || (s.run_state === 'blocked' && !asksAgain);

  const offered = live && s.eligibility && (s.eligibility.eligible || asksAgain);
  $('continue-row').hidden = !offered;
  if (offered) {
    let reason = s.interruption ? label(s.interruption.reason) : '';
    if (s.eligibility.repeats_side_effect) reason += ' (continuing may repeat an action; it asks first)';
    if (asksAgain && s.needs_input) reason += ` — Continue asks again: ${s.needs_input.tool ? s.needs_input.tool + ': ' : ''}${s.needs_input.message}`;
    $('reason-label').textContent = printable(reason);
  }
  $('waiting').hidden = s.run_state !== 'blocked' || asksAgain;

  const p = s.pause;
  pause.hidden = !p;
  if (p) {
    const disabled = !live || settleLeft(`${state.epoch} ${state.selected} ${p.id}`) > 0;
    const answer = (a, remember) => answerPause(s, p, a, remember);
    // An approval the pause lets the user remember gets a button per scope.
    const remember = (p.remember_scopes || []).map((scope) => el('button',
      { type: 'button', 'data-answer': 'approved', 'data-remember': scope, onclick: () => answer('approved', scope) },
      `Approve for this ${scope}`));
    const buttons = p.kind === 'confirm'
      ? [el('button', { type: 'button', 'data-answer': 'approved', onclick: () => answer('approved') }, 'Approve'),
        ...remember,
        el('button', { type: 'button', 'data-answer': 'denied', onclick: () => answer('denied') }, 'Deny')]
      : [el('button', { type: 'button', 'data-answer': 'resumed', onclick: () => answer('resumed') }, 'Continue')];
    for (const b of buttons) b.disabled = disabled;
    const stop = el('button', { type: 'button', 'data-stop': '', onclick: () => stopSession(s) }, 'Stop');
    stop.disabled = !live;
    pause.replaceChildren(
      el('p', { class: 'pause-message' }, `${p.tool ? p.tool + ': ' : ''}${p.message}`),
      p.details ? el('pre', { class: 'pause-details' }, p.details) : null,
      // Why it asks, as text: the gate's reasons, a policy rule's tier, name and reason.
      ...(p.reasons || []).map((r) => el('p', { class: 'pause-reason' }, r)),
      // What a remembered approval approves again, as text: a key is the tool's words, never markup.
      remember.length && p.remember_key ? el('p', { class: 'pause-remember' }, rememberLine(p.remember_key)) : null,
      offline(s) ? el('p', { class: 'pause-offline' }, `Host ${s.host} is disconnected: this is what it showed when last heard from; answer once it is back.`) : null,
      ...buttons, stop);
    pause.dataset.pause = p.id;
  }
  renderHistory();
}

// The line under a confirm that can be remembered, as the TUI shows it.
function rememberLine(key) { return `Remembering approves again without asking: ${key}`; }

function renderHistory() {
  const h = $('history');
  if (state.fleet) { // the session's audit entries, oldest first
    const s = state.sessions.get(state.selected);
    const entries = s ? state.audit.filter((a) => a.host === s.host && a.session === s.id).reverse() : [];
    h.replaceChildren(...entries.map((a) => el('div', { class: 'msg audit' },
      `${seen(a.at)} ${a.event}${a.tool ? ` ${a.tool}` : ''}: ${a.message}${a.answer ? ` → ${a.answer}` : ''}${a.by ? ` by ${a.by}` : ''}${a.reason ? ` (${a.reason})` : ''}`)));
    return;
  }
  const msgs = state.history.id === state.selected ? state.history.messages : [];
  h.replaceChildren(...msgs.map((m) => {
    let text = m.text || '';
    // A call without arguments (null, as JS tools may be called) shows its name alone.
    if (m.role === 'assistant' && m.tool_calls) text += m.tool_calls.map((c) => `\n→ ${c.name}${c.args == null ? '' : ' ' + JSON.stringify(c.args)}`).join('');
    return el('div', { class: `msg ${m.role}` }, m.role === 'marker' ? `— ${text} —` : text);
  }));
  h.scrollTop = h.scrollHeight;
}

function select(id) {
  state.selected = id;
  render();
  loadHistory();
  loadPolicy();
}

// The selected session's project policy file, shown while it is not
// trusted: its path, the hash trust binds to and its rules (the project's
// words: text only), with Trust and Not now. Not now holds for this content
// in this tab: a changed file asks again.
const policyView = { id: '', review: null, loading: false, again: false };
const policyDismissed = new Set(); // `${path} ${sha256}`
const policyShown = { key: '', at: 0, timer: 0 };

async function loadPolicy() {
  if (state.fleet) return;
  if (policyView.loading) { policyView.again = true; return; }
  const id = state.selected;
  policyView.loading = true;
  try {
    const res = id ? await fetch(sessionAPI('policy', id), { headers: AUTH }) : null;
    if (res && res.ok) {
      const p = await res.json();
      Object.assign(policyView, { id, review: p.policy });
    }
  } catch { /* the connection state shows it */ }
  policyView.loading = false;
  renderPolicy();
  if (policyView.again) {
    policyView.again = false;
    loadPolicy();
  }
}

function renderPolicy() {
  const r = policyView.id === state.selected ? policyView.review : null;
  const show = !!r && !r.trusted && !policyDismissed.has(`${r.path} ${r.sha256}`);
  $('policy-trust').hidden = !show;
  if (!show) return;
  $('policy-path').textContent = printable(r.path);
  $('policy-sha256').textContent = r.error ? '' : r.sha256;
  $('policy-error').textContent = r.error ? printable(`It does not load, so it cannot be trusted: ${r.error}`) : '';
  $('policy-error').hidden = !r.error;
  $('policy-trust-button').hidden = !!r.error;
  // Trust works once this content has been on screen a while, as a pause's answers do.
  const key = `${r.path} ${r.sha256}`;
  if (policyShown.key !== key) Object.assign(policyShown, { key, at: performance.now() });
  const left = policyShown.at + ANSWER_SETTLE_MS - performance.now();
  clearTimeout(policyShown.timer);
  if (left > 0) policyShown.timer = setTimeout(renderPolicy, left + 1);
  $('policy-trust-button').disabled = !state.authoritative || left > 0;
  $('policy-rules').replaceChildren(...r.rules.map((rule) => el('li', {},
    el('span', { class: 'decision' }, rule.decision), ' ', el('code', {}, rule.name), `: ${rule.matches} — ${rule.reason}${rule.shadow ? ' (shadow: not enforced)' : ''}`)));
}

$('policy-trust-button').addEventListener('click', async () => {
  const r = policyView.review;
  if (!r || policyView.id !== state.selected) return;
  const { ok, data } = await post(sessionAPI('policy/trust', state.selected), { sha256: r.sha256 });
  if (ok) {
    showNotice('');
    policyView.review = data.policy;
    renderPolicy();
  } else loadPolicy(); // changed since shown: show what it is now
});

$('policy-not-now').addEventListener('click', () => {
  const r = policyView.review;
  if (r) policyDismissed.add(`${r.path} ${r.sha256}`);
  renderPolicy();
});

// fleetAPI is the address of an action on a fleet's session: its host and id in the query.
function fleetAPI(action, s) { return `/api/${action}?host=${encodeURIComponent(s.host)}&session=${encodeURIComponent(s.id)}`; }

async function answerPause(s, p, answer, remember) {
  const body = { epoch: state.epoch, version: s.version, pause_id: p.id, answer };
  if (remember) body.remember = remember;
  if (state.fleet) body.digest = s.digest; // what was shown: the host refuses anything else
  const { ok, data } = await post(state.fleet ? fleetAPI('answer', s) : sessionAPI('answer', s.id), body);
  if (ok) showNotice(data.pending ? `Answer to ${s.host}/${s.id}: ${data.message}` : '');
}

// actionAPI is the address of an action on session s, of an engine or a fleet's host.
function actionAPI(action, s) { return state.fleet ? fleetAPI(action, s) : sessionAPI(action, s.id); }

// A fleet's host answers a command once it applied it (a stop: once the
// session's process trees are gone), or says it has not taken it yet.
function pendingNotice(s, what, data) { if (data.pending) showNotice(`${what} ${s.host}/${s.id}: ${data.message}`); }

async function stopSession(s) {
  const key = keyOf(s);
  state.stopRequested.add(key);
  renderSession();
  const { ok, data } = await post(actionAPI('stop', s));
  if (!ok) { state.stopRequested.delete(key); renderSession(); } else pendingNotice(s, 'Stop of', data);
}

$('input').addEventListener('submit', async (e) => {
  e.preventDefault();
  const s = state.sessions.get(state.selected);
  if (!s || !state.authoritative) return;
  const action = $('primary').dataset.action;
  if (action === 'stop') await stopSession(s);
  else if (action === 'send') {
    const text = $('prompt').value;
    if (!text.trim()) return;
    // In a fleet the prompt is bound to the session as this tab saw it: its host refuses it if it changed.
    const { ok, data } = await post(actionAPI('prompt', s), state.fleet ? { epoch: state.epoch, version: s.version, text } : { text });
    if (ok) { $('prompt').value = ''; pendingNotice(s, 'Prompt to', data); }
  }
});

$('continue').addEventListener('click', async () => {
  const s = state.sessions.get(state.selected);
  if (!s || !state.authoritative) return;
  const { ok } = await post(state.fleet ? fleetAPI('continue', s) : sessionAPI('continue', s.id), { epoch: state.epoch, version: s.version });
  if (ok) showNotice('');
});

function list(ids, none) { return ids.length ? ids.join(', ') : none; }

// Emergency stop asks nothing (it only stops) and says what it stopped.
// In a fleet it stops every host's, and lists the hosts that have not
// confirmed (a disconnected one stops its sessions when it reconnects).
$('emergency-stop').addEventListener('click', async () => {
  const { ok, data } = await post('/api/emergency-stop');
  if (!ok) return;
  let text = `Emergency stop: stopped ${list(data.stopped, 'nothing (none was proceeding)')}`;
  if (data.unconfirmed && data.unconfirmed.length) {
    text += `; not confirmed by ${data.unconfirmed.map((h) => h.connected ? h.host : `${h.host} (disconnected: it stops its sessions when it reconnects)`).join(', ')}`;
  } else if (state.fleet) text += '; every host confirmed';
  showNotice(text);
});

// Resume all asks once, listing what it will resume, and resumes those
// alone: a session that became eligible while the question was shown was
// not confirmed. It says what it did.
let resumeListed = [];
$('resume-all').addEventListener('click', () => {
  resumeListed = state.order.filter((key) => { const s = state.sessions.get(key); return s.eligibility?.eligible && !offline(s); });
  const names = resumeListed.map((key) => { const s = state.sessions.get(key); return state.fleet ? `${s.host}/${s.id}` : s.id; });
  $('resume-confirm-text').textContent = printable(`Resume all will continue ${resumeListed.length} session${resumeListed.length === 1 ? '' : 's'}: ${names.join(', ')}`);
  $('resume-confirm').hidden = false;
});
$('resume-confirm-no').addEventListener('click', () => { $('resume-confirm').hidden = true; });
$('resume-confirm-yes').addEventListener('click', async () => {
  $('resume-confirm').hidden = true;
  const sessions = state.fleet
    ? resumeListed.map((key) => { const s = state.sessions.get(key); return { host: s.host, session: s.id, version: s.version }; })
    : resumeListed;
  const { ok, data } = await post('/api/resume-all', { epoch: state.epoch, sessions });
  if (!ok) return;
  const left = Object.entries(data.skipped).map(([id, why]) => `${id} (${why})`);
  showNotice(`Resume all: resumed ${list(data.resumed, 'nothing')}${left.length ? `; left ${left.join(', ')}` : ''}`);
});

// A pause that came while the tab was hidden is shown only now.
document.addEventListener('visibilitychange', () => {
  if (document.hidden) return;
  pauseShown.key = '';
  renderSession();
});

function connect() {
  if (!token) {
    showNotice('This page has no token: open the URL the engine printed (it ends in ?token=...)');
    return;
  }
  // EventSource sends no header: the token goes on the stream's own URL.
  const es = new EventSource(`/api/events?token=${encodeURIComponent(token)}`);
  es.addEventListener('state', (e) => onState(JSON.parse(e.data)));
  es.addEventListener('change', (e) => onChange(JSON.parse(e.data)));
  es.addEventListener('grants', (e) => onGrants(JSON.parse(e.data)));
  es.addEventListener('removed', (e) => onRemoved(JSON.parse(e.data)));
  es.addEventListener('hosts', (e) => onHosts(JSON.parse(e.data)));
  es.addEventListener('audit', (e) => onAudit(JSON.parse(e.data)));
  es.addEventListener('unavailable', (e) => { // the hub cannot be read: nothing shown is current
    state.authoritative = false;
    showNotice(JSON.parse(e.data).error);
    render();
  });
  es.onerror = () => {
    // The browser reconnects by itself (retry: 500); until the new state
    // arrives nothing on screen is authoritative. A refusal (a wrong token)
    // closes the stream for good.
    state.authoritative = false;
    if (es.readyState === EventSource.CLOSED) showNotice('The server refused the event stream (a wrong token, or too many tabs open): open the URL the engine printed, or close other tabs');
    render();
  };
}

// A bug in this page must not fail silently.
window.addEventListener('error', (e) => showNotice(`Page error: ${e.message}`));
window.addEventListener('unhandledrejection', (e) => showNotice(`Page error: ${e.reason}`));

render();
connect();
