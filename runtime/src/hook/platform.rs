//! The platform string evidence rows use: `(darwin|linux|win32)-(arm64|x64)`.

/// This machine's platform, as evidence rows spell it.
pub fn current() -> String {
    name(std::env::consts::OS, std::env::consts::ARCH)
}

/// Maps Rust's OS and architecture names to Node's, which evidence rows use; anything else
/// passes through unchanged (and then matches no row's platform).
pub fn name(os: &str, arch: &str) -> String {
    let os = match os {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    };
    let arch = match arch {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{os}-{arch}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_style_names() {
        assert_eq!(name("linux", "x86_64"), "linux-x64");
        assert_eq!(name("macos", "aarch64"), "darwin-arm64");
        assert_eq!(name("windows", "x86_64"), "win32-x64");
        assert_eq!(name("freebsd", "riscv64"), "freebsd-riscv64");
        assert!(current().contains('-'));
    }
}
