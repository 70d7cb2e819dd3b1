//! Expanding a word the way bash would before running the command, as far as it can be
//! known before: braces, `~`, parameters this reader knows (assigned earlier in the command,
//! `$PWD`, `$HOME`, positional arguments of `sh -c`), field splitting of their values, and
//! globs against the file system at hook time. Whatever cannot be known leaves the word
//! marked unknown, with the reason; it only matters where the word names a written file.

use super::context::ShellContext;
use super::lexer::{Atom, Word};
use super::state::{Cwd, State};
use super::unreadable::Unreadable;

/// The most words one word may expand to (braces and globs multiply).
pub const MAX_FIELDS: usize = 100_000;

/// The most directories one glob may list (`/*/*/*/*` would walk the disk).
const MAX_LISTINGS: usize = 2_000;

/// What one word expands to: its fields, each a word with the final text.
pub fn expand(word: &Word, state: &State, ctx: &ShellContext<'_>) -> Result<Vec<Word>, Unreadable> {
    if word.process || word.atoms.is_empty() {
        return Ok(vec![word.clone()]);
    }
    // Plain text, as most words are: nothing to expand.
    if word
        .atoms
        .iter()
        .all(|a| matches!(a, Atom::Char { c, quoted } if *quoted || !is_special_char(*c)))
    {
        return Ok(vec![finished(word)]);
    }
    let mut out = Vec::new();
    for atoms in braces(&word.atoms)? {
        match fields(&atoms, state, ctx) {
            Ok(fields) => {
                for field in fields {
                    match glob(field, state, ctx, &mut out) {
                        Ok(()) => {}
                        Err(Unreadable::TooLarge) => return Err(Unreadable::TooLarge),
                        // Matters only where the word names a written file.
                        Err(why) => out.push(unknown(word, why)),
                    }
                    if out.len() > MAX_FIELDS {
                        return Err(Unreadable::TooLarge);
                    }
                }
            }
            Err(why) => {
                out.push(unknown(word, why));
                return Ok(out);
            }
        }
    }
    Ok(out)
}

/// The value of an assignment's right-hand side (`NAME=value`): `~` after `=` is expanded,
/// parameters are, nothing is split or globbed. `None` when it is only known at runtime.
pub fn assigned_value(word: &Word, state: &State, ctx: &ShellContext<'_>) -> Option<String> {
    let eq = word.atoms.iter().position(|a| {
        matches!(
            a,
            Atom::Char {
                c: '=',
                quoted: false
            }
        )
    })?;
    let fields = fields_joined(&word.atoms[eq + 1..], state, ctx).ok()?;
    Some(fields)
}

fn fields_joined(
    atoms: &[Atom],
    state: &State,
    ctx: &ShellContext<'_>,
) -> Result<String, Unreadable> {
    let mut text = String::new();
    let atoms = tilde(atoms, state, ctx, &mut text)?;
    for atom in atoms {
        match atom {
            Atom::Char { c, .. } => text.push(*c),
            Atom::Param { name, .. } => text.push_str(&param(name, state, ctx)?),
            Atom::Opaque { substitution, .. } => return Err(opaque_reason(*substitution)),
        }
    }
    Ok(text)
}

fn is_special_char(c: char) -> bool {
    matches!(c, '*' | '?' | '[' | '{' | '~')
}

/// The word as written (no expansion applies).
fn finished(word: &Word) -> Word {
    Word {
        text: word.text.clone(),
        first_quoted: word.first_quoted,
        substituted: word.substituted,
        process: word.process,
        ..Word::default()
    }
}

fn unknown(word: &Word, why: Unreadable) -> Word {
    Word {
        substituted: true,
        unknown: Some(why),
        ..finished(word)
    }
}

fn opaque_reason(substitution: bool) -> Unreadable {
    if substitution {
        Unreadable::Substitution
    } else {
        Unreadable::unknown_variable("{…}")
    }
}

/// A field being built: its characters and which of them are live glob characters.
#[derive(Default)]
struct Field {
    text: String,
    globs: Vec<usize>,
    first_quoted: Option<usize>,
    /// A quoted empty string still makes a field (`rm ''`).
    forced: bool,
}

impl Field {
    fn push(&mut self, c: char, quoted: bool) {
        if quoted {
            self.first_quoted.get_or_insert(self.text.len());
            self.forced = true;
        } else if matches!(c, '*' | '?' | '[') {
            self.globs.push(self.text.len());
        }
        self.text.push(c);
    }
}

fn fields(atoms: &[Atom], state: &State, ctx: &ShellContext<'_>) -> Result<Vec<Field>, Unreadable> {
    let mut out = Vec::new();
    let mut field = Field::default();
    let mut prefix = String::new();
    let atoms = tilde(atoms, state, ctx, &mut prefix)?;
    for c in prefix.chars() {
        field.push(c, true);
    }
    for atom in atoms {
        match atom {
            Atom::Char { c, quoted } => field.push(*c, *quoted),
            Atom::Param { name, quoted: true } => {
                field.forced = true;
                field.first_quoted.get_or_insert(field.text.len());
                field.text.push_str(&param(name, state, ctx)?);
            }
            Atom::Param {
                name,
                quoted: false,
            } => {
                // Unquoted: split at blanks, and what is left is globbed.
                for c in param(name, state, ctx)?.chars() {
                    if matches!(c, ' ' | '\t' | '\n') {
                        if !field.text.is_empty() || field.forced {
                            out.push(std::mem::take(&mut field));
                        }
                    } else {
                        field.push(c, false);
                    }
                }
            }
            Atom::Opaque { substitution, .. } => return Err(opaque_reason(*substitution)),
        }
    }
    if !field.text.is_empty() || field.forced {
        out.push(field);
    }
    Ok(out)
}

/// A leading unquoted `~`, `~+` or `~-` (up to the first `/`): its directory goes into
/// `out`, and the atoms after it are returned.
fn tilde<'w>(
    atoms: &'w [Atom],
    state: &State,
    ctx: &ShellContext<'_>,
    out: &mut String,
) -> Result<&'w [Atom], Unreadable> {
    if !matches!(
        atoms.first(),
        Some(Atom::Char {
            c: '~',
            quoted: false
        })
    ) {
        return Ok(atoms);
    }
    let end = atoms
        .iter()
        .position(|a| matches!(a, Atom::Char { c: '/', .. }))
        .unwrap_or(atoms.len());
    let mut name = String::new();
    for atom in &atoms[1..end] {
        match atom {
            Atom::Char { c, quoted: false } => name.push(*c),
            // A quoted part: no tilde expansion at all.
            _ => return Ok(atoms),
        }
    }
    let dir = match name.as_str() {
        "" => ctx.home.map(str::to_owned).ok_or(Unreadable::UnknownHome)?,
        "+" => pwd(&state.cwd, ctx)?,
        "-" => pwd(&state.oldpwd, ctx)?,
        _ => return Err(Unreadable::UnknownHome),
    };
    out.push_str(&dir);
    Ok(&atoms[end..])
}

/// The directory `cwd` names, as `$PWD` would hold it.
fn pwd(cwd: &Cwd, ctx: &ShellContext<'_>) -> Result<String, Unreadable> {
    match cwd {
        Cwd::Known(dir) if dir.starts_with('/') => Ok(dir.clone()),
        Cwd::Known(rel) => Ok(match ctx.cwd {
            Some(base) if rel.is_empty() => base.to_owned(),
            Some(base) => super::effect::join(base, rel),
            None if rel.is_empty() => ".".to_owned(),
            None => rel.clone(),
        }),
        Cwd::Unknown => Err(Unreadable::UnknownDirectory),
    }
}

fn param(name: &str, state: &State, ctx: &ShellContext<'_>) -> Result<String, Unreadable> {
    if let Some(value) = state.vars.get(name) {
        return value
            .clone()
            .ok_or_else(|| Unreadable::unknown_variable(name));
    }
    match name {
        "PWD" => pwd(&state.cwd, ctx),
        "OLDPWD" => pwd(&state.oldpwd, ctx),
        "HOME" => ctx.home.map(str::to_owned).ok_or(Unreadable::UnknownHome),
        _ => {
            let positional = state
                .positional
                .as_ref()
                .ok_or_else(|| Unreadable::unknown_variable(name))?;
            match name {
                "@" | "*" => Ok(positional
                    .iter()
                    .skip(1)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" ")),
                "#" => Ok(positional.len().saturating_sub(1).to_string()),
                digits if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
                    let index: usize = digits.parse().unwrap_or(usize::MAX);
                    Ok(positional.get(index).cloned().unwrap_or_default())
                }
                _ => Err(Unreadable::unknown_variable(name)),
            }
        }
    }
}

/// Brace expansion over unquoted `{a,b}` and `{1..3}` / `{a..c}`.
fn braces(atoms: &[Atom]) -> Result<Vec<Vec<Atom>>, Unreadable> {
    let mut done = Vec::new();
    let mut todo = vec![atoms.to_vec()];
    while let Some(atoms) = todo.pop() {
        match brace_split(&atoms) {
            Some(parts) => {
                if done.len() + todo.len() + parts.len() > MAX_FIELDS {
                    return Err(Unreadable::TooLarge);
                }
                // Reversed onto the stack, so they come out in order.
                todo.extend(parts.into_iter().rev());
            }
            None => done.push(atoms),
        }
    }
    Ok(done)
}

fn is_bare(atom: &Atom, ch: char) -> bool {
    matches!(atom, Atom::Char { c, quoted: false } if *c == ch)
}

/// The first brace expression of `atoms`, expanded one level; `None` when there is none.
fn brace_split(atoms: &[Atom]) -> Option<Vec<Vec<Atom>>> {
    let mut opens = Vec::new();
    for (i, atom) in atoms.iter().enumerate() {
        if is_bare(atom, '{') {
            opens.push(i);
        } else if is_bare(atom, '}')
            && let Some(open) = opens.pop()
            && opens.is_empty()
            && let Some(alternatives) = brace_body(&atoms[open + 1..i])
        {
            let prefix = &atoms[..open];
            let suffix = &atoms[i + 1..];
            return Some(
                alternatives
                    .into_iter()
                    .map(|alt| prefix.iter().chain(&alt).chain(suffix).cloned().collect())
                    .collect(),
            );
        }
    }
    None
}

/// The alternatives of one brace body: top-level commas, or a sequence.
fn brace_body(body: &[Atom]) -> Option<Vec<Vec<Atom>>> {
    let mut parts = vec![Vec::new()];
    let mut depth = 0usize;
    for atom in body {
        if is_bare(atom, '{') {
            depth += 1;
        } else if is_bare(atom, '}') {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && is_bare(atom, ',') {
            parts.push(Vec::new());
            continue;
        }
        parts.last_mut()?.push(atom.clone());
    }
    if parts.len() > 1 {
        return Some(parts);
    }
    sequence(body)
}

/// `{1..5}`, `{05..10..5}`, `{a..e}`: only plain unquoted characters.
fn sequence(body: &[Atom]) -> Option<Vec<Vec<Atom>>> {
    let text: String = body
        .iter()
        .map(|a| match a {
            Atom::Char { c, quoted: false } => Some(*c),
            _ => None,
        })
        .collect::<Option<String>>()?;
    let mut ends = text.split("..");
    let (start, end, step) = (ends.next()?, ends.next()?, ends.next());
    if ends.next().is_some() {
        return None;
    }
    let step: i64 = match step {
        Some(s) => s.parse::<i64>().ok()?.checked_abs()?.max(1),
        None => 1,
    };
    let chars = |s: &str| {
        let mut it = s.chars();
        let c = it.next()?;
        (it.next().is_none() && c.is_ascii_alphabetic()).then_some(c)
    };
    let items: Vec<String> = if let (Ok(a), Ok(b)) = (start.parse::<i64>(), end.parse::<i64>()) {
        let count = (a.abs_diff(b) / step.unsigned_abs()) as usize + 1;
        if count > MAX_FIELDS {
            return None;
        }
        let width = if [start, end]
            .iter()
            .any(|s| s.trim_start_matches('-').starts_with('0') && s.len() > 1)
        {
            start.len().max(end.len())
        } else {
            0
        };
        (0..count as i64)
            .map(|k| if a <= b { a + k * step } else { a - k * step })
            .map(|n| format!("{n:0width$}"))
            .collect()
    } else if let (Some(a), Some(b)) = (chars(start), chars(end)) {
        let (a, b) = (a as i64, b as i64);
        let count = (a.abs_diff(b) / step.unsigned_abs()) as usize + 1;
        (0..count as i64)
            .filter_map(|k| {
                let n = if a <= b { a + k * step } else { a - k * step };
                char::from_u32(n as u32).map(String::from)
            })
            .collect()
    } else {
        return None;
    };
    Some(
        items
            .into_iter()
            .map(|s| s.chars().map(|c| Atom::Char { c, quoted: true }).collect())
            .collect(),
    )
}

/// A field as words: itself when it holds no live glob character, else the paths it
/// matches (sorted), or itself when it matches nothing (bash's default).
fn glob(
    field: Field,
    state: &State,
    ctx: &ShellContext<'_>,
    out: &mut Vec<Word>,
) -> Result<(), Unreadable> {
    let word = |text: String, first_quoted: Option<usize>| Word {
        text,
        first_quoted,
        ..Word::default()
    };
    if field.globs.is_empty() {
        out.push(word(field.text, field.first_quoted));
        return Ok(());
    }
    let fs = ctx.fs.ok_or(Unreadable::Glob)?;
    let absolute = field.text.starts_with('/');
    let base = if absolute {
        "/".to_owned()
    } else {
        pwd(&state.cwd, ctx)?
    };
    if !base.starts_with('/') {
        return Err(Unreadable::Glob);
    }
    // (text so far, absolute directory it names)
    let mut found: Vec<(String, String)> = vec![(String::new(), base)];
    let mut offset = 0;
    let mut listings = 0;
    for component in field.text.split('/') {
        let start = offset;
        offset += component.len() + 1;
        if component.is_empty() {
            for (text, _) in &mut found {
                text.push('/');
            }
            continue;
        }
        let live: Vec<usize> = field
            .globs
            .iter()
            .filter(|&&g| g >= start && g < start + component.len())
            .map(|g| g - start)
            .collect();
        let mut next = Vec::new();
        for (text, dir) in found {
            let join = |name: &str| {
                let t = if text.is_empty() || text.ends_with('/') {
                    format!("{text}{name}")
                } else {
                    format!("{text}/{name}")
                };
                (t, super::effect::join(&dir, name))
            };
            if live.is_empty() {
                next.push(join(component));
                continue;
            }
            listings += 1;
            if listings > MAX_LISTINGS {
                return Err(Unreadable::TooLarge);
            }
            let mut names: Vec<String> = fs
                .list_dir(&dir)
                .unwrap_or_default()
                .into_iter()
                .filter(|name| {
                    (!name.starts_with('.') || component.starts_with('.'))
                        && matches(component, &live, name)
                })
                .collect();
            names.sort();
            for name in names {
                next.push(join(&name));
                if next.len() > MAX_FIELDS {
                    return Err(Unreadable::TooLarge);
                }
            }
        }
        found = next;
        if found.is_empty() {
            break;
        }
    }
    // bash yields only paths that exist (`*/x` matches `src/x`, not `docs/x` when there is
    // none); a pattern nothing matches stays as written.
    found.retain(|(_, absolute)| fs.exists(absolute));
    if found.is_empty() {
        out.push(word(field.text, field.first_quoted));
    } else {
        out.extend(found.into_iter().map(|(text, _)| word(text, None)));
    }
    Ok(())
}

/// Does `name` match the glob `pattern`, whose live glob characters sit at byte offsets
/// `live` (any other `*`, `?`, `[` is literal)?
fn matches(pattern: &str, live: &[usize], name: &str) -> bool {
    enum Piece {
        Lit(char),
        Any,
        Star,
        Class {
            negated: bool,
            items: Vec<(char, char)>,
        },
    }
    let mut pieces = Vec::new();
    let chars: Vec<(usize, char)> = pattern.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        i += 1;
        if !live.contains(&at) {
            pieces.push(Piece::Lit(c));
            continue;
        }
        match c {
            '*' => pieces.push(Piece::Star),
            '?' => pieces.push(Piece::Any),
            _ => {
                // `[...]`: a class up to the first `]` after at least one member.
                let mut j = i;
                let negated = matches!(chars.get(j), Some((_, '!' | '^')));
                if negated {
                    j += 1;
                }
                let mut items = Vec::new();
                let mut closed = false;
                let mut first = true;
                while j < chars.len() {
                    let (_, m) = chars[j];
                    if m == ']' && !first {
                        closed = true;
                        j += 1;
                        break;
                    }
                    first = false;
                    if m == '[' && chars.get(j + 1).map(|x| x.1) == Some(':') {
                        // `[:alpha:]` and friends: matched loosely, as any letter or digit.
                        let rest: String = chars[j..].iter().map(|x| x.1).collect();
                        if let Some(end) = rest.find(":]") {
                            items.push(('0', '9'));
                            items.push(('A', 'Z'));
                            items.push(('a', 'z'));
                            j += rest[..end + 2].chars().count();
                            continue;
                        }
                    }
                    if chars.get(j + 1).map(|x| x.1) == Some('-')
                        && let Some(&(_, hi)) = chars.get(j + 2)
                        && hi != ']'
                    {
                        items.push((m, hi));
                        j += 3;
                    } else {
                        items.push((m, m));
                        j += 1;
                    }
                }
                if closed {
                    pieces.push(Piece::Class { negated, items });
                    i = j;
                } else {
                    pieces.push(Piece::Lit('['));
                }
            }
        }
    }
    let name: Vec<char> = name.chars().collect();
    let one = |piece: &Piece, c: char| match piece {
        Piece::Lit(l) => *l == c,
        Piece::Any => true,
        Piece::Class { negated, items } => {
            items.iter().any(|(lo, hi)| *lo <= c && c <= *hi) != *negated
        }
        Piece::Star => false,
    };
    // The classic two-pointer match: linear but for backtracking to the last `*`.
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pieces.len() && matches!(pieces[p], Piece::Star) {
            star = Some((p, n));
            p += 1;
        } else if p < pieces.len() && one(&pieces[p], name[n]) {
            p += 1;
            n += 1;
        } else if let Some((sp, sn)) = star {
            p = sp + 1;
            n = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    pieces[p..].iter().all(|piece| matches!(piece, Piece::Star))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matching() {
        let all = |p: &str| -> Vec<usize> {
            p.char_indices()
                .filter(|(_, c)| matches!(c, '*' | '?' | '['))
                .map(|(i, _)| i)
                .collect()
        };
        let m = |p: &str, n: &str| matches(p, &all(p), n);
        assert!(m("*", "src"));
        assert!(m("s?c", "src"));
        assert!(m("[s]rc", "src"));
        assert!(m("[!a]rc", "src"));
        assert!(!m("[!s]rc", "src"));
        assert!(m("[a-z]*.rs", "main.rs"));
        assert!(!m("*.rs", "main.rc"));
        assert!(m("a*b*c", "aXbYbc"));
        assert!(m("[[:alpha:]]rc", "src"));
        assert!(m("[", "["));
        assert!(!matches("*", &[], "src"));
    }
}
