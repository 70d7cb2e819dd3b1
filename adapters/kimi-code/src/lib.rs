//! acc adapter for kimi-code (to be written).
