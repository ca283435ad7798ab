// Drives Caduceus' /mcp with the official MCP TypeScript SDK (its Client and the streamable HTTP
// transport) and prints one JSON line with what it saw. Env: MCP_URL (…/mcp), API_KEY (may be empty:
// then no Authorization header is sent). Argument: "tools" (connect, list, call) or "connect" (only
// connect, to see how the server refuses). Run by McpServerIT after `npm ci` of this folder's lockfile.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = new URL(process.env.MCP_URL);
const key = process.env.API_KEY ?? '';
const mode = process.argv[2] ?? 'tools';
const out = {};

const failure = (e) => ({ code: e?.code ?? null, message: String(e?.message ?? e) });
const text = (result) => (result.content ?? []).map((c) => c.text ?? '').join('');

const headers = key ? { Authorization: `Bearer ${key}` } : {};
const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
const client = new Client({ name: 'caduceus-mcp-it', version: '1.0.0' });
try {
  await client.connect(transport);
  out.connected = true;
  out.server = client.getServerVersion();
  out.protocolVersion = transport.protocolVersion ?? null;
  if (mode === 'tools') {
    await client.ping();
    const listed = await client.listTools();
    out.tools = listed.tools.map((t) => t.name);
    out.terminal = listed.tools.find((t) => t.name === 'terminal') ?? null;
    const echo = await client.callTool({ name: 'terminal', arguments: { command: 'echo hello over mcp' } });
    out.echo = { isError: echo.isError ?? false, text: text(echo) };
    const blocked = await client.callTool({ name: 'terminal', arguments: { command: 'rm -rf keep-me' } });
    out.blocked = { isError: blocked.isError ?? false, text: text(blocked) };
    try {
      await client.callTool({ name: 'no_such_tool', arguments: {} });
      out.unknown = 'answered';
    } catch (e) {
      out.unknown = failure(e);
    }
    const agent = await client.callTool({ name: 'agent', arguments: { prompt: 'say the magic word' } });
    out.agent = { isError: agent.isError ?? false, text: text(agent) };
  }
} catch (e) {
  out.connected = false;
  out.error = failure(e);
} finally {
  await client.close().catch(() => {});
}
console.log(JSON.stringify(out));
