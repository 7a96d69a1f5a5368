// Drives an MCP server with the official TypeScript SDK v2 client
// (@modelcontextprotocol/client, pinned in package.json) and prints one JSON
// summary line on stdout. Exits 0 only if every check passed.
//
// usage: node driver.mjs --era modern|legacy|auto --http URL
//        node driver.mjs --era modern|legacy|auto --stdio COMMAND [ARG...]
//
// modern: the client pins 2026-07-28 (`server/discover`, per-request `_meta`)
//   and answers `input_required` results through its elicitation handler,
//   then retries (MRTR), for a one-round and a three-round tool.
// legacy: the client's default handshake (`initialize` at 2025-11-25); the
//   server sends real `elicitation/create` requests, which the same handler
//   answers.
// auto: the client probes with `server/discover` and falls back to
//   `initialize` unless the answer is modern; a dual-era server must come
//   out modern, and the run then checks what `modern` does.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const TIMEOUT_MS = 30_000;

function usage(message) {
    process.stderr.write(`${message}\nusage: driver.mjs --era modern|legacy|auto (--http URL | --stdio COMMAND [ARG...])\n`);
    process.exit(2);
}

function parseArgs(argv) {
    const options = { era: undefined, http: undefined, stdio: undefined };
    for (let i = 0; i < argv.length; i++) {
        switch (argv[i]) {
            case '--era':
                options.era = argv[++i];
                break;
            case '--http':
                options.http = argv[++i];
                break;
            case '--stdio':
                options.stdio = argv.slice(i + 1);
                i = argv.length;
                break;
            default:
                usage(`unknown argument: ${argv[i]}`);
        }
    }
    if (!['modern', 'legacy', 'auto'].includes(options.era)) usage('--era must be modern, legacy or auto');
    if (!options.http === !options.stdio?.length) usage('give exactly one of --http and --stdio');
    return options;
}

// What the elicitation handler answers, by the field the form asks for.
const ANSWERS = { name: 'Interop', color: 'blue', username: 'interop', email: 'interop@example.com', ok: true };

function text(result) {
    return (result.content ?? []).filter(block => block.type === 'text').map(block => block.text).join('\n');
}

// MRTR: the first request and one retry per round, each with a new id and
// the 2026-07-28 `_meta`, the retries carrying the answers (and the state,
// when the tool keeps some); the client writes no JSON-RPC responses.
function mrtrOnWire(outcome, call) {
    return (
        outcome.requests === call.rounds + 1 &&
        outcome.distinctIds === outcome.requests &&
        outcome.metaVersions.join() === '2026-07-28' &&
        outcome.retriesWithResponses === call.rounds &&
        outcome.retriesWithState === call.state &&
        outcome.responsesSent === 0
    );
}

// Legacy: one request without `_meta` versions, and one JSON-RPC response
// from the client per `elicitation/create` the server sent.
function legacyOnWire(outcome, call) {
    return (
        outcome.requests === 1 &&
        outcome.metaVersions.join() === '' &&
        outcome.retriesWithResponses === 0 &&
        outcome.responsesSent === call.rounds
    );
}

async function main() {
    const options = parseArgs(process.argv.slice(2));
    // The era the connection must end up in: `auto` against a dual-era server is modern.
    const era = options.era === 'auto' ? 'modern' : options.era;
    const summary = {
        transport: options.http ? 'http' : 'stdio',
        era: options.era,
        checks: [],
        ok: false
    };
    const check = (name, pass, detail) => {
        summary.checks.push({ name, pass: Boolean(pass), detail });
        if (!pass) throw new Error(`check failed: ${name}: ${JSON.stringify(detail)}`);
    };

    const client = new Client(
        { name: 'mcp-toolkit-interop', version: '0.0.0' },
        {
            capabilities: { elicitation: {} },
            versionNegotiation: { mode: options.era === 'modern' ? { pin: '2026-07-28' } : options.era }
        }
    );
    const elicitations = [];
    client.setRequestHandler('elicitation/create', async request => {
        const properties = Object.keys(request.params.requestedSchema?.properties ?? {});
        elicitations.push({ message: request.params.message, fields: properties });
        const content = Object.fromEntries(properties.map(field => [field, ANSWERS[field] ?? 'x']));
        return { action: 'accept', content };
    });

    const transport = options.http
        ? new StreamableHTTPClientTransport(new URL(options.http))
        : new StdioClientTransport({ command: options.stdio[0], args: options.stdio.slice(1), stderr: 'ignore' });

    // Every message the client writes, to show on the wire what the SDK did
    // inside one `callTool()`: the MRTR retries (modern) or the answers to
    // the server's requests (legacy).
    const sent = [];
    const send = transport.send.bind(transport);
    transport.send = (message, ...rest) => {
        sent.push(message);
        return send(message, ...rest);
    };

    try {
        await client.connect(transport);
        summary.protocolEra = client.getProtocolEra();
        summary.protocolVersion = client.getNegotiatedProtocolVersion();
        summary.server = client.getServerVersion()?.name;
        // Methods the client wrote while connecting. On stdio the SDK sends
        // its `server/discover` probe on a short-lived sibling process, so
        // the session's own pipe shows no handshake at all in modern.
        summary.handshake = sent.filter(m => m.method).map(m => m.method);
        check(
            'handshake',
            era === 'legacy'
                ? summary.handshake[0] === 'initialize'
                : !summary.handshake.includes('initialize') && (options.stdio || summary.handshake[0] === 'server/discover'),
            summary.handshake
        );
        const expected = era === 'modern' ? '2026-07-28' : '2025-11-25';
        check('era', summary.protocolEra === era && summary.protocolVersion === expected, {
            era: summary.protocolEra,
            version: summary.protocolVersion
        });

        const { tools } = await client.listTools();
        summary.tools = tools.length;
        check('tools/list', tools.some(tool => tool.name === 'test_simple_text'), { count: tools.length });

        const simple = await client.callTool({ name: 'test_simple_text', arguments: {} });
        check('test_simple_text', text(simple) === 'This is a simple text response for testing.', text(simple));

        // Each call needs user input; the handler answers it. `rounds` is how
        // many elicitations the call must raise.
        const calls =
            era === 'modern'
                ? [
                      { name: 'test_input_required_result_elicitation', args: {}, expect: 'Hello, Interop!', rounds: 1, state: 0 },
                      { name: 'test_input_required_result_multi_round', args: {}, expect: 'Favorite color: "blue"', rounds: 2, state: 2 }
                  ]
                : [
                      {
                          name: 'test_elicitation',
                          args: { message: 'hi' },
                          expect: 'User response: action="accept", content={"email":"interop@example.com","username":"interop"}',
                          rounds: 1
                      },
                      { name: 'test_input_required_result_elicitation', args: {}, expect: 'Hello, Interop!', rounds: 1 }
                  ];
        summary.inputCalls = [];
        for (const call of calls) {
            const before = elicitations.length;
            const firstSent = sent.length;
            const result = await client.callTool({ name: call.name, arguments: call.args });
            const raised = elicitations.slice(before);
            const wire = sent.slice(firstSent);
            const requests = wire.filter(m => m.method === 'tools/call');
            const outcome = {
                tool: call.name,
                text: text(result),
                elicitations: raised.length,
                // tools/call requests sent: 1 + rounds for MRTR, 1 for legacy.
                requests: requests.length,
                distinctIds: new Set(requests.map(m => m.id)).size,
                // The version each request names in `_meta` (modern only).
                metaVersions: [...new Set(requests.map(m => m.params?._meta?.['io.modelcontextprotocol/protocolVersion'] ?? null))],
                retriesWithResponses: requests.filter(m => m.params?.inputResponses).length,
                retriesWithState: requests.filter(m => typeof m.params?.requestState === 'string').length,
                // JSON-RPC responses the client wrote: legacy answers to elicitation/create.
                responsesSent: wire.filter(m => m.id !== undefined && !m.method && 'result' in m).length
            };
            summary.inputCalls.push(outcome);
            check(call.name, !result.isError && text(result) === call.expect && raised.length === call.rounds, {
                text: text(result),
                elicitations: raised
            });
            check(`${call.name} on the wire`, era === 'modern' ? mrtrOnWire(outcome, call) : legacyOnWire(outcome, call), outcome);
        }
        summary.ok = true;
    } catch (error) {
        summary.error = String(error?.stack ?? error);
    } finally {
        await client.close().catch(() => {});
    }
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    process.exit(summary.ok ? 0 : 1);
}

setTimeout(() => {
    process.stdout.write(`${JSON.stringify({ ok: false, error: `timed out after ${TIMEOUT_MS} ms` })}\n`);
    process.exit(1);
}, TIMEOUT_MS).unref();

await main();
