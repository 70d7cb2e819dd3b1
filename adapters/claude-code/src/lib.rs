//! acc adapter for claude-code (to be written).
