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
pub fn verify(pid: u32, exe: (u64, u64)) -> Result<(), Distrust> {
    let proc = Path::new("/proc").join(pid.to_string());
    let status = std::fs::read_to_string(proc.join("status")).map_err(|_| Distrust::Unknown)?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(str::trim)
            .map(str::to_string)
    };
    let uids = field("Uid:").ok_or(Distrust::Unknown)?;
    let own = own_uid().to_string();
    if !uids.split_whitespace().all(|u| u == own) {
        return Err(Distrust::OtherUser);
    }
    if field("TracerPid:").as_deref() != Some("0") {
        return Err(Distrust::Traced);
    }
    if file_id(&proc.join("exe")) != Some(exe) {
        return Err(Distrust::OtherProgram);
    }
    let environ = std::fs::read(proc.join("environ")).map_err(|_| Distrust::Unknown)?;
    if environ.split(|b| *b == 0).any(|kv| {
        [&b"LD_PRELOAD="[..], b"LD_LIBRARY_PATH=", b"LD_AUDIT="]
            .iter()
            .any(|p| kv.starts_with(p))
    }) {
        return Err(Distrust::Preloaded);
    }
    Ok(())
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
    }
}
