//! acc adapter for codex (to be written).
