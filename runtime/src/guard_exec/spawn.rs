//! The confined command's process, created inside its namespaces.
//!
//! `clone(CLONE_VM | CLONE_VFORK | CLONE_NEWUSER | CLONE_NEWNS)`: the child starts in a new
//! user and mount namespace (no separate `unshare`), and shares the runner's memory until it
//! execs the command, while the runner waits: no page tables are copied and neither
//! process takes copy-on-write faults, which a `fork` of the runner cost on every confined
//! call. A child sharing the runner's memory must not touch its allocator, its locks or
//! its stack, so it runs on a stack of its own and makes system calls only: the mount
//! plan ([`Plan`]) and the command's `argv` and `envp` ([`Launch`]) are made before the
//! clone, and a failure is written into the runner's memory ([`Failure`]), for the runner
//! to report once the child has exited.
//!
//! The child still enters the second, locking user namespace itself (`unshare` allows that
//! to a process that shares its memory but not its thread group: kernel `check_unshare_flags`
//! asks for an empty thread group, not an unshared `mm`).

use super::namespace::{Plan, SetupError};
use std::collections::BTreeMap;
use std::ffi::{CString, OsStr, OsString, c_char, c_int, c_void};
use std::os::unix::ffi::{OsStrExt, OsStringExt};

/// The child's stack: the mount plan's system calls and glibc's `execvpe`, which builds
/// each candidate path in a buffer of `PATH`'s length on the stack.
const STACK_BYTES: usize = 64 * 1024;

/// One `execve`: its arguments and environment as the kernel takes them.
struct Exec {
    program: CString,
    /// Kept for the pointers below.
    _strings: Vec<CString>,
    argv: Vec<*const c_char>,
    envp: Vec<*const c_char>,
}

impl Exec {
    fn new(
        program: &OsStr,
        args: &[&OsStr],
        env: &BTreeMap<OsString, OsString>,
    ) -> Result<Exec, std::ffi::NulError> {
        let program = CString::new(program.as_bytes())?;
        let argv: Vec<CString> = args
            .iter()
            .map(|a| CString::new(a.as_bytes()))
            .collect::<Result<_, _>>()?;
        let envp: Vec<CString> = env
            .iter()
            .map(|(k, v)| {
                let mut kv = k.clone().into_vec();
                kv.push(b'=');
                kv.extend_from_slice(v.as_bytes());
                CString::new(kv)
            })
            .collect::<Result<_, _>>()?;
        let pointers = |v: &[CString]| {
            v.iter()
                .map(|c| c.as_ptr())
                .chain(std::iter::once(std::ptr::null()))
                .collect::<Vec<_>>()
        };
        let (argv_ptrs, envp_ptrs) = (pointers(&argv), pointers(&envp));
        Ok(Exec {
            program,
            _strings: argv.into_iter().chain(envp).collect(),
            argv: argv_ptrs,
            envp: envp_ptrs,
        })
    }
}

/// What the child execs: the program itself where `bash -c` would exec it ([`super::direct`]),
/// else (or when that exec fails) `bash -c COMMAND` found in `PATH`, each with the runner's
/// environment and `extra` set, as `std::process::Command` would pass them.
pub struct Launch {
    direct: Option<Exec>,
    shell: Exec,
}

impl Launch {
    pub fn new(
        command: &OsStr,
        direct: Option<&super::direct::Direct>,
        extra: &[(&str, &OsStr)],
    ) -> Result<Launch, std::ffi::NulError> {
        let mut env: BTreeMap<OsString, OsString> = std::env::vars_os().collect();
        for (k, v) in extra {
            env.insert(OsString::from(k), v.to_os_string());
        }
        let shell = Exec::new(
            OsStr::new("bash"),
            &[OsStr::new("bash"), OsStr::new("-c"), command],
            &env,
        )?;
        let direct = match direct {
            None => None,
            Some(d) => {
                env.insert("_".into(), d.program.clone().into_os_string());
                let args: Vec<&OsStr> = std::iter::once(d.arg0.as_os_str())
                    .chain(d.args.iter().map(OsString::as_os_str))
                    .collect();
                Some(Exec::new(d.program.as_os_str(), &args, &env)?)
            }
        };
        Ok(Launch { direct, shell })
    }
}

/// Why the child did not become the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The namespace or a mount could not be set up.
    Setup(SetupError),
    /// Neither the program nor `bash` could be exec'd (the errno of the last `execve`).
    Exec(c_int),
}

/// What the child reads and writes: the runner's memory, shared until the child execs.
struct Shared<'a> {
    plan: &'a Plan,
    launch: Option<&'a Launch>,
    failure: Option<Failure>,
}

/// Starts the confined command: returns its pid once it has exec'd, or its pid and why it
/// did not (it has then exited, and is still to be waited for), or the clone's own error
/// (nothing was started).
pub fn confined(
    plan: &Plan,
    launch: &Launch,
) -> Result<(libc::pid_t, Option<Failure>), std::io::Error> {
    start(plan, Some(launch))
}

/// Can this process set up `plan` here? A child created as the runner creates the
/// command's applies it and exits, so the caller's own namespaces are untouched. Safe in a
/// multi-threaded process (the hook's): the child makes system calls only.
pub fn probe(plan: &Plan) -> Result<(), SetupError> {
    let unshare = |errno| SetupError {
        step: super::namespace::Step::Unshare,
        errno,
    };
    let (pid, failure) = start(plan, None).map_err(|e| unshare(e.raw_os_error().unwrap_or(0)))?;
    let mut status: c_int = 0;
    loop {
        // SAFETY: waits for our own child; `status` outlives the call.
        if unsafe { libc::waitpid(pid, &mut status, 0) } == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(unshare(e.raw_os_error().unwrap_or(0)));
        }
    }
    match failure {
        Some(Failure::Setup(e)) => Err(e),
        Some(Failure::Exec(errno)) => Err(unshare(errno)),
        None if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 => Ok(()),
        None => Err(unshare(0)),
    }
}

/// Clones the child; with no `launch` it exits 0 once the plan is applied.
fn start(
    plan: &Plan,
    launch: Option<&Launch>,
) -> Result<(libc::pid_t, Option<Failure>), std::io::Error> {
    let mut stack = vec![0u8; STACK_BYTES];
    let mut shared = Shared {
        plan,
        launch,
        failure: None,
    };
    // The stack grows down: its top, 16-byte aligned as the ABI asks at a call.
    let top = (stack.as_mut_ptr() as usize + STACK_BYTES) & !15;
    let flags = libc::CLONE_VM
        | libc::CLONE_VFORK
        | libc::CLONE_NEWUSER
        | libc::CLONE_NEWNS
        | libc::SIGCHLD;
    // SAFETY: `child` runs on `stack`, which outlives it (CLONE_VFORK: this call returns
    // once the child has exec'd or exited), and touches only `shared`, through system
    // calls and plain writes, with no allocation or lock (see the module docs).
    let pid = unsafe {
        libc::clone(
            child,
            top as *mut c_void,
            flags,
            (&mut shared as *mut Shared).cast(),
        )
    };
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    drop(stack);
    Ok((pid, shared.failure))
}

extern "C" fn child(arg: *mut c_void) -> c_int {
    // SAFETY: `arg` is the `Shared` of `confined`, whose frame is suspended until this
    // process execs or exits.
    let shared = unsafe { &mut *arg.cast::<Shared>() };
    if let Err(e) = shared.plan.apply_entered() {
        shared.failure = Some(Failure::Setup(e));
        // SAFETY: ends this process only, without the runner's exit handlers.
        unsafe { libc::_exit(super::SETUP_FAILED) };
    }
    let Some(launch) = shared.launch else {
        // SAFETY: as above.
        unsafe { libc::_exit(0) };
    };
    // SAFETY: each pointer array is NUL-terminated and points into strings `launch` owns;
    // `execve` and `execvpe` return only on failure. SIGPIPE is given back its default,
    // which the runner ignores, as `Command` does for what it starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        if let Some(d) = &launch.direct {
            // On failure bash runs it, and says why.
            libc::execve(d.program.as_ptr(), d.argv.as_ptr(), d.envp.as_ptr());
        }
        let s = &launch.shell;
        libc::execvpe(s.program.as_ptr(), s.argv.as_ptr(), s.envp.as_ptr());
        shared.failure = Some(Failure::Exec(
            std::io::Error::last_os_error().raw_os_error().unwrap_or(0),
        ));
        libc::_exit(127)
    }
}
