//! Obtaining real clients from their public registries and running them in a sandbox.
