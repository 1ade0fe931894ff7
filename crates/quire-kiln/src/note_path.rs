//! Note and folder paths as the kiln tools take them: validated,
//! root-relative, `/`-separated and NFC-normalized, so that two spellings of
//! one note (`./a//b`, an NFD name from macOS, `b` for `b.md`) are one
//! value, and nothing that leaves the root or enters a hidden folder can be
//! written as one.
//!
//! The `.` and `..` segments are resolved lexically, by hand: std's
//! [`Path::components`] keeps `..`, and the path-cleaning crates neither
//! refuse a `..` above the root nor say why a path was refused. Lexical
//! resolution is sound here because the resolved path is what the confined
//! file layer then walks (one folder at a time, links checked), never the
//! argument.

use std::borrow::Cow;
use std::fmt;
use std::path::{Component, Path};

use serde::Serialize;
use unicode_normalization::{UnicodeNormalization, is_nfc};

use super::error::{PathError, shown};

/// The longest path, in bytes, a note or folder path may have (Linux's
/// `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;

/// The longest file or folder name, in bytes (`NAME_MAX` of Linux, macOS
/// and Windows file systems).
pub const MAX_SEGMENT_BYTES: usize = 255;

/// The extension of a note's file name.
const NOTE_EXTENSION: &str = ".md";

/// How many times [`MAX_PATH_BYTES`] an argument may be before it is refused
/// unread: NFC can shrink a decomposed Hangul name to a third, so a valid
/// path written decomposed may be about 3 times the limit.
const ARGUMENT_SLACK: usize = 4;

/// A note's path in the kiln: relative to the root, `/` between names, no
/// `.`, `..`, empty or hidden segment, NFC-normalized, ending with `.md`.
///
/// Ordered (and compared) by its bytes, which is how `list_notes` sorts.
///
/// ```
/// use std::path::Path;
/// use quire_kiln::NotePath;
///
/// let root = Path::new("/vault");
/// let note = NotePath::parse("./projects//plan", root)?;
/// assert_eq!(note.as_str(), "projects/plan.md");
/// assert_eq!(note.stem(), "plan");
/// assert_eq!(NotePath::parse("/vault/projects/plan.md", root)?, note);
/// assert!(NotePath::parse("../secrets", root).is_err());
/// # Ok::<(), quire_kiln::PathError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct NotePath(String);

/// A folder of the kiln, as `list_notes {folder}` takes it: like a
/// [`NotePath`] but without `.md` added, and the empty path is the root.
///
/// ```
/// use std::path::Path;
/// use quire_kiln::{FolderPath, NotePath};
///
/// let root = Path::new("/vault");
/// let folder = FolderPath::parse("projects/", root)?;
/// assert_eq!(folder.as_str(), "projects");
/// assert!(folder.contains(&NotePath::parse("projects/2024/plan", root)?));
/// assert!(FolderPath::parse("", root)?.is_root());
/// # Ok::<(), quire_kiln::PathError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct FolderPath(String);

/// What a path argument must name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Names {
    Note,
    Folder,
}

/// What a `..` above the top does while resolving lexically.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum AboveTop {
    /// Nothing, as in the kernel at `/`.
    Stay,
    /// The path is refused.
    Refuse,
}

impl NotePath {
    /// Reads a tool's path argument: relative to the kiln `root`, or
    /// absolute inside it (`root` is the root's canonical path, as the
    /// file layer's `Workspace::root` gives it); `.md` is added
    /// when the name does not end with it (in any case).
    ///
    /// Refused, each with its [`PathError`]: the empty string, NUL bytes,
    /// `\` separators, Windows drives, absolute paths outside `root`, a `..`
    /// above the root, hidden names (any starting with `.`), a path that
    /// names a folder (ending with `/`, `.` or `..`), a name that ends
    /// with whitespace (`plan `, `plan.md `), and paths or names
    /// over [`MAX_PATH_BYTES`] or [`MAX_SEGMENT_BYTES`].
    ///
    /// ```
    /// use std::path::Path;
    /// use quire_kiln::{NotePath, PathError};
    ///
    /// let root = Path::new("/vault");
    /// assert_eq!(NotePath::parse("a/../b", root)?.as_str(), "b.md");
    /// assert!(matches!(NotePath::parse(".obsidian/app.json", root), Err(PathError::Hidden { .. })));
    /// assert!(matches!(NotePath::parse("notes\\a.md", root), Err(PathError::Backslash { .. })));
    /// # Ok::<(), PathError>(())
    /// ```
    pub fn parse(arg: &str, root: &Path) -> Result<NotePath, PathError> {
        normalize(arg, Some(root), Names::Note).map(NotePath)
    }

    /// Like [`NotePath::parse`] without a root: every absolute path is
    /// refused. For paths that are relative by construction, such as those
    /// a walk of the kiln finds.
    ///
    /// ```
    /// use quire_kiln::NotePath;
    ///
    /// // macOS writes names decomposed (NFD); the path is composed (NFC).
    /// let note = NotePath::parse_relative("cafe\u{301}/menu")?;
    /// assert_eq!(note.as_str(), "caf\u{e9}/menu.md");
    /// assert!(NotePath::parse_relative("/etc/passwd").is_err());
    /// # Ok::<(), quire_kiln::PathError>(())
    /// ```
    pub fn parse_relative(arg: &str) -> Result<NotePath, PathError> {
        normalize(arg, None, Names::Note).map(NotePath)
    }

    /// The path: `projects/plan.md`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The file name: `plan.md`.
    ///
    /// ```
    /// let note = quire_kiln::NotePath::parse_relative("projects/plan")?;
    /// assert_eq!(note.file_name(), "plan.md");
    /// # Ok::<(), quire_kiln::PathError>(())
    /// ```
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }

    /// The file name without its `.md`: `plan`, the name a bare wikilink
    /// (`[[plan]]`) uses.
    pub fn stem(&self) -> &str {
        let name = self.file_name();
        &name[..name.len() - NOTE_EXTENSION.len()]
    }

    /// The folder the note is in (the root for a note at the top).
    ///
    /// ```
    /// let note = quire_kiln::NotePath::parse_relative("projects/plan")?;
    /// assert_eq!(note.folder().as_str(), "projects");
    /// # Ok::<(), quire_kiln::PathError>(())
    /// ```
    pub fn folder(&self) -> FolderPath {
        FolderPath(self.folder_str().to_owned())
    }

    /// The folder part of the path, `""` at the root.
    pub(super) fn folder_str(&self) -> &str {
        self.0.rsplit_once('/').map_or("", |(folder, _)| folder)
    }
}

impl FolderPath {
    /// The kiln root (the empty path).
    pub fn root() -> FolderPath {
        FolderPath::default()
    }

    /// Reads a tool's folder argument as [`NotePath::parse`] reads a note's,
    /// except that no `.md` is added, a trailing `/` is allowed, and the
    /// empty path (or `.`, or `root` itself) is the root.
    ///
    /// ```
    /// use std::path::Path;
    /// use quire_kiln::{FolderPath, PathError};
    ///
    /// let root = Path::new("/vault");
    /// assert_eq!(FolderPath::parse("/vault/daily/", root)?.as_str(), "daily");
    /// assert!(matches!(FolderPath::parse("/", root), Err(PathError::OutsideRoot { .. })));
    /// # Ok::<(), PathError>(())
    /// ```
    pub fn parse(arg: &str, root: &Path) -> Result<FolderPath, PathError> {
        normalize(arg, Some(root), Names::Folder).map(FolderPath)
    }

    /// Like [`FolderPath::parse`] without a root: every absolute path is
    /// refused.
    pub fn parse_relative(arg: &str) -> Result<FolderPath, PathError> {
        normalize(arg, None, Names::Folder).map(FolderPath)
    }

    /// The path: `projects/2024`, or `""` for the root.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is the kiln root.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `note` is in this folder or any folder beneath it (a
    /// recursive `list_notes`).
    ///
    /// ```
    /// use quire_kiln::{FolderPath, NotePath};
    ///
    /// let folder = FolderPath::parse_relative("projects")?;
    /// assert!(folder.contains(&NotePath::parse_relative("projects/2024/plan")?));
    /// assert!(!folder.contains(&NotePath::parse_relative("projects-old/plan")?));
    /// # Ok::<(), quire_kiln::PathError>(())
    /// ```
    pub fn contains(&self, note: &NotePath) -> bool {
        self.is_root()
            || note
                .as_str()
                .strip_prefix(self.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
    }

    /// Whether `note` is in this folder itself, not in a folder beneath it
    /// (a `list_notes` with `recursive: false`).
    ///
    /// ```
    /// use quire_kiln::{FolderPath, NotePath};
    ///
    /// let folder = FolderPath::parse_relative("projects")?;
    /// assert!(folder.contains_directly(&NotePath::parse_relative("projects/plan")?));
    /// assert!(!folder.contains_directly(&NotePath::parse_relative("projects/2024/plan")?));
    /// # Ok::<(), quire_kiln::PathError>(())
    /// ```
    pub fn contains_directly(&self, note: &NotePath) -> bool {
        note.folder_str() == self.as_str()
    }
}

impl fmt::Display for NotePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for FolderPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for NotePath {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for FolderPath {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// Whether a path relative to the kiln root goes into (or names) a hidden
/// file or folder: any name starting with `.`, such as `.obsidian`, `.git`,
/// `.trash` or `.quire`. Listing and search skip those; `.` and `..`
/// themselves are not names.
///
/// ```
/// use quire_kiln::is_hidden;
///
/// assert!(is_hidden(".obsidian/workspace.json"));
/// assert!(is_hidden("projects/.trash/old.md"));
/// assert!(!is_hidden("./projects/plan.md"));
/// ```
pub fn is_hidden(relative: impl AsRef<Path>) -> bool {
    relative
        .as_ref()
        .components()
        .any(|component| match component {
            Component::Normal(name) => is_hidden_name(name.as_encoded_bytes()),
            _ => false,
        })
}

fn is_hidden_name(name: &[u8]) -> bool {
    name.first() == Some(&b'.')
}

/// The names of `path` with `.` and empty segments dropped and each `..`
/// taking back the name before it; `None` when a `..` climbs above the top
/// and `above_top` refuses that.
pub(super) fn lexical_segments(path: &str, above_top: AboveTop) -> Option<Vec<&str>> {
    let mut segments = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                if segments.pop().is_none() && above_top == AboveTop::Refuse {
                    return None;
                }
            }
            name => segments.push(name),
        }
    }
    Some(segments)
}

/// Whether a file name ends with `.md`, in any case (`Plan.MD` is a note).
pub(super) fn has_note_extension(name: &str) -> bool {
    name.len() >= NOTE_EXTENSION.len()
        && name.as_bytes()[name.len() - NOTE_EXTENSION.len()..]
            .eq_ignore_ascii_case(NOTE_EXTENSION.as_bytes())
}

/// `text` in Unicode normalization form C, borrowed when it already is.
pub(super) fn nfc(text: &str) -> Cow<'_, str> {
    if is_nfc(text) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfc().collect())
    }
}

/// The whole check-and-normalize of a path argument.
fn normalize(arg: &str, root: Option<&Path>, names: Names) -> Result<String, PathError> {
    if arg.is_empty() {
        return match names {
            Names::Note => Err(PathError::Empty),
            Names::Folder => Ok(String::new()),
        };
    }
    refuse_foreign_syntax(arg, root)?;
    let arg_nfc = nfc(arg);
    let segments = if arg_nfc.starts_with('/') {
        inside_root(&arg_nfc, root).ok_or_else(|| PathError::OutsideRoot {
            path: shown(arg),
            relative: shown(arg.trim_start_matches('/')),
        })?
    } else {
        lexical_segments(&arg_nfc, AboveTop::Refuse)
            .ok_or_else(|| PathError::EscapesRoot { path: shown(arg) })?
    };
    refuse_names(arg, &segments)?;
    let mut path = segments.join("/");
    if names == Names::Note {
        let last = arg_nfc.rsplit('/').next().unwrap_or_default();
        if segments.is_empty() || matches!(last, "" | "." | "..") {
            return Err(PathError::NotANote { path: shown(arg) });
        }
        add_note_extension(arg, &mut path)?;
    }
    check_lengths(arg, &path)?;
    Ok(path)
}

/// Refuses a drive as the first name and any hidden name of a path
/// already resolved.
fn refuse_names(arg: &str, segments: &[&str]) -> Result<(), PathError> {
    // `./C:/a` would otherwise become `C:/a`, which reads back as a drive.
    if let Some(drive) = segments
        .first()
        .filter(|name| drive_prefix(name) == Some(**name))
    {
        return Err(PathError::DrivePrefix {
            path: shown(arg),
            drive: (*drive).to_owned(),
        });
    }
    if let Some(hidden) = segments.iter().find(|name| is_hidden_name(name.as_bytes())) {
        return Err(PathError::Hidden {
            path: shown(arg),
            segment: shown(hidden),
        });
    }
    Ok(())
}

/// Adds `.md` to a note's path that does not end with it, unless the name
/// ends with whitespace (a slip, not a name: `b ` would become `b .md`, and
/// `b.md ` would become `b.md .md`).
fn add_note_extension(arg: &str, path: &mut String) -> Result<(), PathError> {
    if has_note_extension(path) {
        return Ok(());
    }
    if path.ends_with(char::is_whitespace) {
        return Err(PathError::TrailingWhitespace {
            path: shown(arg),
            instead: shown(arg.trim_end()),
        });
    }
    path.push_str(NOTE_EXTENSION);
    Ok(())
}

/// Refuses what cannot be a path of a Unix kiln at all, before anything is
/// normalized: a huge argument, NUL bytes, Windows drives and separators.
fn refuse_foreign_syntax(arg: &str, root: Option<&Path>) -> Result<(), PathError> {
    let longest = MAX_PATH_BYTES * ARGUMENT_SLACK + root.map_or(0, |root| root.as_os_str().len());
    if arg.len() > longest {
        return Err(PathError::PathTooLong {
            path: shown(arg),
            length: arg.len(),
            max: MAX_PATH_BYTES,
        });
    }
    if arg.contains('\0') {
        return Err(PathError::NulByte { path: shown(arg) });
    }
    if let Some(drive) = drive_prefix(arg) {
        return Err(PathError::DrivePrefix {
            path: shown(arg),
            drive: drive.to_owned(),
        });
    }
    if arg.contains('\\') {
        return Err(PathError::Backslash {
            path: shown(arg),
            instead: shown(&arg.replace('\\', "/")),
        });
    }
    Ok(())
}

/// `C:` when the argument starts with a drive letter, a colon, and a
/// separator or nothing (`C:\`, `C:/`, `C:`). `C:notes` stays a name: a
/// colon is legal in a Unix file name.
fn drive_prefix(arg: &str) -> Option<&str> {
    match arg.as_bytes() {
        [letter, b':', rest @ ..]
            if letter.is_ascii_alphabetic()
                && matches!(rest.first(), None | Some(b'/' | b'\\')) =>
        {
            Some(&arg[..2])
        }
        _ => None,
    }
}

/// The names of an absolute `path` below `root`, or `None` when it is not
/// inside `root` (or there is no root to be inside).
fn inside_root<'a>(path: &'a str, root: Option<&Path>) -> Option<Vec<&'a str>> {
    let root = nfc(root?.to_str()?).into_owned();
    let root_segments = lexical_segments(&root, AboveTop::Stay)?;
    if !root.starts_with('/') {
        return None;
    }
    let segments = lexical_segments(path, AboveTop::Stay)?;
    segments
        .starts_with(&root_segments)
        .then(|| segments[root_segments.len()..].to_vec())
}

/// Refuses a normalized path, or one of its names, over the limits.
fn check_lengths(arg: &str, path: &str) -> Result<(), PathError> {
    if let Some(long) = path.split('/').find(|name| name.len() > MAX_SEGMENT_BYTES) {
        return Err(PathError::SegmentTooLong {
            path: shown(arg),
            segment: shown(long),
            length: long.len(),
            max: MAX_SEGMENT_BYTES,
        });
    }
    if path.len() > MAX_PATH_BYTES {
        return Err(PathError::PathTooLong {
            path: shown(arg),
            length: path.len(),
            max: MAX_PATH_BYTES,
        });
    }
    Ok(())
}

#[cfg(test)]
#[path = "note_path_tests.rs"]
mod tests;
