//! Splitting a shell command into words and operators, the way a POSIX shell would before
//! expansion: quotes and escapes removed (and remembered), heredoc bodies skipped, comments
//! dropped, and substitutions kept as opaque text.

use super::unreadable::{LexError, Unreadable};

/// One shell word after quote removal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    /// Byte offset in `text` of the first character that was quoted or escaped; `None` when
    /// no part of the word was.
    pub first_quoted: Option<usize>,
    /// Holds a command substitution (`$(…)` or backticks): its value exists only at runtime.
    pub substituted: bool,
    /// A whole process substitution (`<(…)`, `>(…)`): a pipe, never a file on disk.
    pub process: bool,
    /// Holds a parameter expansion (`$NAME`, `${…}`) outside single quotes: the text shown
    /// is not what the shell passes on.
    pub expanded: bool,
    /// When this word is a heredoc delimiter: the heredoc's body, each line ending in `\n`.
    pub heredoc_body: Option<String>,
    /// The word before expansion, piece by piece: what bash expands (parameters, braces,
    /// `~`, globs) and what quoting protects.
    pub atoms: Vec<Atom>,
    /// After expansion: why the word's value is only known at runtime (with `substituted`).
    pub unknown: Option<Unreadable>,
    /// The commands its substitutions run (`$(…)`, backticks, and those nested in `${…}`
    /// or `$((…))`; an unquoted heredoc body's, on its delimiter word): they run when the
    /// word is expanded, wherever it stands.
    pub scripts: Vec<String>,
}

/// One piece of a word before expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Atom {
    /// A character; `quoted` when quoting or an escape protects it from expansion.
    Char { c: char, quoted: bool },
    /// `$NAME`, `${NAME}`, `$1`, `$@`: a parameter this reader may know.
    Param { name: String, quoted: bool },
    /// A substitution or expansion whose value exists only at runtime (`$(…)`, backticks,
    /// `$((…))`, `${x:-y}`, `$$`).
    Opaque { quoted: bool, substitution: bool },
}

impl Word {
    pub fn is_quoted(&self) -> bool {
        self.first_quoted.is_some()
    }

    /// True when the first `len` bytes of the word came from unquoted characters.
    pub fn unquoted_through(&self, len: usize) -> bool {
        self.first_quoted.is_none_or(|q| q >= len)
    }

    /// An unquoted word starting with `-` and longer than `-` alone.
    pub fn is_flag(&self) -> bool {
        self.text.len() > 1 && self.text.starts_with('-') && self.unquoted_through(1)
    }

    /// Exactly `text`, with no part of it quoted (`--`, `{`, `then`, ...).
    pub fn is_bare(&self, text: &str) -> bool {
        self.text == text && !self.is_quoted()
    }
}

/// A redirection operator, with any file-descriptor prefix already absorbed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redirect {
    /// `>`, `>>`, `>|`, `&>`, `&>>`, `<>`: the next word is a file opened for writing.
    Write,
    /// `>&`: duplicates a descriptor, or (with a file name) writes stdout and stderr there.
    DupOut,
    /// `<`, `<&`, `<<<`: the next word is read, never written.
    Read,
    /// `<<`, `<<-`: the next word is a heredoc delimiter.
    Heredoc,
}

/// How a separator joins the commands on either side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sep {
    /// `;` or a newline.
    Sequence,
    /// `&`: the command before runs in the background, in a subshell.
    Background,
    /// `&&`.
    And,
    /// `||`.
    Or,
    /// `|` or `|&`: each side runs in a subshell.
    Pipe,
    /// `;;`, `;&`, `;;&`: the end of a `case` branch.
    CaseBreak,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    Word(Word),
    Redirect(Redirect),
    /// Ends a simple command; its kind says how the next one runs.
    Separator(Sep),
    /// `(`: a subshell starts.
    OpenGroup,
    /// `)`: a subshell ends.
    CloseGroup,
}

const OPERATORS: [(&str, Op); 20] = [
    ("&>>", Op::Redirect(Redirect::Write)),
    (";;&", Op::Separator(Sep::CaseBreak)),
    ("<<<", Op::Redirect(Redirect::Read)),
    ("<<-", Op::HeredocStripTabs),
    ("&&", Op::Separator(Sep::And)),
    ("||", Op::Separator(Sep::Or)),
    ("|&", Op::Separator(Sep::Pipe)),
    (";;", Op::Separator(Sep::CaseBreak)),
    (";&", Op::Separator(Sep::CaseBreak)),
    (">>", Op::Redirect(Redirect::Write)),
    (">|", Op::Redirect(Redirect::Write)),
    (">&", Op::Redirect(Redirect::DupOut)),
    ("<<", Op::Redirect(Redirect::Heredoc)),
    ("<&", Op::Redirect(Redirect::Read)),
    ("<>", Op::Redirect(Redirect::Write)),
    ("&>", Op::Redirect(Redirect::Write)),
    (";", Op::Separator(Sep::Sequence)),
    ("&", Op::Separator(Sep::Background)),
    ("|", Op::Separator(Sep::Pipe)),
    (">", Op::Redirect(Redirect::Write)),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Redirect(Redirect),
    HeredocStripTabs,
    Separator(Sep),
}

fn is_operator_char(c: char) -> bool {
    matches!(c, ';' | '&' | '|' | '<' | '>')
}

/// A heredoc whose body starts after the next unquoted newline.
struct PendingHeredoc {
    delimiter: String,
    strip_tabs: bool,
    /// Index of the delimiter word in the token list, which receives the body.
    token: usize,
}

/// Tokenize `input`. Never panics; every failure is a [`LexError`].
pub fn tokenize(input: &str) -> Result<Vec<Token>, LexError> {
    Lexer {
        chars: input.chars().collect(),
        pos: 0,
        tokens: Vec::new(),
        pending: Vec::new(),
        want_delimiter: None,
    }
    .run()
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    tokens: Vec<Token>,
    pending: Vec<PendingHeredoc>,
    /// Set right after `<<` / `<<-`: the next word names a heredoc (`true` strips tabs).
    want_delimiter: Option<bool>,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn run(mut self) -> Result<Vec<Token>, LexError> {
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\r' => self.pos += 1,
                '\n' => {
                    self.pos += 1;
                    self.end_of_line()?;
                }
                '#' => self.skip_comment(),
                '(' => {
                    self.pos += 1;
                    self.push(Token::OpenGroup)?;
                }
                ')' => {
                    self.pos += 1;
                    self.push(Token::CloseGroup)?;
                }
                '<' | '>' if self.peek(1) == Some('(') => {
                    let word = self.process_substitution()?;
                    self.push(Token::Word(word))?;
                }
                c if is_operator_char(c) => self.operator()?,
                _ => self.word()?,
            }
        }
        if self.want_delimiter.is_some() {
            return Err(LexError::MissingHeredocDelimiter);
        }
        Ok(self.tokens)
    }

    fn push(&mut self, token: Token) -> Result<(), LexError> {
        if self.want_delimiter.is_some() && !matches!(token, Token::Word(_)) {
            return Err(LexError::MissingHeredocDelimiter);
        }
        self.tokens.push(token);
        Ok(())
    }

    fn end_of_line(&mut self) -> Result<(), LexError> {
        self.push(Token::Separator(Sep::Sequence))?;
        let pending = std::mem::take(&mut self.pending);
        for heredoc in pending {
            let body = self.read_heredoc_body(&heredoc);
            if let Some(Token::Word(word)) = self.tokens.get_mut(heredoc.token) {
                // An unquoted delimiter leaves the body's substitutions live.
                if !word.is_quoted() {
                    let chars: Vec<char> = body.chars().collect();
                    nested_scripts(&chars, &mut word.scripts)?;
                }
                word.heredoc_body = Some(body);
            }
        }
        Ok(())
    }

    /// Read body lines up to and including the delimiter line, which is not part of the
    /// body. A body the input never closes runs to the end, as a shell reading it would do
    /// (with a warning).
    fn read_heredoc_body(&mut self, heredoc: &PendingHeredoc) -> String {
        let mut body = String::new();
        while self.pos < self.chars.len() {
            let start = self.pos;
            while self.peek(0).is_some_and(|c| c != '\n') {
                self.pos += 1;
            }
            let mut line: String = self.chars[start..self.pos].iter().collect();
            if self.peek(0) == Some('\n') {
                self.pos += 1;
            }
            if line.ends_with('\r') {
                line.pop();
            }
            let line = if heredoc.strip_tabs {
                line.trim_start_matches('\t')
            } else {
                line.as_str()
            };
            if line == heredoc.delimiter {
                break;
            }
            body.push_str(line);
            body.push('\n');
        }
        body
    }

    fn skip_comment(&mut self) {
        while self.peek(0).is_some_and(|c| c != '\n') {
            self.pos += 1;
        }
    }

    fn operator(&mut self) -> Result<(), LexError> {
        for (text, op) in OPERATORS {
            let len = text.chars().count();
            let matches = text
                .chars()
                .enumerate()
                .all(|(i, c)| self.peek(i) == Some(c));
            if matches {
                self.pos += len;
                return match op {
                    Op::Separator(sep) => self.push(Token::Separator(sep)),
                    Op::HeredocStripTabs => self.redirect(Redirect::Heredoc, true),
                    Op::Redirect(r) => self.redirect(r, false),
                };
            }
        }
        // Only `<` is left: every other operator character starts an entry above.
        self.pos += 1;
        self.redirect(Redirect::Read, false)
    }

    fn redirect(&mut self, redirect: Redirect, strip_tabs: bool) -> Result<(), LexError> {
        self.push(Token::Redirect(redirect))?;
        if redirect == Redirect::Heredoc {
            self.want_delimiter = Some(strip_tabs);
        }
        Ok(())
    }

    fn process_substitution(&mut self) -> Result<Word, LexError> {
        let start = self.pos;
        let end = scan_nested(&self.chars, self.pos + 2, Frame::Paren)?;
        self.pos = end;
        let text = self.chars[start..end].iter().collect();
        Ok(Word {
            text,
            substituted: true,
            process: true,
            ..Word::default()
        })
    }

    fn word(&mut self) -> Result<(), LexError> {
        let mut word = Word::default();
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\r' | '\n' | '(' | ')' => break,
                c if is_operator_char(c) => {
                    let is_fd = !word.text.is_empty()
                        && !word.is_quoted()
                        && !word.substituted
                        && word.text.bytes().all(|b| b.is_ascii_digit());
                    if is_fd && matches!(c, '<' | '>') && self.peek(1) != Some('(') {
                        // `2>`: the descriptor number belongs to the operator.
                        return Ok(());
                    }
                    break;
                }
                '\\' => {
                    self.pos += 1;
                    match self.peek(0) {
                        Some('\n') => self.pos += 1,
                        Some(escaped) => {
                            mark_quoted(&mut word);
                            push_char(&mut word, escaped, true);
                            self.pos += 1;
                        }
                        None => push_char(&mut word, '\\', false),
                    }
                }
                '\'' => {
                    mark_quoted(&mut word);
                    self.pos += 1;
                    self.single_quoted(&mut word)?;
                }
                '"' => {
                    mark_quoted(&mut word);
                    self.pos += 1;
                    self.double_quoted(&mut word)?;
                }
                '$' if self.peek(1) == Some('\'') => {
                    mark_quoted(&mut word);
                    self.pos += 2;
                    self.ansi_c_quoted(&mut word)?;
                }
                '$' if self.peek(1) == Some('"') => {
                    mark_quoted(&mut word);
                    self.pos += 2;
                    self.double_quoted(&mut word)?;
                }
                '$' | '`' => self.expansion(&mut word, false)?,
                _ => {
                    push_char(&mut word, c, false);
                    self.pos += 1;
                }
            }
        }
        if let Some(strip_tabs) = self.want_delimiter.take() {
            self.pending.push(PendingHeredoc {
                delimiter: word.text.clone(),
                strip_tabs,
                token: self.tokens.len(),
            });
        }
        self.tokens.push(Token::Word(word));
        Ok(())
    }

    fn single_quoted(&mut self, word: &mut Word) -> Result<(), LexError> {
        loop {
            match self.peek(0) {
                None => return Err(LexError::UnclosedQuote),
                Some('\'') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(c) => {
                    push_char(word, c, true);
                    self.pos += 1;
                }
            }
        }
    }

    fn double_quoted(&mut self, word: &mut Word) -> Result<(), LexError> {
        loop {
            match self.peek(0) {
                None => return Err(LexError::UnclosedQuote),
                Some('"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => {
                    self.pos += 1;
                    match self.peek(0) {
                        Some('\n') => self.pos += 1,
                        Some(c @ ('$' | '`' | '"' | '\\')) => {
                            push_char(word, c, true);
                            self.pos += 1;
                        }
                        _ => push_char(word, '\\', true),
                    }
                }
                Some('$' | '`') => self.expansion(word, true)?,
                Some(c) => {
                    push_char(word, c, true);
                    self.pos += 1;
                }
            }
        }
    }

    /// `$'…'`: the backslash escapes bash decodes there (`\x73`, `\163`, `\u00e9`, `\cA`).
    fn ansi_c_quoted(&mut self, word: &mut Word) -> Result<(), LexError> {
        loop {
            match self.peek(0) {
                None => return Err(LexError::UnclosedQuote),
                Some('\'') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => {
                    let Some(kind) = self.peek(1) else {
                        return Err(LexError::UnclosedQuote);
                    };
                    self.pos += 2;
                    let decoded = match kind {
                        'n' => Some('\n'),
                        't' => Some('\t'),
                        'r' => Some('\r'),
                        'e' | 'E' => Some('\u{1b}'),
                        'a' => Some('\u{7}'),
                        'b' => Some('\u{8}'),
                        'f' => Some('\u{c}'),
                        'v' => Some('\u{b}'),
                        'x' => self.ansi_number(16, 2),
                        'u' => self.ansi_number(16, 4),
                        'U' => self.ansi_number(16, 8),
                        '0'..='7' => {
                            self.pos -= 1;
                            self.ansi_number(8, 3)
                        }
                        'c' => {
                            let control = self.peek(0).map(|c| (c as u32) & 0x1f);
                            self.pos += usize::from(control.is_some());
                            control.and_then(char::from_u32)
                        }
                        other => Some(other),
                    };
                    match decoded {
                        // bash stops the string at a NUL byte: nothing after it is passed on.
                        Some('\0') => {
                            while self.peek(0).is_some_and(|c| c != '\'') {
                                self.pos += if self.peek(0) == Some('\\') { 2 } else { 1 };
                            }
                        }
                        Some(c) => push_char(word, c, true),
                        // `\x` with no digits stays as written.
                        None => {
                            push_char(word, '\\', true);
                            push_char(word, kind, true);
                        }
                    }
                }
                Some(c) => {
                    push_char(word, c, true);
                    self.pos += 1;
                }
            }
        }
    }

    /// Up to `max` digits in `radix`, as a character; `None` when there is no digit.
    fn ansi_number(&mut self, radix: u32, max: usize) -> Option<char> {
        let mut value: u32 = 0;
        let mut digits = 0;
        while digits < max
            && let Some(d) = self.peek(0).and_then(|c| c.to_digit(radix))
        {
            value = value.saturating_mul(radix).saturating_add(d);
            self.pos += 1;
            digits += 1;
        }
        (digits > 0).then(|| char::from_u32(value).unwrap_or('\u{fffd}'))
    }

    /// `$(…)`, `$((…))`, `${…}`, backticks and `$NAME`: kept verbatim in the word's text,
    /// and as one atom for the expander.
    fn expansion(&mut self, word: &mut Word, quoted: bool) -> Result<(), LexError> {
        let start = self.pos;
        let (end, atom) = match (self.peek(0), self.peek(1)) {
            (Some('`'), _) => {
                word.substituted = true;
                let end = scan_nested(&self.chars, start + 1, Frame::Backtick)?;
                word.scripts
                    .push(backtick_script(&self.chars[start + 1..end - 1]));
                (end, opaque(quoted, true))
            }
            (Some('$'), Some('(')) => {
                word.substituted = true;
                let end = scan_nested(&self.chars, start + 2, Frame::Paren)?;
                paren_scripts(&self.chars[start + 2..end - 1], &mut word.scripts)?;
                (end, opaque(quoted, true))
            }
            (Some('$'), Some('{')) => {
                word.expanded = true;
                let end = scan_nested(&self.chars, start + 2, Frame::Brace)?;
                nested_scripts(&self.chars[start + 2..end - 1], &mut word.scripts)?;
                let inner: String = self.chars[start + 2..end - 1].iter().collect();
                let atom = if is_name(&inner) || is_special(&inner) {
                    Atom::Param {
                        name: inner,
                        quoted,
                    }
                } else {
                    opaque(quoted, false)
                };
                (end, atom)
            }
            (Some('$'), Some(c)) if c == '_' || c.is_ascii_alphabetic() => {
                word.expanded = true;
                let mut end = start + 1;
                while self
                    .chars
                    .get(end)
                    .is_some_and(|c| *c == '_' || c.is_ascii_alphanumeric())
                {
                    end += 1;
                }
                let name = self.chars[start + 1..end].iter().collect();
                (end, Atom::Param { name, quoted })
            }
            (Some('$'), Some(c)) if c.is_ascii_digit() || "@*#".contains(c) => {
                word.expanded = true;
                let name = c.to_string();
                (start + 2, Atom::Param { name, quoted })
            }
            (Some('$'), Some(c)) if "?$!-".contains(c) => {
                word.expanded = true;
                (start + 2, opaque(quoted, false))
            }
            _ => (start + 1, Atom::Char { c: '$', quoted }),
        };
        word.text.extend(&self.chars[start..end]);
        word.atoms.push(atom);
        self.pos = end;
        Ok(())
    }
}

/// The command inside backticks: `\\`, `` \` `` and `\$` lose their backslash.
fn backtick_script(inner: &[char]) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.iter().peekable();
    while let Some(&c) = chars.next() {
        if c == '\\'
            && let Some(&&next) = chars.peek()
            && matches!(next, '\\' | '`' | '$')
        {
            out.push(next);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

/// The inside of `$(…)`: a command, unless it is arithmetic (`$((…))`), whose own
/// substitutions still run.
fn paren_scripts(inner: &[char], out: &mut Vec<String>) -> Result<(), LexError> {
    if inner.first() == Some(&'(') && inner.last() == Some(&')') {
        return nested_scripts(&inner[1..inner.len() - 1], out);
    }
    out.push(inner.iter().collect());
    Ok(())
}

/// The substitutions in `text` (a parameter expansion's inside, arithmetic, a heredoc
/// body), in order.
fn nested_scripts(text: &[char], out: &mut Vec<String>) -> Result<(), LexError> {
    let mut i = 0;
    while let Some(&c) = text.get(i) {
        match (c, text.get(i + 1)) {
            ('\\', _) => i += 2,
            ('`', _) => {
                let end = scan_nested(text, i + 1, Frame::Backtick)?;
                out.push(backtick_script(&text[i + 1..end - 1]));
                i = end;
            }
            ('$', Some('(')) => {
                let end = scan_nested(text, i + 2, Frame::Paren)?;
                paren_scripts(&text[i + 2..end - 1], out)?;
                i = end;
            }
            ('$', Some('{')) => {
                let end = scan_nested(text, i + 2, Frame::Brace)?;
                nested_scripts(&text[i + 2..end - 1], out)?;
                i = end;
            }
            _ => i += 1,
        }
    }
    Ok(())
}

fn opaque(quoted: bool, substitution: bool) -> Atom {
    Atom::Opaque {
        quoted,
        substitution,
    }
}

fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

fn is_special(text: &str) -> bool {
    text == "@" || text == "*" || text == "#" || text.bytes().all(|b| b.is_ascii_digit())
}

fn push_char(word: &mut Word, c: char, quoted: bool) {
    word.text.push(c);
    word.atoms.push(Atom::Char { c, quoted });
}

fn mark_quoted(word: &mut Word) {
    if word.first_quoted.is_none() {
        word.first_quoted = Some(word.text.len());
    }
}

/// What an open substitution is waiting for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Paren,
    Brace,
    Backtick,
    DoubleQuote,
}

/// The index just after the character closing `first`, scanning from `from`. Iterative, so
/// hostile nesting depth cannot exhaust the stack.
fn scan_nested(chars: &[char], from: usize, first: Frame) -> Result<usize, LexError> {
    let mut stack = vec![first];
    let mut i = from;
    while let Some(&top) = stack.last() {
        let Some(&c) = chars.get(i) else {
            return Err(LexError::UnbalancedSubstitution);
        };
        let next = chars.get(i + 1).copied();
        i += 1;
        match (top, c) {
            (_, '\\') => i += 1,
            (Frame::Backtick, '`') => {
                stack.pop();
            }
            (Frame::Backtick, _) => {}
            (Frame::DoubleQuote, '"') => {
                stack.pop();
            }
            (Frame::Paren | Frame::Brace, '\'') => {
                while chars.get(i).is_some_and(|&q| q != '\'') {
                    i += 1;
                }
                if i >= chars.len() {
                    return Err(LexError::UnbalancedSubstitution);
                }
                i += 1;
            }
            (Frame::Paren | Frame::Brace, '"') => stack.push(Frame::DoubleQuote),
            (_, '`') => stack.push(Frame::Backtick),
            (_, '$') if next == Some('(') => {
                i += 1;
                stack.push(Frame::Paren);
            }
            (_, '$') if next == Some('{') => {
                i += 1;
                stack.push(Frame::Brace);
            }
            (Frame::Paren, '(') => stack.push(Frame::Paren),
            (Frame::Paren, ')') | (Frame::Brace, '}') => {
                stack.pop();
            }
            _ => {}
        }
    }
    if i > chars.len() {
        return Err(LexError::UnbalancedSubstitution);
    }
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(input: &str) -> Vec<String> {
        tokenize(input)
            .unwrap()
            .into_iter()
            .map(|t| match t {
                Token::Word(w) => w.text,
                Token::Redirect(r) => format!("<{r:?}>"),
                Token::Separator(_) => ";".into(),
                Token::OpenGroup => "(".into(),
                Token::CloseGroup => ")".into(),
            })
            .collect()
    }

    #[test]
    fn descriptor_prefix_joins_the_operator() {
        assert_eq!(
            words("cmd 2>err 12>>x a2>y"),
            [
                "cmd", "<Write>", "err", "<Write>", "x", "a2", "<Write>", "y"
            ]
        );
        assert_eq!(words("cmd 2>&1"), ["cmd", "<DupOut>", "1"]);
        assert_eq!(words("\"2\">x"), ["2", "<Write>", "x"]);
    }

    #[test]
    fn quotes_mark_words_and_are_removed() {
        let tokens = tokenize(r#"a "b c" d\ e 'f' X="1 2""#).unwrap();
        let got: Vec<(String, Option<usize>)> = tokens
            .into_iter()
            .filter_map(|t| match t {
                Token::Word(w) => Some((w.text, w.first_quoted)),
                _ => None,
            })
            .collect();
        assert_eq!(
            got,
            [
                ("a".into(), None),
                ("b c".into(), Some(0)),
                ("d e".into(), Some(1)),
                ("f".into(), Some(0)),
                ("X=1 2".into(), Some(2)),
            ]
        );
    }

    #[test]
    fn heredoc_bodies_and_comments_vanish() {
        assert_eq!(
            words("cat <<EOF > f\nrm x\nEOF\ntouch y # > z"),
            ["cat", "<Heredoc>", "EOF", "<Write>", "f", ";", "touch", "y"]
        );
        assert_eq!(
            words("cat <<-'E' >f\n\trm x\n\tE\nls"),
            ["cat", "<Heredoc>", "E", "<Write>", "f", ";", "ls"]
        );
    }

    #[test]
    fn failures() {
        assert_eq!(tokenize("echo 'x"), Err(LexError::UnclosedQuote));
        assert_eq!(tokenize("echo \"x"), Err(LexError::UnclosedQuote));
        assert_eq!(tokenize("echo $(ls"), Err(LexError::UnbalancedSubstitution));
        assert_eq!(tokenize("echo `ls"), Err(LexError::UnbalancedSubstitution));
        assert_eq!(tokenize("cat <<"), Err(LexError::MissingHeredocDelimiter));
        assert_eq!(tokenize("cat << ;"), Err(LexError::MissingHeredocDelimiter));
        assert!(tokenize(&"$(".repeat(100_000)).is_err());
    }

    #[test]
    fn substitutions_stay_inside_their_word() {
        let tokens = tokenize("echo $(a \"$(b ')')\" c)x `d` ${e:-f g}").unwrap();
        let words: Vec<(String, bool)> = tokens
            .into_iter()
            .filter_map(|t| match t {
                Token::Word(w) => Some((w.text, w.substituted)),
                _ => None,
            })
            .collect();
        assert_eq!(
            words,
            [
                ("echo".into(), false),
                ("$(a \"$(b ')')\" c)x".into(), true),
                ("`d`".into(), true),
                ("${e:-f g}".into(), false),
            ]
        );
    }
}
