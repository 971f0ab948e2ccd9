// A server of the MCP 2026-07-28 era only, on the TypeScript SDK v2, for
// scripts/e2e-everything.sh: it refuses initialize (-32022 naming
// 2026-07-28), so a client must speak the modern era to use it. The script
// copies this file next to the node_modules it installs.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

serveStdio(() => {
	const server = new McpServer(
		{ name: 'modern-only', version: '1.0.0' },
		{ capabilities: { tools: {}, resources: {}, prompts: {} }, supportedProtocolVersions: ['2026-07-28'] },
	);
	server.registerTool('echo', { description: 'Echo the message back.', inputSchema: z.object({ message: z.string() }) },
		async ({ message }) => ({ content: [{ type: 'text', text: message }], structuredContent: { message } }));
	server.registerTool('add', { description: 'Add two numbers.', inputSchema: z.object({ a: z.number(), b: z.number() }) },
		async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }));
	server.registerResource('readme', 'modern://readme', { mimeType: 'text/plain' },
		async (uri) => ({ contents: [{ uri: uri.href, text: 'a modern server' }] }));
	server.registerPrompt('greet', { argsSchema: { name: z.string() } },
		({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }] }));
	return server;
}, { legacy: 'reject' });
