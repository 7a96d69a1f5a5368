// A server on the official TypeScript SDK v2, for mcp-host's interop test.
// One factory serves both eras over stdio: a modern client gets
// `input_required` results, a legacy one whatever the SDK makes of them.
import { McpServer, acceptedContent, inputRequired } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

serveStdio(() => {
    const server = new McpServer({ name: 'sdk-v2-interop', version: '1.0.0' }, { capabilities: { tools: {} } });
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
    return server;
});
