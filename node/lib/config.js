// The config objects of the JS API (new Engine(config), createSession(opts),
// createTaskLoop(opts), serve(opts)), checked in the user's terms before
// anything reaches the library: each key spelled one way (camelCase, as
// index.d.ts declares it), each value of its type. A mistake is an
// InterlockError with an ERR_INVALID_ARG_* code naming the call, the field
// as written and what to do ("did you mean `workDir`?").

import fs from 'node:fs';
import path from 'node:path';

import { argError } from './errors.js';

// A schema is an object of field -> kind: 'string', 'number', 'boolean',
// 'strings' (an array of strings), 'any' (user data, passed as it is), a
// nested schema (an object of its own), or [schema] (an array of such).
const SANDBOX = { mode: 'string', writable: 'strings', readable: 'strings', network: 'string', required: 'boolean', maxProcesses: 'number' };
const PROVIDER = {
  $required: ['type', 'model'],
  type: 'string', baseUrl: 'string', model: 'string', apiKeyEnv: 'string', headers: 'record', maxTokens: 'number',
  temperature: 'number', system: 'string', maxRetries: 'number', retryWaitMs: 'number',
};
const SCRIPT_TURN = {
  text: 'string', toolCalls: [{ $required: ['name'], name: 'string', args: 'any' }], usage: { input: 'number', output: 'number' },
  chunkDelayMs: 'number', hang: 'boolean', error: 'string',
};
const TOOLS = 'strings';

export const ENGINE_CONFIG = {
  workDir: 'dir', defaultPauseMode: 'boolean', streamIdleTimeoutMs: 'number', tools: TOOLS,
  bash: {
    timeoutMs: 'number', graceMs: 'number', policy: 'any', sandbox: SANDBOX,
    env: { include: 'strings', exclude: 'strings' }, userPolicy: 'string', projectPolicy: { trustFile: 'string' },
  },
  web: { searchUrl: 'string', autoDevtools: 'boolean' },
  provider: PROVIDER,
  store: 'storePath',
  hub: { $required: ['url', 'host'], url: 'string', host: 'string', heartbeatMs: 'number', retentionDays: 'number' },
};
export const SESSION_OPTIONS = {
  id: 'string', workDir: 'dir', env: 'record', sandbox: SANDBOX, script: [SCRIPT_TURN], provider: PROVIDER, tools: TOOLS,
};
export const TASK_LOOP_OPTIONS = {
  $required: ['tasks'],
  tasks: [{ $required: ['title', 'prompt'], title: 'string', prompt: 'string', script: [SCRIPT_TURN] }], pauseMode: 'boolean',
};
export const SERVE_OPTIONS = { port: 'number', host: 'string', allowRemote: 'boolean', token: 'string', fleet: 'boolean' };
export const HOST_RUN_OPTIONS = { graceMs: 'number' };
export const CONFIRM_OPTIONS = { pauseId: 'string', remember: 'string', reason: 'string' };

/** The JSON-ish type of v for messages. */
function kindOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Date) return 'a Date';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

/** The Levenshtein distance of a and b (short keys: no need for anything clever). */
function distance(a, b) {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length];
}

/** Names from other APIs that mean one of ours. */
const ALIASES = { rules: 'policy', dir: 'workDir', cwd: 'workDir', directory: 'workDir', workingDirectory: 'workDir', apiKey: 'apiKeyEnv', baseURL: 'baseUrl' };

/** The known key nearest to key (case and underscores ignored), or undefined when none is near. */
export function nearestKey(key, known) {
  const alias = ALIASES[key];
  if (alias !== undefined && [...known].includes(alias)) return alias;
  const norm = (k) => k.toLowerCase().replace(/[_-]/g, '');
  const k = norm(key);
  let best;
  let bestD = Infinity;
  for (const cand of known) {
    const d = distance(k, norm(cand));
    if (d < bestD) {
      best = cand;
      bestD = d;
    }
  }
  return bestD <= Math.max(2, Math.floor(k.length / 3)) ? best : undefined;
}

const TYPE = 'ERR_INVALID_ARG_TYPE';
const VALUE = 'ERR_INVALID_ARG_VALUE';

/** Reads v[key], a getter or Proxy trap that throws reported as the field's error. */
function read(v, key, where, usage) {
  try {
    return v[key];
  } catch (err) {
    throw argError(`${usage}: reading ${where}.${key} threw (${errText(err)}): pass plain data`, VALUE);
  }
}

function errText(err) {
  try {
    return err instanceof Error ? err.message : String(err);
  } catch {
    return 'an error that cannot be shown';
  }
}

/** v with its toJSON applied, as JSON.stringify would; a throw or a non-object (where one is wanted) is the field's error. */
function unwrap(v, where, usage, wantObject) {
  if (v instanceof Date) throw argError(`${usage}: ${where} is a Date: ${wantObject ? 'pass an object' : 'pass a string or number'}`, TYPE);
  let toJSON;
  if (v !== null && typeof v === 'object') toJSON = read(v, 'toJSON', where, usage);
  if (typeof toJSON !== 'function') return v;
  let out;
  try {
    out = toJSON.call(v, '');
  } catch (err) {
    throw argError(`${usage}: ${where}.toJSON() threw (${errText(err)}): pass plain data`, VALUE);
  }
  if (wantObject && (out === null || typeof out !== 'object' || Array.isArray(out))) {
    throw argError(`${usage}: ${where}.toJSON() returned ${kindOf(out)}: it must return an object`, TYPE);
  }
  return out;
}

/** Own enumerable keys of v; a Proxy whose ownKeys trap throws is the field's error. */
function keysOf(v, where, usage) {
  try {
    return Object.keys(v);
  } catch (err) {
    throw argError(`${usage}: listing the keys of ${where} threw (${errText(err)}): pass plain data`, VALUE);
  }
}

/**
 * Checks value against schema and returns a plain copy of it (toJSON
 * applied, getters read once). where: the field as written ('config').
 */
export function checkObject(value, schema, where, usage) {
  const v = unwrap(value, where, usage, true);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw argError(`${usage}: ${where} must be an object, got ${kindOf(v)}`, TYPE);
  }
  const out = {};
  for (const key of keysOf(v, where, usage)) {
    const kind = key === '$required' || !Object.hasOwn(schema, key) ? undefined : schema[key];
    if (kind === undefined) {
      const at = `${where}.${key}`;
      const known = Object.keys(schema).filter((k) => k !== '$required');
      const near = nearestKey(key, known);
      const hint = near ? `did you mean \`${near}\`?` : `the fields are ${known.join(', ')}`;
      const snake = key.includes('_') ? ' (keys are camelCase)' : '';
      throw argError(`${usage}: ${at} is not a known field${snake}: ${hint}`, VALUE);
    }
    const x = read(v, key, where, usage);
    if (x === undefined) continue;
    out[key] = checkValue(x, kind, `${where}.${key}`, usage);
  }
  for (const key of schema.$required ?? []) {
    if (out[key] === undefined) throw argError(`${usage}: ${where}.${key} is missing: it is required`, TYPE);
  }
  return out;
}

function checkValue(value, kind, where, usage) {
  if (kind === 'any') return value;
  if (Array.isArray(kind)) {
    const v = unwrap(value, where, usage, false);
    if (!Array.isArray(v)) throw argError(`${usage}: ${where} must be an array, got ${kindOf(v)}`, TYPE);
    return v.map((x, i) => checkObject(x, kind[0], `${where}[${i}]`, usage));
  }
  if (typeof kind === 'object') return checkObject(value, kind, where, usage);
  const v = unwrap(value, where, usage, kind === 'record');
  switch (kind) {
    case 'string':
    case 'dir':
    case 'storePath':
      if (typeof v !== 'string') throw argError(`${usage}: ${where} must be a string, got ${kindOf(v)}`, TYPE);
      if (kind === 'dir') checkDir(v, where, usage);
      if (kind === 'storePath') checkStorePath(v, where, usage);
      return v;
    case 'number':
      if (typeof v !== 'number' || Number.isNaN(v)) throw argError(`${usage}: ${where} must be a number, got ${kindOf(v)}`, TYPE);
      return v;
    case 'boolean':
      if (typeof v !== 'boolean') throw argError(`${usage}: ${where} must be true or false, got ${kindOf(v)}`, TYPE);
      return v;
    case 'strings':
      if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) {
        throw argError(`${usage}: ${where} must be an array of strings, got ${kindOf(v)}`, TYPE);
      }
      return [...v];
    case 'record': {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw argError(`${usage}: ${where} must be an object of strings, got ${kindOf(v)}`, TYPE);
      const out = {};
      for (const k of keysOf(v, where, usage)) {
        const s = read(v, k, `${where}.${k}`, usage);
        if (typeof s !== 'string') throw argError(`${usage}: ${where}.${k} must be a string, got ${kindOf(s)}`, TYPE);
        out[k] = s;
      }
      return out;
    }
    default:
      throw new Error(`config schema: unknown kind ${kind}`);
  }
}

/** A working directory must exist now: refused when given, not at the first command. */
function checkDir(dir, where, usage) {
  let st;
  try {
    st = fs.statSync(dir);
  } catch {
    throw argError(`${usage}: ${where} ${JSON.stringify(dir)} does not exist: create it first or pass an existing directory`, VALUE);
  }
  if (!st.isDirectory()) throw argError(`${usage}: ${where} ${JSON.stringify(dir)} is not a directory: pass a directory`, VALUE);
}

/** A store path's folder must exist (the file is created). */
function checkStorePath(file, where, usage) {
  if (file === ':memory:' || file === '') return;
  const folder = path.dirname(path.resolve(file));
  let st;
  try {
    st = fs.statSync(folder);
  } catch {
    throw argError(`${usage}: ${where} ${JSON.stringify(file)}: the folder ${JSON.stringify(folder)} does not exist: create it first, or use ':memory:'`, VALUE);
  }
  if (!st.isDirectory()) throw argError(`${usage}: ${where} ${JSON.stringify(file)}: ${JSON.stringify(folder)} is not a folder`, VALUE);
}
