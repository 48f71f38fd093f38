//! Atomic output files: every file islagen writes goes to a temporary name in the destination
//! folder, is flushed and synced, and only then renamed over the final name. An interrupted or
//! failed write never leaves a truncated file under the final name; on failure the temporary
//! file is removed.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Buffer size for streamed output.
const BUFFER: usize = 8 << 20;

/// The temporary name used while `path` is being written: `.NAME.tmp-PID` beside it.
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// Writes a file atomically through `fill`, returning what `fill` returns.
pub fn write_atomically<T, E>(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<std::io::Error>,
{
    let tmp = temp_path(path);
    let result = (|| {
        let file = File::create(&tmp)?;
        let mut w = BufWriter::with_capacity(BUFFER, file);
        let value = fill(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, path)?;
        sync_parent(path);
        Ok(value)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Writes `bytes` to `path` atomically.
pub fn write_bytes_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically(path, |w| w.write_all(bytes))
}

/// Makes the rename durable where the platform allows it; best effort.
fn sync_parent(path: &Path) {
    #[cfg(unix)]
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
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
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
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
        assert_eq!(fs::read(&path).unwrap(), b"complete");
    }
}
