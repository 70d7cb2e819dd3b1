//! acc adapter for gemini-cli (to be written).
