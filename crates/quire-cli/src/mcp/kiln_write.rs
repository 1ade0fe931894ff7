//! The kiln's write tools (`create_note`, `update_note`, `delete_note`), a
//! router of their own, offered as `--writes` says (see [`WritePolicy`]).
//!
//! With `--writes ask`, a write is previewed (every check it would make,
//! nothing written), the user is asked about exactly that change, and the
//! write applied after approval is bound to the note as it was previewed.
//! The user is asked in the first of these ways the client supports:
//!
//! 1. a 2026-07-28 session gets an input-required result holding an
//!    `elicitation/create` request; the client asks and calls again with
//!    the answer and the echoed `requestState` (a single-use token);
//! 2. an older session whose client advertises elicitation gets an
//!    `elicitation/create` request while the call waits;
//! 3. any other client gets a preview of the change and a single-use,
//!    short-lived `confirmation` token; the same call made again with it
//!    applies the change (the agent is told to show the user the preview
//!    first).
//!
//! The user may approve once, approve every write for the rest of the
//! session, or deny. A denied, declined or unanswered write is a normal
//! result, `{path, declined: true, reason}`, not an error: nothing went
//! wrong, and nothing was written.

use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

use super::schema;
use rmcp::model::{
    CallToolResponse, ElicitRequest, ElicitRequestParams, InputRequest, InputRequiredResult,
    JsonObject, ProtocolVersion,
};
use rmcp::service::{RequestContext, ServiceError};
use rmcp::{RoleServer, tool, tool_router};
use serde_json::{Value, json};

use super::approval::{Asked, BoundCall, Decision, TOKEN_LIFETIME, WritePolicy};
use super::elicit::{Answer, answer_of, can_ask_with_a_form, choice_question, is_sessionless};
use super::kiln::{ScopedCall, category};
use super::kiln_types::{
    CreateNoteRequest, DeleteNoteRequest, EditNoteRequest, MoveNoteRequest, NoteCreated,
    NoteDeleted, NoteMoved, NoteUpdated, UpdateNoteRequest,
};
use super::result::{blocking, decode, to_call_result};
use super::scope::{Scope, Stop};
use super::server::QuireServer;
use super::tool_error::ToolError;
use quire_kiln::{KilnTools, TRASH_FOLDER, WriteDone, WritePreview, WriteRequest};

/// How long a call waits for the user to answer an elicitation.
pub const ELICITATION_WAIT: Duration = Duration::from_secs(600);

/// The key of the approval among a 2026-07-28 call's input requests.
const APPROVAL_INPUT: &str = "approval";

/// The argument that carries a confirmation token back.
const CONFIRMATION: &str = "confirmation";

#[tool_router(router = kiln_write_router, vis = "pub(super)")]
impl QuireServer {
    /// Create a note.
    #[tool(
        name = "create_note",
        description = "Create a markdown note in the kiln: `content` (its markdown) and optionally `frontmatter` (properties \
                       written as its YAML block, keys in the order given). Example: {\"path\": \"projects/Plan\", \"content\": \
                       \"# Plan\\n\", \"frontmatter\": {\"status\": \"draft\", \"tags\": [\"work\"]}}. The path is relative to the \
                       kiln root, `.md` optional; missing folders are created. Refused when the note exists (use update_note). \
                       Returns `path`, `word_count` and the file's `sha256`; when the user must approve first, see `pending` \
                       and `declined` in the result.",
        input_schema = with_confirmation(schema::input::<CreateNoteRequest>()),
        output_schema = outcome_schema::<NoteCreated>(false),
        meta = category("manipulate"),
        annotations(
            title = "Create note (manipulate)",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn create_note(&self, call: ScopedCall) -> CallToolResponse {
        self.write_tool(call, |tool, args| {
            decode::<CreateNoteRequest>(tool, args).map(|args| WriteRequest::Create(args.into()))
        })
        .await
    }

    /// Replace a note's body, its properties, or both.
    #[tool(
        name = "update_note",
        description = "Change a note: its body (`content`: the frontmatter block kept byte for byte), single \
                       properties in place (`set_properties`: each set or added; `remove_properties`: names to \
                       remove; every other property, comment and byte kept), or all its properties (`frontmatter`: \
                       the whole block replaced, so every property left out is removed). Example, adding a tag: \
                       {\"path\": \"projects/Plan\", \"set_properties\": {\"tags\": [\"project\", \"idea\"]}, \
                       \"expected_sha256\": \"<sha256 from read_note>\"}. `path` may be the note's name or a wikilink. \
                       With `expected_sha256`, nothing is written if the note changed since it was read. A note whose \
                       frontmatter is broken is changed only by replacing its frontmatter. Returns `path`, `updated`, \
                       `word_count`, the new `sha256`, and `removed_properties`/`changed_properties`; when the user \
                       must approve first, see `pending` and `declined` in the result (the question names the \
                       properties removed and changed).",
        input_schema = with_confirmation(schema::input::<UpdateNoteRequest>()),
        output_schema = outcome_schema::<NoteUpdated>(false),
        meta = category("manipulate"),
        annotations(
            title = "Update note (manipulate)",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn update_note(&self, call: ScopedCall) -> CallToolResponse {
        self.write_tool(call, |tool, args| {
            decode::<UpdateNoteRequest>(tool, args).map(|args| WriteRequest::Update(args.into()))
        })
        .await
    }

    /// Change part of a note's body without resending it.
    #[tool(
        name = "edit_note",
        description = format!(
            "Change part of a note's body without resending it: `operation` `append` (after the last line), `prepend` \
                       (before the body's first line, after the frontmatter), `insert_under_heading` (at the end of the \
                       section of `heading`, before the next heading of its level), `replace_section` (that section's body), \
                       or `replace_text` (`old_text`, which must occur exactly once in the body; refused with its count \
                       otherwise). Example: {{\"path\": \"projects/Plan\", \"operation\": \"insert_under_heading\", \
                       \"heading\": \"Tasks\", \"text\": \"- [ ] call the printer\"}}. The frontmatter and every other line are \
                       kept byte for byte; `text` takes the note's line ending; at most {} KiB of text. `heading` is the text \
                       read_metadata lists (without `#`); a heading two sections share is refused with their lines. `path` may \
                       be the note's name or a wikilink; with `expected_sha256` nothing is written if the note changed since it \
                       was read. Returns what update_note returns; when the user must approve first, see `pending` and \
                       `declined` in the result.",
            quire_kiln::MAX_EDIT_TEXT_BYTES / 1024
        ),
        input_schema = with_confirmation(schema::input::<EditNoteRequest>()),
        output_schema = outcome_schema::<NoteUpdated>(false),
        meta = category("manipulate"),
        annotations(
            title = "Edit note (manipulate)",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn edit_note(&self, call: ScopedCall) -> CallToolResponse {
        self.write_tool(call, |tool, args| {
            decode::<EditNoteRequest>(tool, args).and_then(|args| {
                args.into_request()
                    .map(WriteRequest::Update)
                    .map_err(|why| {
                        ToolError::validation(format!("invalid arguments for {tool}: {why}"))
                    })
            })
        })
        .await
    }

    /// Delete a note (into the trash).
    #[tool(
        name = "delete_note",
        description = format!(
            "Delete a note: it is moved into `{TRASH_FOLDER}/` in the kiln root (recoverable, as Obsidian does), or removed \
                       with `permanent: true`. Example: {{\"path\": \"projects/Old plan\"}}. Returns `deleted`, `trashed_to`, and \
                       the notes that linked to it (`backlinks`, `backlink_count`; `ambiguous_backlinks` for links that matched \
                       it among several notes), whose links now lead nowhere; when the user must approve first, see `pending` \
                       and `declined` in the result."
        ),
        input_schema = with_confirmation(schema::input::<DeleteNoteRequest>()),
        output_schema = outcome_schema::<NoteDeleted>(true),
        meta = category("manipulate"),
        annotations(
            title = "Delete note (manipulate)",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn delete_note(&self, call: ScopedCall) -> CallToolResponse {
        self.write_tool(call, |tool, args| {
            decode::<DeleteNoteRequest>(tool, args).map(|args| WriteRequest::Delete(args.into()))
        })
        .await
    }

    /// Move or rename a note, rewriting the links to it.
    #[tool(
        name = "move_note",
        description = "Move or rename a note and rewrite every link to it in every note, so each keeps leading to \
                       it: wikilinks and embeds by name or path (their #heading, #^block and |alias kept), Markdown \
                       links and frontmatter links, each in its own form (a name stays a name while it names one \
                       note, else the shortest path that does). Links the new name would take over from another \
                       note, and the note's own relative links, are rewritten too. Example: {\"path\": \"Meeting \
                       notes\", \"new_path\": \"archive/2026/Meeting notes\"}. `new_path` is relative to the kiln \
                       root, `.md` optional; missing folders are made; never onto an existing note. All notes change \
                       or none does (a failure midway is undone). Returns `new_path`, `sha256`, `links_changed` and \
                       `relinked` (each note with its `links` and `lines`); when the user must approve first, see \
                       `pending` and `declined` in the result (the question names the notes whose links change).",
        input_schema = with_confirmation(schema::input::<MoveNoteRequest>()),
        output_schema = outcome_schema::<NoteMoved>(false),
        meta = category("manipulate"),
        annotations(
            title = "Move note (manipulate)",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn move_note(&self, call: ScopedCall) -> CallToolResponse {
        self.write_tool(call, |tool, args| {
            decode::<MoveNoteRequest>(tool, args).map(|args| WriteRequest::Move(args.into()))
        })
        .await
    }
}

/// One write tool call, decoded.
struct WriteCall {
    /// The request, or why the arguments do not make one.
    request: Result<WriteRequest, ToolError>,
    /// The `confirmation` argument.
    confirmation: Option<String>,
}

impl WriteCall {
    fn new(
        tool: &str,
        mut args: JsonObject,
        decode: impl FnOnce(JsonObject) -> Result<WriteRequest, ToolError>,
    ) -> Self {
        let confirmation = match args.remove(CONFIRMATION) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(token)) => Ok(Some(token)),
            Some(_) => Err(ToolError::validation(format!(
                "invalid arguments for {tool}: `confirmation` must be the token string a previous call returned"
            ))),
        };
        match confirmation {
            Ok(confirmation) => WriteCall {
                request: decode(args),
                confirmation,
            },
            Err(error) => WriteCall {
                request: Err(error),
                confirmation: None,
            },
        }
    }
}

/// What becomes of a write call.
enum Outcome {
    Done(WriteDone),
    Declined(WritePreview, String),
    Pending(WritePreview, String),
    Asking(InputRequiredResult),
}

impl QuireServer {
    /// Runs a write tool's call on the kiln its path lies in.
    async fn write_tool(
        &self,
        mut call: ScopedCall,
        decode: impl FnOnce(&str, JsonObject) -> Result<WriteRequest, ToolError>,
    ) -> CallToolResponse {
        let scope = self
            .scope_of(
                &call.tool,
                &mut call.args,
                &call.context,
                &mut call.responses,
                &mut call.state,
            )
            .await;
        let scope = match scope {
            Ok(scope) => scope,
            Err(Stop::Asking(input)) => return input.into(),
            Err(Stop::Refused(error)) => return to_call_result::<Value>(Err(error)).into(),
        };
        let tool = call.tool;
        let write = WriteCall::new(&tool, call.args, |args| decode(&tool, args));
        self.guarded_write(write, &scope, call.context, call.responses, call.state)
            .await
    }

    /// Runs a write call as the write policy says: at once, or once the
    /// user approved it.
    async fn guarded_write(
        &self,
        call: WriteCall,
        scope: &Scope,
        context: RequestContext<RoleServer>,
        responses: Option<rmcp::model::InputResponses>,
        state: Option<String>,
    ) -> CallToolResponse {
        let outcome = match call.request {
            Ok(request) => {
                self.write_outcome(request, scope, call.confirmation, context, responses, state)
                    .await
            }
            Err(error) => Err(error),
        };
        match outcome {
            Ok(Outcome::Done(done)) => {
                let mut value = done_json(done);
                scope.show_path_in(&mut value);
                to_call_result(Ok(value)).into()
            }
            Ok(Outcome::Declined(preview, reason)) => {
                to_call_result(Ok(declined_json(&preview, &reason))).into()
            }
            Ok(Outcome::Pending(preview, token)) => {
                to_call_result(Ok(pending_json(&preview, &token))).into()
            }
            Ok(Outcome::Asking(input)) => input.into(),
            Err(error) => to_call_result::<Value>(Err(error)).into(),
        }
    }

    async fn write_outcome(
        &self,
        request: WriteRequest,
        scope: &Scope,
        confirmation: Option<String>,
        context: RequestContext<RoleServer>,
        responses: Option<rmcp::model::InputResponses>,
        state: Option<String>,
    ) -> Result<Outcome, ToolError> {
        let approvals = &self.approvals;
        if approvals.policy() == WritePolicy::Deny {
            // The router offers no write tool then; this is a second lock.
            return Err(ToolError::validation(
                "writes are switched off on this server (--writes deny); nothing was written",
            ));
        }
        let kiln = scope.kiln(&self.kiln);
        if approvals.approved_without_asking() {
            return apply(kiln, request, None).await.map(Outcome::Done);
        }
        let preview = preview(kiln, &request).await?;
        let sessionless = is_sessionless(&context);
        let call = BoundCall {
            asker: approvals.asker(sessionless),
            kiln: kiln.workspace().root().to_owned(),
            request,
        };
        match (confirmation, state) {
            (Some(_), Some(_)) => Err(ToolError::validation(
                "the call carries both a `confirmation` token and a question's requestState; nothing was written. \
                 Bring back only the one this tool gave: `confirmation` after `pending: true`, requestState with the \
                 user's answer after an input-required result",
            )),
            // The confirmation fallback's second call: the call itself is
            // the approval.
            (Some(token), None) => {
                let shown = redeem(approvals, &token, &call, Asked::ByAgent, &preview, scope)?;
                self.decided(kiln, call.request, shown, Decision::Once, scope)
                    .await
            }
            // A 2026-07-28 client's retry: only the user's answer in it
            // approves (a retry without one is a decline).
            (None, Some(token)) => {
                let shown = redeem(approvals, &token, &call, Asked::ByQuestion, &preview, scope)?;
                let decision = match responses.and_then(|mut responses| responses.remove(APPROVAL_INPUT)) {
                    Some(answer) => decision_of(Some(answer), !sessionless),
                    None => Decision::Declined(
                        "the client's retry carried no answer from the user; nothing is written without one"
                            .to_owned(),
                    ),
                };
                self.decided(kiln, call.request, shown, decision, scope)
                    .await
            }
            (None, None) => {
                self.ask(kiln, call, preview, scope, context, sessionless)
                    .await
            }
        }
    }

    /// Puts the write to the user in the first way the client supports (see
    /// the module doc).
    async fn ask(
        &self,
        kiln: &Arc<KilnTools>,
        call: BoundCall,
        preview: WritePreview,
        scope: &Scope,
        context: RequestContext<RoleServer>,
        sessionless: bool,
    ) -> Result<Outcome, ToolError> {
        let approvals = &self.approvals;
        let can_elicit = can_ask_with_a_form(&context);
        let modern = context
            .protocol_version()
            .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        let token = |asked| {
            approvals.issue(&call, &preview, asked).map_err(|error| {
                ToolError::internal(format!(
                    "no approval token could be made ({error}); nothing was written"
                ))
            })
        };
        let shown = scope.shown_preview(&preview);
        if can_elicit && modern {
            let question = elicitation(&shown, !sessionless)?;
            let asking = InputRequest::Elicitation(ElicitRequest::new(question));
            let input = InputRequiredResult::new(
                Some([(APPROVAL_INPUT.to_owned(), asking)].into_iter().collect()),
                Some(token(Asked::ByQuestion)?),
            );
            return Ok(Outcome::Asking(input));
        }
        if can_elicit {
            let answer = context
                .peer
                .create_elicitation_with_timeout(
                    elicitation(&shown, !sessionless)?,
                    Some(ELICITATION_WAIT),
                )
                .await;
            let decision = match answer {
                Ok(answer) => decision_of(serde_json::to_value(answer).ok(), !sessionless),
                Err(ServiceError::Timeout { .. }) => Decision::Declined(format!(
                    "no answer came within {} minutes",
                    ELICITATION_WAIT.as_secs() / 60
                )),
                // No answer that can be read is a no: falling back to a
                // token here would let the agent apply what the user may
                // have declined.
                Err(error) => {
                    tracing::warn!(%error, "the client's answer to the approval question could not be read");
                    Decision::Declined(format!(
                        "the client gave no answer from the user that could be read ({})",
                        quire_grammar::diagnostics::one_line(&error.to_string())
                    ))
                }
            };
            return self
                .decided(kiln, call.request, preview, decision, scope)
                .await;
        }
        let token = token(Asked::ByAgent)?;
        Ok(Outcome::Pending(shown, token))
    }

    /// Applies a previewed write as the user decided.
    async fn decided(
        &self,
        kiln: &Arc<KilnTools>,
        request: WriteRequest,
        preview: WritePreview,
        decision: Decision,
        scope: &Scope,
    ) -> Result<Outcome, ToolError> {
        match decision {
            Decision::Declined(reason) => {
                Ok(Outcome::Declined(scope.shown_preview(&preview), reason))
            }
            Decision::Session => {
                self.approvals.approve_session();
                apply(kiln, request, Some(preview)).await.map(Outcome::Done)
            }
            Decision::Once => apply(kiln, request, Some(preview)).await.map(Outcome::Done),
        }
    }
}

/// Takes back a token for `call` and checks that the note is still as the
/// user was shown it (`now`, previewed again): the preview the token was
/// issued with, to apply the write against.
fn redeem(
    approvals: &super::approval::Approvals,
    token: &str,
    call: &BoundCall,
    asked: Asked,
    now: &WritePreview,
    scope: &Scope,
) -> Result<WritePreview, ToolError> {
    let issued = approvals
        .redeem(token, call, asked)
        .map_err(|problem| ToolError::validation(problem.message()))?;
    if &issued != now {
        return Err(ToolError::validation(format!(
            "`{}` changed since the change was shown for approval (its text, its file, or the notes linking to it); \
             nothing was written. Read it again and make the change on what it holds now",
            quire_grammar::diagnostics::one_line(&scope.shown(&now.path))
        )));
    }
    Ok(issued)
}

async fn preview(kiln: &Arc<KilnTools>, request: &WriteRequest) -> Result<WritePreview, ToolError> {
    let kiln = Arc::clone(kiln);
    let request = request.clone();
    blocking(move || kiln.preview(&request).map_err(Into::into)).await
}

/// Applies a write; one approved from a preview only if the note still
/// holds what it held then.
async fn apply(
    kiln: &Arc<KilnTools>,
    request: WriteRequest,
    preview: Option<WritePreview>,
) -> Result<WriteDone, ToolError> {
    let kiln = Arc::clone(kiln);
    blocking(move || {
        match &preview {
            Some(preview) => kiln.apply_approved(&request, preview),
            None => kiln.apply(&request),
        }
        .map_err(Into::into)
    })
    .await
}

/// The user's decision from an elicitation's result (as JSON), to a
/// question that offered the session-wide choice or not.
fn decision_of(result: Option<Value>, offered_session: bool) -> Decision {
    let reason = match answer_of(result) {
        Answer::Chose(choice) if choice == "once" => return Decision::Once,
        Answer::Chose(choice) if choice == "session" && offered_session => {
            return Decision::Session;
        }
        Answer::Chose(choice) if choice == "deny" => "the user denied the change",
        Answer::Chose(_) | Answer::NoChoice if offered_session => {
            "the answer was not one of the choices (once, session, deny)"
        }
        Answer::Chose(_) | Answer::NoChoice => "the answer was not one of the choices (once, deny)",
        Answer::Declined => "the user declined the change",
        Answer::Cancelled => "the user dismissed the question without deciding",
        Answer::Unreadable => "the client gave no answer from the user that could be read",
    };
    Decision::Declined(reason.to_owned())
}

/// The question put to the user about `preview`; the session-wide choice
/// only where there is a session to remember it.
fn elicitation(
    preview: &WritePreview,
    offer_session: bool,
) -> Result<ElicitRequestParams, ToolError> {
    let once = ("once", "Approve this change");
    let session = (
        "session",
        "Approve every note change for the rest of this session",
    );
    let deny = ("deny", "Deny");
    let choices: &[(&str, &str)] = if offer_session {
        &[once, session, deny]
    } else {
        &[once, deny]
    };
    choice_question(
        format!("An agent wants to change your notes. {}", preview.summary()),
        "Allow this change?",
        choices,
    )
}

fn done_json(done: WriteDone) -> Value {
    let value = match done {
        WriteDone::Created(created) => serde_json::to_value(NoteCreated::from(created)),
        WriteDone::Updated(updated) => serde_json::to_value(NoteUpdated::from(updated)),
        WriteDone::Deleted(deleted) => serde_json::to_value(NoteDeleted::from(deleted)),
        WriteDone::Moved(moved) => serde_json::to_value(NoteMoved::from(moved)),
    };
    value.unwrap_or_else(|error| json!({"error": error.to_string()}))
}

fn declined_json(preview: &WritePreview, reason: &str) -> Value {
    let mut value = json!({"path": preview.path, "declined": true, "reason": reason});
    if preview.verb() == "deleted" {
        value["deleted"] = Value::Bool(false);
    }
    value
}

fn pending_json(preview: &WritePreview, token: &str) -> Value {
    let mut value = json!({
        "path": preview.path,
        "pending": true,
        "change": preview.summary(),
        "confirmation": token,
        "expires_in_seconds": TOKEN_LIFETIME.as_secs(),
        "next": "Nothing was written yet. Show `change` to the user and ask them; only if they agree, make the same \
                 call again with `confirmation` set to this token (single use).",
    });
    if preview.verb() == "deleted" {
        value["deleted"] = Value::Bool(false);
    }
    value
}

/// A write tool's input schema with the `confirmation` argument added.
fn with_confirmation(schema: Arc<JsonObject>) -> Arc<JsonObject> {
    let mut schema = (*schema).clone();
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.insert(
            CONFIRMATION.to_owned(),
            json!({
                "type": ["string", "null"],
                "description": "Only when a previous call of this tool returned `pending: true`: its `confirmation` \
                                token, once the user agreed to the change it showed.",
            }),
        );
    }
    Arc::new(schema)
}

/// A write tool's output schema: the write done (`T`), declined, or
/// pending the user's confirmation. `deleted` marks delete_note's.
fn outcome_schema<T: schemars::JsonSchema + Any>(deleted: bool) -> Arc<JsonObject> {
    let mut done = (*schema::output::<T>()).clone();
    // The dialect and the definitions belong at the root, where `$ref`s
    // into `#/$defs` resolve.
    let dialect = done.remove("$schema");
    let definitions = done.remove("$defs");
    let mut declined = json!({
        "type": "object",
        "title": "Declined",
        "properties": {
            "path": {"type": "string"},
            "declined": {"const": true},
            "reason": {"type": "string", "description": "Why nothing was written."},
        },
        "required": ["path", "declined", "reason"],
    });
    let mut pending = json!({
        "type": "object",
        "title": "Pending",
        "properties": {
            "path": {"type": "string"},
            "pending": {"const": true},
            "change": {"type": "string", "description": "What the write will change, to show the user."},
            "confirmation": {"type": "string", "description": "The single-use token that applies the change."},
            "expires_in_seconds": {"type": "integer", "minimum": 0},
            "next": {"type": "string"},
        },
        "required": ["path", "pending", "change", "confirmation", "expires_in_seconds"],
    });
    if deleted {
        declined["properties"]["deleted"] = json!({"const": false});
        pending["properties"]["deleted"] = json!({"const": false});
    }
    let mut schema = JsonObject::new();
    if let Some(dialect) = dialect {
        schema.insert("$schema".to_owned(), dialect);
    }
    schema.insert("type".to_owned(), json!("object"));
    schema.insert(
        "anyOf".to_owned(),
        json!([Value::Object(done), declined, pending]),
    );
    if let Some(definitions) = definitions {
        schema.insert("$defs".to_owned(), definitions);
    }
    Arc::new(schema)
}
