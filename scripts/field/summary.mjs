// The reports of scripts/field.sh, read back: a server's listing made into
// one JSON file, the line printed per server, and the summary of a run.
//
//   node summary.mjs surface BATCH-OUT BATCH-ERR    the listing as JSON on stdout
//   node summary.mjs reads SURFACE                 the batch lines that get its prompts and read its resources
//   node summary.mjs saved SURFACE BATCH-OUT       the listing and those reads as a saved surface
//   node summary.mjs incomplete MODULES PACKAGE... those packages not whole under MODULES
//   node summary.mjs line-audit|line-pin|line-check OUT NAME
//   node summary.mjs report OUT MODE [--markdown FILE] NAME...
//
// report prints the summary (servers, items by kind, the audit's findings by
// severity and rule, the servers that fail each gate) and exits 1 when a
// server fails a gate of MODE; --markdown FILE also writes it, with every
// finding's text, to FILE.
import fs from 'node:fs';
import path from 'node:path';

const read = (f) => {
  try {
    return fs.readFileSync(f, 'utf8');
  } catch {
    return null;
  }
};
const json = (f) => {
  const t = read(f);
  try {
    return t === null ? null : JSON.parse(t);
  } catch {
    return null;
  }
};
// lastLine: mcpv's last word in a file of stderr (else the server's last
// line), leaving out mcpv's warnings.
const lastLine = (f) => {
  const l = (read(f) || '').split('\n').filter((l) => l.trim() && !l.startsWith('mcpv: warning'));
  return l.filter((l) => l.startsWith('mcpv: ')).pop() || l.pop() || '';
};
const rcOf = (f) => (read(f) || '').trim();
const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, '\\n').replace(/`/g, "'");

const lists = [
  ['initialize', null],
  ['tools', 'tools'],
  ['prompts', 'prompts'],
  ['resources', 'resources'],
  ['resourceTemplates', 'resourceTemplates'],
];

// surface: the batch's lines (info, list-tools, list-prompts, list-resources,
// list-resource-templates) as one object; a list the server refused or lacks
// is empty, with the reason under errors.
function surface(outFile, errFile) {
  const lines = (read(outFile) || '').split('\n').filter(Boolean).map((l) => {
    try {
      return JSON.parse(l);
    } catch {
      return {};
    }
  });
  const s = { errors: {} };
  lists.forEach(([key, member], i) => {
    const l = lines.find((x) => x.line === i + 1);
    if (l && l.result !== undefined) s[key] = member ? l.result[member] || [] : l.result;
    else {
      if (member) s[key] = [];
      s.errors[key] = l && l.error ? l.error.message || JSON.stringify(l.error) : lastLine(errFile) || 'no answer';
    }
  });
  process.stdout.write(JSON.stringify(s, null, 1) + '\n');
}

// reads: a batch line per request, a prompts/get per prompt (every declared argument "example")
// and a resources/read line per resource a model may read as text, at most
// 64 of each: what mcpv audit reads of a live server (surface.GatherReads).
const readable = (r) => {
  const uri = r.uri || '';
  const mime = (r.mimeType || '').toLowerCase();
  if (!uri || uri.toLowerCase().startsWith('ui://') || mime.includes('profile=mcp-app')) return false;
  const m = mime.split(';')[0].trim();
  return !m || m.startsWith('text/') || m.endsWith('json') || m.endsWith('+xml') || ['application/xml', 'application/yaml', 'application/x-yaml', 'application/javascript'].includes(m);
};
function readOps(s) {
  const ops = s.prompts.slice(0, 64).map((p) => ({
    key: ['promptResults', p.name],
    line: { method: 'prompts/get', params: { name: p.name, arguments: Object.fromEntries((p.arguments || []).filter((a) => a.name).map((a) => [a.name, 'example'])) } },
  }));
  return ops.concat(s.resources.filter(readable).slice(0, 64).map((r) => ({ key: ['readResults', r.uri], line: { method: 'resources/read', params: { uri: r.uri } } })));
}
function reads(surfaceFile) {
  // mcpv request METHOD 'PARAMS': a quote inside the JSON is written \u0027.
  for (const o of readOps(json(surfaceFile))) process.stdout.write(`request ${o.line.method} '${JSON.stringify(o.line.params).replace(/'/g, '\\u0027')}'\n`);
}

// saved: the listing and the reads' answers (a line per op, in order) as
// the saved surface internal/audit keeps (testdata/field/servers/NAME.json:
// serverInfo, instructions, the lists, promptResults by name, readResults
// by URI, and the errors of what the server refused); exits 1 when the
// server gave no serverInfo (it did not start). An answer larger than
// 1 MiB is not kept, as mcpv audit keeps none (surface.MaxReadBytes): its
// error says so. The saved surfaces are kept in the repository: past
// 256 KiB of answers a server's further answers are not kept either, each
// with an error that says so.
const maxReadBytes = 1 << 20;
const maxSavedBytes = 256 << 10;
function saved(surfaceFile, outFile) {
  const s = json(surfaceFile);
  const init = s && s.initialize;
  if (!init || !init.serverInfo) return 1;
  const out = { serverInfo: init.serverInfo };
  if (init.instructions) out.instructions = init.instructions;
  for (const k of ['tools', 'prompts', 'resources', 'resourceTemplates']) out[k] = s[k];
  out.promptResults = {};
  out.readResults = {};
  const errors = Object.fromEntries(Object.entries(s.errors).filter(([k]) => k !== 'initialize'));
  const answers = new Map(
    (read(outFile) || '').split('\n').filter(Boolean).map((l) => {
      try {
        const o = JSON.parse(l);
        return [o.line, o];
      } catch {
        return [0, null];
      }
    }),
  );
  let kept = 0;
  readOps(s).forEach((o, i) => {
    const a = answers.get(i + 1);
    const size = a && a.result !== undefined ? JSON.stringify(a.result).length : 0;
    if (size > maxReadBytes) errors[`${o.line.method} ${o.key[1]}`] = 'larger than 1 MiB: not kept';
    else if (size && kept + size > maxSavedBytes) errors[`${o.line.method} ${o.key[1]}`] = `not kept: the saved surface keeps ${maxSavedBytes >> 10} KiB of answers, ${kept} bytes were kept before it`;
    else if (a && a.result !== undefined) (kept += size), (out[o.key[0]][o.key[1]] = a.result);
    else errors[`${o.line.method} ${o.key[1]}`] = a && a.error ? a.error.message || JSON.stringify(a.error) : 'no answer';
  });
  if (Object.keys(errors).length) out.errors = errors;
  process.stdout.write(JSON.stringify(out, null, 1) + '\n');
  return 0;
}

const items = (s) => (s ? [s.tools.length, s.prompts.length, s.resources.length, s.resourceTemplates.length] : null);
const apps = (s) => (s ? s.tools.filter((t) => t._meta && t._meta.ui).length : 0);
const sevs = ['critical', 'high', 'medium', 'low', 'info'];

function auditOf(out, name) {
  const rc = rcOf(`${out}/audit/${name}.rc`);
  const r = json(`${out}/audit/${name}.json`);
  return { rc, r, fails: rc !== '0', why: r ? '' : lastLine(`${out}/audit/${name}.err`) };
}
function pinOf(out, name) {
  const rc = rcOf(`${out}/pin/${name}.rc`);
  const codes = Object.fromEntries(rc.split(' ').filter(Boolean).map((p) => p.split('=')));
  const bad = Object.entries(codes).filter(([, v]) => v !== '0');
  const why = bad.map(([k, v]) => {
    const f = `${out}/pin/${name}.${k}`;
    const said = (read(`${f}.out`) || '').trim().split('\n').slice(0, 6).join(' / ');
    return `${k === 'pin' ? 'mcpv pin' : k === 'check' ? 'mcpv pin --check' : 'mcpv diff'} exit ${v}: ${[lastLine(`${f}.err`), said].filter(Boolean).join(' / ')}`;
  });
  return { rc, codes, fails: rc === '' || bad.length > 0, why };
}
function checkOf(out, name) {
  const rc = rcOf(`${out}/check/${name}.rc`);
  const r = json(`${out}/check/${name}.json`);
  if (!r || !r.areas) return { rc, r: null, must: [], fails: true, why: lastLine(`${out}/check/${name}.err`) || `exit ${rc}` };
  // A session that did not open: the report is the connection's steps, and the failed one says why.
  const step = r.areas.flatMap((a) => a.steps || []).find((s) => s.status === 'failed');
  if (step) return { rc, r: null, must: [], fails: true, why: `${step.id}: ${(step.failures || [])[0]?.message || step.reason || 'failed'}`.slice(0, 400) };
  // (a report whose connection opened and whose run then ended has the steps alone)
  const all = r.areas.flatMap((a) => a.checks || []);
  // No check passed: no session was had (the reason is the first inconclusive check's, or what mcpv said last).
  if (!all.some((c) => c.status === 'passed')) {
    const c = all.find((c) => c.status === 'inconclusive');
    return { rc, r: null, must: [], fails: true, why: c ? `${c.id} inconclusive: ${c.reason}` : `no check passed (exit ${rc}): ${lastLine(`${out}/check/${name}.err`)}` };
  }
  const msg = (c) =>
    [c.reason, ...(c.failures || []).map((f) => f.message + (f.actual ? ` (got ${String(f.actual).slice(0, 300)})` : '')), ...(c.notes || [])]
      .filter(Boolean)
      .join('; ');
  const must = all.filter((c) => c.status === 'failed' && c.level === 'MUST').map((c) => ({ id: c.id, message: msg(c) }));
  const should = all.filter((c) => c.status === 'failed' && c.level !== 'MUST').map((c) => c.id);
  const warned = all.filter((c) => c.status === 'warned').map((c) => c.id);
  return { rc, r, must, should, warned, fails: must.length > 0 };
}

function line(kind, out, name) {
  if (kind === 'line-audit') {
    const s = json(`${out}/surfaces/${name}.json`);
    const it = items(s);
    const a = auditOf(out, name);
    let t = it ? ` ${String(it[0]).padStart(3)} tools ${it[1]}/${it[2]}/${it[3]} p/r/t` : ' (no listing)';
    if (!a.r) return `${t}  audit: no report (exit ${a.rc}): ${a.why}`;
    const c = a.r.counts;
    t += `  audit: ${sevs.map((k) => c[k] || 0).join('/')} c/h/m/l/i`;
    return t + (a.rc === '0' ? '  ok' : a.rc === '1' ? '  FAIL' : `  exit ${a.rc}`);
  }
  if (kind === 'line-pin') {
    const p = pinOf(out, name);
    return `  ${p.rc || 'pin: no result'}${p.fails ? '  FAIL' : '  ok'}`;
  }
  const c = checkOf(out, name);
  if (!c.r) return `\n    ${name}: check: no report: ${c.why}`;
  const n = c.r.counts;
  return (
    `\n    ${name}: check ${c.r.protocolVersion}: ${n.passed} passed, ${n.failed} failed, ${n.warned || 0} warned, ${n.skipped} skipped` +
    (c.must.length ? `; MUST failed: ${c.must.map((m) => m.id).join(', ')}` : '')
  );
}

// servers: the table of the servers, from servers.tsv and the installed
// packages (FIELD_MODULES), with what each mode found.
function servers(names, out, modes, say) {
  const here = path.dirname(new URL(import.meta.url).pathname);
  const rows = Object.fromEntries(
    fs.readFileSync(path.join(here, 'servers.tsv'), 'utf8').split('\n')
      .filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t')).map((r) => [r[0], r]),
  );
  const version = (pkg) => (json(`${process.env.FIELD_MODULES || ''}/${pkg}/package.json`) || {}).version || '?';
  const head = ['server', 'package', 'version', 'kind'];
  if (modes.includes('audit')) head.push('tools', 'prompts', 'resources', 'templates', 'audit c/h/m/l/i', 'audit exit');
  if (modes.includes('pin')) head.push('pin, pin --check, diff');
  if (modes.includes('check')) head.push('check: MUST failed');
  say('| ' + head.join(' | ') + ' |');
  say('|' + ' --- |'.repeat(head.length));
  for (const n of names) {
    const r = rows[n] || [n, '?', '?'];
    const c = [n, `\`${r[1]}\``, version(r[1]), r[2]];
    if (modes.includes('audit')) {
      const it = items(json(`${out}/surfaces/${n}.json`)) || ['?', '?', '?', '?'];
      const a = auditOf(out, n);
      c.push(...it, a.r ? sevs.map((k) => a.r.counts[k] || 0).join('/') : '-', a.rc === '0' ? '0' : `**${a.rc}**`);
    }
    if (modes.includes('pin')) {
      const p = pinOf(out, n);
      c.push(p.fails ? `**${Object.values(p.codes).join(', ') || 'none'}**` : '0, 0, 0');
    }
    if (modes.includes('check')) {
      const k = checkOf(out, n);
      c.push(k.r ? k.must.map((m) => m.id).join(', ') || 'none' : '**no report**');
    }
    say('| ' + c.join(' | ') + ' |');
  }
  say();
}

function report(out, mode, names, mdFile) {
  // md is the whole summary; short, on stdout, leaves out the detail (each
  // finding's text, each failure's message).
  const md = [];
  const short = [];
  let detail = false;
  const say = (s = '') => {
    md.push(s);
    if (!detail) short.push(s);
  };
  const modes = mode === 'all' ? ['audit', 'pin', 'check'] : mode.split(',');
  let failing = 0;
  const per = {};
  say(`# mcpv over the field set: ${names.length} servers`);
  say();
  servers(names, out, modes, say);
  if (modes.includes('audit')) {
    const rows = names.map((n) => ({ n, s: json(`${out}/surfaces/${n}.json`), a: auditOf(out, n) }));
    const tot = [0, 0, 0, 0];
    for (const r of rows) (items(r.s) || [0, 0, 0, 0]).forEach((v, i) => (tot[i] += v));
    say('## Items');
    say();
    say('| servers | listed | tools | prompts | resources | templates | MCP Apps (tools with `_meta.ui`) | servers with 50+ tools |');
    say('| --- | --- | --- | --- | --- | --- | --- | --- |');
    const listed = rows.filter((r) => r.s && !r.s.errors.tools).length;
    const appTools = rows.reduce((a, r) => a + apps(r.s), 0);
    const appServers = rows.filter((r) => apps(r.s) > 0).length;
    const big = rows.filter((r) => r.s && r.s.tools.length >= 50).length;
    say(`| ${names.length} | ${listed} | ${tot[0]} | ${tot[1]} | ${tot[2]} | ${tot[3]} | ${appTools} tools on ${appServers} servers | ${big} |`);
    say();
    const counts = Object.fromEntries(sevs.map((k) => [k, 0]));
    const byRule = {};
    for (const r of rows)
      for (const f of (r.a.r && r.a.r.findings) || []) {
        counts[f.severity]++;
        byRule[f.rule] ||= Object.fromEntries(sevs.map((k) => [k, 0]));
        byRule[f.rule][f.severity]++;
      }
    say('## Audit findings (`mcpv audit -- SERVER`, default gate: high)');
    say();
    say('| ' + sevs.join(' | ') + ' | servers failing the gate | servers not audited |');
    say('|' + ' --- |'.repeat(sevs.length + 2));
    const gate = rows.filter((r) => r.a.rc === '1');
    const none = rows.filter((r) => r.a.rc !== '0' && r.a.rc !== '1');
    say(`| ${sevs.map((k) => counts[k]).join(' | ')} | ${gate.length} | ${none.length} |`);
    say();
    say('| rule | ' + sevs.join(' | ') + ' |');
    say('| --- |' + ' --- |'.repeat(sevs.length));
    for (const [rule, c] of Object.entries(byRule).sort((a, b) => sevs.reduce((s, k) => s + b[1][k], 0) - sevs.reduce((s, k) => s + a[1][k], 0)))
      say(`| ${rule} | ${sevs.map((k) => c[k]).join(' | ')} |`);
    say();
    failing += per.audit = gate.length + none.length;
    detail = true;
    if (gate.length) {
      say(`### Servers failing the audit gate (${gate.length}): their findings of severity high or above`);
      say();
      say('| server | rule | severity | item | field | text |');
      say('| --- | --- | --- | --- | --- | --- |');
      for (const r of gate)
        for (const f of r.a.r.findings.filter((f) => f.severity === 'critical' || f.severity === 'high'))
          say(`| ${r.n} | ${f.rule} | ${f.severity} | ${f.kind}:${cell(f.name)} | ${cell(f.field)} | \`${cell(f.excerpt)}\` |`);
      say();
    }
    if (none.length) {
      say(`### Servers not audited (${none.length})`);
      say();
      for (const r of none) say(`- ${r.n}: exit ${r.a.rc || '?'}: ${cell(r.a.why)}`);
      say();
    }
    detail = false;
  }
  if (modes.includes('pin')) {
    const bad = names.map((n) => ({ n, p: pinOf(out, n) })).filter((r) => r.p.fails);
    failing += per.pin = bad.length;
    say('## Pin (`mcpv pin`, then `pin --check` and `diff PIN -- SERVER` with nothing changed)');
    say();
    say(`${names.length - bad.length} of ${names.length} servers: all three exit 0.`);
    say();
    for (const r of bad) say(`- ${r.n}: ${r.p.rc || 'no result'}${r.p.why.length ? ': ' + r.p.why.map(cell).join('; ') : ''}`);
    if (bad.length) say();
  }
  if (modes.includes('check')) {
    const all = names.flatMap((n) => (fs.existsSync(`${out}/check/${n}-http.rc`) ? [n, `${n}-http`] : [n]));
    const rows = all.map((n) => ({ n, c: checkOf(out, n) }));
    const bad = rows.filter((r) => r.c.fails);
    failing += per.check = bad.length;
    say('## Check (`mcpv check --format json`): MUST failures');
    say();
    say(`${rows.length} runs (${all.length - names.length} over Streamable HTTP); ${rows.filter((r) => r.c.must.length).length} with a MUST failure, ${rows.filter((r) => !r.c.r).length} without a report.`);
    say();
    detail = true;
    say('| server | check | message |');
    say('| --- | --- | --- |');
    for (const r of bad) {
      if (!r.c.r) say(`| ${r.n} | (no report) | ${cell(r.c.why)} |`);
      for (const m of r.c.must) say(`| ${r.n} | ${m.id} | ${cell(m.message.slice(0, 600))} |`);
    }
    say();
    detail = false;
    if (bad.length) say(`MUST failures: ${bad.map((r) => `${r.n} (${r.c.r ? r.c.must.map((m) => m.id).join(', ') : 'no report'})`).join('; ')}`);
  }
  const text = md.join('\n');
  if (mdFile) fs.writeFileSync(mdFile, text + '\n');
  // On stdout, the tables without the findings' text.
  process.stdout.write(short.join('\n') + '\n');
  console.log(`${names.length} servers; failing the gate of ${Object.entries(per).map(([m, n]) => `${m}: ${n}`).join(', ')}`);
  return failing > 0 ? 1 : 0;
}

// incomplete: the packages, of those named, that are not whole under the
// node_modules MODULES: the package's package.json missing, or that of a
// dependency it needs (not optional, not a peer), looked for as Node.js
// looks, from the package's directory up, and so on down its tree. An
// install cut short or half extracted leaves such holes while its lockfile
// still matches.
function incomplete(modules, names) {
  const seen = new Map(); // a package's directory: whole or not, or null while being looked at
  const find = (from, name) => {
    for (let d = from; ; d = path.dirname(d)) {
      const f = path.join(d, 'node_modules', name, 'package.json');
      if (fs.existsSync(f)) return path.dirname(f);
      if (path.dirname(d) === d || path.relative(modules, d).startsWith('..')) return null;
    }
  };
  const whole = (dir) => {
    if (seen.has(dir)) return seen.get(dir) !== false; // a cycle: whole as far as it goes
    seen.set(dir, null);
    const j = json(path.join(dir, 'package.json'));
    const optional = new Set(Object.keys((j && j.optionalDependencies) || {}));
    const ok =
      j !== null &&
      Object.keys(j.dependencies || {}).every((dep) => {
        if (optional.has(dep)) return true;
        const d = find(dir, dep);
        return d !== null && whole(d);
      });
    seen.set(dir, ok);
    return ok;
  };
  for (const name of names) {
    if (!whole(path.join(modules, name))) console.log(name);
  }
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'surface') surface(args[0], args[1]);
else if (cmd === 'reads') reads(args[0]);
else if (cmd === 'saved') process.exit(saved(args[0], args[1]));
else if (cmd === 'incomplete') incomplete(path.resolve(args[0]), args.slice(1));
else if (cmd && cmd.startsWith('line-')) process.stdout.write(line(cmd, path.resolve(args[0]), args[1]));
else if (cmd === 'report') {
  let md = null;
  const i = args.indexOf('--markdown');
  if (i >= 0) md = args.splice(i, 2)[1];
  process.exit(report(path.resolve(args[0]), args[1], args.slice(2), md));
} else {
  console.error('usage: summary.mjs surface|reads|saved|incomplete|line-audit|line-pin|line-check|report ...');
  process.exit(2);
}
