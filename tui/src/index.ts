// Interlock's Ink components: render an engine session's state and send what
// the user pressed. Import from "agent-interlock/tui".

export {
  colorsWanted,
  noColorTheme,
  theme,
  themeFor,
  ThemeProvider,
  useTheme,
  type Theme,
  type ThemeColor,
} from './theme.js';
export type {
  InterruptionView,
  PauseDecision,
  PauseView,
  RememberChoice,
  CountsView,
  EngineLike,
  EngineState,
  RunState,
  SessionRow,
  SessionLike,
  SessionState,
  StoppingView,
  TaskLoopLike,
} from './types.js';

export {
  createVersionedStore,
  createStoreRegistry,
  type ExternalStore,
  type StoreRegistry,
  type VersionedSource,
  type VersionedStore,
  type VersionedStoreOptions,
} from './store/versionedStore.js';
export {
  createSessionStore,
  resetSessionStores,
  sessionStore,
  toPauseView,
  toSessionState,
  type SessionStore,
} from './store/sessionStore.js';
export {
  createTaskLoopStore,
  resetTaskLoopStores,
  taskLoopStore,
  type TaskLoopStore,
} from './store/taskLoopStore.js';

export { createEngineStore, toSessionRow, type EngineStore } from './store/engineStore.js';
export { answerPause } from './answer.js';
export { REASON_LABELS, reasonLabel, RUN_STATE_BADGES } from './labels.js';
export { printable } from './printable.js';
export { useEngineState } from './hooks/useEngineState.js';

export { useSessionState } from './hooks/useSessionState.js';
export { useTaskLoopState } from './hooks/useTaskLoopState.js';
export { useKeys, type UseKeysOptions } from './hooks/useKeys.js';
export { useQuietGate, type QuietGateOptions, type QuietGateState } from './hooks/useQuietGate.js';
export { isBurst, KeyReader, readKeys, type Key, type KeyName } from './input/keys.js';
export { DEFAULT_HOLD_MS, DEFAULT_SETTLE_MS, monotonicNow, QuietGate, type KeyRead } from './input/quiet.js';

export { ContinueBar, REPEATS_SIDE_EFFECT_HINT, type ContinueBarProps } from './components/ContinueBar.js';
export { GlobalControls, type GlobalControlsProps } from './components/GlobalControls.js';
export { GRANTS_HINT, GRANTS_IGNORED_HINT, GrantsView, type GrantsViewProps } from './components/GrantsView.js';
export { ResumeAllConfirm, type ResumeAllConfirmProps } from './components/ResumeAllConfirm.js';
export { SESSIONS_HINT, SessionsView, type SessionsViewProps } from './components/SessionsView.js';
export { InputTransition, stoppingText, type InputTransitionProps } from './components/InputTransition.js';
export { IGNORED_HINT, PauseIndicator, type PauseIndicatorProps } from './components/PauseIndicator.js';
export { LOOP_IGNORED_HINT, TaskProgress, type TaskProgressProps } from './components/TaskProgress.js';
export { PROMPT_IGNORED_HINT, TextInput, type TextInputProps } from './components/TextInput.js';
export {
  SPINNER_FRAMES,
  ThinkingIndicator,
  type ThinkingIndicatorProps,
} from './components/ThinkingIndicator.js';
