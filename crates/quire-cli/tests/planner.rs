//! The planner workflow end to end, through the public API and the binary:
//! the six tools over each store (a plain file, the git directory, the
//! Jujutsu change description), their refusals, the working-copy summary,
//! concurrent `mark_task` calls, the git `prepare-commit-msg` hook, and the
//! guidance text of every stage (insta snapshots in `snapshots/`).
//!
//! Every repository lives in a temporary folder and every command runs with a
//! hermetic environment (no system or user configuration, fixed identities
//! and timestamps). Calls that must run `jj` or `git` under that environment
//! go through the `quire` binary (`quire call ...`), which inherits it; the
//! file and git stores are also driven in-process through the MCP layer
//! (`quire_cli::mcp::call_in_process`), and through [`PlannerTools`]' typed API
//! where no wire is involved.
//!
//! The Jujutsu tests need `jj` (on PATH or in `~/.cargo/bin`); `.ci/test`
//! installs it. Without it they print a `SKIPPED:` line to stderr and pass.

use std::ffi::OsString;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, OnceLock};

use quire_cli::mcp::{QuireServer, Toolset, planner_guidance};
use quire_fs::Workspace;
use quire_grammar::plan::{ParserConfig, Task, parse};
use quire_planner::store::{ChangedFile, ChangesDetail, FileStatus, LineCounts, StoreKind};
use quire_planner::{Goal, NextStep, PlannerError, PlannerTools, Stage};
use serde_json::{Value, json};
use tempfile::TempDir;

#[path = "support/mcp_call.rs"]
mod mcp_call;

// ---------------------------------------------------------------- sandbox

/// Where the plan is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `--plan-file PLAN.md`.
    File,
    /// `.git/QUIRE_PLAN` in a `git init` repository.
    Git,
    /// The description of `@` in a `jj git init` repository.
    Jj,
    /// A folder that is no repository, without `--plan-file`.
    Bare,
}

impl Kind {
    fn store_name(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Git => "git",
            Kind::Jj => "jj",
            Kind::Bare => "none",
        }
    }
}

const PLAN_FILE: &str = "PLAN.md";

/// `jj`, found on PATH or in Cargo's bin folder, once per test process.
fn jj_program() -> Option<&'static Path> {
    static JJ: OnceLock<Option<PathBuf>> = OnceLock::new();
    JJ.get_or_init(|| {
        let on_path = std::env::var_os("PATH")
            .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
            .unwrap_or_default();
        let cargo_bin = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))
            .map(|cargo| cargo.join("bin"));
        on_path
            .into_iter()
            .chain(cargo_bin)
            .map(|dir| dir.join("jj"))
            .find(|candidate| {
                candidate.is_file()
                    && Command::new(candidate)
                        .arg("--version")
                        .output()
                        .is_ok_and(|output| output.status.success())
            })
    })
    .as_deref()
}

/// `jj`, or `None` after saying loudly that `test` was skipped. Written to
/// the process's stderr directly, so the test harness does not capture it.
fn jj_or_skip(test: &str) -> Option<&'static Path> {
    let found = jj_program();
    if found.is_none() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: planner jj test `{test}`: jj is not installed (bash .ci/test installs it)"
        );
    }
    found
}

/// A temporary workspace with a hermetic home folder, outside the workspace.
struct Sandbox {
    temp: TempDir,
    root: PathBuf,
    home: PathBuf,
    kind: Kind,
    /// PATH for every command run here.
    path: OsString,
    /// The in-process server (file and git stores).
    server: QuireServer,
    /// Call the tools through the binary even for the file and git stores.
    binary: bool,
}

impl Sandbox {
    fn new(kind: Kind) -> Sandbox {
        Sandbox::with_path(kind, std::env::var_os("PATH").unwrap_or_default())
    }

    fn with_path(kind: Kind, path: OsString) -> Sandbox {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().join("work");
        let home = temp.path().join("home");
        fs::create_dir(&root).unwrap();
        fs::create_dir(&home).unwrap();
        fs::write(
            home.join("jj-config.toml"),
            "[user]\nname = \"Quire Test\"\nemail = \"quire@example.com\"\n\n\
             [ui]\npaginate = \"never\"\ncolor = \"never\"\neditor = \"false\"\n",
        )
        .unwrap();
        let plan_file = (kind == Kind::File).then(|| PathBuf::from(PLAN_FILE));
        let server = QuireServer::new(Workspace::new(&root).unwrap(), &[Toolset::Planner])
            .with_plan_file(plan_file);
        let sandbox = Sandbox {
            temp,
            root,
            home,
            kind,
            path,
            server,
            binary: false,
        };
        match kind {
            Kind::Git => {
                sandbox.run("git", &["init", "-q", "-b", "main"]);
            }
            Kind::Jj => {
                sandbox.run("jj", &["git", "init"]);
            }
            Kind::File | Kind::Bare => {}
        }
        sandbox
    }

    /// Calls go through `quire call` for every store.
    fn through_binary(mut self) -> Sandbox {
        self.binary = true;
        self
    }

    /// A Jujutsu sandbox whose commands find `jj`.
    fn jj(jj: &Path) -> Sandbox {
        let mut dirs = vec![jj.parent().unwrap().to_owned()];
        dirs.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        Sandbox::with_path(Kind::Jj, std::env::join_paths(dirs).unwrap())
    }

    /// `program` in the workspace with only the hermetic environment.
    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command.current_dir(&self.root).env_clear();
        let date = "2001-02-03T04:05:06+00:00";
        let vars: Vec<(&str, OsString)> = vec![
            ("PATH", self.path.clone()),
            ("HOME", self.home.clone().into()),
            ("XDG_CONFIG_HOME", self.home.clone().into()),
            ("TMPDIR", std::env::temp_dir().into()),
            ("LANG", "C".into()),
            ("NO_COLOR", "1".into()),
            ("RUST_BACKTRACE", "0".into()),
            ("EDITOR", "false".into()),
            ("GIT_CONFIG_NOSYSTEM", "1".into()),
            ("GIT_CEILING_DIRECTORIES", self.temp.path().into()),
            ("GIT_TERMINAL_PROMPT", "0".into()),
            ("GIT_AUTHOR_NAME", "Quire Test".into()),
            ("GIT_AUTHOR_EMAIL", "quire@example.com".into()),
            ("GIT_AUTHOR_DATE", date.into()),
            ("GIT_COMMITTER_NAME", "Quire Test".into()),
            ("GIT_COMMITTER_EMAIL", "quire@example.com".into()),
            ("GIT_COMMITTER_DATE", date.into()),
            ("JJ_CONFIG", self.home.join("jj-config.toml").into()),
            ("JJ_USER", "Quire Test".into()),
            ("JJ_EMAIL", "quire@example.com".into()),
            ("JJ_TIMESTAMP", date.into()),
            ("JJ_OP_TIMESTAMP", date.into()),
            ("JJ_RANDOMNESS_SEED", "42".into()),
            ("JJ_OP_HOSTNAME", "host.example.com".into()),
            ("JJ_OP_USERNAME", "quire".into()),
        ];
        command.envs(vars);
        command
    }

    /// Runs `program args` and returns its stdout; panics when it fails.
    #[track_caller]
    fn run(&self, program: &str, args: &[&str]) -> String {
        let output = self.command(program).args(args).output().unwrap();
        assert!(
            output.status.success(),
            "`{program} {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }

    /// `quire ARGS`, run in the workspace.
    fn quire(&self, args: &[&str]) -> Output {
        self.command(env!("CARGO_BIN_EXE_quire"))
            .args(args)
            .output()
            .unwrap()
    }

    /// One planner tool call: in-process for the file and git stores, through
    /// the binary for Jujutsu (whose `jj` needs the hermetic environment).
    /// `Ok` holds the response JSON, `Err` the error JSON (`code`, `message`).
    fn call(&self, tool: &str, arguments: Value) -> Result<Value, Value> {
        match self.kind {
            Kind::File | Kind::Git if !self.binary => self.call_in_process(tool, arguments),
            _ => self.call_binary(tool, &arguments),
        }
    }

    fn call_in_process(&self, tool: &str, arguments: Value) -> Result<Value, Value> {
        mcp_call::call(self.server.clone(), tool, arguments)
    }

    /// `quire call TOOL JSON --root . [--plan-file PLAN.md]`.
    fn call_binary(&self, tool: &str, arguments: &Value) -> Result<Value, Value> {
        let arguments = arguments.to_string();
        let mut args = vec![
            "call", tool, &arguments, "--root", ".", "--tools", "planner",
        ];
        if self.kind == Kind::File {
            args.extend(["--plan-file", PLAN_FILE]);
        }
        let output = self.quire(&args);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let value: Value = serde_json::from_str(&stdout).unwrap_or_else(|error| {
            panic!(
                "`quire call {tool}` printed no JSON ({error}): {stdout}\nstderr: {}",
                String::from_utf8_lossy(&output.stderr)
            )
        });
        match output.status.code() {
            Some(0) => Ok(value),
            Some(1) => Err(value["error"].clone()),
            other => panic!("`quire call {tool}` exited with {other:?}: {value}"),
        }
    }

    /// The plan text as the store holds it, read directly.
    fn stored(&self) -> String {
        let read = |path: PathBuf| match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(error) => panic!("cannot read {}: {error}", path.display()),
        };
        match self.kind {
            Kind::File => read(self.root.join(PLAN_FILE)),
            Kind::Git => read(self.root.join(".git").join("QUIRE_PLAN")),
            Kind::Jj => self.run("jj", &["log", "-r", "@", "--no-graph", "-T", "description"]),
            Kind::Bare => String::new(),
        }
    }

    /// Replaces the stored text behind the tools' back.
    fn store_by_hand(&self, text: &str) {
        match self.kind {
            Kind::File => fs::write(self.root.join(PLAN_FILE), text).unwrap(),
            Kind::Git => fs::write(self.root.join(".git").join("QUIRE_PLAN"), text).unwrap(),
            Kind::Jj => {
                self.run("jj", &["describe", "-m", text]);
            }
            Kind::Bare => unreachable!("a bare folder keeps no plan"),
        }
    }

    /// The absolute paths no message may show.
    #[track_caller]
    fn assert_no_absolute_path(&self, message: &str) {
        let temp = self.temp.path();
        for path in [temp.to_owned(), temp.canonicalize().unwrap()] {
            let path = path.to_string_lossy();
            assert!(
                !message.contains(path.as_ref()),
                "the message shows the temporary folder {path}: {message}"
            );
        }
    }

    /// Checks a successful call: the stage, the stored text, and that the
    /// stored text parses to the returned document, with the guidance of its
    /// stage. Returns the response.
    #[track_caller]
    fn expect(&self, result: Result<Value, Value>, stage: u8, stored: &str) -> Value {
        let response = result.unwrap_or_else(|error| panic!("the call failed: {error}"));
        let text = self.stored();
        assert_eq!(text, stored, "stored text ({:?} store)", self.kind);
        assert_eq!(response["stage"], stage, "stage: {response:#}");
        assert_eq!(response["store"], self.kind.store_name());
        assert_eq!(response["rendered"], text, "rendered is the stored text");
        let outcome = parse(&text, &ParserConfig::COMMIT_MESSAGE);
        assert!(
            outcome.is_parsed(),
            "the stored text does not parse: {:?}\n{text}",
            outcome.diagnostics
        );
        assert_eq!(
            serde_json::to_value(&outcome.document).unwrap(),
            response["document"],
            "the returned document is the stored text's"
        );
        let detected = Stage::of(&outcome.document);
        assert_eq!(detected.number(), Some(stage));
        let store = match response["store"].as_str().unwrap() {
            "jj" => StoreKind::Jj,
            "git" => StoreKind::Git,
            "file" => StoreKind::File,
            other => panic!("no such store: {other}"),
        };
        assert_eq!(
            response["guidance"],
            planner_guidance(&NextStep::of(&outcome.document), store)
        );
        assert_eq!(
            response["warnings"],
            json!([]),
            "no warnings in this plan: {response:#}"
        );
        response
    }

    /// Makes a call that must be refused and checks the refusal: the error
    /// code, the message's parts, no absolute path in it, and the stored text
    /// unchanged. Returns the message.
    #[track_caller]
    fn refused(&self, tool: &str, arguments: Value, code: &str, parts: &[&str]) -> String {
        let before = self.stored();
        let error = match self.call(tool, arguments) {
            Ok(response) => panic!("expected {code} from {tool}, it succeeded: {response:#}"),
            Err(error) => error,
        };
        let message = error["message"].as_str().unwrap().to_owned();
        assert_eq!(error["code"], code, "{message}");
        for part in parts {
            assert!(
                message.contains(part),
                "the message lacks {part:?}: {message}"
            );
        }
        self.assert_no_absolute_path(&message);
        assert_eq!(self.stored(), before, "a refused {tool} changed the plan");
        message
    }
}

/// A valid goal.
fn goal() -> Value {
    json!({"type": "fix", "scope": "plan", "breaking": false, "title": "Mark tasks"})
}

/// [`goal`] for the typed API.
fn typed_goal() -> Goal {
    Goal {
        commit_type: "fix".into(),
        scope: "plan".into(),
        breaking: false,
        title: "Mark tasks".into(),
    }
}

/// A plan of `tasks` after a goal and a description.
fn plan_of(sandbox: &Sandbox, tasks: Value) {
    sandbox
        .call("set_overarching_goal", json!({ "goal": goal() }))
        .unwrap();
    sandbox
        .call(
            "set_detailed_goal",
            json!({"description": "Why, what and how."}),
        )
        .unwrap();
    sandbox.call("set_plan", json!({ "plan": tasks })).unwrap();
}

// --------------------------------------------------------------- workflow

const HEADER: &str = "feat(planner)!: Keep the plan in the change description\n";
const DESCRIPTION: &str = "Agents lose track of long jobs.\nStore the plan where the change lives.";
const DESCRIBED: &str = "feat(planner)!: Keep the plan in the change description\n\
    \n\
    Agents lose track of long jobs.\n\
    Store the plan where the change lives.\n";
const CONSTRAINED: &str = "feat(planner)!: Keep the plan in the change description\n\
    \n\
    Agents lose track of long jobs.\n\
    Store the plan where the change lives.\n\
    \n\
    - Never: store the plan in the work tree\n\
    - Do not: drop unknown text\n";

/// `CONSTRAINED` with the workflow's tasks, checked as `marks` says
/// (`x` or space for: 1, 1.1, 1.2, 2), and `tail` after them.
fn planned(marks: [char; 4], tail: &str) -> String {
    let [a, b, c, d] = marks;
    format!(
        "{CONSTRAINED}\n\
         - [{a}]: Read the stored plan\n  \
           - [{b}]: Parse the description\n  \
           - [{c}]: Detect the stage\n\
         - [{d}]: Write the plan back\n{tail}"
    )
}

/// Goal, description, constraints, a nested plan, every task marked, and
/// the job finished, checking the stage and the stored text after each call.
fn workflow(sandbox: &Sandbox) {
    let goal = json!({"type": "feat", "scope": "planner", "breaking": true,
                      "title": "Keep the plan in the change description"});
    let call = |tool: &str, arguments: Value| sandbox.call(tool, arguments);

    let start = sandbox.expect(call("gather_requirements", json!({})), 0, "");
    assert_eq!(start["summary"], "");
    assert_eq!(start["document"], json!({}));

    let set = sandbox.expect(
        call("set_overarching_goal", json!({ "goal": goal })),
        1,
        HEADER,
    );
    assert_eq!(set["summary"], "The overarching goal is set.");
    sandbox.expect(call("gather_requirements", json!({})), 1, HEADER);

    sandbox.expect(
        call("set_detailed_goal", json!({ "description": DESCRIPTION })),
        2,
        DESCRIBED,
    );
    let with_constraints = format!(
        "{DESCRIPTION}\n- Never: store the plan in the work tree\n- Do not: drop unknown text"
    );
    let described = sandbox.expect(
        call(
            "set_detailed_goal",
            json!({ "description": with_constraints }),
        ),
        4,
        CONSTRAINED,
    );
    assert_eq!(
        described["document"]["constraints"],
        json!([
            ["Never", "store the plan in the work tree"],
            ["Do not", "drop unknown text"]
        ])
    );
    sandbox.expect(call("gather_requirements", json!({})), 4, CONSTRAINED);

    let plan = json!([
        [
            false,
            "Read the stored plan",
            [
                [false, "Parse the description", []],
                [false, "Detect the stage", []]
            ]
        ],
        [false, "Write the plan back", []]
    ]);
    let planned_response = sandbox.expect(
        call("set_plan", json!({ "plan": plan })),
        5,
        &planned([' '; 4], ""),
    );
    assert_eq!(planned_response["summary"], "The plan is set.");

    let marked = sandbox.expect(
        call("mark_task", json!({"task_id": "parse the"})),
        5,
        &planned([' ', 'x', ' ', ' '], ""),
    );
    assert_eq!(
        marked["summary"],
        "Task 1.1 \"Parse the description\" is done."
    );
    let marked = sandbox.expect(
        call(
            "mark_task",
            json!({"task_id": "Detect the stage", "completed": true}),
        ),
        5,
        &planned([' ', 'x', 'x', ' '], ""),
    );
    assert_eq!(
        marked["summary"],
        "Task 1.2 \"Detect the stage\" is done. All subtasks of \"Read the stored plan\" are done: mark it with mark_task too."
    );
    sandbox.expect(
        call("mark_task", json!({"task_id": "Read the stored plan"})),
        5,
        &planned(['x', 'x', 'x', ' '], ""),
    );
    sandbox.expect(
        call("mark_task", json!({"task_id": "BACK"})),
        5,
        &planned(['x'; 4], ""),
    );
    sandbox.expect(
        call("gather_requirements", json!({})),
        5,
        &planned(['x'; 4], ""),
    );

    let finished = sandbox.expect(
        call("finish_job", json!({})),
        6,
        &planned(['x'; 4], "\n~~~ COMPLETE ~~~\n"),
    );
    assert_eq!(finished["summary"], "The job is complete.");
    assert_eq!(finished["stage_name"], "complete");
    assert_eq!(finished["document"]["direction"], "~~~ COMPLETE ~~~");
    sandbox.expect(
        call("gather_requirements", json!({})),
        6,
        &planned(['x'; 4], "\n~~~ COMPLETE ~~~\n"),
    );
}

#[test]
fn workflow_with_the_file_store() {
    workflow(&Sandbox::new(Kind::File));
}

#[test]
fn workflow_with_the_file_store_through_the_binary() {
    workflow(&Sandbox::new(Kind::File).through_binary());
}

#[test]
fn workflow_with_the_git_store_through_the_binary() {
    workflow(&Sandbox::new(Kind::Git).through_binary());
}

#[test]
fn workflow_with_the_git_store() {
    let sandbox = Sandbox::new(Kind::Git);
    workflow(&sandbox);
    assert!(
        !sandbox.root.join("QUIRE_PLAN").exists() && !sandbox.root.join(PLAN_FILE).exists(),
        "the git store keeps the plan out of the work tree"
    );
    assert_eq!(sandbox.run("git", &["status", "--short"]), "");
}

#[test]
fn workflow_with_the_jj_store() {
    let Some(jj) = jj_or_skip("workflow_with_the_jj_store") else {
        return;
    };
    let sandbox = Sandbox::jj(jj);
    workflow(&sandbox);
    // The plan is the description of the working-copy change, nowhere else.
    assert_eq!(
        sandbox.run(
            "jj",
            &["log", "-r", "@-", "--no-graph", "-T", "description"]
        ),
        ""
    );
    assert!(fs::read_dir(&sandbox.root).unwrap().all(|entry| {
        let name = entry.unwrap().file_name();
        name == ".jj" || name == ".git"
    }));
}

// ----------------------------------------------------------------- errors

const V: &str = "VALIDATION_ERROR";
const S: &str = "STORE_ERROR";

/// The plan of the `mark_task` cases: two tasks named "Write ...", a parent
/// with two subtasks, and a task whose text is part of another's.
fn task_plan() -> Value {
    json!([
        [
            false,
            "Write the parser",
            [[false, "Write tests", []], [false, "Handle tabs", []]]
        ],
        [false, "Write the formatter", []],
        [false, "Test", []],
        [false, "Test the hook", []]
    ])
}

/// The stored text of [`task_plan`] with `marks` for 1, 1.1, 1.2, 2, 3, 4.
fn task_text(marks: &str, tail: &str) -> String {
    let m: Vec<char> = marks.chars().collect();
    format!(
        "fix(plan): Mark tasks\n\nWhy, what and how.\n\n\
         - [{}]: Write the parser\n  - [{}]: Write tests\n  - [{}]: Handle tabs\n\
         - [{}]: Write the formatter\n- [{}]: Test\n- [{}]: Test the hook\n{tail}",
        m[0], m[1], m[2], m[3], m[4], m[5]
    )
}

/// `mark_task` and `finish_job`: ambiguity, no match, exact before
/// substring, parents and their subtasks, reopening, finishing with open
/// tasks. Every refusal leaves the stored plan as it was.
fn task_errors(sandbox: &Sandbox) {
    sandbox
        .call("set_overarching_goal", json!({ "goal": goal() }))
        .unwrap();
    sandbox.refused(
        "mark_task",
        json!({"task_id": "Write"}),
        V,
        &["no tasks yet", "set_plan"],
    );
    sandbox.refused("finish_job", json!({}), V, &["no tasks", "set_plan"]);
    plan_of(sandbox, task_plan());
    assert_eq!(sandbox.stored(), task_text("      ", ""));

    // Several matches: nothing changes, the candidates are listed with paths.
    let message = sandbox.refused(
        "mark_task",
        json!({"task_id": "write"}),
        V,
        &[
            "matches 3 tasks",
            "1 \"Write the parser\"",
            "1.1 \"Write tests\"",
            "2 \"Write the formatter\"",
            "nothing was changed",
        ],
    );
    assert!(!message.contains("Handle tabs"), "{message}");

    // No match: the open tasks are listed.
    sandbox.refused(
        "mark_task",
        json!({"task_id": "deploy"}),
        V,
        &[
            "no task matches \"deploy\"",
            "1 Write the parser; 1.1 Write tests; 1.2 Handle tabs; 2 Write the formatter; 3 Test; 4 Test the hook",
        ],
    );
    sandbox.refused(
        "mark_task",
        json!({"task_id": "  "}),
        V,
        &["task_id is empty"],
    );

    // An exact match wins over the tasks that contain it.
    let exact = sandbox.expect(
        sandbox.call("mark_task", json!({"task_id": "Test"})),
        5,
        &task_text("    x ", ""),
    );
    assert_eq!(exact["summary"], "Task 3 \"Test\" is done.");
    // Without an exact match the substring must be unique; here it is not.
    sandbox.refused(
        "mark_task",
        json!({"task_id": "test"}),
        V,
        &["1.1 \"Write tests\"", "3 \"Test\"", "4 \"Test the hook\""],
    );

    // A parent is done only when its subtasks are.
    sandbox.refused(
        "mark_task",
        json!({"task_id": "Write the parser"}),
        V,
        &[
            "1 \"Write the parser\" has open subtasks",
            "1.1 Write tests; 1.2 Handle tabs",
        ],
    );
    sandbox.expect(
        sandbox.call("mark_task", json!({"task_id": "Write tests"})),
        5,
        &task_text(" x  x ", ""),
    );
    sandbox.refused(
        "mark_task",
        json!({"task_id": "Write the parser"}),
        V,
        &["open subtasks: 1.2 Handle tabs"],
    );
    sandbox.expect(
        sandbox.call("mark_task", json!({"task_id": "tabs"})),
        5,
        &task_text(" xx x ", ""),
    );
    sandbox.expect(
        sandbox.call("mark_task", json!({"task_id": "Write the parser"})),
        5,
        &task_text("xxx x ", ""),
    );

    // finish_job lists what is still open.
    sandbox.refused(
        "finish_job",
        json!({}),
        V,
        &[
            "2 tasks are still open",
            "2 Write the formatter; 4 Test the hook",
            "mark_task",
        ],
    );
    sandbox
        .call("mark_task", json!({"task_id": "formatter"}))
        .unwrap();
    sandbox
        .call("mark_task", json!({"task_id": "hook"}))
        .unwrap();
    sandbox.expect(
        sandbox.call("finish_job", json!({})),
        6,
        &task_text("xxxxxx", "\n~~~ COMPLETE ~~~\n"),
    );
    // Finishing again changes nothing.
    sandbox.expect(
        sandbox.call("finish_job", json!({})),
        6,
        &task_text("xxxxxx", "\n~~~ COMPLETE ~~~\n"),
    );

    // Reopening a subtask reopens its parent and the job.
    let reopened = sandbox.expect(
        sandbox.call(
            "mark_task",
            json!({"task_id": "Handle tabs", "completed": false}),
        ),
        5,
        &task_text(" x xxx", ""),
    );
    assert_eq!(reopened["summary"], "Task 1.2 \"Handle tabs\" is open.");
    assert!(!sandbox.stored().contains("COMPLETE"));
    // Marking an open task open again is harmless.
    sandbox.expect(
        sandbox.call(
            "mark_task",
            json!({"task_id": "Handle tabs", "completed": false}),
        ),
        5,
        &task_text(" x xxx", ""),
    );
}

#[test]
fn task_errors_with_the_file_store() {
    task_errors(&Sandbox::new(Kind::File));
}

#[test]
fn task_errors_with_the_git_store() {
    task_errors(&Sandbox::new(Kind::Git));
}

#[test]
fn task_errors_with_the_jj_store() {
    let Some(jj) = jj_or_skip("task_errors_with_the_jj_store") else {
        return;
    };
    task_errors(&Sandbox::jj(jj));
}

/// `levels` tasks, each the only subtask of the one before.
fn chain(levels: usize) -> Value {
    (1..=levels).rev().fold(Value::Null, |below, level| {
        let children = if below.is_null() {
            json!([])
        } else {
            json!([below])
        };
        json!([false, format!("Level {level}"), children])
    })
}

#[test]
fn set_overarching_goal_refuses_what_the_grammar_does_not_allow() {
    let sandbox = Sandbox::new(Kind::File);
    let with = |field: &str, value: Value| {
        let mut goal = goal();
        goal[field] = value;
        json!({ "goal": goal })
    };
    sandbox.refused(
        "set_overarching_goal",
        with("type", json!("feature")),
        V,
        &[
            "`feature` is not an allowed commit type",
            "feat, fix, refactor, build, chore, docs, lint, infra, spec",
        ],
    );
    for scope in ["Bad Scope", "CLI", "1st", "a)b", ""] {
        sandbox.refused(
            "set_overarching_goal",
            with("scope", json!(scope)),
            V,
            &["scope"],
        );
    }
    let message = sandbox.refused(
        "set_overarching_goal",
        with("scope", json!("Bad Scope")),
        V,
        &[
            "lowercase letters, digits and hyphens starting with a letter",
            "`bad-scope`",
        ],
    );
    assert!(message.contains("nothing was stored"), "{message}");
    sandbox.refused(
        "set_overarching_goal",
        with("title", json!("a".repeat(121))),
        V,
        &["121 characters", "the limit is 120"],
    );
    sandbox.refused(
        "set_overarching_goal",
        with("title", json!("two\nlines")),
        V,
        &["goal.title must be one line"],
    );
    sandbox.refused(
        "set_overarching_goal",
        with("title", json!("  ")),
        V,
        &["goal.title is empty"],
    );
    sandbox.refused(
        "set_overarching_goal",
        with("title", json!(" padded ")),
        V,
        &["whitespace", "`padded`"],
    );
    sandbox.refused(
        "set_overarching_goal",
        with("type", json!("feat\nfix")),
        V,
        &["goal.type must be one line"],
    );
    sandbox.refused(
        "set_overarching_goal",
        with("colour", json!("red")),
        V,
        &["invalid arguments for set_overarching_goal", "colour"],
    );
    sandbox.refused(
        "set_overarching_goal",
        json!({}),
        V,
        &["invalid arguments", "goal"],
    );
    // Arguments that are not an object, and tools that do not exist, never
    // reach the planner: MCP refuses them as invalid params (-32602; see
    // `tests/protocol_stdio.rs` and the e2e suites).
    assert_eq!(sandbox.stored(), "", "nothing was ever stored");

    // The limits themselves are allowed; `breaking` defaults to false.
    let title = "a".repeat(120);
    sandbox.expect(
        sandbox.call(
            "set_overarching_goal",
            json!({"goal": {"type": "spec", "scope": "a-1", "title": title}}),
        ),
        1,
        &format!("spec(a-1): {title}\n"),
    );
}

#[test]
fn set_plan_refuses_deep_empty_and_multi_line_tasks() {
    let sandbox = Sandbox::new(Kind::File);
    sandbox
        .call("set_overarching_goal", json!({ "goal": goal() }))
        .unwrap();
    sandbox
        .call("set_detailed_goal", json!({"description": "Why."}))
        .unwrap();

    // Four levels below the top (five in all) is the parser's limit.
    sandbox.refused(
        "set_plan",
        json!({ "plan": [chain(6)] }),
        V,
        &["\"Level 6\" is a subtask 5 levels down", "the limit is 4"],
    );
    sandbox.refused(
        "set_plan",
        json!({ "plan": [[false, "Top", []], [false, "  ", []]] }),
        V,
        &["task 2 has no text"],
    );
    sandbox.refused(
        "set_plan",
        json!({ "plan": [[false, "Top", [[false, "first line\nsecond line", []]]]] }),
        V,
        &["task 2 (\"first line\") spans several lines"],
    );
    sandbox.refused("set_plan", json!({ "plan": [] }), V, &["plan is empty"]);
    sandbox.refused(
        "set_plan",
        json!({ "plan": [[false, "No children"]] }),
        V,
        &["invalid arguments for set_plan"],
    );
    sandbox.refused(
        "set_plan",
        json!({ "plan": "- [ ]: A task" }),
        V,
        &["invalid arguments for set_plan"],
    );
    assert_eq!(sandbox.stored(), "fix(plan): Mark tasks\n\nWhy.\n");

    let deepest = sandbox.expect(
        sandbox.call("set_plan", json!({ "plan": [chain(5)] })),
        5,
        "fix(plan): Mark tasks\n\nWhy.\n\n\
         - [ ]: Level 1\n  - [ ]: Level 2\n    - [ ]: Level 3\n      - [ ]: Level 4\n        - [ ]: Level 5\n",
    );
    assert_eq!(deepest["summary"], "The plan is set.");
    // A plan set after the job was finished reopens the job.
    for level in ["Level 5", "Level 4", "Level 3", "Level 2", "Level 1"] {
        sandbox
            .call("mark_task", json!({"task_id": level}))
            .unwrap();
    }
    assert_eq!(sandbox.call("finish_job", json!({})).unwrap()["stage"], 6);
    sandbox.expect(
        sandbox.call("set_plan", json!({ "plan": [[true, "Done already", []]] })),
        5,
        "fix(plan): Mark tasks\n\nWhy.\n\n- [x]: Done already\n",
    );
}

#[test]
fn set_detailed_goal_refuses_several_paragraphs_and_stray_sections() {
    let sandbox = Sandbox::new(Kind::File);
    sandbox
        .call("set_overarching_goal", json!({ "goal": goal() }))
        .unwrap();
    let refuse = |description: &str, parts: &[&str]| {
        sandbox.refused(
            "set_detailed_goal",
            json!({ "description": description }),
            V,
            parts,
        )
    };
    refuse(
        "First paragraph.\n\nSecond paragraph.",
        &["description line 3", "one paragraph (no blank lines)"],
    );
    refuse("", &["description is empty"]);
    refuse(" \n ", &["description is empty"]);
    refuse("- Never: do that", &["no description before them"]);
    refuse("Do it.\n- [ ]: A task", &["no tasks", "set_plan"]);
    refuse("Do it.\n- Never: Skip the tests", &["description line 2"]);
    assert_eq!(sandbox.stored(), "fix(plan): Mark tasks\n");

    // A blank line before the constraint lines is allowed.
    sandbox.expect(
        sandbox.call(
            "set_detailed_goal",
            json!({"description": "Why.\n\n- Avoid: long lines\n"}),
        ),
        4,
        "fix(plan): Mark tasks\n\nWhy.\n\n- Avoid: long lines\n",
    );
}

/// A stored text that is not a plan is refused by every tool and left as
/// it is; text the parser reads with a warning is refused too, since
/// rewriting it would drop what it ignored.
fn foreign_text_is_left_alone(sandbox: &Sandbox) {
    let mutations = [
        ("set_overarching_goal", json!({ "goal": goal() })),
        ("set_detailed_goal", json!({"description": "Why."})),
        ("set_plan", json!({"plan": [[false, "A task", []]]})),
        ("mark_task", json!({"task_id": "A task"})),
        ("finish_job", json!({})),
    ];
    for text in [
        "wip stuff\nmore\n",
        "Fix: the thing\n",
        "feat(x): y\nno blank line\n",
    ] {
        sandbox.store_by_hand(text);
        assert_eq!(sandbox.stored(), text);
        // Reading is never refused: the stage is "unreadable", with the
        // parser's reason, its line and the fix.
        let read = sandbox.call("gather_requirements", json!({})).unwrap();
        assert_eq!(read["stage"], Value::Null, "{read:#}");
        assert_eq!(read["stage_name"], "unreadable", "{read:#}");
        assert_eq!(read["rendered"], text, "the stored text is shown as it is");
        let errors = read["errors"].as_array().unwrap();
        assert!(
            !errors.is_empty()
                && errors
                    .iter()
                    .all(|e| e.as_str().unwrap().starts_with("line ")),
            "{read:#}"
        );
        let guidance = read["guidance"].as_str().unwrap();
        assert!(
            guidance.contains("not a plan document") && guidance.contains("Fix it by hand"),
            "{guidance}"
        );
        let mut reasons = Vec::new();
        for (tool, arguments) in &mutations {
            reasons.push(sandbox.refused(
                tool,
                arguments.clone(),
                V,
                &[
                    "the stored text is not a plan document",
                    "line ",
                    "left as it is",
                ],
            ));
        }
        assert!(
            reasons.windows(2).all(|pair| pair[0] == pair[1]),
            "every tool that writes gives the same reason: {reasons:#?}"
        );
        assert_eq!(sandbox.stored(), text, "nothing was written");
    }
    // Emptied by hand, the plan starts again.
    sandbox.store_by_hand("");
    sandbox.expect(sandbox.call("gather_requirements", json!({})), 0, "");
}

#[test]
fn foreign_text_is_left_alone_in_a_plan_file() {
    foreign_text_is_left_alone(&Sandbox::new(Kind::File));
}

#[test]
fn foreign_text_is_left_alone_in_the_git_directory() {
    foreign_text_is_left_alone(&Sandbox::new(Kind::Git));
}

#[test]
fn foreign_text_is_left_alone_in_the_jj_description() {
    let Some(jj) = jj_or_skip("foreign_text_is_left_alone_in_the_jj_description") else {
        return;
    };
    foreign_text_is_left_alone(&Sandbox::jj(jj));
}

#[test]
fn the_not_a_plan_hint_fits_the_store() {
    for kind in [Kind::File, Kind::Git] {
        let sandbox = Sandbox::new(kind);
        sandbox.store_by_hand("wip stuff\nmore\n");
        let message = sandbox.refused("finish_job", json!({}), V, &["not a plan document"]);
        let read = sandbox.call("gather_requirements", json!({})).unwrap();
        let guidance = read["guidance"].as_str().unwrap();
        assert!(
            !guidance.contains("jj describe"),
            "the {kind:?} store has no jj description to clear: {guidance}"
        );
        assert!(
            !message.contains("jj describe"),
            "the {kind:?} store has no jj description to clear: {message}"
        );
    }
}

#[test]
fn a_folder_that_is_no_repository_needs_a_plan_file() {
    let sandbox = Sandbox::new(Kind::Bare);
    for tool in ["gather_requirements", "finish_job"] {
        sandbox.refused(
            tool,
            json!({}),
            S,
            &[
                "neither a Jujutsu nor a git repository",
                "`jj git init`",
                "`git init`",
                "`--plan-file PATH`",
            ],
        );
    }
}

#[test]
fn a_missing_jj_or_git_is_a_store_error_saying_what_to_install() {
    let empty = tempfile::tempdir().unwrap();
    let jj_repo = Sandbox::with_path(Kind::Bare, empty.path().into());
    fs::create_dir(jj_repo.root.join(".jj")).unwrap();
    jj_repo.refused(
        "gather_requirements",
        json!({}),
        S,
        &[
            "`jj` is not installed or not on PATH",
            "install Jujutsu (`cargo install --locked jj-cli`)",
            "`--plan-file PATH`",
        ],
    );
    jj_repo.refused(
        "set_overarching_goal",
        json!({ "goal": goal() }),
        S,
        &["`jj` is not installed"],
    );

    let git_repo = Sandbox::with_path(Kind::Bare, empty.path().into());
    git_repo.refused(
        "gather_requirements",
        json!({}),
        S,
        &[
            "`git` is not installed or not on PATH",
            "install git",
            "`--plan-file PATH`",
        ],
    );
}

#[test]
fn a_broken_jj_repository_is_a_store_error_without_absolute_paths() {
    let Some(jj) = jj_or_skip("a_broken_jj_repository_is_a_store_error_without_absolute_paths")
    else {
        return;
    };
    let sandbox = Sandbox::jj(jj);
    fs::remove_dir_all(sandbox.root.join(".jj").join("repo")).unwrap();
    // Not through `refused`: the stored text cannot be read back here.
    for (tool, arguments) in [
        ("gather_requirements", json!({})),
        ("set_overarching_goal", json!({ "goal": goal() })),
    ] {
        let error = sandbox.call(tool, arguments).unwrap_err();
        let message = error["message"].as_str().unwrap();
        assert_eq!(error["code"], S, "{message}");
        assert!(
            message.starts_with("`jj log -r @ --no-graph -T description` failed: "),
            "{message}"
        );
        assert!(message.contains("./.jj/repo"), "{message}");
        assert!(!message.contains("panicked"), "{message}");
        sandbox.assert_no_absolute_path(message);
    }
}

// ---------------------------------------------------------------- changes

/// `gather_requirements`'s `changes`: the changed files by default.
fn changes(sandbox: &Sandbox) -> Option<Value> {
    let response = sandbox.call("gather_requirements", json!({})).unwrap();
    let changes = response.get("changes").cloned()?;
    assert_eq!(changes.get("diff"), None, "no diff unless asked: {changes}");
    Some(changes)
}

/// `gather_requirements`' `changes.diff` with `include_diff`, after checking
/// that the files it lists are the default's.
fn diff(sandbox: &Sandbox) -> Option<String> {
    let response = sandbox
        .call("gather_requirements", json!({"include_diff": true}))
        .unwrap();
    let mut changes = response.get("changes").cloned()?;
    let diff = changes
        .as_object_mut()
        .and_then(|changes| changes.remove("diff"))
        .expect("the diff, when asked for");
    assert_eq!(Some(changes), self::changes(sandbox), "the same files");
    Some(diff.as_str().expect("the diff is text").to_owned())
}

/// A changed file as a result lists it, with its lines added and removed.
fn listed(path: &str, status: &str, added: u64, removed: u64) -> Value {
    json!({"path": path, "status": status, "lines_added": added, "lines_removed": removed})
}

/// `changes` listing every one of `files`.
fn all_of(files: &[Value]) -> Value {
    json!({"files": files, "files_total": files.len(), "files_shown": files.len()})
}

/// `text` without git's `index <blob>..<blob>` lines, whose abbreviated
/// object names are not worth pinning.
fn without_index_lines(text: &str) -> String {
    text.lines()
        .filter(|line| !line.starts_with("index "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The diff git prints for `path` as a new file with `content` (one line).
fn new_file_diff(path: &str, content: &str, hunk: &str) -> String {
    format!(
        "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n{hunk}\n+{content}"
    )
}

#[test]
fn every_tool_lists_the_changed_files_of_a_git_work_tree_and_the_diff_on_request() {
    let sandbox = Sandbox::new(Kind::Git);
    assert_eq!(changes(&sandbox), None, "a fresh repository is clean");
    assert_eq!(diff(&sandbox), None);
    sandbox
        .call("set_overarching_goal", json!({ "goal": goal() }))
        .unwrap();
    assert_eq!(changes(&sandbox), None, "the plan is not in the work tree");

    // Before the first commit: an untracked file is a new file.
    fs::write(sandbox.root.join("notes.txt"), "draft\n").unwrap();
    let expected = all_of(&[listed("notes.txt", "added", 1, 0)]);
    assert_eq!(changes(&sandbox), Some(expected.clone()));
    let new_notes = new_file_diff("notes.txt", "draft", "@@ -0,0 +1 @@");
    assert_eq!(
        diff(&sandbox).map(|diff| without_index_lines(&diff)),
        Some(new_notes.clone())
    );
    // Every tool's answer carries it, and the diff when asked.
    let set = sandbox
        .call("set_detailed_goal", json!({"description": "Why."}))
        .unwrap();
    assert_eq!(set["changes"], expected);
    let set = sandbox
        .call(
            "set_plan",
            json!({"plan": [[false, "Write it", []]], "include_diff": true}),
        )
        .unwrap();
    assert_eq!(
        without_index_lines(set["changes"]["diff"].as_str().unwrap()),
        new_notes
    );
    let marked = sandbox
        .call("mark_task", json!({"task_id": "1", "include_diff": false}))
        .unwrap();
    assert_eq!(marked["changes"], expected);
    let finished = sandbox
        .call("finish_job", json!({"include_diff": true}))
        .unwrap();
    assert_eq!(finished["stage"], 6);
    assert_eq!(
        without_index_lines(finished["changes"]["diff"].as_str().unwrap()),
        new_notes
    );

    // Staged before the first commit: compared with the empty tree.
    sandbox.run("git", &["add", "notes.txt"]);
    assert_eq!(changes(&sandbox), Some(expected));
    assert_eq!(
        diff(&sandbox).map(|diff| without_index_lines(&diff)),
        Some(new_notes)
    );
    sandbox.run("git", &["commit", "-q", "-m", "Add notes"]);
    assert_eq!(changes(&sandbox), None, "committed: clean again");

    // A change to a tracked file, and a new file in a folder.
    fs::write(sandbox.root.join("notes.txt"), "final\nand more\n").unwrap();
    fs::create_dir(sandbox.root.join("src")).unwrap();
    fs::write(sandbox.root.join("src/lib.rs"), "fn main() {}\n").unwrap();
    assert_eq!(
        changes(&sandbox),
        Some(all_of(&[
            listed("notes.txt", "modified", 2, 1),
            listed("src/lib.rs", "added", 1, 0),
        ]))
    );
    assert_eq!(
        without_index_lines(&diff(&sandbox).unwrap()),
        format!(
            "diff --git a/notes.txt b/notes.txt\n--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1,2 @@\n-draft\n+final\n+and more\n{}",
            new_file_diff("src/lib.rs", "fn main() {}", "@@ -0,0 +1 @@")
        )
    );
}

#[test]
fn the_git_listing_names_renamed_deleted_and_binary_files() {
    let sandbox = Sandbox::new(Kind::Git);
    fs::write(sandbox.root.join("old.txt"), "one\ntwo\nthree\n").unwrap();
    fs::write(sandbox.root.join("gone.txt"), "a\nb\n").unwrap();
    sandbox.run("git", &["add", "."]);
    sandbox.run("git", &["commit", "-q", "-m", "Start"]);
    sandbox.run("git", &["mv", "old.txt", "new.txt"]);
    fs::remove_file(sandbox.root.join("gone.txt")).unwrap();
    fs::write(sandbox.root.join("picture.png"), b"\x89PNG\r\n\x1a\n\0\0\0").unwrap();
    fs::write(sandbox.root.join("empty.txt"), "").unwrap();
    // Renames are found whatever the configuration says.
    sandbox.run("git", &["config", "diff.renames", "false"]);
    assert_eq!(
        changes(&sandbox),
        Some(all_of(&[
            listed("empty.txt", "added", 0, 0),
            listed("gone.txt", "deleted", 0, 2),
            json!({"path": "new.txt", "status": "renamed", "previous_path": "old.txt", "lines_added": 0, "lines_removed": 0}),
            json!({"path": "picture.png", "status": "added", "binary": true}),
        ]))
    );
    let diff = diff(&sandbox).unwrap();
    assert!(
        diff.contains("rename from old.txt\nrename to new.txt\n"),
        "{diff}"
    );
}

/// Issue 27: with one untracked 100 KB file in the repository, each of
/// these tools returned the whole diff, 71.7 KB, on every call. By default
/// each result now stays under 16 KB and lists the file with its lines;
/// with `include_diff` the diff is there, cut at 64 KiB.
#[test]
fn a_100_kb_untracked_file_keeps_every_default_result_under_16_kb() {
    let sandbox = Sandbox::new(Kind::Git);
    // 1,600 lines of 64 bytes.
    let big: String = (0..1_600)
        .map(|n| format!("{n:05} {}\n", "x".repeat(57)))
        .collect();
    assert_eq!(big.len(), 100 * 1024);
    fs::write(sandbox.root.join("big.txt"), &big).unwrap();
    let calls = [
        ("set_overarching_goal", json!({ "goal": goal() })),
        ("set_detailed_goal", json!({"description": "Why."})),
        ("set_plan", json!({"plan": [[false, "Write it", []]]})),
        ("mark_task", json!({"task_id": "1"})),
    ];
    for (tool, arguments) in calls.clone() {
        let response = sandbox.call(tool, arguments).unwrap();
        let size = serde_json::to_string(&response).unwrap().len();
        assert!(size < 16 * 1024, "{tool}: {size} bytes");
        assert_eq!(
            response["changes"],
            json!({
                "files": [{"path": "big.txt", "status": "added", "lines_added": 1_600, "lines_removed": 0}],
                "files_total": 1,
                "files_shown": 1,
            }),
            "{tool}"
        );
    }
    for (tool, mut arguments) in calls {
        arguments["include_diff"] = json!(true);
        let response = sandbox.call(tool, arguments).unwrap();
        let diff = response["changes"]["diff"].as_str().unwrap();
        assert!(
            diff.starts_with("diff --git a/big.txt b/big.txt\n"),
            "{tool}"
        );
        assert!(
            diff.contains(&format!("\n+00000 {}\n", "x".repeat(57))),
            "{tool}"
        );
        let (kept, cut) = diff
            .rsplit_once("\n[the diff is cut at 64 KiB: ")
            .unwrap_or_else(|| panic!("{tool}: the diff is not cut"));
        assert!(kept.len() < 64 * 1024, "{tool}: {}", kept.len());
        assert!(cut.ends_with(" more bytes not shown]\n"), "{tool}: {cut}");
        assert_eq!(response["changes"]["files_total"], 1, "{tool}");
    }
}

#[test]
fn a_file_name_that_is_not_utf8_is_listed_as_shown() {
    use std::os::unix::ffi::OsStrExt;

    let sandbox = Sandbox::new(Kind::Git);
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    fs::write(sandbox.root.join(name), "x\n").unwrap();
    fs::write(sandbox.root.join("notes.txt"), "draft\n").unwrap();
    // Its lines are not counted and its diff is left out (git is given
    // paths as text), and the call still answers.
    assert_eq!(
        changes(&sandbox),
        Some(all_of(&[
            json!({"path": "caf\u{fffd}.txt", "status": "added"}),
            listed("notes.txt", "added", 1, 0),
        ]))
    );
    let diff = diff(&sandbox).unwrap();
    assert!(diff.contains("+++ b/notes.txt\n"), "{diff}");
    assert!(
        diff.ends_with("\n+draft\n[the diff of 1 new file whose name is not UTF-8 is not shown]\n"),
        "{diff}"
    );
}

/// Runs `program args` in `folder` with the sandbox's environment and
/// returns its stdout bytes, whatever its exit status.
fn output_in(sandbox: &Sandbox, folder: &Path, program: &str, args: &[&str]) -> Vec<u8> {
    sandbox
        .command(program)
        .current_dir(folder)
        .args(args)
        .output()
        .unwrap()
        .stdout
}

/// The diff text before its `[the diff is cut at 64 KiB: ...]` line, and
/// that line.
fn cut_diff(diff: &str) -> (&str, &str) {
    let at = diff
        .rfind("\n[the diff is cut at 64 KiB: ")
        .expect("a cut line");
    (&diff[..at + 1], &diff[at + 1..])
}

#[test]
fn a_long_git_diff_is_cut_at_64_kib_saying_how_much_was_left_out() {
    let sandbox = Sandbox::new(Kind::Git);
    // 100 KiB of numbered lines in a new file, then two small new files.
    let big: String = (0..10_000).map(|n| format!("line {n:05}\n")).collect();
    fs::write(sandbox.root.join("a-big.txt"), &big).unwrap();
    fs::write(sandbox.root.join("b.txt"), "b\n").unwrap();
    fs::write(sandbox.root.join("c.txt"), "c\n").unwrap();
    // Every file is counted, whatever the diff's cap.
    assert_eq!(
        changes(&sandbox),
        Some(all_of(&[
            listed("a-big.txt", "added", 10_000, 0),
            listed("b.txt", "added", 1, 0),
            listed("c.txt", "added", 1, 0),
        ]))
    );
    let diff = diff(&sandbox).unwrap();
    assert!(diff.starts_with("diff --git a/a-big.txt b/a-big.txt\n"));
    let (kept, cut) = cut_diff(&diff);
    // What git prints for the file in full: the kept part is its beginning,
    // whole lines within 64 KiB, and the cut line counts the rest.
    let full = output_in(
        &sandbox,
        &sandbox.root,
        "git",
        &[
            "diff",
            "--no-index",
            "--no-color",
            "--",
            "/dev/null",
            "a-big.txt",
        ],
    );
    let full = String::from_utf8(full).unwrap();
    assert!(
        full.starts_with(kept),
        "the kept diff is the start of git's"
    );
    assert!(
        kept.len() <= 64 * 1024 && kept.len() > 64 * 1024 - 20,
        "{}",
        kept.len()
    );
    assert!(kept.ends_with('\n'));
    assert_eq!(
        cut,
        format!(
            "[the diff is cut at 64 KiB: {} more bytes and the diff of 2 more new files not shown]\n",
            full.len() - kept.len()
        )
    );
}

#[test]
fn git_counts_the_lines_and_shows_the_diff_of_at_most_100_new_files() {
    let sandbox = Sandbox::new(Kind::Git);
    for n in 0..105 {
        fs::write(sandbox.root.join(format!("f{n:03}.txt")), "x\n").unwrap();
    }
    let changes = changes(&sandbox).unwrap();
    assert_eq!(
        (
            changes["files_total"].as_u64(),
            changes["files_shown"].as_u64()
        ),
        (Some(105), Some(105))
    );
    let files = changes["files"].as_array().unwrap();
    assert_eq!(files[99], listed("f099.txt", "added", 1, 0));
    // Past the first 100, one command each, the lines are not counted.
    assert_eq!(files[100], json!({"path": "f100.txt", "status": "added"}));
    assert_eq!(files[104], json!({"path": "f104.txt", "status": "added"}));
    let diff = diff(&sandbox).unwrap();
    assert_eq!(diff.matches("diff --git ").count(), 100);
    assert!(diff.contains("diff --git a/f099.txt b/f099.txt\n"));
    assert!(!diff.contains("diff --git a/f100.txt"));
    assert!(
        diff.ends_with(
            "\n+x\n[the diff is cut at 100 new files: the diff of 5 more new files not shown]\n"
        ),
        "{}",
        &diff[diff.len() - 200..]
    );
}

#[test]
fn a_long_list_of_files_is_cut_at_8_kib_saying_how_many_there_are() {
    let sandbox = Sandbox::new(Kind::Git);
    let folder = "a-folder-with-a-rather-long-name/and-another-level-below-it";
    fs::create_dir_all(sandbox.root.join(folder)).unwrap();
    for n in 0..1_000 {
        fs::write(
            sandbox.root.join(format!("{folder}/file-{n:04}.txt")),
            "x\n",
        )
        .unwrap();
    }
    for (tool, arguments) in [
        ("gather_requirements", json!({})),
        ("set_overarching_goal", json!({ "goal": goal() })),
        ("gather_requirements", json!({"include_diff": true})),
    ] {
        let response = sandbox.call(tool, arguments).unwrap();
        let changes = &response["changes"];
        let files = changes["files"].as_array().unwrap();
        let listed_bytes = serde_json::to_string(files).unwrap().len();
        assert!(listed_bytes <= 8 * 1024, "{tool}: {listed_bytes}");
        assert!(
            listed_bytes > 8 * 1024 - 200,
            "{tool}: as many as fit: {listed_bytes}"
        );
        assert_eq!(changes["files_total"], 1_000, "{tool}");
        assert_eq!(changes["files_shown"], files.len(), "{tool}");
        // The first ones by path.
        assert_eq!(
            files[0]["path"],
            format!("{folder}/file-0000.txt"),
            "{tool}"
        );
        let last = files.len() - 1;
        assert_eq!(
            files[last]["path"],
            format!("{folder}/file-{last:04}.txt"),
            "{tool}"
        );
        let size = serde_json::to_string(&response).unwrap().len();
        if changes.get("diff").is_none() {
            assert!(size < 16 * 1024, "{tool}: {size} bytes");
        }
    }
}

#[test]
fn every_tool_lists_the_changed_files_of_a_jj_working_copy_and_the_diff_on_request() {
    let Some(jj) = jj_or_skip(
        "every_tool_lists_the_changed_files_of_a_jj_working_copy_and_the_diff_on_request",
    ) else {
        return;
    };
    let sandbox = Sandbox::jj(jj);
    assert_eq!(changes(&sandbox), None, "a fresh repository is clean");
    sandbox
        .call("set_overarching_goal", json!({ "goal": goal() }))
        .unwrap();
    assert_eq!(
        changes(&sandbox),
        None,
        "a description is not a file change"
    );

    fs::write(sandbox.root.join("notes.txt"), "draft\n").unwrap();
    let expected = all_of(&[listed("notes.txt", "added", 1, 0)]);
    let new_notes = new_file_diff("notes.txt", "draft", "@@ -0,0 +1,1 @@");
    assert_eq!(changes(&sandbox), Some(expected.clone()));
    assert_eq!(
        diff(&sandbox).map(|diff| without_index_lines(&diff)),
        Some(new_notes.clone())
    );
    let set = sandbox
        .call("set_detailed_goal", json!({"description": "Why."}))
        .unwrap();
    assert_eq!(set["changes"], expected);
    let set = sandbox
        .call(
            "set_detailed_goal",
            json!({"description": "Why.", "include_diff": true}),
        )
        .unwrap();
    assert_eq!(
        without_index_lines(set["changes"]["diff"].as_str().unwrap()),
        new_notes
    );
    assert_eq!(
        sandbox.stored(),
        "fix(plan): Mark tasks\n\nWhy.\n",
        "describing keeps the file change in the same change"
    );
    assert_eq!(sandbox.run("jj", &["diff", "--summary"]), "A notes.txt\n");

    // A commit, then a change of each kind.
    fs::write(sandbox.root.join("old.txt"), "one\ntwo\n").unwrap();
    fs::write(sandbox.root.join("gone.txt"), "a\nb\nc\n").unwrap();
    sandbox.run("jj", &["new"]);
    fs::rename(sandbox.root.join("old.txt"), sandbox.root.join("new.txt")).unwrap();
    fs::remove_file(sandbox.root.join("gone.txt")).unwrap();
    fs::write(sandbox.root.join("notes.txt"), "draft\nfinal\n").unwrap();
    fs::write(sandbox.root.join("picture.png"), b"\x89PNG\r\n\x1a\n\0\0\0").unwrap();
    assert_eq!(
        changes(&sandbox),
        Some(all_of(&[
            listed("gone.txt", "deleted", 0, 3),
            json!({"path": "new.txt", "status": "renamed", "previous_path": "old.txt", "lines_added": 0, "lines_removed": 0}),
            listed("notes.txt", "modified", 1, 0),
            json!({"path": "picture.png", "status": "added", "binary": true}),
        ]))
    );

    // A long diff is cut, and says by how much; the lines are all counted.
    let big: String = (0..10_000).map(|n| format!("line {n:05}\n")).collect();
    sandbox.run("jj", &["new"]);
    fs::write(sandbox.root.join("notes.txt"), &big).unwrap();
    assert_eq!(
        changes(&sandbox),
        Some(all_of(&[listed("notes.txt", "modified", 10_000, 2)]))
    );
    let diff = diff(&sandbox).unwrap();
    let (kept, cut) = cut_diff(&diff);
    let full = sandbox.run("jj", &["diff", "--git", "."]);
    assert!(full.starts_with(kept), "the kept diff is the start of jj's");
    assert!(
        kept.len() <= 64 * 1024 && kept.len() > 64 * 1024 - 20,
        "{}",
        kept.len()
    );
    assert_eq!(
        cut,
        format!(
            "[the diff is cut at 64 KiB: {} more bytes not shown]\n",
            full.len() - kept.len()
        )
    );
}

/// A script outside the workspace that records each run in `ran`.
fn tripwire(sandbox: &Sandbox) -> (PathBuf, PathBuf) {
    let script = sandbox.temp.path().join("evil.sh");
    let marker = sandbox.temp.path().join("ran");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\ncat \"$1\" 2>/dev/null\n",
            marker.display()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    }
    (script, marker)
}

/// The tool's `changes` and their diff, after checking that `trigger` (the
/// program run by hand) does run the tripwire, and that the tool, listing
/// the files or showing the diff, does not.
fn changes_without_tripping(sandbox: &Sandbox, marker: &Path, trigger: &[&str]) -> (Value, String) {
    let _ = sandbox
        .command(trigger[0])
        .args(&trigger[1..])
        .output()
        .unwrap();
    assert!(marker.exists(), "the tripwire works");
    fs::remove_file(marker).unwrap();
    let changes = changes(sandbox).unwrap();
    let diff = diff(sandbox).unwrap();
    assert!(
        !marker.exists(),
        "ran: {}",
        fs::read_to_string(marker).unwrap()
    );
    (changes, diff)
}

#[test]
fn the_git_diff_runs_no_diff_program_the_repository_configures() {
    let sandbox = Sandbox::new(Kind::Git);
    let (script, marker) = tripwire(&sandbox);
    let script = script.to_str().unwrap();
    fs::write(sandbox.root.join(".gitattributes"), "*.txt diff=evil\n").unwrap();
    fs::write(sandbox.root.join("notes.txt"), "draft\n").unwrap();
    sandbox.run("git", &["add", "."]);
    sandbox.run("git", &["commit", "-q", "-m", "Start"]);
    sandbox.run("git", &["config", "diff.external", script]);
    sandbox.run("git", &["config", "diff.evil.command", script]);
    sandbox.run("git", &["config", "diff.evil.textconv", script]);
    sandbox.run("git", &["config", "diff.noprefix", "true"]);
    sandbox.run("git", &["config", "color.diff", "always"]);
    fs::write(sandbox.root.join("notes.txt"), "final\n").unwrap();
    fs::write(sandbox.root.join("new.txt"), "new\n").unwrap();
    // `git diff` itself would run them.
    let (changes, diff) = changes_without_tripping(&sandbox, &marker, &["git", "diff", "HEAD"]);
    assert_eq!(
        changes,
        all_of(&[
            listed("new.txt", "added", 1, 0),
            listed("notes.txt", "modified", 1, 1),
        ])
    );
    assert_eq!(
        without_index_lines(&diff),
        format!(
            "diff --git a/notes.txt b/notes.txt\n--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-draft\n+final\n{}",
            new_file_diff("new.txt", "new", "@@ -0,0 +1 @@")
        )
    );
}

#[test]
fn the_git_store_fetches_nothing_into_a_partial_clone() {
    let sandbox = Sandbox::new(Kind::Git);
    let (script, marker) = tripwire(&sandbox);
    fs::write(sandbox.root.join("notes.txt"), "draft\n").unwrap();
    sandbox.run("git", &["add", "."]);
    sandbox.run("git", &["commit", "-q", "-m", "Start"]);
    // A partial clone without the committed blob: git fetches it from the
    // promisor remote as soon as a diff needs it, and a fetch runs the
    // remote's `uploadpack` program.
    let blob = sandbox.run("git", &["rev-parse", "HEAD:notes.txt"]);
    let blob = blob.trim();
    fs::remove_file(
        sandbox
            .root
            .join(".git/objects")
            .join(&blob[..2])
            .join(&blob[2..]),
    )
    .unwrap();
    let elsewhere = sandbox.temp.path().join("origin");
    fs::create_dir(&elsewhere).unwrap();
    for (key, value) in [
        ("core.repositoryformatversion", "1"),
        ("extensions.partialClone", "origin"),
        ("remote.origin.promisor", "true"),
        ("remote.origin.url", elsewhere.to_str().unwrap()),
        ("remote.origin.uploadpack", script.to_str().unwrap()),
    ] {
        sandbox.run("git", &["config", key, value]);
    }
    fs::write(sandbox.root.join("notes.txt"), "final\n").unwrap();
    // `git diff` itself fetches.
    let _ = sandbox
        .command("git")
        .args(["diff", "HEAD"])
        .output()
        .unwrap();
    assert!(marker.exists(), "the tripwire works");
    fs::remove_file(&marker).unwrap();
    // In-process and through the binary: the diff fails, nothing runs.
    let fails_running_nothing = |sandbox: &Sandbox| {
        let error = sandbox
            .call("gather_requirements", json!({}))
            .expect_err("the diff needs an object that is not there");
        assert!(
            !marker.exists(),
            "ran: {}",
            fs::read_to_string(&marker).unwrap()
        );
        let message = error["message"].as_str().unwrap().to_owned();
        assert!(message.contains("`git diff"), "{message}");
        assert!(
            message.contains("partial clone") && message.contains("`git fetch`"),
            "{message}"
        );
        sandbox.assert_no_absolute_path(&message);
    };
    fails_running_nothing(&sandbox);
    fails_running_nothing(&sandbox.through_binary());
}

#[test]
fn the_jj_diff_runs_no_diff_program_the_repository_configures() {
    let Some(jj) = jj_or_skip("the_jj_diff_runs_no_diff_program_the_repository_configures") else {
        return;
    };
    let sandbox = Sandbox::jj(jj);
    let (script, marker) = tripwire(&sandbox);
    let formatter = format!("[\"{}\", \"$left\", \"$right\"]", script.display());
    sandbox.run(
        "jj",
        &["config", "set", "--repo", "ui.diff-formatter", &formatter],
    );
    fs::write(sandbox.root.join("notes.txt"), "draft\n").unwrap();
    let (changes, diff) = changes_without_tripping(&sandbox, &marker, &["jj", "diff"]);
    assert_eq!(changes, all_of(&[listed("notes.txt", "added", 1, 0)]));
    assert_eq!(
        without_index_lines(&diff),
        new_file_diff("notes.txt", "draft", "@@ -0,0 +1,1 @@")
    );
}

#[test]
fn the_jj_store_runs_no_signing_program_the_repository_configures() {
    let Some(jj) = jj_or_skip("the_jj_store_runs_no_signing_program_the_repository_configures")
    else {
        return;
    };
    let sandbox = Sandbox::jj(jj);
    let (script, marker) = tripwire(&sandbox);
    let script = script.to_str().unwrap();
    for (key, value) in [
        ("signing.behavior", "own"),
        ("signing.backend", "gpg"),
        ("signing.backends.gpg.program", script),
        ("ui.show-cryptographic-signatures", "true"),
    ] {
        sandbox.run("jj", &["config", "set", "--repo", key, value]);
    }
    // jj itself signs with it.
    let _ = sandbox
        .command("jj")
        .args(["describe", "-m", "by hand"])
        .output()
        .unwrap();
    assert!(marker.exists(), "the tripwire works");
    fs::remove_file(&marker).unwrap();
    // Saving (describe), loading (log), the changes (diff, each with a
    // snapshot) and starting a new plan (new) sign nothing.
    sandbox
        .call("set_overarching_goal", json!({ "goal": goal() }))
        .unwrap();
    fs::write(sandbox.root.join("notes.txt"), "draft\n").unwrap();
    assert_eq!(
        changes(&sandbox),
        Some(all_of(&[listed("notes.txt", "added", 1, 0)]))
    );
    assert!(diff(&sandbox).unwrap().contains("+++ b/notes.txt"));
    assert!(
        !marker.exists(),
        "ran: {}",
        fs::read_to_string(&marker).unwrap()
    );
}

#[test]
fn a_plan_file_in_a_missing_folder_names_the_folder_and_the_fix() {
    let sandbox = Sandbox::new(Kind::File);
    let fix = "the plan file `sub/dir/P.txt` cannot be kept: its folder `sub/dir` does not exist in the workspace; \
               create the folder (`mkdir -p sub/dir` in the workspace root), or choose a --plan-file in a folder that exists";
    let output = sandbox.quire(&[
        "call",
        "gather_requirements",
        "--root",
        ".",
        "--plan-file",
        "sub/dir/P.txt",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!("error: --plan-file: {fix}\n")
    );
    // A folder removed after the tools were made: every call says so.
    fs::create_dir_all(sandbox.root.join("sub/dir")).unwrap();
    let tools = PlannerTools::new(
        Workspace::new(&sandbox.root).unwrap(),
        Some("sub/dir/P.txt".into()),
    );
    assert_eq!(tools.gather_requirements().unwrap().stage.number(), Some(0));
    fs::remove_dir_all(sandbox.root.join("sub")).unwrap();
    for (tool, outcome) in [
        ("gather_requirements", tools.gather_requirements()),
        (
            "set_overarching_goal",
            tools.set_overarching_goal(&typed_goal()),
        ),
    ] {
        match outcome {
            Err(error @ PlannerError::Store(_)) => assert_eq!(error.to_string(), fix, "{tool}"),
            other => panic!("{tool}: expected a store error, got {other:?}"),
        }
    }
    assert!(!sandbox.root.join("sub").exists());
}

#[test]
fn a_plan_file_outside_any_working_copy_has_no_changes() {
    let sandbox = Sandbox::new(Kind::File);
    fs::write(sandbox.root.join("notes.txt"), "draft\n").unwrap();
    assert_eq!(changes(&sandbox), None);
}

/// `quire call gather_requirements ARGUMENTS --plan-file PLAN.md` in the
/// sandbox's repository; the `changes` it reports.
fn plan_file_changes(sandbox: &Sandbox, arguments: Value) -> Option<Value> {
    let output = sandbox.quire(&[
        "call",
        "gather_requirements",
        &arguments.to_string(),
        "--root",
        ".",
        "--tools",
        "planner",
        "--plan-file",
        PLAN_FILE,
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["store"], "file");
    value.get("changes").cloned()
}

#[test]
fn a_plan_file_in_a_git_work_tree_reports_its_changes() {
    let sandbox = Sandbox::new(Kind::Git);
    assert_eq!(
        plan_file_changes(&sandbox, json!({})),
        None,
        "a fresh repository is clean"
    );
    fs::write(sandbox.root.join("notes.txt"), "draft\n").unwrap();
    assert_eq!(
        plan_file_changes(&sandbox, json!({})),
        Some(all_of(&[listed("notes.txt", "added", 1, 0)]))
    );
    let with_diff = plan_file_changes(&sandbox, json!({"include_diff": true})).unwrap();
    assert_eq!(
        without_index_lines(with_diff["diff"].as_str().unwrap()),
        new_file_diff("notes.txt", "draft", "@@ -0,0 +1 @@")
    );
    // Only what lies beneath the root, named relative to it.
    fs::create_dir(sandbox.root.join("sub")).unwrap();
    let output = sandbox
        .command(env!("CARGO_BIN_EXE_quire"))
        .args([
            "call",
            "gather_requirements",
            "--root",
            "sub",
            "--tools",
            "planner",
        ])
        .args(["--plan-file", "P.txt"])
        .output()
        .unwrap();
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value.get("changes"), None, "{value}");
    fs::write(sandbox.root.join("sub/x.txt"), "x\n").unwrap();
    let output = sandbox
        .command(env!("CARGO_BIN_EXE_quire"))
        .current_dir(sandbox.root.join("sub"))
        .args([
            "call",
            "gather_requirements",
            "--tools",
            "planner",
            "--plan-file",
            "P.txt",
        ])
        .output()
        .unwrap();
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["changes"], all_of(&[listed("x.txt", "added", 1, 0)]));
}

#[test]
fn a_plan_file_in_a_jj_working_copy_reports_its_changes() {
    let Some(jj) = jj_or_skip("a_plan_file_in_a_jj_working_copy_reports_its_changes") else {
        return;
    };
    let sandbox = Sandbox::jj(jj);
    assert_eq!(
        plan_file_changes(&sandbox, json!({})),
        None,
        "a fresh repository is clean"
    );
    fs::write(sandbox.root.join("notes.txt"), "draft\n").unwrap();
    assert_eq!(
        plan_file_changes(&sandbox, json!({})),
        Some(all_of(&[listed("notes.txt", "added", 1, 0)]))
    );
    let with_diff = plan_file_changes(&sandbox, json!({"include_diff": true})).unwrap();
    assert_eq!(
        without_index_lines(with_diff["diff"].as_str().unwrap()),
        new_file_diff("notes.txt", "draft", "@@ -0,0 +1,1 @@")
    );
}

#[test]
fn a_plan_file_still_works_where_the_repository_program_is_missing() {
    // A `.jj` folder and no `jj` on PATH: the jj store cannot work, and the
    // plan file is the way out, so its calls must not fail on `changes`.
    let empty = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::with_path(Kind::Bare, empty.path().as_os_str().to_owned());
    fs::create_dir(sandbox.root.join(".jj")).unwrap();
    assert_eq!(plan_file_changes(&sandbox, json!({})), None);
}

// ------------------------------------------------------------ concurrency

const THREADS: usize = 8;

/// `THREADS` threads mark `THREADS` different tasks of one plan at once
/// through one shared `PlannerTools`; no mark may be lost. Repeated a few
/// rounds, each from a fresh plan, to give a race room to show.
fn parallel_marks(sandbox: &Sandbox) {
    let tools = Arc::new(PlannerTools::new(
        Workspace::new(&sandbox.root).unwrap(),
        (sandbox.kind == Kind::File).then(|| PathBuf::from(PLAN_FILE)),
    ));
    let tasks: Vec<String> = (1..=THREADS).map(|n| format!("Task number {n}")).collect();
    let plan: Vec<Task> = tasks
        .iter()
        .map(|task| Task::new(false, task.as_str(), Vec::new()))
        .collect();
    tools.set_overarching_goal(&typed_goal()).unwrap();
    tools.set_detailed_goal("Why.").unwrap();
    for round in 0..5 {
        tools.set_plan(plan.clone()).unwrap();
        let barrier = Arc::new(std::sync::Barrier::new(THREADS));
        let handles: Vec<_> = tasks
            .iter()
            .cloned()
            .map(|task| {
                let tools = Arc::clone(&tools);
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    barrier.wait();
                    tools.mark_task(&task, true)
                })
            })
            .collect();
        for handle in handles {
            let response = handle.join().unwrap().unwrap();
            assert_eq!(response.stage.number(), Some(5));
        }
        let stored = sandbox.stored();
        let open: Vec<&str> = stored
            .lines()
            .filter(|line| line.starts_with("- [ ]"))
            .collect();
        assert!(
            open.is_empty(),
            "round {round}: lost marks {open:?}\n{stored}"
        );
        assert_eq!(stored.matches("- [x]: Task number").count(), THREADS);
        assert_eq!(tools.finish_job().unwrap().stage.number(), Some(6));
    }
}

#[test]
fn parallel_marks_are_never_lost_in_a_plan_file() {
    parallel_marks(&Sandbox::new(Kind::File));
}

#[test]
fn parallel_marks_are_never_lost_in_the_git_directory() {
    parallel_marks(&Sandbox::new(Kind::Git));
}

/// Two servers (two `quire` processes) on one repository: the lock that
/// serializes a `PlannerTools`'s calls does not reach across processes.
#[test]
fn parallel_processes_never_lose_a_mark() {
    let sandbox = Sandbox::new(Kind::Git);
    let tasks: Vec<String> = (1..=THREADS).map(|n| format!("Task number {n}")).collect();
    let plan: Vec<Task> = tasks
        .iter()
        .map(|task| Task::new(false, task.as_str(), Vec::new()))
        .collect();
    plan_of(&sandbox, json!(plan));
    let children: Vec<_> = tasks
        .iter()
        .map(|task| {
            let arguments = json!({ "task_id": task }).to_string();
            sandbox
                .command(env!("CARGO_BIN_EXE_quire"))
                .args([
                    "call",
                    "mark_task",
                    &arguments,
                    "--root",
                    ".",
                    "--tools",
                    "planner",
                ])
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let stored = sandbox.stored();
    assert_eq!(
        stored.matches("- [x]: Task number").count(),
        THREADS,
        "lost marks:\n{stored}"
    );
}

// ------------------------------------------------------------- git hook

#[test]
fn the_prepare_commit_msg_hook_makes_the_plan_the_commit_message() {
    let sandbox = Sandbox::new(Kind::Git).through_binary();
    install_hook(&sandbox, "prepare-commit-msg");
    let commit = |args: &[&str]| {
        let output = sandbox
            .command("git")
            .args(["commit", "-q"])
            .args(args)
            .env("GIT_EDITOR", "true")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "git commit {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let message = || sandbox.run("git", &["log", "-1", "--format=%B"]);

    // Without a plan the hook leaves git's message alone: `-m` works.
    fs::write(sandbox.root.join("a.txt"), "a\n").unwrap();
    sandbox.run("git", &["add", "a.txt"]);
    commit(&["-m", "Start"]);
    assert_eq!(message(), "Start\n\n");

    // A plan, set through `quire call ... --root`, becomes the message.
    sandbox
        .call("set_overarching_goal", json!({ "goal": goal() }))
        .unwrap();
    sandbox
        .call(
            "set_detailed_goal",
            json!({"description": "Why, what and how.\n- Never: skip the hook"}),
        )
        .unwrap();
    sandbox
        .call(
            "set_plan",
            json!({"plan": [[false, "Install the hook", [[false, "Test it", []]]]]}),
        )
        .unwrap();
    sandbox
        .call("mark_task", json!({"task_id": "Test it"}))
        .unwrap();
    let plan = sandbox.stored();
    assert_eq!(
        plan,
        "fix(plan): Mark tasks\n\nWhy, what and how.\n\n- Never: skip the hook\n\n\
         - [ ]: Install the hook\n  - [x]: Test it\n"
    );
    fs::write(sandbox.root.join("b.txt"), "b\n").unwrap();
    sandbox.run("git", &["add", "b.txt"]);
    commit(&[]);
    assert_eq!(message(), format!("{plan}\n"));
    let committed = sandbox.run("git", &["log", "-1", "--format=%B"]);
    let outcome = parse(committed.trim_end(), &ParserConfig::COMMIT_MESSAGE);
    assert!(outcome.is_parsed());
    assert_eq!(
        serde_json::to_value(&outcome.document).unwrap(),
        serde_json::to_value(parse(&plan, &ParserConfig::COMMIT_MESSAGE).document).unwrap()
    );

    // A message given with -m is left alone, plan or not.
    fs::write(sandbox.root.join("c.txt"), "c\n").unwrap();
    sandbox.run("git", &["add", "c.txt"]);
    commit(&["-m", "x"]);
    assert_eq!(message(), "x\n\n");
    // So is an amended commit's message.
    commit(&["--amend"]);
    assert_eq!(message(), "x\n\n");
}

/// Installs `.git/hooks/NAME` running `quire hook NAME "$@"`.
fn install_hook(sandbox: &Sandbox, name: &str) {
    let hook = sandbox.root.join(".git/hooks").join(name);
    fs::create_dir_all(hook.parent().unwrap()).unwrap();
    fs::write(
        &hook,
        format!(
            "#!/bin/sh\nexec '{}' hook {name} \"$@\"\n",
            env!("CARGO_BIN_EXE_quire")
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// `git commit -q ARGS` with both hooks doing their work and the editor
/// accepting the message as offered; returns what the hooks said (git's
/// stderr).
fn commit_with_hooks(sandbox: &Sandbox, file: &str, args: &[&str]) -> String {
    fs::write(sandbox.root.join(file), format!("{file}\n")).unwrap();
    sandbox.run("git", &["add", file]);
    let output = sandbox
        .command("git")
        .args(["commit", "-q"])
        .args(args)
        .env("GIT_EDITOR", "true")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stderr).unwrap()
}

#[test]
fn the_post_commit_hook_clears_only_a_finished_plan_once_it_is_committed() {
    let sandbox = Sandbox::new(Kind::Git).through_binary();
    install_hook(&sandbox, "prepare-commit-msg");
    install_hook(&sandbox, "post-commit");
    let plan_file = sandbox.root.join(".git/QUIRE_PLAN");
    let last_message = || sandbox.run("git", &["log", "-1", "--format=%B"]);

    // Without a plan the hook says nothing.
    assert_eq!(commit_with_hooks(&sandbox, "a.txt", &["-m", "Start"]), "");

    plan_of(
        &sandbox,
        json!([[false, "Write the hook", []], [false, "Test the hook", []]]),
    );
    sandbox
        .call("mark_task", json!({"task_id": "Write the hook"}))
        .unwrap();
    let unfinished = sandbox.stored();

    // A commit with another message keeps the plan.
    assert_eq!(
        commit_with_hooks(&sandbox, "b.txt", &["-m", "Unrelated"]),
        "quire: the plan is kept: this commit's message is not the plan\n"
    );
    assert_eq!(sandbox.stored(), unfinished);

    // A commit that carries an unfinished plan keeps it for the next commit.
    assert_eq!(
        commit_with_hooks(&sandbox, "c.txt", &[]),
        "quire: the plan is kept for the next commit: 1 of 2 tasks is still open\n"
    );
    assert_eq!(last_message(), format!("{unfinished}\n"));
    assert_eq!(sandbox.stored(), unfinished, "the unfinished plan is kept");
    assert_eq!(
        sandbox.call("gather_requirements", json!({})).unwrap()["stage"],
        5
    );

    // Every task done (finish_job not called): the commit that carries it
    // clears it, and the next plan starts at stage 0.
    sandbox
        .call("mark_task", json!({"task_id": "Test the hook"}))
        .unwrap();
    let finished = sandbox.stored();
    assert_eq!(
        commit_with_hooks(&sandbox, "d.txt", &[]),
        "quire: the plan is finished and committed, so it was cleared; the next commit starts a new plan\n"
    );
    assert_eq!(last_message(), format!("{finished}\n"));
    assert!(!plan_file.exists());
    assert_eq!(
        sandbox.call("gather_requirements", json!({})).unwrap()["stage"],
        0
    );

    // A goal without tasks is not finished either.
    sandbox
        .call("set_overarching_goal", json!({ "goal": goal() }))
        .unwrap();
    assert_eq!(
        commit_with_hooks(&sandbox, "e.txt", &[]),
        "quire: the plan is kept for the next commit: it has no tasks yet\n"
    );
    assert_eq!(last_message().trim_end(), "fix(plan): Mark tasks");
    assert!(plan_file.exists());

    // A job recorded as complete with finish_job is cleared.
    plan_of(&sandbox, json!([[false, "Only task", []]]));
    sandbox
        .call("mark_task", json!({"task_id": "Only task"}))
        .unwrap();
    assert_eq!(sandbox.call("finish_job", json!({})).unwrap()["stage"], 6);
    assert_eq!(
        commit_with_hooks(&sandbox, "f.txt", &[]),
        "quire: the plan is finished and committed, so it was cleared; the next commit starts a new plan\n"
    );
    assert!(last_message().contains("~~~ COMPLETE ~~~"));
    assert!(!plan_file.exists());
}

// --------------------------------------------------------------- guidance

/// The guidance of every stage, for a plan typical of that stage. Read each
/// snapshot as the model following it would: it must say where the plan
/// stands, what to do next, and with which tool and parameters.
#[test]
fn guidance_of_every_stage() {
    let tasks = "- [ ]: Read the stored plan\n  - [x]: Parse the description\n  - [ ]: Detect the stage\n- [ ]: Write the plan back\n";
    let done = "- [x]: Read the stored plan\n  - [x]: Parse the description\n  - [x]: Detect the stage\n- [x]: Write the plan back\n";
    let cases: [(&str, u8, String); 8] = [
        ("planner__guidance_stage_0", 0, String::new()),
        ("planner__guidance_stage_1", 1, HEADER.to_owned()),
        // The spec: every stage after the first needs the description, so
        // the agent is asked for it, and told the tasks are kept.
        (
            "planner__guidance_stage_1_tasks_without_description",
            1,
            format!("{HEADER}\n{tasks}"),
        ),
        ("planner__guidance_stage_2", 2, DESCRIBED.to_owned()),
        ("planner__guidance_stage_4", 4, CONSTRAINED.to_owned()),
        (
            "planner__guidance_stage_5",
            5,
            format!("{CONSTRAINED}\n{tasks}"),
        ),
        (
            "planner__guidance_stage_5_all_done",
            5,
            format!("{CONSTRAINED}\n{done}"),
        ),
        (
            "planner__guidance_stage_6",
            6,
            format!("{CONSTRAINED}\n{done}\n~~~ COMPLETE ~~~\n"),
        ),
    ];
    for (name, stage, text) in cases {
        let outcome = parse(&text, &ParserConfig::COMMIT_MESSAGE);
        assert!(outcome.is_parsed(), "{name}: {:?}", outcome.diagnostics);
        let detected = Stage::of(&outcome.document);
        assert_eq!(detected.number(), Some(stage), "{name}");
        let description = format!("guidance for this plan:\n{text}");
        insta::with_settings!({
            snapshot_path => "../snapshots",
            prepend_module_to_snapshot => false,
            description => description,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(name, planner_guidance(&NextStep::of(&outcome.document), StoreKind::Jj));
        });
    }
}

/// At stage 6, `set_overarching_goal` refuses to put a new header over the
/// finished plan and says how to start the next one in this store;
/// `start_new: true` starts it, in every store, and nothing is lost.
fn start_the_next_plan(sandbox: &Sandbox, advice: &str) {
    plan_of(sandbox, json!([[false, "Only task", []]]));
    sandbox.call("mark_task", json!({"task_id": "1"})).unwrap();
    let finished = sandbox.call("finish_job", json!({})).unwrap();
    let finished_text = sandbox.stored();
    let guidance = finished["guidance"].as_str().unwrap();
    assert!(guidance.contains(advice), "{guidance}");
    assert!(guidance.contains("start_new: true"), "{guidance}");
    let next_goal = json!({"type": "docs", "scope": "readme", "title": "Describe the hook"});
    let refused = sandbox.refused(
        "set_overarching_goal",
        json!({ "goal": next_goal }),
        V,
        &[
            "the plan is finished (stage 6)",
            "nothing was stored",
            advice,
        ],
    );
    assert!(refused.contains("start_new: true"), "{refused}");
    assert_eq!(sandbox.stored(), finished_text, "the refusal wrote nothing");

    let next = sandbox
        .call(
            "set_overarching_goal",
            json!({ "goal": next_goal, "start_new": true }),
        )
        .unwrap();
    assert_eq!(next["stage"], 1, "{next:#}");
    assert_eq!(sandbox.stored(), "docs(readme): Describe the hook\n");
    if sandbox.kind == Kind::Jj {
        // The finished plan stays on the change before the new one.
        assert!(next.get("previous_plan").is_none(), "{next:#}");
        let parent = sandbox.run(
            "jj",
            &["log", "-r", "@-", "--no-graph", "-T", "description"],
        );
        assert_eq!(parent, finished_text);
        assert!(
            next["summary"].as_str().unwrap().contains("jj new"),
            "{next:#}"
        );
    } else {
        // The store keeps one plan: the replaced text comes back whole.
        assert_eq!(next["previous_plan"], finished_text, "{next:#}");
        assert!(
            next["summary"].as_str().unwrap().contains("finished"),
            "{next:#}"
        );
    }
}

#[test]
fn the_next_plan_starts_in_a_plan_file() {
    start_the_next_plan(
        &Sandbox::new(Kind::File),
        "it replaces the plan file's text",
    );
}

#[test]
fn the_next_plan_starts_in_the_git_directory() {
    start_the_next_plan(
        &Sandbox::new(Kind::Git),
        "commit (the prepare-commit-msg hook",
    );
}

#[test]
fn the_next_plan_starts_in_a_new_jj_change() {
    let Some(jj) = jj_or_skip("the_next_plan_starts_in_a_new_jj_change") else {
        return;
    };
    let sandbox = Sandbox::jj(jj);
    // On an empty description there is nothing to keep: no empty change is
    // left behind.
    let changes_before = sandbox.run("jj", &["log", "--no-graph", "-T", "change_id ++ \"\\n\""]);
    sandbox
        .call(
            "set_overarching_goal",
            json!({ "goal": goal(), "start_new": true }),
        )
        .unwrap();
    let changes_after = sandbox.run("jj", &["log", "--no-graph", "-T", "change_id ++ \"\\n\""]);
    assert_eq!(changes_before, changes_after);
    sandbox.store_by_hand("");
    start_the_next_plan(&sandbox, "it runs `jj new`");
}

/// `set_plan` accepts what the grammar accepts, such as the spec's own
/// "Complete Document" plan with a done parent over an open subtask; the
/// parent rule belongs to `mark_task`, which refuses to mark a parent done
/// while a subtask is open.
#[test]
fn set_plan_accepts_a_done_parent_with_open_subtasks_and_mark_task_keeps_the_rule() {
    let sandbox = Sandbox::new(Kind::File);
    plan_of(
        &sandbox,
        json!([
            [
                true,
                "Implement basic task parsing",
                [
                    [true, "Add checkbox recognition", []],
                    [
                        false,
                        "Add nesting support",
                        [
                            [true, "Parse indentation levels", []],
                            [false, "Build task hierarchy", []]
                        ]
                    ]
                ]
            ],
            [false, "Add validation rules", []],
            [false, "Update documentation", []]
        ]),
    );
    let stored = sandbox.stored();
    assert!(
        stored.contains("- [x]: Implement basic task parsing\n  - [x]: Add checkbox recognition\n  - [ ]: Add nesting support\n"),
        "{stored}"
    );
    // Marking the open middle task done is refused while its subtask is open.
    sandbox.refused(
        "mark_task",
        json!({"task_id": "1.2"}),
        V,
        &["task 1.2 \"Add nesting support\" has open subtasks: 1.2.2 Build task hierarchy"],
    );
    assert_eq!(sandbox.stored(), stored);
}

/// `--root` in a subfolder of a Jujutsu repository still means Jujutsu, as
/// it does for `jj` itself (and as a subfolder of a git repository means git).
#[test]
fn a_subfolder_of_a_jj_repository_uses_the_jj_store() {
    let Some(jj) = jj_or_skip("a_subfolder_of_a_jj_repository_uses_the_jj_store") else {
        return;
    };
    for colocate in ["--colocate", "--no-colocate"] {
        let sandbox = Sandbox::jj(jj);
        fs::remove_dir_all(sandbox.root.join(".jj")).unwrap();
        let _ = fs::remove_dir_all(sandbox.root.join(".git"));
        sandbox.run("jj", &["git", "init", colocate]);
        fs::create_dir(sandbox.root.join("sub")).unwrap();
        let arguments = json!({ "goal": goal() }).to_string();
        let output = sandbox.quire(&[
            "call",
            "set_overarching_goal",
            &arguments,
            "--root",
            "sub",
            "--tools",
            "planner",
        ]);
        let value: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(value["store"], "jj", "{colocate}: {value:#}");
        assert_eq!(sandbox.stored(), "fix(plan): Mark tasks\n", "{colocate}");
    }
}

#[test]
fn detect_chooses_the_plan_file_then_jj_then_git() {
    use quire_planner::store::{GitStore, detect};

    let git = Sandbox::new(Kind::Git);
    assert_eq!(
        detect(&Workspace::new(&git.root).unwrap(), None)
            .ok()
            .unwrap()
            .kind()
            .name(),
        "git"
    );
    fs::create_dir(git.root.join("notes")).unwrap();
    let plan = Path::new("notes/PLAN.md");
    assert_eq!(
        detect(&Workspace::new(&git.root).unwrap(), Some(plan))
            .ok()
            .unwrap()
            .kind()
            .name(),
        "file"
    );
    let store = GitStore::discover(&git.root).unwrap().unwrap();
    assert_eq!(store.plan_path().file_name().unwrap(), "QUIRE_PLAN");
    assert_eq!(
        store.plan_path().parent().unwrap().canonicalize().unwrap(),
        git.root.join(".git").canonicalize().unwrap(),
        "the plan is kept in the git directory"
    );
    // `.jj/` wins over the git repository it may be colocated with; the
    // choice runs no command.
    fs::create_dir(git.root.join(".jj")).unwrap();
    assert_eq!(
        detect(&Workspace::new(&git.root).unwrap(), None)
            .ok()
            .unwrap()
            .kind()
            .name(),
        "jj"
    );

    // A relative plan file is relative to the root; saving creates it.
    let file = detect(
        &Workspace::new(&git.root).unwrap(),
        Some(Path::new("PLAN.md")),
    )
    .ok()
    .unwrap();
    assert_eq!(file.load().unwrap(), "");
    file.save("feat(a): b\n").unwrap();
    assert_eq!(
        fs::read_to_string(git.root.join("PLAN.md")).unwrap(),
        "feat(a): b\n"
    );
    // The plan file is in a working copy, so its changes are reported; the
    // `.jj` folder here is no repository, and a plan file still works.
    let changes = file.changes(ChangesDetail::Files).unwrap().unwrap();
    assert_eq!(changes.files, []);
    let error = changes
        .unreadable
        .expect("why they cannot be read")
        .to_string();
    assert!(
        error.starts_with("`jj log -r @ --no-graph -T quire_changed_files` failed:"),
        "{error}"
    );
    fs::remove_dir(git.root.join(".jj")).unwrap();
    let changes = file.changes(ChangesDetail::FilesAndDiff).unwrap().unwrap();
    assert_eq!(changes.unreadable, None);
    assert_eq!(
        changes.files,
        [ChangedFile {
            path: "PLAN.md".into(),
            status: FileStatus::Added,
            previous_path: None,
            lines: LineCounts::Counted {
                added: 1,
                removed: 0
            },
        }]
    );
    let diff = changes.diff.expect("asked for");
    assert!(
        diff.starts_with("diff --git a/PLAN.md b/PLAN.md\n"),
        "{diff}"
    );
}

// ------------------------------------------------- the words an agent reads

/// The message of a call the planner refuses, through the MCP layer.
#[track_caller]
fn refusal(sandbox: &Sandbox, tool: &str, arguments: Value) -> String {
    let error = sandbox
        .call(tool, arguments)
        .expect_err("the call is refused");
    assert_eq!(error["code"], V, "{error}");
    error["message"].as_str().unwrap().to_owned()
}

/// Issue 24: the planner reports its refusals, what a call did and what to
/// do next as data, and the MCP layer words them and names the tools. An
/// agent reads exactly what it read when the planner wrote the words
/// itself: every refusal whose remedy is another tool, every summary, and
/// the guidance that depends on the errors or the store.
#[test]
fn every_result_and_refusal_that_names_a_tool_reads_word_for_word() {
    let sandbox = Sandbox::new(Kind::File);
    sandbox.store_by_hand("fix(cli): Flags\n\nWhy.\n");
    assert_eq!(
        refusal(&sandbox, "mark_task", json!({"task_id": "1"})),
        "the plan has no tasks yet; set them with set_plan"
    );
    assert_eq!(
        refusal(&sandbox, "finish_job", json!({})),
        "the plan has no tasks; set them with set_plan, do them, then finish"
    );
    assert_eq!(
        refusal(
            &sandbox,
            "set_detailed_goal",
            json!({"description": "Why.\n\n- [ ]: A task"})
        ),
        "the description may end in constraint lines (`- Never: ...`) but holds no tasks or other text after them; \
         set tasks with set_plan"
    );

    sandbox.store_by_hand(
        "fix(cli): Flags\n\nWhy.\n\n- [ ]: Write\n  - [ ]: Lex\n  - [x]: Parse\n- [ ]: Ship\n",
    );
    assert_eq!(
        refusal(&sandbox, "finish_job", json!({})),
        "3 tasks are still open: 1 Write; 1.1 Lex; 2 Ship; finish them and mark them with mark_task first"
    );
    let marked = sandbox
        .call("mark_task", json!({"task_id": "1.1"}))
        .unwrap();
    assert_eq!(
        marked["summary"],
        "Task 1.1 \"Lex\" is done. All subtasks of \"Write\" are done: mark it with mark_task too."
    );
    sandbox.call("mark_task", json!({"task_id": "1"})).unwrap();
    assert_eq!(
        refusal(&sandbox, "finish_job", json!({})),
        "1 task is still open: 2 Ship; finish it and mark it with mark_task first"
    );
    let reopened = sandbox
        .call("mark_task", json!({"task_id": "Lex", "completed": false}))
        .unwrap();
    assert_eq!(reopened["summary"], "Task 1.1 \"Lex\" is open.");

    sandbox.store_by_hand("feat: Some title\n\nWhy.\n- Never: Skip the tests\n");
    assert_eq!(
        refusal(
            &sandbox,
            "set_plan",
            json!({"plan": [[false, "Add the flag", []]]})
        ),
        "the stored plan holds text the plan grammar ignores, which this edit would drop: \
         line 1: \"Some title\": text after `type:` without a scope is not kept as a title \
         (add a scope to keep it as the title: `feat(scope): Some title`; \
         to keep it, call set_overarching_goal with it as the title (a title needs a scope)); \
         line 4: \"- Never: Skip the tests\": this line looks like a constraint but its value `Skip the tests` \
         does not start with a lowercase letter, so it is ignored (write `- Key: value`: the key a capital letter \
         then lowercase letters and spaces (`Never`, `Do not`), the value starting with a lowercase letter; \
         to keep it, call set_detailed_goal with the whole description and this constraint rewritten). \
         Nothing was stored. Keep the text as the help says, or fix the stored plan by hand"
    );

    // What breaks the rules comes first; text that is no plan has its own advice.
    sandbox.store_by_hand("feature(cli): Flags\n\nWhy.\n");
    let read = sandbox.call("gather_requirements", json!({})).unwrap();
    assert_eq!(read["summary"], "");
    assert!(
        read["guidance"].as_str().unwrap().starts_with(
            "First fix what breaks the plan's rules (see `errors`): the next edit is refused until it does, \
             so call the tool that sets that part again with a valid value.\n\nStage 2/3: the goal is described.\n\n"
        ),
        "{read:#}"
    );
    sandbox.store_by_hand("- [ ]: A task with no plan around it\n");
    let read = sandbox.call("gather_requirements", json!({})).unwrap();
    assert_eq!(
        read["guidance"],
        "The stored text is not a plan document (see `errors`); it is left as it is, and every tool that writes refuses \
         until it is fixed or cleared. Fix it by hand, or edit `PLAN.md` into a plan, or delete it to start a new one; \
         then call `gather_requirements` again."
    );

    // Finishing keeps the direction; a new plan replaces the stored one.
    sandbox.store_by_hand("fix(cli): Flags\n\nWhy.\n\n- [x]: Add the flag\n\nShip it on Friday\n");
    let done = sandbox.call("finish_job", json!({})).unwrap();
    assert_eq!(
        done["summary"],
        "The job is complete. The direction \"Ship it on Friday\" is kept, with `~~~ COMPLETE ~~~` under it."
    );
    assert!(
        done["guidance"]
            .as_str()
            .unwrap()
            .starts_with("Stage 6: the job is complete (1 task done).\n\n"),
        "{done:#}"
    );
    for (stored, replaced) in [
        (
            "fix(cli): Flags\n\nWhy.\n\n- [x]: Add the flag\n\n~~~ COMPLETE ~~~\n",
            "finished",
        ),
        ("fix(cli): Flags\n\nWhy.\n", "at stage 2, unfinished"),
        (
            "- [ ]: A task with no plan around it\n",
            "not a plan document",
        ),
    ] {
        sandbox.store_by_hand(stored);
        let next = sandbox
            .call(
                "set_overarching_goal",
                json!({"goal": goal(), "start_new": true}),
            )
            .unwrap();
        assert_eq!(
            next["summary"],
            format!(
                "A new plan is started with this goal. It replaced the previous plan ({replaced}), whose text is in `previous_plan`."
            )
        );
    }
    sandbox.store_by_hand("");
    let first = sandbox
        .call(
            "set_overarching_goal",
            json!({"goal": goal(), "start_new": true}),
        )
        .unwrap();
    assert_eq!(first["summary"], "A new plan is started with this goal.");
}

/// The same refusal of a finished plan's new goal in each store: how the
/// next plan starts depends on where the plan is kept.
#[test]
fn a_finished_plans_refusal_says_how_each_store_starts_the_next() {
    let finished = "fix(cli): Flags\n\nWhy.\n\n- [x]: Add the flag\n\n~~~ COMPLETE ~~~\n";
    let refused = "the plan is finished (stage 6), so its goal is not changed; nothing was stored. To start the next plan, ";
    let mut stores = vec![
        (
            Sandbox::new(Kind::File),
            "call `set_overarching_goal` with `start_new: true` (it replaces the plan file's text), or move the plan file away first to keep it",
        ),
        (
            Sandbox::new(Kind::Git),
            "commit (the prepare-commit-msg hook offers this plan as the message and the post-commit hook clears it), or call `set_overarching_goal` with `start_new: true` to replace it",
        ),
    ];
    if let Some(jj) = jj_or_skip("a_finished_plans_refusal_says_how_each_store_starts_the_next") {
        stores.push((
            Sandbox::jj(jj),
            "call `set_overarching_goal` with `start_new: true` (it runs `jj new`, so this plan stays the description of its change), or run `jj new` yourself",
        ));
    }
    for (sandbox, fresh_start) in stores {
        sandbox.store_by_hand(finished);
        assert_eq!(
            refusal(&sandbox, "set_overarching_goal", json!({ "goal": goal() })),
            format!("{refused}{fresh_start}"),
            "{:?}",
            sandbox.kind
        );
        let read = sandbox.call("gather_requirements", json!({})).unwrap();
        assert_eq!(
            read["guidance"],
            format!(
                "Stage 6: the job is complete (1 task done).\n\nNext: review the change with the user. \
                 To start the next piece of work, {fresh_start}. \
                 To reopen a task instead, call `mark_task` with `completed: false`."
            ),
            "{:?}",
            sandbox.kind
        );
        if sandbox.kind == Kind::Jj {
            let next = sandbox
                .call(
                    "set_overarching_goal",
                    json!({"goal": goal(), "start_new": true}),
                )
                .unwrap();
            assert_eq!(
                next["summary"],
                "A new plan is started with this goal in a new change (`jj new`); the previous plan stays the description of the change before it."
            );
        }
    }
}
