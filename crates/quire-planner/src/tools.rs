//! The workflow's steps over a plan store: load, parse, edit, format,
//! re-parse and validate, and only then store.

use std::path::PathBuf;
use std::time::Duration;

use super::edit::{self, Goal, Rewrites};
use super::error::{PlanEditError, PlannerError};
use super::findings::Findings;
use super::next::NextStep;
use super::report::{Edit, PlanReport, PreviousPlan};
use super::stage::Stage;
use super::store::{self, ChangesDetail, PlanStore, StoreKind, WorkingCopyChanges};
use quire_fs::Workspace;
use quire_grammar::plan::{
    ParseOutcome, ParserConfig, PlanDiagnostic, PlanDocument, Task, format, parse, validate_with,
};

/// How long a call waits for another writer of the plan.
pub const LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// The planner toolset over one workspace. Read-modify-write of the plan is
/// serialized across threads and processes, so concurrent calls never lose
/// an update. Cloning it is cheap: the clones share the workspace's open
/// folder.
#[derive(Clone)]
pub struct PlannerTools {
    workspace: Workspace,
    plan_file: Option<PathBuf>,
    config: ParserConfig,
    lock_timeout: Duration,
    changes_detail: ChangesDetail,
}

impl PlannerTools {
    /// Tools for the repository the workspace is in, or for the plan file
    /// `plan_file` (relative to the workspace root) when one is given.
    pub fn new(workspace: Workspace, plan_file: Option<PathBuf>) -> Self {
        PlannerTools {
            workspace,
            plan_file,
            config: ParserConfig::COMMIT_MESSAGE,
            lock_timeout: LOCK_TIMEOUT,
            changes_detail: ChangesDetail::Files,
        }
    }

    /// Waits at most `timeout` for another writer of the plan (default
    /// [`LOCK_TIMEOUT`]).
    pub fn with_lock_timeout(mut self, timeout: Duration) -> Self {
        self.lock_timeout = timeout;
        self
    }

    /// How much of the working copy's changes each report carries (default
    /// [`ChangesDetail::Files`]: the changed files and their line counts,
    /// without the diff).
    ///
    /// ```
    /// use quire_planner::PlannerTools;
    /// use quire_planner::store::{ChangesDetail, FileStatus, LineCounts};
    ///
    /// let folder = tempfile::tempdir()?;
    /// # let git = |args: &[&str]| std::process::Command::new("git").args(args)
    /// #     .current_dir(folder.path()).env("GIT_CONFIG_GLOBAL", "/dev/null")
    /// #     .status().map(|status| assert!(status.success()));
    /// git(&["init", "-q"])?;
    /// std::fs::write(folder.path().join("notes.txt"), "one\ntwo\n")?;
    /// let tools = PlannerTools::new(quire_fs::Workspace::new(folder.path())?, None);
    ///
    /// let changes = tools.gather_requirements()?.changes.expect("a new file");
    /// assert_eq!(changes.files[0].path, "notes.txt");
    /// assert_eq!(changes.files[0].status, FileStatus::Added);
    /// assert_eq!(changes.files[0].lines, LineCounts::Counted { added: 2, removed: 0 });
    /// assert_eq!(changes.diff, None);
    ///
    /// let with_diff = tools.with_changes(ChangesDetail::FilesAndDiff);
    /// let diff = with_diff.gather_requirements()?.changes.and_then(|changes| changes.diff);
    /// assert!(diff.expect("asked for").contains("+++ b/notes.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_changes(mut self, detail: ChangesDetail) -> Self {
        self.changes_detail = detail;
        self
    }

    fn store(&self) -> Result<Box<dyn PlanStore>, PlannerError> {
        Ok(store::detect(&self.workspace, self.plan_file.as_deref())?)
    }

    /// Sets (or replaces) the overarching goal, the header, keeping the
    /// rest of the plan. A finished plan's goal is not changed: start the
    /// next plan with [`PlannerTools::start_new_plan`] instead.
    pub fn set_overarching_goal(&self, goal: &Goal) -> Result<PlanReport, PlannerError> {
        let rewrites = Rewrites {
            header: true,
            ..Rewrites::default()
        };
        self.edit(rewrites, |document, context| {
            if Stage::of(document) == Stage::Complete {
                return Err(PlanEditError::Finished {
                    store: context.store,
                });
            }
            edit::set_goal(document, goal)?;
            Ok(Edit::GoalSet)
        })
    }

    /// Sets the description and, when the text ends in constraint lines,
    /// the constraints (replacing the old ones).
    pub fn set_detailed_goal(&self, description: &str) -> Result<PlanReport, PlannerError> {
        let rewrites = Rewrites {
            detailed_goal: true,
            ..Rewrites::default()
        };
        self.edit(rewrites, |document, context| {
            edit::set_detailed_goal(document, description, context.config)?;
            Ok(Edit::DetailedGoalSet)
        })
    }

    /// Sets (or replaces) the tasks; a finished plan is open again.
    pub fn set_plan(&self, tasks: Vec<Task>) -> Result<PlanReport, PlannerError> {
        self.edit(Rewrites::default(), |document, context| {
            edit::set_plan(document, tasks, context.config)?;
            Ok(Edit::PlanSet)
        })
    }

    /// Marks the task `task_id` names done (`completed`), or open again
    /// with every task above it. An id written as a tree path (`2`, `1.1`)
    /// names exactly that task; any other id is a task's text (an exact
    /// match wins, else a unique case-insensitive part of it).
    pub fn mark_task(&self, task_id: &str, completed: bool) -> Result<PlanReport, PlannerError> {
        self.edit(Rewrites::default(), |document, _| {
            let marked = edit::mark_task(document, task_id, completed)?;
            Ok(Edit::TaskMarked {
                task: marked.task,
                completed,
                parent_ready: marked.parent_ready,
            })
        })
    }

    /// Records the job as complete (`~~~ COMPLETE ~~~` under the direction
    /// the user wrote, if any); refuses while a task is open.
    pub fn finish_job(&self) -> Result<PlanReport, PlannerError> {
        self.edit(Rewrites::default(), |document, _| {
            let direction = document.direction_before_directive().map(str::to_owned);
            edit::finish_job(document)?;
            Ok(Edit::JobFinished { direction })
        })
    }

    /// The current stage and what to do next, with every parser warning and
    /// validator finding of the stored plan. Text that is not a plan is
    /// reported as unreadable (with its diagnostics and the fix), not
    /// refused: only writes refuse it.
    pub fn gather_requirements(&self) -> Result<PlanReport, PlannerError> {
        let store = self.store()?;
        self.locked(store.as_ref(), || {
            let text = store.load()?;
            let changes = store.changes(self.changes_detail)?;
            let outcome = parse(&text, &self.config);
            if !outcome.is_parsed() {
                return Ok(self.unreadable(store.as_ref(), text, outcome, changes));
            }
            let findings = self.findings(&outcome.document);
            Ok(self.report(store.as_ref(), &text, &outcome, &findings, None, changes))
        })
    }

    /// Starts the next plan with `goal`: Jujutsu in a new change (`jj new`),
    /// keeping the old plan on its change; the other stores by replacing
    /// the stored text (returned as the report's `previous_plan`). The way
    /// to set the goal of a finished plan.
    pub fn start_new_plan(&self, goal: &Goal) -> Result<PlanReport, PlannerError> {
        let store = self.store()?;
        self.locked(store.as_ref(), || {
            let mut document = PlanDocument::default();
            edit::set_goal(&mut document, goal)?;
            let checked = self.checked_text(&document)?;
            let previous = store.load()?;
            // Nothing stored: nothing to keep, and no empty jj change to leave behind.
            let kept = !previous.trim().is_empty() && store.start_new()?;
            let changes = store.changes(self.changes_detail)?;
            store.save(&checked.text)?;
            let previous_plan = if previous.trim().is_empty() {
                PreviousPlan::None
            } else if kept {
                PreviousPlan::Kept
            } else {
                let outcome = parse(&previous, &self.config);
                PreviousPlan::Replaced {
                    stage: if outcome.is_parsed() {
                        Stage::of(&outcome.document)
                    } else {
                        Stage::Unreadable
                    },
                }
            };
            let edit = Edit::NewPlanStarted {
                previous: previous_plan,
            };
            let mut report = checked.report(self, store.as_ref(), edit, changes);
            if let PreviousPlan::Replaced { .. } = previous_plan {
                report.previous_plan = Some(previous);
            }
            Ok(report)
        })
    }

    /// Runs `work` holding the store's lock, so that neither threads nor
    /// other processes interleave a read-modify-write.
    fn locked<T>(
        &self,
        store: &dyn PlanStore,
        work: impl FnOnce() -> Result<T, PlannerError>,
    ) -> Result<T, PlannerError> {
        let _lock = store.lock(self.lock_timeout)?;
        work()
    }

    /// Load, edit, verify, store. Nothing is stored unless the formatted text
    /// parses back to exactly the edited document and passes the validator,
    /// and nothing the stored plan holds outside the sections `rewrites`
    /// names is lost.
    fn edit(
        &self,
        rewrites: Rewrites,
        apply: impl FnOnce(&mut PlanDocument, &EditContext<'_>) -> Result<Edit, PlanEditError>,
    ) -> Result<PlanReport, PlannerError> {
        let store = self.store()?;
        self.locked(store.as_ref(), || {
            let text = store.load()?;
            let mut document =
                edit::read_for_edit(&text, &self.config, &store.clear_hint(), rewrites)?;
            let context = EditContext {
                config: &self.config,
                store: store.kind(),
            };
            let edit = apply(&mut document, &context)?;
            let checked = self.checked_text(&document)?;
            // Everything that can fail happens before the plan is stored: a
            // failed call changes nothing.
            let changes = store.changes(self.changes_detail)?;
            store.save(&checked.text)?;
            Ok(checked.report(self, store.as_ref(), edit, changes))
        })
    }

    /// The text that stores `document`, after checking that it follows the
    /// rules, fits the length limit and reads back as exactly `document`
    /// (the same content; spans aside). The plan is validated once: the
    /// findings of the text as it will be stored are also the report's.
    fn checked_text(&self, document: &PlanDocument) -> Result<CheckedText, PlanEditError> {
        let mut document = document.clone();
        edit::normalize(&mut document);
        let text = format(&document, &self.config);
        let outcome = parse(&text, &self.config);
        let reads_back = outcome.is_parsed() && outcome.document.same_content(&document);
        // Their spans point into `text`, unless it does not read back.
        let findings = self.findings(if reads_back {
            &outcome.document
        } else {
            &document
        });
        let broken: Vec<String> = findings
            .iter()
            .filter(|finding| finding.is_error())
            .map(|finding| {
                format!(
                    "{}: {} ({})",
                    finding.field.as_deref().unwrap_or_default(),
                    finding.message,
                    finding.help
                )
            })
            .collect();
        if !broken.is_empty() {
            return Err(PlanEditError::invalid(format!(
                "the plan would break its rules, so nothing was stored: {}",
                broken.join("; ")
            )));
        }
        let length = text.chars().count();
        if length > self.config.max_input_length {
            return Err(PlanEditError::invalid(format!(
                "the plan would be {length} characters long, over the limit of {} characters; nothing was stored. \
                 Shorten the description or the task texts, or split the work into several plans",
                self.config.max_input_length
            )));
        }
        if !reads_back {
            return Err(PlanEditError::invalid(
                "the plan cannot be written so that it reads back as given (a description line that looks like a task or constraint, \
                 or a direction without tasks?); nothing was stored. Rephrase the text and try again",
            ));
        }
        Ok(CheckedText {
            text,
            outcome,
            findings,
        })
    }

    /// The validator's findings on `document`, with this toolset's limits.
    /// An empty plan breaks no rule yet: it is stage 0.
    fn findings(&self, document: &PlanDocument) -> Vec<PlanDiagnostic> {
        if document.is_empty() {
            Vec::new()
        } else {
            validate_with(document, &self.config)
        }
    }

    /// The report on `text`, as parsed into `outcome`.
    fn report(
        &self,
        store: &dyn PlanStore,
        text: &str,
        outcome: &ParseOutcome,
        validated: &[PlanDiagnostic],
        edit: Option<Edit>,
        changes: Option<WorkingCopyChanges>,
    ) -> PlanReport {
        let document = &outcome.document;
        let next = NextStep::of(document);
        let findings = Findings::of(text, &outcome.diagnostics, validated);
        PlanReport {
            stage: next.stage(),
            store: store.kind(),
            document: document.clone(),
            rendered: format(document, &self.config),
            edit,
            next,
            changes,
            errors: findings.errors,
            warnings: findings.warnings,
            previous_plan: None,
        }
    }

    /// The report on stored text that is not a plan document.
    fn unreadable(
        &self,
        store: &dyn PlanStore,
        text: String,
        outcome: ParseOutcome,
        changes: Option<WorkingCopyChanges>,
    ) -> PlanReport {
        let findings = Findings::of(&text, &outcome.diagnostics, &[]);
        PlanReport {
            stage: Stage::Unreadable,
            store: store.kind(),
            document: outcome.document,
            rendered: text,
            edit: None,
            next: NextStep::FixText {
                clear_hint: store.clear_hint(),
            },
            changes,
            errors: findings.errors,
            warnings: findings.warnings,
            previous_plan: None,
        }
    }
}

/// What an edit may need besides the document.
pub(super) struct EditContext<'a> {
    pub config: &'a ParserConfig,
    /// The store's kind, for advice that depends on it.
    pub store: StoreKind,
}

/// A plan's text checked for storing, as it parses, and its findings.
struct CheckedText {
    text: String,
    outcome: ParseOutcome,
    findings: Vec<PlanDiagnostic>,
}

impl CheckedText {
    /// The report once the text is stored.
    fn report(
        &self,
        tools: &PlannerTools,
        store: &dyn PlanStore,
        edit: Edit,
        changes: Option<WorkingCopyChanges>,
    ) -> PlanReport {
        tools.report(
            store,
            &self.text,
            &self.outcome,
            &self.findings,
            Some(edit),
            changes,
        )
    }
}
