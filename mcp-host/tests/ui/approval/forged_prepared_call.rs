// A typed call cannot be made up outside `TypedClient::prepare`, so it
// cannot skip the drift check or reach `call` with a call of its own.
use mcp_host::typed::Prepared;
use mcp_host::ToolCall;

fn forge<T>(call: ToolCall) -> Prepared<T> {
    Prepared {
        call,
        tool: std::marker::PhantomData,
    }
}

fn main() {}
