//! `quire index` and `quire call semantic_search` from the shell: usage
//! errors, no embedder, a root that cannot be opened, and, with the real
//! `minilm` model (skipped loudly when it is not installed; the test
//! command installs it), a first index, a second one that embeds only what
//! changed, and a call that answers by meaning.

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn quire(args: &[&str], models_dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(args)
        .env("NO_COLOR", "1")
        .env("QUIRE_MODELS_DIR", models_dir)
        .stdin(Stdio::null())
        .output()
        .expect("quire runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn vault() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in [
        (
            "cooking/Sourdough.md",
            "# Sourdough\n\nFeed the starter, fold the dough, let it rise overnight, then bake.\n",
        ),
        (
            "travel/Lisbon.md",
            "---\nstatus: planned\n---\n# Lisbon\n\nYellow trams climb the hills.\n",
        ),
        (
            "money/Budget.md",
            "# Budget\n\nRent, groceries and savings, reviewed monthly.\n",
        ),
    ] {
        let path = dir.path().join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    dir
}

/// The installed models folder, or `None` (with a loud notice) when the
/// model is not there.
fn installed_models() -> Option<std::path::PathBuf> {
    let dir = quire_embed::default_models_dir()?;
    if quire_embed::minilm_dir(&dir)
        .join("model.safetensors")
        .is_file()
    {
        Some(dir)
    } else {
        eprintln!(
            "\n*** SKIPPED: the minilm model is not installed in {}: run `quire models install` ***\n",
            dir.display()
        );
        None
    }
}

#[test]
fn index_without_an_embedder_exits_1_and_says_how_to_install_one() {
    let kiln = vault();
    let empty = tempfile::tempdir().unwrap();
    let root = kiln.path().to_str().unwrap();
    let output = quire(&["index", "--root", root], empty.path());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(
        message.starts_with("error: no embedder is installed in "),
        "{message}"
    );
    assert!(message.contains("`quire models install`"), "{message}");
    assert!(!kiln.path().join(".quire").exists());
    let none = quire(
        &["index", "--root", root, "--embedder", "none"],
        empty.path(),
    );
    assert_eq!(none.status.code(), Some(1));
    assert!(
        stderr(&none).contains("--embedder none"),
        "{}",
        stderr(&none)
    );
}

#[test]
fn index_usage_errors_exit_2() {
    let kiln = vault();
    let empty = tempfile::tempdir().unwrap();
    let root = kiln.path().to_str().unwrap();
    for (args, says) in [
        (
            vec!["index", "--root", root, "--embedder-url", "http://x"],
            "go with `--embedder http`",
        ),
        (
            vec!["index", "--root", root, "--embedder", "http"],
            "needs --embedder-url URL and --embedder-model NAME",
        ),
        (
            vec!["index", "--root", root, "--embedder", "bert"],
            "invalid value 'bert'",
        ),
        (
            vec!["index", "--root", "/nonexistent/kiln"],
            "cannot open the kiln root /nonexistent/kiln",
        ),
    ] {
        let output = quire(&args, empty.path());
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains(says),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn index_cannot_reach_an_http_embedder_exits_1() {
    let kiln = vault();
    let empty = tempfile::tempdir().unwrap();
    // A port nothing listens on: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let output = quire(
        &[
            "index",
            "--root",
            kiln.path().to_str().unwrap(),
            "--embedder",
            "http",
            "--embedder-url",
            &url,
            "--embedder-model",
            "m",
        ],
        empty.path(),
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stderr(&output).contains(&url), "{}", stderr(&output));
}

#[test]
fn index_then_call_with_minilm() {
    let Some(models) = installed_models() else {
        return;
    };
    let kiln = vault();
    let root = kiln.path().to_str().unwrap();
    let first = quire(&["index", "--root", root], &models);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let said = stderr(&first);
    assert!(
        said.contains("3 notes: 3 to embed (3 chunks), 0 gone, 0 unchanged"),
        "{said}"
    );
    let file = kiln
        .path()
        .join(".quire/semantic-minilm-all-minilm-l6-v2-mean-256.idx");
    assert!(file.is_file());
    // Issue 26: with the static table distilled too, every tier is
    // indexed, the fastest first, and the plan is said first.
    if quire_embed::static_dir(&models)
        .join("model.safetensors")
        .is_file()
    {
        assert!(
            said.contains("indexing 2 tiers, the fastest first: static, then minilm"),
            "{said}"
        );
        assert!(said.find("loading the `static`") < said.find("loading the `minilm`"));
        let saved = fs::read_dir(kiln.path().join(".quire")).unwrap().count();
        assert_eq!(saved, 2, "an index per tier");
    }
    fs::write(
        kiln.path().join("money/Budget.md"),
        "# Budget\n\nPensions.\n",
    )
    .unwrap();
    fs::remove_file(kiln.path().join("travel/Lisbon.md")).unwrap();
    let second = quire(&["index", "--root", root], &models);
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    let said = stderr(&second);
    assert!(
        said.contains("2 notes: 1 to embed (1 chunk), 1 gone, 1 unchanged"),
        "{said}"
    );
    // The second run loads what the first saved, and says how fast.
    assert!(
        said.contains("loaded the saved index (3 chunks) in "),
        "{said}"
    );
    assert!(said.contains("2 notes and 2 chunks in .quire/"), "{said}");

    let call = quire(
        &[
            "call",
            "semantic_search",
            r#"{"query": "baking bread at home", "limit": 1}"#,
            "--root",
            root,
        ],
        &models,
    );
    assert_eq!(call.status.code(), Some(0), "{}", stderr(&call));
    let value: serde_json::Value = serde_json::from_slice(&call.stdout).unwrap();
    assert_eq!(value["results"][0]["path"], "cooking/Sourdough.md");
    assert_eq!(value["index"]["ready"], true);
    assert_eq!(value["results"].as_array().unwrap().len(), 1);
}

#[test]
fn call_semantic_search_without_an_embedder_is_a_tool_error() {
    let kiln = vault();
    let empty = tempfile::tempdir().unwrap();
    let output = quire(
        &[
            "call",
            "semantic_search",
            r#"{"query": "bread"}"#,
            "--root",
            kiln.path().to_str().unwrap(),
        ],
        empty.path(),
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["error"]["code"], "STORE_ERROR");
    assert!(
        value["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`quire models install`")
    );
}
