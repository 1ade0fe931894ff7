//! Where a plan lives between tool calls: the description of the Jujutsu
//! working-copy change, a file in the git directory (offered as the next
//! commit message), or a plain file beneath the workspace root.

mod changes;
mod command;
mod file;
mod git;
mod jj;
mod plan_file;

use std::path::Path;
use std::time::Duration;

pub use changes::{ChangedFile, ChangesDetail, FileStatus, LineCounts, WorkingCopyChanges};
pub use command::CommandStream;
pub use file::FileStore;
pub use git::{GitStore, hooks_folder, is_partial_clone, stream_git};
use jj::JjStore;

use quire_fs::{FolderLock, FsError, Workspace};

/// The largest stored plan read, in bytes. A plan is at most 100,000
/// characters (the grammar's limit); anything much larger is not one.
pub(crate) const MAX_PLAN_BYTES: u64 = 1024 * 1024;

/// Which kind of place holds the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StoreKind {
    /// The description of the Jujutsu working-copy change.
    Jj,
    /// A file in the git directory, offered as the next commit message.
    Git,
    /// A plain file beneath the workspace root (`--plan-file`).
    File,
}

impl StoreKind {
    /// `jj`, `git` or `file`.
    pub fn name(self) -> &'static str {
        match self {
            StoreKind::Jj => "jj",
            StoreKind::Git => "git",
            StoreKind::File => "file",
        }
    }
}

impl std::fmt::Display for StoreKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A place that holds one plan document's text.
pub trait PlanStore: Send + Sync {
    /// Which kind of place it is.
    fn kind(&self) -> StoreKind;
    /// The stored text (empty when nothing is stored yet).
    fn load(&self) -> Result<String, StoreError>;
    /// Replaces the stored text.
    fn save(&self, text: &str) -> Result<(), StoreError>;
    /// The working copy's changes beneath the workspace root: every changed
    /// file with its status and line counts, and with
    /// [`ChangesDetail::FilesAndDiff`] their diff in git's format, cut at
    /// [`MAX_DIFF_BYTES`] with a last line saying what was left out. `None`
    /// when nothing changed, or there is no working copy.
    fn changes(&self, detail: ChangesDetail) -> Result<Option<WorkingCopyChanges>, StoreError>;
    /// Serializes read-modify-write of the plan across threads and
    /// processes until the guard is dropped. The lock is taken on a folder
    /// (the repository's metadata folder, or the plan file's folder), so no
    /// lock file is left anywhere.
    fn lock(&self, timeout: Duration) -> Result<FolderLock, StoreError>;
    /// How a user clears stored text that is not a plan.
    fn clear_hint(&self) -> String;
    /// Makes room for a new plan, keeping the stored one where the store
    /// can: Jujutsu starts a new change (`jj new`), so the old plan stays
    /// the description of the change before it. Returns whether the stored
    /// plan was kept; when not, the next [`PlanStore::save`] replaces it.
    fn start_new(&self) -> Result<bool, StoreError> {
        Ok(false)
    }
}

/// The most of a diff that [`PlanStore::changes`] carries, in bytes: enough
/// for the changes of one piece of work, and a bounded share of a model's
/// context.
pub const MAX_DIFF_BYTES: usize = 64 * 1024;

/// The most new (untracked) files whose lines the git store counts (and
/// whose diff it collects when asked), one command each: a folder of
/// thousands of untracked files must not make every call start thousands
/// of processes. The others are listed uncounted
/// ([`LineCounts::NotCounted`]).
pub const MAX_NEW_FILE_DIFFS: usize = 100;

/// A diff collected in pieces (one command each) within
/// [`MAX_DIFF_BYTES`], counting what did not fit.
#[derive(Debug)]
pub(crate) struct Diff {
    text: String,
    /// Bytes of diff output left out.
    omitted_bytes: u64,
    /// Pieces not even run because the diff was full or had
    /// [`MAX_NEW_FILE_DIFFS`] new files (their size in the diff is unknown).
    omitted_files: usize,
    /// New files whose diff was not collected because their name is not
    /// UTF-8 (a command is given its arguments as text).
    unnamed_files: usize,
}

impl Diff {
    pub(crate) fn new() -> Diff {
        Diff {
            text: String::new(),
            omitted_bytes: 0,
            omitted_files: 0,
            unnamed_files: 0,
        }
    }

    /// Room left, in bytes: none once a piece was cut (the rest of its
    /// room is too small for the line that did not fit).
    pub(crate) fn room(&self) -> usize {
        if self.omitted_bytes > 0 {
            return 0;
        }
        MAX_DIFF_BYTES.saturating_sub(self.text.len())
    }

    pub(crate) fn push(&mut self, piece: command::Capped) {
        self.text.push_str(&piece.text);
        self.omitted_bytes += piece.omitted;
    }

    /// Counts a new file whose diff was not collected: the diff was full,
    /// or had [`MAX_NEW_FILE_DIFFS`] new files.
    pub(crate) fn skip_file(&mut self) {
        self.omitted_files += 1;
    }

    /// Counts a new file whose diff was not collected because its name is
    /// not UTF-8.
    pub(crate) fn skip_unnamed_file(&mut self) {
        self.unnamed_files += 1;
    }

    /// The diff, ending with lines that say what was left out, if anything.
    pub(crate) fn finish(self) -> String {
        let full = self.omitted_bytes > 0 || self.text.len() >= MAX_DIFF_BYTES;
        let mut text = self.text;
        if self.omitted_bytes == 0 && self.omitted_files == 0 && self.unnamed_files == 0 {
            return text;
        }
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        if self.unnamed_files > 0 {
            let (files, name) = if self.unnamed_files == 1 {
                ("file", "name is")
            } else {
                ("files", "names are")
            };
            text.push_str(&format!(
                "[the diff of {} new {files} whose {name} not UTF-8 is not shown]\n",
                self.unnamed_files
            ));
        }
        if self.omitted_bytes == 0 && self.omitted_files == 0 {
            return text;
        }
        let mut left_out = Vec::new();
        if self.omitted_bytes > 0 {
            left_out.push(format!("{} more bytes", self.omitted_bytes));
        }
        if self.omitted_files > 0 {
            let files = if self.omitted_files == 1 {
                "file"
            } else {
                "files"
            };
            left_out.push(format!(
                "the diff of {} more new {files}",
                self.omitted_files
            ));
        }
        let limit = if full {
            format!("{} KiB", MAX_DIFF_BYTES / 1024)
        } else {
            format!("{MAX_NEW_FILE_DIFFS} new files")
        };
        text.push_str(&format!(
            "[the diff is cut at {limit}: {} not shown]\n",
            left_out.join(" and ")
        ));
        text
    }
}

/// Why a store could not be used. Messages say what failed and what to do,
/// with paths relative to the workspace.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The version-control program the store runs is not there.
    #[error("`{program}` is not installed or not on PATH; {hint}")]
    ProgramMissing {
        /// The program's name: `jj` or `git`.
        program: &'static str,
        /// How to install it, or how to do without it.
        hint: &'static str,
    },
    /// The program ran and failed (or timed out, or wrote too much).
    #[error("`{command}` failed: {detail}")]
    CommandFailed {
        /// The command line as shown to the user.
        command: String,
        /// What it said on stderr, or why it was stopped.
        detail: String,
    },
    /// The workspace is in no repository and no `--plan-file` was given.
    #[error(
        "the workspace is neither a Jujutsu nor a git repository, so there is nowhere to keep the plan; \
         run `jj git init` or `git init` in it, or start the server with `--plan-file PATH`"
    )]
    NoRepository,
    /// The repository is bare: no working tree to plan changes in.
    #[error(
        "the workspace is a bare git repository, which has no working tree to plan changes in; \
         start the server in a clone with a working tree, or with `--plan-file PATH`"
    )]
    BareRepository,
    /// Reading or writing the plan file failed.
    #[error("the plan file cannot be used: {0}")]
    File(FsError),
    /// The `--plan-file`'s folder does not exist; the store does not create
    /// folders, so a typo in the path is not silently accepted.
    #[error(
        "the plan file `{path}` cannot be kept: its folder `{folder}` does not exist in the workspace; \
         create the folder (`mkdir -p {folder}` in the workspace root), or choose a --plan-file in a folder that exists"
    )]
    PlanFolderMissing {
        /// The plan file's path, relative to the workspace.
        path: String,
        /// Its folder, relative to the workspace.
        folder: String,
    },
}

impl StoreError {
    /// Whether the same call may succeed if made again (a lock held by
    /// another process, a file changed meanwhile).
    pub fn retryable(&self) -> bool {
        matches!(self, StoreError::File(error) if error.retryable())
    }
}

/// Chooses the store for `workspace`: the plan file when one is given
/// (relative to the root, or absolute inside it), else Jujutsu when the
/// root is in a Jujutsu repository, else git when it is in a git repository.
pub fn detect(
    workspace: &Workspace,
    plan_file: Option<&Path>,
) -> Result<Box<dyn PlanStore>, StoreError> {
    if let Some(plan_file) = plan_file {
        return Ok(Box::new(FileStore::new(workspace.clone(), plan_file)?));
    }
    repository_store(workspace.root())?.ok_or(StoreError::NoRepository)
}

/// The store of the repository `root` is in: Jujutsu when it is in a
/// Jujutsu repository, else git when it is in a git work tree; `None` when
/// it is in neither.
pub(crate) fn repository_store(root: &Path) -> Result<Option<Box<dyn PlanStore>>, StoreError> {
    // Like jj itself, a folder inside a Jujutsu repository belongs to it.
    if let Some(repository) = root.ancestors().find(|folder| folder.join(".jj").is_dir()) {
        return Ok(Some(Box::new(JjStore::new(root, repository))));
    }
    Ok(GitStore::discover(root)?.map(|store| Box::new(store) as Box<dyn PlanStore>))
}
