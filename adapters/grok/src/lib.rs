//! acc adapter for grok (to be written).
