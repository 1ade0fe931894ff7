//! `edit_note`'s changes to a note's body that do not resend it: append,
//! prepend, insert at the end of a heading's section, replace a section's
//! body, replace one occurrence of a text. Each is computed on the note's
//! text as it is on disk and touches only its own bytes: the frontmatter
//! block and every other line stay byte for byte, and the new text takes
//! the note's line ending (a CRLF note stays CRLF).
//!
//! Sections are the markdown grammar's headings (`parse_note`: ATX and
//! setext, never in code or comments): a heading's section runs to the next
//! heading of the same or a higher level, or to the end of the note.

use quire_grammar::markdown::{Heading, parse_note};

/// The longest text an edit inserts, in bytes (the note's own limit still
/// applies to the result).
pub const MAX_EDIT_TEXT_BYTES: usize = 1024 * 1024;

/// What `edit_note` does to a note's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BodyEdit {
    /// `text` after the last line of the note.
    Append {
        /// The text to add.
        text: String,
    },
    /// `text` before the first line of the body (after the frontmatter).
    Prepend {
        /// The text to add.
        text: String,
    },
    /// `text` after the last non-blank line of the section of the heading
    /// whose text is `heading`.
    InsertUnderHeading {
        /// The heading's text, as `read_metadata` lists it (`Tasks`, not
        /// `## Tasks`).
        heading: String,
        /// The text to add.
        text: String,
    },
    /// The body of the section of `heading` (the lines between the heading
    /// and the next heading of its level or higher) replaced by `text`; the
    /// blank lines before that next heading are kept.
    ReplaceSection {
        /// The heading's text.
        heading: String,
        /// The section's new body.
        text: String,
    },
    /// The one occurrence of `old_text` in the body replaced by `text`.
    ReplaceText {
        /// The text to find: it must occur exactly once in the body.
        old_text: String,
        /// What replaces it.
        text: String,
    },
}

impl BodyEdit {
    /// What the edit does, in words, for the approval question: `append to
    /// the body`, `insert under the heading `Tasks``, ...
    pub fn described(&self) -> String {
        match self {
            BodyEdit::Append { .. } => "append to the body".to_owned(),
            BodyEdit::Prepend { .. } => "prepend to the body".to_owned(),
            BodyEdit::InsertUnderHeading { heading, .. } => {
                format!("insert at the end of the section `{heading}`")
            }
            BodyEdit::ReplaceSection { heading, .. } => {
                format!("replace the body of the section `{heading}`")
            }
            BodyEdit::ReplaceText { .. } => "replace one occurrence of a text".to_owned(),
        }
    }

    fn text(&self) -> &str {
        match self {
            BodyEdit::Append { text }
            | BodyEdit::Prepend { text }
            | BodyEdit::InsertUnderHeading { text, .. }
            | BodyEdit::ReplaceSection { text, .. }
            | BodyEdit::ReplaceText { text, .. } => text,
        }
    }
}

/// Why an edit cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EditError {
    /// No heading has that text.
    #[error(
        "the note has no heading `{heading}`{}; give a heading's text as read_metadata lists it, without the `#` marks",
        listed(.headings)
    )]
    NoSuchHeading {
        /// The text asked for.
        heading: String,
        /// The note's headings (the first ones).
        headings: Vec<String>,
    },
    /// Several headings have that text.
    #[error(
        "{count} headings are `{heading}` (lines {}); edit by `replace_text` with a text only one section holds",
        .lines.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
    )]
    AmbiguousHeading {
        /// The text asked for.
        heading: String,
        /// How many.
        count: usize,
        /// Their lines.
        lines: Vec<usize>,
    },
    /// `old_text` does not occur exactly once.
    #[error(
        "`old_text` occurs {count} times in the note's body; it must occur exactly once: {}",
        if *.count == 0 { "copy it from read_note exactly (line breaks included)" } else { "give more of the text around it" }
    )]
    OldTextCount {
        /// How many times it occurs.
        count: usize,
    },
    /// `old_text` is empty.
    #[error("`old_text` is empty; give the text to replace, exactly as read_note shows it")]
    EmptyOldText,
    /// The text to insert is over [`MAX_EDIT_TEXT_BYTES`].
    #[error(
        "the text is {0} bytes, over the limit of {MAX_EDIT_TEXT_BYTES}; use update_note's `content` to replace the whole body"
    )]
    TextTooLong(usize),
}

fn listed(headings: &[String]) -> String {
    if headings.is_empty() {
        " (it has none)".to_owned()
    } else {
        format!(
            " (its headings: {})",
            headings
                .iter()
                .map(|h| format!("`{h}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// The note's body (`body` is the range of the text after its frontmatter
/// block) with `edit` made: the new body.
pub(crate) fn edited_body(
    note: &str,
    body: std::ops::Range<usize>,
    edit: &BodyEdit,
) -> Result<String, EditError> {
    if edit.text().len() > MAX_EDIT_TEXT_BYTES {
        return Err(EditError::TextTooLong(edit.text().len()));
    }
    let eol = if note.contains("\r\n") { "\r\n" } else { "\n" };
    let text = with_line_ending(edit.text(), eol);
    let old = &note[body.clone()];
    Ok(match edit {
        BodyEdit::Append { .. } => {
            let mut new = old.to_owned();
            if !new.is_empty() && !new.ends_with('\n') {
                new.push_str(eol);
            }
            new.push_str(&ending_line(&text, eol));
            new
        }
        BodyEdit::Prepend { .. } => format!("{}{old}", ending_line(&text, eol)),
        BodyEdit::InsertUnderHeading { heading, .. } => {
            let section = section(note, &body, heading)?;
            // After the section's last line that is not blank (the heading
            // itself when the section is empty).
            let content = &note[section.heading_end..section.end];
            let kept = content.trim_end_matches(['\n', '\r', ' ', '\t']).len();
            let at = section.heading_end + kept;
            let mut new = note[body.start..at].to_owned();
            if !new.ends_with('\n') {
                new.push_str(eol);
            }
            new.push_str(&ending_line(&text, eol));
            let rest = &note[at..body.end];
            // The line break that ended the section's last line is now the
            // new text's (an empty section has none of its own to give).
            let rest = if kept > 0 {
                rest.strip_prefix(eol).unwrap_or(rest)
            } else {
                rest
            };
            new.push_str(rest);
            new
        }
        BodyEdit::ReplaceSection { heading, .. } => {
            let section = section(note, &body, heading)?;
            let content = &note[section.heading_end..section.end];
            let blank_tail =
                content.len() - content.trim_end_matches(['\n', '\r', ' ', '\t']).len();
            // A section ending the note keeps its final line break only.
            let tail_start = section.end - blank_tail;
            let tail = &note[tail_start..section.end];
            // The line break that ended the old body's last line goes with
            // it (an empty section keeps its blank lines whole).
            let tail = if blank_tail < content.len() {
                tail.strip_prefix(eol).unwrap_or(tail)
            } else {
                tail
            };
            format!(
                "{}{}{}{}",
                &note[body.start..section.heading_end],
                ending_line(&text, eol),
                tail,
                &note[section.end..body.end]
            )
        }
        BodyEdit::ReplaceText { old_text, .. } => {
            if old_text.is_empty() {
                return Err(EditError::EmptyOldText);
            }
            let old_text = with_line_ending(old_text, eol);
            let count = old.matches(old_text.as_str()).count();
            if count != 1 {
                return Err(EditError::OldTextCount { count });
            }
            old.replacen(old_text.as_str(), &text, 1)
        }
    })
}

/// Where a heading's section lies in the note.
struct Section {
    /// Just after the heading's line (its line break included).
    heading_end: usize,
    /// The start of the next heading of its level or higher, or the body's
    /// end.
    end: usize,
}

fn section(note: &str, body: &std::ops::Range<usize>, wanted: &str) -> Result<Section, EditError> {
    let headings: Vec<Heading> = parse_note(note)
        .headings
        .into_iter()
        .filter(|heading| heading.span.start >= body.start)
        .collect();
    let wanted = wanted.trim().trim_start_matches('#').trim();
    let found: Vec<usize> = (0..headings.len())
        .filter(|at| headings[*at].text == wanted)
        .collect();
    let at = match found.as_slice() {
        [one] => *one,
        [] => {
            return Err(EditError::NoSuchHeading {
                heading: wanted.to_owned(),
                headings: headings.iter().take(20).map(|h| h.text.clone()).collect(),
            });
        }
        several => {
            return Err(EditError::AmbiguousHeading {
                heading: wanted.to_owned(),
                count: several.len(),
                lines: several.iter().map(|at| headings[*at].line).collect(),
            });
        }
    };
    let heading = &headings[at];
    // The heading's span may end before its line break or after it.
    let heading_end = if note[..heading.span.end].ends_with('\n') {
        heading.span.end
    } else {
        note[heading.span.end..]
            .find('\n')
            .map_or(note.len(), |newline| heading.span.end + newline + 1)
    }
    .min(body.end);
    let end = headings[at + 1..]
        .iter()
        .find(|next| next.level <= heading.level)
        .map_or(body.end, |next| next.span.start);
    Ok(Section { heading_end, end })
}

/// `text` with every line break written as `eol`.
fn with_line_ending(text: &str, eol: &str) -> String {
    let lf = text.replace("\r\n", "\n");
    if eol == "\n" {
        lf
    } else {
        lf.replace('\n', eol)
    }
}

/// `text` ending with a line break (added when it has none; an empty text
/// stays empty).
fn ending_line(text: &str, eol: &str) -> String {
    if text.is_empty() || text.ends_with('\n') {
        text.to_owned()
    } else {
        format!("{text}{eol}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(note: &str, edit: BodyEdit) -> Result<String, EditError> {
        let body = quire_grammar::frontmatter::parse(note)
            .map(|document| document.body.range())
            .unwrap();
        let new_body = edited_body(note, body.clone(), &edit)?;
        Ok(format!(
            "{}{new_body}{}",
            &note[..body.start],
            &note[body.end..]
        ))
    }

    const NOTE: &str =
        "---\ntags: [a]\n---\n# Plan\nIntro.\n\n## Tasks\n- one\n\n## Notes\nA note.\n";

    fn text(t: &str) -> String {
        t.to_owned()
    }

    #[test]
    fn each_operation_touches_only_its_own_bytes() {
        let cases = [
            (
                BodyEdit::Append {
                    text: text("- end"),
                },
                "---\ntags: [a]\n---\n# Plan\nIntro.\n\n## Tasks\n- one\n\n## Notes\nA note.\n- end\n",
            ),
            (
                BodyEdit::Prepend {
                    text: text("Top.\n"),
                },
                "---\ntags: [a]\n---\nTop.\n# Plan\nIntro.\n\n## Tasks\n- one\n\n## Notes\nA note.\n",
            ),
            (
                BodyEdit::InsertUnderHeading {
                    heading: text("Tasks"),
                    text: text("- two"),
                },
                "---\ntags: [a]\n---\n# Plan\nIntro.\n\n## Tasks\n- one\n- two\n\n## Notes\nA note.\n",
            ),
            (
                BodyEdit::InsertUnderHeading {
                    heading: text("## Notes"),
                    text: text("More."),
                },
                "---\ntags: [a]\n---\n# Plan\nIntro.\n\n## Tasks\n- one\n\n## Notes\nA note.\nMore.\n",
            ),
            // A level-1 heading's section holds its subsections.
            (
                BodyEdit::InsertUnderHeading {
                    heading: text("Plan"),
                    text: text("Last."),
                },
                "---\ntags: [a]\n---\n# Plan\nIntro.\n\n## Tasks\n- one\n\n## Notes\nA note.\nLast.\n",
            ),
            (
                BodyEdit::ReplaceSection {
                    heading: text("Tasks"),
                    text: text("- only\n- these"),
                },
                "---\ntags: [a]\n---\n# Plan\nIntro.\n\n## Tasks\n- only\n- these\n\n## Notes\nA note.\n",
            ),
            (
                BodyEdit::ReplaceSection {
                    heading: text("Notes"),
                    text: text("New."),
                },
                "---\ntags: [a]\n---\n# Plan\nIntro.\n\n## Tasks\n- one\n\n## Notes\nNew.\n",
            ),
            (
                BodyEdit::ReplaceText {
                    old_text: text("- one"),
                    text: text("- first"),
                },
                "---\ntags: [a]\n---\n# Plan\nIntro.\n\n## Tasks\n- first\n\n## Notes\nA note.\n",
            ),
        ];
        for (operation, expected) in cases {
            assert_eq!(
                edit(NOTE, operation.clone()).unwrap(),
                expected,
                "{operation:?}"
            );
        }
    }

    #[test]
    fn a_crlf_note_stays_crlf_and_a_note_without_frontmatter_works() {
        let crlf = NOTE.replace('\n', "\r\n");
        let edited = edit(
            &crlf,
            BodyEdit::InsertUnderHeading {
                heading: text("Tasks"),
                text: text("- two\n- three"),
            },
        )
        .unwrap();
        assert_eq!(
            edited,
            "---\r\ntags: [a]\r\n---\r\n# Plan\r\nIntro.\r\n\r\n## Tasks\r\n- one\r\n- two\r\n- three\r\n\r\n## Notes\r\nA note.\r\n"
        );
        let empty = "# A\n## Tasks\n\n## Notes\n";
        for operation in [
            BodyEdit::InsertUnderHeading {
                heading: text("Tasks"),
                text: text("- x"),
            },
            BodyEdit::ReplaceSection {
                heading: text("Tasks"),
                text: text("- x"),
            },
        ] {
            assert_eq!(
                edit(empty, operation).unwrap(),
                "# A\n## Tasks\n- x\n\n## Notes\n"
            );
        }
        let edited = edit("No newline", BodyEdit::Append { text: text("next") }).unwrap();
        assert_eq!(edited, "No newline\nnext\n");
        assert_eq!(
            edit("", BodyEdit::Append { text: text("x") }).unwrap(),
            "x\n"
        );
    }

    #[test]
    fn text_up_to_the_limit_is_taken_and_one_byte_more_is_refused() {
        let at_limit = "x".repeat(MAX_EDIT_TEXT_BYTES);
        let appended = edit(NOTE, BodyEdit::Append { text: at_limit }).unwrap();
        assert_eq!(appended.len(), NOTE.len() + MAX_EDIT_TEXT_BYTES + 1);
        let over = "x".repeat(MAX_EDIT_TEXT_BYTES + 1);
        let refused = edit(NOTE, BodyEdit::Prepend { text: over }).unwrap_err();
        assert_eq!(refused, EditError::TextTooLong(MAX_EDIT_TEXT_BYTES + 1));
        assert!(
            refused.to_string().contains("use update_note's `content`"),
            "{refused}"
        );
    }

    #[test]
    fn refusals_say_what_to_give() {
        let missing = edit(
            NOTE,
            BodyEdit::InsertUnderHeading {
                heading: text("Todo"),
                text: text("x"),
            },
        )
        .unwrap_err();
        assert!(
            missing.to_string().contains("`Plan`, `Tasks`, `Notes`"),
            "{missing}"
        );
        let twice = "# A\n## X\n1\n## X\n2\n";
        let ambiguous = edit(
            twice,
            BodyEdit::ReplaceSection {
                heading: text("X"),
                text: text("y"),
            },
        )
        .unwrap_err();
        assert_eq!(
            ambiguous,
            EditError::AmbiguousHeading {
                heading: text("X"),
                count: 2,
                lines: vec![2, 4]
            }
        );
        for (old, count) in [("nowhere", 0), ("\n", 8)] {
            let error = edit(
                NOTE,
                BodyEdit::ReplaceText {
                    old_text: text(old),
                    text: text("x"),
                },
            )
            .unwrap_err();
            assert_eq!(error, EditError::OldTextCount { count });
        }
        // The frontmatter is not the body: its text is not found there.
        let error = edit(
            NOTE,
            BodyEdit::ReplaceText {
                old_text: text("tags"),
                text: text("x"),
            },
        )
        .unwrap_err();
        assert_eq!(error, EditError::OldTextCount { count: 0 });
        // A heading inside a code block is no heading.
        let code = "# A\n```\n# B\n```\n";
        assert!(
            edit(
                code,
                BodyEdit::ReplaceSection {
                    heading: text("B"),
                    text: text("x")
                }
            )
            .is_err()
        );
    }
}
