//! Atomic output files: every file islagen writes goes to a temporary name in the destination
//! folder, is flushed and synced, and only then renamed over the final name. An interrupted or
//! failed write never leaves a truncated file under the final name; on failure the temporary
//! file is removed. A process killed outright (SIGKILL, power loss) can leave its temporary
//! files behind: they are named `.NAME.islagen-PID-N.tmp`, recognisably ours, and
//! [`remove_stale_temps`] — run by every generation and sweep before it writes into a folder —
//! removes those whose process is gone, touching nothing else.

mod direct;

pub use direct::DirectWriter;

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Buffer size for streamed output.
const BUFFER: usize = 8 << 20;

/// Writes a file atomically through `fill`, returning what `fill` returns. The temporary file is
/// `.NAME.islagen-PID-N.tmp` beside `path`, created exclusively (never following a planted link, never
/// shared by two writers) and removed if `fill` fails or panics.
pub fn write_atomically<T, E>(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<&mut File>) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<std::io::Error>,
{
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let (mut file, guard) = create_temp(dir, path)?;
    let value = {
        let mut w = BufWriter::with_capacity(BUFFER, &mut file);
        let value = fill(&mut w)?;
        w.flush()?;
        value
    };
    commit(file, guard, dir, path)?;
    Ok(value)
}

/// Syncs the temporary file, renames it over `path` and syncs the folder.
fn commit(file: File, guard: TempGuard, dir: &Path, path: &Path) -> std::io::Result<()> {
    file.sync_all()?;
    drop(file);
    std::fs::rename(&guard.0, path)?;
    std::mem::forget(guard);
    sync_dir(dir);
    Ok(())
}

/// A file written atomically in more than one go, by [`write_atomically`]'s rules: the
/// temporary name until [`AtomicFile::commit`], removed if it is dropped first. Between the goes
/// [`AtomicFile::sync_data`] puts what is written so far on the disk, so the commit has little
/// left to wait for. Its writer writes past the page cache where it can ([`DirectWriter`]): it is
/// for the largest files.
pub struct AtomicFile {
    writer: DirectWriter,
    guard: TempGuard,
    dir: PathBuf,
    path: PathBuf,
}

impl AtomicFile {
    /// Creates the temporary file for `path`.
    pub fn create(path: &Path) -> std::io::Result<AtomicFile> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let (file, guard) = create_temp(dir, path)?;
        Ok(AtomicFile {
            writer: DirectWriter::new(file, true),
            guard,
            dir: dir.to_owned(),
            path: path.to_owned(),
        })
    }

    /// Where the bytes go.
    pub fn writer(&mut self) -> &mut DirectWriter {
        &mut self.writer
    }

    /// Flushes what is written so far and waits until it is on the disk.
    pub fn sync_data(&mut self) -> std::io::Result<()> {
        self.writer.flush()?;
        self.writer.get_ref().sync_data()
    }

    /// Flushes, syncs and renames the file over its final name.
    pub fn commit(self) -> std::io::Result<()> {
        let file = self.writer.into_inner()?;
        commit(file, self.guard, &self.dir, &self.path)
    }
}

/// Removes the temporary file unless the write completed.
struct TempGuard(PathBuf);

impl Drop for TempGuard {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn create_temp(dir: &Path, path: &Path) -> std::io::Result<(File, TempGuard)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{TEMP_MARK}{}-{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => return Ok((file, TempGuard(tmp))),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1 << 20 => continue,
            Err(e) => return Err(e),
        }
    }
}

/// What marks a temporary file as islagen's: `.NAME.` + this + `PID-N.tmp`.
const TEMP_MARK: &str = "islagen-";

/// The process id in an islagen temporary file's name, if the name is one.
fn temp_owner(file_name: &str) -> Option<u32> {
    let rest = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (_, owner) = rest.rsplit_once(&format!(".{TEMP_MARK}"))?;
    let (pid, n) = owner.split_once('-')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// Whether process `pid` still runs (on other platforms: assumed so, and nothing is removed).
fn alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        // SAFETY: kill with signal 0 sends nothing; it only checks that the process exists.
        let r = unsafe { libc::kill(pid, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// Removes the temporary files a killed islagen left in `dir`: regular files named
/// `.NAME.islagen-PID-N.tmp` whose process no longer runs. Anything else — other programs'
/// files, links, folders, a running islagen's temporaries — is left alone. Returns how many
/// were removed; a folder that does not exist yet has none.
pub fn remove_stale_temps(dir: &Path) -> std::io::Result<usize> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(temp_owner) else {
            continue;
        };
        let is_file = entry.file_type().map(|t| t.is_file()).unwrap_or(false);
        if is_file && pid != std::process::id() && !alive(pid) {
            std::fs::remove_file(entry.path())?;
            tracing::info!(
                "removed {}, left by a killed islagen",
                entry.path().display()
            );
            removed += 1;
        }
    }
    Ok(removed)
}

/// Writes `bytes` to `path` atomically.
pub fn write_bytes_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically(path, |w| w.write_all(bytes))
}

/// Makes the rename durable where the platform allows it; best effort.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_write_leaves_neither_final_nor_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.dat");
        let r: Result<(), std::io::Error> = write_atomically(&path, |w| {
            w.write_all(b"partial")?;
            Err(std::io::Error::other("interrupted"))
        });
        assert!(r.is_err());
        assert!(!path.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn panicking_fill_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.dat");
        let r = std::panic::catch_unwind(|| {
            let _: Result<(), std::io::Error> = write_atomically(&path, |w| {
                w.write_all(b"partial")?;
                panic!("stage bug");
            });
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_link_at_a_predictable_temp_name_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"keep me").unwrap();
        // plant links at every name the next writes of this process could pick
        #[cfg(unix)]
        for n in 0..256 {
            let name = format!(".out.dat.islagen-{}-{n}.tmp", std::process::id());
            std::os::unix::fs::symlink(&victim, dir.path().join(name)).unwrap();
        }
        write_bytes_atomically(&dir.path().join("out.dat"), b"new").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");
        assert_eq!(std::fs::read(dir.path().join("out.dat")).unwrap(), b"new");
    }

    #[test]
    fn failed_rewrite_keeps_the_previous_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.dat");
        write_bytes_atomically(&path, b"complete").unwrap();
        let r: Result<(), std::io::Error> = write_atomically(&path, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"complete");
    }

    #[test]
    fn stale_temps_of_dead_processes_go_and_nothing_else_does() {
        let dir = tempfile::tempdir().unwrap();
        // A process that has exited: its id names no running process.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let me = std::process::id();
        let files = [
            (format!(".MapData_Seed_1.dat.islagen-{dead}-0.tmp"), false),
            (
                format!(".Map_Seed_1_0_height.png.islagen-{dead}-7.tmp"),
                false,
            ),
            (format!(".MapData_Seed_1.dat.islagen-{me}-3.tmp"), true),
            (format!(".notes.txt.{dead}-0.tmp"), true),
            (format!(".x.islagen-{dead}-abc.tmp"), true),
            ("MapData_Seed_1.dat".to_string(), true),
            ("notes.txt".to_string(), true),
        ];
        for (name, _) in &files {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(
            dir.path().join("notes.txt"),
            dir.path().join(format!(".link.islagen-{dead}-1.tmp")),
        )
        .unwrap();
        assert_eq!(remove_stale_temps(dir.path()).unwrap(), 2);
        for (name, kept) in &files {
            assert_eq!(dir.path().join(name).exists(), *kept, "{name}");
        }
        #[cfg(unix)]
        assert!(dir
            .path()
            .join(format!(".link.islagen-{dead}-1.tmp"))
            .is_symlink());
        assert_eq!(remove_stale_temps(&dir.path().join("missing")).unwrap(), 0);
    }
}
