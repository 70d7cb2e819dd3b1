//! What the reader knows about the place a command runs in: its directory, the home
//! directory, and a file system to match globs against at hook time.

use std::path::Path;

/// The file system as the reader may look at it: listing only, never reading contents.
/// Tests pass a fake; the hook passes [`RealFs`].
pub trait ShellFs: Send + Sync {
    /// The names in the directory `dir` (an absolute path), or `None` when it is not a
    /// directory that can be listed.
    fn list_dir(&self, dir: &str) -> Option<Vec<String>>;
    /// Is `path` (absolute) a directory, following symlinks?
    fn is_dir(&self, path: &str) -> bool;
    /// Does anything (a file, a directory, a dangling link) exist at `path` (absolute)?
    fn exists(&self, path: &str) -> bool;
}

/// The machine's own file system.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealFs;

impl ShellFs for RealFs {
    fn list_dir(&self, dir: &str) -> Option<Vec<String>> {
        let entries = std::fs::read_dir(dir).ok()?;
        // A name that is not UTF-8 cannot be matched as text; bash would still match it, so
        // it is given lossily rather than dropped (it still lands under the same directory).
        Some(
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect(),
        )
    }

    fn is_dir(&self, path: &str) -> bool {
        Path::new(path).is_dir()
    }

    fn exists(&self, path: &str) -> bool {
        std::fs::symlink_metadata(path).is_ok()
    }
}

/// Where a command runs, as far as the reader may know it.
#[derive(Clone, Copy)]
pub struct ShellContext<'a> {
    /// The absolute directory the command starts in; `None` when unknown (targets stay
    /// relative to it either way).
    pub cwd: Option<&'a str>,
    /// `$HOME`; `None` when unknown, which makes `~` in a written path unreadable.
    pub home: Option<&'a str>,
    /// Where globs are matched; `None` makes a glob in a written path unreadable.
    pub fs: Option<&'a dyn ShellFs>,
}

impl<'a> ShellContext<'a> {
    /// No directory, home or file system known: what a caller without a hook payload has.
    pub const DETACHED: ShellContext<'static> = ShellContext {
        cwd: None,
        home: None,
        fs: None,
    };

    /// The context of a hook call: the payload's `cwd`, the hook's own `$HOME` (the client
    /// runs its shell tool with the same environment it gives its hooks) and the real file
    /// system.
    pub fn hook(cwd: &'a str, home: Option<&'a str>) -> ShellContext<'a> {
        static REAL: RealFs = RealFs;
        ShellContext {
            cwd: Path::new(cwd).is_absolute().then_some(cwd),
            home: home.filter(|h| Path::new(h).is_absolute()),
            fs: Some(&REAL),
        }
    }
}

impl std::fmt::Debug for ShellContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShellContext")
            .field("cwd", &self.cwd)
            .field("home", &self.home)
            .field("fs", &self.fs.is_some())
            .finish()
    }
}
