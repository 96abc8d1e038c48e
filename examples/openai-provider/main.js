// A real model: any OpenAI-compatible Chat Completions server (OpenAI,
// Ollama, vLLM, llama.cpp, LM Studio, OpenRouter). Set BASE_URL and MODEL
// (and API_KEY_ENV, the name of the variable holding your key); the default
// is a local Ollama. The model gets the bash tool; a dangerous command asks
// first. Everything happens inside a temporary directory.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Engine } from 'agent-interlock';

const workDir = mkdtempSync(path.join(tmpdir(), 'interlock-example-'));
mkdirSync(path.join(workDir, 'build'));

const engine = new Engine({ workDir });
const session = engine.createSession({
  provider: {
    type: 'openai',
    baseUrl: process.env.BASE_URL ?? 'http://127.0.0.1:11434/v1',
    model: process.env.MODEL ?? 'qwen2.5',
    apiKeyEnv: process.env.API_KEY_ENV, // e.g. 'OPENAI_API_KEY': read at each request, never stored
  },
});
session.on('text', (ev) => process.stdout.write(ev.text));
session.on('paused', (ev) => {
  console.log(`\n${ev.pause.message}: ${ev.pause.details}`);
  session.confirm(true); // or session.confirm(false, { reason: 'not now' }), or session.interrupt()
});
session.on('run_failed', (ev) => console.log(`\nmodel failed (${ev.code}): ${ev.text}`));
const result = await session.prompt('Remove the build directory in the current directory.');
console.log(`\nrun ended: ${result.outcome}${result.error ? ` (${result.error.code}: ${result.error.message})` : ''}, tokens ${JSON.stringify(result.usage)}`);
if (result.outcome === 'failed') process.exitCode = 1;
await engine.close();
rmSync(workDir, { recursive: true, force: true });
