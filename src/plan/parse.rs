//! The owned parse: the borrowed [`syntax`] layer, converted into a
//! [`PlanDocument`] for editing.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::ast::PlanDocument;
use super::codes::PlanDiagnostic;
use super::config::ParserConfig;
use super::syntax;

/// Whether the parser read the whole text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ParseState {
    /// The whole text is a plan document (possibly an empty one).
    Parsed,
    /// The parser stopped at an error; the document holds what came before it.
    Halted,
}

/// The result of [`parse`]: the state, the document parsed so far, and every
/// diagnostic. The first error is why the parser halted; any errors after
/// it are further problems the parser found by reading on.
///
/// Serializes to the JSON shape of the conformance cases: `state` plus the
/// document's sections.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseOutcome {
    /// Whether the whole text was read, or where the parser halted.
    pub state: ParseState,
    /// Everything parsed up to the end, or up to the halt.
    pub document: PlanDocument,
    /// Every warning, the error that halted the parser, if any, and the
    /// errors found after it.
    pub diagnostics: Vec<PlanDiagnostic>,
}

impl ParseOutcome {
    /// Whether the parser read the whole text without halting.
    pub fn is_parsed(&self) -> bool {
        self.state == ParseState::Parsed
    }

    /// The error that halted the parser, if it halted.
    pub fn halt_reason(&self) -> Option<&PlanDiagnostic> {
        self.diagnostics
            .iter()
            .find(|diagnostic| diagnostic.is_error())
    }
}

impl Serialize for ParseOutcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let document = serde_json::to_value(&self.document).map_err(serde::ser::Error::custom)?;
        let sections = document.as_object().into_iter().flatten();
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("state", &self.state)?;
        for (key, value) in sections {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// Parses a plan document.
///
/// Never panics, and runs in time linear in the length of `text`. A text
/// ending in one line ending (`\n` or `\r\n`) parses as the text without it;
/// CRLF line endings parse as LF. The text is read into the borrowed
/// [`syntax`] layer first ([`syntax::parse`]), which this converts.
///
/// ```
/// use quire_grammar::plan::{parse, Code, ParseState, ParserConfig};
///
/// let outcome = parse("fix(io): Retry\n\nFlaky disks.\n- [ ]: Add a retry\n", &ParserConfig::default());
/// assert_eq!(outcome.state, ParseState::Parsed);
/// assert_eq!(outcome.document.tasks.as_ref().unwrap()[0].text.as_str(), "Add a retry");
///
/// let halted = parse("fix(io): Retry\nno blank line", &ParserConfig::default());
/// assert_eq!(halted.state, ParseState::Halted);
/// let reason = halted.halt_reason().unwrap();
/// assert_eq!(reason.code, Code::MissingBlankLine);
/// assert_eq!(reason.to_string(), "the header must be followed by a blank line");
///
/// // After a halt the parser reads on and reports every further problem;
/// // the document is what it was at the halt.
/// let text = "fix(io): Retry\n\nWhy.\n- [x] Retry\n- [ ]:\n- [ ]: Log it";
/// let halted = parse(text, &ParserConfig::default());
/// let codes: Vec<Code> = halted.diagnostics.iter().map(|d| d.code).collect();
/// assert_eq!(codes, [Code::MalformedTask, Code::EmptyTask]);
/// assert_eq!(halted.document.tasks, None);
/// ```
pub fn parse(text: &str, config: &ParserConfig) -> ParseOutcome {
    syntax::parse(text, config).into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::DiagnosticCode;
    use crate::plan::Code;
    use crate::span::Span;

    fn codes_of(outcome: &ParseOutcome) -> Vec<Code> {
        outcome.diagnostics.iter().map(|d| d.code).collect()
    }

    fn codes(text: &str) -> Vec<&'static str> {
        parse(text, &ParserConfig::default())
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect()
    }

    #[test]
    fn crlf_parses_exactly_as_lf_and_spans_index_the_crlf_bytes() {
        let lf =
            "feat(a): b\n\nline one\nline two\n- Never: x\n\n- [ ]: t\n  - [x]: u\n\nGo on\nnow\n";
        let crlf = lf.replace('\n', "\r\n");
        let (lf_outcome, crlf_outcome) = (
            parse(lf, &ParserConfig::default()),
            parse(&crlf, &ParserConfig::default()),
        );
        assert_eq!(
            serde_json::to_value(&lf_outcome).unwrap(),
            serde_json::to_value(&crlf_outcome).unwrap()
        );
        assert_eq!(crlf_outcome.state, ParseState::Parsed);
        let document = &crlf_outcome.document;
        let description = document.description.as_ref().unwrap();
        assert_eq!(description.value, "line one\nline two");
        assert_eq!(&crlf[description.span.range()], "line one\r\nline two");
        let subtask = &document.tasks.as_ref().unwrap()[0].children[0];
        assert_eq!(&crlf[subtask.text.span.range()], "u");
        assert_eq!(&crlf[subtask.span.range()], "  - [x]: u");
        let direction = document.direction.as_ref().unwrap();
        assert_eq!(
            (direction.value.as_str(), &crlf[direction.span.range()]),
            ("Go on\nnow", "Go on\r\nnow")
        );
    }

    #[test]
    fn halted_results_keep_what_came_before() {
        let outcome = parse(
            "f(s): t\n\nd\n- [ ]: one\n- [x]: two\n          - [ ]: too deep",
            &ParserConfig::default(),
        );
        assert_eq!(outcome.state, ParseState::Halted);
        assert_eq!(outcome.document.tasks.as_ref().map(Vec::len), Some(2));
        assert_eq!(outcome.halt_reason().unwrap().code, Code::NestingTooDeep);
    }

    #[test]
    fn too_many_tasks_keeps_the_first_ones() {
        let config = ParserConfig {
            max_task_count: 2,
            ..ParserConfig::default()
        };
        let outcome = parse(
            "f(s): t\n\n- [ ]: a\n- [ ]: b\n- [ ]: c\n- [ ]: d\n- [x] e",
            &config,
        );
        // Reading on reports the limit once, and the problems after it.
        assert_eq!(
            codes_of(&outcome),
            [Code::TooManyTasks, Code::MalformedTask]
        );
        assert_eq!(outcome.document.tasks.unwrap().len(), 2);
    }

    #[test]
    fn tree_depth_is_limited_even_with_irregular_indentation() {
        // Widths 0..=5 are all within 4 levels of 2 spaces, but nest 6 deep.
        let text =
            "f(s): t\n\n- [ ]: 0\n - [ ]: 1\n  - [ ]: 2\n   - [ ]: 3\n    - [ ]: 4\n     - [ ]: 5";
        assert!(codes(text).ends_with(&["plan::nesting_too_deep"]));
    }

    #[test]
    fn silently_dropped_text_gets_a_warning() {
        assert_eq!(codes("fix: Description"), ["plan::title_ignored"]);
        assert_eq!(
            codes("f(s): t\n\nd\n- Never: Do that"),
            ["plan::constraint_ignored"]
        );
        assert_eq!(
            codes("f(s): t\n\nd\n- [ ]: a\n   - [ ]: b"),
            ["plan::irregular_indent"]
        );
    }

    #[test]
    fn each_halt_has_its_code() {
        let cases = [
            ("\nfeat: x", "plan::leading_blank_line"),
            ("a\0b", "plan::nul_byte"),
            ("feat: a\0b", "plan::nul_byte"),
            ("Feat: x", "plan::invalid_header"),
            ("f(s): t\nd", "plan::missing_blank_line"),
            ("f(s): t\n\na\n\nb", "plan::blank_line_in_description"),
            ("f(s): t\n\nd\n- D: d\n[x]: a", "plan::malformed_task"),
            ("f(s): t\n\nd\n- [ ]: a\n- [x] b", "plan::malformed_task"),
            ("f(s): t\n\nd\n- [ ]:", "plan::empty_task"),
            ("f(s): t\n\nd\n- [ ]:    ", "plan::empty_task"),
            (
                "f(s): t\n\nd\n- [ ]: a\n\nabc",
                "plan::incomplete_direction",
            ),
        ];
        for (text, code) in cases {
            let found = codes(text);
            assert!(found.contains(&code), "{text:?}: {found:?}");
        }
    }

    #[test]
    fn input_limit_counts_characters_not_bytes() {
        let config = ParserConfig {
            max_input_length: 12,
            ..ParserConfig::default()
        };
        assert!(parse("feat(a): ééé", &config).is_parsed()); // 12 characters, 15 bytes
        let outcome = parse("feat(a): éééé", &config);
        let reason = outcome.halt_reason().unwrap();
        assert_eq!(
            (reason.code, reason.span),
            (Code::InputTooLong, Span::new(15, 17))
        );
    }

    #[test]
    fn title_limit_counts_characters() {
        let config = ParserConfig {
            max_title_length: 3,
            ..ParserConfig::default()
        };
        assert!(parse("f(s): ééé", &config).is_parsed());
        let outcome = parse("f(s): éééé\n\nbody", &config);
        assert_eq!(outcome.halt_reason().unwrap().code, Code::TitleTooLong);
        assert_eq!(outcome.document.header.unwrap().title, None);
    }

    #[test]
    fn invalid_config_halts_and_names_the_setting() {
        let config = ParserConfig {
            indent_size: 0,
            ..ParserConfig::default()
        };
        let outcome = parse("feat: x", &config);
        assert!(
            outcome
                .halt_reason()
                .unwrap()
                .message
                .contains("indent_size")
        );
        assert!(outcome.document.is_empty());
    }

    #[test]
    fn header_help_points_at_the_likely_mistake() {
        let help = |line: &str| {
            parse(line, &ParserConfig::default())
                .halt_reason()
                .unwrap()
                .help
                .clone()
        };
        assert!(help("Feat: x").contains("lowercase"));
        assert!(help("feat!: x").contains("needs a scope"));
        assert!(help("feat (a): x").contains("no space"));
        assert!(help("feat(a b): x").contains("without spaces"));
    }

    #[test]
    fn invalid_header_labels_point_at_the_mistake() {
        let labelled = |line: &str| {
            let outcome = parse(line, &ParserConfig::default());
            let reason = outcome.halt_reason().unwrap();
            (line[reason.span.range()].to_owned(), reason.label.clone())
        };
        let expected = [
            ("Fix(io): x", "F", "expected a lowercase type"),
            ("feat!: x", "!", "expected `(scope)` before `!`"),
            (
                "fix  (io): x",
                " ",
                "expected `:` or `(` right after the type",
            ),
            ("fix(a b): x", " ", "expected `)` after the scope"),
            ("feat(ui) Add x", " ", "expected `:` after `)`"),
            ("fix-it: x", "-", "expected `:` or `(`"),
            ("fix", "", "expected `:` or `(`"),
            ("Update the docs", "U", "expected a lowercase type"),
        ];
        for (line, at, label) in expected {
            assert_eq!(
                labelled(line),
                (at.to_owned(), label.to_owned()),
                "{line:?}"
            );
        }
    }

    #[test]
    fn blank_line_before_constraints_is_accepted() {
        // The spec's complete example separates every section by a blank line.
        let outcome = parse(
            "f(s): t\n\nd\n\n- Never: x\n\n- [ ]: a\n\nGo on",
            &ParserConfig::default(),
        );
        assert!(outcome.is_parsed(), "{:?}", outcome.diagnostics);
        assert_eq!(outcome.document.constraints.unwrap().len(), 1);
    }

    #[test]
    fn other_presets_parse_their_own_syntax() {
        let md = parse(
            "# Ship it\n\nWhy.\n> Never: rush\n- [x] Build\n  - [ ] Test\n\nabc",
            &ParserConfig::MARKDOWN_TASKS,
        );
        assert!(md.is_parsed(), "{:?}", md.diagnostics);
        let json = serde_json::to_value(&md).unwrap();
        assert_eq!(
            json["header"],
            serde_json::json!({"title": "Ship it", "breaking": false})
        );
        assert_eq!(
            json["tasks"],
            serde_json::json!([[true, "Build", [[false, "Test", []]]]])
        );
        assert_eq!(json["direction"], "abc");
        let yaml = parse(
            "title: Ship\n\nWhy.\nscope: core\n- task: Build (x)\n    - task: Test ( )",
            &ParserConfig::YAML_LIKE,
        );
        let json = serde_json::to_value(&yaml).unwrap();
        assert_eq!(json["constraints"], serde_json::json!([["scope", "core"]]));
        assert_eq!(
            json["tasks"],
            serde_json::json!([[true, "Build", [[false, "Test", []]]]])
        );
    }
}
