//! The words of an agent's shell call, as the guards that look for acc's own commands and
//! files read them: every string of the payload (an argv joined into one command), cut at
//! a bound, split at blanks and shell punctuation, with quotes and backslashes taken out
//! of each word, so `a''cc`, `\acc` and `"acc"` are all the word `acc`.
//!
//! The normalised event carries no command text, and reading a payload field by name would
//! make the runtime know a client's shape: so every string value is read.

use serde_json::Value;
use std::borrow::Cow;

/// Strings longer than this are not read further (a command is far shorter).
const MAX_SCANNED_BYTES: usize = 256 * 1024;

/// Every string of `payload`, an argv (an array of strings) joined into one, at most
/// [`MAX_SCANNED_BYTES`] in all.
pub fn payload_texts(payload: &Value) -> Vec<Cow<'_, str>> {
    let mut out = Vec::new();
    let mut budget = MAX_SCANNED_BYTES;
    collect(payload, &mut budget, 0, &mut out);
    out
}

fn collect<'a>(v: &'a Value, budget: &mut usize, depth: usize, out: &mut Vec<Cow<'a, str>>) {
    if depth > 32 || *budget == 0 {
        return;
    }
    match v {
        Value::String(s) => {
            let cut = floor_char_boundary(s, (*budget).min(s.len()));
            *budget -= cut;
            out.push(Cow::Borrowed(&s[..cut]));
        }
        // An argv: its words are one command.
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_string) => {
            let joined: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            let joined = joined.join(" ");
            let cut = floor_char_boundary(&joined, (*budget).min(joined.len()));
            *budget -= cut;
            out.push(Cow::Owned(joined[..cut].to_string()));
        }
        Value::Array(items) => items
            .iter()
            .for_each(|i| collect(i, budget, depth + 1, out)),
        Value::Object(map) => map
            .values()
            .for_each(|i| collect(i, budget, depth + 1, out)),
        _ => {}
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The words of `text`: split at blanks and `; & | ( ) < >` and backquotes, with every
/// quote and backslash removed from inside each word. Empty words are dropped.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| {
        c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '`' | '<' | '>')
    })
    .map(|w| {
        w.chars()
            .filter(|c| !matches!(c, '"' | '\'' | '\\'))
            .collect::<String>()
    })
    .filter(|w| !w.is_empty())
}

/// Wrappers that run the next word as the command.
const WRAPPERS: [&str; 8] = [
    "sudo", "env", "nice", "exec", "command", "time", "builtin", "doas",
];

/// The command words of `text`: the first word of each command between `;`, `&`, `|`,
/// parentheses, backquotes and newlines, after `NAME=value` assignments and wrappers, as
/// [`words`] spells them. A separator inside quotes counts too (this is a reader for refusals,
/// so it errs on the side of seeing a command).
pub fn command_words(text: &str) -> Vec<String> {
    text.split([';', '&', '|', '(', ')', '`', '\n'])
        .filter_map(|segment| {
            words(segment).find(|w| {
                let assignment = w.split_once('=').is_some_and(|(name, _)| {
                    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
                !assignment && !WRAPPERS.contains(&program(w)) && !w.starts_with('-')
            })
        })
        .collect()
}

/// The last component of a command word (`/usr/local/bin/acc` is `acc`).
pub fn program(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn quotes_and_backslashes_do_not_hide_a_word() {
        let w: Vec<String> = words(r#"a''cc "un"install; \acc x|$(acc prune)"#).collect();
        assert_eq!(w, ["acc", "uninstall", "acc", "x", "$", "acc", "prune"]);
    }

    #[test]
    fn command_words_start_each_command() {
        let w = command_words("A=1 sudo setsid -f acc detach; echo 'at acc' | at now && (nohup x)");
        assert_eq!(w, ["setsid", "echo", "at", "nohup"]);
    }

    #[test]
    fn every_string_and_joined_argv_is_read() {
        let p = json!({"a": "one", "b": {"command": ["acc", "install"]}, "n": 3});
        let texts: Vec<String> = payload_texts(&p)
            .into_iter()
            .map(|c| c.into_owned())
            .collect();
        assert_eq!(texts, ["one", "acc install"]);
    }
}
