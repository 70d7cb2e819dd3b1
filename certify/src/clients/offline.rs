//! The recording's own network namespace: a user and network namespace holding only a
//! loopback interface, so nothing a recorded client (or a process it starts) tries can
//! leave the machine, whatever it does with proxy settings or raw sockets.
//!
//! `acc-certify record` installs the clients from their registries first (that needs the
//! network), then runs itself again inside such a namespace ([`enter_on_spawn`]): the model
//! doubles, the sandboxes, tmux servers, acc's daemons and the clients all live there and
//! reach each other on 127.0.0.1, and an address elsewhere is unreachable by construction.
//! The network watch ([`super::network`]) still names every attempt; inside the namespace
//! each is recorded as refused.
//!
//! The setup follows the kernel guard's (`runtime/src/guard_exec/namespace.rs`): the child
//! keeps its own user and group ids (mapped onto themselves), and everything is allocated
//! before the fork so the child only makes system calls.

use std::ffi::CString;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::OnceLock;

/// Set by the recorder on the copy of itself it runs inside the namespace.
pub const NAMESPACE_VAR: &str = "ACC_CERTIFY_OFFLINE_NAMESPACE";

/// Why a process could not be started in a namespace of its own, with the fix.
pub fn setup_advice(err: &std::io::Error) -> String {
    format!(
        "could not start the recording in a network namespace of its own ({err}); it needs unprivileged user namespaces: enable them (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0) and run again"
    )
}

/// The ids the child keeps, allocated before the fork.
struct IdMaps {
    uid_map: CString,
    gid_map: CString,
}

impl IdMaps {
    fn current() -> IdMaps {
        // SAFETY: getuid and getgid cannot fail and have no preconditions.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        IdMaps {
            uid_map: CString::new(format!("{uid} {uid} 1\n")).expect("digits only"),
            gid_map: CString::new(format!("{gid} {gid} 1\n")).expect("digits only"),
        }
    }

    /// Enters the namespaces and brings loopback up. Makes no allocation.
    fn apply(&self) -> std::io::Result<()> {
        // SAFETY: unshare takes flags only.
        if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // Without `deny`, an unprivileged process may not write its gid_map.
        write_file(c"/proc/self/setgroups", c"deny")?;
        write_file(c"/proc/self/uid_map", &self.uid_map)?;
        write_file(c"/proc/self/gid_map", &self.gid_map)?;
        loopback_up()
    }
}

fn write_file(path: &std::ffi::CStr, text: &std::ffi::CStr) -> std::io::Result<()> {
    // SAFETY: both pointers are NUL-terminated strings that outlive the calls; the buffer
    // length is the string's own.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let bytes = text.to_bytes();
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let err = std::io::Error::last_os_error();
        libc::close(fd);
        if written < 0 || written as usize != bytes.len() {
            return Err(err);
        }
    }
    Ok(())
}

/// A new network namespace's `lo` is down; `SIOCSIFFLAGS` needs no iproute2.
fn loopback_up() -> std::io::Result<()> {
    // SAFETY: a socket used only for two ioctls on a zeroed ifreq of the right type,
    // then closed.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut request: libc::ifreq = std::mem::zeroed();
        request.ifr_name[0] = b'l' as libc::c_char;
        request.ifr_name[1] = b'o' as libc::c_char;
        let mut rc = libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut request);
        if rc == 0 {
            request.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
            rc = libc::ioctl(fd, libc::SIOCSIFFLAGS, &request);
        }
        let err = std::io::Error::last_os_error();
        libc::close(fd);
        if rc != 0 {
            return Err(err);
        }
    }
    Ok(())
}

/// Makes `command` start in a user and network namespace of its own with only loopback
/// (up), keeping the caller's user and group ids, and marks it with [`NAMESPACE_VAR`].
pub fn enter_on_spawn(command: &mut Command) -> &mut Command {
    let maps = IdMaps::current();
    command.env(NAMESPACE_VAR, "1");
    // SAFETY: the closure runs in the forked child and only makes system calls on memory
    // allocated before the fork.
    unsafe { command.pre_exec(move || maps.apply()) }
}

/// Interface names in a `/proc/net/dev` listing.
fn interfaces(dev: &str) -> Vec<&str> {
    dev.lines()
        .skip(2)
        .filter_map(|line| line.split_once(':').map(|(name, _)| name.trim()))
        .collect()
}

/// True when this process's network namespace holds loopback and nothing else: nothing
/// it or its children try can leave the machine.
pub fn loopback_only() -> bool {
    static ANSWER: OnceLock<bool> = OnceLock::new();
    *ANSWER.get_or_init(|| {
        std::fs::read_to_string("/proc/self/net/dev")
            .is_ok_and(|dev| interfaces(&dev).iter().all(|name| *name == "lo"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn proc_net_dev_names_its_interfaces() {
        let dev = "Inter-|   Receive\n face |bytes\n    lo: 1 2 3\n  eth0: 4 5 6\n";
        assert_eq!(interfaces(dev), ["lo", "eth0"]);
    }

    /// A shell started in the namespace sees only `lo`, up; it reaches a listener it opens
    /// on 127.0.0.1 and cannot reach a routable address, and it keeps the caller's uid.
    #[test]
    fn a_process_started_in_the_namespace_has_only_loopback_and_keeps_its_ids() {
        let script = r#"
cat /proc/self/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' ' | tr '\n' ,
echo
id -u
python3 - <<'EOF' 2>/dev/null || echo no-python
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.create_connection(s.getsockname(), timeout=5); print("loopback ok")
try:
    socket.create_connection(("203.0.113.7", 443), timeout=5); print("left the machine")
except OSError as e:
    print("refused", e.errno)
EOF
"#;
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        enter_on_spawn(&mut command);
        let output = command.output().expect("sh runs");
        assert!(output.status.success(), "{output:?}");
        let text = String::from_utf8_lossy(&output.stdout);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "lo,", "{text}");
        // SAFETY: getuid cannot fail.
        let uid = unsafe { libc::getuid() };
        assert!(lines.contains(&uid.to_string().as_str()), "{text}");
        if !text.contains("no-python") {
            assert!(text.contains("loopback ok"), "{text}");
            assert!(
                text.contains(&format!("refused {}", libc::ENETUNREACH)),
                "{text}"
            );
        }
    }

    /// The caller's own namespace is untouched: a listener here is still reachable here.
    #[test]
    fn the_caller_keeps_its_network() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let mut command = Command::new("true");
        enter_on_spawn(&mut command);
        assert!(command.status().unwrap().success());
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.write_all(b"x").unwrap();
        let (mut accepted, _) = listener.accept().unwrap();
        let mut byte = [0u8; 1];
        accepted.read_exact(&mut byte).unwrap();
        assert_eq!(&byte, b"x");
    }
}
