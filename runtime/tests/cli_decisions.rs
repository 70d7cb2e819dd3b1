//! `acc message --type decision --supersedes/--withdraws`, as processes in a temporary data
//! home: replace chains, a conflicted group and its resolution, a withdrawal, where each
//! decision then shows its status (send result, inbox page, exact read, full sync), and every
//! refusal with its exit code. Human and `--json` transcripts are pinned with insta.

mod common;

use common::transcript::Transcript;
use common::{Run, Sandbox};

type Owner = (String, String);

impl Transcript<'_> {
    fn record(&mut self, who: &str, owner: &Owner, args: &[&str]) -> Run {
        self.run(Some(who), Some(owner), args)
    }

    /// Records a send that must succeed and returns the new message id.
    fn send(&mut self, who: &str, owner: &Owner, args: &[&str]) -> String {
        let mut full = vec!["message"];
        full.extend_from_slice(args);
        let r = self.record(who, owner, &full);
        assert_eq!(r.code, 0, "{}", r.stderr);
        if self.json {
            r.json()["data"]["message"]["messageId"]
                .as_str()
                .unwrap()
                .to_string()
        } else {
            r.stdout
                .split_whitespace()
                .nth(1)
                .unwrap()
                .trim_end_matches(';')
                .to_string()
        }
    }

    /// Records a send that must be refused with `code`.
    fn refused(&mut self, who: &str, owner: &Owner, args: &[&str], code: i32) {
        let mut full = vec!["message"];
        full.extend_from_slice(args);
        let r = self.record(who, owner, &full);
        assert_eq!(r.code, code, "{args:?}: {}{}", r.stdout, r.stderr);
    }
}

fn decision<'a>(subject: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "--type",
        "decision",
        "--subject",
        subject,
        "--body",
        "why: see thread",
    ];
    v.extend_from_slice(extra);
    v
}

fn scenario(json: bool) -> String {
    let sb = Sandbox::new();
    let mut t = Transcript::new(&sb, json);
    let alice = sb.attach("alice", &[]);
    let bob = sb.attach("bob", &[]);
    let carol = sb.attach("carol", &[]);
    for o in [&alice, &bob, &carol] {
        t.red.apply(&o.0);
    }

    // A room decision, replaced twice by people who had not seen each other's replacement.
    let port = t.send("alice", &alice, &decision("port 8080", &[]));
    let by_bob = t.send(
        "bob",
        &bob,
        &decision("port 9090", &["--supersedes", &port]),
    );
    let by_carol = t.send(
        "carol",
        &carol,
        &decision("port 7070", &["--supersedes", &port]),
    );
    // The superseded decision is off bob's inbox page; the two heads are on it.
    t.record("bob", &bob, &["inbox"]);
    t.record("bob", &bob, &["inbox", "--message", &port]);
    // Alice resolves the conflict by replacing both heads at once.
    let agreed = t.send(
        "alice",
        &alice,
        &decision(
            "port 9090, agreed",
            &["--supersedes", &by_bob, "--supersedes", &by_carol],
        ),
    );
    t.record("carol", &carol, &["inbox", "--message", &port]);
    // An addressed decision that obliges an acknowledgement, then its withdrawal.
    let freeze = t.send(
        "alice",
        &alice,
        &decision(
            "freeze src/parser",
            &["--to", "bob", "--obligation", "acknowledge"],
        ),
    );
    let thaw = t.send(
        "alice",
        &alice,
        &decision(
            "parser is open again",
            &["--to", "bob", "--withdraws", &freeze],
        ),
    );
    t.record("bob", &bob, &["inbox", "--message", &freeze]);
    t.record("bob", &bob, &["sync", "--scope", "full"]);

    // Refusals: shapes are usage errors, unknown targets data errors, another's private
    // decision a conflict. None of them writes anything.
    let seventeen: Vec<String> = (0..17).map(|i| format!("message_n{i}")).collect();
    let mut many = decision("too many", &[]);
    for id in &seventeen {
        many.extend_from_slice(&["--supersedes", id]);
    }
    let before = sb.store_bytes();
    t.refused(
        "bob",
        &bob,
        &decision("both", &["--supersedes", &agreed, "--withdraws", &agreed]),
        2,
    );
    t.refused("bob", &bob, &many, 2);
    t.refused(
        "bob",
        &bob,
        &decision("twice", &["--withdraws", &agreed, "--withdraws", &agreed]),
        2,
    );
    t.refused(
        "bob",
        &bob,
        &[
            "--subject",
            "a note",
            "--body",
            "b",
            "--supersedes",
            &agreed,
        ],
        2,
    );
    t.refused(
        "bob",
        &bob,
        &decision("bad id", &["--supersedes", "not an id"]),
        2,
    );
    t.refused(
        "bob",
        &bob,
        &decision(
            "room ack",
            &["--obligation", "acknowledge", "--supersedes", &agreed],
        ),
        2,
    );
    t.refused(
        "bob",
        &bob,
        &decision("gone", &["--supersedes", "message_doesnotexist"]),
        4,
    );
    let note = {
        let r = sb.run_as(
            &alice,
            &[
                "message",
                "--to",
                "bob",
                "--subject",
                "n",
                "--body",
                "b",
                "--json",
            ],
        );
        r.json()["data"]["message"]["messageId"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let before_note = sb.store_bytes();
    assert_ne!(before, before_note);
    t.refused(
        "bob",
        &bob,
        &decision("not one", &["--withdraws", &note]),
        4,
    );
    t.refused(
        "carol",
        &carol,
        &decision("not mine", &["--withdraws", &thaw]),
        5,
    );
    assert!(
        sb.store_bytes() == before_note,
        "refused decisions write nothing"
    );
    t.text
}

#[test]
fn decision_changes_in_human_mode() {
    insta::assert_snapshot!("decisions_human", scenario(false));
}

#[test]
fn decision_changes_in_json_mode() {
    insta::assert_snapshot!("decisions_json", scenario(true));
}

#[test]
fn message_help_documents_the_decision_flags() {
    let sb = Sandbox::new();
    let r = sb.run(&["message", "--help"]);
    assert_eq!(r.code, 0);
    for needle in ["--supersedes <MESSAGE>", "--withdraws <MESSAGE>", "1 to 16"] {
        assert!(r.stdout.contains(needle), "{needle} in {}", r.stdout);
    }
}
