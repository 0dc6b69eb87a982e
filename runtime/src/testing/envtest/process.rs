//! The control plane's child processes, and the guarantee that none outlives the test
//! process.
//!
//! Three layers see to it: [`Process::stop`] (from `Environment::stop` and `Drop`), an
//! `atexit` hook for the shared environment (statics are never dropped), and, for a
//! process that dies without running either (killed, aborted), `PR_SET_PDEATHSIG` on
//! Linux. The kernel sends that signal when the *thread* that forked the child ends, not
//! the process, and test harnesses run each test on a thread of its own; so every child is
//! forked by one keeper thread that lives as long as the process.

use std::fs::File;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

use super::EnvtestError;

/// How long a process may take to exit on SIGTERM before it is killed.
const GRACE: Duration = Duration::from_secs(3);

/// A running child and the name errors call it by.
pub struct Process {
    pub name: &'static str,
    child: Child,
}

type SpawnRequest = (Command, mpsc::Sender<std::io::Result<Child>>);

/// The keeper thread's inbox. The thread runs until the process exits, since this
/// sender is never dropped.
static KEEPER: LazyLock<Mutex<mpsc::Sender<SpawnRequest>>> = LazyLock::new(|| {
    let (tx, rx) = mpsc::channel::<SpawnRequest>();
    std::thread::Builder::new()
        .name("envtest-keeper".into())
        .spawn(move || {
            for (mut command, reply) in rx {
                let _ = reply.send(command.spawn());
            }
        })
        .expect("spawning a thread");
    Mutex::new(tx)
});

impl Process {
    /// Starts `program` with `args`, its stdout and stderr to `log`.
    pub fn spawn(
        name: &'static str,
        program: &Path,
        args: &[String],
        log: &Path,
    ) -> Result<Process, EnvtestError> {
        let io = |what: String| move |e| EnvtestError::Io(what, e);
        let out = File::create(log).map_err(io(format!("creating {}", log.display())))?;
        let err = out
            .try_clone()
            .map_err(io(format!("opening {}", log.display())))?;
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        die_with_parent(&mut command);
        let (reply, answer) = mpsc::channel();
        crate::panics::lock(&KEEPER)
            .send((command, reply))
            .expect("the keeper thread lives as long as the process");
        let child = answer
            .recv()
            .expect("the keeper thread answers every request")
            .map_err(io(format!("starting {}", program.display())))?;
        Ok(Process { name, child })
    }

    /// Whether it has exited (and so cannot serve).
    pub fn exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// SIGTERM, then SIGKILL after [`GRACE`]; returns once the process is reaped.
    pub fn stop(mut self) {
        if self.exited() {
            return;
        }
        let pid = self.child.id() as libc::pid_t;
        // SAFETY: signalling our own child, which is not yet reaped, so the pid is ours.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        let deadline = Instant::now() + GRACE;
        while Instant::now() < deadline {
            if self.exited() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt as _;
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        command.pre_exec(move || {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            // The parent may have died between fork and prctl.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_: &mut Command) {}
