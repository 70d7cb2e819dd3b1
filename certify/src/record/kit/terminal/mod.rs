//! The terminal stage every interactive scenario shares (the live wake, the interactive quit,
//! the idle heartbeat): the client's terminal interface under the recorder's tmux, its
//! launcher and first-run config, its processes, the keys typed, and the shared ending.

pub mod driver;
pub mod launcher;
pub mod processes;
pub mod stage;
pub mod tmux;
