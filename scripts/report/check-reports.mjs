// Checks the reports of mcpv test as CI systems read them:
//
//   node check-reports.mjs junit REPORT.xml   validates against junit.xsd (xmllint, WebAssembly)
//   node check-reports.mjs tap REPORT.tap     parses with tap-parser; prints its summary as JSON
//
// Exit status 0 when the report is valid, 1 when not (with the reasons on
// stderr), 2 on a usage mistake.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
// The script runs from its copy beside the installed packages, outside the
// repository.
const require = createRequire(import.meta.url);
const [kind, file] = process.argv.slice(2);
if (!kind || !file) {
  console.error('usage: node check-reports.mjs junit|tap REPORT');
  process.exit(2);
}
const text = readFileSync(file, 'utf8');

if (kind === 'junit') {
  const { validateXML } = require('xmllint-wasm');
  const result = await validateXML({
    xml: [{ fileName: 'report.xml', contents: text }],
    schema: [readFileSync(join(here, 'junit.xsd'), 'utf8')],
  });
  if (!result.valid) {
    for (const e of result.errors) console.error(e.rawMessage ?? e.message ?? String(e));
    process.exit(1);
  }
  console.log(JSON.stringify({ valid: true }));
} else if (kind === 'tap') {
  const { Parser } = require('tap-parser');
  const failures = [];
  const p = new Parser({ strict: true });
  const done = new Promise((resolve) => p.on('complete', resolve));
  p.on('extra', (line) => failures.push(`not TAP: ${JSON.stringify(line)}`));
  p.on('bailout', (reason) => failures.push(`bail out: ${reason}`));
  p.on('assert', (a) => {
    if (!a.ok && !a.diag) failures.push(`test point ${a.id} failed without diagnostics`);
  });
  // Each file's steps are a subtest: count them as a CI system shows them.
  const steps = { pass: 0, fail: 0, skip: 0 };
  p.on('child', (child) => {
    child.on('assert', (a) => {
      if (a.skip) steps.skip++;
      else if (a.ok) steps.pass++;
      else steps.fail++;
      if (!a.ok && !a.diag) failures.push(`step ${a.id} (${a.name}) failed without diagnostics`);
    });
    child.on('extra', (line) => failures.push(`not TAP: ${JSON.stringify(line)}`));
  });
  p.end(text);
  const s = await done;
  console.log(JSON.stringify({ ok: s.ok, count: s.count, pass: s.pass, fail: s.fail, skip: s.skip, plan: [s.plan.start, s.plan.end], steps }));
  if (failures.length) {
    for (const f of failures) console.error(f);
    process.exit(1);
  }
} else {
  console.error(`unknown report kind ${kind}`);
  process.exit(2);
}
