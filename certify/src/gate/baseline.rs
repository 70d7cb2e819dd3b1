//! The baseline: failures the gate expects, one per line as `check-id` (that check, for
//! every adapter) or `check-id:adapter`, with `#` comments and blank lines ignored. An
//! expected failure does not fail the gate; a listed failure that no longer fails does
//! (the baseline is stale), so the list can only shrink as things get fixed.

use super::results::{GateResult, Status};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineEntry {
    /// 1-based line in the file.
    pub line: usize,
    pub check: String,
    pub adapter: Option<String>,
}

impl BaselineEntry {
    pub fn matches(&self, result: &GateResult) -> bool {
        self.check == result.check && (self.adapter.is_none() || self.adapter == result.adapter)
    }

    fn spelled(&self) -> String {
        match &self.adapter {
            Some(a) => format!("{}:{a}", self.check),
            None => self.check.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Baseline {
    /// The file as the user named it.
    pub file: String,
    pub entries: Vec<BaselineEntry>,
}

fn is_id_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '-' | '_')
}

impl Baseline {
    /// Parses the file's text; a malformed line is an error naming it.
    pub fn parse(file: &str, text: &str) -> Result<Baseline, String> {
        let mut entries = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let (check, adapter) = match line.split_once(':') {
                Some((c, a)) => (c, Some(a)),
                None => (line, None),
            };
            let valid = |s: &str| !s.is_empty() && s.chars().all(is_id_char);
            if !valid(check) || adapter.is_some_and(|a| !valid(a)) {
                return Err(format!(
                    "{file}:{}: {raw:?} is not `check-id` or `check-id:adapter` (one per line, # starts a comment)",
                    i + 1
                ));
            }
            entries.push(BaselineEntry {
                line: i + 1,
                check: check.to_owned(),
                adapter: adapter.map(str::to_owned),
            });
        }
        Ok(Baseline {
            file: file.to_owned(),
            entries,
        })
    }

    /// Marks listed failures as expected, and every entry that no longer matches a failure
    /// as stale: its passing results become stale, or a result of its own is added when it
    /// matches nothing at all.
    pub fn apply(&self, results: &mut Vec<GateResult>) {
        let failing: Vec<bool> = results.iter().map(|r| r.status == Status::Fail).collect();
        for (result, failed) in results.iter_mut().zip(&failing) {
            if let Some(entry) = self.entries.iter().find(|e| e.matches(result))
                && *failed
            {
                result.status = Status::ExpectedFailure;
                let why = result.message.take().unwrap_or_default();
                result.message = Some(format!("expected by {}:{}: {why}", self.file, entry.line));
            }
        }
        for entry in &self.entries {
            let still_failing = results
                .iter()
                .zip(&failing)
                .any(|(r, failed)| *failed && entry.matches(r));
            if still_failing {
                continue;
            }
            let stale = format!(
                "{}:{} lists {} as an expected failure, but it does not fail now: remove the line",
                self.file,
                entry.line,
                entry.spelled()
            );
            let mut matched = false;
            for result in results.iter_mut().filter(|r| entry.matches(r)) {
                matched = true;
                result.status = Status::StaleBaseline;
                result.file = Some(self.file.clone());
                result.message = Some(stale.clone());
            }
            if !matched {
                results.push(GateResult::new(
                    &entry.check,
                    entry.adapter.as_deref(),
                    Status::StaleBaseline,
                    Some(self.file.clone()),
                    Some(format!("{stale} (no such check or adapter)")),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(check: &str, adapter: Option<&str>, status: Status) -> GateResult {
        GateResult::new(check, adapter, status, None, Some("why".into()))
    }

    #[test]
    fn parses_ids_with_and_without_adapter_and_skips_comments() {
        let b =
            Baseline::parse("b.txt", "# known\n\nconf.a.b:codex  # trust\n cert.wire \n").unwrap();
        assert_eq!(
            b.entries,
            [
                BaselineEntry {
                    line: 3,
                    check: "conf.a.b".into(),
                    adapter: Some("codex".into())
                },
                BaselineEntry {
                    line: 4,
                    check: "cert.wire".into(),
                    adapter: None
                },
            ]
        );
        let err = Baseline::parse("b.txt", "ok.id\nbad id\n").unwrap_err();
        assert!(err.starts_with("b.txt:2:"), "{err}");
        assert!(Baseline::parse("b.txt", "a:b:c\n").is_err());
        assert!(Baseline::parse("b.txt", ":codex\n").is_err());
    }

    #[test]
    fn expected_failures_pass_and_stale_entries_fail() {
        let b = Baseline::parse("b.txt", "x.fails:codex\nx.passes:codex\nx.all\nx.none\n").unwrap();
        let mut results = vec![
            result("x.fails", Some("codex"), Status::Fail),
            result("x.fails", Some("grok"), Status::Fail),
            result("x.passes", Some("codex"), Status::Pass),
            result("x.all", Some("codex"), Status::Fail),
            result("x.all", Some("grok"), Status::Pass),
        ];
        b.apply(&mut results);
        let statuses: Vec<(String, Status)> = results.iter().map(|r| (r.key(), r.status)).collect();
        assert_eq!(
            statuses,
            [
                ("x.fails:codex".to_owned(), Status::ExpectedFailure),
                ("x.fails:grok".to_owned(), Status::Fail),
                ("x.passes:codex".to_owned(), Status::StaleBaseline),
                ("x.all:codex".to_owned(), Status::ExpectedFailure),
                ("x.all:grok".to_owned(), Status::Pass),
                ("x.none".to_owned(), Status::StaleBaseline),
            ]
        );
        assert_eq!(
            results[2].message.as_deref(),
            Some(
                "b.txt:2 lists x.passes:codex as an expected failure, but it does not fail now: remove the line"
            )
        );
        assert!(
            results[0]
                .message
                .as_deref()
                .unwrap()
                .starts_with("expected by b.txt:1: why")
        );
    }
}
