//! The plan in a plain file (`--plan-file PATH`).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::{PlanStore, StoreError};
use crate::workspace::describe;

pub struct FileStore {
    path: PathBuf,
    root: PathBuf,
}

impl FileStore {
    /// A store at `path`; `root` is only used to show the path relative to it.
    pub fn new(path: PathBuf, root: &Path) -> Self {
        FileStore {
            path,
            root: root.to_owned(),
        }
    }
}

impl PlanStore for FileStore {
    fn kind(&self) -> &'static str {
        "file"
    }

    fn load(&self) -> Result<String, StoreError> {
        read_or_empty(&self.path, &self.root)
    }

    fn save(&self, text: &str) -> Result<(), StoreError> {
        write_atomically(&self.path, text, &self.root)
    }

    fn changes(&self) -> Result<Option<String>, StoreError> {
        Ok(None)
    }

    fn lock_path(&self) -> PathBuf {
        let name = self
            .path
            .file_name()
            .map_or_else(|| "plan".into(), |name| name.to_string_lossy().into_owned());
        self.path.with_file_name(format!(".{name}.lock"))
    }

    fn clear_hint(&self) -> String {
        let shown = self.path.strip_prefix(&self.root).unwrap_or(&self.path);
        let shown = if shown.is_absolute() {
            Path::new(self.path.file_name().unwrap_or_default())
        } else {
            shown
        };
        format!(
            "edit `{}` into a plan, or delete it to start a new one",
            shown.display()
        )
    }
}

/// The file's text; empty when it does not exist yet.
pub(super) fn read_or_empty(path: &Path, root: &Path) -> Result<String, StoreError> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map_err(|_| file_error("read", path, root, "it is not UTF-8 text".into())),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(String::new()),
        Err(error) => Err(file_error("read", path, root, describe(&error))),
    }
}

pub(super) fn write_atomically(path: &Path, text: &str, root: &Path) -> Result<(), StoreError> {
    crate::atomic_file::write(path, text.as_bytes())
        .map_err(|error| file_error("write", path, root, describe(&error)))
}

fn file_error(action: &'static str, path: &Path, root: &Path, reason: String) -> StoreError {
    let shown = path
        .strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned();
    let shown = if Path::new(&shown).is_absolute() {
        path.file_name().map_or_else(
            || "plan".to_owned(),
            |name| name.to_string_lossy().into_owned(),
        )
    } else {
        shown
    };
    StoreError::File {
        action,
        path: shown,
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_an_empty_plan_and_saving_creates_it() {
        let folder = tempfile::tempdir().unwrap();
        let store = FileStore::new(folder.path().join("PLAN.md"), folder.path());
        assert_eq!(store.load().unwrap(), "");
        store.save("feat(a): b\n").unwrap();
        assert_eq!(store.load().unwrap(), "feat(a): b\n");
    }

    #[test]
    fn errors_show_the_path_relative_to_the_workspace() {
        let folder = tempfile::tempdir().unwrap();
        let store = FileStore::new(folder.path().join("missing/PLAN.md"), folder.path());
        let error = store.save("x").unwrap_err().to_string();
        assert_eq!(
            error,
            "cannot write the plan file `missing/PLAN.md`: not found"
        );
    }
}
