//! In-place editors (`sed`, `perl`, `ruby`): they write their file operands only with
//! `-i…` or `--in-place[=…]`.

use super::effect::{Effect, NOTHING, Target};
use super::lexer::Word;
use super::unreadable::Unreadable;

/// How an in-place editor reads its options.
pub struct Editor {
    /// Short letters taking a value; a cluster ending in one consumes the next word.
    value_letters: &'static str,
    /// Value letters whose value is the script (so no operand is).
    script_letters: &'static str,
    long_values: &'static [&'static str],
    long_scripts: &'static [&'static str],
}

pub const SED: Editor = Editor {
    value_letters: "efl",
    script_letters: "ef",
    long_values: &["expression", "file", "line-length"],
    long_scripts: &["expression", "file"],
};
pub const PERL: Editor = Editor {
    value_letters: "eEMm",
    script_letters: "eE",
    long_values: &[],
    long_scripts: &[],
};
pub const RUBY: Editor = Editor {
    value_letters: "erICE",
    script_letters: "e",
    long_values: &[],
    long_scripts: &[],
};

/// `sed`, `perl`, `ruby`: files are written only with `-i…` / `--in-place[=…]`.
pub fn in_place(args: &[Word], editor: &Editor) -> Effect {
    let mut in_place = false;
    let mut explicit_script = false;
    let mut bsd_suffix: Option<&Word> = None;
    let mut operands: Vec<&Word> = Vec::new();
    let mut words = args.iter().peekable();
    while let Some(word) = words.next() {
        if word.is_bare("--") {
            operands.extend(words.by_ref());
            break;
        }
        if !word.is_flag() {
            operands.push(word);
            continue;
        }
        if let Some(long) = word.text.strip_prefix("--") {
            let (name, has_value) = long
                .split_once('=')
                .map_or((long, false), |(n, _)| (n, true));
            if name == "in-place" {
                in_place = true;
            } else if editor.long_values.contains(&name) {
                explicit_script |= editor.long_scripts.contains(&name);
                if !has_value {
                    words.next();
                }
            }
            continue;
        }
        let cluster = &word.text[1..];
        for (at, c) in cluster.char_indices() {
            let rest = &cluster[at + c.len_utf8()..];
            if c == 'i' {
                in_place = true;
                // BSD sed: `-i ''` and `-i .bak` name the backup suffix in the next word.
                if rest.is_empty()
                    && words.peek().is_some_and(|w| {
                        w.text.is_empty() || (w.text.starts_with('.') && !w.text.contains('/'))
                    })
                {
                    bsd_suffix = words.next();
                }
                break;
            }
            if editor.value_letters.contains(c) {
                explicit_script |= editor.script_letters.contains(c);
                if rest.is_empty() {
                    words.next();
                }
                break;
            }
        }
    }
    if !in_place {
        return NOTHING;
    }
    let files: Vec<&Word> = if explicit_script {
        operands
    } else {
        operands.into_iter().skip(1).collect()
    };
    if files.is_empty() {
        // `sed -e s/a/b/ -i .env`: with no file left, the word after `-i` was the file.
        if let Some(word) = bsd_suffix.filter(|w| !w.text.is_empty()) {
            return Effect::Writes(Target::from_word(word).into_iter().collect());
        }
    }
    Effect::Writes(files.into_iter().filter_map(Target::from_word).collect())
}

/// The scripts a `sed` command runs: every `-e`/`--expression` value, or else its first
/// operand (`-f FILE` scripts live in a file this reader does not open).
fn sed_scripts(args: &[Word]) -> Vec<&str> {
    let mut scripts = Vec::new();
    let mut from_file = false;
    let mut first_operand = None;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word.is_bare("--") {
            first_operand = first_operand.or(words.next());
            break;
        }
        if !word.is_flag() {
            first_operand = first_operand.or(Some(word));
            continue;
        }
        if let Some(long) = word.text.strip_prefix("--") {
            match long.split_once('=') {
                Some(("expression", value)) => scripts.push(value),
                Some(("file", _)) => from_file = true,
                None if long == "expression" => {
                    scripts.extend(words.next().map(|w| w.text.as_str()))
                }
                None if long == "file" || long == "line-length" => {
                    from_file |= long == "file";
                    words.next();
                }
                _ => {}
            }
            continue;
        }
        let cluster = &word.text[1..];
        for (at, c) in cluster.char_indices() {
            let rest = &cluster[at + c.len_utf8()..];
            if matches!(c, 'e' | 'f' | 'l') {
                let value = if rest.is_empty() {
                    words.next().map(|w| w.text.as_str())
                } else {
                    Some(rest)
                };
                match c {
                    'e' => scripts.extend(value),
                    'f' => from_file = true,
                    _ => {}
                }
                break;
            }
            if c == 'i' {
                break;
            }
        }
    }
    if scripts.is_empty() && !from_file {
        scripts.extend(first_operand.map(|w| w.text.as_str()));
    }
    scripts
}

/// What `sed`'s own commands write, beyond `-i`: `w FILE`, `W FILE` and the `w` flag of
/// `s` write FILE; `e` and the `e` flag of `s` run a command, which this reader cannot see.
pub fn sed_writes(args: &[Word]) -> Result<Vec<Target>, Unreadable> {
    let mut out = Vec::new();
    for script in sed_scripts(args) {
        for file in sed_script_writes(script)? {
            out.push(Target::literal(file));
        }
    }
    Ok(out)
}

fn sed_script_writes(script: &str) -> Result<Vec<String>, Unreadable> {
    let runs = || Unreadable::inline_code("sed", "e");
    let chars: Vec<char> = script.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let rest_of_line = |i: &mut usize| -> String {
        let start = *i;
        while *i < chars.len() && chars[*i] != '\n' {
            *i += 1;
        }
        chars[start..*i]
            .iter()
            .collect::<String>()
            .trim()
            .to_owned()
    };
    // Skips a delimited part (`/re/`, the parts of `s` and `y`), escapes included.
    let delimited = |i: &mut usize, delim: char| {
        while *i < chars.len() && chars[*i] != delim {
            if chars[*i] == '\\' {
                *i += 1;
            }
            *i += 1;
        }
        *i += 1;
    };
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        match c {
            ' ' | '\t' | '\n' | ';' | '{' | '}' | '!' | ',' | '$' | '+' | '~' => {}
            '0'..='9' => {}
            '/' => delimited(&mut i, '/'),
            '\\' => {
                let delim = chars.get(i).copied().unwrap_or('/');
                i += 1;
                delimited(&mut i, delim);
            }
            '#' | 'a' | 'i' | 'c' | 'r' | 'R' | 'b' | 't' | 'T' | ':' | 'q' | 'Q' | 'l' | 'L' => {
                // Text, a label or a file to read, up to the end of the line.
                rest_of_line(&mut i);
            }
            'w' | 'W' => out.push(rest_of_line(&mut i)),
            'e' => return Err(runs()),
            's' | 'y' => {
                let delim = chars.get(i).copied().unwrap_or('/');
                i += 1;
                delimited(&mut i, delim);
                delimited(&mut i, delim);
                if c == 's' {
                    while let Some(&flag) = chars.get(i) {
                        match flag {
                            'e' => return Err(runs()),
                            'w' => {
                                i += 1;
                                out.push(rest_of_line(&mut i));
                                break;
                            }
                            ';' | '\n' | '}' => break,
                            _ => i += 1,
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out.retain(|f| !f.is_empty());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(text: &str) -> Word {
        Word {
            text: text.into(),
            ..Word::default()
        }
    }

    fn writes(args: &[&str]) -> Result<Vec<String>, String> {
        let args: Vec<Word> = args.iter().map(|a| w(a)).collect();
        sed_writes(&args)
            .map(|t| t.into_iter().map(|t| t.text).collect())
            .map_err(|e| e.code().to_owned())
    }

    #[test]
    fn sed_commands_that_write_or_run() {
        assert_eq!(writes(&["-n", "w src/x", "in"]), Ok(vec!["src/x".into()]));
        assert_eq!(writes(&["-n", "/a/W out", "in"]), Ok(vec!["out".into()]));
        assert_eq!(writes(&["s/a/b/w src/y", "in"]), Ok(vec!["src/y".into()]));
        assert_eq!(writes(&["-e", "s/a/b/gw z", "in"]), Ok(vec!["z".into()]));
        assert_eq!(
            writes(&["1e rm -rf src", "in"]),
            Err("shell.inline-code".into())
        );
        assert_eq!(
            writes(&["s/x/rm src/e", "in"]),
            Err("shell.inline-code".into())
        );
        // Reading scripts write nothing, whatever letters their patterns hold.
        for script in [
            "s/w/e/g",
            "/we/p",
            "1,20p",
            "s|a|b|;s/x/y/2",
            "y/abc/xyz/",
            "/^#/d",
            "$!N",
        ] {
            assert_eq!(writes(&["-n", script, "in"]), Ok(vec![]), "{script}");
        }
        assert_eq!(writes(&["-f", "script.sed", "in"]), Ok(vec![]));
    }
}
