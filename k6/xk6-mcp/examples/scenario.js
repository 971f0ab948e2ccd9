// What mcpv load --scenario does, in k6's own terms: a virtual user's
// session of several steps (k6 groups, so that each step has metrics of
// its own), values carried from one step's result to the next (plain
// JavaScript), think times (sleep), data that varies per iteration (a
// SharedArray read once), checks as the steps' expectations; and the
// breaking point searched with the ramping-arrival-rate executor.
//
//   MCP_URL=http://127.0.0.1:8808/mcp k6 run examples/scenario.js
import mcp from 'k6/x/mcp';
import { check, group, sleep } from 'k6';
import { SharedArray } from 'k6/data';

// One row per iteration, as mcpv load --data reads a JSON Lines file.
const rows = new SharedArray('messages', () => ['alpha', 'beta', 'gamma', 'delta'].map((m, i) => ({ message: m, n: i })));

export const options = {
  scenarios: {
    users: { executor: 'constant-vus', vus: __ENV.VUS ? parseInt(__ENV.VUS) : 4, duration: __ENV.DURATION || '5s' },
  },
  thresholds: {
    mcp_failed: ['rate<0.01'],
    'mcp_duration{group:::say}': ['p(99)<500'],
  },
};

let client;

export default function () {
  client = client || mcp.connect(__ENV.MCP_URL, { era: __ENV.MCP_ERA || 'auto' });
  const row = rows[__ITER % rows.length];
  let tool;
  group('list', () => {
    const r = client.listTools();
    check(r, { 'tools listed': (r) => r.ok });
    tool = r.ok && r.result.tools.some((t) => t.name === 'echo') ? 'echo' : null;
  });
  if (!tool) return;
  let said;
  group('say', () => {
    const r = client.call(tool, { message: `${row.message}-${__ITER}` });
    check(r, { 'echoed': (r) => r.ok && r.result.content[0].text.includes(row.message) });
    said = r.ok ? r.result.content[0].text : null;
  });
  sleep(0.1 + Math.random() * 0.2); // think: 100ms..300ms
  group('again', () => {
    const r = client.call('echo', { message: `${said} again` });
    check(r, { 'echoed again': (r) => r.ok });
  });
}

// The breaking point, as mcpv load --find-max searches it: run with
//   k6 run -e FIND_MAX=1 examples/scenario.js
// and read where mcp_duration's p99 and the achieved rate part from the
// stages below.
if (__ENV.FIND_MAX) {
  options.scenarios = {
    ramp: {
      executor: 'ramping-arrival-rate', startRate: 10, timeUnit: '1s', preAllocatedVUs: 64, maxVUs: 64,
      stages: [{ target: 100, duration: '10s' }, { target: 400, duration: '20s' }, { target: 1600, duration: '20s' }],
    },
  };
}
