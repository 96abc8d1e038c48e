// Interlock web UI: renders what the engine says (state, then one change per
// event over SSE) and sends what the user pressed. It never decides state:
// every control follows the session's run_state and eligibility, and while
// the connection is down the state is unknown, so Continue and answers are
// disabled until the server has sent the state again.
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

function applySnapshot(snap) {
  const old = state.sessions.get(snap.id);
  if (old && old.version >= snap.version) return;
  if (!old) state.order.push(snap.id);
  state.sessions.set(snap.id, snap);
  if (snap.run_state !== 'proceeding') state.stopRequested.delete(snap.id);
}

function onState(st) {
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
  loadHistory();
}

function onChange(ch) {
  applySnapshot(ch.session);
  state.counts = ch.counts;
  if (!state.selected) state.selected = ch.session.id;
  render();
  const lat = window.__interlock;
  lat.changes++;
  lat.latencies.push(nowMs() - eventMs(ch.event.at));
  if (lat.latencies.length > 10000) lat.latencies.splice(0, 5000);
  if (ch.session.id === state.selected) loadHistory();
}

async function loadHistory() {
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
  const { grants, error } = state.grants;
  $('grants-summary').textContent = `Remembered approvals (${grants.length})`;
  $('grants-error').textContent = printable(error || '');
  $('grants-error').hidden = !error;
  $('grants-empty').hidden = grants.length > 0 || !!error;
  $('grants-table').hidden = grants.length === 0;
  $('grants-list').replaceChildren(...grants.map((g) => {
    const revoke = el('button', { type: 'button', 'data-revoke': '', onclick: () => revokeGrant(g) }, 'Revoke');
    revoke.disabled = !live;
    const since = el('td', { class: 'grant-at', title: g.at }, new Date(g.at).toLocaleString());
    return el('tr', { 'data-scope': g.scope },
      el('td', { class: 'grant-tool' }, g.tool),
      el('td', { class: 'grant-key' }, el('code', {}, g.key)),
      el('td', { class: 'grant-scope' }, g.scope === 'session' ? 'This session' : 'This project'),
      el('td', { class: 'grant-where' }, g.scope === 'session' ? g.session : g.root),
      since, el('td', {}, revoke));
  }));
}

async function revokeGrant(g) {
  const { ok, data } = await post('/api/grants/revoke', { tool: g.tool, key: g.key, scope: g.scope, session: g.session, root: g.root });
  if (ok) {
    showNotice('');
    onGrants(data.grants);
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
  const es = $('emergency-stop');
  es.textContent = `Emergency stop (${state.counts.proceeding} proceeding)`;
  es.disabled = !live || state.counts.proceeding === 0;
  const ra = $('resume-all');
  ra.textContent = `Resume all (${state.counts.eligible} eligible)`;
  ra.disabled = !live || state.counts.eligible === 0;
  if (!live) $('resume-confirm').hidden = true;
  if (grantsShownLive !== live) renderGrants(); // the list itself changes only with a grants message

  const list = $('sessions');
  list.replaceChildren(...state.order.map((id) => {
    const s = state.sessions.get(id);
    let detail = '';
    if (s.run_state === 'interrupted' && s.interruption) detail = label(s.interruption.reason);
    if (s.pause) detail = `Waiting for: ${s.pause.message}`; // blocked, or a call still runs beside it
    if (s.run_state === 'blocked' && !s.pause && s.needs_input) detail = `Asks again: ${s.needs_input.message}`;
    return el('li', { class: id === state.selected ? 'selected' : '', 'data-session': id, onclick: () => select(id) },
      el('span', {}, el('span', { class: 'name' }, id), el('br'), el('span', { class: 'detail' }, detail)),
      el('span', { class: `badge ${s.run_state}` }, BADGES[s.run_state] || s.run_state));
  }));
  renderSession();
}

function renderSession() {
  const live = state.authoritative;
  const s = state.sessions.get(state.selected);
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
  const stopping = s.status === 'stopping' || (proceeding && state.stopRequested.has(s.id));
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
    const disabled = !live || settleLeft(`${state.epoch} ${s.id} ${p.id}`) > 0;
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
    const stop = el('button', { type: 'button', onclick: () => post(sessionAPI('stop', s.id)) }, 'Stop');
    stop.disabled = !live;
    pause.replaceChildren(
      el('p', { class: 'pause-message' }, `${p.tool ? p.tool + ': ' : ''}${p.message}`),
      p.details ? el('pre', { class: 'pause-details' }, p.details) : null,
      // Why it asks, as text: the gate's reasons, a policy rule's tier, name and reason.
      ...(p.reasons || []).map((r) => el('p', { class: 'pause-reason' }, r)),
      // What a remembered approval approves again, as text: a key is the tool's words, never markup.
      remember.length && p.remember_key ? el('p', { class: 'pause-remember' }, rememberLine(p.remember_key)) : null,
      ...buttons, stop);
    pause.dataset.pause = p.id;
  }
  renderHistory();
}

// The line under a confirm that can be remembered, as the TUI shows it.
function rememberLine(key) { return `Remembering approves again without asking: ${key}`; }

function renderHistory() {
  const h = $('history');
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
}

async function answerPause(s, p, answer, remember) {
  const body = { epoch: state.epoch, version: s.version, pause_id: p.id, answer };
  if (remember) body.remember = remember;
  const { ok } = await post(sessionAPI('answer', s.id), body);
  if (ok) showNotice('');
}

$('input').addEventListener('submit', async (e) => {
  e.preventDefault();
  const s = state.sessions.get(state.selected);
  if (!s || !state.authoritative) return;
  const action = $('primary').dataset.action;
  if (action === 'stop') {
    state.stopRequested.add(s.id);
    renderSession();
    const { ok } = await post(sessionAPI('stop', s.id));
    if (!ok) { state.stopRequested.delete(s.id); renderSession(); }
  } else if (action === 'send') {
    const text = $('prompt').value;
    if (!text.trim()) return;
    const { ok } = await post(sessionAPI('prompt', s.id), { text });
    if (ok) $('prompt').value = '';
  }
});

$('continue').addEventListener('click', async () => {
  const s = state.sessions.get(state.selected);
  if (!s || !state.authoritative) return;
  const { ok } = await post(sessionAPI('continue', s.id), { epoch: state.epoch, version: s.version });
  if (ok) showNotice('');
});

function list(ids, none) { return ids.length ? ids.join(', ') : none; }

// Emergency stop asks nothing (it only stops) and says what it stopped.
$('emergency-stop').addEventListener('click', async () => {
  const { ok, data } = await post('/api/emergency-stop');
  if (ok) showNotice(`Emergency stop: stopped ${list(data.stopped, 'nothing (none was proceeding)')}`);
});

// Resume all asks once, listing what it will resume, and resumes those
// alone: a session that became eligible while the question was shown was
// not confirmed. It says what it did.
let resumeListed = [];
$('resume-all').addEventListener('click', () => {
  resumeListed = state.order.filter((id) => state.sessions.get(id).eligibility?.eligible);
  $('resume-confirm-text').textContent = printable(`Resume all will continue ${resumeListed.length} session${resumeListed.length === 1 ? '' : 's'}: ${resumeListed.join(', ')}`);
  $('resume-confirm').hidden = false;
});
$('resume-confirm-no').addEventListener('click', () => { $('resume-confirm').hidden = true; });
$('resume-confirm-yes').addEventListener('click', async () => {
  $('resume-confirm').hidden = true;
  const { ok, data } = await post('/api/resume-all', { epoch: state.epoch, sessions: resumeListed });
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
