//! A plan kept in a file beneath a confined folder: the workspace (for
//! `--plan-file`) or the git directory (for `QUIRE_PLAN`). The file obeys
//! the rules of every tool path: no way out of its folder, regular files
//! only, a size limit, atomic writes that keep owner and mode.

use std::time::Duration;

use super::{MAX_PLAN_BYTES, StoreError};
use quire_fs::{FolderLock, FsError, Workspace};

pub(super) struct PlanFile {
    folder: Workspace,
    path: String,
}

impl PlanFile {
    pub(super) fn new(folder: Workspace, path: String) -> PlanFile {
        PlanFile { folder, path }
    }

    /// The file's text; empty when it does not exist yet.
    pub(super) fn load(&self) -> Result<String, StoreError> {
        let located = self.folder.locate(&self.path).map_err(StoreError::File)?;
        if !located.exists() {
            return Ok(String::new());
        }
        match located
            .open()
            .and_then(|file| file.read_to_string(MAX_PLAN_BYTES))
        {
            Ok(text) => Ok(text),
            Err(FsError::NotFound { .. }) => Ok(String::new()),
            Err(error) => Err(StoreError::File(error)),
        }
    }

    /// Replaces the file's text atomically, or creates the file.
    pub(super) fn save(&self, text: &str) -> Result<(), StoreError> {
        let located = self.folder.locate(&self.path).map_err(StoreError::File)?;
        let saved = if located.exists() {
            located
                .open()
                .and_then(|file| located.replace(&file, text.as_bytes()))
        } else {
            located.create(text.as_bytes(), 0o644)
        };
        saved.map_err(StoreError::File)
    }

    /// Removes the file if its text still satisfies `is_done`; says whether
    /// it did.
    pub(super) fn remove_if(&self, is_done: impl Fn(&str) -> bool) -> Result<bool, StoreError> {
        let located = self.folder.locate(&self.path).map_err(StoreError::File)?;
        if !located.exists() {
            return Ok(false);
        }
        let file = located.open().map_err(StoreError::File)?;
        let text = file
            .read_to_string(MAX_PLAN_BYTES)
            .map_err(StoreError::File)?;
        if !is_done(&text) {
            return Ok(false);
        }
        located.remove(&file).map_err(StoreError::File)?;
        Ok(true)
    }

    /// Locks the folder that holds the file.
    pub(super) fn lock(&self, timeout: Duration) -> Result<FolderLock, StoreError> {
        self.folder
            .locate(&self.path)
            .and_then(|located| located.lock_folder(timeout))
            .map_err(StoreError::File)
    }
}
