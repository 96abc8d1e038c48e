// Interlock's Ink components: render an engine session's state and send what
// the user pressed. Import from "interlock/tui".

export { theme, type ThemeColor } from './theme.js';
export type {
  InterruptionView,
  PauseDecision,
  PauseView,
  SessionLike,
  SessionState,
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

export { answerPause } from './answer.js';

export { useSessionState } from './hooks/useSessionState.js';
export { useTaskLoopState } from './hooks/useTaskLoopState.js';
export { DEFAULT_SETTLE_MS, useSettleGuard } from './hooks/useSettleGuard.js';

export { InputTransition, type InputTransitionProps } from './components/InputTransition.js';
export { PauseIndicator, type PauseIndicatorProps } from './components/PauseIndicator.js';
export { TaskProgress, type TaskProgressProps } from './components/TaskProgress.js';
export { TextInput, type TextInputProps } from './components/TextInput.js';
export {
  SPINNER_FRAMES,
  ThinkingIndicator,
  type ThinkingIndicatorProps,
} from './components/ThinkingIndicator.js';
