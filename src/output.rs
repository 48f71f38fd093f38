//! Atomic output files: every file islagen writes goes to a temporary name in the destination
//! folder, is flushed and synced, and only then renamed over the final name. An interrupted or
//! failed write never leaves a truncated file under the final name; on failure the temporary
//! file is removed.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Buffer size for streamed output.
const BUFFER: usize = 8 << 20;

/// Writes a file atomically through `fill`, returning what `fill` returns. The temporary file is
/// `.NAME.PID-N.tmp` beside `path`, created exclusively (never following a planted link, never
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
    file.sync_all()?;
    drop(file);
    std::fs::rename(&guard.0, path)?;
    std::mem::forget(guard);
    sync_dir(dir);
    Ok(value)
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
        let tmp = dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => return Ok((file, TempGuard(tmp))),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1 << 20 => continue,
            Err(e) => return Err(e),
        }
    }
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
            let name = format!(".out.dat.{}-{n}.tmp", std::process::id());
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
}
