//! The recorder's import graph: drawn from the `use` paths of every file under
//! `src/record` (`crate::record::…`, `super::…`, `self::…` and a file's own child modules,
//! named or declared),
//! it has no circle of more than two files. A circle of two is a module and its child (a
//! test file's `use super::*`, a parent re-exporting its child); anything longer means a
//! layer reaches back up (kit into a scenario, a scenario into the output), which makes
//! adding a scenario touch files outside its folder.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path (`["record", "kit", "room"]`) for each file.
type Files = BTreeMap<Vec<String>, PathBuf>;

fn module_files(root: &Path, prefix: &[String], files: &mut Files) {
    for entry in std::fs::read_dir(root).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            let mut module = prefix.to_vec();
            module.push(name);
            module_files(&path, &module, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let mut module = prefix.to_vec();
            if name != "mod" {
                module.push(name);
            }
            files.insert(module, path);
        }
    }
}

/// The `use` trees of `text`, flattened into paths (`a::{b, c::d}` gives `a::b`, `a::c::d`),
/// plus the inline paths that start with `crate::record::` or `super::`. Each path comes
/// with whether it was written inside an inline `mod … {` (where `super` is the file).
fn paths(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut inline = false;
    let mut statement = String::new();
    let mut in_use = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("//") {
            continue;
        }
        if trimmed.starts_with("mod ") && trimmed.ends_with('{') {
            inline = true;
        }
        if !in_use
            && (trimmed.starts_with("use ")
                || trimmed.starts_with("pub use ")
                || trimmed.starts_with("pub(crate) use "))
        {
            in_use = true;
            statement.clear();
        }
        if in_use {
            statement.push_str(trimmed);
            if trimmed.ends_with(';') {
                in_use = false;
                let tree = statement
                    .split_once("use ")
                    .unwrap()
                    .1
                    .trim_end_matches(';');
                for path in flatten(tree) {
                    out.push((path, inline));
                }
            }
            continue;
        }
        for start in ["crate::record::", "super::"] {
            let mut rest = trimmed;
            while let Some(at) = rest.find(start) {
                let before = rest[..at].chars().last();
                let tail = &rest[at..];
                let end = tail
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .unwrap_or(tail.len());
                if !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    out.push((tail[..end].trim_end_matches(':').to_owned(), inline));
                }
                rest = &tail[end.max(1)..];
            }
        }
    }
    out
}

fn flatten(tree: &str) -> Vec<String> {
    let tree: String = tree
        .replace(" as ", "@")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let Some(open) = tree.find('{') else {
        return vec![tree.split('@').next().unwrap().to_owned()];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.len() - 1];
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(|p| flatten(p).into_iter().map(move |q| format!("{prefix}{q}")))
        .collect()
}

/// The file a path written in module `at` lands in: the longest module prefix that is a
/// file. `None` for paths outside the record tree (other crates, other modules).
fn resolve(files: &Files, at: &[String], path: &str, inline: bool) -> Option<Vec<String>> {
    let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let mut module: Vec<String>;
    let mut rest = &segments[..];
    if rest.first() == Some(&"crate") {
        module = Vec::new();
        rest = &rest[1..];
    } else if matches!(rest.first(), Some(&"super") | Some(&"self")) {
        module = at.to_vec();
        if inline {
            // `super` inside an inline module is the file itself.
            module.push("<inline>".to_owned());
        }
        while let Some(&first) = rest.first() {
            match first {
                "super" => {
                    module.pop();
                }
                "self" => {}
                _ => break,
            }
            rest = &rest[1..];
        }
        module.retain(|m| m != "<inline>");
    } else {
        // A bare path is a child module of this file's, if it names one.
        module = at.to_vec();
        let child = [module.clone(), vec![rest.first()?.to_string()]].concat();
        if !files.contains_key(&child) {
            return None;
        }
    }
    let mut best = files.contains_key(&module).then(|| module.clone());
    for segment in rest {
        module.push((*segment).to_owned());
        if files.contains_key(&module) {
            best = Some(module.clone());
        }
    }
    best.filter(|m| m.first().is_some_and(|f| f == "record"))
}

/// Every edge `file -> file` of the tree under `src` whose module is `record`.
fn graph(src: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut files = Files::new();
    module_files(&src.join("record"), &["record".to_owned()], &mut files);
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (module, path) in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let targets = edges.entry(module.clone()).or_default();
        for (written, inline) in paths(&text) {
            if let Some(target) = resolve(&files, module, &written, inline)
                && target != *module
            {
                targets.insert(target);
            }
        }
        // A module depends on the modules in its folder (it declares them, by hand or, for
        // the scenarios, from the list that also writes the registry's match), except its
        // tests, which depend on it instead.
        for child in files
            .keys()
            .filter(|c| c.len() == module.len() + 1 && c.starts_with(module))
        {
            let name = child.last().unwrap();
            if name != "tests" && !name.ends_with("_tests") {
                targets.insert(child.clone());
            }
        }
        // A child module named inline (`lifecycle::Lifecycle` in a match) is an import too.
        for child in files
            .keys()
            .filter(|c| c.len() == module.len() + 1 && c.starts_with(module))
        {
            let written = format!("{}::", child.last().unwrap());
            let named = text
                .lines()
                .filter(|line| !line.trim_start().starts_with("//"))
                .any(|line| {
                    line.match_indices(&written).any(|(at, _)| {
                        !line[..at]
                            .chars()
                            .last()
                            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
                    })
                });
            if named {
                targets.insert(child.clone());
            }
        }
    }
    edges
}

/// Strongly connected components (Tarjan), of more than one file.
fn circles(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    struct State<'a> {
        edges: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        on_stack: BTreeSet<&'a Vec<String>>,
        out: Vec<Vec<Vec<String>>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Vec<String>) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.edges.get(v).into_iter().flatten() {
            let Some((w, _)) = s.edges.get_key_value(w) else {
                continue;
            };
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.clone());
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
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !state.index.contains_key(v) {
            visit(&mut state, v);
        }
    }
    state.out
}

fn long_circles(src: &Path) -> Vec<String> {
    circles(&graph(src))
        .into_iter()
        .filter(|c| c.len() > 2)
        .map(|c| {
            c.iter()
                .map(|m| m.join("::"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect()
}

#[test]
fn the_recorder_has_no_circle_of_more_than_two_files() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let edges = graph(&src);
    // The scan sees the tree: the layers are there and reached.
    assert!(edges.keys().any(|m| m.join("::") == "record::kit::recipe"));
    assert!(
        edges[&["record", "scenarios"].map(str::to_owned).to_vec()].contains(
            ["record", "scenarios", "lifecycle"]
                .map(str::to_owned)
                .as_slice()
        ),
        "the registry's import of each scenario is an edge"
    );
    let long = long_circles(&src);
    assert!(
        long.is_empty(),
        "import circles of more than two files: {long:#?}"
    );
}

#[test]
fn kit_imports_nothing_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut upward = Vec::new();
    for (from, targets) in graph(&src) {
        if from.get(1).is_some_and(|m| m == "kit") {
            for to in targets {
                if !to.get(1).is_some_and(|m| m == "kit" || m == "scenario") {
                    upward.push(format!("{} -> {}", from.join("::"), to.join("::")));
                }
            }
        }
    }
    assert!(upward.is_empty(), "kit reaches above itself: {upward:#?}");
}

/// The scan finds a circle it is shown: three planted files importing each other in turn.
#[test]
fn a_planted_circle_of_three_files_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record");
    std::fs::create_dir_all(record.join("kit")).unwrap();
    std::fs::write(record.join("mod.rs"), "pub mod kit;\npub mod a;\n").unwrap();
    std::fs::write(record.join("kit/mod.rs"), "pub mod b;\n").unwrap();
    std::fs::write(
        record.join("a.rs"),
        "use crate::record::kit::b::{Thing, other::Deep};\n",
    )
    .unwrap();
    std::fs::write(
        record.join("kit/b.rs"),
        "use super::c;\npub struct Thing;\n",
    )
    .unwrap();
    std::fs::write(
        record.join("kit/c.rs"),
        "fn f() { crate::record::a::g(); }\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
    )
    .unwrap();
    let long = long_circles(dir.path());
    assert_eq!(long, ["record::a, record::kit::b, record::kit::c"]);
    // A module and its child importing each other is the one circle allowed.
    std::fs::write(record.join("kit/c.rs"), "use super::b;\n").unwrap();
    assert!(long_circles(dir.path()).is_empty());
    assert_eq!(circles(&graph(dir.path())).len(), 1);
}
