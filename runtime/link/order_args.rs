//! Which link arguments lay out a release program's hot code (`runtime/build.rs` prints
//! them; `runtime/tests/hot_order.rs` tests them). See `runtime/link/README.md`.

use std::path::{Path, PathBuf};

/// The programs whose hot code is laid out, each by `link/<program>.order`.
pub const ORDERED: [&str; 2] = ["acc-hook", "acc"];

/// `<link dir>/<program>.order`.
pub fn list(link_dir: &Path, program: &str) -> PathBuf {
    link_dir.join(format!("{program}.order"))
}

/// The `(program, link argument)` pairs for this build: none unless it is a release build
/// for x86_64 Linux by a rustc that links with its own LLD (`rustc_release`, as `rustc -vV`
/// says it), with no linker chosen in the configuration or the flags (it may not be LLD,
/// and `--symbol-ordering-file` is LLD's) and `ACC_LINK_UNORDERED` unset. `var` reads the
/// build script's environment; warnings go to `warn`.
pub fn link_args(
    var: &dyn Fn(&str) -> String,
    rustc_release: &str,
    link_dir: &Path,
    warn: &mut dyn FnMut(String),
) -> Vec<(&'static str, String)> {
    // `PROFILE` is `release` for every profile that inherits from it (the benches too).
    let chosen_linker =
        !var("RUSTC_LINKER").is_empty() || var("CARGO_ENCODED_RUSTFLAGS").contains("link");
    if var("PROFILE") != "release"
        || var("TARGET") != "x86_64-unknown-linux-gnu"
        || chosen_linker
        || !var("ACC_LINK_UNORDERED").is_empty()
        || !links_with_lld(rustc_release)
    {
        return Vec::new();
    }
    let mut args = Vec::new();
    for program in ORDERED {
        let list = list(link_dir, program);
        let spelled = list.display().to_string();
        // `-Wl,` splits its argument at commas; the path must be whole to be found.
        if !list.is_absolute() || !list.is_file() || spelled.contains(',') {
            warn(format!("{program}: no hot-code order at {spelled}"));
            continue;
        }
        args.push((
            program,
            format!("-Wl,--symbol-ordering-file={spelled},--no-warn-symbol-ordering"),
        ));
    }
    args
}

/// Whether a rustc of this release (`1.95.0`, `1.97.0-nightly`) links x86_64 Linux
/// programs with its own LLD by default, as every one from 1.90 does; an older one calls
/// the system's `ld`, which knows no `--symbol-ordering-file`.
pub fn links_with_lld(rustc_release: &str) -> bool {
    let mut parts = rustc_release
        .split(['.', '-'])
        .map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(major), Some(minor)) => (major, minor) >= (1, 90),
        _ => false,
    }
}
