//! Entering a private user and mount namespace in which chosen paths are read-only.
//!
//! The setup is split in two so that it can run in a child that shares its parent's memory
//! (the command's process and the hook's probe, both cloned so): [`Plan::new`] allocates
//! everything up front, and [`Plan::apply`] and [`Plan::apply_entered`] only make system calls.
//!
//! The bind mounts ([`super::layout`]: read-only ones, and writable ones re-opening what is
//! not claimed under a read-only directory) are made in a first user namespace, then a
//! second, nested user and mount namespace is entered. Mounts that reach a less privileged mount namespace are
//! locked (mount_namespaces(7)): even a command that is root in its namespace (the caller
//! may be root) can neither unmount them nor remount them writable, and cannot bind the
//! directory under them elsewhere without them.

use std::ffi::{CString, c_int};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::layout::Mount;

/// Which step of the setup failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// `unshare(CLONE_NEWUSER | CLONE_NEWNS)` (the first or the locking namespace).
    Unshare,
    /// Writing `/proc/self/setgroups`, `uid_map` or `gid_map`.
    IdMap,
    /// Making every mount private, so nothing done here reaches the caller's namespace.
    Private,
    /// Bind-mounting the path with this index onto itself.
    Bind(usize),
    /// Remounting that bind read-only (or writable again).
    ReadOnly(usize),
    /// Entering the working directory again, through the new mounts.
    Cwd,
    /// The read-only path with this index is a symbolic link in a directory that is not
    /// read-only: its name could be pointed elsewhere.
    Link(usize),
}

/// A failed step and its errno.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetupError {
    pub step: Step,
    pub errno: c_int,
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.step {
            Step::Unshare => "entering a user and mount namespace".to_owned(),
            Step::IdMap => "mapping the user and group ids".to_owned(),
            Step::Private => "making the mounts private".to_owned(),
            Step::Bind(i) => format!("bind-mounting read-only path #{}", i + 1),
            Step::ReadOnly(i) => format!("remounting path #{}", i + 1),
            Step::Cwd => "entering the working directory again".to_owned(),
            Step::Link(i) => format!("checking read-only path #{}", i + 1),
        };
        let os = std::io::Error::from_raw_os_error(self.errno);
        write!(f, "{what} failed: {os}")
    }
}

/// Everything the setup needs, allocated before any namespace is entered.
#[derive(Debug, Clone)]
pub struct Plan {
    uid_map: CString,
    gid_map: CString,
    /// Each path, whether it is re-opened writable, and its directory.
    mounts: Vec<(CString, bool, CString)>,
    cwd: Option<CString>,
}

impl Plan {
    /// A plan that makes each of `read_only` (absolute, existing paths) read-only. A path
    /// with a NUL byte cannot exist on Linux; it is refused rather than dropped.
    pub fn new(read_only: &[impl AsRef<Path>]) -> Result<Plan, std::ffi::NulError> {
        let mounts: Vec<Mount> = read_only
            .iter()
            .map(|p| Mount {
                path: p.as_ref().to_path_buf(),
                writable: false,
            })
            .collect();
        Plan::of_mounts(&mounts)
    }

    /// A plan that makes `mounts` in order: each a bind of an existing absolute path onto
    /// itself, read-only or (under a read-only one) writable again.
    pub fn of_mounts(mounts: &[Mount]) -> Result<Plan, std::ffi::NulError> {
        // SAFETY: getuid and getgid cannot fail and have no preconditions.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        let mounts = mounts
            .iter()
            .map(|m| {
                let dir = m.path.parent().unwrap_or(&m.path);
                Ok((
                    CString::new(m.path.as_os_str().as_bytes())?,
                    m.writable,
                    CString::new(dir.as_os_str().as_bytes())?,
                ))
            })
            .collect::<Result<_, std::ffi::NulError>>()?;
        // The working directory is held by inode, below any mount made over it: entered
        // again by name, a write relative to it meets the mounts like any other.
        let cwd = std::env::current_dir()
            .ok()
            .map(|d| CString::new(d.as_os_str().as_bytes()))
            .transpose()?;
        Ok(Plan {
            uid_map: CString::new(format!("{uid} {uid} 1\n"))?,
            gid_map: CString::new(format!("{gid} {gid} 1\n"))?,
            mounts,
            cwd,
        })
    }

    /// Enters the namespaces and makes the mounts in them. The caller keeps its own user
    /// and group ids. Must run in a single-threaded process (`unshare` refuses a new user
    /// namespace otherwise). Makes no allocation.
    pub fn apply(&self) -> Result<(), SetupError> {
        self.enter()?;
        self.mount_and_lock()
    }

    /// [`Plan::apply`] in a process created in its new user and mount namespace
    /// (`clone(CLONE_NEWUSER | CLONE_NEWNS)`, as the runner creates the command's): the same
    /// steps but the first `unshare`. Makes no allocation.
    pub fn apply_entered(&self) -> Result<(), SetupError> {
        self.map_ids()?;
        self.mount_and_lock()
    }

    fn mount_and_lock(&self) -> Result<(), SetupError> {
        private()?;
        for (i, (path, writable, dir)) in self.mounts.iter().enumerate() {
            if *writable {
                reopen(path, i)?;
            } else {
                bind(path, dir, i)?;
            }
        }
        // Locks the mounts above (see the module docs).
        self.enter()?;
        if let Some(cwd) = &self.cwd {
            // SAFETY: a NUL-terminated string that outlives the call.
            if unsafe { libc::chdir(cwd.as_ptr()) } != 0 {
                return Err(last(Step::Cwd));
            }
        }
        Ok(())
    }

    fn enter(&self) -> Result<(), SetupError> {
        // SAFETY: unshare takes flags only.
        if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) } != 0 {
            return Err(last(Step::Unshare));
        }
        self.map_ids()
    }

    fn map_ids(&self) -> Result<(), SetupError> {
        // Without `deny`, an unprivileged process may not write its gid_map.
        write_file(c"/proc/self/setgroups", c"deny")?;
        write_file(c"/proc/self/uid_map", &self.uid_map)?;
        write_file(c"/proc/self/gid_map", &self.gid_map)
    }
}

fn last(step: Step) -> SetupError {
    SetupError {
        step,
        errno: std::io::Error::last_os_error().raw_os_error().unwrap_or(0),
    }
}

fn write_file(path: &std::ffi::CStr, text: &std::ffi::CStr) -> Result<(), SetupError> {
    // SAFETY: both pointers are NUL-terminated strings that outlive the calls; the buffer
    // length is the string's own.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(last(Step::IdMap));
        }
        let bytes = text.to_bytes();
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let failed = written < 0 || written as usize != bytes.len();
        let err = last(Step::IdMap);
        libc::close(fd);
        if failed { Err(err) } else { Ok(()) }
    }
}

fn private() -> Result<(), SetupError> {
    // SAFETY: NUL-terminated strings; a null source, type and data are allowed for a
    // propagation change.
    let rc = unsafe {
        libc::mount(
            c"none".as_ptr(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        )
    };
    if rc != 0 {
        return Err(last(Step::Private));
    }
    Ok(())
}

/// Makes `path` read-only: a recursive bind onto itself, remounted read-only.
fn bind(path: &CString, dir: &CString, index: usize) -> Result<(), SetupError> {
    // SAFETY: NUL-terminated strings that outlive the calls; stat and statvfs write into
    // values of their own types.
    unsafe {
        // A mount follows a link: what it names is made read-only, not its name. The
        // layout mounts a claimed link only under its directory made read-only first; a
        // line that does not (hand-written) would leave the name free to point elsewhere.
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstatat(
            libc::AT_FDCWD,
            path.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        ) == 0
            && st.st_mode & libc::S_IFMT == libc::S_IFLNK
        {
            let mut vfs: libc::statvfs = std::mem::zeroed();
            if libc::statvfs(dir.as_ptr(), &mut vfs) != 0 {
                return Err(last(Step::Link(index)));
            }
            if vfs.f_flag & libc::ST_RDONLY == 0 {
                return Err(SetupError {
                    step: Step::Link(index),
                    errno: libc::EPERM,
                });
            }
        }
        // Recursive: a non-recursive bind of a directory that holds mounts of the caller's
        // namespace is refused, because it would uncover what those mounts hide.
        if libc::mount(
            path.as_ptr(),
            path.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND | libc::MS_REC,
            std::ptr::null(),
        ) != 0
        {
            return Err(last(Step::Bind(index)));
        }
        // A remount in a user namespace must keep the flags the mount already has.
        let mut stat: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(path.as_ptr(), &mut stat) != 0 {
            return Err(last(Step::ReadOnly(index)));
        }
        let flags = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | kept_flags(stat.f_flag);
        if libc::mount(
            std::ptr::null(),
            path.as_ptr(),
            std::ptr::null(),
            flags,
            std::ptr::null(),
        ) != 0
        {
            return Err(last(Step::ReadOnly(index)));
        }
    }
    Ok(())
}

/// `linux/mount.h`, the same number on every architecture acc builds for.
const SYS_OPEN_TREE: libc::c_long = 428;
const SYS_MOVE_MOUNT: libc::c_long = 429;
const SYS_OPENAT2: libc::c_long = 437;
const SYS_MOUNT_SETATTR: libc::c_long = 442;
const OPEN_TREE_CLONE: libc::c_uint = 1;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x04;
const MOVE_MOUNT_T_EMPTY_PATH: libc::c_uint = 0x40;
const MOUNT_ATTR_RDONLY: u64 = 1;
const RESOLVE_NO_SYMLINKS: u64 = 0x04;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

/// Makes `path`, under a directory mounted read-only before it, writable again: the entry
/// itself, found without following any symbolic link, is cloned, made writable and
/// attached on itself (`open_tree`, `mount_setattr`, `move_mount`: nothing is looked up
/// by name twice). A path through a link, or a link, stays read-only: a link re-opened by
/// name would re-open what it names, which may be a claimed file, and its name was
/// checked when the layout was made, not now.
fn reopen(path: &CString, index: usize) -> Result<(), SetupError> {
    // SAFETY: NUL-terminated strings and structs of the kernel's layout that outlive the
    // calls; every descriptor opened here is closed here.
    unsafe {
        let how = OpenHow {
            flags: (libc::O_PATH | libc::O_CLOEXEC) as u64,
            mode: 0,
            resolve: RESOLVE_NO_SYMLINKS,
        };
        let at = libc::syscall(
            SYS_OPENAT2,
            libc::AT_FDCWD,
            path.as_ptr(),
            &how as *const OpenHow,
            std::mem::size_of::<OpenHow>(),
        ) as c_int;
        if at < 0 {
            let e = last(Step::Bind(index));
            return if e.errno == libc::ELOOP {
                Ok(())
            } else {
                Err(e)
            };
        }
        let tree = libc::syscall(
            SYS_OPEN_TREE,
            at,
            c"".as_ptr(),
            OPEN_TREE_CLONE
                | libc::AT_RECURSIVE as libc::c_uint
                | libc::O_CLOEXEC as libc::c_uint
                | libc::AT_EMPTY_PATH as libc::c_uint,
        ) as c_int;
        if tree < 0 {
            let e = last(Step::Bind(index));
            libc::close(at);
            return Err(e);
        }
        let attr = MountAttr {
            attr_set: 0,
            attr_clr: MOUNT_ATTR_RDONLY,
            propagation: 0,
            userns_fd: 0,
        };
        let mut result = Ok(());
        if libc::syscall(
            SYS_MOUNT_SETATTR,
            tree,
            c"".as_ptr(),
            libc::AT_EMPTY_PATH,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        ) != 0
        {
            result = Err(last(Step::ReadOnly(index)));
        } else if libc::syscall(
            SYS_MOVE_MOUNT,
            tree,
            c"".as_ptr(),
            at,
            c"".as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH,
        ) != 0
        {
            result = Err(last(Step::Bind(index)));
        }
        libc::close(tree);
        libc::close(at);
        result
    }
}

/// The mount flags of a `statvfs` result that a remount must repeat.
fn kept_flags(st: libc::c_ulong) -> libc::c_ulong {
    [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ]
    .into_iter()
    .filter(|(st_flag, _)| st & st_flag != 0)
    .fold(0, |acc, (_, ms)| acc | ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remounts_repeat_the_flags_they_must_keep() {
        assert_eq!(kept_flags(0), 0);
        assert_eq!(
            kept_flags(libc::ST_NOSUID | libc::ST_NODEV | libc::ST_RDONLY),
            libc::MS_NOSUID | libc::MS_NODEV
        );
        assert_eq!(kept_flags(libc::ST_RELATIME), libc::MS_RELATIME);
    }

    #[test]
    fn a_path_with_a_nul_byte_is_refused_not_dropped() {
        assert!(Plan::new(&[Path::new("/a\0b")]).is_err());
        assert_eq!(Plan::new(&[Path::new("/a")]).unwrap().mounts.len(), 1);
    }
}
