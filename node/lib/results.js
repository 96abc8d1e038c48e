// What prompt(), continue() and a host run's end() resolve with: how the
// run ended, in one shape.

/**
 * The RunResult of the engine's result `res` of a run, whose terminal event
 * was of type `type` (or, without one, as res says): {outcome, status,
 * text, error?, interruption?, usage, run}. A failed run is 'failed' with
 * its error: never an idle run that looks fine.
 */
export function runResult(type, res) {
  const outcome = type === 'interrupted' || (type === undefined && res.interruption !== undefined)
    ? 'interrupted'
    : type === 'run_failed' || (type === undefined && res.error !== undefined) ? 'failed' : 'finished';
  const out = { outcome, status: res.status, text: res.text ?? '', usage: res.usage ?? { input: 0, output: 0 }, run: res.run };
  if (outcome === 'failed') out.error = { code: res.errorCode || 'ERR_RUN_FAILED', message: res.error ?? 'the run failed' };
  if (res.interruption !== undefined) out.interruption = res.interruption;
  return out;
}
