// Interlock's Ink components: render an engine session's state and send what
// the user pressed. Import from "agent-interlock/tui". The components own
// their keys (and turn the terminal's bracketed paste on while they do); the
// hooks read the engine's state; the theme colours them.

export {
  noColorTheme,
  theme,
  ThemeProvider,
  useTheme,
  type Theme,
  type ThemeColor,
} from './theme.js';
export type {
  CountsView,
  EngineLike,
  EngineState,
  InterruptionView,
  PauseDecision,
  RememberChoice,
  SessionLike,
  SessionRow,
  SessionState,
  StoppingView,
  TaskLoopLike,
} from './types.js';

export { useEngineState } from './hooks/useEngineState.js';
export { useSessionState } from './hooks/useSessionState.js';
export { useTaskLoopState } from './hooks/useTaskLoopState.js';
export type { QuietGateOptions } from './hooks/useQuietGate.js';
export type { VersionedStoreOptions } from './store/versionedStore.js';
export { answerPause } from './answer.js';
export { printable } from './printable.js';

export { ContinueBar, type ContinueBarProps } from './components/ContinueBar.js';
export { GlobalControls, type GlobalControlsProps } from './components/GlobalControls.js';
export { GrantsView, type GrantsViewProps } from './components/GrantsView.js';
export { InputTransition, type InputTransitionProps } from './components/InputTransition.js';
export { PauseIndicator, type PauseIndicatorProps } from './components/PauseIndicator.js';
export { PolicyTrust, type PolicyTrustProps } from './components/PolicyTrust.js';
export { ResumeAllConfirm, type ResumeAllConfirmProps } from './components/ResumeAllConfirm.js';
export { SessionsView, type SessionsViewProps } from './components/SessionsView.js';
export { TaskProgress, type TaskProgressProps } from './components/TaskProgress.js';
export { TextInput, type TextInputProps } from './components/TextInput.js';
export { ThinkingIndicator, type ThinkingIndicatorProps } from './components/ThinkingIndicator.js';
