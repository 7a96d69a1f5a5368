//! The quick reader of `tools/call` and `tasks/get` against the general
//! path: any message the quick reader takes, the general path reads into
//! the same request (id, method, tool name and arguments or task id, and
//! `_meta`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mcp_server::__fuzz::quick_call(data));
