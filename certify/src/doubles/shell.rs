//! POSIX shell quoting, for a double that must express a file write as a shell command
//! (a client that offers a shell tool but no file-writing tool).

use std::path::Path;

/// Quotes `text` as one `sh` word.
pub fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A command that creates `path` holding exactly `content`.
pub fn write_file_command(path: &Path, content: &str) -> String {
    format!(
        "printf '%s' {} > {}",
        quote(content),
        quote(&path.to_string_lossy())
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn quoting_survives_a_real_shell() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("it's here.txt");
        let content = "line 'one'\n$HOME `x` \\ %s\n";
        let status = Command::new("sh")
            .arg("-c")
            .arg(write_file_command(&path, content))
            .status()
            .unwrap();
        assert!(status.success());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), content);
    }
}
