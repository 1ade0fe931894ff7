//! Why a tool's path argument names no note or folder of the kiln: one error
//! type whose every message says what was wrong and what to write instead,
//! so a model can correct its next call.
//!
//! The argument is quoted on one line with terminal-steering characters
//! escaped and clipped to [`MAX_SHOWN_CHARS`], since it comes from outside.

use quire_grammar::diagnostics::one_line;

/// The most characters of an argument an error quotes; the rest is `…`.
pub(crate) const MAX_SHOWN_CHARS: usize = 200;

/// Why a path argument was refused by [`NotePath::parse`](super::NotePath::parse)
/// or [`FolderPath::parse`](super::FolderPath::parse).
///
/// Every `path` field is the argument as the caller wrote it, escaped and
/// clipped for display (never the kiln root's absolute path).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// The argument was the empty string where a note was asked for.
    #[error(
        "the path is empty; give the note's path relative to the kiln root, such as \
         `projects/plan.md` (`.md` may be left out)"
    )]
    Empty,
    /// The argument contains a NUL byte, which no file name can hold.
    #[error("`{path}` contains a NUL byte, which no file name can hold; remove it")]
    NulByte {
        /// The argument, for display.
        path: String,
    },
    /// The argument separates folders with `\`.
    #[error("`{path}` separates folders with `\\`; separate them with `/`, as in `{instead}`")]
    Backslash {
        /// The argument, for display.
        path: String,
        /// The argument with every `\` written as `/`, for display.
        instead: String,
    },
    /// The argument starts with a Windows drive such as `C:`.
    #[error(
        "`{path}` starts with the Windows drive `{drive}`; give the path relative to the kiln \
         root, with `/` between folders, such as `projects/plan.md`"
    )]
    DrivePrefix {
        /// The argument, for display.
        path: String,
        /// The drive, such as `C:`.
        drive: String,
    },
    /// The argument is an absolute path that is not inside the kiln root.
    #[error(
        "`{path}` is an absolute path outside the kiln; give a path relative to the kiln root{}",
        relative_hint(.relative)
    )]
    OutsideRoot {
        /// The argument, for display.
        path: String,
        /// The argument without its leading `/`s, for display: what the
        /// caller may have meant.
        relative: String,
    },
    /// A `..` in the argument climbs above the kiln root.
    #[error(
        "`{path}` climbs above the kiln root with `..`; give a path inside the kiln, relative \
         to its root"
    )]
    EscapesRoot {
        /// The argument, for display.
        path: String,
    },
    /// The argument goes into (or names) a hidden file or folder.
    #[error(
        "`{path}` goes through `{segment}`, a hidden name (starting with `.`, like `.obsidian`, \
         `.git`, `.trash` or `.quire`); the kiln tools never read those, so give the path of a \
         note outside them"
    )]
    Hidden {
        /// The argument, for display.
        path: String,
        /// The first hidden file or folder name, for display.
        segment: String,
    },
    /// The argument names a folder (it ends with `/`, `.` or `..`, or is
    /// the root) where a note was asked for.
    #[error(
        "`{path}` names a folder, not a note; give the note's path ending with its file name, \
         such as `projects/plan.md`"
    )]
    NotANote {
        /// The argument, for display.
        path: String,
    },
    /// The note's name ends with whitespace (`plan `, `plan.md `), which
    /// would otherwise become part of its file name (`plan .md`,
    /// `plan.md .md`).
    #[error(
        "`{path}` ends with whitespace, which would become part of the note's file name; remove the trailing \
         whitespace, as in `{instead}`"
    )]
    TrailingWhitespace {
        /// The argument, for display.
        path: String,
        /// The argument without its trailing whitespace, for display.
        instead: String,
    },
    /// The path, as normalized (`.md` added), is longer than
    /// [`MAX_PATH_BYTES`](super::MAX_PATH_BYTES).
    #[error(
        "`{path}` is {length} bytes long, over the limit of {max} bytes for a path; give a \
         shorter path"
    )]
    PathTooLong {
        /// The argument, for display.
        path: String,
        /// Its length in bytes (of the argument when it is too long to
        /// normalize, else of the normalized path).
        length: usize,
        /// The limit.
        max: usize,
    },
    /// One file or folder name is longer than
    /// [`MAX_SEGMENT_BYTES`](super::MAX_SEGMENT_BYTES).
    #[error(
        "`{path}` has a file or folder name of {length} bytes (`{segment}`), over the limit of \
         {max} bytes for one name; shorten that name"
    )]
    SegmentTooLong {
        /// The argument, for display.
        path: String,
        /// The name, for display.
        segment: String,
        /// Its length in bytes (with `.md` when it is the note's file name).
        length: usize,
        /// The limit.
        max: usize,
    },
}

fn relative_hint(relative: &str) -> String {
    if relative.is_empty() {
        " (an empty path is the root itself)".to_owned()
    } else {
        format!(" (if you meant the kiln's own folder, write `{relative}`)")
    }
}

/// `text` as an error quotes it: on one line, escaped, clipped.
pub(super) fn shown(text: &str) -> String {
    let clipped = match text.char_indices().nth(MAX_SHOWN_CHARS) {
        Some((end, _)) => &text[..end],
        None => text,
    };
    let mut shown = one_line(clipped).into_owned();
    if clipped.len() < text.len() {
        shown.push('…');
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_escapes_and_clips() {
        assert_eq!(shown("a\u{1b}[2Jb\nc"), "a\\u{1b}[2Jb\\nc");
        let long = "é".repeat(MAX_SHOWN_CHARS + 5);
        let clipped = shown(&long);
        assert_eq!(clipped.chars().count(), MAX_SHOWN_CHARS + 1);
        assert!(clipped.ends_with('…'));
        assert_eq!(shown("short"), "short");
    }

    #[test]
    fn outside_root_says_what_was_meant() {
        let error = PathError::OutsideRoot {
            path: "/projects/a.md".into(),
            relative: "projects/a.md".into(),
        };
        assert!(
            error.to_string().contains("write `projects/a.md`"),
            "{error}"
        );
        let error = PathError::OutsideRoot {
            path: "/".into(),
            relative: String::new(),
        };
        assert!(
            error.to_string().contains("an empty path is the root"),
            "{error}"
        );
    }
}
