// The text shown for each interruption reason: the engine's table
// (il_reason_labels), read once from the addon. No copy lives here.

import { native } from './lib/native.js';

const table = JSON.parse(native.reasonLabels());

/** The label of each interruption reason. */
export const REASON_LABELS = Object.freeze(table.labels);

/** The label of an interruption reason (the engine's label of an unknown one: "Interrupted"). */
export function reasonLabel(reason) {
  return Object.hasOwn(REASON_LABELS, reason) ? REASON_LABELS[reason] : table.unknown;
}
