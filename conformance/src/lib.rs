//! The checks every adapter must pass, each with a stable id.
