//! Who is at the other end of a Unix socket: the kernel's word (`SO_PEERCRED`), which the
//! process at that end cannot choose. The guard's broker serves only its command's own
//! processes by it, and a Codex binding trusts only a daemon that is the hook's own host.

use std::os::unix::net::UnixStream;

/// The pid of the process at the other end of `stream`, when the kernel names one.
pub fn peer_pid(stream: &UnixStream) -> Option<u32> {
    peer_credentials(stream).map(|(pid, _)| pid)
}

/// The pid and uid of the process at the other end of `stream`, when the kernel names one.
pub fn peer_credentials(stream: &UnixStream) -> Option<(u32, u32)> {
    use std::os::fd::AsRawFd;
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` and `len` are valid for the call and sized for SO_PEERCRED.
    let r = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    (r == 0 && cred.pid > 0).then_some((cred.pid as u32, cred.uid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_socket_pair_names_this_process_at_both_ends() {
        let (a, b) = UnixStream::pair().unwrap();
        assert_eq!(peer_pid(&a), Some(std::process::id()));
        assert_eq!(peer_pid(&b), Some(std::process::id()));
    }
}
