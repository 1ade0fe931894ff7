//! `find_links`: what the kiln's link graph says, from the index, a page at
//! a time: the links that lead nowhere (`broken`), the links several notes
//! match (`ambiguous`), the notes nothing links to (`orphans`), and the
//! notes around one note (`neighbours`).
//!
//! Links are the index's own ([`IndexedNote::links`]): wikilinks and
//! embeds, Markdown links to local files, and wikilinks written as
//! frontmatter values, resolved as Obsidian resolves them. A link to an
//! attachment that exists (an image, a PDF, ...) is not broken; one to a
//! heading of the note itself (`[[#Goals]]`) leads to the note.
//!
//! Each answer is sorted (links by note, line and place in the note;
//! orphans by path; neighbours by distance, then path) and paged with the
//! cursor of [`page`], which resumes after the last item returned.

use std::collections::{BTreeMap, VecDeque};

use super::index::{IndexedNote, KilnIndex};
use super::note_path::{FolderPath, NotePath};
use super::page::page;
use super::resolve::{Resolution, resolve};

/// The most items one page holds.
pub const MAX_LINKS_LIMIT: usize = 1_000;
/// The farthest `neighbours` looks, in links.
pub const MAX_NEIGHBOUR_DEPTH: usize = 3;

/// What [`KilnTools::find_links`](crate::KilnTools::find_links) looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkQuery {
    /// The links that lead to no note and no attachment.
    Broken,
    /// The links that several notes match.
    Ambiguous,
    /// The notes that no other note links to.
    Orphans,
    /// The notes linked from and to one note, out to a depth.
    Neighbours,
}

impl LinkQuery {
    /// The kind's name, as a request writes it.
    pub fn name(self) -> &'static str {
        match self {
            LinkQuery::Broken => "broken",
            LinkQuery::Ambiguous => "ambiguous",
            LinkQuery::Orphans => "orphans",
            LinkQuery::Neighbours => "neighbours",
        }
    }
}

/// A `find_links` request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FindLinksRequest {
    /// What to find.
    pub kind: LinkQuery,
    /// For [`LinkQuery::Neighbours`] (and only for it): the note, as a
    /// path, a name, an alias or a wikilink.
    pub path: Option<String>,
    /// For [`LinkQuery::Neighbours`] (and only for it): how many links
    /// away to look, 1 to [`MAX_NEIGHBOUR_DEPTH`]
    /// ([`Self::DEFAULT_DEPTH`] when `None`).
    pub depth: Option<usize>,
    /// Only the links written in, or the notes, beneath this folder,
    /// relative to the kiln root (the whole kiln when `None`).
    pub folder: Option<String>,
    /// The most items per page (1 to [`MAX_LINKS_LIMIT`]).
    pub limit: usize,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

impl FindLinksRequest {
    /// The most items per page when the caller names no limit: a page of
    /// links with their notes' paths stays near 8 KB.
    pub const DEFAULT_LIMIT: usize = 50;
    /// How far `neighbours` looks when the caller names no depth.
    pub const DEFAULT_DEPTH: usize = 1;

    /// The first page of `kind` over the whole kiln, [`Self::DEFAULT_LIMIT`]
    /// long.
    pub fn new(kind: LinkQuery) -> Self {
        FindLinksRequest {
            kind,
            path: None,
            depth: None,
            folder: None,
            limit: Self::DEFAULT_LIMIT,
            cursor: None,
        }
    }

    /// The neighbours of the note `path`, [`Self::DEFAULT_DEPTH`] away.
    pub fn neighbours(path: impl Into<String>) -> Self {
        FindLinksRequest {
            path: Some(path.into()),
            ..FindLinksRequest::new(LinkQuery::Neighbours)
        }
    }

    /// The depth to look to, once the arguments are checked against each
    /// other: what [`find_links`] runs with.
    pub(crate) fn checked(&self) -> Result<usize, FindLinksError> {
        if self.limit == 0 || self.limit > MAX_LINKS_LIMIT {
            return Err(FindLinksError::Limit(self.limit));
        }
        let kind = self.kind.name();
        match (self.kind, &self.path, self.depth) {
            (LinkQuery::Neighbours, None, _) => Err(FindLinksError::NoPath),
            (LinkQuery::Neighbours, Some(_), Some(depth))
                if depth == 0 || depth > MAX_NEIGHBOUR_DEPTH =>
            {
                Err(FindLinksError::Depth(depth))
            }
            (LinkQuery::Neighbours, Some(_), depth) => Ok(depth.unwrap_or(Self::DEFAULT_DEPTH)),
            (_, Some(_), _) => Err(FindLinksError::PathNotUsed { kind }),
            (_, None, Some(_)) => Err(FindLinksError::DepthNotUsed { kind }),
            (_, None, None) => Ok(0),
        }
    }
}

/// One page of what `find_links` found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundLinks {
    /// What was looked for.
    pub kind: LinkQuery,
    /// For `neighbours`: the note's path (NFC, with `.md`).
    pub note: Option<String>,
    /// For `broken` and `ambiguous`: the links of this page.
    pub links: Vec<FoundLink>,
    /// For `orphans` and `neighbours`: the notes of this page.
    pub notes: Vec<LinkedNote>,
    /// How many links or notes there are in all (every page).
    pub total: usize,
    /// Pass it as `cursor` for the next page; `None` on the last page.
    pub next_cursor: Option<String>,
}

/// One link found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundLink {
    /// The note the link is written in.
    pub note: String,
    /// Its 1-based line; for a link in the frontmatter, the line of its
    /// property's key.
    pub line: usize,
    /// The frontmatter property the link is the value of, when it is one.
    pub property: Option<String>,
    /// The target as written (without heading, block or alias).
    pub target: String,
    /// Whether it is an embed (`![[...]]`).
    pub embed: bool,
    /// For an ambiguous link: the note it leads to (as Obsidian picks it).
    pub chosen: Option<String>,
    /// For an ambiguous link: how many notes match it.
    pub candidates: Option<usize>,
}

/// One note found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkedNote {
    /// The note's path (NFC, with `.md`).
    pub path: String,
    /// For a neighbour: how many links away it is, the shorter way.
    pub distance: Option<usize>,
    /// For a neighbour: which way it is nearest.
    pub direction: Option<Direction>,
}

/// Which way a neighbour is nearest the note.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// By following links out of the note (at distance 1: it links
    /// there).
    Out,
    /// By following links into the note (at distance 1: it is linked from
    /// there).
    In,
    /// Both ways at the same distance (at distance 1: they link to each
    /// other).
    Both,
}

/// Why `find_links`'s arguments do not make a query.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FindLinksError {
    /// A limit of 0 or over [`MAX_LINKS_LIMIT`].
    #[error("`limit` is {0}; give 1 to {MAX_LINKS_LIMIT}, and page with `cursor` for more")]
    Limit(usize),
    /// A depth of 0 or over [`MAX_NEIGHBOUR_DEPTH`].
    #[error(
        "`depth` is {0}; give 1 (the notes linked from and to the note) to {MAX_NEIGHBOUR_DEPTH}"
    )]
    Depth(usize),
    /// `neighbours` without `path`.
    #[error(
        "`neighbours` needs `path`, the note whose neighbours to find, such as \
         {{\"kind\": \"neighbours\", \"path\": \"projects/Plan\"}}"
    )]
    NoPath,
    /// `path` with another kind.
    #[error(
        "`path` is only for `neighbours`; leave it out for `{kind}` (give `folder` to look \
         beneath a folder)"
    )]
    PathNotUsed {
        /// The kind asked for.
        kind: &'static str,
    },
    /// `depth` with another kind.
    #[error("`depth` is only for `neighbours`; leave it out for `{kind}`")]
    DepthNotUsed {
        /// The kind asked for.
        kind: &'static str,
    },
    /// A cursor this query did not return.
    #[error(
        "`cursor` is not one this query returned; pass the `next_cursor` of the previous page \
         unchanged (with the same kind), or leave it out to start from the first page"
    )]
    Cursor,
}

/// The page of what `request` asks for, beneath `folder`; `note` is the
/// note whose neighbours are asked for (found by the caller).
pub(crate) fn find_links(
    index: &KilnIndex,
    folder: &FolderPath,
    note: Option<&NotePath>,
    request: &FindLinksRequest,
) -> Result<FoundLinks, FindLinksError> {
    let depth = request.checked()?;
    let (keys, links, notes): (Vec<String>, Vec<FoundLink>, Vec<LinkedNote>) =
        match (request.kind, note) {
            (LinkQuery::Broken | LinkQuery::Ambiguous, _) => {
                let (keys, links) = links_found(index, folder, request.kind).into_iter().unzip();
                (keys, links, Vec::new())
            }
            (LinkQuery::Orphans, _) => {
                let notes: Vec<LinkedNote> = index
                    .notes()
                    .filter(|note| folder.contains(&note.path))
                    .filter(|note| index.backlinks(&note.path).next().is_none())
                    .map(|note| LinkedNote {
                        path: note.path.to_string(),
                        distance: None,
                        direction: None,
                    })
                    .collect();
                let keys = notes.iter().map(|note| note.path.clone()).collect();
                (keys, Vec::new(), notes)
            }
            (LinkQuery::Neighbours, Some(note)) => {
                let (keys, notes) = neighbours(index, note, depth)
                    .into_iter()
                    .filter(|(path, _)| folder.contains(path))
                    .map(|(path, (distance, direction))| {
                        // Nearest first: the distance (one digit) leads the key.
                        let key = format!("{distance}\0{path}");
                        let note = LinkedNote {
                            path: path.to_string(),
                            distance: Some(distance),
                            direction: Some(direction),
                        };
                        (key, note)
                    })
                    .collect::<BTreeMap<String, LinkedNote>>()
                    .into_iter()
                    .unzip();
                (keys, Vec::new(), notes)
            }
            (LinkQuery::Neighbours, None) => return Err(FindLinksError::NoPath),
        };
    let total = keys.len();
    // Each key with its place, so the page's places say which links or
    // notes it holds.
    let keyed: Vec<(String, usize)> = keys.into_iter().zip(0..).collect();
    let page = page(
        &keyed,
        |(key, _)| key.as_str(),
        request.cursor.as_deref(),
        request.limit,
    )
    .map_err(|_| FindLinksError::Cursor)?;
    let range = page
        .items
        .first()
        .map_or(0..0, |(_, first)| *first..first + page.items.len());
    Ok(FoundLinks {
        kind: request.kind,
        note: note
            .filter(|_| request.kind == LinkQuery::Neighbours)
            .map(ToString::to_string),
        links: links
            .get(range.clone())
            .map(<[_]>::to_vec)
            .unwrap_or_default(),
        notes: notes.get(range).map(<[_]>::to_vec).unwrap_or_default(),
        total,
        next_cursor: page.next_cursor,
    })
}

/// The broken or ambiguous links written in the notes beneath `folder`,
/// each with its sort key (note, line, place), sorted.
fn links_found(
    index: &KilnIndex,
    folder: &FolderPath,
    kind: LinkQuery,
) -> Vec<(String, FoundLink)> {
    let mut found = Vec::new();
    for note in index.notes().filter(|note| folder.contains(&note.path)) {
        for (place, (link, (line, property))) in note.links.iter().zip(places(note)).enumerate() {
            let wanted = match kind {
                LinkQuery::Broken => link.path.is_none() && link.attachment.is_none(),
                _ => link.ambiguous,
            };
            if !wanted {
                continue;
            }
            let candidates = match resolve(&link.target, &note.path, index.note_set()) {
                Resolution::Ambiguous { match_count, .. } => Some(match_count),
                _ => None,
            };
            // The note's path ends at `\0`, which no path holds, so keys
            // sort as their notes do; the zero-padded line and place then
            // sort as numbers.
            let key = format!("{}\0{line:010}\0{place:06}", note.path);
            found.push((
                key,
                FoundLink {
                    note: note.path.to_string(),
                    line,
                    property: property.map(str::to_owned),
                    target: link.target.clone(),
                    embed: link.embed,
                    chosen: link
                        .path
                        .as_ref()
                        .filter(|_| link.ambiguous)
                        .map(ToString::to_string),
                    candidates,
                },
            ));
        }
    }
    found.sort_by(|(a, _), (b, _)| a.cmp(b));
    found
}

/// Where each of `note`'s links is written, in the order of its `links`:
/// the line, and the property for a link in the frontmatter.
fn places(note: &IndexedNote) -> impl Iterator<Item = (usize, Option<&str>)> + '_ {
    let facts = &note.facts;
    let wikilinks = facts.wikilinks.iter().map(|link| (link.line, None));
    let markdown = facts.markdown_links.iter().map(|link| (link.line, None));
    let properties = facts
        .property_links
        .iter()
        .map(|link| (link.line, Some(link.key.as_str())));
    wikilinks.chain(markdown).chain(properties)
}

/// The notes within `depth` links of `start`, following links out and
/// following them in, each with its distance the shorter way and that way
/// (`both` when the two are as short; `start` itself left out).
fn neighbours(
    index: &KilnIndex,
    start: &NotePath,
    depth: usize,
) -> BTreeMap<NotePath, (usize, Direction)> {
    let out = reached(start, depth, |path| {
        index
            .get(path)
            .map(|note| {
                note.links
                    .iter()
                    .filter_map(|link| link.path.clone())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    });
    let into = reached(start, depth, |path| {
        index.backlinks(path).cloned().collect::<Vec<_>>()
    });
    let mut found = BTreeMap::new();
    for (path, distance) in out {
        found.insert(path, (distance, Direction::Out));
    }
    for (path, distance) in into {
        let Some(way) = found.get_mut(&path) else {
            found.insert(path, (distance, Direction::In));
            continue;
        };
        // Reached both ways: the shorter way says the direction.
        match distance.cmp(&way.0) {
            std::cmp::Ordering::Less => *way = (distance, Direction::In),
            std::cmp::Ordering::Equal => way.1 = Direction::Both,
            std::cmp::Ordering::Greater => {}
        }
    }
    found.remove(start);
    found
}

/// The notes `next` leads to from `start`, breadth first, each with its
/// distance, out to `depth`.
fn reached(
    start: &NotePath,
    depth: usize,
    next: impl Fn(&NotePath) -> Vec<NotePath>,
) -> BTreeMap<NotePath, usize> {
    let mut distances = BTreeMap::from([(start.clone(), 0)]);
    let mut queue = VecDeque::from([start.clone()]);
    while let Some(path) = queue.pop_front() {
        let distance = distances[&path];
        if distance == depth {
            continue;
        }
        for linked in next(&path) {
            if !distances.contains_key(&linked) {
                distances.insert(linked.clone(), distance + 1);
                queue.push_back(linked);
            }
        }
    }
    distances.remove(start);
    distances
}
