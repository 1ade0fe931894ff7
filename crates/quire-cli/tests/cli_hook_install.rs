//! `quire hook install commit-msg` in real, temporary git repositories: the
//! README's hook example end to end (install, a good commit passes, a bad
//! one is refused with the report and no commit made), re-installing,
//! foreign hooks and symbolic links, `core.hooksPath`, worktrees, a missing
//! or unwritable hooks folder, and no repository at all.
//!
//! The messages are bad (or good) under both the plan grammar and
//! Conventional Commits, so the tests hold whichever rules the hook's
//! check applies.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Output;

#[path = "support/git_cli.rs"]
mod git_cli;

use git_cli::{
    code, empty_repository, git, git_output, quire, quire_command_for_another_user, stderr, stdout,
};

const BAD: &str = "bad message without type";
const GOOD: &str = "feat: add x";

/// The marker line quire knows its hooks by.
const MARKER: &str = "# quire-hook: commit-msg";

fn install(folder: &Path, force: bool) -> Output {
    let mut args = vec!["hook", "install", "commit-msg"];
    if force {
        args.push("--force");
    }
    quire(folder, &args)
}

fn commit_count(repo: &Path) -> usize {
    match git_output(repo, &["rev-list", "--count", "HEAD"]) {
        output if output.status.success() => String::from_utf8(output.stdout)
            .unwrap()
            .trim()
            .parse()
            .unwrap(),
        _ => 0,
    }
}

/// `git commit --allow-empty -m MESSAGE`, whatever its exit status.
fn try_commit(repo: &Path, message: &str) -> Output {
    git_output(repo, &["commit", "-q", "--allow-empty", "-m", message])
}

/// The README's example: install the hook; a good commit passes, a bad one
/// is refused with the report on stderr and no commit made.
#[test]
fn the_readme_hook_example_works_end_to_end() {
    let repo = empty_repository();
    let root = repo.path();
    let output = install(root, false);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "installed the commit-msg hook: .git/hooks/commit-msg\n"
    );
    let hook = root.join(".git/hooks/commit-msg");
    let text = fs::read_to_string(&hook).unwrap();
    assert!(
        text.starts_with(&format!("#!/bin/sh\n{MARKER}\n")),
        "{text}"
    );
    assert!(text.contains("check --git-message \"$1\""), "{text}");
    assert_eq!(fs::metadata(&hook).unwrap().mode() & 0o111, 0o111);

    let good = try_commit(root, GOOD);
    assert!(good.status.success(), "{}", stderr(&good));
    assert_eq!(commit_count(root), 1);

    let bad = try_commit(root, BAD);
    assert!(!bad.status.success());
    let report = stderr(&bad);
    assert!(
        report.contains(BAD),
        "the report quotes the message: {report}"
    );
    assert!(report.contains("COMMIT_EDITMSG"), "{report}");
    assert_eq!(commit_count(root), 1, "no commit was made");

    // What git writes itself passes.
    git(root, &["checkout", "-q", "-b", "topic"]);
    let topic = try_commit(root, "fix: topic work");
    assert!(topic.status.success(), "{}", stderr(&topic));
    git(root, &["checkout", "-q", "main"]);
    let merge = git_output(root, &["merge", "--no-ff", "--no-edit", "topic"]);
    assert!(merge.status.success(), "{}", stderr(&merge));
}

#[test]
fn installing_again_changes_nothing() {
    let repo = empty_repository();
    let hook = repo.path().join(".git/hooks/commit-msg");
    assert_eq!(code(&install(repo.path(), false)), 0);
    let first = fs::read(&hook).unwrap();
    let inode = fs::metadata(&hook).unwrap().ino();
    for force in [false, true] {
        let again = install(repo.path(), force);
        assert_eq!(code(&again), 0, "{}", stderr(&again));
        assert_eq!(
            stdout(&again),
            "the commit-msg hook is already installed, unchanged: .git/hooks/commit-msg\n"
        );
    }
    assert_eq!(fs::read(&hook).unwrap(), first);
    assert_eq!(
        fs::metadata(&hook).unwrap().ino(),
        inode,
        "not even rewritten"
    );
    assert!(!repo.path().join(".git/hooks/quire-backup").exists());
}

#[test]
fn a_hook_quire_wrote_is_brought_up_to_date() {
    let repo = empty_repository();
    let hook = repo.path().join(".git/hooks/commit-msg");
    fs::create_dir_all(hook.parent().unwrap()).unwrap();
    // An older quire hook, no longer executable.
    fs::write(&hook, format!("#!/bin/sh\n{MARKER}\nexec quire check\n")).unwrap();
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o644)).unwrap();
    let output = install(repo.path(), false);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "updated the commit-msg hook quire wrote: .git/hooks/commit-msg\n"
    );
    assert!(fs::read_to_string(&hook).unwrap().contains("--git-message"));
    assert_eq!(fs::metadata(&hook).unwrap().mode() & 0o777, 0o755);
}

#[test]
fn a_foreign_hook_is_kept_unless_forced_and_then_backed_up() {
    let repo = empty_repository();
    let hooks = repo.path().join(".git/hooks");
    fs::create_dir_all(&hooks).unwrap();
    let hook = hooks.join("commit-msg");
    let foreign = "#!/bin/sh\necho 'their own hook'\n";
    fs::write(&hook, foreign).unwrap();
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o750)).unwrap();

    let refused = install(repo.path(), false);
    assert_eq!(code(&refused), 2);
    let err = stderr(&refused);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(
            "error: .git/hooks/commit-msg is a hook quire did not write; it was left as it is."
        ),
        "{err}"
    );
    assert!(err.contains("--force"), "{err}");
    assert!(stdout(&refused).is_empty());
    assert_eq!(fs::read_to_string(&hook).unwrap(), foreign);

    let forced = install(repo.path(), true);
    assert_eq!(code(&forced), 0, "{}", stderr(&forced));
    assert_eq!(
        stdout(&forced),
        "installed the commit-msg hook: .git/hooks/commit-msg; the hook that was there is now .git/hooks/quire-backup/commit-msg\n"
    );
    assert!(fs::read_to_string(&hook).unwrap().contains(MARKER));
    let backup = hooks.join("quire-backup/commit-msg");
    assert_eq!(fs::read_to_string(&backup).unwrap(), foreign);
    assert_eq!(fs::metadata(&backup).unwrap().mode() & 0o777, 0o750);

    // A second foreign hook forced out never overwrites the first backup.
    fs::write(&hook, "#!/bin/sh\nexit 0\n").unwrap();
    let again = install(repo.path(), true);
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    assert!(stdout(&again).ends_with("is now .git/hooks/quire-backup/commit-msg 1\n"));
    assert_eq!(fs::read_to_string(&backup).unwrap(), foreign);
}

#[test]
fn a_hook_that_is_a_symbolic_link_is_refused_without_force() {
    let repo = empty_repository();
    let hooks = repo.path().join(".git/hooks");
    fs::create_dir_all(&hooks).unwrap();
    let target = repo.path().join("shared-hook");
    fs::write(&target, "#!/bin/sh\nexit 0\n").unwrap();
    let hook = hooks.join("commit-msg");
    std::os::unix::fs::symlink(&target, &hook).unwrap();

    let refused = install(repo.path(), false);
    assert_eq!(code(&refused), 2);
    assert!(stderr(&refused).contains("is a symbolic link quire did not write"));
    assert_eq!(fs::read_link(&hook).unwrap(), target);

    let forced = install(repo.path(), true);
    assert_eq!(code(&forced), 0, "{}", stderr(&forced));
    // The link itself was moved aside; what it pointed to is untouched.
    assert_eq!(
        fs::read_link(hooks.join("quire-backup/commit-msg")).unwrap(),
        target
    );
    assert_eq!(fs::read_to_string(&target).unwrap(), "#!/bin/sh\nexit 0\n");
    assert!(fs::symlink_metadata(&hook).unwrap().is_file());
}

#[test]
fn core_hooks_path_is_honoured_and_its_folder_made() {
    let repo = empty_repository();
    let root = repo.path();
    git(root, &["config", "core.hooksPath", "tools/hooks"]);
    // From a subfolder: the path is the work tree's, not the subfolder's.
    let sub = root.join("src");
    fs::create_dir(&sub).unwrap();
    let output = install(&sub, false);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let hook = root.join("tools/hooks/commit-msg");
    assert!(fs::read_to_string(&hook).unwrap().contains(MARKER));
    assert!(!root.join(".git/hooks/commit-msg").exists());
    assert!(!sub.join("tools").exists());
    let shown = fs::canonicalize(&hook).unwrap();
    assert_eq!(
        stdout(&output),
        format!("installed the commit-msg hook: {}\n", shown.display())
    );

    let bad = try_commit(root, BAD);
    assert!(!bad.status.success());
    assert_eq!(commit_count(root), 0);
    assert!(try_commit(root, GOOD).status.success());
}

#[test]
fn a_worktree_installs_into_the_repositorys_hooks() {
    let repo = empty_repository();
    let root = repo.path().join("main");
    fs::create_dir(&root).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    assert!(try_commit(&root, GOOD).status.success());
    let worktree = repo.path().join("linked");
    git(
        &root,
        &["worktree", "add", "-q", worktree.to_str().unwrap()],
    );
    let output = install(&worktree, false);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(root.join(".git/hooks/commit-msg").exists());
    // And it runs for commits made in the worktree.
    assert!(!try_commit(&worktree, BAD).status.success());
}

#[test]
fn outside_a_repository_nothing_is_written() {
    let folder = tempfile::tempdir().unwrap();
    let output = install(folder.path(), false);
    assert_eq!(code(&output), 2);
    let err = stderr(&output);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("not a git repository"), "{err}");
    assert_eq!(fs::read_dir(folder.path()).unwrap().count(), 0);
}

#[test]
fn an_unwritable_hooks_folder_is_a_clear_error() {
    let repo = empty_repository();
    let hooks = repo.path().join(".git/hooks");
    fs::create_dir_all(&hooks).unwrap();
    fs::set_permissions(&hooks, fs::Permissions::from_mode(0o555)).unwrap();
    let is_root = rustix::process::geteuid().as_raw() == 0;
    let output = if is_root {
        // Root writes anywhere: run as user 65534, for whom the folder is
        // read-only. git refuses a repository another user owns unless the
        // global configuration says it is safe.
        fs::set_permissions(repo.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let global = repo.path().join("gitconfig");
        fs::write(&global, "[safe]\n\tdirectory = *\n").unwrap();
        quire_command_for_another_user(repo.path(), &["hook", "install", "commit-msg"])
            .env("GIT_CONFIG_GLOBAL", &global)
            .env("HOME", repo.path())
            .uid(65534)
            .gid(65534)
            .output()
            .unwrap()
    } else {
        install(repo.path(), false)
    };
    let err = stderr(&output);
    assert_eq!(code(&output), 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: cannot write .git/hooks/commit-msg"),
        "{err}"
    );
    assert!(!hooks.join("commit-msg").exists());
    // git's sample hooks only: no temporary file left behind.
    let leftovers: Vec<PathBuf> = fs::read_dir(&hooks)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.extension()
                .is_none_or(|extension| extension != "sample")
        })
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Issue 27: the planner-to-commit workflow end to end. A plan made with
/// the planner tools (`quire call`), `quire hook install planner`, then a
/// plain `git commit` (the editor keeps what it is given): the message is
/// the plan, the commit-msg hook judges it as a plan document and passes
/// it (its capitalized title and long description line would fail
/// commitlint's rules), and the finished plan is cleared after.
#[test]
fn a_plan_made_with_the_planner_is_committed_through_the_installed_hooks() {
    let repo = empty_repository();
    let root = repo.path();
    let planner = |tool: &str, arguments: &str| {
        let output = quire(root, &["call", "--tools", "planner", tool, arguments]);
        assert_eq!(
            code(&output),
            0,
            "{tool}: {}{}",
            stdout(&output),
            stderr(&output)
        );
    };
    planner(
        "set_overarching_goal",
        r#"{"goal": {"type": "feat", "scope": "greet", "title": "Add a farewell function"}}"#,
    );
    planner(
        "set_detailed_goal",
        r#"{"description": "Users are greeted on the way in but not on the way out, so the program says goodbye as well; this description line is longer than one hundred characters.\n- Never: change the greeting"}"#,
    );
    planner(
        "set_plan",
        r#"{"plan": [[false, "Write the farewell", []], [false, "Test it", []]]}"#,
    );
    planner("mark_task", r#"{"task_id": "Write the farewell"}"#);
    planner("mark_task", r#"{"task_id": "Test it"}"#);
    fs::write(root.join("greet.txt"), "goodbye\n").unwrap();
    git(root, &["add", "greet.txt"]);

    let output = quire(root, &["hook", "install", "planner"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "installed the prepare-commit-msg hook: .git/hooks/prepare-commit-msg\n\
         installed the commit-msg hook: .git/hooks/commit-msg\n\
         installed the post-commit hook: .git/hooks/post-commit\n"
    );
    let binary = fs::canonicalize(git_cli::quire_bin()).unwrap();
    for hook in ["prepare-commit-msg", "commit-msg", "post-commit"] {
        let text = fs::read_to_string(root.join(".git/hooks").join(hook)).unwrap();
        assert!(text.contains(&format!("# quire-hook: {hook}\n")), "{text}");
        assert!(
            text.contains(binary.to_str().unwrap()),
            "the absolute path: {text}"
        );
    }

    let commit = git_cli::git_command(root)
        .args(["commit", "-q"])
        .env("GIT_EDITOR", "true")
        .output()
        .unwrap();
    assert!(
        commit.status.success(),
        "the hook refused the planner's plan:\n{}",
        String::from_utf8_lossy(&commit.stderr)
    );
    let message = git(root, &["log", "-1", "--format=%B"]);
    assert!(
        message.starts_with("feat(greet): Add a farewell function\n"),
        "{message}"
    );
    assert!(message.contains("- [x]: Write the farewell"), "{message}");
    assert!(
        String::from_utf8_lossy(&commit.stderr).contains("the plan is finished and committed"),
        "{}",
        String::from_utf8_lossy(&commit.stderr)
    );
    assert!(!root.join(".git/QUIRE_PLAN").exists());
    // The same message judged by `quire check` from a file gets the hook's
    // verdict.
    fs::write(root.join("message.txt"), format!("{message}\n")).unwrap();
    assert_eq!(code(&quire(root, &["check", "message.txt"])), 0);
}

/// Issue 27: each hook is installed under the same rules as commit-msg:
/// a foreign hook is kept without --force and backed up with it.
#[test]
fn the_planner_hooks_keep_a_foreign_hook_unless_forced() {
    let repo = empty_repository();
    let root = repo.path();
    let foreign = root.join(".git/hooks/post-commit");
    fs::write(&foreign, "#!/bin/sh\necho mine\n").unwrap();
    let refused = quire(root, &["hook", "install", "planner"]);
    assert_eq!(code(&refused), 2);
    assert!(
        stderr(&refused).contains("quire hook install post-commit --force"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(
        fs::read_to_string(&foreign).unwrap(),
        "#!/bin/sh\necho mine\n"
    );
    let forced = quire(root, &["hook", "install", "post-commit", "--force"]);
    assert_eq!(code(&forced), 0, "{}", stderr(&forced));
    assert_eq!(
        fs::read_to_string(root.join(".git/hooks/quire-backup/post-commit")).unwrap(),
        "#!/bin/sh\necho mine\n"
    );
    let again = quire(root, &["hook", "install", "planner"]);
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    assert!(stdout(&again).contains("the post-commit hook is already installed"));
}
