//! What a write would do, worked out before it is done: the note, the
//! change, and the state of the note it was worked out on.
//!
//! A write the user must approve is previewed first (`KilnTools::
//! preview_create`, `preview_update`, `preview_delete`): every check the
//! write itself makes runs here, so a call that would be refused is
//! refused before anyone is asked. The preview's [`WritePreview::summary`]
//! is what the user is asked about, and the write applied after approval
//! is bound to the note's [`WritePreview::sha256`] and to the very file
//! ([`WritePreview::identity`]): a note that changed while the user was
//! deciding, or was swapped for another file (a link to another note with
//! the same bytes, say), is not overwritten with an approval given for
//! what it was before.

use std::fmt::Write as _;

use quire_grammar::diagnostics::one_line;

/// The most referring notes a summary names; the rest are counted.
const NAMED_BACKLINKS: usize = 10;

/// A write worked out but not done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WritePreview {
    /// The note's path (NFC, with `.md`).
    pub path: String,
    /// What the write changes.
    pub change: PlannedChange,
    /// The SHA-256 of the note as it is now (none for a note to be created,
    /// or one too large to read).
    pub sha256: Option<String>,
    /// Where the note leads when it is a symbolic link inside the root
    /// (root-relative): the file an update changes. `None` for a note that
    /// is its own file.
    pub link_target: Option<String>,
    /// The file the write acts on, as it was when previewed: the note's
    /// file for an update (after links), the note's entry itself for a
    /// delete (a link is moved, not what it leads to); `None` for a note
    /// to be created.
    pub identity: Option<FileIdentity>,
}

/// Which file a previewed write acts on and the state it was in: a write
/// approved from the preview is applied only to that file, unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileIdentity {
    /// The device the file is on.
    pub device: u64,
    /// Its inode number: with `device`, which file it is.
    pub inode: u64,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time (seconds and nanoseconds since the epoch).
    pub modified: (i64, i64),
}

/// What a previewed write changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlannedChange {
    /// A new note.
    Create {
        /// Its words.
        word_count: usize,
        /// Its size in bytes.
        bytes: usize,
    },
    /// An existing note's body, properties, or both, replaced.
    Update {
        /// Whether the body is replaced.
        content: bool,
        /// Whether the frontmatter block is replaced.
        frontmatter: bool,
        /// Its words afterwards.
        word_count: usize,
        /// The properties the new frontmatter leaves out, in key order.
        removed_properties: Vec<String>,
        /// The properties it gives another value, in key order.
        changed_properties: Vec<String>,
        /// A change to part of the body (`edit_note`), in words: `append to
        /// the body`, `replace the body of the section `Tasks``, ...
        edit: Option<String>,
    },
    /// A note moved (or renamed), the links to it rewritten.
    Move {
        /// Where it goes.
        new_path: String,
        /// The notes whose links are rewritten, each with how many of its
        /// links change, in path order.
        relinked: Vec<(String, usize)>,
    },
    /// A note deleted.
    Delete {
        /// Removed for good rather than moved into `.trash/`.
        permanent: bool,
        /// The notes that link to it.
        backlinks: Vec<String>,
        /// The notes whose link to it was one of several matches.
        ambiguous_backlinks: Vec<String>,
    },
}

impl WritePreview {
    /// One or two sentences saying exactly what will change, for the
    /// person asked to approve it.
    ///
    /// ```
    /// use quire_kiln::{PlannedChange, WritePreview};
    ///
    /// let preview = WritePreview {
    ///     path: "projects/Old plan.md".to_owned(),
    ///     change: PlannedChange::Delete {
    ///         permanent: false,
    ///         backlinks: vec!["index.md".to_owned()],
    ///         ambiguous_backlinks: vec![],
    ///     },
    ///     sha256: None,
    ///     link_target: None,
    ///     identity: None,
    /// };
    /// assert_eq!(
    ///     preview.summary(),
    ///     "Delete `projects/Old plan.md` (moved into .trash/, recoverable). \
    ///      1 note links to it, and its link will lead nowhere: index.md."
    /// );
    /// ```
    ///
    /// Names are shown on one line, with every character that could steer
    /// what the reader sees (a line feed, U+202E) escaped, so a file name
    /// cannot spoof the question.
    pub fn summary(&self) -> String {
        let path = shown_name(&self.path);
        let mut summary = self.change_sentence(&path);
        if let Some(target) = &self.link_target {
            let target = shown_name(target);
            let _ = match self.change {
                PlannedChange::Update { .. } => write!(
                    summary,
                    " `{path}` is a link: the file that changes is `{target}`."
                ),
                PlannedChange::Delete { .. } => write!(
                    summary,
                    " `{path}` is a link to `{target}`; only the link is moved, `{target}` is kept."
                ),
                PlannedChange::Create { .. } | PlannedChange::Move { .. } => Ok(()),
            };
        }
        summary
    }

    fn change_sentence(&self, path: &str) -> String {
        match &self.change {
            PlannedChange::Create { word_count, bytes } => {
                format!(
                    "Create the note `{path}` ({}, {}).",
                    counted(*word_count, "word", "words"),
                    counted(*bytes, "byte", "bytes")
                )
            }
            PlannedChange::Update {
                content,
                frontmatter,
                word_count,
                removed_properties,
                changed_properties,
                edit,
            } => {
                let properties_change =
                    !removed_properties.is_empty() || !changed_properties.is_empty();
                let what = match (content, frontmatter) {
                    (true, true) => "Replace the content and the frontmatter of",
                    (true, false) => "Replace the content of",
                    (false, true) => "Replace the frontmatter of",
                    // Single properties set or removed in place.
                    (false, false) => "Change properties of",
                };
                let kept = match (content, frontmatter) {
                    (true, false) if !properties_change => " (its frontmatter is kept)",
                    (false, true) => " (its content is kept)",
                    (false, false) => " (its content and its other properties are kept)",
                    _ => "",
                };
                let mut text = match edit {
                    Some(edit) => format!(
                        "Edit `{path}`: {edit} (its frontmatter and every other line are kept); it will hold {}.",
                        counted(*word_count, "word", "words")
                    ),
                    None => format!(
                        "{what} `{path}`{kept}; it will hold {}.",
                        counted(*word_count, "word", "words")
                    ),
                };
                if !removed_properties.is_empty() {
                    let _ = write!(
                        text,
                        " It removes {}: {}.",
                        counted(removed_properties.len(), "property", "properties"),
                        named(removed_properties)
                    );
                }
                if !changed_properties.is_empty() {
                    let _ = write!(
                        text,
                        " It changes {}: {}.",
                        counted(changed_properties.len(), "property", "properties"),
                        named(changed_properties)
                    );
                }
                text
            }
            PlannedChange::Move { new_path, relinked } => {
                let mut text = format!("Move `{path}` to `{}`.", shown_name(new_path));
                if relinked.is_empty() {
                    text.push_str(" No link needs to change.");
                } else {
                    let links: usize = relinked.iter().map(|(_, links)| links).sum();
                    let named_notes: Vec<String> = relinked
                        .iter()
                        .map(|(note, links)| match links {
                            1 => note.clone(),
                            n => format!("{note} ({n} links)"),
                        })
                        .collect();
                    let _ = write!(
                        text,
                        " {} in {} will be rewritten to keep leading where they led: {}.",
                        counted(links, "link", "links"),
                        counted(relinked.len(), "note", "notes"),
                        named(&named_notes)
                    );
                }
                text
            }
            PlannedChange::Delete {
                permanent,
                backlinks,
                ambiguous_backlinks,
            } => {
                let mut text = if *permanent {
                    format!("Delete `{path}` for good (removed, not recoverable).")
                } else {
                    format!("Delete `{path}` (moved into .trash/, recoverable).")
                };
                match backlinks.len() {
                    0 => text.push_str(" No note links to it."),
                    1 => text.push_str(" 1 note links to it, and its link will lead nowhere: "),
                    n => {
                        let _ = write!(
                            text,
                            " {n} notes link to it, and their links will lead nowhere: "
                        );
                    }
                }
                if !backlinks.is_empty() {
                    text.push_str(&named(backlinks));
                    text.push('.');
                }
                if !ambiguous_backlinks.is_empty() {
                    let _ = write!(
                        text,
                        " {} with a link that matched it among several notes: {}.",
                        counted(ambiguous_backlinks.len(), "note", "notes"),
                        named(ambiguous_backlinks)
                    );
                }
                text
            }
        }
    }

    /// The change's name in a result: `created`, `updated` or `deleted`.
    pub fn verb(&self) -> &'static str {
        match self.change {
            PlannedChange::Create { .. } => "created",
            PlannedChange::Update { .. } => "updated",
            PlannedChange::Delete { .. } => "deleted",
            PlannedChange::Move { .. } => "moved",
        }
    }
}

fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A note's path as a question shows it: on one line, control and
/// direction characters escaped, a backtick (which would end the quote)
/// shown as `'`.
fn shown_name(path: &str) -> String {
    one_line(&path.replace('`', "'")).into_owned()
}

/// The first [`NAMED_BACKLINKS`] paths, then how many more.
fn named(paths: &[String]) -> String {
    let mut text = paths
        .iter()
        .take(NAMED_BACKLINKS)
        .map(|path| shown_name(path))
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > NAMED_BACKLINKS {
        let _ = write!(text, " and {} more", paths.len() - NAMED_BACKLINKS);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preview(change: PlannedChange) -> WritePreview {
        WritePreview {
            path: "a/Note.md".to_owned(),
            change,
            sha256: None,
            link_target: None,
            identity: None,
        }
    }

    #[test]
    fn summaries_say_what_will_change() {
        let cases = [
            (
                PlannedChange::Create {
                    word_count: 1,
                    bytes: 7,
                },
                "Create the note `a/Note.md` (1 word, 7 bytes).",
            ),
            (
                PlannedChange::Update {
                    content: true,
                    frontmatter: false,
                    word_count: 3,
                    removed_properties: vec![],
                    changed_properties: vec![],
                    edit: None,
                },
                "Replace the content of `a/Note.md` (its frontmatter is kept); it will hold 3 words.",
            ),
            (
                PlannedChange::Update {
                    content: false,
                    frontmatter: true,
                    word_count: 3,
                    removed_properties: vec![],
                    changed_properties: vec![],
                    edit: None,
                },
                "Replace the frontmatter of `a/Note.md` (its content is kept); it will hold 3 words.",
            ),
            (
                PlannedChange::Update {
                    content: false,
                    frontmatter: true,
                    word_count: 1,
                    removed_properties: vec!["aliases".into(), "tags".into()],
                    changed_properties: vec!["status".into()],
                    edit: None,
                },
                "Replace the frontmatter of `a/Note.md` (its content is kept); it will hold 1 word. It removes 2 \
                 properties: aliases, tags. It changes 1 property: status.",
            ),
            (
                PlannedChange::Update {
                    content: true,
                    frontmatter: true,
                    word_count: 0,
                    removed_properties: vec![],
                    changed_properties: vec![],
                    edit: None,
                },
                "Replace the content and the frontmatter of `a/Note.md`; it will hold 0 words.",
            ),
            (
                PlannedChange::Update {
                    content: false,
                    frontmatter: false,
                    word_count: 5,
                    removed_properties: vec![],
                    changed_properties: vec![],
                    edit: Some("insert at the end of the section `Tasks`".into()),
                },
                "Edit `a/Note.md`: insert at the end of the section `Tasks` (its frontmatter and every other \
                 line are kept); it will hold 5 words.",
            ),
            (
                PlannedChange::Delete {
                    permanent: true,
                    backlinks: vec![],
                    ambiguous_backlinks: vec![],
                },
                "Delete `a/Note.md` for good (removed, not recoverable). No note links to it.",
            ),
            (
                PlannedChange::Delete {
                    permanent: false,
                    backlinks: vec!["x.md".into(), "y.md".into()],
                    ambiguous_backlinks: vec!["z.md".into()],
                },
                "Delete `a/Note.md` (moved into .trash/, recoverable). 2 notes link to it, and their links will \
                 lead nowhere: x.md, y.md. 1 note with a link that matched it among several notes: z.md.",
            ),
        ];
        for (change, expected) in cases {
            assert_eq!(preview(change).summary(), expected);
        }
    }

    #[test]
    fn a_long_list_of_backlinks_is_cut_and_counted() {
        let backlinks: Vec<String> = (0..13).map(|n| format!("n{n}.md")).collect();
        let summary = preview(PlannedChange::Delete {
            permanent: false,
            backlinks,
            ambiguous_backlinks: vec![],
        })
        .summary();
        assert!(summary.contains("13 notes link to it"), "{summary}");
        assert!(summary.ends_with("n8.md, n9.md and 3 more."), "{summary}");
        assert!(!summary.contains("n10.md"), "{summary}");
    }
}

#[cfg(test)]
mod spoofing_tests {
    use super::*;

    #[test]
    fn a_name_cannot_spoof_the_question() {
        let preview = WritePreview {
            path: "a\nApprove: harmless.md\u{202e}dm.txt".to_owned(),
            change: PlannedChange::Delete {
                permanent: true,
                backlinks: vec!["x`y\r.md".to_owned()],
                ambiguous_backlinks: vec![],
            },
            sha256: None,
            link_target: None,
            identity: None,
        };
        assert_eq!(
            preview.summary(),
            "Delete `a\\nApprove: harmless.md\\u{202e}dm.txt` for good (removed, not recoverable). 1 note links \
             to it, and its link will lead nowhere: x'y\\r.md."
        );
    }

    #[test]
    fn a_link_names_the_file_that_changes() {
        let update = WritePreview {
            path: "innocent.md".to_owned(),
            change: PlannedChange::Update {
                content: true,
                frontmatter: false,
                word_count: 2,
                removed_properties: vec![],
                changed_properties: vec![],
                edit: None,
            },
            sha256: None,
            link_target: Some("contract.md".to_owned()),
            identity: None,
        };
        assert_eq!(
            update.summary(),
            "Replace the content of `innocent.md` (its frontmatter is kept); it will hold 2 words. `innocent.md` \
             is a link: the file that changes is `contract.md`."
        );
        let delete = WritePreview {
            change: PlannedChange::Delete {
                permanent: false,
                backlinks: vec![],
                ambiguous_backlinks: vec![],
            },
            ..update
        };
        assert!(
            delete.summary().ends_with(
                "`innocent.md` is a link to `contract.md`; only the link is moved, `contract.md` is kept."
            ),
            "{}",
            delete.summary()
        );
    }
}
