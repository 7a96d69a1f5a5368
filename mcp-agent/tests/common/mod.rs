//! Model servers for the end-to-end tests: a real small model behind
//! llama.cpp's OpenAI-compatible server, and a scripted model that obeys
//! every instruction it reads.

#![allow(dead_code)]

pub mod llama;
pub mod obedient;
pub mod venv;
pub mod workspace;
