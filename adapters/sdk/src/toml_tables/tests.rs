use super::*;
use serde_json::json;

const P: &str = "/h/config.toml";

fn path() -> &'static Path {
    Path::new(P)
}

fn fields(event: &str) -> Map<String, Value> {
    let Value::Object(map) = json!({
        "event": event,
        "command": format!("\"/opt/acc/bin/acc-hook\" kimi-code {event}"),
        "timeout": 10,
    }) else {
        unreachable!()
    };
    map
}

fn ours(entry: &FoundEntry) -> bool {
    entry.fields["command"]
        .as_str()
        .is_some_and(|c| c.contains("acc-hook"))
}

fn acc_entries() -> Vec<Map<String, Value>> {
    vec![fields("SessionStart"), fields("Stop")]
}

/// Files a person might have, each holding text that looks like structure but is not.
const USER_FILES: [&str; 9] = [
    "",
    "model = \"k2\"\n",
    "model = \"k2\"",
    "# c\r\nmodel = \"k2\"  # pinned\r\n[ui]\r\ntheme = \"dark\"",
    "[[hooks]]\nevent = \"Stop\"\ncommand = \"/home/u/log\"\ntimeout = 5\n\n[ui]\nx = 1\n",
    "notes = \"\"\"\n# >>> agents-can-communicate (managed; edits here are overwritten)\n[[hooks]]\n# <<< agents-can-communicate\n\"\"\"\n",
    "notes = '''\n[[hooks]]\ncommand = \"/opt/acc/bin/acc-hook kimi-code Stop\"\n'''",
    "\n\n\n",
    "a = [\n  1, # one\n  2,\n]\r\n",
];

#[test]
fn appending_then_removing_gives_every_file_back_byte_for_byte() {
    for text in USER_FILES {
        let with = append(text, path(), "hooks", &acc_entries(), "acc").unwrap();
        assert!(with.starts_with(text), "{text:?}");
        let found = entries(&with, path(), "hooks").unwrap();
        let acc: Vec<&FoundEntry> = found.iter().filter(|e| ours(e)).collect();
        assert_eq!(acc.len(), 2, "{with}");
        assert_eq!(acc[0].fields, fields("SessionStart"));
        assert_eq!(
            remove(&with, path(), "hooks", ours).unwrap(),
            text,
            "{with:?}"
        );
        // Nothing of acc's: nothing removed.
        assert_eq!(remove(text, path(), "hooks", ours).unwrap(), text);
    }
}

#[test]
fn new_tables_take_the_files_line_ending_and_mirror_its_last_one() {
    let crlf = "a = 1\r\nb = 2";
    let out = append(crlf, path(), "hooks", &[fields("Stop")], "acc").unwrap();
    assert_eq!(
        out,
        "a = 1\r\nb = 2\r\n[[hooks]] # acc\r\nevent = \"Stop\"\r\ncommand = '\"/opt/acc/bin/acc-hook\" kimi-code Stop'\r\ntimeout = 10"
    );
    let lf = append("a = 1\n", path(), "hooks", &[fields("Stop")], "").unwrap();
    assert!(lf.starts_with("a = 1\n[[hooks]]\nevent"), "{lf}");
    assert!(lf.ends_with("timeout = 10\n"));
}

#[test]
fn text_inside_strings_is_never_taken_for_an_entry() {
    let text = USER_FILES[5];
    assert!(entries(text, path(), "hooks").unwrap().is_empty());
    let with = append(text, path(), "hooks", &acc_entries(), "acc").unwrap();
    let parsed: toml::Table = toml::from_str(&with).unwrap();
    assert_eq!(
        parsed["notes"].as_str().unwrap(),
        "# >>> agents-can-communicate (managed; edits here are overwritten)\n[[hooks]]\n# <<< agents-can-communicate\n"
    );
    assert_eq!(parsed["hooks"].as_array().unwrap().len(), 2);
}

#[test]
fn the_users_content_around_and_after_accs_tables_stays() {
    let user = "[[hooks]]\nevent = \"Stop\"\ncommand = \"/home/u/log\"\n";
    let with = append(user, path(), "hooks", &acc_entries(), "acc").unwrap();
    // The user then adds a comment and a table after acc's.
    let edited = format!("{with}\n# mine\n[ui]\ntheme = \"dark\"\n");
    assert_eq!(
        remove(&edited, path(), "hooks", ours).unwrap(),
        format!("{user}\n# mine\n[ui]\ntheme = \"dark\"\n")
    );
    // A user's own hook between acc's tables stays too.
    let mixed = format!(
        "{}[[hooks]]\nevent = \"X\"\ncommand = \"mine\"\n{}",
        append("", path(), "hooks", &[fields("SessionStart")], "acc").unwrap(),
        append("", path(), "hooks", &[fields("Stop")], "acc").unwrap()
    );
    assert_eq!(
        remove(&mixed, path(), "hooks", ours).unwrap(),
        "[[hooks]]\nevent = \"X\"\ncommand = \"mine\"\n"
    );
}

#[test]
fn a_name_defined_in_another_form_is_refused_naming_its_line() {
    for (text, line, what) in [
        ("a = 1\nhooks = \"nope\"\n", 2, "a value"),
        ("a = 1\n\n[hooks]\nx = 1\n", 3, "a table"),
        ("hooks.x = 1\n", 1, "dotted keys"),
        (
            "a = 1\nhooks = [{ event = \"Stop\" }]\n",
            2,
            "an inline array",
        ),
    ] {
        for err in [
            entries(text, path(), "hooks").unwrap_err(),
            append(text, path(), "hooks", &acc_entries(), "acc").unwrap_err(),
            remove(text, path(), "hooks", ours).unwrap_err(),
        ] {
            assert_eq!(err.kind, AdapterErrorKind::Conflict, "{text:?}");
            assert!(
                err.message
                    .starts_with(&format!("{P}:{line}:1: `hooks` is defined here as {what}")),
                "{text:?}: {}",
                err.message
            );
        }
    }
}

#[test]
fn an_acc_table_holding_what_acc_did_not_write_is_refused_naming_its_line() {
    let text = "a = 1\n[[hooks]]\nevent = \"Stop\"\ncommand = \"/x/acc-hook kimi-code Stop\"\n[hooks.extra]\ny = 2\n";
    let err = remove(text, path(), "hooks", ours).unwrap_err();
    assert_eq!(err.kind, AdapterErrorKind::Conflict);
    assert!(
        err.message.starts_with(&format!(
            "{P}:2:1: this [[hooks]] table is acc's but also holds extra"
        )),
        "{}",
        err.message
    );
}

#[test]
fn malformed_toml_is_refused_with_line_and_column() {
    let err = entries("a = 1\nb = = 2\n", path(), "hooks").unwrap_err();
    assert_eq!(err.kind, AdapterErrorKind::MalformedUserFile);
    assert!(
        err.message.starts_with(&format!("{P}:2:")),
        "{}",
        err.message
    );
}
