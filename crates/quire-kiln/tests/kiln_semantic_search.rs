//! `semantic_search` through `KilnTools`, with the background indexing
//! thread, over vaults on disk, using the test-only hashing embedder (it
//! scores shared words, so results are predictable): filters, modes,
//! arguments, progress, notes that change while the server runs, a saved
//! index reused, and what happens when the embedder or `.quire/` fail.

#[path = "support/hashing_embedder.rs"]
mod hashing_embedder;

use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hashing_embedder::HashingEmbedder;
use quire_embed::{EmbedError, Embedder};
use quire_fs::Workspace;
use quire_kiln::{
    EmbedderSource, INDEX_FOLDER, KilnError, KilnInfoRequest, KilnOptions, KilnTools, SearchMode,
    SemanticSearch, SemanticSearchRequest, index_file_name,
};

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn vault() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "garden/Tomatoes.md",
        "---\nstatus: active\ntags: [garden]\n---\n# Tomatoes\nWater tomatoes every morning in summer.\n## Pests\nAphids on the tomato leaves.\n",
    );
    write(
        root,
        "garden/Roses.md",
        "---\nstatus: done\n---\n# Roses\nPrune roses in late winter.\n",
    );
    write(
        root,
        "work/Cluster.md",
        "---\nstatus: active\n---\n# Cluster\nThe zorblax operator restarts failed pods.\n",
    );
    write(root, "Inbox.md", "# Inbox\nBuy bread and milk.\n");
    dir
}

fn tools_with(root: &Path, embedder: Arc<dyn Embedder>) -> KilnTools {
    let options = KilnOptions {
        budget: Duration::from_secs(20),
        watch: true,
        embedder: EmbedderSource::ready(embedder),
        ..KilnOptions::default()
    };
    let tools = KilnTools::with_options(Workspace::new(root).unwrap(), options);
    tools.start_indexing();
    tools
}

fn tools(root: &Path) -> KilnTools {
    tools_with(root, Arc::new(HashingEmbedder::new()))
}

/// The request a call's JSON arguments make (the MCP layer decodes them
/// the same way: absent or null is the default).
fn request(json: &serde_json::Value) -> SemanticSearchRequest {
    let field = |name: &str| json.get(name).filter(|value| !value.is_null());
    let query = field("query").and_then(serde_json::Value::as_str).unwrap();
    SemanticSearchRequest {
        limit: field("limit").map_or(SemanticSearchRequest::DEFAULT_LIMIT, |limit| {
            usize::try_from(limit.as_u64().unwrap()).unwrap()
        }),
        properties: field("properties").map(|found| found.as_object().unwrap().clone()),
        folder: field("folder").map(|folder| folder.as_str().unwrap().to_owned()),
        min_score: field("min_score").map(|score| score.as_f64().unwrap() as f32),
        mode: match field("mode").map(|mode| mode.as_str().unwrap()) {
            None | Some("semantic") => SearchMode::Semantic,
            Some("hybrid") => SearchMode::Hybrid,
            Some(other) => panic!("no mode {other}"),
        },
        ..SemanticSearchRequest::new(query)
    }
}

fn search(tools: &KilnTools, json: serde_json::Value) -> Result<SemanticSearch, KilnError> {
    tools.semantic_search(&request(&json))
}

fn paths(found: &SemanticSearch) -> Vec<&str> {
    found.results.iter().map(|r| r.path.as_str()).collect()
}

/// Waits until `done` holds, at most 15 s (the indexing thread looks for
/// changes every 2 s).
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn finds_notes_with_their_section_frontmatter_and_progress() {
    let dir = vault();
    let tools = tools(dir.path());
    let found = search(&tools, serde_json::json!({"query": "aphids tomato leaves"})).unwrap();
    let first = &found.results[0];
    assert_eq!(first.path, "garden/Tomatoes.md");
    assert_eq!(first.heading.as_deref(), Some("Pests"));
    assert!(first.snippet.contains("Aphids"), "{}", first.snippet);
    assert_eq!(first.frontmatter["status"], "active");
    assert!(!first.indexing);
    assert!(
        first.score > 0.3 && first.score <= 1.0001,
        "{}",
        first.score
    );
    assert!(found.results.windows(2).all(|w| w[0].score >= w[1].score));
    assert_eq!(found.embedder, "test-hashing-64");
    assert_eq!(found.mode, SearchMode::Semantic);
    assert!(found.index.ready);
    assert_eq!(found.index.notes_pending, 0);
    assert_eq!(found.index.chunks_embedded, found.index.chunks_total);
    assert_eq!(found.index.chunks_total, 5, "{:?}", found.index);
    // Every note is ranked; limit cuts.
    assert_eq!(found.results.len(), 4);
    let one = search(&tools, serde_json::json!({"query": "tomato", "limit": 1})).unwrap();
    assert_eq!(one.results.len(), 1);

    let info = tools
        .get_kiln_info(&KilnInfoRequest { detailed: true })
        .unwrap();
    let semantic = info.semantic.unwrap();
    assert_eq!(semantic.state, "ready");
    assert_eq!(semantic.embedder.as_deref(), Some("test-hashing-64"));
    assert_eq!((semantic.chunks_embedded, semantic.chunks_total), (5, 5));
    assert!(semantic.ready);
    let brief = tools
        .get_kiln_info(&KilnInfoRequest { detailed: false })
        .unwrap();
    assert!(brief.semantic.is_none());
}

#[test]
fn folder_properties_min_score_and_hybrid() {
    let dir = vault();
    let tools = tools(dir.path());
    let garden = search(
        &tools,
        serde_json::json!({"query": "zorblax pods", "folder": "garden"}),
    )
    .unwrap();
    assert!(paths(&garden).iter().all(|p| p.starts_with("garden/")));
    assert_eq!(garden.results.len(), 2);
    let active = search(
        &tools,
        serde_json::json!({"query": "roses", "properties": {"status": "active"}}),
    )
    .unwrap();
    let mut found = paths(&active);
    found.sort();
    assert_eq!(found, ["garden/Tomatoes.md", "work/Cluster.md"]);
    let tagged = search(
        &tools,
        serde_json::json!({"query": "roses", "properties": {"tags": "garden"}}),
    )
    .unwrap();
    assert_eq!(paths(&tagged), ["garden/Tomatoes.md"]);
    let strict = search(
        &tools,
        serde_json::json!({"query": "zorblax operator", "min_score": 0.5}),
    )
    .unwrap();
    assert_eq!(paths(&strict), ["work/Cluster.md"]);
    assert!(strict.results.iter().all(|r| r.score >= 0.5));
    let hybrid = search(
        &tools,
        serde_json::json!({"query": "zorblax", "mode": "hybrid", "limit": 2}),
    )
    .unwrap();
    assert_eq!(hybrid.mode, SearchMode::Hybrid);
    assert_eq!(hybrid.results[0].path, "work/Cluster.md");
    assert!(hybrid.results.len() <= 2);
    // A folder that is not there finds nothing; one out of the root is refused.
    let none = search(&tools, serde_json::json!({"query": "x", "folder": "nope"})).unwrap();
    assert!(none.results.is_empty());
    let out = search(&tools, serde_json::json!({"query": "x", "folder": "../.."})).unwrap_err();
    assert!(out.is_invalid(), "{out}");
}

#[test]
fn bad_arguments_are_refused_before_any_embedding() {
    let dir = vault();
    let counting = Arc::new(HashingEmbedder::new());
    let tools = tools_with(dir.path(), counting.clone());
    for (json, says) in [
        (serde_json::json!({"query": ""}), "`query` is empty"),
        (
            serde_json::json!({"query": "x", "limit": 0}),
            "`limit` is 0",
        ),
        (
            serde_json::json!({"query": "x", "min_score": 2}),
            "`min_score` is 2",
        ),
        (
            serde_json::json!({"query": "x", "min_score": 0.1, "mode": "hybrid"}),
            "`semantic` mode only",
        ),
        (
            serde_json::json!({"query": "x", "properties": {}}),
            "`properties` is empty",
        ),
    ] {
        let error = search(&tools, json.clone()).unwrap_err();
        assert!(error.is_invalid(), "{json}: {error}");
        assert!(error.to_string().contains(says), "{json}: {error}");
    }
}

#[test]
fn no_embedder_says_how_to_get_one() {
    let dir = vault();
    let tools = KilnTools::with_options(
        Workspace::new(dir.path()).unwrap(),
        KilnOptions {
            embedder: EmbedderSource::Unavailable("run `quire models install`".into()),
            ..KilnOptions::default()
        },
    );
    let error = search(&tools, serde_json::json!({"query": "tomato"})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "semantic search is not available: run `quire models install`"
    );
    assert!(error.is_unavailable() && !error.retryable() && !error.is_invalid());
    let semantic = tools
        .get_kiln_info(&KilnInfoRequest { detailed: true })
        .unwrap()
        .semantic
        .unwrap();
    assert_eq!(semantic.state, "unavailable");
    assert!(!semantic.ready);
    assert_eq!(
        semantic.problem.as_deref(),
        Some("run `quire models install`")
    );
    assert!(!dir.path().join(INDEX_FOLDER).exists());
}

#[test]
fn an_embedder_that_fails_to_load_is_reported() {
    let dir = vault();
    let source = EmbedderSource::Load {
        name: "minilm".into(),
        load: Arc::new(|| {
            Err(EmbedError::NotInstalled {
                embedder: "minilm".into(),
                help: "run `quire models install`".into(),
            })
        }),
    };
    let tools = KilnTools::with_options(
        Workspace::new(dir.path()).unwrap(),
        KilnOptions {
            embedder: source,
            ..KilnOptions::default()
        },
    );
    tools.start_indexing();
    let error = search(&tools, serde_json::json!({"query": "tomato"})).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the `minilm` embedder is not installed: run `quire models install`"),
        "{error}"
    );
    assert!(error.is_unavailable());
}

#[test]
fn notes_added_changed_and_removed_while_serving() {
    let dir = vault();
    let tools = tools(dir.path());
    assert!(search(&tools, serde_json::json!({"query": "tomato"})).is_ok());
    write(
        dir.path(),
        "work/Kayak.md",
        "# Kayak\nPaddle the kayak across the fjord.\n",
    );
    fs::remove_file(dir.path().join("garden/Roses.md")).unwrap();
    write(
        dir.path(),
        "Inbox.md",
        "# Inbox\nCall the plumber about the boiler.\n",
    );
    let first = |query: &str| {
        let found = search(&tools, serde_json::json!({ "query": query })).unwrap();
        (found.results[0].path.clone(), found)
    };
    eventually("the changes to be embedded", || {
        let (kayak, found) = first("Kayak: paddle the kayak across the fjord");
        let (inbox, _) = first("Inbox: call the plumber about the boiler");
        kayak == "work/Kayak.md"
            && inbox == "Inbox.md"
            && found.index.ready
            && !paths(&found).contains(&"garden/Roses.md")
    });
    let (_, found) = first("Inbox: call the plumber about the boiler");
    assert_eq!(found.results.len(), 4);
    assert!(found.results[0].snippet.contains("plumber"));
    assert!(found.results.iter().all(|r| !r.indexing));
    assert_eq!(found.index.chunks_total, found.index.chunks_embedded);
}

#[test]
fn a_saved_index_is_reused_and_only_changes_are_embedded() {
    let dir = vault();
    let first = Arc::new(HashingEmbedder::new());
    {
        let tools = tools_with(dir.path(), first.clone());
        search(&tools, serde_json::json!({"query": "tomato"})).unwrap();
    }
    let file = dir
        .path()
        .join(INDEX_FOLDER)
        .join(index_file_name("test-hashing-64"));
    eventually("the index to be saved", || file.is_file());
    assert_eq!(first.count(), 5 + 1, "five chunks and one query");
    write(dir.path(), "Inbox.md", "# Inbox\nA new errand.\n");
    let second = Arc::new(HashingEmbedder::new());
    let tools = tools_with(dir.path(), second.clone());
    let found = search(&tools, serde_json::json!({"query": "Inbox: a new errand"})).unwrap();
    assert_eq!(found.results[0].path, "Inbox.md");
    assert_eq!(
        second.count(),
        1 + 1,
        "the changed note's chunk and the query"
    );
}

/// Fails every call after the first `ok` ones.
#[derive(Debug)]
struct Flaky {
    inner: HashingEmbedder,
    ok: usize,
    calls: AtomicUsize,
}

impl Embedder for Flaky {
    fn id(&self) -> &str {
        self.inner.id()
    }
    fn dimension(&self) -> usize {
        self.inner.dimension()
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if self.calls.fetch_add(1, Ordering::SeqCst) >= self.ok {
            return Err(EmbedError::Embed("connection refused".into()));
        }
        self.inner.embed(texts)
    }
}

#[test]
fn a_failing_embedder_leaves_a_partial_index_and_says_why() {
    let dir = vault();
    // More notes than one embedding call takes (notes are embedded in
    // groups of about 256 chunks): the first call succeeds, the next fails.
    for n in 0..300 {
        write(
            dir.path(),
            &format!("bulk/n{n:03}.md"),
            &format!("# Note {n}\nSome words.\n"),
        );
    }
    let flaky = Arc::new(Flaky {
        inner: HashingEmbedder::new(),
        ok: 1,
        calls: AtomicUsize::new(0),
    });
    let tools = tools_with(dir.path(), flaky);
    eventually("the failure to be reported", || {
        tools
            .get_kiln_info(&KilnInfoRequest { detailed: true })
            .unwrap()
            .semantic
            .unwrap()
            .problem
            .is_some()
    });
    let semantic = tools
        .get_kiln_info(&KilnInfoRequest { detailed: true })
        .unwrap()
        .semantic
        .unwrap();
    assert_eq!(semantic.state, "indexing");
    assert!(!semantic.ready);
    assert!(semantic.notes_pending > 0);
    assert!(semantic.chunks_embedded < semantic.chunks_total);
    assert!(semantic.problem.unwrap().contains("connection refused"));
    // The query itself needs the embedder: refused at once, and retryable.
    let started = Instant::now();
    let error = search(&tools, serde_json::json!({"query": "tomato"})).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(error.retryable(), "{error}");
    assert!(error.to_string().contains("connection refused"), "{error}");
}

#[test]
fn a_quire_entry_that_is_not_a_folder_leaves_the_index_in_memory() {
    let dir = vault();
    fs::write(dir.path().join(INDEX_FOLDER), "not a folder").unwrap();
    let tools = tools(dir.path());
    let found = search(&tools, serde_json::json!({"query": "tomato"})).unwrap();
    assert_eq!(found.results[0].path, "garden/Tomatoes.md");
    eventually("the save problem to be reported", || {
        search(&tools, serde_json::json!({"query": "tomato"}))
            .unwrap()
            .index
            .problem
            .is_some()
    });
    let problem = search(&tools, serde_json::json!({"query": "tomato"}))
        .unwrap()
        .index
        .problem
        .unwrap();
    assert!(
        problem.starts_with("the semantic index could not be saved in .quire/"),
        "{problem}"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join(INDEX_FOLDER)).unwrap(),
        "not a folder"
    );
}

#[cfg(unix)]
#[test]
fn a_quire_link_out_of_the_root_is_never_written_through() {
    let dir = vault();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join(INDEX_FOLDER)).unwrap();
    let tools = tools(dir.path());
    let found = search(&tools, serde_json::json!({"query": "tomato"})).unwrap();
    assert_eq!(found.results[0].path, "garden/Tomatoes.md");
    eventually("the save problem to be reported", || {
        search(&tools, serde_json::json!({"query": "tomato"}))
            .unwrap()
            .index
            .problem
            .is_some()
    });
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[cfg(unix)]
#[test]
fn fifos_huge_and_non_utf8_notes_are_skipped_without_hanging() {
    let dir = vault();
    let fifo = dir.path().join("Pipe.md");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    fs::write(dir.path().join("Latin1.md"), b"# Caf\xe9\nbad bytes\n").unwrap();
    let huge = "tomato ".repeat(5_000_000);
    write(dir.path(), "Huge.md", &huge);
    let tools = tools(dir.path());
    let found = search(&tools, serde_json::json!({"query": "tomato"})).unwrap();
    assert!(found.index.ready, "{:?}", found.index);
    let p = paths(&found);
    assert!(!p.contains(&"Pipe.md") && !p.contains(&"Latin1.md") && !p.contains(&"Huge.md"));
    assert_eq!(p[0], "garden/Tomatoes.md");
}

#[test]
fn a_damaged_saved_index_is_rebuilt() {
    let dir = vault();
    fs::create_dir(dir.path().join(INDEX_FOLDER)).unwrap();
    let file = dir
        .path()
        .join(INDEX_FOLDER)
        .join(index_file_name("test-hashing-64"));
    fs::write(&file, b"QUIRESEM garbage").unwrap();
    let tools = tools(dir.path());
    let found = search(&tools, serde_json::json!({"query": "tomato"})).unwrap();
    assert_eq!(found.results[0].path, "garden/Tomatoes.md");
    eventually("the rebuilt index to be saved", || {
        fs::read(&file).is_ok_and(|bytes| bytes.len() > 100)
    });
}

/// Holds back every text holding `SLOW` until the gate opens.
#[derive(Debug, Default)]
struct Gated {
    inner: HashingEmbedder,
    open: std::sync::Mutex<bool>,
    opened: std::sync::Condvar,
}

impl Embedder for Gated {
    fn id(&self) -> &str {
        self.inner.id()
    }
    fn dimension(&self) -> usize {
        self.inner.dimension()
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.iter().any(|text| text.contains("SLOW")) {
            let mut open = self.open.lock().unwrap();
            while !*open {
                open = self.opened.wait(open).unwrap();
            }
        }
        self.inner.embed(texts)
    }
}

#[test]
fn a_note_changed_since_it_was_embedded_is_marked_indexing() {
    let dir = vault();
    let gated = Arc::new(Gated::default());
    let tools = tools_with(dir.path(), gated.clone());
    let before = search(&tools, serde_json::json!({"query": "bread milk"})).unwrap();
    assert_eq!(before.results[0].path, "Inbox.md");
    assert!(!before.results[0].indexing);
    write(
        dir.path(),
        "Inbox.md",
        "# Inbox\nBuy bread and milk. SLOW\n",
    );
    eventually("the change to be seen", || {
        let found = search(&tools, serde_json::json!({"query": "bread milk"})).unwrap();
        let inbox = found.results.iter().find(|r| r.path == "Inbox.md").unwrap();
        inbox.indexing && !found.index.ready && found.index.notes_pending == 1
    });
    let found = search(&tools, serde_json::json!({"query": "bread milk"})).unwrap();
    assert!(
        found
            .results
            .iter()
            .filter(|r| r.path != "Inbox.md")
            .all(|r| !r.indexing)
    );
    *gated.open.lock().unwrap() = true;
    gated.opened.notify_all();
    eventually("the note to be embedded again", || {
        let found = search(&tools, serde_json::json!({"query": "bread milk SLOW"})).unwrap();
        found.index.ready && found.results.iter().all(|r| !r.indexing)
    });
}

#[test]
fn a_slow_embedder_never_holds_up_the_other_tools() {
    let dir = vault();
    let gate = Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
    let held = Arc::clone(&gate);
    let source = EmbedderSource::Load {
        name: "slow".into(),
        load: Arc::new(move || {
            let (open, opened) = &*held;
            let mut open = open.lock().unwrap();
            while !*open {
                open = opened.wait(open).unwrap();
            }
            Ok(Arc::new(HashingEmbedder::new()) as Arc<dyn Embedder>)
        }),
    };
    let tools = KilnTools::with_options(
        Workspace::new(dir.path()).unwrap(),
        KilnOptions {
            budget: Duration::from_millis(300),
            embedder: source,
            ..KilnOptions::default()
        },
    );
    let started = Instant::now();
    tools.start_indexing();
    let info = tools
        .get_kiln_info(&KilnInfoRequest { detailed: true })
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(2));
    let semantic = info.semantic.unwrap();
    assert_eq!(semantic.state, "loading");
    assert_eq!(semantic.embedder.as_deref(), Some("slow"));
    let listed = tools
        .list_notes(&quire_kiln::ListNotesRequest::default())
        .unwrap();
    assert_eq!(listed.total, 4);
    // The search waits its budget; loading is not an error: no results
    // yet, and the answer says so (issue 26).
    let loading = search(&tools, serde_json::json!({"query": "tomato"})).unwrap();
    assert!(loading.results.is_empty());
    assert_eq!(loading.embedder, "slow");
    assert!(!loading.index.ready);
    let notice = loading.notice.unwrap();
    assert!(notice.contains("still loading"), "{notice}");
    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();
    eventually("the index to be ready", || {
        search(&tools, serde_json::json!({"query": "tomato"})).is_ok_and(|found| found.index.ready)
    });
}

#[cfg(unix)]
#[test]
fn a_fifo_in_place_of_the_saved_index_is_neither_read_nor_waited_on() {
    let dir = vault();
    fs::create_dir(dir.path().join(INDEX_FOLDER)).unwrap();
    let file = dir
        .path()
        .join(INDEX_FOLDER)
        .join(index_file_name("test-hashing-64"));
    let made = std::process::Command::new("mkfifo")
        .arg(&file)
        .status()
        .unwrap();
    assert!(made.success());
    let tools = tools(dir.path());
    let found = search(&tools, serde_json::json!({"query": "tomato"})).unwrap();
    assert_eq!(found.results[0].path, "garden/Tomatoes.md");
    assert!(found.index.ready);
}

#[test]
fn two_servers_on_one_vault_share_the_saved_index_safely() {
    let dir = vault();
    let first = tools(dir.path());
    let second = tools(dir.path());
    let threads: Vec<_> = [first, second]
        .into_iter()
        .map(|tools| {
            std::thread::spawn(move || {
                for _ in 0..20 {
                    let found = search(&tools, serde_json::json!({"query": "tomato"})).unwrap();
                    assert_eq!(found.results[0].path, "garden/Tomatoes.md");
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let file = dir
        .path()
        .join(INDEX_FOLDER)
        .join(index_file_name("test-hashing-64"));
    eventually("the index to be saved", || file.is_file());
    let workspace = Workspace::new(dir.path()).unwrap();
    let saved = quire_kiln::SemanticIndex::load(&workspace, "test-hashing-64", 64).unwrap();
    assert_eq!(saved.note_count(), 4);
}

/// The test embedder under another id, so that two tiers keep two indexes.
#[derive(Debug)]
struct Named(&'static str, HashingEmbedder);

impl Embedder for Named {
    fn id(&self) -> &str {
        self.0
    }

    fn dimension(&self) -> usize {
        self.1.dimension()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.1.embed(texts)
    }
}

/// Issue 26: with a better embedder still loading and a fast one complete,
/// a search is answered at once by the fast tier, saying so and how each
/// tier stands; once the better one is complete, it answers.
#[test]
fn the_best_complete_tier_answers_and_the_better_one_takes_over() {
    let dir = vault();
    let gate = Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
    let held = Arc::clone(&gate);
    let better = EmbedderSource::Load {
        name: "better".into(),
        load: Arc::new(move || {
            let (open, opened) = &*held;
            let mut open = open.lock().unwrap();
            while !*open {
                open = opened.wait(open).unwrap();
            }
            Ok(Arc::new(Named("better-64", HashingEmbedder::new())) as Arc<dyn Embedder>)
        }),
    };
    let fast = EmbedderSource::ready(Arc::new(Named("fast-64", HashingEmbedder::new())));
    let tools = KilnTools::with_options(
        Workspace::new(dir.path()).unwrap(),
        KilnOptions {
            budget: Duration::from_secs(10),
            embedder: better,
            fallback_embedders: vec![fast],
            ..KilnOptions::default()
        },
    );
    tools.start_indexing();
    let started = Instant::now();
    let first = search(&tools, serde_json::json!({"query": "tomato leaves"})).unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "answered by the fast tier without waiting for the better one"
    );
    assert_eq!(first.embedder, "fast-64");
    assert_eq!(paths(&first)[0], "garden/Tomatoes.md");
    assert!(
        first.index.ready && first.notice.is_none(),
        "{:?}",
        first.notice
    );
    let states: Vec<(&str, &str, bool)> = first
        .tiers
        .iter()
        .map(|tier| (tier.embedder.as_str(), tier.state.as_str(), tier.ready))
        .collect();
    assert_eq!(
        states,
        [("better", "loading", false), ("fast-64", "ready", true)]
    );
    let info = tools
        .get_kiln_info(&KilnInfoRequest { detailed: true })
        .unwrap();
    let semantic = info.semantic.unwrap();
    assert_eq!(
        (semantic.embedder.as_deref(), semantic.tiers.len()),
        (Some("better"), 2)
    );

    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();
    eventually("the better tier to answer", || {
        search(&tools, serde_json::json!({"query": "tomato leaves"}))
            .is_ok_and(|found| found.embedder == "better-64" && found.index.ready)
    });
    // Each tier saved an index of its own.
    for id in ["better-64", "fast-64"] {
        let saved = dir.path().join(INDEX_FOLDER).join(index_file_name(id));
        eventually("each tier's index to be saved", || saved.exists());
    }
}
