//! `quire.toml`'s `ignores`: headers a team lets through unjudged, as
//! commitlint's `ignores` does (dependency bumps, untyped squash-merge
//! titles). commitlint takes functions; a TOML file takes patterns, so this
//! is a small glob: `*` is any run of characters. Written by hand: a regex
//! crate would be the grammar crate's largest dependency for one wildcard.

use std::fmt;

/// A pattern a header-line is matched against, whole.
///
/// ```
/// use quire_grammar::commit::HeaderPattern;
///
/// let squash = HeaderPattern::new("* (#*)");
/// assert!(squash.matches("Add the parser (#12)"));
/// assert!(!squash.matches("feat: add the parser"));
/// assert!(HeaderPattern::new("Bump *").matches("  Bump serde from 1.0 to 1.1  "));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HeaderPattern {
    pattern: String,
}

impl HeaderPattern {
    /// The pattern as written.
    pub fn new(pattern: impl Into<String>) -> HeaderPattern {
        HeaderPattern {
            pattern: pattern.into(),
        }
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// Whether `header` (its first line, without surrounding white space)
    /// is matched whole.
    // commit.ebnf: header-pattern
    pub fn matches(&self, header: &str) -> bool {
        let header = header.lines().next().unwrap_or("").trim();
        glob_matches(&self.pattern, header)
    }
}

impl fmt::Display for HeaderPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.pattern)
    }
}

/// `*`-glob matching in linear time: each `*` takes the shortest run that
/// lets the rest match, backing up only to the last `*` (no exponential
/// backtracking on `*a*a*a*b`).
fn glob_matches(pattern: &str, text: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let text: Vec<char> = text.chars().collect();
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, t));
            p += 1;
        } else if p < pattern.len() && pattern[p] == text[t] {
            p += 1;
            t += 1;
        } else if let Some((star_at, matched)) = star {
            p = star_at + 1;
            t = matched + 1;
            star = Some((star_at, matched + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

/// Whether a header reads as a squash-merge title a forge wrote without a
/// Conventional Commits type: it ends with a pull request number, `(#12)`.
///
/// ```
/// use quire_grammar::commit::looks_like_squash_title;
///
/// assert!(looks_like_squash_title("Add the parser (#12)"));
/// assert!(!looks_like_squash_title("Add the parser"));
/// ```
pub fn looks_like_squash_title(header: &str) -> bool {
    let header = header.lines().next().unwrap_or("").trim_end();
    header
        .strip_suffix(')')
        .and_then(|rest| rest.rsplit_once(" (#"))
        .is_some_and(|(title, number)| {
            !title.trim().is_empty()
                && !number.is_empty()
                && number.bytes().all(|b| b.is_ascii_digit())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_match_any_run_and_the_rest_matches_itself() {
        let cases = [
            ("Bump *", "Bump serde from 1 to 2", true),
            ("Bump *", "bump serde", false),
            ("*", "", true),
            ("* (#*)", "Fix it (#7)", true),
            ("* (#*)", "Fix it (#7) later", false),
            ("a*b*c", "aXbYc", true),
            ("a*b*c", "aXbY", false),
            ("exact", "exact", true),
            ("exact", "exactly", false),
            ("*a*a*a*a*a*b", &"a".repeat(5_000), false),
            ("é*", "été", true),
        ];
        for (pattern, header, expected) in cases {
            assert_eq!(
                HeaderPattern::new(pattern).matches(header),
                expected,
                "{pattern} ~ {header:.40}"
            );
        }
    }

    #[test]
    fn only_the_first_line_trimmed_is_matched() {
        let pattern = HeaderPattern::new("Bump *");
        assert!(pattern.matches("  Bump x  \n\nbody"));
        assert!(!pattern.matches("feat: x\nBump y"));
    }

    #[test]
    fn squash_titles_end_with_a_pull_request_number() {
        for title in ["Add x (#1)", "Update README.md (#1234)\n\nbody"] {
            assert!(looks_like_squash_title(title), "{title}");
        }
        for other in ["Add x", "(#12)", "Add x (#)", "Add x (#1a)", "feat: x (12)"] {
            assert!(!looks_like_squash_title(other), "{other}");
        }
    }
}
