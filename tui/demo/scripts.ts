// The scripted model turns the demo plays (every prompt replays them).

import type { ScriptTurn, TaskSpec } from '../../node/index.js';

const STREAM = { chunkDelayMs: 40 };

/** chatScript: stream text, a safe streaming command, a dangerous one (twice), a paused page, a long tool. */
export function chatScript(pageUrl: string): ScriptTurn[] {
  return [
    {
      ...STREAM,
      text: 'Hello! I will start with a safe command whose output streams.',
      toolCalls: [{ name: 'bash', args: { command: 'for i in 1 2 3 4 5; do echo "step $i of 5"; sleep 0.3; done' } }],
      usage: { input: 12, output: 14 },
    },
    {
      ...STREAM,
      text: 'Now I will clean up the scratch directory. That needs your approval.',
      toolCalls: [{ name: 'bash', args: { command: 'rm -rf ./demo-scratch' } }],
      usage: { input: 30, output: 16 },
    },
    {
      ...STREAM,
      text: 'Let me ask once more: approve with Y or deny with N.',
      toolCalls: [{ name: 'bash', args: { command: 'rm -rf ./demo-scratch && echo "removed demo-scratch"' } }],
      usage: { input: 44, output: 14 },
    },
    {
      ...STREAM,
      text: 'Next I will open a page and pause so you can inspect it.',
      toolCalls: [{ name: 'web', args: { type: 'open_page', url: pageUrl, pause: true } }],
      usage: { input: 60, output: 15 },
    },
    {
      ...STREAM,
      text: 'Finally a long job (10 minutes). Press Esc to stop it.',
      toolCalls: [{ name: 'sleep', args: { ms: 600_000 } }],
      usage: { input: 80, output: 14 },
    },
    { ...STREAM, text: 'All done.', usage: { input: 90, output: 3 } },
  ];
}

function bashTask(title: string, command: string, summary: string): TaskSpec {
  return {
    title,
    prompt: title,
    script: [
      { ...STREAM, text: `Task: ${title}.`, toolCalls: [{ name: 'bash', args: { command } }] },
      { ...STREAM, text: summary },
    ],
  };
}

/** demoTasks: four tasks; the third fails (exit 3). */
export function demoTasks(): TaskSpec[] {
  return [
    bashTask('Write the scratch notes', 'mkdir -p demo-scratch && echo hello > demo-scratch/notes.txt && echo "wrote notes"', 'Notes written.'),
    bashTask('Count to three', 'for i in 1 2 3; do echo "count $i"; sleep 0.3; done', 'Counted.'),
    bashTask('Run the checks', 'echo "checking..."; exit 3', 'The checks failed.'),
    { title: 'Summarize', prompt: 'Summarize', script: [{ ...STREAM, text: 'Summary: three tasks ran before this one; one failed.' }] },
  ];
}

/** The sessions demo: three agents at once, one of them long. */
export function sessionsScripts(): { id: string; prompt: string; script: ScriptTurn[] }[] {
  return [
    {
      id: 'research',
      prompt: 'read everything',
      script: [
        { ...STREAM, text: 'Reading for a long time (10 minutes).', toolCalls: [{ name: 'sleep', args: { ms: 600_000 } }] },
        // Every Continue resumes into the next turn: a few more long reads.
        ...[1, 2, 3, 4].map((n) => ({ ...STREAM, text: `Resumed (${n}): reading again.`, toolCalls: [{ name: 'sleep', args: { ms: 600_000 } }] })),
        { ...STREAM, text: 'Research done.' },
      ],
    },
    {
      id: 'build',
      prompt: 'build it',
      script: [
        // A sleep, not a command: stopping a command with side effects makes Continue ask first.
        { ...STREAM, text: 'Building and testing (5 minutes).', toolCalls: [{ name: 'sleep', args: { ms: 300_000 } }] },
        { ...STREAM, text: 'Tests again after the stop.', toolCalls: [{ name: 'sleep', args: { ms: 300_000 } }] },
        { ...STREAM, text: 'Build done.' },
      ],
    },
    {
      id: 'cleanup',
      prompt: 'clean up',
      script: [
        { ...STREAM, text: 'Removing the scratch directory needs your approval.', toolCalls: [{ name: 'bash', args: { command: 'rm -rf ./demo-scratch' } }] },
        { ...STREAM, text: 'Cleanup done.' },
      ],
    },
  ];
}

/**
 * Short scripts for trying one control at a time (and for the terminal
 * tests, which repeat it many times): every prompt plays the script again.
 *
 *   confirm   streams a sentence, then a dangerous command asks to confirm
 *   continue  streams a sentence, then a tool asks to continue
 *   long      a bash command that runs for 10 minutes (Esc stops it)
 */
export const SHORT_SCRIPTS: Record<string, ScriptTurn[]> = {
  confirm: [
    { ...STREAM, text: 'I will clean up the scratch directory.', toolCalls: [{ name: 'bash', args: { command: 'rm -rf ./demo-scratch' } }] },
    { text: 'Done.' },
  ],
  continue: [
    { ...STREAM, text: 'Have a look before I go on.', toolCalls: [{ name: 'ask', args: { kind: 'continue', message: 'Look at the scratch directory' } }] },
    { text: 'Done.' },
  ],
  long: [
    { toolCalls: [{ name: 'bash', args: { command: 'echo "working for 10 minutes"; sleep 600' } }] },
    { text: 'Done.' },
  ],
};

/** quickTasks: n tasks that each stream one sentence (pause-mode trials between tasks). */
export function quickTasks(n: number): TaskSpec[] {
  return Array.from({ length: n }, (_, i) => ({
    title: `Quick task ${i + 1}`,
    prompt: `Quick task ${i + 1}`,
    script: [{ ...STREAM, text: `Quick task ${i + 1} is done.` }],
  }));
}
