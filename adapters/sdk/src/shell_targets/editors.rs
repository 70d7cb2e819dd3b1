//! In-place editors (`sed`, `perl`, `ruby`): they write their file operands only with
//! `-i…` or `--in-place[=…]`.

use super::effect::{Effect, NOTHING, Target};
use super::lexer::Word;

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
