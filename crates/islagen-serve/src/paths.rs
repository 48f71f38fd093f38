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

use super::error::ApiError;

/// Longest relative path a request may name, in bytes.
pub const MAX_PATH_LEN: usize = 1024;

/// Why a relative path was refused (before it is looked up).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathRefused {
    /// Nothing named.
    #[error("empty path")]
    Empty,
    /// Over [`MAX_PATH_LEN`] bytes.
    #[error("path longer than {MAX_PATH_LEN} bytes")]
    TooLong,
    /// Starts at the file system's root.
    #[error("absolute paths are not served")]
    Absolute,
    /// A backslash, NUL or drive colon.
    #[error("paths may not contain {0:?}")]
    Character(char),
    /// `a//b` or a trailing slash.
    #[error("empty path component")]
    EmptyComponent,
    /// `.` or `..`.
    #[error("path component {0:?} is not allowed")]
    Relative(String),
    /// `.name`: never listed; a running job writes into one (`.islagen-job-*`).
    #[error("hidden path component {0:?} is not served")]
    Hidden(String),
}

/// Checks a relative path before it is looked up.
pub fn check(rel: &str) -> Result<(), PathRefused> {
    if rel.is_empty() {
        return Err(PathRefused::Empty);
    }
    if rel.len() > MAX_PATH_LEN {
        return Err(PathRefused::TooLong);
    }
    if rel.starts_with('/') {
        return Err(PathRefused::Absolute);
    }
    if let Some(c) = rel.chars().find(|c| matches!(c, '\\' | '\0' | ':')) {
        return Err(PathRefused::Character(c));
    }
    for part in rel.split('/') {
        match part {
            "" => return Err(PathRefused::EmptyComponent),
            "." | ".." => return Err(PathRefused::Relative(part.into())),
            hidden if hidden.starts_with('.') => return Err(PathRefused::Hidden(hidden.into())),
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
        use PathRefused::*;
        let hidden = |s: &str| Hidden(s.into());
        for (bad, why) in [
            ("", Empty),
            ("/etc/passwd", Absolute),
            ("../x.dat", Relative("..".into())),
            ("a/../../x", Relative("..".into())),
            ("a/./b", Relative(".".into())),
            ("a//b", EmptyComponent),
            ("a\\b", Character('\\')),
            ("a\0b", Character('\0')),
            ("C:x", Character(':')),
            (
                ".islagen-job-1-7/MapData_Seed_1.dat",
                hidden(".islagen-job-1-7"),
            ),
            ("a/.hidden", hidden(".hidden")),
        ] {
            assert_eq!(check(bad), Err(why), "{bad:?}");
        }
        assert_eq!(check(&"a".repeat(MAX_PATH_LEN + 1)), Err(TooLong));
        for good in ["MapData_Seed_1.dat", "sweep7/MapData_Seed_3.dat", "a..b/c"] {
            assert!(check(good).is_ok(), "{good:?} refused");
        }
    }
}
