//! The hot code's order (runtime/link/README.md): which builds hand LLD the lists, and that
//! the lists are what the linker can read. Whether a release binary follows its list is
//! printed by `hook_bench` and `hot_order.py check`, which run the release build; a test
//! build is a debug one, which is never ordered.

#[path = "../link/order_args.rs"]
mod order_args;

use order_args::{ORDERED, link_args, links_with_lld};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

fn link_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("link")
}

/// A release build for x86_64 Linux with nothing chosen, plus `changes`.
fn build_env(changes: &[(&str, &str)]) -> HashMap<String, String> {
    let mut env: HashMap<String, String> = [
        ("PROFILE", "release"),
        ("TARGET", "x86_64-unknown-linux-gnu"),
        ("CARGO_ENCODED_RUSTFLAGS", ""),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    for (k, v) in changes {
        env.insert((*k).to_owned(), (*v).to_owned());
    }
    env
}

fn args_for(
    changes: &[(&str, &str)],
    rustc: &str,
    dir: &Path,
) -> (Vec<(&'static str, String)>, Vec<String>) {
    let env = build_env(changes);
    let var = |name: &str| env.get(name).cloned().unwrap_or_default();
    let mut warnings = Vec::new();
    let args = link_args(&var, rustc, dir, &mut |w| warnings.push(w));
    (args, warnings)
}

#[test]
fn a_release_build_by_lld_hands_each_program_its_list() {
    let (args, warnings) = args_for(&[], "1.95.0", &link_dir());
    assert!(warnings.is_empty(), "{warnings:?}");
    let programs: Vec<&str> = args.iter().map(|(p, _)| *p).collect();
    assert_eq!(programs, ORDERED);
    for (program, arg) in &args {
        let list = link_dir().join(format!("{program}.order"));
        assert_eq!(
            arg,
            &format!(
                "-Wl,--symbol-ordering-file={},--no-warn-symbol-ordering",
                list.display()
            )
        );
        assert!(list.is_absolute() && list.is_file(), "{}", list.display());
    }
}

#[test]
fn no_list_where_the_linker_may_not_be_lld() {
    let unordered: [(&[(&str, &str)], &str); 8] = [
        (&[("PROFILE", "debug")], "1.95.0"),
        (&[("TARGET", "aarch64-unknown-linux-gnu")], "1.95.0"),
        (&[("TARGET", "x86_64-unknown-linux-musl")], "1.95.0"),
        (&[("RUSTC_LINKER", "/usr/bin/cc")], "1.95.0"),
        (
            &[(
                "CARGO_ENCODED_RUSTFLAGS",
                "-Dwarnings\x1f-Clink-arg=-fuse-ld=bfd",
            )],
            "1.95.0",
        ),
        (&[("CARGO_ENCODED_RUSTFLAGS", "-Clinker=clang")], "1.95.0"),
        (&[("ACC_LINK_UNORDERED", "1")], "1.95.0"),
        // The workspace's oldest rustc calls the system's `ld`.
        (&[], "1.88.0"),
    ];
    for (changes, rustc) in unordered {
        let (args, _) = args_for(changes, rustc, &link_dir());
        assert!(args.is_empty(), "{changes:?} {rustc}: {args:?}");
    }
    // Unrelated flags keep the order.
    let (args, _) = args_for(
        &[(
            "CARGO_ENCODED_RUSTFLAGS",
            "-Dwarnings\x1f-Ctarget-cpu=native",
        )],
        "1.95.0",
        &link_dir(),
    );
    assert_eq!(args.len(), ORDERED.len());
}

#[test]
fn a_list_missing_or_unspellable_to_the_linker_is_skipped_and_said() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("acc-hook.order"), "main\n").unwrap();
    let (args, warnings) = args_for(&[], "1.95.0", tmp.path());
    assert_eq!(args.len(), 1, "{args:?}");
    assert_eq!(args[0].0, "acc-hook");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].starts_with("acc: no hot-code order at "));

    // `-Wl,` would split a path with a comma into two arguments.
    let comma = tmp.path().join("a,b");
    std::fs::create_dir(&comma).unwrap();
    for program in ORDERED {
        std::fs::write(comma.join(format!("{program}.order")), "main\n").unwrap();
    }
    let (args, warnings) = args_for(&[], "1.95.0", &comma);
    assert!(args.is_empty(), "{args:?}");
    assert_eq!(warnings.len(), ORDERED.len());

    // A relative path would be read from wherever the linker runs.
    let (args, _) = args_for(&[], "1.95.0", Path::new("runtime/link"));
    assert!(args.is_empty(), "{args:?}");
}

#[test]
fn rustc_links_with_lld_from_1_90() {
    for (release, lld) in [
        ("1.90.0", true),
        ("1.95.0", true),
        ("1.97.0-nightly", true),
        ("1.100.0", true),
        ("2.0.0", true),
        ("1.89.1", false),
        ("1.88.0", false),
        ("0.99.0", false),
        ("", false),
        ("x.y.z", false),
        ("1", false),
    ] {
        assert_eq!(links_with_lld(release), lld, "{release}");
    }
}

#[test]
fn each_list_names_the_programs_start_then_its_hot_code_once_each() {
    for program in ORDERED {
        let path = link_dir().join(format!("{program}.order"));
        let text = std::fs::read_to_string(&path).unwrap();
        let names: Vec<&str> = text.lines().collect();
        assert!(
            names.len() > 100,
            "{}: {} names",
            path.display(),
            names.len()
        );
        let mut seen = HashSet::new();
        for name in &names {
            // LLD reads one symbol a line, spaces and all: anything else is no name.
            let symbol = !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.$".contains(c));
            assert!(symbol, "{}: {name:?} is no symbol", path.display());
            assert!(seen.insert(*name), "{}: {name} twice", path.display());
        }
        // The order first run: the C runtime's entry and `main` lead.
        let at = |name: &str| names.iter().position(|n| *n == name);
        assert_eq!(at("_start"), Some(0), "{}", path.display());
        assert!(at("main").is_some_and(|i| i < 20), "{}", path.display());
    }
    let hook = std::fs::read_to_string(link_dir().join("acc-hook.order")).unwrap();
    for part in [
        "acc_runtime4hook5entry4main",
        "acc_runtime4hook11beat_writer",
        "sqlite3VdbeExec",
    ] {
        assert!(hook.contains(part), "acc-hook.order names no {part}");
    }
    let acc = std::fs::read_to_string(link_dir().join("acc.order")).unwrap();
    assert!(
        acc.contains("acc_runtime3cli8commands6claims"),
        "acc.order names no claim"
    );
}
