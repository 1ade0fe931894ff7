//! Directory scope expansion (kiln spec, "Directory scope expansion"): a
//! note path outside the kiln root is refused, unless the user lets the
//! session use the folder it is in.
//!
//! Only with `--writes ask`, only through MCP elicitation (the user is
//! asked, never a silent yes: a client that cannot elicit is refused), and
//! only one extra folder per session. The question names the folder, the
//! root, the tool and the note. Once approved, the note tools
//! (`read_note`, `read_metadata`, `create_note`, `update_note`,
//! `delete_note`) take absolute paths in that folder and below; the folder
//! gets the same confined file layer and its own index, a write there is
//! still asked about one by one, and each result's `path` is the absolute
//! path the agent gave, so it cannot be mistaken for a note of the root.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{
    ElicitRequest, ElicitRequestParams, InputRequest, InputRequiredResult, InputResponses,
    JsonObject, ProtocolVersion,
};
use rmcp::service::RequestContext;
use serde_json::Value;

use super::approval::{ExtraFolder, WritePolicy};
use super::elicit::{Answer, answer_of, can_ask_with_a_form, choice_question, is_sessionless};
use super::kiln_write::ELICITATION_WAIT;
use super::server::QuireServer;
use super::tool_error::ToolError;
use quire_fs::Workspace;
use quire_grammar::diagnostics::one_line;
use quire_kiln::{KilnOptions, KilnTools, PlannedChange, WritePreview};

/// The key of the folder question among a 2026-07-28 call's input requests.
const FOLDER_INPUT: &str = "folder";

/// The kiln a note tool's call runs on.
pub(super) enum Scope {
    /// The kiln root's.
    Root,
    /// The extra folder's; the call's `path` was made relative to it.
    Extra(ExtraFolder),
}

impl Scope {
    /// The tools to run the call with.
    pub(super) fn kiln<'a>(&'a self, root: &'a Arc<KilnTools>) -> &'a Arc<KilnTools> {
        match self {
            Scope::Root => root,
            Scope::Extra(extra) => &extra.kiln,
        }
    }

    /// A note path of the tools' results as the agent gave it: absolute
    /// for a note of the extra folder.
    pub(super) fn shown(&self, path: &str) -> String {
        match self {
            Scope::Root => path.to_owned(),
            Scope::Extra(extra) => extra.folder.join(path).to_string_lossy().into_owned(),
        }
    }

    /// Rewrites a result's paths (`path`, a delete's `trashed_to`, a
    /// move's `new_path` and `relinked` notes) as [`Scope::shown`] says: a note trashed in the extra
    /// folder went to that folder's `.trash/`, not the root's.
    pub(super) fn show_path_in(&self, value: &mut Value) {
        if let Scope::Extra(_) = self {
            for key in ["path", "trashed_to", "new_path"] {
                if let Some(Value::String(path)) = value.get_mut(key) {
                    *path = self.shown(path);
                }
            }
            // A move's relinked notes.
            if let Some(Value::Array(notes)) = value.get_mut("relinked") {
                for note in notes {
                    if let Some(Value::String(path)) = note.get_mut("path") {
                        *path = self.shown(path);
                    }
                }
            }
        }
    }

    /// A write's preview with its paths as [`Scope::shown`] says, for the
    /// user to read.
    pub(super) fn shown_preview(&self, preview: &WritePreview) -> WritePreview {
        let change = match &preview.change {
            // A move's destination and the notes it relinks are in the
            // same folder as the note.
            PlannedChange::Move { new_path, relinked } => PlannedChange::Move {
                new_path: self.shown(new_path),
                relinked: relinked
                    .iter()
                    .map(|(path, links)| (self.shown(path), *links))
                    .collect(),
            },
            other => other.clone(),
        };
        WritePreview {
            path: self.shown(&preview.path),
            link_target: preview
                .link_target
                .as_deref()
                .map(|target| self.shown(target)),
            change,
            ..preview.clone()
        }
    }
}

/// Why a call does not go on.
pub(super) enum Stop {
    /// It is refused.
    Refused(ToolError),
    /// The user is being asked (a 2026-07-28 session).
    Asking(InputRequiredResult),
}

impl From<ToolError> for Stop {
    fn from(error: ToolError) -> Self {
        Stop::Refused(error)
    }
}

/// Where a note path given to a tool lies.
#[derive(Debug, PartialEq, Eq)]
enum Place {
    /// In the root (or not a path this module decides about).
    Root,
    /// Outside the root: the note's folder (lexically resolved, absolute)
    /// and file name.
    Outside { folder: PathBuf, name: String },
}

/// Where `given` lies, resolved lexically against `root` (`..` taken as
/// written; links are resolved later, when the folder is opened).
fn place(root: &Path, given: &str) -> Place {
    let given_path = Path::new(given);
    let joined = if given_path.is_absolute() {
        given_path.to_owned()
    } else {
        root.join(given_path)
    };
    let mut resolved = PathBuf::from("/");
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::Normal(name) => resolved.push(name),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    if resolved.starts_with(root) {
        return Place::Root;
    }
    match (resolved.parent(), resolved.file_name()) {
        (Some(folder), Some(name)) => Place::Outside {
            folder: folder.to_owned(),
            name: name.to_string_lossy().into_owned(),
        },
        _ => Place::Root,
    }
}

/// `path` below `folder`, `/`-separated.
fn below(path: &Path, folder: &Path) -> Option<String> {
    let relative = path.strip_prefix(folder).ok()?;
    Some(
        relative
            .components()
            .map(|component| component.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
    )
}

impl QuireServer {
    /// The kiln a note tool's call runs on: the root's, or the extra folder
    /// the user approved (asking first when the call names a note outside
    /// the root). `args["path"]` is made relative to the kiln returned.
    pub(super) async fn scope_of(
        &self,
        tool: &str,
        args: &mut JsonObject,
        context: &RequestContext<RoleServer>,
        responses: &mut Option<InputResponses>,
        state: &mut Option<String>,
    ) -> Result<Scope, Stop> {
        let Some(Value::String(given)) = args.get("path") else {
            return Ok(Scope::Root);
        };
        let root = self.kiln.workspace().root().to_owned();
        let Place::Outside { folder, name } = place(&root, given) else {
            return Ok(Scope::Root);
        };
        if self.approvals.policy() != WritePolicy::Ask {
            // No one to ask: the root's own rules refuse the path.
            return Ok(Scope::Root);
        }
        let shown_given = one_line(given);
        let how_out = if Path::new(given).is_absolute() {
            "is outside the kiln root"
        } else {
            "climbs above the kiln root"
        };
        let retrying = responses
            .as_ref()
            .is_some_and(|responses| responses.contains_key(FOLDER_INPUT));
        let approved = self.approvals.extra_folder();
        // Said before any folder outside is looked at, so that such a
        // client cannot learn which exist.
        if is_sessionless(context) {
            return Err(ToolError::validation(format!(
                "`{shown_given}` {how_out}: paths are relative to the root and may not leave it, and a request \
                 without a session cannot be let into a folder outside it (that is a grant for the rest of a \
                 session; connect with a session to ask for it); nothing was read or written"
            ))
            .into());
        }
        if approved.is_none() && !retrying && !can_ask_with_a_form(context) {
            return Err(ToolError::validation(format!(
                "`{shown_given}` {how_out}: paths are relative to the root and may not leave it, and this client \
                 cannot ask the user (it does not support MCP form elicitation) to let the session use a folder \
                 outside it; nothing was read or written"
            ))
            .into());
        }
        let folder = match Workspace::new(&folder) {
            Ok(workspace) => workspace.root().to_owned(),
            Err(error) => {
                return Err(ToolError::validation(format!(
                    "`{shown_given}` {how_out}, in a folder that cannot be opened ({error}); nothing was read or \
                     written"
                ))
                .into());
            }
        };
        if folder.starts_with(&root) {
            // Outside only as written (a link back in): the root's own
            // rules decide.
            return Ok(Scope::Root);
        }
        if let Some(extra) = approved {
            if let Some(relative) = below(&folder.join(&name), &extra.folder) {
                args.insert("path".to_owned(), Value::String(relative));
                // move_note's destination, when given as an absolute path
                // in the same folder, is relative to it too.
                if let Some(Value::String(new_path)) = args.get_mut("new_path")
                    && let Some(relative) = below(Path::new(new_path.as_str()), &extra.folder)
                {
                    *new_path = relative;
                }
                return Ok(Scope::Extra(extra));
            }
            return Err(ToolError::validation(format!(
                "`{shown_given}` {how_out} and outside `{}`, the one other folder this session may use; nothing \
                 was read or written",
                extra.folder.display()
            ))
            .into());
        }
        if folder == Path::new("/") {
            return Err(ToolError::validation(format!(
                "`{shown_given}` is in the top folder of the file system, which a session may not open; nothing \
                 was read or written"
            ))
            .into());
        }
        let writes_asked = !self.approvals.approved_without_asking();
        let question = folder_question(tool, &folder, &root, &name, writes_asked)?;
        let asker = self.approvals.asker(false);
        let allowed = match (
            responses.as_mut().and_then(|r| r.remove(FOLDER_INPUT)),
            state.take(),
        ) {
            // A 2026-07-28 client's retry with the user's answer.
            (Some(answer), Some(token)) => {
                let asked = self
                    .approvals
                    .redeem_folder(&token, asker)
                    .map_err(|problem| ToolError::validation(problem.message()))?;
                if asked != folder {
                    return Err(ToolError::validation(
                        "the answer was for another folder; nothing was read or written",
                    )
                    .into());
                }
                *responses = None;
                folder_allowed(Some(answer))
            }
            (answer, state_kept) => {
                *state = state_kept;
                if answer.is_some() {
                    return Err(ToolError::validation(
                        "an answer about a folder came without its requestState; nothing was read or written",
                    )
                    .into());
                }
                let modern = context.protocol_version().is_some_and(|version| {
                    version.as_str() >= ProtocolVersion::V_2026_07_28.as_str()
                });
                if modern {
                    let token = self
                        .approvals
                        .issue_folder(asker, &folder)
                        .map_err(|error| {
                            ToolError::internal(format!(
                                "no approval token could be made ({error})"
                            ))
                        })?;
                    let asking = InputRequest::Elicitation(ElicitRequest::new(question));
                    return Err(Stop::Asking(InputRequiredResult::new(
                        Some([(FOLDER_INPUT.to_owned(), asking)].into_iter().collect()),
                        Some(token),
                    )));
                }
                let answer = context
                    .peer
                    .create_elicitation_with_timeout(question, Some(ELICITATION_WAIT))
                    .await
                    .ok()
                    .and_then(|answer| serde_json::to_value(answer).ok());
                folder_allowed(answer)
            }
        };
        if !allowed {
            return Err(ToolError::validation(format!(
                "the user did not let this session use `{}`, outside the kiln root; nothing was read or written",
                folder.display()
            ))
            .into());
        }
        let workspace = Workspace::new(&folder).map_err(|error| {
            ToolError::validation(format!("`{}` cannot be opened: {error}", folder.display()))
        })?;
        let options = KilnOptions {
            budget: self.kiln.budget(),
            watch: false,
            ..KilnOptions::default()
        };
        let kiln = KilnTools::with_options(workspace, options);
        kiln.start_indexing();
        let extra = ExtraFolder {
            folder: folder.clone(),
            kiln: Arc::new(kiln),
        };
        self.approvals.approve_folder(extra.clone());
        tracing::info!(folder = %folder.display(), "the user let this session use a folder outside the root");
        args.insert("path".to_owned(), Value::String(name));
        Ok(Scope::Extra(extra))
    }
}

/// Whether the user's answer (an elicitation result, as JSON) allows the
/// folder.
fn folder_allowed(answer: Option<Value>) -> bool {
    answer_of(answer) == Answer::Chose("allow".to_owned())
}

/// The question put to the user about a folder outside the root; whether
/// writes there will be asked about (`writes_asked`) is what this session's
/// approvals say now. Names are shown on one line, escaped, so a folder's
/// name cannot spoof the question.
fn folder_question(
    tool: &str,
    folder: &Path,
    root: &Path,
    name: &str,
    writes_asked: bool,
) -> Result<ElicitRequestParams, ToolError> {
    let shown = |text: &str| one_line(&text.replace('`', "'")).into_owned();
    let writes = if writes_asked {
        "each write is still asked about"
    } else {
        "writes there are not asked about: every note change was approved for this session"
    };
    choice_question(
        format!(
            "An agent asks to use the folder `{}`, outside the kiln root `{}`, for {tool} of `{}`. Allow this \
             session to read notes there ({writes})?",
            shown(&folder.to_string_lossy()),
            shown(&root.to_string_lossy()),
            shown(name),
        ),
        "Allow this folder?",
        &[
            ("allow", "Allow this folder for the rest of this session"),
            ("deny", "Deny"),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn outside(folder: &str, name: &str) -> Place {
        Place::Outside {
            folder: PathBuf::from(folder),
            name: name.to_owned(),
        }
    }

    #[test]
    fn paths_are_placed_lexically() {
        let root = Path::new("/home/u/notes");
        assert_eq!(place(root, "a/b.md"), Place::Root);
        assert_eq!(place(root, "a/../b.md"), Place::Root);
        assert_eq!(place(root, "/home/u/notes/a.md"), Place::Root);
        assert_eq!(
            place(root, "../other/x.md"),
            outside("/home/u/other", "x.md")
        );
        assert_eq!(
            place(root, "a/../../other/x"),
            outside("/home/u/other", "x")
        );
        assert_eq!(
            place(root, "/srv/vault/sub/x.md"),
            outside("/srv/vault/sub", "x.md")
        );
        assert_eq!(
            place(root, "/home/u/notes-old/x.md"),
            outside("/home/u/notes-old", "x.md")
        );
        assert_eq!(place(root, "../../../../../x.md"), outside("/", "x.md"));
        assert_eq!(place(root, "/"), Place::Root);
    }

    #[test]
    fn only_an_allow_allows() {
        let accept =
            |decision: &str| Some(json!({"action": "accept", "content": {"decision": decision}}));
        assert!(folder_allowed(accept("allow")));
        assert!(!folder_allowed(accept("deny")));
        assert!(!folder_allowed(accept("always")));
        assert!(!folder_allowed(Some(json!({"action": "decline"}))));
        assert!(!folder_allowed(Some(json!({"action": "cancel"}))));
        assert!(!folder_allowed(Some(json!({"nonsense": 1}))));
        assert!(!folder_allowed(None));
    }

    #[test]
    fn extra_paths_are_relative_below_the_folder() {
        let folder = Path::new("/srv/vault");
        assert_eq!(
            below(Path::new("/srv/vault/a/b.md"), folder).as_deref(),
            Some("a/b.md")
        );
        assert_eq!(below(Path::new("/srv/other/b.md"), folder), None);
    }
}
