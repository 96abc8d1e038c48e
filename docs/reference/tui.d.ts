/**
 * Ink components and hooks that render a session and send what the user pressed.
 *
 * ```js
 * import { InputTransition } from 'agent-interlock/tui';
 * ```
 * @module agent-interlock/tui
 */
export * from 'agent-interlock/tui';
