//! The plan in a plain file beneath the workspace root (`--plan-file PATH`).
//! When the root is in a Jujutsu or git working copy, its changes are
//! reported as that repository's store reports them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::plan_file::PlanFile;
use super::{
    ChangesDetail, PlanStore, StoreError, StoreKind, WorkingCopyChanges, repository_store,
};
use quire_fs::{FolderLock, FsError, Workspace};

/// A plan kept in a file of the workspace (`--plan-file`), for a workspace that
/// is not a repository.
pub struct FileStore {
    file: PlanFile,
    shown: String,
    root: PathBuf,
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
        // Fail early on a path that can never be used (outside, a folder,
        // a folder that does not exist).
        let located = workspace
            .locate(text)
            .map_err(|error| missing_folder(error, text))?;
        let shown = located.shown().to_owned();
        Ok(FileStore {
            root: workspace.root().to_owned(),
            file: PlanFile::new(workspace, text.to_owned()),
            shown,
        })
    }

    /// `error` as the store reports it: a folder on the way that does not
    /// exist (removed since the server started, say) is named with the fix.
    fn reported(&self, error: StoreError) -> StoreError {
        match error {
            StoreError::File(error) => missing_folder(error, &self.shown),
            other => other,
        }
    }
}

/// A file error, or for a path whose folder does not exist (`NotFound`
/// while locating: a missing file alone is an empty plan), the error that
/// names the folder and says how to make it.
fn missing_folder(error: FsError, path: &str) -> StoreError {
    match error {
        FsError::NotFound { path: shown } => {
            let shown = if shown.is_empty() {
                path.to_owned()
            } else {
                shown
            };
            let folder = Path::new(&shown)
                .parent()
                .map(|folder| folder.to_string_lossy().into_owned())
                .filter(|folder| !folder.is_empty())
                .unwrap_or_else(|| ".".to_owned());
            StoreError::PlanFolderMissing {
                path: shown,
                folder,
            }
        }
        other => StoreError::File(other),
    }
}

impl PlanStore for FileStore {
    fn kind(&self) -> StoreKind {
        StoreKind::File
    }

    fn load(&self) -> Result<String, StoreError> {
        self.file.load().map_err(|error| self.reported(error))
    }

    fn save(&self, text: &str) -> Result<(), StoreError> {
        self.file.save(text).map_err(|error| self.reported(error))
    }

    /// The changes of the working copy the root is in, if it is in one. A
    /// plan file is also the way to plan when jj or git is missing or fails,
    /// so neither stops a call: a missing program (or a bare repository)
    /// means no changes, and a failing command is reported in their place.
    fn changes(&self, detail: ChangesDetail) -> Result<Option<WorkingCopyChanges>, StoreError> {
        let changes = repository_store(&self.root)
            .and_then(|repository| repository.map_or(Ok(None), |store| store.changes(detail)));
        match changes {
            Ok(changes) => Ok(changes),
            Err(StoreError::ProgramMissing { .. } | StoreError::BareRepository) => Ok(None),
            Err(error) => Ok(Some(WorkingCopyChanges::unreadable(error))),
        }
    }

    fn lock(&self, timeout: Duration) -> Result<FolderLock, StoreError> {
        self.file
            .lock(timeout)
            .map_err(|error| self.reported(error))
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
            "the plan file `missing/PLAN.md` cannot be kept: its folder `missing` does not exist in the workspace; \
             create the folder (`mkdir -p missing` in the workspace root), or choose a --plan-file in a folder that exists"
        );
        let error = store(folder.path(), "../PLAN.md")
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("outside the workspace"), "{error}");
    }

    #[test]
    fn a_plan_folder_removed_after_the_start_is_named_with_the_fix() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(folder.path().join("sub/dir")).unwrap();
        let store = store(folder.path(), "sub/dir/P.txt").unwrap();
        std::fs::remove_dir_all(folder.path().join("sub")).unwrap();
        let expected = "the plan file `sub/dir/P.txt` cannot be kept: its folder `sub/dir` does not exist in the workspace; \
                        create the folder (`mkdir -p sub/dir` in the workspace root), or choose a --plan-file in a folder that exists";
        assert_eq!(store.load().unwrap_err().to_string(), expected);
        assert_eq!(
            store.save("feat(a): b\n").unwrap_err().to_string(),
            expected
        );
        assert_eq!(
            store.lock(Duration::from_secs(1)).unwrap_err().to_string(),
            expected
        );
    }
}
