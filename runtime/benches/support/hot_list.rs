//! How much of its hot-code list (runtime/link/<program>.order) a release binary follows:
//! the names carry hashes that move with the compiler, a dependency or the profile, and a
//! name the binary no longer spells so is silently not placed (runtime/link/README.md says
//! when to regenerate; `hot_order.py check` says the same as this).

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;

/// One line: of the listed functions `binary` defines (by any spelling), how many the list
/// spells as the binary does, and whether those lie in the list's order at the start of
/// its code.
pub fn report(program: &str, binary: &Path) -> String {
    let list = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("link")
        .join(format!("{program}.order"));
    let Ok(text) = std::fs::read_to_string(&list) else {
        return format!("hot code: no list at {}", list.display());
    };
    let Ok(out) = Command::new("nm")
        .args(["--defined-only", "-n"])
        .arg(binary)
        .output()
    else {
        return "hot code: no `nm` to read the binary with".into();
    };
    // Function names in address order, each at its first address.
    let mut at = HashMap::new();
    let mut first = None;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if let [addr, kind, name] = f[..]
            && "tTwW".contains(kind)
            && let Ok(addr) = u64::from_str_radix(addr, 16)
        {
            at.entry(name.to_owned()).or_insert(addr);
            first = Some(first.map_or(addr, |f: u64| f.min(addr)));
        }
    }
    let stems: HashSet<String> = at.keys().map(|n| stem(n)).collect();
    let listed: Vec<&str> = text.lines().collect();
    let hot: HashSet<String> = listed
        .iter()
        .map(|n| stem(n))
        .filter(|s| stems.contains(s))
        .collect();
    let placed: Vec<u64> = listed.iter().filter_map(|n| at.get(*n).copied()).collect();
    let spelled: HashSet<String> = listed
        .iter()
        .filter(|n| at.contains_key(**n))
        .map(|n| stem(n))
        .collect();
    // Functions that share a section (the C runtime's) keep their own order.
    let rising = placed.windows(2).filter(|w| w[0] <= w[1]).count();
    let in_order = rising * 100 >= placed.len().saturating_sub(1) * 95;
    let leads = placed.first().copied() == first;
    format!(
        "hot code: {} of the {} listed functions {} defines are spelled as it spells them; {}",
        spelled.len(),
        hot.len(),
        binary.display(),
        if in_order && leads {
            "laid out in the list's order"
        } else {
            "NOT laid out in the list's order (an unordered build)"
        }
    )
}

/// A function's name without what moves with the build: legacy mangling's hash
/// (`17h<16 hex digits>E`), v0 mangling's crate disambiguators (`Cs<base 62>_`), LLVM's
/// suffix for a promoted local (`.llvm.<digits>`).
fn stem(name: &str) -> String {
    let mut name = name;
    if let Some((head, digits)) = name.rsplit_once(".llvm.")
        && !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
    {
        name = head;
    }
    let mut out = String::with_capacity(name.len());
    let split = name
        .len()
        .checked_sub(20)
        .and_then(|i| Some((name.get(..i)?, name.get(i..)?)));
    match split {
        Some((head, tail))
            if tail.starts_with("17h")
                && tail.ends_with('E')
                && tail[3..19].bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            out.push_str(head);
            out.push('E');
        }
        _ => out.push_str(name),
    }
    // `Cs` + base-62 digits + `_` inside a v0 name: the crate's disambiguator.
    if !out.starts_with("_R") {
        return out;
    }
    let mut stemmed = String::with_capacity(out.len());
    let mut rest = out.as_str();
    while let Some(i) = rest.find("Cs") {
        stemmed.push_str(&rest[..i + 2]);
        let after = &rest[i + 2..];
        let digits = after.bytes().take_while(u8::is_ascii_alphanumeric).count();
        if digits > 0 && after.as_bytes().get(digits) == Some(&b'_') {
            rest = &after[digits..];
        } else {
            rest = after;
        }
    }
    stemmed.push_str(rest);
    stemmed
}
