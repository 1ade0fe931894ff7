//! What `find_links` returns, as a client receives it: a page of links
//! (`broken`, `ambiguous`) or of notes (`orphans`, `neighbours`), with the
//! total and the cursor of the next page.

use quire_kiln as kiln;
use schemars::JsonSchema;
use serde::Serialize;

use super::args::LinkKind;

/// What `find_links` returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct FoundLinks {
    /// What was looked for.
    kind: LinkKind,
    /// With `neighbours`: the note's path (NFC, with `.md`), as `path`
    /// named it.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    /// With `broken` and `ambiguous`: the links of this page, by note, then
    /// line.
    #[serde(skip_serializing_if = "Option::is_none")]
    links: Option<Vec<FoundLink>>,
    /// With `orphans` (by path) and `neighbours` (nearest first, then by
    /// path): the notes of this page.
    #[serde(skip_serializing_if = "Option::is_none")]
    notes: Option<Vec<LinkedNote>>,
    /// How many links or notes there are in all (every page).
    total: usize,
    /// Pass it back as `cursor` for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
}

impl From<kiln::FoundLinks> for FoundLinks {
    fn from(found: kiln::FoundLinks) -> Self {
        let kiln::FoundLinks {
            kind,
            note,
            links,
            notes,
            total,
            next_cursor,
        } = found;
        let of_links = matches!(kind, kiln::LinkQuery::Broken | kiln::LinkQuery::Ambiguous);
        FoundLinks {
            kind: kind.into(),
            note,
            links: of_links.then(|| links.into_iter().map(Into::into).collect()),
            notes: (!of_links).then(|| notes.into_iter().map(Into::into).collect()),
            total,
            next_cursor,
        }
    }
}

/// One link found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct FoundLink {
    /// The note the link is written in.
    note: String,
    /// The link's line, from 1; for a link in the frontmatter, the line of
    /// its property's key.
    line: usize,
    /// The frontmatter property the link is the value of, when it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    property: Option<String>,
    /// The target as written (without heading, block or alias).
    target: String,
    /// Whether it is an embed (`![[...]]`).
    embed: bool,
    /// With `ambiguous`: the note the link leads to, as Obsidian picks it
    /// (the one in the linking note's folder, else the shortest path).
    #[serde(skip_serializing_if = "Option::is_none")]
    chosen: Option<String>,
    /// With `ambiguous`: how many notes match the target.
    #[serde(skip_serializing_if = "Option::is_none")]
    candidates: Option<usize>,
}

impl From<kiln::FoundLink> for FoundLink {
    fn from(link: kiln::FoundLink) -> Self {
        let kiln::FoundLink {
            note,
            line,
            property,
            target,
            embed,
            chosen,
            candidates,
        } = link;
        FoundLink {
            note,
            line,
            property,
            target,
            embed,
            chosen,
            candidates,
        }
    }
}

/// One note found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct LinkedNote {
    /// The note's path (NFC, with `.md`).
    path: String,
    /// With `neighbours`: how many links away it is, the shorter way.
    #[serde(skip_serializing_if = "Option::is_none")]
    distance: Option<usize>,
    /// With `neighbours`: the way it is nearest.
    #[serde(skip_serializing_if = "Option::is_none")]
    direction: Option<Direction>,
}

impl From<kiln::LinkedNote> for LinkedNote {
    fn from(note: kiln::LinkedNote) -> Self {
        let kiln::LinkedNote {
            path,
            distance,
            direction,
        } = note;
        LinkedNote {
            path,
            distance,
            direction: direction.map(Into::into),
        }
    }
}

/// Which way a neighbour is nearest the note.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(in crate::mcp) enum Direction {
    /// Following links out of the note (at distance 1: the note links to
    /// it).
    Out,
    /// Following links into the note (at distance 1: it links to the note).
    In,
    /// Both ways at the same distance (at distance 1: they link to each
    /// other).
    Both,
}

impl From<kiln::Direction> for Direction {
    fn from(direction: kiln::Direction) -> Self {
        match direction {
            kiln::Direction::Out => Direction::Out,
            kiln::Direction::In => Direction::In,
            kiln::Direction::Both => Direction::Both,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_fs::Workspace;
    use quire_kiln::KilnTools;

    /// A default page of broken links with long paths and targets stays
    /// under 16 KB, and says how to get the rest.
    #[test]
    fn a_default_page_fits_16_kb() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir
            .path()
            .join("a-rather-long-folder-name/with-a-subfolder/and-another");
        std::fs::create_dir_all(&folder).unwrap();
        for n in 0..40 {
            let links: String = (0..5)
                .map(|k| format!("[[A missing note with a long descriptive title {n} {k}]]\n"))
                .collect();
            std::fs::write(
                folder.join(format!("a note with a long name {n:02}.md")),
                links,
            )
            .unwrap();
        }
        let tools = KilnTools::new(Workspace::new(dir.path()).unwrap());
        let found = tools
            .find_links(&kiln::FindLinksRequest::new(kiln::LinkQuery::Broken))
            .unwrap();
        assert_eq!(found.total, 200);
        let json = serde_json::to_string(&FoundLinks::from(found)).unwrap();
        assert!(json.len() <= 16 * 1024, "{} bytes", json.len());
        assert!(json.contains("\"next_cursor\""));
    }

    #[test]
    fn the_answer_serializes_with_each_kinds_fields() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "x\n![[b]] [[nowhere]]\n").unwrap();
        std::fs::write(dir.path().join("b.md"), "[[a]]\n").unwrap();
        let tools = KilnTools::new(Workspace::new(dir.path()).unwrap());
        let answer = |request: kiln::FindLinksRequest| {
            serde_json::to_value(FoundLinks::from(tools.find_links(&request).unwrap())).unwrap()
        };
        assert_eq!(
            answer(kiln::FindLinksRequest::new(kiln::LinkQuery::Broken)),
            serde_json::json!({
                "kind": "broken",
                "links": [{"note": "a.md", "line": 2, "target": "nowhere", "embed": false}],
                "total": 1
            })
        );
        assert_eq!(
            answer(kiln::FindLinksRequest::new(kiln::LinkQuery::Ambiguous)),
            serde_json::json!({"kind": "ambiguous", "links": [], "total": 0})
        );
        assert_eq!(
            answer(kiln::FindLinksRequest::neighbours("a")),
            serde_json::json!({
                "kind": "neighbours",
                "note": "a.md",
                "notes": [{"path": "b.md", "distance": 1, "direction": "both"}],
                "total": 1
            })
        );
    }
}
