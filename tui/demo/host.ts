// The demo's host modes (--host js-tool | loop): the two ways an app's own
// code runs under Interlock's control besides the engine's Go tools.
//  - js-tool: a tool written in JS ("deploy") that asks before it acts with
//    ctx.pause(), answered with the same keys as any tool's pause; its
//    rememberKey lets the user approve it for the session ([S]) or the
//    project ([P]), and then it is not asked again.
//  - loop: the demo's own agent loop drives the session through
//    session.begin(): status, Esc, emergency stop and pause signals reach it.

import type { Engine, RunResult, ScriptTurn, Session } from '../../node/index.js';

export const HOST_MODES = ['js-tool', 'loop'] as const;
export type HostMode = (typeof HOST_MODES)[number];

/** registerDeployTool adds the "deploy" tool, written in JS, to engine. */
export function registerDeployTool(engine: Engine): void {
  engine.registerTool('deploy', {
    description: 'Deploy build 42 to an environment',
    parameters: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'] },
    run: async (args: { target: string }, ctx) => {
      ctx.progress(`packaging build 42 for ${args.target}\n`);
      const what = `deploy build 42 to ${args.target}`;
      const a = await ctx.pause({ kind: 'confirm', message: `Deploy to ${args.target}?`, details: what, rememberKey: what });
      if (a.answer !== 'approved') return `not deployed: ${a.answer}${a.reason ? `: ${a.reason}` : ''}`;
      ctx.progress(`uploading to ${args.target}\n`);
      return `deployed build 42 to ${args.target}`;
    },
  });
}

/** The chat script of --host js-tool: the model calls the JS tool. */
export const DEPLOY_SCRIPT: ScriptTurn[] = [
  { text: 'I will deploy the build with the deploy tool.', toolCalls: [{ name: 'deploy', args: { target: 'staging' } }] },
  { text: 'Deployment finished.' },
];

/** Resolves after ms, or at once when signal aborts; never keeps Node alive by itself. */
function wait(signal: AbortSignal, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/**
 * hostLoop is the demo's own agent loop: a step that plans, then a long
 * step (10 minutes) that only an interrupt ends. Its grace is long, so the
 * session turns interrupted only when the loop itself saw run.signal abort
 * and called run.end(). say writes to the app's transcript.
 */
export async function hostLoop(session: Session, say: (text: string) => void): Promise<RunResult> {
  const run = session.begin({ graceMs: 600_000 });
  try {
    await run.step();
    say('host loop: planning');
    await run.step();
    say('host loop: working for 10 minutes');
    await wait(run.signal, 600_000);
  } catch (err) {
    if (!run.signal.aborted) return run.end(err as Error);
  }
  if (run.signal.aborted) say(`host loop: signal aborted (${String((run.signal.reason as Error)?.message ?? run.signal.reason)}), ending the run`);
  return run.end();
}
