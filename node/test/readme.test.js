// The README's code snippets are the examples, copied: every js/tsx block of
// the README's Node and Ink sections is the whole of an example file (the
// examples are type-checked and run from the tarball by pack.test.js).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { packageRoot } from '../load.js';

const readme = readFileSync(path.join(packageRoot, 'README.md'), 'utf8');

test('README snippets are the example files', () => {
  for (const [lang, file] of [['js', 'examples/host-loop/main.js'], ['js', 'examples/node-esm/main.js'], ['tsx', 'examples/ink-app/app.tsx']]) {
    const example = readFileSync(path.join(packageRoot, file), 'utf8');
    assert.ok(readme.includes('```' + lang + '\n' + example + '```'), `README lacks ${file} verbatim`);
  }
});

test('no README snippet deletes outside a temporary directory it made', () => {
  for (const [, body] of readme.matchAll(/```(?:js|tsx|ts)\n([\s\S]*?)```/g)) {
    if (!/rm -rf|rmSync/.test(body)) continue;
    assert.match(body, /mkdtempSync\(path\.join\(tmpdir\(\)/, 'a snippet that deletes must work in its own temp dir');
    assert.match(body, /workDir/, 'and give the engine that dir');
  }
});
