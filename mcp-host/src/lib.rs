//! Host runtime for the Model Context Protocol: it will run clients against
//! many servers, probe which protocol era each one speaks and fall back when
//! needed, namespace their tools, ask for approval, and treat everything a
//! server returns as untrusted input.
//!
//! The runtime is not written yet: the crate exists so the workspace has its
//! final shape, and it exports nothing.

#![deny(missing_docs)]
