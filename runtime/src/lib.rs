//! acc's runtime: protocol types, the SQLite store, the coordination core, and the library
//! the `acc`, `acc-hook` and `acc-mcp` binaries drive.
