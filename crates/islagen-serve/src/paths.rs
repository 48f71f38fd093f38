//! Confinement to the served folder: every path a request names is relative to DIR, and
//! [`resolve`] turns it into a file that is inside DIR or refuses it.
//!
//! Guarantees: an absolute path, a `..` or `.` component, an empty component, a backslash, a
//! NUL, a drive colon, a hidden component (`.name`: a running job's folder is one) or a path
//! over [`MAX_PATH_LEN`] bytes is refused before the file system is touched; what is left is
//! canonicalised (symlinks resolved) and must still start with DIR's canonical form and hold no
//! hidden component below it, so a symlink that leads out of DIR or into a hidden folder is
//! refused too.

use std::path::{Path, PathBuf};

use super::api::ApiError;

/// Longest relative path a request may name, in bytes.
pub const MAX_PATH_LEN: usize = 1024;

/// Why a relative path was refused (before it is looked up).
pub fn check(rel: &str) -> Result<(), String> {
    if rel.is_empty() {
        return Err("empty path".into());
    }
    if rel.len() > MAX_PATH_LEN {
        return Err(format!("path longer than {MAX_PATH_LEN} bytes"));
    }
    if rel.starts_with('/') {
        return Err("absolute paths are not served".into());
    }
    if let Some(c) = rel.chars().find(|c| matches!(c, '\\' | '\0' | ':')) {
        return Err(format!("paths may not contain {c:?}"));
    }
    for part in rel.split('/') {
        match part {
            "" => return Err("empty path component".into()),
            "." | ".." => return Err(format!("path component {part:?} is not allowed")),
            // Hidden entries are never listed; a running job writes into one (`.islagen-job-*`).
            hidden if hidden.starts_with('.') => {
                return Err(format!("hidden path component {hidden:?} is not served"))
            }
            _ => {}
        }
    }
    Ok(())
}

/// The file `rel` names under `root` (which must be canonical), canonicalised and confined.
pub fn resolve(root: &Path, rel: &str) -> Result<PathBuf, ApiError> {
    check(rel).map_err(|e| ApiError::bad_request(format!("{rel:?}: {e}")))?;
    let joined = root.join(rel);
    let canonical = joined
        .canonicalize()
        .map_err(|_| ApiError::not_found(format!("{rel}: no such file")))?;
    let Ok(inside) = canonical.strip_prefix(root) else {
        return Err(ApiError::forbidden(format!(
            "{rel}: leads outside the served folder"
        )));
    };
    // A symlink may lead into a hidden folder (a running job's): check what it resolved to.
    if let Some(hidden) = inside
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .find(|c| c.starts_with('.'))
    {
        return Err(ApiError::forbidden(format!(
            "{rel}: leads into the hidden {hidden:?}, which is not served"
        )));
    }
    if !canonical.is_file() {
        return Err(ApiError::not_found(format!("{rel}: not a file")));
    }
    Ok(canonical)
}

/// `path` (inside `root`) as a world id: relative, `/`-separated. `None` for a path outside
/// `root` or one that is not valid UTF-8.
pub fn id_of(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_paths_are_refused_before_lookup() {
        for bad in [
            "",
            "/etc/passwd",
            "../x.dat",
            "a/../../x",
            "a/./b",
            "a//b",
            "a\\b",
            "a\0b",
            "C:x",
            ".islagen-job-1-7/MapData_Seed_1.dat",
            "a/.hidden",
        ] {
            assert!(check(bad).is_err(), "{bad:?} accepted");
        }
        assert!(check(&"a".repeat(MAX_PATH_LEN + 1)).is_err());
        for good in ["MapData_Seed_1.dat", "sweep7/MapData_Seed_3.dat", "a..b/c"] {
            assert!(check(good).is_ok(), "{good:?} refused");
        }
    }
}
