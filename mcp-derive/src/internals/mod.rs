//! Parsing and checking shared by the macros.

pub(crate) mod ctxt;
