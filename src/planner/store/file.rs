//! The plan in a plain file beneath the workspace root (`--plan-file PATH`).

use std::path::Path;
use std::time::Duration;

use super::plan_file::PlanFile;
use super::{PlanStore, StoreError};
use crate::fs::{FolderLock, FsError, Workspace};

pub struct FileStore {
    file: PlanFile,
    shown: String,
}

impl FileStore {
    /// A store at `path`, relative to the workspace root (or absolute inside
    /// it). The file need not exist yet; its folder must.
    pub fn new(workspace: Workspace, path: &Path) -> Result<Self, StoreError> {
        let Some(text) = path.to_str() else {
            return Err(StoreError::File(FsError::Invalid {
                path: path.to_string_lossy().into_owned(),
                reason: "is not valid UTF-8",
            }));
        };
        // Fail early on a path that can never be used (outside, a folder).
        let located = workspace.locate(text).map_err(StoreError::File)?;
        let shown = located.shown().to_owned();
        Ok(FileStore {
            file: PlanFile::new(workspace, text.to_owned()),
            shown,
        })
    }
}

impl PlanStore for FileStore {
    fn kind(&self) -> &'static str {
        "file"
    }

    fn load(&self) -> Result<String, StoreError> {
        self.file.load()
    }

    fn save(&self, text: &str) -> Result<(), StoreError> {
        self.file.save(text)
    }

    fn changes(&self) -> Result<Option<String>, StoreError> {
        Ok(None)
    }

    fn lock(&self, timeout: Duration) -> Result<FolderLock, StoreError> {
        self.file.lock(timeout)
    }

    fn clear_hint(&self) -> String {
        format!(
            "edit `{}` into a plan, or delete it to start a new one",
            self.shown
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(folder: &Path, path: &str) -> Result<FileStore, StoreError> {
        FileStore::new(Workspace::new(folder).unwrap(), Path::new(path))
    }

    #[test]
    fn a_missing_file_is_an_empty_plan_and_saving_creates_it() {
        let folder = tempfile::tempdir().unwrap();
        let store = store(folder.path(), "PLAN.md").unwrap();
        assert_eq!(store.load().unwrap(), "");
        store.save("feat(a): b\n").unwrap();
        assert_eq!(store.load().unwrap(), "feat(a): b\n");
        store.save("feat(a): c\n").unwrap();
        assert_eq!(store.load().unwrap(), "feat(a): c\n");
    }

    #[test]
    fn errors_show_the_path_relative_to_the_workspace() {
        let folder = tempfile::tempdir().unwrap();
        let error = store(folder.path(), "missing/PLAN.md")
            .err()
            .unwrap()
            .to_string();
        assert_eq!(
            error,
            "the plan file cannot be used: `missing/PLAN.md` does not exist in the workspace"
        );
        let error = store(folder.path(), "../PLAN.md")
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("outside the workspace"), "{error}");
    }
}
