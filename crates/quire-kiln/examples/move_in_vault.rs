//! Moves a note in a real vault and checks that every link still leads
//! where it led: the figures of issue 28's closing note.
//!
//! ```text
//! cargo run --release -p quire-kiln --example move_in_vault -- <vault> --most-linked
//! cargo run --release -p quire-kiln --example move_in_vault -- <vault> <path> <new path>
//! ```
//!
//! The first form lists the notes with the most backlinks. The second moves
//! `path` to `new path` (the vault is changed: use a copy), then indexes the
//! vault again from scratch and compares every link of every note with
//! where it led before (the moved note counted by its new path).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use quire_fs::Workspace;
use quire_kiln::{KilnIndex, KilnTools, MoveNoteRequest, NotePath};

/// Where each link of each note leads, by source note, the moved note
/// (`from`) named `to` as source and as destination.
fn destinations(index: &KilnIndex, from: &str, to: &str) -> BTreeMap<String, Vec<Option<String>>> {
    let renamed = |path: &str| {
        if path == from {
            to.to_owned()
        } else {
            path.to_owned()
        }
    };
    index
        .notes()
        .map(|note| {
            let leads = note
                .links
                .iter()
                .map(|link| {
                    link.path
                        .as_ref()
                        .map(|path| renamed(path.as_str()))
                        .or_else(|| link.attachment.clone())
                })
                .collect();
            (renamed(note.path.as_str()), leads)
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(vault) = args.first() else {
        return Err("usage: move_in_vault <vault> (--most-linked | <path> <new path>)".into());
    };
    let workspace = Workspace::new(Path::new(vault))?;
    let before = KilnIndex::build(&workspace)?;
    if args.get(1).map(String::as_str) == Some("--most-linked") {
        let mut counts: Vec<(usize, String)> = before
            .notes()
            .map(|note| (before.backlinks(&note.path).count(), note.path.to_string()))
            .collect();
        counts.sort_by(|a, b| b.cmp(a));
        for (count, path) in counts.iter().take(400) {
            println!("{count}\t{path}");
        }
        return Ok(());
    }
    let (Some(path), Some(new_path)) = (args.get(1), args.get(2)) else {
        return Err("usage: move_in_vault <vault> (--most-linked | <path> <new path>)".into());
    };
    let from = NotePath::parse(path, workspace.root())?;
    let to = NotePath::parse(new_path, workspace.root())?;
    let expected = destinations(&before, from.as_str(), to.as_str());
    let linking_before = before.backlinks(&from).count();
    let links_to_it: usize = expected
        .values()
        .flatten()
        .filter(|leads| leads.as_deref() == Some(to.as_str()))
        .count();
    // As `quire serve` runs it: a watcher keeps the index fresh.
    let tools =
        KilnTools::new(Workspace::new(Path::new(vault))?).with_budget(Duration::from_secs(120));
    let request = MoveNoteRequest {
        path: path.clone(),
        new_path: new_path.clone(),
        expected_sha256: None,
    };
    // A first preview waits for the index, so the figures below are the
    // move's alone.
    let indexing = Instant::now();
    tools.preview_move(&request)?;
    println!(
        "index built and first preview: {} ms",
        indexing.elapsed().as_millis()
    );
    let started = Instant::now();
    let preview = tools.preview_move(&request);
    let previewed = started.elapsed();
    let preview = preview?;
    let started = Instant::now();
    let moved = tools.move_note(&request)?;
    let took = started.elapsed();
    let after = KilnIndex::build(&workspace)?;
    let now = destinations(&after, to.as_str(), to.as_str());
    let mut differing = 0;
    for (source, leads) in &expected {
        if now.get(source) != Some(leads) {
            differing += 1;
            if differing <= 10 {
                println!("differs: {source}: {leads:?} -> {:?}", now.get(source));
            }
        }
    }
    let links_now: usize = now
        .values()
        .flatten()
        .filter(|leads| leads.as_deref() == Some(to.as_str()))
        .count();
    println!("moved {} -> {}", moved.path, moved.new_path);
    println!("notes linking to it before: {linking_before}; links to it: {links_to_it}");
    println!(
        "notes changed: {}; links rewritten: {}",
        moved.relinked.len(),
        moved.links_changed
    );
    println!(
        "preview: {} ms; move: {} ms",
        previewed.as_millis(),
        took.as_millis()
    );
    println!("links to it after, from a fresh index: {links_now}");
    println!(
        "notes whose links lead elsewhere than before: {differing} (of {})",
        expected.len()
    );
    println!("question: {}", preview.summary());
    if differing > 0 || links_now != links_to_it {
        return Err("a link no longer leads where it led".into());
    }
    Ok(())
}
