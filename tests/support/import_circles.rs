//! Import circles between the files of one crate: the strongly connected components of the
//! graph whose edges are a file's `crate::…`, `super::…` and `self::…` paths (in `use`
//! statements, groups expanded, and inline in code), each resolved to the deepest module
//! file it names. A parent naming its child by a bare path (`pub mod x; x::f()`) is no
//! edge, nor is any path from a module down into its own descendants (`lib.rs`
//! re-exporting `crate::core::Core`): a module owns its children, and only a reach back up
//! or across closes a circle.
//!
//! Comments, string literals and a trailing `#[cfg(test)] mod tests` are not read: a
//! test module may reach wherever it needs, and prose naming a path imports nothing.
//!
//! Shared by each crate's `tests/import_circles.rs` through `#[path]`, so the rule is one
//! piece of code for the whole house.

#![allow(dead_code, unused_macros)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path inside its crate (`hook/handlers/tool`; the crate root is `lib`).
pub type Module = String;

/// The circles under `src`, each as its sorted modules, sorted; modules whose name starts
/// with one of `skip` are left out of the graph (another check owns them).
pub fn circles(src: &Path, skip: &[&str]) -> Vec<Vec<Module>> {
    strongly_connected(&graph(src, skip))
}

/// The import graph under `src`: each module and the modules it reaches (up or across;
/// never its own descendants), without the modules `skip` leaves out.
pub fn graph(src: &Path, skip: &[&str]) -> BTreeMap<Module, BTreeSet<Module>> {
    let files = module_files(src);
    let mut graph: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    let known: BTreeSet<Vec<String>> = files.keys().cloned().collect();
    for (segments, file) in &files {
        let name = display(segments);
        if skip.iter().any(|s| name.starts_with(s)) {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let edges = graph.entry(name.clone()).or_default();
        for path in referenced_paths(&code_of(&text)) {
            if let Some(target) = resolve(segments, &path, &known) {
                let owned = target.len() > segments.len() && target.starts_with(segments);
                let target = display(&target);
                if target != name && !owned && !skip.iter().any(|s| target.starts_with(s)) {
                    edges.insert(target);
                }
            }
        }
    }
    graph
}

/// Every module file under `src` by its module path (`src/bin` holds other crates).
fn module_files(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(src).unwrap().to_path_buf();
            if path.is_dir() {
                if rel != Path::new("bin") {
                    stack.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let mut segments: Vec<String> = rel
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let last = segments.last().cloned().unwrap_or_default();
            if last == "mod" || (segments.len() == 1 && (last == "lib" || last == "main")) {
                segments.pop();
            }
            // A crate with both `lib.rs` and `main.rs`: the library is the root.
            if segments.is_empty() && last == "main" && src.join("lib.rs").exists() {
                continue;
            }
            out.insert(segments, path);
        }
    }
    out
}

fn display(segments: &[String]) -> Module {
    if segments.is_empty() {
        "lib".to_string()
    } else {
        segments.join("/")
    }
}

/// The module a path names from the file of module `from`: the deepest module file that
/// prefixes it.
fn resolve(from: &[String], path: &[String], known: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let mut base: Vec<String> = match path.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("super") | Some("self") => from.to_vec(),
        _ => return None,
    };
    let mut rest = &path[1..];
    if path[0] == "super" {
        base.pop()?;
    }
    while rest.first().is_some_and(|s| s == "super") {
        base.pop()?;
        rest = &rest[1..];
    }
    let mut best = known.contains(&base).then(|| base.clone());
    for segment in rest {
        base.push(segment.clone());
        if known.contains(&base) {
            best = Some(base.clone());
        }
    }
    best
}

/// The source without comments, string and char literals, and a trailing test module.
pub fn code_of(text: &str) -> String {
    strip(text, false)
}

/// The source without comments and a trailing test module, string literals kept (what a
/// program says, as well as what it names).
pub fn code_and_strings_of(text: &str) -> String {
    strip(text, true)
}

fn strip(text: &str, keep_strings: bool) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        let after_ident = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
            continue;
        }
        if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |n| n + 2);
            continue;
        }
        let literal_len =
            if let Some((open, hashes)) = raw_string_start(rest).filter(|_| !after_ident) {
                let close = format!("\"{}", "#".repeat(hashes));
                Some(
                    open + rest[open..]
                        .find(&close)
                        .map_or(rest.len() - open, |n| n + close.len()),
                )
            } else if bytes[i] == b'"' {
                let mut j = 1;
                while j < rest.len() && rest.as_bytes()[j] != b'"' {
                    j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
                }
                Some((j + 1).min(rest.len()))
            } else {
                None
            };
        if let Some(len) = literal_len {
            out.push_str(if keep_strings { &rest[..len] } else { "\"\"" });
            i += len;
        } else if bytes[i] == b'\'' && is_char_literal(rest) {
            i += rest[1..].find('\'').map_or(rest.len(), |n| n + 2);
            out.push_str("' '");
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    if let Some(at) = test_module_start(&out) {
        out.truncate(at);
    }
    out
}

/// `r"`, `r#"`, `br##"`…: the length of the opening and the number of `#`.
fn raw_string_start(rest: &str) -> Option<(usize, usize)> {
    let after = rest.strip_prefix("br").or_else(|| rest.strip_prefix('r'))?;
    let hashes = after.len() - after.trim_start_matches('#').len();
    after[hashes..]
        .starts_with('"')
        .then_some((rest.len() - after.len() + hashes + 1, hashes))
}

/// `'x'`, `'\n'`, `'\''`, `'\u{1F600}'`, not a lifetime (`'a`).
fn is_char_literal(rest: &str) -> bool {
    let mut chars = rest[1..].chars();
    match chars.next() {
        Some('\\') => true,
        Some(_) => chars.next() == Some('\''),
        None => false,
    }
}

fn test_module_start(code: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(n) = code[from..].find("#[cfg(test)]") {
        let at = from + n;
        let after = code[at + "#[cfg(test)]".len()..].trim_start();
        if after.starts_with("mod ") || after.starts_with("pub mod ") {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Colons,
    Open,
    Close,
    Comma,
    Star,
    Semi,
    Other,
}

fn tokens(code: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Token::Ident(chars[start..i].iter().collect()));
            continue;
        }
        i += 1;
        out.push(match c {
            ':' if chars.get(i) == Some(&':') => {
                i += 1;
                Token::Colons
            }
            '{' => Token::Open,
            '}' => Token::Close,
            ',' => Token::Comma,
            '*' => Token::Star,
            ';' => Token::Semi,
            c if c.is_whitespace() => continue,
            _ => Token::Other,
        });
    }
    out
}

/// Every path of the code that starts at `crate`, `super` or `self`, use groups expanded.
pub fn referenced_paths(code: &str) -> Vec<Vec<String>> {
    let toks = tokens(code);
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i] == Token::Ident("use".into()) {
            let mut j = i + 1;
            use_tree(&toks, &mut j, Vec::new(), &mut out);
            i = j.max(i + 1);
            continue;
        }
        if let Token::Ident(first) = &toks[i]
            && matches!(first.as_str(), "crate" | "super" | "self")
            && toks.get(i + 1) == Some(&Token::Colons)
            && !(i > 0 && toks[i - 1] == Token::Colons)
        {
            let mut path = vec![first.clone()];
            let mut j = i + 1;
            while toks.get(j) == Some(&Token::Colons) {
                match toks.get(j + 1) {
                    Some(Token::Ident(s)) => {
                        path.push(s.clone());
                        j += 2;
                    }
                    _ => break,
                }
            }
            out.push(path);
            i = j;
            continue;
        }
        i += 1;
    }
    out.retain(|p| matches!(p[0].as_str(), "crate" | "super" | "self"));
    out
}

/// Parses one use tree at `toks[*j]` under `prefix`, pushing each leaf path.
fn use_tree(toks: &[Token], j: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut path = prefix;
    loop {
        match toks.get(*j) {
            Some(Token::Ident(s)) if s != "as" => {
                path.push(s.clone());
                *j += 1;
            }
            Some(Token::Star) => {
                *j += 1;
                break;
            }
            Some(Token::Open) => {
                *j += 1;
                loop {
                    match toks.get(*j) {
                        Some(Token::Close) => {
                            *j += 1;
                            return;
                        }
                        Some(Token::Comma) => *j += 1,
                        None | Some(Token::Semi) => return,
                        _ => {
                            let before = *j;
                            use_tree(toks, j, path.clone(), out);
                            if *j == before {
                                *j += 1;
                            }
                        }
                    }
                }
            }
            _ => break,
        }
        if toks.get(*j) == Some(&Token::Colons) {
            *j += 1;
        } else {
            break;
        }
    }
    if toks.get(*j) == Some(&Token::Ident("as".into())) {
        *j += 2;
    }
    // `self` inside a group names the group's module itself.
    if path.last().is_some_and(|s| s == "self") && path.len() > 1 {
        path.pop();
    }
    if !path.is_empty() {
        out.push(path);
    }
}

/// Tarjan's strongly connected components of more than one module.
fn strongly_connected(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        graph: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<Module>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        if let Some(edges) = s.graph.get(v) {
            for w in edges {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let low = s.low[v].min(s.low[w]);
                    s.low.insert(v, low);
                } else if s.on_stack.contains(w) {
                    let low = s.low[v].min(s.index[w]);
                    s.low.insert(v, low);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

/// Fails naming every circle that is not in `allowed` (each allowed circle is its sorted
/// modules and the reason it stays) and every allowed one that is gone, so the list of
/// circles left stays true both ways.
pub fn assert_circles(src: &Path, skip: &[&str], allowed: &[(&[&str], &str)]) {
    let found = circles(src, skip);
    let mut allowed_sets: Vec<Vec<String>> = allowed
        .iter()
        .map(|(mods, reason)| {
            assert!(
                !reason.trim().is_empty(),
                "circle {mods:?} stays without a reason"
            );
            let mut v: Vec<String> = mods.iter().map(|m| m.to_string()).collect();
            v.sort();
            v
        })
        .collect();
    allowed_sets.sort();
    let new: Vec<_> = found.iter().filter(|c| !allowed_sets.contains(c)).collect();
    let gone: Vec<_> = allowed_sets.iter().filter(|c| !found.contains(c)).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "import circles under {}:\n  new (move the shared type or function below both files): {new:?}\n  allowed but gone (drop them from the list): {gone:?}",
        src.display()
    );
}

/// A planted circle is found: two sibling files reaching each other through `super::`, a
/// group and an inline path; a test module and a comment add no edge.
pub fn planted_circle_is_caught() {
    // No tempfile: every crate that includes this file can run it.
    let dir = std::env::temp_dir().join(format!(
        "acc-import-circles-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let src = dir.as_path();
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod a;\npub mod c;\n").unwrap();
    std::fs::write(src.join("a.rs"), "pub mod x;\npub mod y;\n").unwrap();
    std::fs::write(
        src.join("a/x.rs"),
        "use super::{y::{self, Y}, other};\npub struct X;\n",
    )
    .unwrap();
    std::fs::write(
        src.join("a/y.rs"),
        "pub struct Y;\nfn f() -> super::x::X { todo!() }\n",
    )
    .unwrap();
    std::fs::write(
        src.join("c.rs"),
        "// use crate::a::x;\nconst S: &str = \"crate::a::y\";\n#[cfg(test)]\nmod tests {\n    use crate::a::x::X;\n}\n",
    )
    .unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod a;\npub mod c;\nuse c::*;\n").unwrap();
    assert_eq!(
        circles(src, &[]),
        vec![vec!["a/x".to_string(), "a/y".to_string()]]
    );
    assert!(
        circles(src, &["a/y"]).is_empty(),
        "a skipped module is no edge"
    );
    // The file that would close a circle only from its tests closes none.
    std::fs::write(
        src.join("a/y.rs"),
        "pub struct Y;\n#[cfg(test)]\nmod tests { use super::super::x::X; }\n",
    )
    .unwrap();
    assert!(circles(src, &[]).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The two tests every crate runs: its circles are exactly the allowed ones (each
/// `(&[modules], "reason")`), and the scan catches a planted circle. `skip` leaves modules
/// to a check of their own.
macro_rules! import_circle_tests {
    (skip: $skip:expr, allowed: $allowed:expr $(,)?) => {
        #[test]
        fn no_import_circle_but_the_allowed_ones() {
            let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
            import_circles::assert_circles(&src, $skip, $allowed);
        }

        #[test]
        fn a_planted_circle_is_caught() {
            import_circles::planted_circle_is_caught();
        }
    };
}
