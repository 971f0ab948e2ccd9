// A load test of an MCP server's echo tool on k6, through the k6/x/mcp
// extension: each VU holds one session open and calls the tool in a loop.
//
//   MCP_URL=http://127.0.0.1:8808/mcp k6 run examples/echo.js
import mcp from 'k6/x/mcp';
import { check } from 'k6';

export const options = {
  vus: __ENV.VUS ? parseInt(__ENV.VUS) : 4,
  duration: __ENV.DURATION || '5s',
  thresholds: {
    mcp_failed: ['rate<0.01'],
    mcp_duration: ['p(99)<500'],
  },
};

let client;

export default function () {
  if (!client) {
    client = mcp.connect(__ENV.MCP_URL, { era: __ENV.MCP_ERA || 'auto' });
  }
  const r = client.call('echo', { message: 'hi' });
  check(r, {
    'the call succeeded': (r) => r.ok,
    'the tool echoed': (r) => r.ok && r.result.content[0].text.includes('hi'),
  });
}

export function setup() {
  // One session of every kind the script uses, so that a server that
  // lacks one fails the run at once.
  const c = mcp.connect(__ENV.MCP_URL, { era: __ENV.MCP_ERA || 'auto' });
  const tools = c.listTools();
  check(tools, { 'echo is listed': (r) => r.ok && r.result.tools.some((t) => t.name === 'echo') });
  check(c.ping(), { 'ping': (r) => r.ok });
  c.close();
}
