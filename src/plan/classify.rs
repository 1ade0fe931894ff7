//! What each line after the header is, decided once per line.
//!
//! The sections of a plan are found by what their lines are, so every line
//! is read by the configured syntax's rules exactly once, into a
//! [`PlanLine`], and the section parsers only match on that (as
//! `frontmatter`'s `LineKind` does for its lines).

use super::config::{ConstraintSyntax, ParserConfig, TaskSyntax};
use super::lines::Lines;
use super::rules::{self, ConstraintLine, Mismatch, TaskLine, TaskProblem};
use crate::text::{Line, is_blank};

/// What one line after the header is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PlanLine {
    // plan.ebnf: blank-line
    Blank,
    // plan.ebnf: task
    Task(TaskLine),
    // plan.ebnf: task-like (a line that starts like a task and is not one),
    // with where the task rule rejects it
    TaskLike(TaskProblem, Mismatch),
    // plan.ebnf: constraint
    Constraint(ConstraintLine),
    // plan.ebnf: constraint-like (shaped like a constraint), with where the
    // constraint rule rejects it
    ConstraintLike(Mismatch),
    // plan.ebnf: text-line (description or direction)
    Text,
}

impl PlanLine {
    /// Whether the line begins the constraint or task section (and so ends
    /// the description).
    pub(crate) fn begins_section(&self) -> bool {
        !matches!(self, PlanLine::Blank | PlanLine::Text)
    }
}

/// The syntaxes of the lines after the header (a part of [`ParserConfig`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LineSyntax {
    pub task: TaskSyntax,
    pub constraint: ConstraintSyntax,
}

impl From<&ParserConfig> for LineSyntax {
    fn from(config: &ParserConfig) -> Self {
        LineSyntax {
            task: config.task,
            constraint: config.constraint,
        }
    }
}

/// One line and what it is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Classified {
    pub line: Line,
    pub kind: PlanLine,
}

/// Reads `line` of `text` by the rules of `config`'s syntax. A task beats a
/// task-like line, which beats a constraint, which beats a constraint-like
/// line: that is the order in which the sections ask.
///
/// Most lines are decided by their first byte after the indentation (see
/// [`rules::may_begin_section`]); the rest go through every rule.
pub(crate) fn classify(text: &str, line: Line, syntax: LineSyntax) -> PlanLine {
    let content = line.text(text).as_bytes();
    match content.iter().position(|&byte| !rules::is_ascii_ws(byte)) {
        None => PlanLine::Blank,
        Some(at) if !rules::may_begin_section(content[at], syntax.constraint) => PlanLine::Text,
        // Past ASCII whitespace, a line is blank only if the rest is too.
        Some(at) if is_blank(&line.text(text)[at..]) => PlanLine::Blank,
        Some(_) => classify_by_rules(text, line, syntax),
    }
}

/// [`classify`] without the first-byte shortcut, on a line that is not
/// blank: every rule, in order.
fn classify_by_rules(text: &str, line: Line, syntax: LineSyntax) -> PlanLine {
    if let Some(task) = rules::task_on(text, line, syntax.task) {
        return PlanLine::Task(task);
    }
    let content = line.text(text);
    if let Some(problem) = rules::task_problem(syntax.task, content)
        && let Some(mismatch) = rules::task_mismatch(text, line, syntax.task)
    {
        return PlanLine::TaskLike(problem, mismatch);
    }
    let constraint_mismatch = match rules::constraint_line(text, line, syntax.constraint) {
        Ok(constraint) => return PlanLine::Constraint(constraint),
        Err(mismatch) => mismatch,
    };
    if rules::is_constraint_like(text, line, syntax.constraint) {
        return PlanLine::ConstraintLike(constraint_mismatch);
    }
    PlanLine::Text
}

/// The lines of a document's body, each classified when it is first read;
/// a section that stops at a line hands it back ([`Self::put_back`]) to the
/// next section instead of it being read again.
pub(crate) struct ClassifiedLines<'t> {
    text: &'t str,
    syntax: LineSyntax,
    lines: Lines<'t>,
    put_back: Option<Classified>,
}

impl<'t> ClassifiedLines<'t> {
    pub(crate) fn new(text: &'t str, syntax: LineSyntax, lines: Lines<'t>) -> Self {
        ClassifiedLines {
            text,
            syntax,
            lines,
            put_back: None,
        }
    }

    /// Makes `line` the next one [`Iterator::next`] returns.
    pub(crate) fn put_back(&mut self, line: Classified) {
        debug_assert!(self.put_back.is_none(), "one line is put back at a time");
        self.put_back = Some(line);
    }

    /// The lines not read yet (an upper bound, counting the put-back line).
    pub(crate) fn remaining(&mut self) -> usize {
        self.lines.remaining() + usize::from(self.put_back.is_some())
    }

    /// Where the next line starts, if there is one.
    pub(crate) fn next_start(&self) -> Option<usize> {
        match &self.put_back {
            Some(classified) => Some(classified.line.start),
            None => self.lines.next_start(),
        }
    }
}

impl Iterator for ClassifiedLines<'_> {
    type Item = Classified;

    fn next(&mut self) -> Option<Classified> {
        if let Some(classified) = self.put_back.take() {
            return Some(classified);
        }
        let line = self.lines.next()?;
        Some(Classified {
            line,
            kind: classify(self.text, line, self.syntax),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::split_lines;

    fn kind(config: &ParserConfig, text: &str) -> &'static str {
        match classify(text, split_lines(text, 0, text.len())[0], config.into()) {
            PlanLine::Blank => "blank",
            PlanLine::Task(_) => "task",
            PlanLine::TaskLike(..) => "task-like",
            PlanLine::Constraint(_) => "constraint",
            PlanLine::ConstraintLike(_) => "constraint-like",
            PlanLine::Text => "text",
        }
    }

    #[test]
    fn each_line_is_what_its_first_matching_rule_says() {
        let config = ParserConfig::COMMIT_MESSAGE;
        for (line, expected) in [
            ("  \t", "blank"),
            ("- [ ]: Ship", "task"),
            ("    - [x]: Ship", "task"),
            ("- [ ]:    ", "task"),
            ("- [ ]:", "task-like"),
            ("- [x] Ship", "task-like"),
            ("[x]: Ship", "task-like"),
            ("-", "task-like"),
            ("- Never: skip", "constraint"),
            ("- Never: Skip", "constraint-like"),
            ("  - Never: skip", "constraint-like"),
            ("- never", "text"),
            ("Go on", "text"),
        ] {
            assert_eq!(kind(&config, line), expected, "{line:?}");
        }
        let yaml = ParserConfig::YAML_LIKE;
        assert_eq!(kind(&yaml, "- task: Ship (x)"), "task");
        assert_eq!(kind(&yaml, "- task: Ship"), "task-like");
        assert_eq!(kind(&yaml, "scope: core"), "constraint");
        assert_eq!(kind(&yaml, "\tscope: core"), "constraint-like");
    }

    proptest::proptest! {
        /// The first-byte shortcut never decides a line the rules would
        /// read otherwise, in any syntax.
        #[test]
        fn the_shortcut_agrees_with_every_rule(
            line in "[- \\[\\]x:>\t\u{a0}\u{3000}_Aa9é()X]{0,12}",
            preset in 0..4usize,
        ) {
            let config = crate::plan::Preset::ALL[preset].config();
            let syntax = LineSyntax::from(&config);
            let whole = split_lines(&line, 0, line.len())[0];
            let by_rules = if whole.is_blank(&line) {
                PlanLine::Blank
            } else {
                classify_by_rules(&line, whole, syntax)
            };
            proptest::prop_assert_eq!(classify(&line, whole, syntax), by_rules);
        }
    }

    #[test]
    fn a_put_back_line_comes_next_and_is_not_read_again() {
        let config = ParserConfig::COMMIT_MESSAGE;
        let text = "- [ ]: a\nGo on";
        let mut lines =
            ClassifiedLines::new(text, (&config).into(), Lines::new(text, 0, text.len()));
        let first = lines.next().unwrap();
        assert!(matches!(first.kind, PlanLine::Task(_)));
        lines.put_back(first);
        assert_eq!(lines.next_start(), Some(0));
        assert_eq!(lines.remaining(), 2);
        assert_eq!(lines.next().unwrap().line, first.line);
        assert_eq!(lines.next().unwrap().kind, PlanLine::Text);
        assert!(lines.next().is_none());
    }
}
