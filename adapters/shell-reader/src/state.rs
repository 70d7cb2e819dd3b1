//! What the reader remembers while it walks a command: the directory, variables assigned
//! earlier, `sh -c`'s positional arguments, and links made earlier in the same command.

use std::collections::{HashMap, HashSet};

use super::effect::join;

/// The directory commands run in, relative to the one the command started in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cwd {
    /// `""` is the starting directory; otherwise a relative or absolute path.
    Known(String),
    Unknown,
}

/// The shell as far as the reader follows it.
#[derive(Debug, Clone)]
pub struct State {
    pub cwd: Cwd,
    /// `$OLDPWD`, for `cd -` and `~-`.
    pub oldpwd: Cwd,
    pub dir_stack: Vec<Cwd>,
    /// Variables assigned in the command; `None` is a value only known at runtime.
    pub vars: HashMap<String, Option<String>>,
    /// Names exported to the commands this shell starts (`export D=src`).
    pub exported: HashSet<String>,
    /// `$0`, `$1`, … of a `sh -c` script; `None` at the top, where they are unknown.
    pub positional: Option<Vec<String>>,
    /// Links made earlier in the command (`ln -s src l`): the link's path, as targets are
    /// spelled, to what it leads to.
    pub links: HashMap<String, String>,
}

impl State {
    pub fn new(cwd: Cwd) -> State {
        State {
            cwd,
            oldpwd: Cwd::Unknown,
            dir_stack: Vec::new(),
            vars: HashMap::new(),
            exported: HashSet::new(),
            positional: None,
            links: HashMap::new(),
        }
    }

    /// The state a child shell (`sh -c`) starts with: the directory, exported variables and
    /// links (which live on disk), and its own positional arguments.
    pub fn child(
        &self,
        positional: Option<Vec<String>>,
        assigned: &[(String, Option<String>)],
    ) -> State {
        let mut vars: HashMap<String, Option<String>> = self
            .exported
            .iter()
            .filter_map(|name| Some((name.clone(), self.vars.get(name)?.clone())))
            .collect();
        vars.extend(assigned.iter().cloned());
        State {
            cwd: self.cwd.clone(),
            oldpwd: self.oldpwd.clone(),
            dir_stack: Vec::new(),
            exported: vars.keys().cloned().collect(),
            vars,
            positional,
            links: self.links.clone(),
        }
    }

    /// `path` as relative to the starting directory (or absolute), `None` when the
    /// directory is unknown and the path is relative.
    pub fn resolve(&self, path: &str) -> Option<String> {
        match &self.cwd {
            _ if path.starts_with('/') => Some(path.to_owned()),
            Cwd::Known(base) => Some(join(base, path)),
            Cwd::Unknown => None,
        }
    }

    /// Where `path` really leads when a link made earlier in the command is on its way:
    /// `l/a` after `ln -s src l` is `src/a`. `None` when no such link is.
    pub fn through_links(&self, path: &str) -> Option<String> {
        if self.links.is_empty() {
            return None;
        }
        let mut current = path.to_owned();
        let mut changed = false;
        // Bounded: links to links are followed a few times, a loop is not.
        for _ in 0..8 {
            let trimmed = current.trim_end_matches('/');
            let mut hit = None;
            for (at, _) in trimmed
                .match_indices('/')
                .chain(std::iter::once((trimmed.len(), "")))
            {
                if let Some(target) = self.links.get(&trimmed[..at]) {
                    hit = Some(format!("{target}{}", &trimmed[at..]));
                    break;
                }
            }
            match hit {
                Some(next) if next != current => {
                    current = next;
                    changed = true;
                }
                _ => break,
            }
        }
        changed.then_some(current)
    }

    /// Merge what another path through the command may have left (`a || cd b`): whatever
    /// differs becomes unknown, except the directory, which stays known when equal.
    pub fn merge(&mut self, other: &State) {
        if self.cwd != other.cwd {
            self.cwd = Cwd::Unknown;
        }
        if self.oldpwd != other.oldpwd {
            self.oldpwd = Cwd::Unknown;
        }
        if self.dir_stack != other.dir_stack {
            self.dir_stack = vec![Cwd::Unknown; self.dir_stack.len().min(other.dir_stack.len())];
        }
        for (name, value) in &other.vars {
            if self.vars.get(name) != Some(value) {
                self.vars.insert(name.clone(), None);
            }
        }
        let only_here: Vec<String> = self
            .vars
            .keys()
            .filter(|k| !other.vars.contains_key(*k))
            .cloned()
            .collect();
        for name in only_here {
            self.vars.insert(name, None);
        }
        self.exported.extend(other.exported.iter().cloned());
        for (link, target) in &other.links {
            self.links
                .entry(link.clone())
                .or_insert_with(|| target.clone());
        }
    }
}
