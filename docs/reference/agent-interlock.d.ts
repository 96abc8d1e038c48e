/**
 * The engine from JavaScript: `Engine`, `Session`, `TaskLoop`, their events and errors.
 *
 * ```js
 * import { Engine } from 'agent-interlock';
 * ```
 * @module agent-interlock
 */
export * from 'agent-interlock';
