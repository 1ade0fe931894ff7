//! Each grammar in `grammar/` is normative and the code names the rule it
//! implements in a comment (`// plan.ebnf: task-line`,
//! `// frontmatter.ebnf: key-line`) instead of restating it. These tests keep
//! the two in step: every rule a grammar defines is named in a comment under
//! its source directory, and every name a comment gives is a rule the
//! grammar defines.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A grammar and the code that implements it.
struct Grammar {
    /// The grammar file, from the crate root; its file name is the tag the
    /// comments start with (`plan.ebnf: `).
    file: &'static str,
    /// The directory whose Rust files implement it, from the crate root.
    source: &'static str,
    /// Rules implemented outside `source`, each with where.
    named_elsewhere: &'static [(&'static str, &'static str)],
}

const PLAN: Grammar = Grammar {
    file: "grammar/plan.ebnf",
    source: "src/plan",
    named_elsewhere: &[(
        "directive",
        "PlanDocument::directive in src/plan/ast.rs, the AST's own accessor",
    )],
};

const FRONTMATTER: Grammar = Grammar {
    file: "grammar/frontmatter.ebnf",
    source: "src/frontmatter",
    named_elsewhere: &[(
        "blank",
        "is_space_or_tab in src/text/mod.rs, shared with the plan parser",
    )],
};

const MARKDOWN: Grammar = Grammar {
    file: "grammar/markdown.ebnf",
    source: "src/markdown",
    named_elsewhere: &[
        ("chunks", "chunk_note in src/kiln/semantic/chunk.rs"),
        ("heading-path", "chunk_note in src/kiln/semantic/chunk.rs"),
        ("chunk-text", "push_section in src/kiln/semantic/chunk.rs"),
    ],
};

const GRAMMARS: [Grammar; 3] = [PLAN, FRONTMATTER, MARKDOWN];

impl Grammar {
    fn tag(&self) -> String {
        let name = Path::new(self.file)
            .file_name()
            .expect("a grammar file name");
        format!("{}: ", name.to_string_lossy())
    }

    fn rules(&self) -> BTreeSet<String> {
        let grammar =
            fs::read_to_string(Path::new(ROOT).join(self.file)).expect("the grammar is readable");
        defined_rules(&grammar)
    }

    /// Every rule name the comments under `source` give, with its file.
    fn names(&self) -> Vec<(String, String)> {
        let mut named = Vec::new();
        named_rules(&Path::new(ROOT).join(self.source), &self.tag(), &mut named);
        named
    }

    /// The rules no comment names and no `named_elsewhere` entry lists, as
    /// a failure message; `None` when there are none.
    fn unnamed_rules(&self) -> Option<String> {
        let named: BTreeSet<String> = self.names().into_iter().map(|(name, _)| name).collect();
        let elsewhere: BTreeSet<&str> =
            self.named_elsewhere.iter().map(|(rule, _)| *rule).collect();
        let missing: Vec<String> = self
            .rules()
            .into_iter()
            .filter(|rule| !named.contains(rule) && !elsewhere.contains(rule.as_str()))
            .collect();
        (!missing.is_empty()).then(|| {
            format!(
                "no `// {}<rule>` comment under {}/ names {missing:?}",
                self.tag(),
                self.source
            )
        })
    }

    /// The names comments (or `named_elsewhere`) give that the grammar does
    /// not define, with where, as a failure message; `None` when there are
    /// none.
    fn undefined_names(&self) -> Option<String> {
        let rules = self.rules();
        let elsewhere = self
            .named_elsewhere
            .iter()
            .map(|(rule, place)| ((*rule).to_owned(), (*place).to_owned()));
        let unknown: Vec<(String, String)> = self
            .names()
            .into_iter()
            .chain(elsewhere)
            .filter(|(name, _)| !rules.contains(name))
            .collect();
        (!unknown.is_empty()).then(|| {
            format!(
                "comments name rules {} does not define: {unknown:?}",
                self.file
            )
        })
    }
}

/// The names the grammar defines: `name = ...` at the start of a line,
/// outside `(* comments *)`.
fn defined_rules(grammar: &str) -> BTreeSet<String> {
    let mut rules = BTreeSet::new();
    let mut depth = 0_usize;
    for line in grammar.lines() {
        if depth == 0
            && let Some((name, _)) = line.split_once('=')
        {
            let name = name.trim();
            if !name.is_empty() && name.chars().all(is_name_char) {
                rules.insert(name.to_owned());
            }
        }
        depth += line.matches("(*").count();
        depth = depth.saturating_sub(line.matches("*)").count());
    }
    rules
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-'
}

/// The rule names of every `<tag>a, b (prose)` comment in the Rust files
/// under `dir`, with the file each is in.
fn named_rules(dir: &Path, tag: &str, named: &mut Vec<(String, String)>) {
    for entry in fs::read_dir(dir).expect("the source directory is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            named_rules(&path, tag, named);
            continue;
        }
        if path.extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let source = fs::read_to_string(&path).expect("a source file is readable");
        named.extend(
            names_in(&source, tag)
                .into_iter()
                .map(|name| (name, path.display().to_string())),
        );
    }
}

/// The rule names the `<tag>a, b (prose)` comments of `source` give.
fn names_in(source: &str, tag: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in source.lines() {
        let Some((_, list)) = line.split_once(tag) else {
            continue;
        };
        for piece in list.split(',') {
            let piece = piece.trim_start();
            let name: String = piece.chars().take_while(|&c| is_name_char(c)).collect();
            let prose_follows = piece.len() > name.len();
            names.push(name);
            // Prose after a name ends the list.
            if prose_follows {
                break;
            }
        }
    }
    names
}

#[test]
fn the_grammar_is_read_as_its_rules() {
    let rules = PLAN.rules();
    for rule in [
        "document",
        "EOL",
        "BOM",
        "task-like",
        "constraint-like",
        "directive",
    ] {
        assert!(rules.contains(rule), "{rule} is not found among {rules:?}");
    }
    // Rules named only inside comments are not definitions.
    assert_eq!(
        defined_rules("a = b ;\n(* c = d\n e = f *)\ng-h = i ;"),
        BTreeSet::from(["a".to_owned(), "g-h".to_owned()])
    );
    let frontmatter = FRONTMATTER.rules();
    for rule in ["document", "eol", "key-line", "replaceable-value", "tag"] {
        assert!(
            frontmatter.contains(rule),
            "{rule} is not found among {frontmatter:?}"
        );
    }
}

#[test]
fn comments_are_read_as_the_rules_they_name() {
    assert_eq!(PLAN.tag(), "plan.ebnf: ");
    let source = "// plan.ebnf: a, b-c (prose, d)\n// plan.ebnf: e\n// frontmatter.ebnf: f\n";
    assert_eq!(names_in(source, &PLAN.tag()), ["a", "b-c", "e"]);
    assert_eq!(names_in(source, &FRONTMATTER.tag()), ["f"]);
}

#[test]
fn every_rule_is_named_in_the_code() {
    let failures: Vec<String> = GRAMMARS.iter().filter_map(Grammar::unnamed_rules).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_named_rule_is_defined() {
    let failures: Vec<String> = GRAMMARS
        .iter()
        .filter_map(Grammar::undefined_names)
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
