// The raw addon module (build/Release/interlock.node), as node/load.js
// returns it. Internal: node/index.js is the public API. Handles are the
// library's il_handle values as numbers (0 is invalid); JSON results are
// strings the wrapper parses. Every function checks its arguments (a
// TypeError naming the public usage) and throws the wrapper's error class
// with `code` = il_status_name(status) when the library call fails.

export type Handle = number;

export interface Native {
  /** Errors are built with `new errorClass(message, code)`. */
  init(errorClass: new (message: string, code: string) => Error): void;
  version(): string;
  /** il_reason_labels: JSON {"labels": {reason: label}, "unknown": label}. */
  reasonLabels(): string;

  /** Creates the engine and its event stream: onEvent gets one string per batch of events
   *  (engine order), a JSON array in the engine's wire format (camelCase keys), then once with
   *  no argument when the stream has ended. */
  engineCreate(configJson: string | undefined, onEvent: (batch?: string) => void): Handle;
  /** il_engine_close, then ends the event stream (queued events are still delivered). Blocks: for process exit only. */
  engineClose(engine: Handle): void;
  /** engineClose on a worker thread: returns at once; settles when closed (the stream end follows). */
  engineCloseAsync(engine: Handle): Promise<void>;
  /** Blocks until an engineCloseAsync in progress has finished (process exit). */
  engineCloseWait(engine: Handle): void;
  /** Whether the event stream keeps the event loop alive (starts unref'd). */
  engineRef(engine: Handle, ref: boolean): void;
  /** il_engine_sessions: snapshots in the engine's wire format (JSON.parse is all they need). */
  engineSessions(engine: Handle): string;
  /** il_engine_stats JSON. */
  engineStats(engine: Handle): string;
  /** il_engine_info JSON. */
  engineInfo(engine: Handle): string;
  /** JSON {"stopped": [ids]}. */
  engineEmergencyStop(engine: Handle): string;
  /** JSON {"resumed": [ids], "skipped": {id: reason}}. */
  engineResumeAll(engine: Handle): string;
  engineResumeSessions(engine: Handle, idsJSON: string): string;
  /** JSON array of audit entries. */
  engineAuditLog(engine: Handle, session?: string): string;
  /** JSON array of grants. */
  engineGrants(engine: Handle): string;
  /** grant: JSON {scope, tool, key, session?, root?}. */
  engineRevokeGrant(engine: Handle, grant: string): void;
  /** JSON string: "ok" when the store is sound. */
  engineCheckStore(engine: Handle): string;
  /** The handle of an open session (e.g. one a store brought back). */
  engineSessionHandle(engine: Handle, id: string): Handle;
  /** JSON {"proceeding", "eligible", "needs_input"}. */
  engineCounts(engine: Handle): string;
  /** [server handle, url] */
  engineServe(engine: Handle, optsJSON: string): [Handle, string];
  serverClose(server: Handle): void;
  fleetServe(optsJSON: string): [Handle, string];

  /** Returns [session, id]: the handle and the id in one call. */
  sessionCreate(engine: Handle, optsJson?: string): [Handle, string];
  /** il_session_close on a worker thread: returns at once, settles when the session has unwound. */
  sessionCloseAsync(session: Handle): Promise<void>;
  /** IL_STATUS_* (0..5). Raw N-API fast path. */
  sessionStatus(session: Handle): number;
  sessionVersion(session: Handle): number;
  sessionPauseState(session: Handle): string;
  sessionSnapshot(session: Handle): string;
  sessionHistory(session: Handle): string;
  sessionId(session: Handle): string;
  /** "idle" | "proceeding" | "interrupted" | "blocked" | "terminal". */
  sessionRunState(session: Handle): string;
  /** JSON {"eligible", "reason"?, "repeats_side_effect"?}. */
  sessionEligibility(session: Handle): string;
  sessionResume(session: Handle, pauseId?: string | null): void;
  sessionConfirm(session: Handle, approved: boolean, reason?: string | null, pauseId?: string | null, remember?: string | null): void;
  /**
   * il_sessions_confirm: many confirm answers in one call. nums: per answer the session handle
   * and flags (1 approved, 2 reason given, 4 remember given, 8 pause id given); texts: per answer
   * the pause id, reason and remember scope, each followed by "\0" ("" when not given). Returns
   * undefined when all were applied, else [index, error] for each answer refused.
   */
  sessionsConfirm(engine: Handle, nums: Float64Array, texts: string): [number, Error][] | undefined;
  sessionInterrupt(session: Handle, reason?: string | null): void;
  sessionSignal(session: Handle, sig: string): void;
  /** Returns the engine's run id; the run ends with a terminal session event carrying it. */
  sessionPrompt(session: Handle, text: string): number;
  sessionContinue(session: Handle): number;

  /** il_engine_register_tool: calls arrive as tool_call events with a host handle. */
  engineRegisterTool(engine: Handle, name: string, specJson: string): void;
  /** il_session_begin: a host handle for the host's own loop. */
  sessionBegin(session: Handle, optsJson?: string): Handle;
  /** The answer arrives as a pause_done event carrying request. */
  hostPause(host: Handle, request: number, reqJson: string): void;
  hostProgress(host: Handle, text: string): void;
  /** il_host_check: the session's bash gate's Decision JSON. */
  hostCheck(host: Handle, command: string): string;
  /** il_host_step: the outcome arrives as a step_done event carrying request. */
  hostStep(host: Handle, request: number): void;
  /** Ends host work: "null" for a tool call, the run's result JSON for a host run. */
  hostEnd(host: Handle, resultJson?: string): string;

  /** Returns [loop, session]. */
  taskLoopCreate(engine: Handle, json: string): [Handle, Handle];
  /** The session's newest task loop (0: none): a new handle. */
  sessionTaskLoop(session: Handle): Handle;
  taskLoopRun(loop: Handle): number;
  taskLoopSetPauseMode(loop: Handle, on: boolean): void;
  taskLoopIsPauseMode(loop: Handle): boolean;
  taskLoopContinue(loop: Handle): void;
  taskLoopContinueAll(loop: Handle): void;
  taskLoopState(loop: Handle): string;
  /** il_taskloop_close on a worker thread. */
  taskLoopCloseAsync(loop: Handle): Promise<void>;

  sessionCheck(session: Handle, command: string): string;
  /** il_store_audit_log: the audit log of a store file no engine holds (JSON). */
  storeAuditLog(path: string, session?: string): string;

  /** ORs SA_ONSTACK into every installed signal handler; returns how many changed. */
  fixSignals(): number;
  /** Every installed handler (not SIG_DFL/SIG_IGN) and whether it has SA_ONSTACK. */
  signalReport(): { signal: number; onstack: boolean }[];
  /** Live event sinks (one per open engine), event copies not yet freed, and
   *  the library's open handles (il_open_handles). */
  debugCounters(): { sinks: number; queuedEvents: number; openHandles: number; droppedBatches: number };
}
