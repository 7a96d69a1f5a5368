"""A server on the official Python SDK over the HTTP+SSE transport of
protocol version 2024-11-05, for mcp-host's tests of that transport.

    sse_server.py [--port PORT]

It binds 127.0.0.1 (port 0 unless one is given) and, once bound, writes
`serving MCP at http://127.0.0.1:PORT/sse` to stderr. Tools: `echo` says
its text back, `count` reports progress for each of its steps, `greet`
asks the client for a name (elicitation).
"""

import argparse
import asyncio
import socket
import sys

import uvicorn
from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("python-sse", version="1.0.0")


@server.tool()
def echo(text: str) -> str:
    """Says the text back."""
    return text


@server.tool()
async def count(steps: int, ctx: Context) -> str:
    """Counts to `steps`, reporting progress at each."""
    for step in range(steps):
        await ctx.report_progress(step + 1, steps)
    return f"counted {steps}"


class Name(BaseModel):
    name: str


@server.tool()
async def greet(ctx: Context) -> str:
    """Asks who is there, and greets them."""
    answer = await ctx.elicit("Who is there?", Name)
    if answer.action == "accept":
        return f"hello {answer.data.name}"
    return answer.action


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    port = parser.parse_args().port
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(64)
    config = uvicorn.Config(server.sse_app(), log_level="warning")
    print(
        f"serving MCP at http://127.0.0.1:{sock.getsockname()[1]}/sse",
        file=sys.stderr,
        flush=True,
    )
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    main()
