//! The kiln's writes through `KilnTools`, byte by byte: what a create,
//! an update and a delete change, what they keep, what they refuse (and
//! that a refusal writes nothing), what the index sees right after, and
//! two writers racing on one note with `expected_sha256`.

#[allow(dead_code)]
#[path = "support/kiln_calls.rs"]
mod kiln_calls;

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::sync::Arc;

use kiln_calls::{listed, read_whole};
use quire_fs::Workspace;
use quire_kiln::{
    BodyEdit, CreateNoteRequest, DeleteNoteRequest, KilnError, KilnTools, ReadMetadataRequest,
    UpdateNoteRequest,
};
use serde_json::json;

fn tools(root: &Path) -> KilnTools {
    KilnTools::new(Workspace::new(root).unwrap())
}

fn create(path: &str, content: &str, frontmatter: Option<serde_json::Value>) -> CreateNoteRequest {
    CreateNoteRequest {
        path: path.to_owned(),
        content: content.to_owned(),
        frontmatter: frontmatter.map(|value| value.as_object().unwrap().clone()),
    }
}

fn update(
    path: &str,
    content: Option<&str>,
    frontmatter: Option<serde_json::Value>,
    expected: Option<&str>,
) -> UpdateNoteRequest {
    UpdateNoteRequest {
        path: path.to_owned(),
        content: content.map(str::to_owned),
        frontmatter: frontmatter.map(|value| value.as_object().unwrap().clone()),
        set_properties: None,
        remove_properties: None,
        edit: None,
        expected_sha256: expected.map(str::to_owned),
    }
}

fn sha(tools: &KilnTools, path: &str) -> String {
    tools.read_note(&read_whole(path)).unwrap().sha256
}

#[test]
fn create_writes_the_note_with_its_folders_and_refuses_to_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let tools = tools(root);
    assert!(listed(&tools).is_empty());

    let created = tools
        .create_note(&create(
            "projects/2026/Plan",
            "# Plan\nship it\n",
            Some(json!({"status": "draft", "tags": ["work"]})),
        ))
        .unwrap();
    assert_eq!(created.path, "projects/2026/Plan.md");
    assert_eq!(created.word_count, 3);
    let written = fs::read_to_string(root.join("projects/2026/Plan.md")).unwrap();
    assert_eq!(
        written,
        "---\nstatus: draft\ntags:\n  - work\n---\n# Plan\nship it\n"
    );
    assert_eq!(created.sha256, sha(&tools, "projects/2026/Plan"));
    // The index sees it at once.
    assert_eq!(listed(&tools), ["projects/2026/Plan.md"]);

    let error = tools
        .create_note(&create("projects/2026/Plan.md", "other\n", None))
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("Change the existing note instead"),
        "{error}"
    );
    assert_eq!(
        fs::read_to_string(root.join("projects/2026/Plan.md")).unwrap(),
        written
    );

    // An NFD twin on disk is the same note.
    fs::write(root.join("Cafe\u{301}.md"), "nfd\n").unwrap();
    let error = tools
        .create_note(&create("Caf\u{e9}", "nfc\n", None))
        .unwrap_err();
    assert!(error.to_string().contains("already exists"), "{error}");
    assert!(!root.join("Caf\u{e9}.md").exists());

    for (path, expected) in [
        (".obsidian/x", "hidden"),
        ("../outside", "climbs above"),
        ("a\0b", "NUL"),
    ] {
        let error = tools.create_note(&create(path, "x", None)).unwrap_err();
        assert!(error.is_invalid(), "{path}: {error}");
        assert!(error.to_string().contains(expected), "{path}: {error}");
    }
    let error = tools
        .create_note(&create(
            "x",
            "---\na: 1\n---\nbody\n",
            Some(json!({"b": 2})),
        ))
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("starts with a frontmatter block"),
        "{error}"
    );
    assert!(!root.join("x.md").exists());
}

#[test]
fn create_never_writes_through_a_link_out() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    symlink(outside.path(), dir.path().join("away")).unwrap();
    let tools = tools(dir.path());
    let error = tools
        .create_note(&create("away/new", "x\n", None))
        .unwrap_err();
    assert!(error.to_string().contains("outside"), "{error}");
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[test]
fn update_replaces_only_what_it_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let original = "---\r\nstatus: todo # kept\r\n---\r\n# Body\r\nold\r\n";
    fs::write(root.join("Note.md"), original).unwrap();
    fs::set_permissions(root.join("Note.md"), fs::Permissions::from_mode(0o640)).unwrap();
    let tools = tools(root);

    let done = tools
        .update_note(&update("Note", Some("new body\r\n"), None, None))
        .unwrap();
    assert_eq!(done.updated, ["content"]);
    assert_eq!(
        fs::read_to_string(root.join("Note.md")).unwrap(),
        "---\r\nstatus: todo # kept\r\n---\r\nnew body\r\n"
    );
    let mode = fs::metadata(root.join("Note.md"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o640);

    let done = tools
        .update_note(&update("Note", None, Some(json!({"status": "done"})), None))
        .unwrap();
    assert_eq!(done.updated, ["frontmatter"]);
    assert_eq!(
        fs::read_to_string(root.join("Note.md")).unwrap(),
        "---\r\nstatus: done\r\n---\r\nnew body\r\n"
    );
    let metadata = tools
        .read_metadata(&ReadMetadataRequest {
            path: "Note".to_owned(),
        })
        .unwrap();
    assert_eq!(metadata.frontmatter["status"], "done");

    let error = tools
        .update_note(&update("Note", None, None, None))
        .unwrap_err();
    assert!(error.to_string().contains("nothing to change"), "{error}");
    let missing = tools
        .update_note(&update("Nope", Some("x"), None, None))
        .unwrap_err();
    assert!(missing.is_not_found(), "{missing}");
}

#[test]
fn a_stale_digest_or_broken_frontmatter_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("Note.md"), "first\n").unwrap();
    let tools = tools(root);
    let read = sha(&tools, "Note");
    fs::write(root.join("Note.md"), "changed by someone else\n").unwrap();
    let error = tools
        .update_note(&update("Note", Some("mine\n"), None, Some(&read)))
        .unwrap_err();
    assert!(
        error.to_string().contains("changed since it was read"),
        "{error}"
    );
    assert_eq!(
        fs::read_to_string(root.join("Note.md")).unwrap(),
        "changed by someone else\n"
    );
    let current = sha(&tools, "Note");
    tools
        .update_note(&update(
            "Note",
            Some("mine\n"),
            None,
            Some(&current.to_uppercase()),
        ))
        .unwrap();
    assert_eq!(fs::read_to_string(root.join("Note.md")).unwrap(), "mine\n");

    let broken = "---\ntitle: [x\n---\nbody\n";
    fs::write(root.join("Broken.md"), broken).unwrap();
    let error = tools
        .update_note(&update("Broken", Some("new\n"), None, None))
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("pass `frontmatter` to replace it"),
        "{error}"
    );
    assert_eq!(fs::read_to_string(root.join("Broken.md")).unwrap(), broken);
    tools
        .update_note(&update("Broken", None, Some(json!({"title": "[x"})), None))
        .unwrap();
    assert_eq!(
        fs::read_to_string(root.join("Broken.md")).unwrap(),
        "---\ntitle: \"[x\"\n---\nbody\n"
    );
}

#[test]
fn racing_writers_with_the_digest_never_lose_an_update() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("Counter.md"), "0\n").unwrap();
    let tools = Arc::new(tools(root));
    // Each writer adds its mark to what it read; a write on a stale read is
    // refused, and the writer reads again.
    let writers: Vec<_> = (0..4)
        .map(|writer| {
            let tools = Arc::clone(&tools);
            std::thread::spawn(move || {
                let mut refused = 0;
                for round in 0..10 {
                    loop {
                        let read = tools.read_note(&read_whole("Counter")).unwrap();
                        let content = format!("{}w{writer}r{round}\n", read.content);
                        match tools.update_note(&update(
                            "Counter",
                            Some(&content),
                            None,
                            Some(&read.sha256),
                        )) {
                            Ok(_) => break,
                            Err(KilnError::Write(_) | KilnError::File(_)) => refused += 1,
                            Err(other) => panic!("{other}"),
                        }
                    }
                }
                refused
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    let text = fs::read_to_string(root.join("Counter.md")).unwrap();
    for writer in 0..4 {
        for round in 0..10 {
            assert!(
                text.contains(&format!("w{writer}r{round}\n")),
                "lost w{writer}r{round}:\n{text}"
            );
        }
    }
    assert_eq!(text.lines().count(), 41);
}

#[test]
fn delete_moves_to_the_trash_and_names_the_notes_that_linked() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("a")).unwrap();
    fs::create_dir_all(root.join("b")).unwrap();
    fs::write(root.join("a/Plan.md"), "the plan\n").unwrap();
    fs::write(root.join("b/Plan.md"), "another plan\n").unwrap();
    fs::write(root.join("Home.md"), "[[a/Plan]] and ![[a/Plan#Goals]]\n").unwrap();
    fs::write(root.join("Loose.md"), "[[Plan]]\n").unwrap();
    fs::write(root.join("Prop.md"), "---\nup: \"[[a/Plan]]\"\n---\n").unwrap();
    fs::write(root.join("Code.md"), "`[[a/Plan]]`\n```\n[[a/Plan]]\n```\n").unwrap();
    let tools = tools(root);
    assert_eq!(listed(&tools).len(), 6);

    let deleted = tools
        .delete_note(&DeleteNoteRequest {
            path: "a/Plan".into(),
            permanent: false,
        })
        .unwrap();
    assert!(deleted.deleted);
    assert_eq!(deleted.trashed_to.as_deref(), Some(".trash/Plan.md"));
    // A property whose value is the link links too, as in Obsidian.
    assert_eq!(deleted.backlinks, ["Home.md", "Prop.md"]);
    assert_eq!(deleted.ambiguous_backlinks, ["Loose.md"]);
    assert_eq!(deleted.backlink_count, 2);
    assert_eq!(
        fs::read_to_string(root.join(".trash/Plan.md")).unwrap(),
        "the plan\n"
    );
    assert!(!root.join("a/Plan.md").exists());
    assert!(!listed(&tools).contains(&"a/Plan.md".to_owned()));

    let gone = tools
        .delete_note(&DeleteNoteRequest {
            path: "b/Plan".into(),
            permanent: true,
        })
        .unwrap();
    assert_eq!(gone.trashed_to, None);
    assert!(!root.join("b/Plan.md").exists());
    assert!(!root.join(".trash/Plan 1.md").exists());

    let error = tools
        .delete_note(&DeleteNoteRequest {
            path: ".trash/Plan".into(),
            permanent: true,
        })
        .unwrap_err();
    assert!(error.to_string().contains("hidden"), "{error}");
}

#[test]
fn a_note_that_is_a_link_is_trashed_as_a_link_and_never_removed_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("Real.md"), "real\n").unwrap();
    symlink(root.join("Real.md"), root.join("Alias.md")).unwrap();
    let tools = tools(root);
    let error = tools
        .delete_note(&DeleteNoteRequest {
            path: "Alias".into(),
            permanent: true,
        })
        .unwrap_err();
    assert!(error.to_string().contains("symbolic link"), "{error}");
    assert_eq!(fs::read_to_string(root.join("Real.md")).unwrap(), "real\n");
    let trashed = tools
        .delete_note(&DeleteNoteRequest {
            path: "Alias".into(),
            permanent: false,
        })
        .unwrap();
    assert_eq!(trashed.trashed_to.as_deref(), Some(".trash/Alias.md"));
    assert!(
        fs::symlink_metadata(root.join(".trash/Alias.md"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(root.join("Real.md")).unwrap(), "real\n");
}

#[test]
fn hostile_notes_are_refused_and_left_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(outside.path().join("Secret.md"), "secret\n").unwrap();
    symlink(outside.path().join("Secret.md"), root.join("Out.md")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        root.join("Pipe.md"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    fs::write(root.join("Bytes.md"), b"\xff\xfe not text\n").unwrap();
    fs::write(root.join("Locked.md"), "locked\n").unwrap();
    fs::set_permissions(root.join("Locked.md"), fs::Permissions::from_mode(0o444)).unwrap();
    let tools = tools(root);

    for (path, expected) in [
        ("Out", "outside"),
        ("Pipe", "not a regular file"),
        ("Bytes", "not UTF-8"),
        ("Locked", "read-only"),
    ] {
        // A FIFO must not hang the call: the layer opens without blocking.
        let error = tools
            .update_note(&update(path, Some("new\n"), None, None))
            .unwrap_err();
        assert!(error.to_string().contains(expected), "{path}: {error}");
    }
    assert_eq!(
        fs::read_to_string(outside.path().join("Secret.md")).unwrap(),
        "secret\n"
    );
    assert_eq!(
        fs::read(root.join("Bytes.md")).unwrap(),
        b"\xff\xfe not text\n"
    );
    assert_eq!(
        fs::read_to_string(root.join("Locked.md")).unwrap(),
        "locked\n"
    );

    // A link out is never removed through (nor is what it leads to), but
    // the link itself can go to the trash: moving it touches nothing
    // beyond it.
    let error = tools
        .delete_note(&DeleteNoteRequest {
            path: "Out".into(),
            permanent: true,
        })
        .unwrap_err();
    assert!(error.to_string().contains("symbolic link"), "{error}");
    let trashed = tools
        .delete_note(&DeleteNoteRequest {
            path: "Out".into(),
            permanent: false,
        })
        .unwrap();
    assert_eq!(trashed.trashed_to.as_deref(), Some(".trash/Out.md"));
    assert!(
        fs::symlink_metadata(root.join(".trash/Out.md"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        fs::read_to_string(outside.path().join("Secret.md")).unwrap(),
        "secret\n"
    );

    let huge = "x".repeat(16 * 1024 * 1024 + 1);
    let error = tools.create_note(&create("Huge", &huge, None)).unwrap_err();
    assert!(error.to_string().contains("over the 16 MiB"), "{error}");
    assert!(!root.join("Huge.md").exists());
}

#[test]
fn a_preview_writes_nothing_and_an_approved_write_is_bound_to_what_was_previewed() {
    use quire_kiln::{PlannedChange, WriteDone, WriteRequest};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("Target.md"), "# Target\n").unwrap();
    fs::write(root.join("Linker.md"), "See [[Target]].\n").unwrap();
    let tools = tools(root);
    tools.start_indexing();
    let delete = WriteRequest::Delete(DeleteNoteRequest {
        path: "Target".to_owned(),
        permanent: false,
    });
    let preview = tools.preview(&delete).unwrap();
    assert_eq!(
        preview.change,
        PlannedChange::Delete {
            permanent: false,
            backlinks: vec!["Linker.md".to_owned()],
            ambiguous_backlinks: vec![],
        }
    );
    assert!(root.join("Target.md").exists());

    // Changed after the preview: the approval no longer holds.
    fs::write(root.join("Target.md"), "# Target, edited\n").unwrap();
    let refused = tools.apply_approved(&delete, &preview).unwrap_err();
    assert!(matches!(refused, KilnError::Write(_)), "{refused:?}");
    assert!(
        refused.to_string().contains("changed since it was read"),
        "{refused}"
    );
    assert_eq!(
        fs::read_to_string(root.join("Target.md")).unwrap(),
        "# Target, edited\n"
    );

    let replace = WriteRequest::Update(update("Target", Some("new\n"), None, None));
    let preview = tools.preview(&replace).unwrap();
    assert_eq!(
        preview.summary(),
        "Replace the content of `Target.md` (its frontmatter is kept); it will hold 1 word."
    );
    fs::write(root.join("Target.md"), "# Target, edited twice\n").unwrap();
    assert!(tools.apply_approved(&replace, &preview).is_err());
    assert_eq!(
        fs::read_to_string(root.join("Target.md")).unwrap(),
        "# Target, edited twice\n"
    );

    // Unchanged since the preview: applied.
    let preview = tools.preview(&replace).unwrap();
    let done = tools.apply_approved(&replace, &preview).unwrap();
    assert!(matches!(done, WriteDone::Updated(_)), "{done:?}");
    assert_eq!(fs::read_to_string(root.join("Target.md")).unwrap(), "new\n");
    let preview = tools.preview(&delete).unwrap();
    assert!(matches!(
        tools.apply_approved(&delete, &preview).unwrap(),
        WriteDone::Deleted(_)
    ));
    assert!(!root.join("Target.md").exists());

    // A preview of a create that is refused is refused as the create is.
    let existing = WriteRequest::Create(create("Linker", "x", None));
    assert!(
        tools
            .preview(&existing)
            .unwrap_err()
            .to_string()
            .contains("already exists")
    );
}

#[test]
fn backlinks_on_delete_count_every_form_of_link_and_nothing_in_code() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("x")).unwrap();
    fs::create_dir_all(root.join("y")).unwrap();
    fs::write(root.join("x/Topic.md"), "# Topic\n\nA para ^blk\n").unwrap();
    fs::write(root.join("y/Topic.md"), "the other topic\n").unwrap();
    let linkers = [
        ("Alias.md", "see [[x/Topic|the topic]]\n"),
        ("Heading.md", "see [[x/Topic#Topic]]\n"),
        ("Block.md", "see [[x/Topic#^blk]]\n"),
        ("Embed.md", "![[x/Topic]]\n"),
        ("Markdown.md", "see [the topic](x/Topic.md)\n"),
        ("Escaped.md", "see [the topic](<x/Topic.md>)\n"),
    ];
    for (name, text) in linkers {
        fs::write(root.join(name), text).unwrap();
    }
    fs::write(root.join("Stem.md"), "see [[Topic]]\n").unwrap();
    fs::write(
        root.join("Code.md"),
        "`[[x/Topic]]`\n\n```\n[[x/Topic]]\n```\n\n    [[x/Topic]]\n",
    )
    .unwrap();
    fs::write(root.join("Other.md"), "see [[y/Topic]]\n").unwrap();
    let tools = tools(root);
    let deleted = tools
        .delete_note(&DeleteNoteRequest {
            path: "x/Topic".into(),
            permanent: false,
        })
        .unwrap();
    let mut expected: Vec<&str> = linkers.iter().map(|(name, _)| *name).collect();
    expected.sort();
    assert_eq!(deleted.backlinks, expected);
    assert_eq!(deleted.backlink_count, linkers.len());
    // `[[Topic]]` matched both notes; Obsidian picks the one nearer the
    // root, sorted first (x/), and it is reported apart.
    assert_eq!(deleted.ambiguous_backlinks, ["Stem.md"]);
    assert!(!deleted.backlinks.contains(&"Code.md".to_owned()));
    assert!(!deleted.backlinks.contains(&"Other.md".to_owned()));
}

/// Issue 23: a note created under an NFC path goes into the folder written
/// NFD on disk (macOS), found without the index; it is never a second
/// folder that looks the same, which would hide the first one's notes.
#[test]
fn a_folder_written_nfd_on_disk_is_used_never_twinned() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let nfd = "re\u{301}sume\u{301}";
    fs::create_dir_all(root.join(nfd).join("old")).unwrap();
    fs::write(root.join(nfd).join("old/Letter.md"), "dear\n").unwrap();
    // No index: every folder on the path is matched on disk.
    let tools = tools(root);

    let created = tools
        .create_note(&create("résumé/cv", "# CV\n", None))
        .unwrap();
    assert_eq!(created.path, "résumé/cv.md");
    let names: Vec<String> = fs::read_dir(root)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, [nfd], "a second folder was made beside the NFD one");
    assert_eq!(
        fs::read_to_string(root.join(nfd).join("cv.md")).unwrap(),
        "# CV\n"
    );

    // Two folders deep, and a note that exists under the NFD folder.
    let refused = tools
        .create_note(&create("résumé/old/Letter", "again\n", None))
        .unwrap_err();
    assert!(refused.to_string().contains("already exists"), "{refused}");
    tools
        .create_note(&create("résumé/old/New", "new\n", None))
        .unwrap();
    assert!(root.join(nfd).join("old/New.md").exists());
    tools
        .update_note(&update("résumé/old/Letter", Some("updated\n"), None, None))
        .unwrap();
    assert_eq!(
        fs::read_to_string(root.join(nfd).join("old/Letter.md")).unwrap(),
        "updated\n"
    );
    assert_eq!(
        tools.read_note(&read_whole("résumé/cv")).unwrap().content,
        "# CV\n"
    );
    let mut listed = listed(&tools);
    listed.sort();
    assert_eq!(
        listed,
        ["résumé/cv.md", "résumé/old/Letter.md", "résumé/old/New.md"]
    );
}

/// Issue 23: an approval binds the file previewed, not only its bytes. A
/// note that is a link names the file that changes in the question, and a
/// link swapped meanwhile for one to another note with the same bytes is
/// refused: the other note is not rewritten.
#[test]
fn an_approval_binds_the_file_not_only_its_bytes() {
    use quire_kiln::WriteRequest;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("contract.md"), "same words\n").unwrap();
    fs::write(root.join("other.md"), "same words\n").unwrap();
    symlink("contract.md", root.join("innocent.md")).unwrap();
    let tools = tools(root);

    let replace = WriteRequest::Update(update("innocent", Some("new\n"), None, None));
    let preview = tools.preview(&replace).unwrap();
    assert_eq!(preview.link_target.as_deref(), Some("contract.md"));
    assert!(
        preview
            .summary()
            .ends_with("`innocent.md` is a link: the file that changes is `contract.md`."),
        "{}",
        preview.summary()
    );

    fs::remove_file(root.join("innocent.md")).unwrap();
    symlink("other.md", root.join("innocent.md")).unwrap();
    let refused = tools.apply_approved(&replace, &preview).unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("no longer the file the change was approved for"),
        "{refused}"
    );
    assert_eq!(
        fs::read_to_string(root.join("other.md")).unwrap(),
        "same words\n"
    );
    assert_eq!(
        fs::read_to_string(root.join("contract.md")).unwrap(),
        "same words\n"
    );

    // The same for a delete: the entry previewed is the entry moved.
    fs::write(root.join("plain.md"), "same words\n").unwrap();
    let delete = WriteRequest::Delete(DeleteNoteRequest {
        path: "plain".into(),
        permanent: false,
    });
    let preview = tools.preview(&delete).unwrap();
    fs::rename(root.join("other.md"), root.join("plain.md")).unwrap();
    let refused = tools.apply_approved(&delete, &preview).unwrap_err();
    assert!(
        refused.to_string().contains("no longer the file"),
        "{refused}"
    );
    assert!(root.join("plain.md").exists() && !root.join(".trash").exists());
}

/// Issue 23: a note too large to read (over 16 MiB) is still bound: its
/// delete approved from a preview is refused once the file changed.
#[test]
fn a_note_too_large_to_read_is_deleted_only_as_previewed() {
    use quire_kiln::WriteRequest;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let big = vec![b'x'; 16 * 1024 * 1024 + 1];
    fs::write(root.join("Big.md"), &big).unwrap();
    let tools = tools(root);
    let delete = WriteRequest::Delete(DeleteNoteRequest {
        path: "Big".into(),
        permanent: true,
    });
    let preview = tools.preview(&delete).unwrap();
    assert_eq!(preview.sha256, None);
    assert!(preview.identity.is_some());
    let mut grown = big.clone();
    grown.push(b'\n');
    fs::write(root.join("Big.md"), &grown).unwrap();
    let refused = tools.apply_approved(&delete, &preview).unwrap_err();
    assert!(
        refused.to_string().contains("no longer the file"),
        "{refused}"
    );
    assert_eq!(
        fs::metadata(root.join("Big.md")).unwrap().len(),
        grown.len() as u64
    );

    let preview = tools.preview(&delete).unwrap();
    tools.apply_approved(&delete, &preview).unwrap();
    assert!(!root.join("Big.md").exists());
}

/// Issue 23: a `.trash` that is a link (to a visible folder, or out) is
/// refused as the trash: a note "deleted" there would stay a live note.
#[test]
fn a_trash_folder_that_is_a_link_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir(root.join("notes")).unwrap();
    fs::write(root.join("Gone.md"), "bye\n").unwrap();
    symlink("notes", root.join(".trash")).unwrap();
    let tools = tools(root);
    let delete = DeleteNoteRequest {
        path: "Gone".into(),
        permanent: false,
    };
    for refused in [
        tools.delete_note(&delete).unwrap_err(),
        tools
            .preview(&quire_kiln::WriteRequest::Delete(delete.clone()))
            .unwrap_err(),
    ] {
        let message = refused.to_string();
        assert!(
            message.contains("the trash folder `.trash` is a symbolic link (it leads to `notes`)"),
            "{message}"
        );
        assert!(message.contains("permanent: true"), "{message}");
    }
    assert!(root.join("Gone.md").exists());
    assert_eq!(fs::read_dir(root.join("notes")).unwrap().count(), 0);
    // Deleting for good does not use the trash.
    tools
        .delete_note(&DeleteNoteRequest {
            permanent: true,
            ..delete
        })
        .unwrap();
    assert!(!root.join("Gone.md").exists());
}

/// Issue 28: an edit of part of the body through update_note's write path:
/// the preview names the edit for the approval question, the result and
/// the file agree, a broken frontmatter is refused, and an edit that cannot
/// be made writes nothing.
#[test]
fn an_edit_of_part_of_the_body_is_previewed_named_and_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let text = "---\nstatus: draft # kept\n---\n# Plan\n\n## Tasks\n- one\n\n## Notes\nn\n";
    fs::write(root.join("Plan.md"), text).unwrap();
    fs::write(root.join("Broken.md"), "---\ntitle: [x\n---\n# B\n").unwrap();
    let tools = tools(root);
    let edit = |path: &str, edit: BodyEdit| UpdateNoteRequest {
        edit: Some(edit),
        ..UpdateNoteRequest::new(path)
    };
    let request = edit(
        "Plan",
        BodyEdit::ReplaceSection {
            heading: "Tasks".into(),
            text: "- [ ] write\n- [ ] test".into(),
        },
    );
    let preview = tools.preview_update(&request).unwrap();
    assert!(
        preview
            .summary()
            .starts_with("Edit `Plan.md`: replace the body of the section `Tasks` (its frontmatter and every other line are kept)"),
        "{}",
        preview.summary()
    );
    let done = tools.update_note(&request).unwrap();
    assert_eq!(done.updated, ["body"]);
    let now = fs::read_to_string(root.join("Plan.md")).unwrap();
    assert_eq!(now, text.replace("- one\n", "- [ ] write\n- [ ] test\n"));
    assert_eq!(done.sha256, sha(&tools, "Plan.md"));
    let broken = tools
        .update_note(&edit("Broken", BodyEdit::Append { text: "x".into() }))
        .unwrap_err();
    assert!(
        broken.to_string().contains("frontmatter is broken"),
        "{broken}"
    );
    let missing = tools
        .update_note(&edit(
            "Plan",
            BodyEdit::ReplaceText {
                old_text: "absent".into(),
                text: "x".into(),
            },
        ))
        .unwrap_err();
    assert!(missing.is_invalid(), "{missing}");
    assert_eq!(fs::read_to_string(root.join("Plan.md")).unwrap(), now);
    // With `content`, an edit is refused: that is a whole replace.
    let both = UpdateNoteRequest {
        content: Some("x".into()),
        ..edit("Plan", BodyEdit::Append { text: "y".into() })
    };
    assert!(
        tools
            .update_note(&both)
            .unwrap_err()
            .to_string()
            .contains("cannot come with `content`")
    );
}
