//! Who is on the other end of the socket.
//!
//! The server asks the kernel for the connecting process (`SO_PEERCRED`) and serves only
//! its own uid. The client cannot rely on `SO_PEERCRED` alone: on a listening socket it
//! names whoever created the socket, and that process may have handed the socket to another
//! program and then become a genuine `acc-hook`. So the client turns `SO_PASSCRED` on and
//! reads every byte through `recvmsg`: the kernel attaches the pid of the process that
//! wrote each message, which the client checks once ([`verify`]) and then requires of every
//! later message ([`CredReader`]).

use std::io::Read;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixStream;
use std::path::Path;

/// Why a server was not trusted. The codes are stable: the hook failure log records them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distrust {
    /// The socket did not say who wrote (no credentials attached).
    Unknown,
    /// Another uid.
    OtherUser,
    /// Not the `acc-hook` file this client expects (another program, or a replaced build).
    OtherProgram,
    /// Started with `LD_PRELOAD`, `LD_LIBRARY_PATH` or `LD_AUDIT`.
    Preloaded,
    /// Being traced.
    Traced,
    /// A second process wrote part of the answer.
    SecondWriter,
}

impl Distrust {
    pub fn code(self) -> &'static str {
        match self {
            Distrust::Unknown => "serve_peer_unknown",
            Distrust::OtherUser => "serve_peer_other_user",
            Distrust::OtherProgram => "serve_peer_other_program",
            Distrust::Preloaded => "serve_peer_preloaded",
            Distrust::Traced => "serve_peer_traced",
            Distrust::SecondWriter => "serve_peer_second_writer",
        }
    }
}

/// The connecting process's pid and uid, as the kernel recorded them.
pub fn credentials(stream: &UnixStream) -> Option<(u32, u32)> {
    acc_sdk::identity::peer_credentials(stream)
}

/// This process's effective uid.
pub fn own_uid() -> u32 {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() }
}

/// The file identity (device, inode) of `path`, following links.
pub fn file_id(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Whether `pid` is a genuine server: this uid, running the file `exe` (device, inode),
/// with no loader variables in its environment, not traced.
///
/// Every file is read through one descriptor of `/proc/<pid>`: once it is open its entries
/// are that process's or none (a pid reused after it exited is another directory), so the
/// checks cannot be split between two processes. Stack buffers only: a served call pays for
/// this on every call.
pub fn verify(pid: u32, exe: (u64, u64)) -> Result<(), Distrust> {
    let dir = ProcDir::open(pid).ok_or(Distrust::Unknown)?;
    // Uid and TracerPid are among the first lines of `status`: its first 4 KiB hold them.
    let mut status = [0u8; 4096];
    let n = dir
        .read_start(c"status", &mut status)
        .ok_or(Distrust::Unknown)?;
    let status = &status[..n];
    let field = |name: &[u8]| {
        status
            .split(|b| *b == b'\n')
            .find_map(|l| l.strip_prefix(name))
    };
    let uids = field(b"Uid:").ok_or(Distrust::Unknown)?;
    let own = own_uid();
    let mut seen = 0;
    for u in uids
        .split(|b| b.is_ascii_whitespace())
        .filter(|u| !u.is_empty())
    {
        if parse_u32(u) != Some(own) {
            return Err(Distrust::OtherUser);
        }
        seen += 1;
    }
    if seen == 0 {
        return Err(Distrust::Unknown);
    }
    if field(b"TracerPid:").map(<[u8]>::trim_ascii) != Some(&b"0"[..]) {
        return Err(Distrust::Traced);
    }
    if dir.file_id(c"exe") != Some(exe) {
        return Err(Distrust::OtherProgram);
    }
    match dir.environ_has_loader_variable() {
        None => Err(Distrust::Unknown),
        Some(true) => Err(Distrust::Preloaded),
        Some(false) => Ok(()),
    }
}

/// The variables that make the dynamic loader run other code in a process.
const LOADER_VARIABLES: [&[u8]; 3] = [b"LD_PRELOAD=", b"LD_LIBRARY_PATH=", b"LD_AUDIT="];

/// The longest of [`LOADER_VARIABLES`]: how much of each entry's start is kept.
const LOADER_PREFIX: usize = 16;

fn parse_u32(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || digits.len() > 10 {
        return None;
    }
    let mut n: u64 = 0;
    for d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n * 10 + u64::from(d - b'0');
    }
    u32::try_from(n).ok()
}

/// An open `/proc/<pid>` directory.
struct ProcDir(std::os::fd::OwnedFd);

impl ProcDir {
    fn open(pid: u32) -> Option<ProcDir> {
        use std::os::fd::FromRawFd;
        // "/proc/" and at most ten digits and a NUL.
        let mut path = [0u8; 17];
        path[..6].copy_from_slice(b"/proc/");
        let mut digits = [0u8; 10];
        let mut n = pid;
        let mut len = 0;
        loop {
            digits[len] = b'0' + (n % 10) as u8;
            len += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        for i in 0..len {
            path[6 + i] = digits[len - 1 - i];
        }
        // SAFETY: `path` is NUL-terminated (zeroed past the digits); open reads only it.
        let fd = unsafe {
            libc::open(
                path.as_ptr().cast(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        // SAFETY: a descriptor open just returned, owned by nobody else.
        (fd >= 0).then(|| ProcDir(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) }))
    }

    fn open_entry(&self, name: &std::ffi::CStr) -> Option<std::os::fd::OwnedFd> {
        use std::os::fd::{AsRawFd, FromRawFd};
        // SAFETY: openat on a directory descriptor owned here and a NUL-terminated name.
        let fd = unsafe {
            libc::openat(
                self.0.as_raw_fd(),
                name.as_ptr(),
                libc::O_RDONLY | libc::O_CLOEXEC,
            )
        };
        // SAFETY: a descriptor openat just returned, owned by nobody else.
        (fd >= 0).then(|| unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
    }

    /// The first bytes of entry `name`, as many as fit in `buf` (one read: the kernel
    /// renders a `/proc` file whole into the first read that it fits).
    fn read_start(&self, name: &std::ffi::CStr, buf: &mut [u8]) -> Option<usize> {
        let fd = self.open_entry(name)?;
        read_some(&fd, buf)
    }

    /// Device and inode of the file entry `name` leads to.
    fn file_id(&self, name: &std::ffi::CStr) -> Option<(u64, u64)> {
        use std::os::fd::AsRawFd;
        // SAFETY: fstatat fills a zeroed stat owned here; the name is NUL-terminated.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::fstatat(self.0.as_raw_fd(), name.as_ptr(), &mut st, 0) };
        (r == 0).then_some((st.st_dev, st.st_ino))
    }

    /// Whether the process's environment sets one of [`LOADER_VARIABLES`]; `None` when it
    /// cannot be read.
    fn environ_has_loader_variable(&self) -> Option<bool> {
        let fd = self.open_entry(c"environ")?;
        let mut buf = [0u8; 4096];
        // The start of the entry being read, across reads.
        let mut head = [0u8; LOADER_PREFIX];
        let mut head_len = 0;
        let loader = |head: &[u8]| LOADER_VARIABLES.iter().any(|p| head.starts_with(p));
        loop {
            let n = read_some(&fd, &mut buf)?;
            if n == 0 {
                return Some(head_len > 0 && loader(&head[..head_len]));
            }
            let mut rest = &buf[..n];
            loop {
                let end = rest.iter().position(|b| *b == 0);
                let part = &rest[..end.unwrap_or(rest.len())];
                let take = part.len().min(LOADER_PREFIX - head_len);
                head[head_len..head_len + take].copy_from_slice(&part[..take]);
                head_len += take;
                let Some(end) = end else { break };
                if loader(&head[..head_len]) {
                    return Some(true);
                }
                head_len = 0;
                rest = &rest[end + 1..];
            }
        }
    }
}

fn read_some(fd: &std::os::fd::OwnedFd, buf: &mut [u8]) -> Option<usize> {
    use std::os::fd::AsRawFd;
    loop {
        // SAFETY: read into a buffer owned by the caller, within its length.
        let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Some(n as usize);
        }
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return None;
        }
    }
}

/// Asks the kernel to attach the writer's credentials to everything this socket receives.
pub fn pass_credentials(stream: &UnixStream) -> std::io::Result<()> {
    let on: libc::c_int = 1;
    // SAFETY: SO_PASSCRED takes an int; `on` lives for the call.
    let r = unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PASSCRED,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Reads a socket with [`pass_credentials`] on, holding every byte to one writer: the
/// first message's sender, which the caller verifies ([`CredReader::sender`]).
pub struct CredReader<'a> {
    stream: &'a UnixStream,
    sender: Option<u32>,
}

impl<'a> CredReader<'a> {
    pub fn new(stream: &'a UnixStream) -> Self {
        CredReader {
            stream,
            sender: None,
        }
    }

    /// The pid that wrote what was read so far.
    pub fn sender(&self) -> Option<u32> {
        self.sender
    }
}

impl Read for CredReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let (n, pid) = recv_with_pid(self.stream.as_raw_fd(), buf)?;
        if n == 0 {
            return Ok(0);
        }
        let Some(pid) = pid else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                Distrust::Unknown.code(),
            ));
        };
        match self.sender {
            None => self.sender = Some(pid),
            Some(first) if first != pid => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    Distrust::SecondWriter.code(),
                ));
            }
            Some(_) => {}
        }
        Ok(n)
    }
}

fn recv_with_pid(fd: RawFd, buf: &mut [u8]) -> std::io::Result<(usize, Option<u32>)> {
    // u64s: the control buffer must be aligned for `cmsghdr`.
    let mut control = [0u64; 16];
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: a zeroed msghdr is valid; every pointer set below outlives the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&control) as _;
    let n = loop {
        // SAFETY: `msg` describes buffers owned by this frame.
        let n = unsafe { libc::recvmsg(fd, &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n >= 0 {
            break n as usize;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    };
    let mut pid = None;
    // SAFETY: the CMSG_* macros walk the control buffer the kernel filled, within
    // `msg_controllen`.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_CREDENTIALS {
                let cred: libc::ucred = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast());
                if cred.pid > 0 {
                    pid = Some(cred.pid as u32);
                }
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    Ok((n, pid))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn the_kernel_names_the_writer_of_every_message() {
        let (a, mut b) = UnixStream::pair().unwrap();
        pass_credentials(&a).unwrap();
        b.write_all(b"hello").unwrap();
        let mut r = CredReader::new(&a);
        let mut buf = [0u8; 5];
        r.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"hello");
        assert_eq!(r.sender(), Some(std::process::id()));
        assert_eq!(credentials(&b).map(|c| c.1), Some(own_uid()));
    }

    #[test]
    fn another_program_is_not_trusted() {
        let me = file_id(Path::new("/proc/self/exe")).unwrap();
        assert!(verify(std::process::id(), (me.0, me.1.wrapping_add(1))).is_err());
        assert!(verify(u32::MAX - 1, me).is_err(), "no such process");
        assert_eq!(verify(std::process::id(), me), own_verdict());
    }

    /// What [`verify`] must say of this test process, read the plain way.
    fn own_verdict() -> Result<(), Distrust> {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let field = |n: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(n))
                .unwrap()
                .trim()
                .to_string()
        };
        if field("TracerPid:") != "0" {
            return Err(Distrust::Traced);
        }
        let environ = std::fs::read("/proc/self/environ").unwrap();
        if environ
            .split(|b| *b == 0)
            .any(|kv| LOADER_VARIABLES.iter().any(|p| kv.starts_with(p)))
        {
            return Err(Distrust::Preloaded);
        }
        Ok(())
    }

    #[test]
    fn a_loader_variable_is_found_wherever_the_reads_split_it() {
        use std::process::{Command, Stdio};
        // A long variable first, so that the loader variable straddles a 4 KiB read.
        for pad in [4096 - 20, 4096 - 5, 4096 - 1, 4096, 10] {
            for (var, value, expected) in [
                ("LD_AUDIT", "x", Err(Distrust::Preloaded)),
                ("LD_LIBRARY_PATH", "/nonexistent", Err(Distrust::Preloaded)),
                ("NOT_LD_PRELOAD", "x", Ok(())),
            ] {
                let mut child = Command::new("sleep")
                    .arg("30")
                    .env_clear()
                    .env("PAD", "p".repeat(pad))
                    .env(var, value)
                    .stdin(Stdio::null())
                    .spawn()
                    .unwrap();
                let sleep = file_id(Path::new(&format!("/proc/{}/exe", child.id())));
                let verdict = verify(child.id(), sleep.unwrap());
                let _ = child.kill();
                let _ = child.wait();
                if own_verdict() == Err(Distrust::Traced) {
                    continue;
                }
                assert_eq!(verdict, expected, "{var} after {pad} bytes");
            }
        }
    }

    #[test]
    fn uids_are_read_as_numbers() {
        assert_eq!(parse_u32(b"1000"), Some(1000));
        assert_eq!(parse_u32(b"01000"), Some(1000));
        assert_eq!(parse_u32(b"4294967296"), None);
        assert_eq!(parse_u32(b""), None);
        assert_eq!(parse_u32(b"10x"), None);
    }
}
