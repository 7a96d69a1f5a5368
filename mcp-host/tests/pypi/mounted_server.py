"""A Streamable HTTP server on the official Python SDK, mounted under a
Starlette path as applications commonly do, for mcp-host's redirect tests.

    mounted_server.py [--port PORT]

Starlette serves the mount at `/api/mcp/` and answers `/api/mcp` (the URL
people configure) with `307` to `/api/mcp/`. It binds 127.0.0.1 (port 0
unless one is given) and, once bound, writes `serving MCP at
http://127.0.0.1:PORT/api/mcp` to stderr. One tool: `echo`.
"""

import argparse
import asyncio
import contextlib
import socket
import sys

import uvicorn
from starlette.applications import Starlette
from starlette.routing import Mount

from mcp.server.mcpserver import MCPServer

server = MCPServer("python-mounted", version="1.0.0")


@server.tool()
def echo(text: str) -> str:
    """Says the text back."""
    return text


@contextlib.asynccontextmanager
async def lifespan(_app):
    async with server.session_manager.run():
        yield


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    port = parser.parse_args().port
    inner = server.streamable_http_app(streamable_http_path="/")
    app = Starlette(routes=[Mount("/api/mcp", app=inner)], lifespan=lifespan)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(64)
    config = uvicorn.Config(app, log_level="warning")
    print(
        f"serving MCP at http://127.0.0.1:{sock.getsockname()[1]}/api/mcp",
        file=sys.stderr,
        flush=True,
    )
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    main()
