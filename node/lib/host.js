// Work the host does under the engine's control: tools written in JS
// (engine.registerTool) and the host's own agent loop (session.begin()).
// The engine decides everything; this file only carries calls and answers:
// a tool_call event runs the JS function, host_abort aborts its signal,
// pause_done settles a pause promise, step_done a step promise.

import { createRequire } from 'node:module';

import { checkObject } from './config.js';
import { fromNative, nativeJSON } from './convert.js';
import { argError, InterlockError } from './errors.js';
import { native } from './native.js';
import { runResult } from './results.js';

/** Routes host work of one engine: registered tools and work in flight by host handle. */
/** What registerTool's tool object may hold (run and needsApproval are checked apart: functions). */
const TOOL_SPEC = { description: 'string', parameters: 'any', graceMs: 'number', needsApproval: 'any', rememberKey: 'any', run: 'any' };

let ajv; // made at the first tool with parameters
/** A validator of args against the JSON Schema `schema` (ajv, every error reported). */
function compileSchema(schema, usage) {
  if (ajv === undefined) {
    const Ajv = createRequire(import.meta.url)('ajv');
    ajv = new Ajv({ allErrors: true, strict: false });
  }
  try {
    return ajv.compile(schema);
  } catch (err) {
    throw argError(`${usage}: tool.parameters is not a valid JSON Schema (${err.message}): see https://json-schema.org/understanding-json-schema`, 'ERR_INVALID_ARG_VALUE');
  }
}

/** Why args do not match the tool's parameters, in words the model can act on. */
function invalidArgs(tool, validate) {
  const errs = validate.errors.map((e) => {
    const at = e.instancePath ? `args${e.instancePath.replaceAll('/', '.')}` : 'args';
    if (e.keyword === 'additionalProperties') return `${at} has no field ${JSON.stringify(e.params.additionalProperty)}`;
    if (e.keyword === 'required') return `${at} needs the field ${JSON.stringify(e.params.missingProperty)}`;
    return `${at} ${e.message}`;
  });
  return `tool ${tool}: the arguments do not match its parameters: ${errs.join('; ')}. Call it again with arguments that do.`;
}

export class HostRouter {
  #tools = new Map(); // name -> {run, validate?, needsApproval?, rememberKey?}
  // host handle -> {controller, waiters: Map(request -> {resolve, reject})}
  // (pauses and steps; the map made at the first: most tool calls never pause).
  #work = new Map();
  #nextRequest = 1;
  #approver; // engine.setApprover's function

  /** engine.registerTool(name, {description?, parameters?, run, graceMs?}) */
  register(engineHandle, name, tool, usage) {
    if (typeof name !== 'string' || name === '') throw argError(`${usage}: name must be a non-empty string, got ${typeof name}`);
    if (tool === null || typeof tool !== 'object') throw argError(`${usage}: tool must be an object, got ${tool === null ? 'null' : typeof tool}`);
    const checked = checkObject(tool, TOOL_SPEC, 'tool', usage);
    const { run, needsApproval, rememberKey, ...spec } = checked;
    if (typeof run !== 'function') throw argError(`${usage}: tool.run must be a function (args, ctx) => result, got ${typeof run}`);
    if (needsApproval !== undefined && typeof needsApproval !== 'boolean' && typeof needsApproval !== 'function') {
      throw argError(`${usage}: tool.needsApproval must be true, false or a function (args, ctx) => boolean, got ${typeof needsApproval}`);
    }
    if (rememberKey !== undefined && typeof rememberKey !== 'function') {
      throw argError(`${usage}: tool.rememberKey must be a function (args) => string, got ${typeof rememberKey}`);
    }
    if (spec.parameters !== undefined && (spec.parameters === null || typeof spec.parameters !== 'object' || Array.isArray(spec.parameters))) {
      throw argError(`${usage}: tool.parameters must be a JSON Schema object, got ${spec.parameters === null ? 'null' : typeof spec.parameters}`);
    }
    const validate = spec.parameters === undefined ? undefined : compileSchema(spec.parameters, usage);
    native.engineRegisterTool(engineHandle, name, nativeJSON(spec, 'tool', usage));
    this.#tools.set(name, { run, validate, needsApproval: needsApproval || undefined, rememberKey });
  }

  /** Opens the JS side of host work: its abort controller and pending pauses and steps. */
  open(host) {
    const work = { controller: new AbortController(), waiters: undefined };
    this.#work.set(host, work);
    return work;
  }

  /** Ends host work in the library and forgets it. A result that cannot be sent, or that the library refuses, throws and ends nothing. */
  end(host, result) {
    const json = nativeJSON(result ?? {}, 'result', 'end(result?)');
    let refused = false;
    try {
      return runResult(undefined, fromNative(native.hostEnd(host, json)));
    } catch (err) {
      refused = err?.code === 'ERR_INVALID_ARGUMENT'; // the library read nothing: the work goes on
      throw err;
    } finally {
      if (!refused) this.#work.delete(host);
    }
  }

  /** A pause for host work: resolves with {answer, reason?, remember?, by?} (by 'grant': approved by a remembered grant, unasked). */
  pause(host, opts) {
    const usage = "pause(opts: {kind: 'continue' | 'confirm', message: string, details?: string, tool?: string, command?: string, rememberKey?: string, rememberScopes?: string[]})";
    return this.#request(host, usage, (request) => native.hostPause(host, request, nativeJSON(opts, 'opts', usage)));
  }

  /** A step boundary of a host run: resolves with the new step index, rejects once interrupted. */
  step(host) {
    return this.#request(host, 'step()', (request) => native.hostStep(host, request));
  }

  /** Asks the library (send(request)) for an answer that comes as a pause_done or step_done message. */
  #request(host, usage, send) {
    const work = this.#work.get(host);
    if (!work) return Promise.reject(new InterlockError(`${usage}: the work has ended`, 'ERR_NOT_RUNNING'));
    const request = this.#nextRequest++;
    return new Promise((resolve, reject) => {
      (work.waiters ??= new Map()).set(request, { resolve, reject });
      try {
        send(request);
      } catch (err) {
        work.waiters.delete(request);
        reject(err);
      }
    });
  }

  /** Routes a message of the host line (the library's JSON). */
  line(json) {
    this.route(JSON.parse(json));
  }

  /** Routes a host message (from the host line, or the event stream without one); false if ev is not one. */
  route(ev) {
    switch (ev.type) {
      case 'tool_call':
        this.#call(ev.host, ev.tool, ev.args, ev.session, ev.callId, ev.step);
        return true;
      case 'approve':
        this.#approve(ev.host, ev.approval);
        return true;
      case 'host_abort':
        this.#work.get(ev.host)?.controller.abort(new InterlockError(`interrupted (${ev.reason || 'stop'})`, 'ERR_INTERRUPTED'));
        return true;
      case 'pause_done':
      case 'step_done': {
        const p = this.#work.get(ev.host)?.waiters;
        const waiter = p?.get(ev.request);
        if (!waiter) return true;
        p.delete(ev.request);
        if (ev.error !== undefined) waiter.reject(Object.assign(new InterlockError(ev.error, ev.code), ev.reason ? { reason: ev.reason } : {}));
        else waiter.resolve(ev.type === 'step_done' ? ev.newStep : ev.result);
        return true;
      }
    }
    return false;
  }

  /** engine.setApprover(approver | null, {timeoutMs?}): the engine asks it before a person (fails closed on a throw or the timeout). */
  setApprover(engineHandle, approver, opts) {
    const usage = "engine.setApprover(approver: ((request) => 'allow' | 'deny' | 'ask' | Promise<...>) | null, opts?: {timeoutMs?: number})";
    if (approver !== null && typeof approver !== 'function') throw argError(`${usage}: approver must be a function or null, got ${typeof approver}`);
    const timeoutMs = opts?.timeoutMs ?? 10_000;
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw argError(`${usage}: opts.timeoutMs must be a positive whole number of milliseconds, got ${timeoutMs}`, 'ERR_INVALID_ARG_VALUE');
    this.#approver = approver ?? undefined;
    native.engineSetApprover(engineHandle, approver === null ? 0 : timeoutMs);
  }

  /** Asks the approver about a request and ends the work with its decision; a throw is an error (the person is asked). */
  async #approve(host, request) {
    let result;
    try {
      if (this.#approver === undefined) throw new Error('no approver is set in this process');
      result = { output: String(await this.#approver(request)) };
    } catch (err) {
      result = { output: thrownText(err), isError: true };
    }
    try {
      native.hostEnd(host, JSON.stringify(result));
    } catch {
      // the engine closed, or it stopped waiting (timeout): the person was asked
    }
  }

  #call(host, tool, args, sessionId, callId, step) {
    const work = this.open(host);
    const entry = this.#tools.get(tool);
    const ctx = Object.freeze({
      signal: work.controller.signal,
      sessionId,
      callId,
      step,
      pause: (opts) => this.pause(host, opts),
      check: (command) => fromNative(native.hostCheck(host, command)),
      progress: (text) => {
        if (this.#work.has(host)) native.hostProgress(host, String(text));
      },
    });
    const finish = (result) => {
      if (!this.#work.delete(host)) return;
      try {
        native.hostEnd(host, JSON.stringify(result)); // the library's shape already; its answer is for begin()
      } catch {
        // the engine closed meanwhile: nobody waits for the result
      }
    };
    const failed = (err) => finish({ output: thrownText(err), isError: true });
    const ok = (result) => {
      let output;
      try {
        output = result === undefined ? '' : typeof result === 'string' ? result : JSON.stringify(result);
      } catch (err) {
        failed(`tool ${tool} returned a value that cannot be sent as JSON (${thrownText(err)}): return a string or plain data`);
        return;
      }
      finish({ output });
    };
    // Called at once: a tool that returns a plain value answers within this
    // callback, without a trip through the microtask queue.
    const input = args ?? {};
    if (!entry) {
      failed(`tool ${tool} is not registered in this process`);
      return;
    }
    if (entry.validate !== undefined && !entry.validate(input)) {
      failed(invalidArgs(tool, entry.validate));
      return;
    }
    const start = () => {
      let result;
      let thenable;
      try {
        result = entry.run(input, ctx);
        thenable = typeof result?.then === 'function';
      } catch (err) {
        failed(err);
        return;
      }
      if (thenable) Promise.resolve(result).then(ok, failed);
      else ok(result);
    };
    if (entry.needsApproval === undefined) start();
    else approve(tool, entry, input, ctx).then((denied) => (denied === undefined ? start() : failed(denied)), failed);
  }

  /** A host-driven run of a session: {signal, step, pause, check, progress, end}. */
  begin(host, onEnd) {
    const work = this.open(host);
    let ended = false;
    return Object.freeze({
      signal: work.controller.signal,
      step: () => this.step(host),
      pause: (opts) => this.pause(host, opts),
      check: (command) => fromNative(native.hostCheck(host, command)),
      progress: (text) => native.hostProgress(host, String(text)),
      end: (result) => {
        if (ended) throw new InterlockError('end(): the run has already ended', 'ERR_NOT_RUNNING');
        ended = true;
        try {
          return this.end(host, result instanceof Error ? { error: result.message } : result);
        } finally {
          if (this.#work.has(host)) ended = false; // a bad result ended nothing: end() it again
          else onEnd();
        }
      },
    });
  }
}

/**
 * Asks the user, through the engine's confirm, before a tool whose
 * needsApproval says so runs: resolves undefined when approved (or not
 * needed), else with why not (the tool error the model sees). A
 * needsApproval or rememberKey that throws fails closed.
 */
async function approve(tool, entry, args, ctx) {
  let needed = entry.needsApproval;
  if (typeof needed === 'function') {
    try {
      needed = await needed(args, ctx);
    } catch (err) {
      return `tool ${tool} was not run: its needsApproval threw (${thrownText(err)})`;
    }
  }
  if (needed !== true) return undefined;
  const req = { kind: 'confirm', message: `Run ${tool}?`, details: JSON.stringify(args, null, 2) };
  if (entry.rememberKey !== undefined) {
    let key;
    try {
      key = entry.rememberKey(args);
    } catch (err) {
      return `tool ${tool} was not run: its rememberKey threw (${thrownText(err)})`;
    }
    if (typeof key !== 'string' || key === '') return `tool ${tool} was not run: its rememberKey returned ${typeof key}, not a non-empty string`;
    req.rememberKey = key;
  }
  const res = await ctx.pause(req);
  if (res.answer === 'approved') return undefined;
  return `tool ${tool} was not run: the user answered ${res.answer}${res.reason ? ` (${res.reason})` : ''}`;
}

/**
 * The text of what a tool threw, for the model. It never throws itself: a
 * tool's mistake (a thrown null-prototype object, a message getter that
 * throws) must not become an uncaught exception of the host.
 */
function thrownText(err) {
  try {
    return err instanceof Error ? String(err.message) : String(err);
  } catch {
    return 'the tool threw a value that cannot be shown as text';
  }
}
