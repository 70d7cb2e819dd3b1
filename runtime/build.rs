//! Lays out the release `acc-hook`'s and `acc`'s hot code together, and links `acc-guard`
//! as a static position-independent program.
//!
//! **The hot code's order.** A hook call is a whole process: most of what it costs beyond
//! its instructions is the page faults of the code it runs, spread through a 13 MB binary.
//! `link/<program>.order` lists, in the order first run, the functions the measured
//! processes run (`link/hot_order.py` writes it; `link/README.md` says when); LLD places
//! them in that order at the start of `.text`, so they share few pages (docs/PERFORMANCE.md,
//! "The hot code laid out, eleventh round"). Only where the linker is LLD, as rustc's
//! default linker is on x86_64 Linux since 1.90, and only in release: a name the binary no
//! longer has is skipped, not an error (`--no-warn-symbol-ordering`), so a stale list costs
//! speed, never a build. `ACC_LINK_UNORDERED=1`, or a linker chosen in `RUSTFLAGS`, links
//! without it; so does a linker chosen in the configuration.
//!
//! **`acc-guard`, static.** Links `acc-guard` as a static position-independent program
//! where the C library allows it (Linux, glibc, its static archives installed). Every
//! confined shell call starts that runner once; a dynamic start maps `libc.so` and
//! `libgcc_s.so` and resolves their symbols, which a static one does not (docs/PERFORMANCE.md,
//! "Confined calls (issue 25)", fifth round). The other programs stay dynamic: their start is
//! not paid per shell call, and a static glibc cannot load NSS modules or other shared
//! objects should one ever need them.
//!
//! Cargo passes link arguments to one program only after rustc's own, and rustc names the
//! C runtime's dynamic libraries (`-Bdynamic -lgcc_s … -lc`) before them: `-static-pie`
//! alone therefore gives a program with a static start that still needs `libc.so.6`, which
//! crashes at once. A directory searched for those names holds linker scripts that name the
//! static archives instead; the system's own directories are searched after it.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "link/order_args.rs"]
mod order_args;

const PROGRAM: &str = "acc-guard";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CC");
    println!("cargo:rerun-if-env-changed=ACC_GUARD_DYNAMIC");
    println!("cargo:rerun-if-env-changed=ACC_LINK_UNORDERED");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    order_hot_code(&var);
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

/// Hands each ordered program its list, where the link is a release one by LLD.
fn order_hot_code(var: &dyn Fn(&str) -> String) {
    let dir = PathBuf::from(var("CARGO_MANIFEST_DIR")).join("link");
    println!("cargo:rerun-if-changed=link/order_args.rs");
    for program in order_args::ORDERED {
        println!(
            "cargo:rerun-if-changed={}",
            order_args::list(&dir, program).display()
        );
    }
    let release = Command::new(var("RUSTC"))
        .arg("-vV")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
        .unwrap_or_default();
    let release = release
        .lines()
        .find_map(|l| l.strip_prefix("release: "))
        .unwrap_or_default();
    let mut warn = |why: String| println!("cargo:warning={why}");
    for (program, arg) in order_args::link_args(var, release, &dir, &mut warn) {
        println!("cargo:rustc-link-arg-bin={program}={arg}");
    }
}
