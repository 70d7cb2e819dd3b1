//! Links `acc-guard` as a static position-independent program where the C library allows it
//! (Linux, glibc, its static archives installed). Every confined shell call starts that
//! runner once; a dynamic start maps `libc.so` and `libgcc_s.so` and resolves their symbols,
//! which a static one does not (docs/PERFORMANCE.md, "Confined calls (issue 25)", fifth
//! round). The other programs stay dynamic: their start is not paid per shell call, and a
//! static glibc cannot load NSS modules or other shared objects should one ever need them.
//!
//! Cargo passes link arguments to one program only after rustc's own, and rustc names the
//! C runtime's dynamic libraries (`-Bdynamic -lgcc_s … -lc`) before them: `-static-pie`
//! alone therefore gives a program with a static start that still needs `libc.so.6`, which
//! crashes at once. A directory searched for those names holds linker scripts that name the
//! static archives instead; the system's own directories are searched after it.

use std::path::{Path, PathBuf};
use std::process::Command;

const PROGRAM: &str = "acc-guard";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CC");
    println!("cargo:rerun-if-env-changed=ACC_GUARD_DYNAMIC");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let already_static = var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "crt-static");
    // A cross build's archives are not the host compiler's: it keeps the dynamic link.
    if var("TARGET") != var("HOST")
        || var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
        || already_static
        || !var("ACC_GUARD_DYNAMIC").is_empty()
    {
        return;
    }
    let out = PathBuf::from(var("OUT_DIR")).join("static-pie");
    match scripts(&out) {
        Ok(()) => {
            println!("cargo:rustc-link-arg-bin={PROGRAM}=-static-pie");
            println!("cargo:rustc-link-arg-bin={PROGRAM}=-L{}", out.display());
        }
        Err(why) => println!("cargo:warning={PROGRAM} is linked dynamically: {why}"),
    }
}

/// Writes the linker scripts that stand for the dynamic libraries rustc names.
fn scripts(dir: &Path) -> Result<(), String> {
    let c = archive("libc.a")?;
    let eh = archive("libgcc_eh.a")?;
    let gcc = archive("libgcc.a")?;
    let m = archive("libm.a")?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let write = |name: &str, text: String| {
        std::fs::write(dir.join(name), text).map_err(|e| format!("{name}: {e}"))
    };
    // The unwinder std links as libgcc_s is libgcc_eh in a static program; libc and libgcc
    // need each other's symbols, so they are one group.
    write("libgcc_s.so", format!("INPUT({})\n", eh.display()))?;
    write("libm.so", format!("INPUT({})\n", m.display()))?;
    write(
        "libc.so",
        format!(
            "GROUP({} {} {})\n",
            c.display(),
            eh.display(),
            gcc.display()
        ),
    )
}

/// The C compiler's static archive `name`, or why there is none (glibc's static archives
/// come with its development package, libc6-dev or glibc-static).
fn archive(name: &str) -> Result<PathBuf, String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let out = Command::new(&cc)
        .arg(format!("-print-file-name={name}"))
        .output()
        .map_err(|e| format!("{cc}: {e}"))?;
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    // The compiler echoes the bare name back for a file it cannot find.
    if !path.is_absolute() || !path.is_file() {
        return Err(format!(
            "{cc} finds no {name} (install glibc's static libraries)"
        ));
    }
    path.canonicalize().map_err(|e| format!("{name}: {e}"))
}
