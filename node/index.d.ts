// Interlock: a Go engine for long-running agent sessions, loaded as a native addon.
// This file is the typed public API of `agent-interlock` (node/index.js). Every
// object key on this surface is camelCase (the library's snake_case JSON is
// converted in node/lib/convert.js); event type names are the engine's.

export type Status = 'idle' | 'running' | 'interrupted' | 'paused' | 'stopping' | 'closed';
export type Reason = 'user_stop' | 'emergency_stop' | 'server_restart' | 'system_stop' | 'timeout';
export type PauseKind = 'continue' | 'confirm';
export type PauseSource = 'tool' | 'signal' | 'task';
export type Answer = 'resumed' | 'approved' | 'denied' | 'interrupted' | 'timed_out';
export type ControlSignal = 'pause' | 'resume' | 'cancel';
/** How long an approval is remembered (confirm's `remember`). */
export type RememberScope = 'once' | 'session' | 'project';

/** Seed 003's run state: what a user decides between send, stop, continue and act. */
export type RunState = 'idle' | 'proceeding' | 'interrupted' | 'blocked' | 'terminal';

/** Whether continue() (and resumeAll()) would resume a session. */
export interface Eligibility {
  eligible: boolean;
  reason?: string;              // why not, when not eligible ("Waiting for your input")
  repeatsSideEffect?: boolean;  // a cut tool may repeat an action: continue asks first
  asksAgain?: boolean;          // blocked on a question a restart cut: continue() asks it again (resumeAll skips it)
}

/** What the global controls affect, counted at one moment: proceeding
 *  leaves out sessions already stopping; needsInput counts every session
 *  with a question pending (blocked, or beside a call still running). */
export interface Counts { proceeding: number; eligible: number; needsInput: number; }
export interface StopReport { stopped: string[]; }
export interface ResumeReport { resumed: string[]; skipped: Record<string, string>; }

export { REASON_LABELS, reasonLabel } from './reasons.js';


export interface PauseInfo {
  id: string;
  kind: PauseKind;
  source: PauseSource;
  tool?: string;        // "Bash", "WebSearch"
  message: string;      // "Potentially dangerous command"
  details?: string;     // the command
  reasons?: string[];
  /** The scopes an approval may be remembered with (confirm's `remember`);
   *  absent when it can't be remembered: offer only Approve and Deny. */
  rememberScopes?: ('session' | 'project')[];
  /** What such an approval approves again without asking (the confirm's rememberKey; the bash gate's: the command as judged, words resolved, and its directory). */
  rememberKey?: string;
  step: number;
  task?: number;
  at: string;           // RFC 3339
  /** The session's version when the pause was raised. */
  version?: number;
}

/** A stop in progress (status 'stopping'): the reason given and its label. */
export interface Stopping {
  reason: Reason;
  label: string;        // "Stopped by you"
}

export interface Interruption {
  reason: Reason;
  label: string;        // "Stopped by you"
  at: string;
  resumable: boolean;
  sideEffectCut?: boolean;
  notResumable?: string; // why not, when a task loop could not be made again after a restart
  loop?: string;        // the task loop whose run was interrupted
  run?: number;         // the run that was interrupted
  hostOwned?: boolean;  // the run was the host's own loop (session.begin()): only the host can resume it
}

export type EventType =
  | 'run_started' | 'text' | 'tool_call_delta' | 'tool_started' | 'tool_progress' | 'tool_finished'
  | 'paused' | 'pause_answered' | 'pause_requested' | 'stopping'
  | 'interrupted' | 'run_finished' | 'run_failed' | 'closed' | 'warning' | 'granted' | 'decided' | 'grants_changed';

/** What every engine event carries. Every change bumps `version`; all observers see the same order. */
export interface EventBase {
  session: string;
  version: number;
  status: Status;
  /** The engine's id of the run this change belongs to. */
  run?: number;
  /** The current (oldest pending) pause after this change, if any. */
  pause?: PauseInfo;
  step: number;
  /** Wall clock, RFC 3339. */
  at: string;
  /** When the change happened in Go, in CLOCK_MONOTONIC nanoseconds: the
   *  clock of process.hrtime.bigint(), so `process.hrtime.bigint() - ev.monoNs`
   *  is how long the event took to reach this listener. */
  monoNs: bigint;
}
export interface RunStartedEvent extends EventBase { type: 'run_started'; }
/** A text delta of the model's answer. */
export interface TextEvent extends EventBase { type: 'text'; text: string; coalesced?: number; }
/** A piece of a tool call's JSON arguments as the model streams them. */
export interface ToolCallDeltaEvent extends EventBase { type: 'tool_call_delta'; tool: string; callId: string; text: string; }
export interface ToolStartedEvent extends EventBase { type: 'tool_started'; tool: string; callId: string; }
/** A chunk of a tool's output. */
export interface ToolProgressEvent extends EventBase { type: 'tool_progress'; tool: string; callId: string; text: string; coalesced?: number; }
/** text: how it ended ('ok', 'error', 'interrupted', ...). */
export interface ToolFinishedEvent extends EventBase { type: 'tool_finished'; tool: string; callId: string; text?: string; }
export interface PausedEvent extends EventBase { type: 'paused'; pause: PauseInfo; tool?: string; }
export interface PauseAnsweredEvent extends EventBase {
  type: 'pause_answered';
  answer: Answer;
  /** The pause that was answered (absent when a pause signal is released before it took effect). */
  answered?: PauseInfo;
  answerReason?: string;     // the user's reason
  remember?: RememberScope;  // the remember scope chosen
  by?: string;               // the client that answered
}
export interface PauseRequestedEvent extends EventBase { type: 'pause_requested'; }
export interface StoppingEvent extends EventBase { type: 'stopping'; reason: Reason; reasonLabel: string; }
/** The terminal run events carry the run id and how the run ended. */
export interface InterruptedEvent extends EventBase { type: 'interrupted'; reason: Reason; reasonLabel: string; run: number; result: RunResult; }
export interface RunFinishedEvent extends EventBase { type: 'run_finished'; run: number; result: RunResult; }
/** text: the error; code: what kind of failure, when known (e.g. 'rate_limited'). */
export interface RunFailedEvent extends EventBase { type: 'run_failed'; text: string; code?: ProviderErrorCode | string; run: number; result: RunResult; }

/** Codes of run_failed events from an OpenAI-compatible provider. */
export type ProviderErrorCode =
  | 'rate_limited' | 'server_error' | 'unauthorized' | 'bad_request' | 'missing_api_key'
  | 'connection_failed' | 'connection_lost' | 'malformed_stream' | 'stream_error' | 'stream_truncated';

/**
 * A real model: an OpenAI-compatible Chat Completions server (OpenAI,
 * Ollama, vLLM, llama.cpp, LM Studio, OpenRouter).
 */
export interface ProviderConfig {
  type: 'openai';
  baseUrl?: string;                // the API root; default https://api.openai.com/v1
  model: string;
  apiKeyEnv?: string;              // name of the env variable holding the key: read at each request, never stored
  headers?: Record<string, string>; // sent as they are
  maxTokens?: number;
  temperature?: number;
  system?: string;                 // system prompt
  maxRetries?: number;             // 429/5xx/connection retries (default 3)
  retryWaitMs?: number;            // first wait, doubled per retry (default 500)
}
export interface ClosedEvent extends EventBase { type: 'closed'; }
/** Something the user must know that does not stop the run: e.g. the sandbox is not fully in force (once per session). */
export interface WarningEvent extends EventBase { type: 'warning'; tool?: string; text: string; }
/**
 * A confirm with a `rememberKey` was approved without asking, by an approval
 * remembered before: text is the key, remember the grant's scope.
 */
export interface GrantedEvent extends EventBase {
  type: 'granted'; tool: string; text: string; answer: 'approved'; remember: 'session' | 'project'; by: 'grant';
}

/** A policy (docs/policy.md, engine/policy/schema.json): a policy file's content as an object. */
export interface PolicyDocument {
  version?: 1;
  /** Evaluate every rule and report what it would have decided, without enforcing it. */
  shadow?: boolean;
  rule?: PolicyRule[];
}

/** One rule: a command matches when it matches every field the rule sets. */
export interface PolicyRule {
  /** Unique in the policy; audit and confirms name the rule by it. */
  name: string;
  decision: 'allow' | 'ask' | 'deny';
  /** Shown in the confirm and the audit log. */
  reason: string;
  /** What runs, through wrappers and renames ('git' matches `sudo /usr/bin/git`). An allow rule needs one. */
  program?: string | string[];
  /** Alternatives, each one or more words: 'push', 'state rm'. */
  subcommand?: string | string[];
  /** Any of these options is given (-rf counts as -r and -f). */
  options?: string[];
  /** Globs of the operands, relative to the workspace (build/**) or absolute. */
  paths?: string[];
  /** Globs of the hosts it reaches (*.example.com). */
  hosts?: string[];
  /** NAME or NAME=glob: the command is given that variable. */
  env?: string[];
  /** Engine tier only: no lower tier changes this decision. */
  lock?: boolean;
  shadow?: boolean;
  /** Command lines checked when the policy loads. */
  examples?: { match?: string[]; notMatch?: string[] };
}

/** A project's policy file as a person is shown it before trusting it (engine.reviewProjectPolicy). */
export interface ProjectPolicyReview {
  path: string;
  /** The hash trust binds to: trust it with engine.trustProjectPolicy(dir, {sha256}). */
  sha256: string;
  /** Trusted with this content. */
  trusted: boolean;
  rules: { name: string; decision: 'allow' | 'ask' | 'deny'; reason: string; /** What it matches, as written. */ matches: string; shadow?: boolean }[];
  /** Why it does not load (then it cannot be trusted, and sha256 is ''). */
  error?: string;
}

/** What the approver decides. */
export type Approval = 'allow' | 'deny' | 'ask';
/** What the approver is asked: a command the gate would put to a person. */
export interface ApprovalRequest {
  session: string;
  /** The session's working directory. */
  dir: string;
  tool: string;
  /** The command as judged. */
  command: string;
  /** Why it asks, as the person would see it. */
  reasons: string[];
  /** The policy rules that matched it. */
  rules?: { tier: string; rule: string; decision: string; reason: string }[];
}

/**
 * A command was decided without asking a person: by the engine's approver
 * (`by: 'approver'`, answer approved or denied), by a policy rule (`by:
 * 'rule'`, `answerReason` names its tier, name and reason; answer '' when
 * the rule asks), or what a rule in shadow mode would have decided (`by:
 * 'shadow'`, not done). `text` is the command.
 */
export interface DecidedEvent extends EventBase {
  type: 'decided'; tool: string; text: string; answer?: 'approved' | 'denied'; by: 'approver' | 'rule' | 'shadow'; answerReason?: string;
}

/**
 * The approvals remembered without asking again changed (what
 * `engine.grants()` lists): `grant` was added (an answer with [S]/[P]) or
 * revoked (`engine.revokeGrant()`, the web UI, the TUI, its session's close). The engine's event,
 * not a session's: `engine.on('grants_changed')` gets it, `session` is ''
 * and `version` 0 (`grant.session` names a session grant's session).
 */
export interface GrantsChangedEvent extends EventBase {
  type: 'grants_changed'; tool: string; text: 'added' | 'revoked'; grant: Grant;
}

/** One engine event, discriminated by `type`. */
export type EngineEvent =
  | RunStartedEvent | TextEvent | ToolCallDeltaEvent | ToolStartedEvent | ToolProgressEvent | ToolFinishedEvent
  | PausedEvent | PauseAnsweredEvent | PauseRequestedEvent | StoppingEvent
  | InterruptedEvent | RunFinishedEvent | RunFailedEvent | ClosedEvent | WarningEvent | GrantedEvent | DecidedEvent | GrantsChangedEvent;

/** The listener argument of each event type of a session; 'event' receives every type. */
export type SessionEventMap = { [K in Exclude<EventType, 'grants_changed'>]: Extract<EngineEvent, { type: K }> } & { event: EngineEvent } & SignalEventMap & {
  /** Never emitted (failures are thrown or rejected); accepted so that events.once and events.on work. */
  error: Error;
};
/** The engine's: every session's event types, and its own (grants_changed). */
export type EngineEventMap = Omit<SessionEventMap, SignalEvent> & { grants_changed: GrantsChangedEvent };

export interface Tokens { input: number; output: number; }

export interface SessionSnapshot {
  id: string;
  status: Status;
  version: number;
  pause: PauseInfo | null;      // the current pause
  pauses: PauseInfo[];          // all pending, oldest first
  interruption: Interruption | null;  // the last one, kept after later runs
  stopping?: Stopping;          // while status is 'stopping': why
  runState: RunState;
  eligibility: Eligibility;
  needsInput?: PauseInfo;       // blocked after a restart: asked again on continue
  run?: number;                 // the run in flight
  step: number;
  tokens: Tokens;
  model: string;
  pauseRequested: boolean;
  lastError?: string;
  /** What confines this session's commands, as in force (absent without a bash tool). */
  sandbox?: SandboxInfo;
}

export interface ServeOptions {
  port?: number;         // 0 (default): a free port
  host?: string;         // default 127.0.0.1; anything else needs allowRemote
  allowRemote?: boolean; // prints a warning
  token?: string;        // default: random (at least 16 characters)
  /** Serve the fleet view of the engine's hub (`new Engine({hub})`): every host's sessions, not this engine's. */
  fleet?: boolean;
}

export interface WebUI {
  url: string;           // http://127.0.0.1:PORT/?token=...
  close(): void;
}

/** What confines a tool's commands on this machine. Never silently missing: `degraded` and `warnings` say what is not in force. */
export interface SandboxInfo {
  tool: string;
  mode: SandboxMode;
  /** "landlock ABI 7 and read-only mounts", "landlock ABI 7 and metadata checked by the supervisor", "landlock ABI 7", "none (no Landlock)", "off". */
  filesystem: string;
  /** "allow", "deny (network namespace; other sockets refused by seccomp)", "deny (TCP by Landlock; other sockets refused by seccomp)", "allow (deny not enforced)". */
  network: string;
  /** "scoped": commands can signal only their own processes. */
  signals: string;
  /** "pid-namespace" (the kernel kills the tree at once) or "subreaper". */
  tree: 'pid-namespace' | 'subreaper';
  /** "at most 4096" (processes and threads of a command's tree), or "not limited (...)" saying why. */
  processes: string;
  required: boolean;
  degraded: boolean;
  warnings?: string[];
}

export interface EngineInfo {
  tools: string[];
  sandbox: SandboxInfo[];
}

export type SandboxMode = 'workspace-write' | 'read-only' | 'off';

/** bash.sandbox and a session's sandbox: what commands may do (Landlock). */
export interface SandboxPolicy {
  /** Default 'workspace-write': writes only in the session's directory, the temp dir and `writable`. */
  mode?: SandboxMode;
  /** Absolute, existing paths commands may also write. */
  writable?: string[];
  /** When set, reads are limited to these absolute paths plus the system directories tools need. */
  readable?: string[];
  network?: 'allow' | 'deny';
  /** Refuse to run commands when the kernel cannot enforce the sandbox. */
  required?: boolean;
  /** Most processes and threads a command's tree runs at once (default 4096): a fork bomb gets EAGAIN. In force with user namespaces and a host not run as root. */
  maxProcesses?: number;
}

export interface HistoryMessage {
  role: 'user' | 'assistant' | 'tool' | 'marker';
  text?: string;
  toolCalls?: { id: string; name: string; args?: unknown }[];
  toolCallId?: string;
  isError?: boolean;
  interrupted?: boolean;
  reason?: Reason;      // marker of an interruption ("Stopped by you")
}

/** How a run ended: what prompt(), continue() and a host run's end() resolve with. */
export interface RunResult {
  /** 'finished': the model gave its final answer; 'failed': see error; 'interrupted': see interruption. */
  outcome: 'finished' | 'failed' | 'interrupted';
  /** The session's status after the run ('idle', 'interrupted'; 'closed' when the engine closed first). */
  status: Status;
  /** The model's final answer ('' when the run did not finish). */
  text: string;
  /** Why the run failed: code is the provider's kind of failure when known ('rate_limited', ...), else 'ERR_RUN_FAILED'; 'ERR_CLOSED' when the engine closed before the run ended. */
  error?: { code: ProviderErrorCode | string; message: string };
  interruption?: Interruption;
  /** Tokens of this run alone. */
  usage: Tokens;
  /** The engine's id of the run. */
  run: number;
}

export interface Decision {
  decision: 'allow' | 'confirm' | 'deny';
  reasons: string[];
}

/**
 * Options of engine.createSession. Keys are camelCase; an unknown key is an
 * error naming the nearest known one.
 */
export interface SessionOptions {
  id?: string;
  /** Working directory for tools (default: the engine's workDir); it must exist. */
  workDir?: string;
  /** Extra variables for the session's commands, as process.env's shape: {NAME: 'value'}. */
  env?: Record<string, string>;
  sandbox?: SandboxPolicy;         // replaces the engine's bash.sandbox for this session
  /**
   * The built-in tools this session offers the model, among the engine's
   * (its `tools`). Default: all of the engine's. Tools registered with
   * registerTool are offered too. Kept in the store: a restored session
   * offers no more than it chose.
   */
  tools?: BuiltinTool[];
  /** Scripted provider turns (tests, demos). */
  script?: ScriptTurn[];
  /** A real model instead of a script. */
  provider?: ProviderConfig;
}

export interface ScriptTurn {
  text?: string;
  /** args are passed to the tool as they are (keys not renamed). */
  toolCalls?: { name: string; args?: unknown }[];
  usage?: Tokens;
  chunkDelayMs?: number;
  hang?: boolean;                  // stall until interrupted
  error?: string;                  // the model call fails with this message
}

/** The tools the engine itself provides. */
export type BuiltinTool = 'ask' | 'bash' | 'sleep' | 'web';

/**
 * new Engine(config). Keys are camelCase; an unknown key is an error naming
 * the nearest known one ("did you mean `workDir`?").
 */
export interface EngineConfig {
  /** The sessions' working directory (default: the process's); it must exist. */
  workDir?: string;
  /**
   * The built-in tools offered to the model. Default: all of them, ['ask',
   * 'bash', 'sleep', 'web']. Tools registered with registerTool are offered too.
   */
  tools?: BuiltinTool[];
  defaultPauseMode?: boolean;
  streamIdleTimeoutMs?: number;
  bash?: {
    timeoutMs?: number;
    graceMs?: number;
    /**
     * The engine tier's policy (docs/policy.md): rules on the parsed command,
     * the strongest tier; a rule may `lock` its decision. The same format as a
     * policy file, checked against its schema; examples are checked when the
     * engine is created.
     */
    policy?: PolicyDocument;
    sandbox?: SandboxPolicy;
    /** Which host variables commands see: all but secret-looking names by default. Patterns: globs, or substrings without `*`. */
    env?: { include?: string[]; exclude?: string[] };
    /** The user's policy file (TOML, see docs/policy.md), read again when it changes; one that does not load refuses every command until fixed. */
    userPolicy?: string;
    /** Use each project's .interlock/policy.toml once trusted (engine.trustProjectPolicy), the trust kept in trustFile. */
    projectPolicy?: { trustFile?: string };
  };
  web?: { searchUrl?: string; autoDevtools?: boolean };
  /** The model of sessions that set neither script nor provider. */
  provider?: ProviderConfig;
  /** Keep sessions in this SQLite file (':memory:' for memory only): they
   *  survive the process. Sessions that were proceeding when the previous
   *  owner died come back interrupted ('server_restart'); a pending question
   *  comes back as needs input. A store another process has open, or that is
   *  corrupt, foreign or newer, throws with code 'ERR_STORE'. */
  store?: string;
  /**
   * Join a fleet: mirror this engine's sessions to a PostgreSQL hub and take
   * the commands addressed to this host (answers, continues, a session's
   * stop, prompts, revokes of remembered approvals, emergency stops:
   * docs/fleet.md).
   * The host only dials out; with the hub unreachable it goes on and
   * resynchronises when it is back. The URL's credentials are never stored.
   */
  hub?: {
    /** The hub's PostgreSQL URL, e.g. `process.env.INTERLOCK_HUB_URL`. */
    url: string;
    /** This host's name in the fleet ('ci-runner-3'): commands are addressed by it. */
    host: string;
    /** How often an idle host says it is alive (default 1000). */
    heartbeatMs?: number;
    /** How many days the hub keeps this host's transitions, audit entries and answered commands (default 30; negative: for ever). */
    retentionDays?: number;
  };
}

/** One decision about a pause, from the store's audit log. */
export interface AuditEntry {
  at: string;
  session: string;
  run: number;
  pause: string;
  /** 'raised', 'answered', 'recovered' (pending when the previous owner stopped),
   *  'granted' (approved by a remembered grant without asking; message is its key),
   *  or 'decided' (by the approver, a policy rule, or a shadow rule's would-have: see DecidedEvent; message is the command). */
  event: 'raised' | 'answered' | 'recovered' | 'granted' | 'decided';
  kind: PauseKind;
  tool: string;
  message: string;
  answer?: string;
  reason?: string;
  /** The client that answered (answeredBy). */
  by?: string;
  remember?: string;
}

/**
 * Every failed call throws (or, for prompt/continue/run, rejects with) an
 * InterlockError with a `code`; its message names the call and the field as
 * you wrote them, what was wrong and what to do. Wrong arguments are also
 * TypeErrors, with `code` 'ERR_INVALID_ARG_TYPE' (wrong type),
 * 'ERR_INVALID_ARG_VALUE' (an unknown or misspelt key, a NUL inside a
 * string, a folder that does not exist) or 'ERR_INVALID_ARG_COUNT'.
 */
export declare class InterlockError extends Error {
  constructor(message: string, code: string);
  code: string;        // 'ERR_UNKNOWN_SESSION', 'ERR_NOT_PAUSED', 'ERR_INVALID_HANDLE', 'ERR_CLOSED', ...
}

/** The `code` of an argument TypeError (see InterlockError). */
export type ArgumentErrorCode = 'ERR_INVALID_ARG_TYPE' | 'ERR_INVALID_ARG_VALUE' | 'ERR_INVALID_ARG_COUNT';

/** What a pause of host work asks (ctx.pause, run.pause). */
export interface HostPauseRequest {
  kind: 'continue' | 'confirm';
  message: string;
  details?: string;
  tool?: string;                   // the name shown ("Bash"); a JS tool's own name by default
  timeoutMs?: number;              // answers timed_out after that long (fails closed)
  /**
   * A confirm's remember key: names exactly what an approval covers
   * ("deploy api to production"). The user may then approve for the session
   * or the project (the TUI's [S] / [P]); a later confirm of the same tool
   * with the same key is approved at once, without a pause (answer
   * `{answer: 'approved', remember, by: 'grant'}`, and a 'granted' event).
   * Session grants never approve another session's pause; project grants
   * hold for the session's project root (its git root, else its directory)
   * and, with a store, after a restart. Without a key nothing is remembered.
   */
  rememberKey?: string;
  /** The scopes offered with rememberKey (default both). */
  rememberScopes?: ('session' | 'project')[];
}

/**
 * run.pause() and a JS tool's ctx.pause() also take the bash gate's confirm
 * of a command: the message defaults to the bash tool's; the details are the
 * command itself and the reasons the gate's (what is approved, and may be
 * remembered, is what is shown); the pause names the JS tool (ctx.pause) or
 * "Bash" (run.pause) unless `tool` is given.
 */
export interface CommandPauseRequest {
  kind: 'confirm';
  command: string;
  message?: string;
  /** The command only: other details reject the pause with ERR_INVALID_ARGUMENT. */
  details?: string;
  tool?: string;
  timeoutMs?: number;
}

/** An approval remembered for confirms of tool with rememberKey key (engine.grants()). */
export interface Grant {
  tool: string;
  key: string;
  scope: 'session' | 'project';
  session?: string;  // scope 'session': whose
  root?: string;     // scope 'project': the project root it holds in
  at: string;        // RFC 3339: when it was given
}

/** The answer to a pause. */
export interface PauseAnswer {
  answer: Answer;
  reason?: string;
  /** The scope the user chose to remember the approval with; a grant's scope when by is 'grant'. */
  remember?: 'once' | 'session' | 'project';
  /** The client that answered; 'grant' when a remembered approval answered without asking. */
  by?: string;
}

/** The second argument of a JS tool's run. */
export interface ToolContext {
  /** Aborted when the run is interrupted (Esc, emergency stop, close). */
  signal: AbortSignal;
  /**
   * A real engine pause: same events, keys and components as any tool's.
   * With `command`, the bash gate's confirm of that command (see HostRun.pause).
   */
  pause(req: HostPauseRequest | CommandPauseRequest): Promise<PauseAnswer>;
  /** Judges a shell command with the session's bash gate (see HostRun.check). */
  check(command: string): Decision;
  /** Streams output (tool_progress events). */
  progress(text: string): void;
  sessionId: string;
  callId: string;
  step: number;
}

/**
 * A tool written in JS. run's result (a string, or any value as JSON) goes
 * to the model; a throw is a tool error the model sees. A run that ignores
 * the signal is cut off graceMs (default 2000) after an interrupt.
 */
export interface JsTool<A = any> {
  description?: string;
  /**
   * JSON Schema of args. The model's arguments are checked against it
   * before run (ajv): arguments that do not match never reach run; the
   * model gets a tool error saying what is wrong.
   */
  parameters?: Record<string, unknown>;
  /**
   * Ask the user before run: the engine's confirm (same keys, components,
   * grants and audit as the bash tool's), showing the arguments. A
   * function decides per call; a throw fails closed (not run). A denial is
   * a tool error the model sees.
   */
  needsApproval?: boolean | ((args: A, ctx: ToolContext) => boolean | Promise<boolean>);
  /**
   * What an approval covers, per call: with it the user may approve for the
   * session or project ([S] / [P]), and later calls with the same key run
   * without asking.
   */
  rememberKey?: (args: A) => string;
  graceMs?: number;
  run(args: A, ctx: ToolContext): unknown | Promise<unknown>;
}

/** A run of the host's own loop (session.begin()). */
export interface HostRun {
  /** Aborted by Esc, interrupt(), emergency stop or close: stop the loop and call end(). */
  signal: AbortSignal;
  /**
   * A step boundary: await it before each model turn and each tool call.
   * signal('pause') takes effect here (status paused, the engine loop's
   * events, Enter/resume releases it); once the run is interrupted it
   * rejects with code ERR_INTERRUPTED (and `reason`). Resolves with the new
   * step index.
   */
  step(): Promise<number>;
  /**
   * A pause. With `command` (kind 'confirm') it is the bash gate's confirm
   * of that command: check()'s reasons are shown and an approval the user
   * remembers ('session' / 'project') is a grant check() and the bash tool
   * honour.
   */
  pause(req: HostPauseRequest | CommandPauseRequest): Promise<PauseAnswer>;
  /**
   * Judges a shell command as the bash tool would in this session: its
   * rules, working directory and remembered grants (a confirm already
   * approved for the session or project is 'allow').
   */
  check(command: string): Decision;
  progress(text: string): void;
  /** Ends the run: nothing = finished, an Error or {error} = failed; after an interrupt it is interrupted. */
  end(result?: Error | { error: string }): RunResult;
}

/** The control-signal events of a session (session.on('onPause', ...)). */
export type SignalEvent = 'onPause' | 'onResume' | 'onCancel' | 'onError';
interface SignalEventBase {
  session: string;
  /** The 0-based index of the step about to run. */
  step: number;
  /** CLOCK_MONOTONIC nanoseconds of the change (see EventBase.monoNs). */
  monoNs: bigint;
}
/** Parked at a step boundary by signal('pause'). */
export interface OnPauseEvent extends SignalEventBase { type: 'onPause'; pause: PauseInfo; }
/** Released from a signal pause (or a pending pause request withdrawn). */
export interface OnResumeEvent extends SignalEventBase { type: 'onResume'; }
/** The run is being interrupted (signal('cancel'), interrupt(), emergency stop, close). */
export interface OnCancelEvent extends SignalEventBase { type: 'onCancel'; reason: Reason; }
/** The run failed. */
export interface OnErrorEvent extends SignalEventBase { type: 'onError'; error: Error; }
export interface SignalEventMap { onPause: OnPauseEvent; onResume: OnResumeEvent; onCancel: OnCancelEvent; onError: OnErrorEvent; }


export declare class Session {
  private constructor();
  readonly id: string;
  /** Sync getters: a direct call into Go, no allocation of snapshots. */
  readonly status: Status;       // 'closed' after close()
  readonly version: number;      // throws ERR_CLOSED after close()
  readonly pauseState: PauseInfo | null;  // null after close()
  readonly runState: RunState;   // 'terminal' after close()
  readonly eligibility: Eligibility;
  snapshot(): SessionSnapshot;
  history(): HistoryMessage[];
  /**
   * Starts a run; resolves with how it ended ({outcome, text, ...}), also when it was
   * interrupted or failed. Rejects only when it cannot start (ERR_RUNNING,
   * ERR_CLOSED, TypeError...). While runs are pending they keep the process
   * alive unless engine.unref() was called.
   */
  prompt(text: string): Promise<RunResult>;
  /**
   * Marks the session proceeding for the host's own agent loop (its own
   * model client and tools): status, pauses, keys, Esc, emergency stop and
   * events work as for the engine's loop. Call end() when the loop is done.
   */
  begin(opts?: { graceMs?: number }): HostRun;
  /** Continue an interrupted run (resumption); ERR_NOT_RESUMABLE with the reason when not eligible. */
  continue(): Promise<RunResult>;
  /**
   * Answers a continue pause: pauseId, or the one the last 'paused' /
   * 'pause_answered' event showed (never a pause raised after it: that
   * throws ERR_UNKNOWN_PAUSE or ERR_NOT_PAUSED; before any such event, the
   * engine's current one).
   */
  resume(pauseId?: string): void;
  /**
   * Answers a confirm pause: options.pauseId, or the one the last event
   * showed, as resume() does (a second confirm(true) never approves the
   * next pause). remember: 'session' / 'project' remembers the approval
   * (see PauseInfo.rememberScopes); reason is recorded with the answer.
   * Every failure throws at once: bad arguments, ERR_CLOSED,
   * ERR_NOT_PAUSED, ERR_UNKNOWN_PAUSE, ERR_WRONG_PAUSE_KIND.
   */
  confirm(approved: boolean, options?: { pauseId?: string; remember?: RememberScope; reason?: string }): void;
  /** Stops the run in flight (reason default 'user_stop'). */
  interrupt(reason?: Reason): void;
  /** The control signals: 'pause' parks at the next step boundary (never cuts a tool), 'resume' releases it, 'cancel' is interrupt('user_stop'). */
  signal(sig: ControlSignal): void;
  /**
   * Judges a shell command as the bash tool would in this session: its
   * rules, working directory, files written and remembered grants.
   */
  check(command: string): Decision;
  on<K extends keyof SessionEventMap>(type: K, fn: (ev: SessionEventMap[K]) => void): this;
  once<K extends keyof SessionEventMap>(type: K, fn: (ev: SessionEventMap[K]) => void): this;
  off<K extends keyof SessionEventMap>(type: K, fn: (ev: SessionEventMap[K]) => void): this;
  removeListener<K extends keyof SessionEventMap>(type: K, fn: (ev: SessionEventMap[K]) => void): this;
  /** Every event from now on: `for await (const ev of session.events())`; ends once the session has closed. */
  events(): AsyncIterableIterator<EngineEvent | SignalEventMap[SignalEvent]>;
  /**
   * Closes the session (idempotent): a run in flight is interrupted
   * (system_stop). Resolves once everything has unwound; never blocks the thread.
   */
  close(): Promise<void>;
  /** Settles once the session is closed and everything unwound (tools dead, 'closed' delivered). Never rejects. */
  readonly closed: Promise<void>;
}

/** 'interrupted': the loop was stopped while the task ran; resuming the loop goes on with it. */
export type TaskStatus = 'pending' | 'running' | 'completed' | 'failed' | 'interrupted';
export interface TaskInfo { index: number; title: string; status: TaskStatus; error?: string; }
export interface TaskLoopState {
  id: string;
  tasks: TaskInfo[];
  current: number;        // index of the running or last-ended task, -1 before start
  pauseMode: boolean;
  paused: boolean;        // waiting for Continue between tasks
  completed: number;
  failed: number;
  done: boolean;
  /** The loop's run was interrupted: continue() (or its session's, or resumeAll) resumes it. Not done. */
  interrupted: boolean;
  version: number;
}
/**
 * 'interrupted': a run of the loop was interrupted (the loop is not done);
 * 'resumed': the loop goes on after a pause between tasks, or (run set) an
 * interrupted loop was resumed.
 */
export type TaskEventType = 'started' | 'task_begin' | 'task_end' | 'failed' | 'completed' | 'interrupted' | 'paused' | 'resumed' | 'pause_mode_changed';
export interface TaskLoopEvent {
  loop: string;
  version: number;
  type: TaskEventType;
  task?: number;
  title?: string;
  message?: string;
  error?: string;
  pauseMode?: boolean;
  at: string;
  session?: string;       // the session the loop runs in
  run?: number;           // completed, interrupted, resumed: the run's id
  state?: TaskLoopState;  // completed, interrupted: the loop's state at the run's end
}
export interface TaskSpec { title: string; prompt: string; script?: ScriptTurn[]; }

/** A task loop's event of one type. */
export type TaskLoopEventOf<K extends TaskEventType> = TaskLoopEvent & { type: K };
/** The listener argument of each task-loop event type; 'event' receives every type. */
export type TaskLoopEventMap = { [K in TaskEventType]: TaskLoopEventOf<K> } & {
  started: TaskLoopEventOf<'started'>;
  task_begin: TaskLoopEventOf<'task_begin'> & { task: number; title: string };
  task_end: TaskLoopEventOf<'task_end'> & { task: number; title: string };
  failed: TaskLoopEventOf<'failed'> & { task: number; error: string };
  completed: TaskLoopEventOf<'completed'> & { run: number; state: TaskLoopState };
  interrupted: TaskLoopEventOf<'interrupted'> & { run: number; state: TaskLoopState };
  pause_mode_changed: TaskLoopEventOf<'pause_mode_changed'> & { pauseMode: boolean };
  event: TaskLoopEvent;
  /** Never emitted; accepted so that events.once and events.on work. */
  error: Error;
};

/** How a run of the loop ended: its state, plus error/code when it did not complete (ERR_INTERRUPTED: `interrupted`, resumable). */
export interface TaskLoopResult extends TaskLoopState {
  error?: string;
  code?: string;
}

export declare class TaskLoop {
  private constructor();
  readonly id: string;
  readonly session: Session;
  state(): TaskLoopState;
  run(): Promise<TaskLoopResult>;
  setPauseMode(on: boolean): void;
  isPauseMode(): boolean;
  /**
   * Goes on. Waiting between tasks: the next task starts (returns
   * undefined). Interrupted: resumes the loop as a new run of its session
   * and returns a promise settled by that run's end (like run()); throws
   * ERR_NOT_RESUMABLE with the reason when it cannot be. Else a no-op.
   */
  continue(): Promise<TaskLoopResult> | undefined;
  continueAll(): void;   // switch to continuous and go
  on<K extends keyof TaskLoopEventMap>(type: K, fn: (ev: TaskLoopEventMap[K]) => void): this;
  once<K extends keyof TaskLoopEventMap>(type: K, fn: (ev: TaskLoopEventMap[K]) => void): this;
  off<K extends keyof TaskLoopEventMap>(type: K, fn: (ev: TaskLoopEventMap[K]) => void): this;
  removeListener<K extends keyof TaskLoopEventMap>(type: K, fn: (ev: TaskLoopEventMap[K]) => void): this;
  /** Every event of the loop from now on, for `for await`; ends once the loop has closed. */
  events(): AsyncIterableIterator<TaskLoopEvent>;
  /** Stops and closes the loop; resolves once it has unwound. Its session stays open: close it too. Idempotent. */
  close(): Promise<void>;
  /** Settles once the loop is closed and has unwound. Never rejects. */
  readonly closed: Promise<void>;
}

export interface EngineStats {
  /** Go heap in use, bytes (garbage not yet collected included). */
  heapBytes: number;
  /** Go heap the last garbage collection found live, bytes. */
  liveHeapBytes: number;
  /** Goroutine stacks, bytes. */
  stackBytes: number;
  /** Goroutines of the library. */
  goroutines: number;
  /** Open sessions by status (every status present). */
  sessions: Record<Status, number>;
  /** Events queued for JS, not yet delivered. */
  eventsQueued: number;
  /** Text/progress deltas merged into a later one because JS had not taken them yet (text kept). */
  eventsCoalesced: number;
  /** Event batches the addon dropped (process-wide): only out of memory or at environment teardown. */
  eventsDropped: number;
}

export declare class Engine {
  /** Unknown or misspelt keys, wrong types and a workDir that does not exist throw (ERR_INVALID_ARG_*). */
  constructor(config?: EngineConfig);
  createSession(opts?: SessionOptions): Session;
  /** An open session created through this engine (ERR_UNKNOWN_SESSION otherwise). */
  session(id: string): Session;
  sessions(): SessionSnapshot[];
  /** What the engine runs with: tools, and the sandbox in force for their commands. */
  info(): EngineInfo;
  createTaskLoop(opts: { tasks: TaskSpec[]; pauseMode?: boolean }): TaskLoop;
  /**
   * The open task loops: those created and, after a restart with a store,
   * those it brought back (a loop of prompt tasks, with its session), oldest first.
   */
  taskLoops(): TaskLoop[];
  /** Registers (or replaces) a tool written in JS, described to the model with its schema; A types its args. */
  registerTool<A = any>(name: string, tool: JsTool<A>): this;
  /**
   * The approver: asked before a person about each command the gate would
   * ask about (a CI bot, a chat bridge, a model reviewer). 'allow' runs it,
   * 'deny' refuses it ("Command denied by the approver"), 'ask' puts it to
   * the person; a throw, another answer or no answer within
   * `opts.timeoutMs` (default 10000) asks the person, saying why. Decisions
   * are 'decided' events (by: 'approver') and in the audit log. null
   * removes it.
   */
  /** Trusts the policy file of the project dir is in, bound to its content (a change untrusts it). Needs bash.projectPolicy. */
  trustProjectPolicy(dir: string, opts?: { sha256?: string }): { path: string; sha256: string };
  /** What to show before trusting the project's policy file: null when there is none. */
  reviewProjectPolicy(dir: string): ProjectPolicyReview | null;
  setApprover(approver: ((request: ApprovalRequest) => Approval | Promise<Approval>) | null, opts?: { timeoutMs?: number }): this;
  /** Runtime statistics (see EngineStats). */
  stats(): EngineStats;
  /** Stops every proceeding session and task loop running a task (reason
   *  emergency_stop): one running a call or streaming the model is proceeding
   *  even while another call waits at a question (that pause is answered
   *  interrupted). Returns once the cut commands' process trees are gone.
   *  Idle sessions and those only waiting for an answer are untouched. Idempotent. */
  emergencyStop(): StopReport;
  /** Continues every eligible session, or with ids those of them alone (what
   *  a confirmation listed, never one that became eligible since; [] resumes
   *  none); never starts a second run of one. */
  resumeAll(ids?: readonly string[]): ResumeReport;
  counts(): Counts;
  /** The store's audit log of pause decisions (one session's, or all), oldest first. */
  auditLog(session?: string): AuditEntry[];
  /**
   * The approvals remembered so as not to ask again: those of confirms
   * with a rememberKey and the bash tool's (tool 'bash', key the command as
   * judged, e.g. "rm -rf /home/me/app/build (in /home/me/app)"); every
   * session's own, then the project grants. Take one back with revokeGrant
   * (a bash project grant is taken back in every project).
   */
  grants(): Grant[];
  /**
   * Forgets a remembered approval, given as grants() lists it: the next such
   * confirm asks again. ERR_INVALID_ARGUMENT when nothing so is remembered.
   */
  revokeGrant(grant: Pick<Grant, 'scope' | 'tool' | 'key'> & Partial<Pick<Grant, 'session' | 'root'>>): void;
  /** SQLite's integrity check of the store: 'ok' when sound. Throws without a store. */
  checkStore(): string;
  serve(opts?: ServeOptions): WebUI;
  /** Every session's events, in engine order. Nothing is dropped: only text
   *  and tool_progress deltas that JS had not taken yet are merged (see
   *  TextEvent.coalesced). And the engine's own: grants_changed. */
  on<K extends keyof EngineEventMap>(type: K, fn: (ev: EngineEventMap[K]) => void): this;
  once<K extends keyof EngineEventMap>(type: K, fn: (ev: EngineEventMap[K]) => void): this;
  off<K extends keyof EngineEventMap>(type: K, fn: (ev: EngineEventMap[K]) => void): this;
  removeListener<K extends keyof EngineEventMap>(type: K, fn: (ev: EngineEventMap[K]) => void): this;
  /** Every event of every session from now on: `for await (const ev of engine.events())`; ends once the engine has closed. */
  events(): AsyncIterableIterator<EngineEvent>;
  /**
   * By default only pending runs (prompt, continue, task-loop run) keep the
   * process alive: an engine with nothing running lets Node exit. ref()
   * keeps it alive until close() (e.g. to wait for events of an idle
   * session); unref() never keeps it alive, not even for pending runs.
   */
  ref(): this;
  unref(): this;
  /**
   * Closes task loops and sessions (interrupting runs) and the engine:
   * `await engine.close()`. It never blocks the JS thread, even while a tool
   * takes the kill grace to die; the promise resolves once everything has
   * unwound and the last event was delivered. Idempotent. Engines still
   * open at process exit are closed then, and closes in progress are waited for.
   */
  close(): Promise<void>;
  /** Settles once every session and tool has unwound and the last event was delivered. Never rejects. */
  readonly closed: Promise<void>;
}

export declare const version: string;

/** Test and diagnostics hooks; not part of the stable API. */
export declare const internals: {
  /** ORs SA_ONSTACK into every installed signal handler; returns how many changed. */
  fixSignals(): number;
  signalReport(): { signal: number; onstack: boolean }[];
  /** Live native event sinks (one per open engine), event copies not yet
   *  freed, and the library's open handles (engines, sessions, task loops:
   *  0 once every engine was closed). */
  counters(): { sinks: number; queuedEvents: number; openHandles: number; droppedBatches: number };
  openEngines(): number;
};
