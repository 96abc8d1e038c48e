// The native addon, loaded once per process, with its error class set.

import { loadAddon } from '../load.js';
import { NativeError } from './native-errors.js';

/** The addon (node/native.d.ts). */
export const native = loadAddon();
native.init(NativeError);
