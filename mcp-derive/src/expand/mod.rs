//! One file per macro: each turns checked input into the generated items.

pub(crate) mod form;
pub(crate) mod prompt;
pub(crate) mod prompts;
pub(crate) mod resource;
pub(crate) mod resources;
pub(crate) mod state;
pub(crate) mod tool;
pub(crate) mod tools;
