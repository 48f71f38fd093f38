//! Full-size generation in the background, one at a time.
//!
//! A job is a child process of the `islagen` binary (`islagen --seed S --size N --config C
//! --out TMP --progress-json`) writing into a hidden temporary folder inside DIR; its stage
//! stream (one JSON line per stage start and finish) feeds the progress. On success the folder
//! is renamed into place as `gen-<seed>-<size>` (or `…-2`, `…-3` when taken), with the
//! ServerConfig.json that reproduces it; on failure or cancel it is removed.
//!
//! A job's folder is named so that no earlier server's can collide with it
//! (`.islagen-job-<n>-<pid>-<nanoseconds>`), and the server holds a lock on `<folder>.lock`
//! while the job runs; at start every job folder whose lock no live server holds is removed
//! (the kernel drops a killed server's locks), as is one from a lock-less older server whose
//! PID is gone or is this server's own (a container's PID 1, restarted).
//!
//! Guarantees: at most one job runs (a second is refused with 409 and what runs); the config is
//! validated exactly as the preview's before anything starts; cancelling kills the child and
//! returns only once its folder is gone, so nothing partial is ever left or listed (hidden
//! folders are not listed while a job runs).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use islagen::progress::ProgressEvent;
use serde::Deserialize;
use serde_json::{json, Value};

use super::dials::validate;
use super::error::ApiError;
use super::paths::id_of;

/// Bytes of the child's stderr kept for the error message.
const STDERR_TAIL: usize = 4096;
/// Longest a cancel waits for the child to go.
const CANCEL_WAIT: Duration = Duration::from_secs(30);

/// `/api/generate`'s body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerateRequest {
    /// World seed (0 = a random one).
    pub seed: i32,
    /// MapSize.
    pub size: u32,
    /// ServerConfig.json keys.
    #[serde(default)]
    pub config: Value,
    /// What the designer painted: written into the world's folder beside its config.
    #[serde(default)]
    pub shape: Option<super::painted::Painted>,
}

/// What the job is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Idle,
    Running,
    Done,
    Failed,
    Cancelled,
}

impl State {
    fn name(self) -> &'static str {
        match self {
            State::Idle => "idle",
            State::Running => "running",
            State::Done => "done",
            State::Failed => "failed",
            State::Cancelled => "cancelled",
        }
    }
}

#[derive(Debug)]
struct Job {
    n: u64,
    seed: i32,
    size: u32,
    state: State,
    stage: String,
    stages: Vec<(String, f64)>,
    world: Option<String>,
    error: Option<String>,
    cancel: bool,
    child: Option<Child>,
    /// The stages the running generation reports (`pipeline::stage_names`), set when it starts.
    expected: usize,
}

impl Default for Job {
    fn default() -> Job {
        Job {
            n: 0,
            seed: 0,
            size: 0,
            state: State::Idle,
            stage: String::new(),
            stages: Vec::new(),
            world: None,
            error: None,
            cancel: false,
            child: None,
            expected: 0,
        }
    }
}

impl Job {
    fn fraction(&self) -> f64 {
        match self.state {
            State::Done => 1.0,
            State::Running => (self.stages.len() as f64 / self.expected.max(1) as f64).min(0.99),
            _ => 0.0,
        }
    }
}

/// The server's one job slot.
#[derive(Debug, Default)]
pub struct Jobs {
    job: Arc<(Mutex<Job>, Condvar)>,
}

impl Jobs {
    /// `/api/job`.
    pub fn status(&self) -> Value {
        let j = self.lock();
        json!({
            "state": j.state.name(),
            "job": (j.n > 0).then_some(j.n),
            "seed": (j.n > 0).then_some(j.seed),
            "size": (j.n > 0).then_some(j.size),
            "stage": j.stage,
            "fraction": j.fraction(),
            "stages": j.stages.iter().map(|(n, s)| json!({"name": n, "seconds": s})).collect::<Vec<_>>(),
            "world": j.world,
            "error": j.error,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Job> {
        self.job.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Validates and starts a job; its number.
    pub fn start(&self, root: &Path, exe: &Path, req: &GenerateRequest) -> Result<u64, ApiError> {
        let config = if req.config.is_null() {
            json!({})
        } else {
            req.config.clone()
        };
        let mut j = self.lock();
        if j.state == State::Running {
            return Err(ApiError::conflict(format!(
                "a generation is already running: seed {} at {} ({:.0} %)",
                j.seed,
                j.size,
                j.fraction() * 100.0
            )));
        }
        let checked = validate(&config, req.size, req.seed).map_err(ApiError::refused)?;
        let checked = match &req.shape {
            Some(painted) => painted.apply(checked).map_err(ApiError::refused)?,
            None => checked,
        };
        let seed = islagen::seed::resolve(checked.world_seed);
        let n = j.n + 1;
        let io = |e: std::io::Error| ApiError::internal(format!("starting the job: {e}"));
        let (tmp, held) = create_job_dir(root, n).map_err(io)?;
        let mut file_config = config.as_object().cloned().unwrap_or_default();
        file_config.insert("MapSize".into(), json!(req.size));
        file_config.insert("WorldSeed".into(), json!(seed));
        let config_path = tmp.join("ServerConfig.json");
        let painted = match &req.shape {
            Some(p) => p.write_into(&tmp, &mut file_config),
            None => Ok(()),
        };
        let written = painted.and_then(|()| {
            islagen::output::write_bytes_atomically(
                &config_path,
                serde_json::to_string_pretty(&file_config)
                    .unwrap_or_default()
                    .as_bytes(),
            )
        });
        if let Err(e) = written {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(io(e));
        }
        let mut command = Command::new(exe);
        command
            .arg("--seed")
            .arg(seed.to_string())
            .arg("--size")
            .arg(req.size.to_string())
            .arg("--config")
            .arg(&config_path)
            .arg("--out")
            .arg(&tmp)
            .arg("--progress-json")
            .arg("--quiet")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        die_with_parent(&mut command);
        *j = Job {
            n,
            seed,
            size: req.size,
            state: State::Running,
            stage: "starting".into(),
            expected: islagen::pipeline::stage_names(&checked).len(),
            ..Job::default()
        };
        drop(j);
        // The child is started by the job's own thread, which lives until the child is gone:
        // on Linux the child is killed when that thread ends (`die_with_parent`), so a server
        // killed outright leaves no generation running on alone.
        let shared = self.job.clone();
        let (root, final_name) = (root.to_path_buf(), format!("gen-{seed}-{}", req.size));
        let (spawned_tx, spawned) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name(format!("job-{n}"))
            .spawn(move || run_job(shared, command, spawned_tx, (tmp, held), root, final_name));
        let started = match thread {
            Ok(_) => spawned
                .recv()
                .unwrap_or_else(|_| Err(std::io::Error::other("the job thread ended"))),
            Err(e) => Err(e),
        };
        if let Err(e) = started {
            let mut j = self.lock();
            j.state = State::Failed;
            j.error = Some(format!("starting the job: {e}"));
            return Err(io(e));
        }
        Ok(n)
    }

    /// Cancels the running job: kills it and waits until its files are gone.
    pub fn cancel(&self) -> Result<Value, ApiError> {
        let mut j = self.lock();
        if j.state != State::Running {
            return Err(ApiError::conflict("no generation is running"));
        }
        j.cancel = true;
        if let Some(c) = j.child.as_mut() {
            let _ = c.kill();
        }
        let deadline = Instant::now() + CANCEL_WAIT;
        while j.state == State::Running && Instant::now() < deadline {
            j = self
                .job
                .1
                .wait_timeout(j, Duration::from_millis(100))
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
        Ok(json!({ "state": j.state.name() }))
    }
}

/// The job's thread: starts the child (saying whether it started through `spawned`), hands it
/// to the job (killing it at once if a cancel came first), then follows it to its end.
fn run_job(
    shared: Arc<(Mutex<Job>, Condvar)>,
    mut command: Command,
    spawned: std::sync::mpsc::Sender<std::io::Result<()>>,
    (tmp, held): (PathBuf, JobLock),
    root: PathBuf,
    final_name: String,
) {
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            let _ = spawned.send(Err(e));
            return;
        }
    };
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    {
        let mut j = shared.0.lock().unwrap_or_else(|p| p.into_inner());
        if j.cancel {
            let _ = child.kill();
        }
        j.child = Some(child);
    }
    let _ = spawned.send(Ok(()));
    watch(shared, stdout, stderr, (tmp, held), root, final_name);
}

/// Asks Linux to kill the child when the thread that started it ends.
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: runs in the forked child before exec; prctl is async-signal-safe and touches no
    // memory shared with the parent.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_: &mut Command) {}

/// Follows a job to its end: reads its stage stream, then waits for it and moves or removes
/// its folder.
fn watch(
    shared: Arc<(Mutex<Job>, Condvar)>,
    stdout: Option<std::process::ChildStdout>,
    stderr: Option<std::process::ChildStderr>,
    (tmp, held): (PathBuf, JobLock),
    root: PathBuf,
    final_name: String,
) {
    let lock = || shared.0.lock().unwrap_or_else(|p| p.into_inner());
    let err_thread = stderr.map(|e| {
        std::thread::spawn(move || {
            let mut tail = Vec::new();
            let mut buf = [0u8; 4096];
            let mut e = e;
            while let Ok(n) = e.read(&mut buf) {
                if n == 0 {
                    break;
                }
                tail.extend_from_slice(&buf[..n]);
                let cut = tail.len().saturating_sub(STDERR_TAIL);
                tail.drain(..cut);
            }
            String::from_utf8_lossy(&tail).into_owned()
        })
    });
    if let Some(out) = stdout {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            // The generation's own event type: anything else on its stdout is not progress.
            let Ok(event) = serde_json::from_str::<ProgressEvent>(&line) else {
                continue;
            };
            let mut j = lock();
            match event {
                ProgressEvent::Start { stage, .. } => j.stage = stage,
                ProgressEvent::Finish { stage, seconds } => j.stages.push((stage, seconds)),
                _ => {}
            }
        }
    }
    let status = loop {
        let mut j = lock();
        let Some(child) = j.child.as_mut() else {
            break None;
        };
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) => {}
            Err(_) => break None,
        }
        drop(j);
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = err_thread.and_then(|t| t.join().ok()).unwrap_or_default();
    let cancelled = lock().cancel;
    let placing = !cancelled && status.is_some_and(|s| s.success());
    let outcome = match status {
        _ if cancelled => Err(State::Cancelled),
        Some(s) if s.success() => place_or_keep(&tmp, &root, &final_name).map_err(|e| {
            lock().error = Some(e.to_string());
            State::Failed
        }),
        other => {
            let why = stderr.trim();
            lock().error = Some(if why.is_empty() {
                format!("the generation exited with {other:?}")
            } else {
                why.to_string()
            });
            Err(State::Failed)
        }
    };
    // A finished world that could not be placed stays where it is, noted or not (the error
    // says where); anything else the job left is removed.
    if !(placing && outcome.is_err()) {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    // The folder is placed, kept or gone: its lock (and lock file) go before anyone hears the
    // job ended, so nothing of it is left when a cancel returns.
    drop(held);
    let mut j = lock();
    j.child = None;
    match outcome {
        Ok(dat) => {
            j.world = id_of(&root, &dat);
            j.stage = "done".into();
            j.state = State::Done;
        }
        Err(state) => j.state = state,
    }
    shared.1.notify_all();
}

/// The lock a live server holds on each of its job folders, `<folder>.lock` beside it (flock,
/// released by the kernel when the server dies however it dies); dropping it removes the file.
#[derive(Debug)]
struct JobLock {
    file: std::fs::File,
    path: PathBuf,
}

impl Drop for JobLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Creates job `n`'s folder in `root` under a name no earlier server's folder can hold
/// (`.islagen-job-<n>-<pid>-<nanoseconds, hex>`, the next free one when taken), its lock taken
/// first, so a folder without a held lock is never a live job's.
fn create_job_dir(root: &Path, n: u64) -> std::io::Result<(PathBuf, JobLock)> {
    use std::io::ErrorKind::AlreadyExists;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    for k in 0..1000u128 {
        let name = format!(".islagen-job-{n}-{}-{:x}", std::process::id(), stamp + k);
        let path = root.join(format!("{name}.lock"));
        let file = match std::fs::File::create_new(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        let lock = JobLock { file, path };
        if !try_flock(&lock.file) {
            return Err(std::io::Error::other(
                "could not lock a new job folder's lock file",
            ));
        }
        match std::fs::create_dir(root.join(&name)) {
            Ok(()) => return Ok((root.join(name), lock)),
            Err(e) if e.kind() == AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free job folder name"))
}

/// Takes an exclusive `flock` on `file` without waiting; whether it was taken. (The lock is
/// the open file's: the kernel drops it when the file is closed or its process dies.)
#[cfg(unix)]
fn try_flock(file: &std::fs::File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: flock only reads the descriptor, which `file` keeps open for the call.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

#[cfg(not(unix))]
fn try_flock(_: &std::fs::File) -> bool {
    true
}

/// Whether job folder `dir` belongs to no live server: its lock (`<dir>.lock`) can be taken, or
/// it has none and was made by a server that locked nothing (`.islagen-job-<n>-<pid>`) whose
/// process is gone — or has this server's own PID, which before this server's first job can
/// only be an earlier server's (a container's PID 1 restarted).
fn stale(dir: &Path, name: &str) -> bool {
    let lock = dir.with_file_name(format!("{name}.lock"));
    if let Ok(file) = std::fs::OpenOptions::new().write(true).open(&lock) {
        return try_flock(&file);
    }
    let pid = name
        .strip_prefix(".islagen-job-")
        .and_then(|rest| rest.rsplit('-').next())
        .and_then(|pid| pid.parse::<u32>().ok());
    match pid {
        Some(pid) if pid == std::process::id() => true,
        Some(pid) => {
            Path::new("/proc/self").exists() && !Path::new(&format!("/proc/{pid}")).exists()
        }
        None => true,
    }
}

/// Removes, at start, the folders (and lock files) of jobs no live server holds: a server
/// stopped by a signal cannot clean up. A folder holding a finished world that could not be
/// placed (marked `NOT-PLACED.txt`) stays.
pub fn remove_stale(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = e.path();
        if !name.starts_with(".islagen-job-") {
            continue;
        }
        if let Some(dir_name) = name.strip_suffix(".lock") {
            // A lock whose folder is gone: removed once no one holds it.
            if !root.join(dir_name).exists() && stale(&root.join(dir_name), dir_name) {
                let _ = std::fs::remove_file(&path);
            }
            continue;
        }
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && !path.join(KEPT).exists() && stale(&path, &name) {
            let _ = std::fs::remove_dir_all(&path);
            let _ = std::fs::remove_file(root.join(format!("{name}.lock")));
        }
    }
}

/// The note a finished world that could not be placed keeps in its folder (no later start
/// removes a folder holding it).
const KEPT: &str = "NOT-PLACED.txt";

/// Why a finished world could not be moved into place as `name`.
#[derive(Debug, thiserror::Error)]
#[error("moving the new world into place as {name}: {source}")]
pub struct Unplaced {
    /// The name it was to take.
    pub name: String,
    /// Why it could not.
    pub source: std::io::Error,
}

/// A finished world that could not be placed; it is kept in `dir`.
#[derive(Debug, thiserror::Error)]
pub enum PlaceError {
    /// Kept, with a note in its folder saying why.
    #[error("{why}; the world is kept in {}", dir.display())]
    Kept {
        /// Why it was not placed.
        why: Unplaced,
        /// Where it is.
        dir: PathBuf,
    },
    /// Kept, but the note could not be written: the next start's clean-up removes it.
    #[error("{why}; it could not be marked as kept ({note}): it is in {} until the server next starts", dir.display())]
    Unmarked {
        /// Why it was not placed.
        why: Unplaced,
        /// Why the note could not be written.
        note: std::io::Error,
        /// Where it is.
        dir: PathBuf,
    },
}

/// Places the finished folder ([`place`]); when that fails the world is kept where it is, with
/// a note saying why, and the error names the folder.
fn place_or_keep(tmp: &Path, root: &Path, name: &str) -> Result<PathBuf, PlaceError> {
    place(tmp, root, name).map_err(|source| {
        let (why, dir) = (
            Unplaced {
                name: name.to_string(),
                source,
            },
            tmp.to_path_buf(),
        );
        let note = format!("{why}\nMove this folder to a visible name to see the world.\n");
        match std::fs::write(tmp.join(KEPT), note) {
            Ok(()) => PlaceError::Kept { why, dir },
            Err(note) => PlaceError::Unmarked { why, note, dir },
        }
    })
}

/// Renames the finished folder into place; the blueprint's path.
fn place(tmp: &Path, root: &Path, name: &str) -> std::io::Result<PathBuf> {
    let dat = std::fs::read_dir(tmp)?
        .flatten()
        .map(|e| e.file_name())
        .find(|n| {
            let n = n.to_string_lossy();
            n.starts_with("MapData_Seed_") && n.ends_with(".dat") && !n.ends_with("_v1.dat")
        })
        .ok_or_else(|| std::io::Error::other("the generation wrote no blueprint"))?;
    for k in 1..1000 {
        let target = match k {
            1 => root.join(name),
            k => root.join(format!("{name}-{k}")),
        };
        // symlink_metadata: a dangling link is taken too (exists() follows it and says no).
        if target.symlink_metadata().is_ok() {
            continue;
        }
        std::fs::rename(tmp, &target)?;
        return Ok(target.join(dat));
    }
    Err(std::io::Error::other("no free folder name"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A finished world that cannot be moved into place is kept, marked, named in the error,
    /// and survives the next start's clean-up of stale job folders.
    #[test]
    fn a_world_that_cannot_be_placed_is_kept_and_its_folder_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // A job folder of a server that is gone (no such pid), holding a finished world.
        let tmp = root.join(".islagen-job-1-4000000000");
        std::fs::create_dir(&tmp).unwrap();
        std::fs::write(tmp.join("MapData_Seed_1.dat"), b"world").unwrap();
        // Every name the world could take is taken.
        std::fs::create_dir(root.join("gen-1-256")).unwrap();
        for k in 2..1000 {
            std::fs::create_dir(root.join(format!("gen-1-256-{k}"))).unwrap();
        }
        let e = place_or_keep(&tmp, root, "gen-1-256").unwrap_err();
        assert!(
            matches!(&e, PlaceError::Kept { dir, .. } if *dir == tmp),
            "{e}"
        );
        let e = e.to_string();
        assert!(
            e.contains("no free folder name") && e.contains(&tmp.display().to_string()),
            "{e}"
        );
        remove_stale(root);
        assert_eq!(
            std::fs::read(tmp.join("MapData_Seed_1.dat")).unwrap(),
            b"world"
        );
        // An ordinary stale folder is still removed.
        let stale = root.join(".islagen-job-2-4000000000");
        std::fs::create_dir(&stale).unwrap();
        remove_stale(root);
        assert!(!stale.exists());
        // And with a free name the world goes into place.
        std::fs::remove_dir(root.join("gen-1-256-7")).unwrap();
        std::fs::remove_file(tmp.join(KEPT)).unwrap();
        let dat = place_or_keep(&tmp, root, "gen-1-256").unwrap();
        assert_eq!(dat, root.join("gen-1-256-7/MapData_Seed_1.dat"));
        assert!(!root.join("gen-1-256-7").join(KEPT).exists());
    }

    /// A restart always recovers: a job folder left by a server with this very PID
    /// (PID 1 in a container, killed and started again) is stale, and so is one whose lock no
    /// one holds (its server was killed); one whose lock a live server holds is kept; two jobs
    /// numbered alike never collide; and a job's lock file goes when it ends.
    #[test]
    fn job_folders_are_held_by_their_lock_and_a_same_pid_leftover_is_cleaned() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // An older server's folder with this process's PID: the simulated collision.
        let same_pid = root.join(format!(".islagen-job-1-{}", std::process::id()));
        std::fs::create_dir(&same_pid).unwrap();
        std::fs::write(same_pid.join("MapData_Seed_1.dat.tmp"), b"partial").unwrap();
        // A killed server's job: its folder and its lock file, which no one locks any more.
        let killed = root.join(".islagen-job-1-7-abc");
        std::fs::create_dir(&killed).unwrap();
        std::fs::write(root.join(".islagen-job-1-7-abc.lock"), b"").unwrap();
        // Two live jobs numbered alike.
        let (live, held) = create_job_dir(root, 1).unwrap();
        let (other, other_held) = create_job_dir(root, 1).unwrap();
        assert_ne!(live, other, "two jobs numbered 1 got one folder");
        remove_stale(root);
        assert!(!same_pid.exists(), "the same-PID leftover is cleaned");
        assert!(!killed.exists(), "the killed server's folder is cleaned");
        assert!(!root.join(".islagen-job-1-7-abc.lock").exists());
        assert!(
            live.exists() && other.exists(),
            "held jobs' folders are kept"
        );
        let lock_path = held.path.clone();
        drop((held, other_held));
        assert!(!lock_path.exists(), "the lock file goes with the job");
    }
}
