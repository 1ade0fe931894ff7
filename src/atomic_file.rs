//! Replacing a file's contents so that a reader sees either the old bytes or
//! the new ones, never a mix, and a failure leaves the old file untouched.
//!
//! The new bytes go to a temporary file with an unpredictable name in the
//! same folder (so the rename cannot cross file systems), which gets the
//! original's permissions, is flushed to disk, and is renamed over the
//! original; then the folder is flushed so the rename itself is durable.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

/// Atomically replaces the contents of the existing file at `path`.
///
/// ```
/// let folder = tempfile::tempdir()?;
/// let path = folder.path().join("plan.txt");
/// std::fs::write(&path, "old")?;
/// quire::atomic_file::replace(&path, b"new")?;
/// assert_eq!(std::fs::read_to_string(&path)?, "new");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn replace(path: &Path, contents: &[u8]) -> io::Result<()> {
    replace_checked(path, contents, || Ok(()))
}

/// [`replace`], with `before_rename` run after the new bytes are on disk and
/// before they replace the original: an error from it abandons the write.
/// Tests use it to inject a failure at the last moment.
fn replace_checked(
    path: &Path,
    contents: &[u8],
    before_rename: impl FnOnce() -> io::Result<()>,
) -> io::Result<()> {
    let permissions = fs::metadata(path)?.permissions();
    let (folder, temp) = stage(path, contents, Some(permissions))?;
    // Dropping `temp` on any error below removes the temporary file.
    before_rename()?;
    // On error the temporary file is removed when `persist` hands it back.
    temp.persist(path).map_err(|error| error.error)?;
    sync_folder(folder)
}

/// Atomically writes `contents` to `path`, replacing the file if it exists
/// (keeping its permissions) or creating it (readable by all, writable by
/// the owner) if it does not. The folder must exist.
pub fn write(path: &Path, contents: &[u8]) -> io::Result<()> {
    if path.exists() {
        return replace(path, contents);
    }
    #[cfg(unix)]
    let permissions = {
        use std::os::unix::fs::PermissionsExt;
        Some(fs::Permissions::from_mode(0o644))
    };
    #[cfg(not(unix))]
    let permissions = None;
    let (folder, temp) = stage(path, contents, permissions)?;
    temp.persist_noclobber(path).map_err(|error| error.error)?;
    sync_folder(folder)
}

/// The new bytes, on disk with `permissions` (the default for new files when
/// `None`), in a temporary file with an
/// unpredictable name beside `path` (so the rename cannot cross file
/// systems); and the folder they are in.
fn stage<'p>(
    path: &'p Path,
    contents: &[u8],
    permissions: Option<fs::Permissions>,
) -> io::Result<(&'p Path, tempfile::NamedTempFile)> {
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(".quire-")
        .suffix(".tmp")
        .tempfile_in(folder)?;
    temp.write_all(contents)?;
    if let Some(permissions) = permissions {
        temp.as_file().set_permissions(permissions)?;
    }
    temp.as_file().sync_all()?;
    Ok((folder, temp))
}

#[cfg(unix)]
fn sync_folder(folder: &Path) -> io::Result<()> {
    fs::File::open(folder)?.sync_all()
}

#[cfg(not(unix))]
fn sync_folder(_folder: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(folder: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(folder)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[cfg(unix)]
    #[test]
    fn keeps_permissions_and_leaves_no_temporary_file() {
        use std::os::unix::fs::PermissionsExt;
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("note.md");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        replace(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o640
        );
        assert_eq!(entries(folder.path()), ["note.md"]);
    }

    #[test]
    fn write_creates_or_replaces() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("PLAN");
        write(&path, b"one").unwrap();
        write(&path, b"two").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(entries(folder.path()), ["PLAN"]);
    }

    #[test]
    fn a_missing_file_is_an_error_and_nothing_is_created() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("missing.md");
        assert_eq!(
            replace(&path, b"x").unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        assert!(entries(folder.path()).is_empty());
    }

    #[test]
    fn a_failure_before_the_rename_leaves_the_original_untouched() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("note.md");
        fs::write(&path, "old").unwrap();
        let mut temporary_existed = false;
        let result = replace_checked(&path, b"new", || {
            temporary_existed = entries(folder.path()).len() == 2;
            Err(io::Error::other("disk full"))
        });
        assert_eq!(result.unwrap_err().to_string(), "disk full");
        assert!(
            temporary_existed,
            "the new bytes were staged beside the original"
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(entries(folder.path()), ["note.md"]);
    }
}
