//! acc adapter for antigravity (to be written).
