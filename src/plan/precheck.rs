//! A cheap look at a text before the plan parse: can its body hold a
//! constraint or a task at all?
//!
//! A commit message checked with the conventional rules is also checked as
//! a plan when its body holds plan sections (constraints, tasks), and most
//! bodies hold none. [`may_hold_sections`] answers without the parse: the
//! plan grammar takes constraints and tasks only from lines that its line
//! rules read as a `constraint` or a `task` (`grammar/plan.ebnf`), so a
//! body with no such line has neither, whatever the rest of the parse
//! finds. The lines are read with the parser's own classification
//! (`classify`), so the grammar's knowledge of what a task or a constraint
//! is stays in one place; most lines are settled by their first byte.

use super::classify::{LineSyntax, PlanLine, classify};
use super::config::ParserConfig;
use super::lines::{Lines, end_without_line_ending};

/// Whether the plan parse of `text` with `config` may find constraints or
/// tasks. `false` only when it certainly finds neither: no line after the
/// header is a `constraint` or a `task` of `config`'s syntaxes. `true`
/// does not promise any (the parse may halt before them, or the lines may
/// sit where the grammar reads them as something else): then parse to
/// know.
///
/// Reads every line once, the header excepted, and allocates nothing.
///
/// ```
/// use quire_grammar::plan::{may_hold_sections, parse, ParserConfig};
///
/// let config = ParserConfig::COMMIT_MESSAGE;
/// let prose = "fix(io): Retry\n\nFlaky disks.\n- a list\n\nSigned-off-by: A <a@example.com>\n";
/// assert!(!may_hold_sections(prose, &config));
/// let plan = "fix(io): Retry\n\nFlaky disks.\n- Never: skip tests\n- [ ]: Add a retry\n";
/// assert!(may_hold_sections(plan, &config));
/// assert!(parse(plan, &config).document.tasks.is_some());
/// ```
// plan.ebnf: document, body (the constraint and task lines of
// constraints and tasks)
pub fn may_hold_sections(text: &str, config: &ParserConfig) -> bool {
    let syntax = LineSyntax::from(config);
    // The lines the parser reads: after a byte-order mark, up to the text
    // without its last line ending; the first is the header.
    let start = if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    let mut lines = Lines::new(text, start, end_without_line_ending(text));
    lines.next();
    lines.any(|line| {
        matches!(
            classify(text, line, syntax),
            PlanLine::Constraint(_) | PlanLine::Task(_)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_line_anywhere_after_the_header_counts() {
        let config = ParserConfig::COMMIT_MESSAGE;
        for text in [
            "f(s): t\n\n- [ ]: a",
            "f(s): t\n\n- [x]: a\n",
            "f(s): t\r\n\r\n  - [ ]: nested\r\n",
            "f(s): t\n\nWhy.\n- Never: skip tests",
            "\u{feff}f(s): t\n\n- [ ]: a",
            // Past a blank line in the description the parse halts and
            // keeps no tasks; the pre-check does not know that.
            "f(s): t\n\na\n\nb\n- [ ]: c",
        ] {
            assert!(may_hold_sections(text, &config), "{text:?}");
        }
        for text in [
            "",
            "- [ ]: a header is no task",
            "f(s): t\n\n- [x] no colon\n- [ ]:\n- a bullet\n- Key: Value",
            "f(s): t\n\n> Never: skip tests\nscope: core\n",
            "f(s): t\n\nSigned-off-by: A <a@example.com>\n",
        ] {
            assert!(!may_hold_sections(text, &config), "{text:?}");
        }
    }

    #[test]
    fn each_syntax_reads_its_own_lines() {
        let markdown = "# T\n\n> Never: rush\n";
        assert!(may_hold_sections(markdown, &ParserConfig::MARKDOWN_TASKS));
        assert!(!may_hold_sections(markdown, &ParserConfig::COMMIT_MESSAGE));
        let yaml = "title: T\n\nWhy.\n- task: Build (x)\n";
        assert!(may_hold_sections(yaml, &ParserConfig::YAML_LIKE));
        assert!(!may_hold_sections(yaml, &ParserConfig::COMMIT_MESSAGE));
    }
}
