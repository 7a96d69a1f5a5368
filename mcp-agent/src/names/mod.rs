//! Provider tool names.
