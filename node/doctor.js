#!/usr/bin/env node
// `make doctor` / `node node/doctor.js`: what confines the bash tool's
// commands on this machine, one line each, and what to do about anything
// missing. Exits 1 when the sandbox is degraded.
import { Engine } from './index.js';

const engine = new Engine();
try {
  const { sandbox } = engine.info();
  let degraded = false;
  for (const s of sandbox) {
    console.log(`${s.tool}: sandbox mode ${s.mode}`);
    console.log(`  filesystem: ${s.filesystem}`);
    console.log(`  signals:    ${s.signals}`);
    console.log(`  network:    ${s.network}`);
    console.log(`  tree:       ${s.tree}`);
    for (const w of s.warnings ?? []) console.log(`  warning: ${w}`);
    console.log(s.degraded ? '  => degraded: see the warnings' : '  => everything in force');
    degraded ||= s.degraded;
  }
  process.exitCode = degraded ? 1 : 0;
} finally {
  engine.close();
}
