//! The closest existing notes to a path that names none, for a
//! `FILE_NOT_FOUND` error a model can correct itself from.
//!
//! Edit distance is `strsim`'s optimal string alignment (a swap of two
//! neighbouring letters, the commonest typo, counts as one edit).

use super::note_path::NotePath;

/// How many characters of a stem the edit distance compares: the distance
/// is quadratic in length, so a hostile 255-byte name against every note of
/// a large kiln stays cheap.
const COMPARED_CHARS: usize = 64;

/// How close a candidate is: compared as a tuple, smallest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Closeness {
    /// The same path but for letter case.
    SamePathIgnoringCase,
    /// The same file stem, ignoring case, in another folder.
    SameStem,
    /// One stem contains the other (ignoring case); by how many characters
    /// they differ in length.
    StemContains(usize),
    /// Stems within a few edits of each other; how many.
    StemEdits(usize),
}

/// Up to `limit` of the `existing` notes closest to `wanted`, closest first:
/// the same path in another letter case, then the same file stem in any
/// folder, then stems that contain the wanted one or are contained in it,
/// then stems a few edits away (about one per three characters). Within a
/// kind, the shorter path first, then path order. `wanted` itself is never
/// suggested.
pub(crate) fn suggest<'a>(
    wanted: &NotePath,
    existing: impl IntoIterator<Item = &'a NotePath>,
    limit: usize,
) -> Vec<NotePath> {
    if limit == 0 {
        return Vec::new();
    }
    let wanted_path = wanted.as_str().to_lowercase();
    let wanted_stem = Stem::new(wanted.stem());
    let mut close: Vec<(Closeness, &NotePath)> = existing
        .into_iter()
        .filter(|note| *note != wanted)
        .filter_map(|note| closeness(&wanted_path, &wanted_stem, note).map(|how| (how, note)))
        .collect();
    close.sort_by(|(a_how, a), (b_how, b)| {
        (a_how, a.as_str().len(), a.as_str()).cmp(&(b_how, b.as_str().len(), b.as_str()))
    });
    close.truncate(limit);
    close.into_iter().map(|(_, note)| note.clone()).collect()
}

/// A stem lowercased, with its first [`COMPARED_CHARS`] characters.
struct Stem {
    lowercase: String,
    chars: usize,
    compared: String,
}

impl Stem {
    fn new(stem: &str) -> Stem {
        let lowercase = stem.to_lowercase();
        let chars = lowercase.chars().count();
        let compared = lowercase.chars().take(COMPARED_CHARS).collect();
        Stem {
            lowercase,
            chars,
            compared,
        }
    }
}

fn closeness(wanted_path: &str, wanted: &Stem, note: &NotePath) -> Option<Closeness> {
    if note.as_str().to_lowercase() == wanted_path {
        return Some(Closeness::SamePathIgnoringCase);
    }
    let stem = Stem::new(note.stem());
    if stem.lowercase == wanted.lowercase {
        return Some(Closeness::SameStem);
    }
    let length_difference = stem.chars.abs_diff(wanted.chars);
    let (shorter, longer) = if stem.chars < wanted.chars {
        (&stem, wanted)
    } else {
        (wanted, &stem)
    };
    if shorter.chars >= 3 && longer.lowercase.contains(&shorter.lowercase) {
        return Some(Closeness::StemContains(length_difference));
    }
    let allowed = (wanted.chars.min(COMPARED_CHARS) / 3).max(1);
    if length_difference > allowed {
        return None;
    }
    let edits = strsim::osa_distance(&wanted.compared, &stem.compared);
    (edits <= allowed).then_some(Closeness::StemEdits(edits))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The closest notes first; none when nothing is close.
    #[test]
    fn the_closest_notes_are_suggested_first() {
        let note = |path| NotePath::parse_relative(path).unwrap();
        let existing = [
            note("Projects/Plan"),
            note("archive/plan"),
            note("projects/plans-2024"),
            note("recipes"),
        ];
        let suggested = suggest(&note("projects/plan"), &existing, 3);
        let paths: Vec<_> = suggested.iter().map(NotePath::as_str).collect();
        assert_eq!(
            paths,
            [
                "Projects/Plan.md",
                "archive/plan.md",
                "projects/plans-2024.md"
            ]
        );
        assert!(suggest(&note("zzz"), &existing, 3).is_empty());
    }

    fn note(path: &str) -> NotePath {
        NotePath::parse_relative(path).unwrap()
    }

    fn suggested(wanted: &str, existing: &[&str], limit: usize) -> Vec<String> {
        let existing: Vec<NotePath> = existing.iter().map(|path| note(path)).collect();
        suggest(&note(wanted), &existing, limit)
            .into_iter()
            .map(|path| path.as_str().to_owned())
            .collect()
    }

    #[test]
    fn suggestions_rank_case_then_stem_then_containment_then_edits() {
        let existing = [
            "meetings/standup",
            "Meetings/Standup-notes",
            "standup",
            "MEETINGS/STANDUP",
            "stand-up",
            "unrelated",
        ];
        assert_eq!(
            suggested("meetings/standup", &existing, 10),
            [
                "MEETINGS/STANDUP.md",
                "standup.md",
                "Meetings/Standup-notes.md",
                "stand-up.md",
            ]
        );
    }

    #[test]
    fn typos_and_swapped_letters_are_suggested() {
        assert_eq!(
            suggested("recieve", &["receive", "kitchen"], 5),
            ["receive.md"]
        );
        assert_eq!(suggested("a/pln", &["b/plan", "c/xyz"], 5), ["b/plan.md"]);
    }

    #[test]
    fn the_limit_is_kept_and_zero_gives_none() {
        let existing = ["a/x", "b/x", "c/x", "d/x"];
        assert_eq!(suggested("x", &existing, 2), ["a/x.md", "b/x.md"]);
        assert!(suggested("x", &existing, 0).is_empty());
    }

    #[test]
    fn short_stems_are_not_matched_by_containment() {
        assert!(suggested("ab", &["absolutely-unrelated"], 5).is_empty());
    }

    #[test]
    fn hostile_long_names_against_many_notes_stay_cheap() {
        let long = "x".repeat(250);
        let existing: Vec<NotePath> = (0..10_000)
            .map(|i| note(&format!("f/{}{i}", "y".repeat(240))))
            .collect();
        let started = std::time::Instant::now();
        assert!(suggest(&note(&long), &existing, 5).is_empty());
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }
}
