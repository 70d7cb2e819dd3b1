//! Reading a command's arguments the way getopt-style tools do: short clusters, long options
//! with `=` or a separate value, and `--` ending the options.

use super::lexer::Word;

/// Which options of one command take a value.
#[derive(Debug, Clone, Copy)]
pub struct OptionSpec {
    /// Short option letters that take a value (attached, or the next word).
    pub short_values: &'static str,
    /// Long option names (without `--`) that take a value (after `=`, or the next word).
    pub long_values: &'static [&'static str],
}

impl OptionSpec {
    pub const NONE: OptionSpec = OptionSpec {
        short_values: "",
        long_values: &[],
    };
}

/// One option as given: `-t` is `Short('t')`, `--mode` is `Long("mode")`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flag {
    Short(char),
    Long(String),
}

/// A command's arguments, sorted into options and operands.
#[derive(Debug, Default)]
pub struct Parsed<'a> {
    pub flags: Vec<Flag>,
    /// Values of value-taking options, with the option they belong to. A value given as the
    /// next word keeps that word (so its quoting and substitutions stay known).
    pub values: Vec<(Flag, Value<'a>)>,
    pub operands: Vec<&'a Word>,
}

/// An option's value: attached to the option (`-tDIR`, `--mode=644`) or the next word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value<'a> {
    Attached(String),
    Word(&'a Word),
}

impl Value<'_> {
    pub fn text(&self) -> &str {
        match self {
            Value::Attached(text) => text,
            Value::Word(word) => &word.text,
        }
    }

    pub fn substituted(&self) -> bool {
        match self {
            Value::Attached(text) => text.contains("$(") || text.contains('`'),
            Value::Word(word) => word.substituted,
        }
    }
}

impl Parsed<'_> {
    pub fn has_short(&self, c: char) -> bool {
        self.flags.contains(&Flag::Short(c))
            || self.values.iter().any(|(f, _)| *f == Flag::Short(c))
    }

    pub fn has_long(&self, name: &str) -> bool {
        let matches = |f: &Flag| matches!(f, Flag::Long(n) if n == name);
        self.flags.iter().any(matches) || self.values.iter().any(|(f, _)| matches(f))
    }

    /// The last value given for `-short` or `--long`.
    pub fn value_of(&self, short: char, long: &str) -> Option<&Value<'_>> {
        self.values
            .iter()
            .rev()
            .find(|(f, _)| *f == Flag::Short(short) || matches!(f, Flag::Long(n) if n == long))
            .map(|(_, v)| v)
    }
}

/// Sort `args` into options and operands. A lone `-` is an operand; after an unquoted `--`
/// every word is.
pub fn parse<'a>(args: &'a [Word], spec: &OptionSpec) -> Parsed<'a> {
    let mut out = Parsed::default();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word.is_bare("--") {
            out.operands.extend(words.by_ref());
            break;
        }
        if !word.is_flag() {
            out.operands.push(word);
            continue;
        }
        if let Some(long) = word.text.strip_prefix("--") {
            match long.split_once('=') {
                Some((name, value)) => {
                    out.values.push((
                        Flag::Long(name.to_owned()),
                        Value::Attached(value.to_owned()),
                    ));
                }
                None if spec.long_values.contains(&long) => match words.next() {
                    Some(next) => out
                        .values
                        .push((Flag::Long(long.to_owned()), Value::Word(next))),
                    None => out.flags.push(Flag::Long(long.to_owned())),
                },
                None => out.flags.push(Flag::Long(long.to_owned())),
            }
            continue;
        }
        let cluster = &word.text[1..];
        for (at, c) in cluster.char_indices() {
            if !spec.short_values.contains(c) {
                out.flags.push(Flag::Short(c));
                continue;
            }
            let rest = &cluster[at + c.len_utf8()..];
            if !rest.is_empty() {
                out.values
                    .push((Flag::Short(c), Value::Attached(rest.to_owned())));
            } else if let Some(next) = words.next() {
                out.values.push((Flag::Short(c), Value::Word(next)));
            } else {
                out.flags.push(Flag::Short(c));
            }
            break;
        }
    }
    out
}

/// How many leading words are options (with their values), for wrappers such as `sudo`
/// whose first operand is the command they run: parsing stops there, since later options
/// belong to that command.
pub fn leading_options(args: &[Word], spec: &OptionSpec) -> usize {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        if word.is_bare("--") {
            return i + 1;
        }
        if !word.is_flag() {
            return i;
        }
        i += 1;
        if let Some(long) = word.text.strip_prefix("--") {
            if !long.contains('=') && spec.long_values.contains(&long) {
                i += 1;
            }
            continue;
        }
        let cluster = &word.text[1..];
        let value_letter = cluster
            .char_indices()
            .find(|(_, c)| spec.short_values.contains(*c));
        if value_letter.is_some_and(|(at, c)| at + c.len_utf8() == cluster.len()) {
            i += 1;
        }
    }
    args.len()
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

    #[test]
    fn clusters_values_and_double_dash() {
        let args: Vec<Word> = [
            "-rtDIR", "--mode", "644", "-S", ".b", "--x=1", "a", "-", "--", "-b",
        ]
        .map(w)
        .into();
        let spec = OptionSpec {
            short_values: "tS",
            long_values: &["mode"],
        };
        let p = parse(&args, &spec);
        assert_eq!(p.flags, [Flag::Short('r')]);
        assert_eq!(
            p.value_of('t', "target-directory").map(Value::text),
            Some("DIR")
        );
        assert_eq!(p.value_of('m', "mode").map(Value::text), Some("644"));
        assert_eq!(p.value_of('S', "suffix").map(Value::text), Some(".b"));
        assert_eq!(p.value_of('?', "x").map(Value::text), Some("1"));
        let ops: Vec<&str> = p.operands.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(ops, ["a", "-", "-b"]);
    }

    #[test]
    fn quoted_dash_is_an_operand() {
        let quoted = Word {
            text: "-f".into(),
            first_quoted: Some(0),
            ..Word::default()
        };
        let args = [quoted];
        assert_eq!(parse(&args, &OptionSpec::NONE).operands.len(), 1);
    }

    #[test]
    fn leading_options_stop_at_the_command() {
        let args: Vec<Word> = ["-u", "bob", "-E", "rm", "-f"].map(w).into();
        assert_eq!(
            leading_options(
                &args,
                &OptionSpec {
                    short_values: "u",
                    long_values: &[]
                }
            ),
            3
        );
        let args: Vec<Word> = ["-uBob", "--", "rm"].map(w).into();
        assert_eq!(
            leading_options(
                &args,
                &OptionSpec {
                    short_values: "u",
                    long_values: &[]
                }
            ),
            2
        );
    }
}
