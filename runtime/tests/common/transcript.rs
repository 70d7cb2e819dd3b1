//! A transcript of `acc` runs for snapshots: each command with who ran it, its exit code and
//! its redacted output (one line at most in human mode, the pretty envelope in `--json`
//! mode).

use super::{Redactor, Run, Sandbox};

pub struct Transcript<'a> {
    pub sb: &'a Sandbox,
    pub red: Redactor,
    pub json: bool,
    pub text: String,
}

impl<'a> Transcript<'a> {
    pub fn new(sb: &'a Sandbox, json: bool) -> Self {
        Transcript {
            sb,
            red: Redactor::new(sb),
            json,
            text: String::new(),
        }
    }

    /// Runs `acc args` (with `--json` in JSON mode) as `owner`, written down as `[as who]`.
    pub fn run(
        &mut self,
        who: Option<&str>,
        owner: Option<&(String, String)>,
        args: &[&str],
    ) -> Run {
        let mut args: Vec<&str> = args.to_vec();
        if self.json {
            args.push("--json");
        }
        let r = match owner {
            Some(o) => self.sb.run_as(o, &args),
            None => self.sb.run(&args),
        };
        let who = who.map(|w| format!("[as {w}] ")).unwrap_or_default();
        let line = self.red.apply(&args.join(" "));
        self.text
            .push_str(&format!("$ {who}acc {line}\nexit {}\n", r.code));
        if self.json {
            assert!(
                r.stderr.is_empty(),
                "--json writes nothing to stderr: {}",
                r.stderr
            );
            let pretty = self.red.json(&r);
            self.text.push_str(&pretty);
            self.text.push('\n');
        } else {
            assert!(
                r.stdout.lines().count() <= 1,
                "one line at most: {}",
                r.stdout
            );
            assert!(
                r.stderr.lines().count() <= 1,
                "one error line at most: {}",
                r.stderr
            );
            for l in r.stdout.lines() {
                self.text.push_str(&format!("> {}\n", self.red.apply(l)));
            }
            for l in r.stderr.lines() {
                self.text.push_str(&format!("! {}\n", self.red.apply(l)));
            }
        }
        self.text.push('\n');
        r
    }
}
