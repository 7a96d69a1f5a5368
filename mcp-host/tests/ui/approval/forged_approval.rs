// An approval cannot be built outside the gate.
use mcp_host::approval::{Approval, Grant};

fn main() {
    let _forged = Approval {
        digest: [0; 32],
        grant: Grant::Approver,
    };
}
