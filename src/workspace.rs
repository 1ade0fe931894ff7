//! The folder every tool path is relative to, and the rule that no path
//! leaves it: not by `..`, not as an absolute path elsewhere, not through a
//! symbolic link that points outside.

use std::io;
use std::path::{Component, Path, PathBuf};

/// A workspace root (canonical: absolute, symbolic links resolved).
#[derive(Clone, Debug)]
pub struct Workspace {
    root: PathBuf,
}

/// Why a path given to a tool cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PathError {
    #[error("the path is empty; give a path relative to the workspace root")]
    Empty,
    #[error(
        "`{path}` is outside the workspace; give a path inside it, relative to the workspace root"
    )]
    Outside { path: String },
    #[error("`{path}` does not exist in the workspace")]
    NotFound { path: String },
    #[error("`{path}` cannot be read: {reason}")]
    Unreadable { path: String, reason: String },
}

impl Workspace {
    /// Opens the workspace rooted at `root`, which must be an existing folder.
    pub fn new(root: &Path) -> io::Result<Self> {
        let root = root.canonicalize()?;
        if !root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                "the workspace root is not a folder",
            ));
        }
        Ok(Workspace { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves `path` (relative to the root, or absolute inside it) to an
    /// existing file or folder inside the workspace, following symbolic links.
    ///
    /// ```
    /// # let folder = tempfile::tempdir()?;
    /// # std::fs::create_dir(folder.path().join("notes"))?;
    /// # std::fs::write(folder.path().join("notes/a.md"), "x")?;
    /// use quire::workspace::{PathError, Workspace};
    ///
    /// let workspace = Workspace::new(folder.path())?;
    /// assert!(workspace.resolve("notes/a.md").is_ok());
    /// assert!(matches!(workspace.resolve("../a.md"), Err(PathError::Outside { .. })));
    /// assert!(matches!(workspace.resolve("notes/b.md"), Err(PathError::NotFound { .. })));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn resolve(&self, path: &str) -> Result<PathBuf, PathError> {
        if path.is_empty() {
            return Err(PathError::Empty);
        }
        if path.contains('\0') {
            return Err(PathError::Outside {
                path: path.replace('\0', "\\0"),
            });
        }
        let joined = self.root.join(path);
        let normal = normalize(&joined);
        let shown = self.shown(path, normal.as_deref());
        let Some(normal) = normal.filter(|normal| normal.starts_with(&self.root)) else {
            return Err(PathError::Outside { path: shown });
        };
        let canonical = match normal.canonicalize() {
            Ok(canonical) => canonical,
            // A missing file, or a "folder" on the way that is a file.
            Err(error)
                if matches!(
                    error.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                return Err(PathError::NotFound { path: shown });
            }
            Err(error) => {
                return Err(PathError::Unreadable {
                    path: shown,
                    reason: describe(&error),
                });
            }
        };
        if !canonical.starts_with(&self.root) {
            return Err(PathError::Outside { path: shown });
        }
        Ok(canonical)
    }

    /// A path the caller gave, as messages show it: relative paths as given;
    /// absolute ones relative to the root when inside it, else by file name
    /// only, so no absolute path of the machine appears in a message.
    fn shown(&self, given: &str, normal: Option<&Path>) -> String {
        if !Path::new(given).is_absolute() {
            return given.to_owned();
        }
        match normal {
            Some(normal) if normal.starts_with(&self.root) => self.display(normal),
            _ => Path::new(given).file_name().map_or_else(
                || "(an absolute path)".to_owned(),
                |name| format!(".../{}", name.to_string_lossy()),
            ),
        }
    }

    /// `path` as shown to a tool's caller: relative to the root, `/`-separated.
    /// Paths outside the root show only their file name, so no absolute path
    /// of the machine leaks into a message.
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(relative) => relative
                .components()
                .map(|component| component.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
            Err(_) => path.file_name().map_or_else(
                || "(outside the workspace)".to_owned(),
                |name| name.to_string_lossy().into_owned(),
            ),
        }
    }
}

/// `path` with `.` and `..` resolved lexically; `None` if `..` climbs above
/// the file system root.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                if !normal.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    Some(normal)
}

/// An I/O error in words, without the path the OS may put in it.
pub fn describe(error: &io::Error) -> String {
    match error.kind() {
        io::ErrorKind::NotFound => "not found".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        io::ErrorKind::IsADirectory => "it is a folder, not a file".to_owned(),
        io::ErrorKind::InvalidData => "it is not UTF-8 text".to_owned(),
        kind => kind.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let folder = tempfile::tempdir().unwrap();
        fs::create_dir_all(folder.path().join("trackers")).unwrap();
        fs::write(folder.path().join("trackers/a.md"), "x").unwrap();
        let workspace = Workspace::new(folder.path()).unwrap();
        (folder, workspace)
    }

    #[test]
    fn relative_and_absolute_paths_inside_resolve() {
        let (folder, workspace) = workspace();
        let resolved = workspace.resolve("trackers/./a.md").unwrap();
        assert_eq!(workspace.display(&resolved), "trackers/a.md");
        let absolute = folder.path().join("trackers/a.md");
        assert!(workspace.resolve(absolute.to_str().unwrap()).is_ok());
        assert!(workspace.resolve("trackers/../trackers/a.md").is_ok());
    }

    #[test]
    fn escapes_are_refused_before_existence_is_checked() {
        let (_folder, workspace) = workspace();
        for escape in ["../a.md", "trackers/../../a.md", "/etc/passwd", "/", "a\0b"] {
            assert!(
                matches!(workspace.resolve(escape), Err(PathError::Outside { .. })),
                "{escape:?}"
            );
        }
        assert_eq!(workspace.resolve(""), Err(PathError::Empty));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_leading_out_is_refused() {
        let (folder, workspace) = workspace();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.md"), "x").unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.md"),
            folder.path().join("trackers/link.md"),
        )
        .unwrap();
        assert!(matches!(
            workspace.resolve("trackers/link.md"),
            Err(PathError::Outside { .. })
        ));
        let error = workspace
            .resolve("trackers/link.md")
            .unwrap_err()
            .to_string();
        assert!(!error.contains(outside.path().to_str().unwrap()), "{error}");
    }

    #[test]
    fn absolute_paths_are_not_echoed_in_errors() {
        let (folder, workspace) = workspace();
        let root = folder.path().canonicalize().unwrap();
        let inside = root.join("trackers/missing.md");
        assert_eq!(
            workspace.resolve(inside.to_str().unwrap()),
            Err(PathError::NotFound {
                path: "trackers/missing.md".into()
            })
        );
        let outside = root.join("../elsewhere/x.md");
        assert_eq!(
            workspace.resolve(outside.to_str().unwrap()),
            Err(PathError::Outside {
                path: ".../x.md".into()
            })
        );
    }

    #[test]
    fn a_path_through_a_file_is_not_found() {
        let (_folder, workspace) = workspace();
        assert!(matches!(
            workspace.resolve("trackers/a.md/x"),
            Err(PathError::NotFound { .. })
        ));
    }

    #[test]
    fn display_never_shows_an_absolute_path() {
        let (_folder, workspace) = workspace();
        assert_eq!(
            workspace.display(Path::new("/somewhere/else/file.md")),
            "file.md"
        );
    }
}
