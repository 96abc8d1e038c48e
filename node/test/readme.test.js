// Every code snippet of the README and of docs/*.md works as written:
//   - a js block is run with node (`js no-run`: one that serves until stopped
//     is type-checked only), with `agent-interlock` resolved to this package;
//   - every js, ts and tsx block is type-checked with tsc --strict;
//   - a block that is a whole example file is left to pack.test.js, which
//     runs the examples from the packed tarball;
//   - a go block is an Example function (or a part of one) of the engine's
//     tests, copied: `go test` runs those.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';

import { packageRoot } from '../load.js';

const docFiles = ['README.md', ...readdirSync(path.join(packageRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/**
 * The fenced code blocks of a Markdown file: {file, line, lang, flags, body,
 * example}; example is the file a block says it is ("This is
 * `examples/...`" in the prose just before it).
 */
function blocks(file) {
  const text = readFileSync(path.join(packageRoot, file), 'utf8');
  const out = [];
  const fence = /^```(\S*)([^\n]*)\n([\s\S]*?)^```$/gm;
  let proseFrom = 0;
  for (const m of text.matchAll(fence)) {
    const prose = text.slice(proseFrom, m.index);
    proseFrom = m.index + m[0].length;
    const example = /This is `(examples\/[^`]+)`/.exec(prose)?.[1];
    out.push({ file, line: text.slice(0, m.index).split('\n').length, lang: m[1], flags: m[2].trim().split(/\s+/).filter(Boolean), body: m[3], example });
  }
  return out;
}

const all = docFiles.flatMap(blocks);
const exampleFiles = ['host-loop/main.js', 'node-esm/main.js', 'ink-app/app.tsx', 'js-tool/main.js', 'typescript/main.ts', 'openai-provider/main.js']
  .map((f) => readFileSync(path.join(packageRoot, 'examples', f), 'utf8'));
const isExample = (b) => exampleFiles.includes(b.body);
const code = all.filter((b) => ['js', 'ts', 'tsx'].includes(b.lang) && !isExample(b));
const where = (b) => `${b.file}:${b.line}`;

test('a snippet that says it is an example file is that file, verbatim', () => {
  const claimed = all.filter((b) => b.example);
  assert.ok(claimed.length >= 4, 'the guides show the examples');
  for (const b of claimed) {
    const file = path.join(packageRoot, b.example);
    assert.ok(existsSync(file), `${where(b)}: ${b.example} does not exist`);
    assert.equal(b.body, readFileSync(file, 'utf8'), `${where(b)}: the block differs from ${b.example}: copy the file again`);
  }
});

test('every snippet names a language the test knows', () => {
  const known = new Set(['js', 'ts', 'tsx', 'go', 'sh', 'text', 'json', 'toml']); // toml: loaded by engine/policy's TestDocsPolicyFilesLoad
  for (const b of all) assert.ok(known.has(b.lang), `${where(b)}: a block of "${b.lang || 'no language'}": name one of ${[...known].join(', ')}`);
});

test('every relative link and picture of the README and docs leads to a file', () => {
  for (const file of docFiles) {
    const text = readFileSync(path.join(packageRoot, file), 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(https?:|mailto:|#)/.test(target)) continue;
      const to = path.join(packageRoot, path.dirname(file), target.replace(/#.*$/, ''));
      assert.ok(existsSync(to), `${file}: the link ${target} leads nowhere`);
    }
  }
});

test('the README stays an entry: at most 200 lines', () => {
  const lines = readFileSync(path.join(packageRoot, 'README.md'), 'utf8').split('\n').length;
  assert.ok(lines <= 200, `README.md has ${lines} lines: move the details to docs/`);
});

test('no snippet deletes outside a temporary directory it made', () => {
  for (const b of code) {
    if (!/rm -rf|rmSync/.test(b.body)) continue;
    assert.match(b.body, /mkdtempSync\(path\.join\(tmpdir\(\)/, `${where(b)}: a snippet that deletes must work in its own temp dir`);
    // A command the engine runs for the agent runs in the engine's directory.
    if (/rm -rf/.test(b.body)) assert.match(b.body, /workDir|dir:/, `${where(b)}: and give the engine that dir`);
  }
});

test('every go snippet is copied from an Example of the engine\'s tests', () => {
  const tests = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('_test.go')) tests.push(readFileSync(p, 'utf8'));
    }
  };
  walk(path.join(packageRoot, 'engine'));
  for (const b of all.filter((x) => x.lang === 'go')) {
    assert.ok(tests.some((t) => t.includes(b.body) && /func Example/.test(t)), `${where(b)}: the go snippet is not in an Example of engine/**/*_test.go`);
  }
});

describe('js, ts and tsx snippets', () => {
  // Inside the package, so that `agent-interlock` is the package itself
  // (self-reference through its exports) and ink, react and the types come
  // from its node_modules.
  const cacheDir = path.join(packageRoot, '.cache');
  mkdirSync(cacheDir, { recursive: true });
  const dir = mkdtempSync(path.join(cacheDir, 'docs-snippets-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const files = code.map((b, i) => {
    const name = `${b.file.replace(/\W/g, '_')}_${b.line}.${b.lang === 'js' ? 'js' : b.lang}`;
    writeFileSync(path.join(dir, name), `// ${where(b)}\n${b.body}`);
    return { ...b, name, i };
  });

  test('type-check with tsc --strict', () => {
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', jsx: 'react-jsx',
        strict: true, skipLibCheck: true, allowJs: true, checkJs: true, noEmit: true, types: ['node'],
      },
      include: files.map((f) => f.name),
    }));
    const tsc = path.join(packageRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
    // Name each snippet by its Markdown file and line, not the temp file
    // (line 1 of the temp file is the comment naming it).
    let out = r.stdout + r.stderr;
    for (const f of files) {
      out = out.replace(new RegExp(`\\S*${f.name.replace(/\./g, '\\.')}\\((\\d+),(\\d+)\\)`, 'g'),
        (_, l, c) => `${f.file}:${f.line + Number(l) - 1}:${c}`);
    }
    assert.equal(r.status, 0, `tsc --strict failed on snippets:\n${out}`);
  });

  for (const f of files.filter((x) => x.lang === 'js' && !x.flags.includes('no-run'))) {
    test(`run ${where(f)}`, () => {
      const r = spawnSync(process.execPath, [f.name], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 0, `${where(f)} failed (exit ${r.status}, signal ${r.signal}):\n${r.stdout}\n${r.stderr}`);
    });
  }
});
