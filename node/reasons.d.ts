import type { Reason } from './index.js';

/** The label of each interruption reason: the engine's table. */
export declare const REASON_LABELS: Readonly<Record<Reason, string>>;
/** The label of an interruption reason ("Interrupted" for an unknown one). */
export declare function reasonLabel(reason: string): string;
