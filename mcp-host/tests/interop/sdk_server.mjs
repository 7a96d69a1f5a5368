// A server on the official TypeScript SDK v2, for mcp-host's interop test.
// One factory serves both eras, over stdio or Streamable HTTP: a modern
// client gets `input_required` results, a legacy one whatever the SDK makes
// of them.
//
//   node sdk_server.mjs                   stdio
//   node sdk_server.mjs --http=sessions   HTTP on a free loopback port
//   node sdk_server.mjs --http=stateless  the same, legacy served statelessly
//
// Over HTTP the first line on stdout is the endpoint URL. Modern requests go
// to the SDK's `createMcpHandler`. Legacy requests go, with `sessions`, to a
// sessionful `WebStandardStreamableHTTPServerTransport` with an event store
// (the wiring the SDK documents for full 2025 serving: server-to-client
// requests and resumable streams), or, with `stateless`, to the handler's
// own stateless fallback.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
    McpServer,
    WebStandardStreamableHTTPServerTransport,
    acceptedContent,
    createMcpHandler,
    inputRequired,
    isLegacyRequest
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

/** Set once the HTTP handler exists: how the `touch` tool announces changes. */
let notify;

function factory() {
    const server = new McpServer(
        { name: 'sdk-v2-interop', version: '1.0.0' },
        { capabilities: { tools: { listChanged: true } } }
    );
    server.registerTool(
        'echo',
        {
            description: 'Echoes its text.',
            inputSchema: z.object({ text: z.string() }),
            annotations: { readOnlyHint: true }
        },
        async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] })
    );
    server.registerTool(
        'greet',
        { description: 'Asks for a name, then greets.', inputSchema: z.object({}) },
        async (_args, ctx) => {
            const answer = acceptedContent(ctx.mcpReq.inputResponses, 'who');
            if (!answer) {
                return inputRequired({
                    inputRequests: {
                        who: inputRequired.elicit({
                            message: 'What is your name?',
                            requestedSchema: z.object({ name: z.string() })
                        })
                    }
                });
            }
            return { content: [{ type: 'text', text: `Hello, ${answer.name}!` }] };
        }
    );
    server.registerTool(
        'interrupted',
        {
            description: 'Closes its own response stream, then answers once the client has come back.',
            inputSchema: z.object({})
        },
        async (_args, ctx) => {
            const closed = typeof ctx.http?.closeSSE === 'function';
            if (closed) {
                ctx.http.closeSSE();
                await new Promise(resolve => setTimeout(resolve, 150));
            }
            return { content: [{ type: 'text', text: closed ? 'answered after a break' : 'answered' }] };
        }
    );
    server.registerTool(
        'touch',
        { description: 'Announces that the tool list changed.', inputSchema: z.object({}) },
        async () => {
            notify?.toolsChanged();
            return { content: [{ type: 'text', text: 'announced' }] };
        }
    );
    return server;
}

/** Every event of every stream, kept so that a client can resume after any of them. */
class MemoryEventStore {
    events = new Map();
    next = 0;
    async storeEvent(streamId, message) {
        const id = `${streamId}:${++this.next}`;
        this.events.set(id, { streamId, message });
        return id;
    }
    async getStreamIdForEventId(eventId) {
        return this.events.get(eventId)?.streamId;
    }
    async replayEventsAfter(lastEventId, { send }) {
        const streamId = this.events.get(lastEventId)?.streamId;
        if (streamId === undefined) return '';
        let after = false;
        for (const [id, event] of this.events) {
            if (id === lastEventId) {
                after = true;
            } else if (after && event.streamId === streamId && Object.keys(event.message).length > 0) {
                await send(id, event.message);
            }
        }
        return streamId;
    }
}

/** The sessionful legacy leg: one transport and server per session. */
function legacySessions() {
    const sessions = new Map();
    return async request => {
        const id = request.headers.get('mcp-session-id');
        const known = id ? sessions.get(id) : undefined;
        if (known) return known.handleRequest(request);
        if (id || request.method !== 'POST') {
            return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Unknown session' } }, { status: 404 });
        }
        const transport = new WebStandardStreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: sid => sessions.set(sid, transport),
            onsessionclosed: sid => sessions.delete(sid),
            eventStore: new MemoryEventStore(),
            retryInterval: 100
        });
        await factory().connect(transport);
        return transport.handleRequest(request);
    };
}

/** A web `Request` for a Node request; aborted when the client goes away. */
function toRequest(req, res) {
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
        for (const one of [value].flat()) headers.append(name, one);
    }
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Readable.toWeb(req);
    return new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers,
        body,
        duplex: 'half',
        signal: abort.signal
    });
}

/** Writes a web `Response` to Node, chunk by chunk, so that streams flow. */
async function send(res, response) {
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.flushHeaders();
    if (!response.body) return res.end();
    const reader = response.body.getReader();
    res.on('close', () => reader.cancel().catch(() => {}));
    try {
        for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            res.write(value);
        }
    } catch {
        // The client went away.
    }
    res.end();
}

function serveHttp(mode) {
    const handler = createMcpHandler(factory, { legacy: mode === 'sessions' ? 'reject' : 'stateless' });
    notify = handler.notify;
    const legacy = mode === 'sessions' ? legacySessions() : undefined;
    const server = http.createServer(async (req, res) => {
        try {
            const request = toRequest(req, res);
            const route = legacy && (await isLegacyRequest(request)) ? legacy : handler.fetch;
            await send(res, await route(request));
        } catch (error) {
            if (!res.headersSent) res.writeHead(500);
            res.end(String(error));
        }
    });
    server.listen(0, '127.0.0.1', () => {
        const { port } = server.address();
        process.stdout.write(`http://127.0.0.1:${port}/mcp\n`);
    });
    // The test owns the process: end with its stdin.
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();
}

const httpMode = process.argv.find(arg => arg.startsWith('--http'));
if (httpMode) {
    serveHttp(httpMode.split('=')[1] ?? 'sessions');
} else {
    serveStdio(factory);
}
