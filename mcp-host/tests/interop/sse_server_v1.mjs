// A server on the official TypeScript SDK v1 over the HTTP+SSE transport of
// protocol version 2024-11-05 (`SSEServerTransport`), for mcp-host's tests of
// that transport.
//
//   node sse_server_v1.mjs
//
// It binds 127.0.0.1 on a free port and, once bound, writes
// `serving MCP at http://127.0.0.1:PORT/sse` to stderr. The stream is served
// at `/sse`, messages are POSTed to `/messages?sessionId=...`. Tools: `echo`
// says its text back, `count` reports progress for each of its steps.
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { z } from 'zod';

function factory() {
    const server = new McpServer({ name: 'ts-sdk-v1-sse', version: '1.0.0' });
    server.registerTool(
        'echo',
        { description: 'Says the text back.', inputSchema: { text: z.string() } },
        async ({ text }) => ({ content: [{ type: 'text', text }] })
    );
    server.registerTool(
        'count',
        { description: 'Counts to `steps`, reporting progress at each.', inputSchema: { steps: z.number().int() } },
        async ({ steps }, extra) => {
            const token = extra._meta?.progressToken;
            for (let step = 1; step <= steps; step++) {
                if (token !== undefined) {
                    await extra.sendNotification({
                        method: 'notifications/progress',
                        params: { progressToken: token, progress: step, total: steps }
                    });
                }
            }
            return { content: [{ type: 'text', text: `counted ${steps}` }] };
        }
    );
    return server;
}

const sessions = new Map();

const app = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/sse') {
        const transport = new SSEServerTransport('/messages', res);
        sessions.set(transport.sessionId, transport);
        res.on('close', () => sessions.delete(transport.sessionId));
        await factory().connect(transport);
        return;
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
        const transport = sessions.get(url.searchParams.get('sessionId'));
        if (!transport) {
            res.writeHead(404).end('no such session');
            return;
        }
        await transport.handlePostMessage(req, res);
        return;
    }
    res.writeHead(404).end();
});

app.listen(0, '127.0.0.1', () => {
    console.error(`serving MCP at http://127.0.0.1:${app.address().port}/sse`);
});
