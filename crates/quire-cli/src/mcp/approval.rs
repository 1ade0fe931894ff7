//! Whether a kiln write may happen: the `--writes` policy, the approvals a
//! session has given, and the single-use tokens that carry an approval
//! across calls.
//!
//! With [`WritePolicy::Ask`], every write is shown to the user before it
//! happens (see `kiln_write.rs` for the three ways of asking). An approval
//! is never implied: a session approves writes for its rest only when the
//! user picks that choice, and a token is redeemed only by the very call it
//! was issued for, once, within [`TOKEN_LIFETIME`]: the same session, the
//! same kiln (root or approved folder) and note, the same tool and
//! arguments, and the same way of asking (a `confirmation` token cannot
//! answer a question, nor a question's `requestState` stand in for the
//! user's answer). Tokens are kept in memory on the server, so a client
//! echoes only an unguessable handle and can forge nothing; the store is
//! bounded, so a client cannot grow it without limit.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use quire_kiln::{KilnTools, WritePreview, WriteRequest};

/// How long a confirmation token (or the state of a pending elicitation)
/// stays valid.
pub const TOKEN_LIFETIME: Duration = Duration::from_secs(300);

/// The most tokens held at once; issuing one more drops the oldest.
const MAX_TOKENS: usize = 1024;

quire_grammar::named_enum! {
    /// How the server treats the kiln's write tools (`--writes`), in the
    /// order `--writes` lists them, by the names it takes.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub enum WritePolicy {
        /// Every write asks the user first (the default).
        #[default]
        Ask => "ask",
        /// Writes happen without asking (the tools are still annotated as
        /// destructive, so a host can gate them itself).
        Allow => "allow",
        /// The write tools are not offered.
        Deny => "deny",
    }
}

impl FromStr for WritePolicy {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        WritePolicy::from_name(name.trim())
            .ok_or_else(|| format!("unknown write policy `{name}`; use ask, allow or deny"))
    }
}

/// What the user decided about one write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Decision {
    /// Apply this write.
    Once,
    /// Apply this write and every later one of the session without asking.
    Session,
    /// Write nothing, for this reason.
    Declined(String),
}

/// Who asked for a token: one MCP session (a stdio connection, a
/// Streamable HTTP session), or a request of the 2026-07-28 HTTP transport
/// without a session, whose `requestState` is the only thread between a
/// question and the retry that answers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Asker {
    /// The session with this random key.
    Session(u128),
    /// Any request without a session.
    Sessionless,
}

/// How the user was asked about a write, which says how its token may come
/// back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Asked {
    /// Through the agent: the token comes back as `confirmation`, and the
    /// call itself is the approval.
    ByAgent,
    /// Through an elicitation in an input-required result: the token comes
    /// back as `requestState`, with the user's answer beside it.
    ByQuestion,
}

/// Everything a write token binds besides the note's state: who asked, the
/// kiln the call ran on, and the call itself.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct BoundCall {
    /// The session (or sessionless request) that made the call.
    pub(super) asker: Asker,
    /// The canonical folder of the kiln the call ran on: the root, or the
    /// folder outside it the session may use.
    pub(super) kiln: PathBuf,
    /// The tool (its variant) and its arguments, the path relative to that
    /// kiln.
    pub(super) request: WriteRequest,
}

/// The approvals of one MCP session, and the tokens of the whole server.
#[derive(Clone, Debug)]
pub(super) struct Approvals {
    policy: WritePolicy,
    /// This session's key, which its tokens carry.
    session: u128,
    /// Set when the user approved writes for the rest of the session.
    session_approved: Arc<AtomicBool>,
    /// One store for the server, each token bound to the session that
    /// asked ([`Asker`]).
    tokens: Arc<Mutex<Tokens>>,
    /// The folder outside the root the user approved for this session.
    extra: Arc<Mutex<Option<ExtraFolder>>>,
}

/// A folder outside the kiln root that the user let this session use, and
/// the kiln's tools over it.
#[derive(Clone, Debug)]
pub(super) struct ExtraFolder {
    /// Its canonical path.
    pub(super) folder: PathBuf,
    /// The tools over it.
    pub(super) kiln: Arc<KilnTools>,
}

impl Approvals {
    pub(super) fn new(policy: WritePolicy) -> Self {
        Approvals {
            policy,
            session: session_key(),
            session_approved: Arc::new(AtomicBool::new(false)),
            tokens: Arc::default(),
            extra: Arc::default(),
        }
    }

    /// The approvals of a new session: nothing approved yet, a key of its
    /// own, the server's token store shared.
    pub(super) fn for_new_session(&self) -> Self {
        Approvals {
            policy: self.policy,
            session: session_key(),
            session_approved: Arc::new(AtomicBool::new(false)),
            tokens: Arc::clone(&self.tokens),
            extra: Arc::default(),
        }
    }

    /// This session as the asker of a call, or [`Asker::Sessionless`] for a
    /// call that came without a session.
    pub(super) fn asker(&self, sessionless: bool) -> Asker {
        if sessionless {
            Asker::Sessionless
        } else {
            Asker::Session(self.session)
        }
    }

    pub(super) fn policy(&self) -> WritePolicy {
        self.policy
    }

    /// Whether a write may happen without asking.
    pub(super) fn approved_without_asking(&self) -> bool {
        self.policy == WritePolicy::Allow || self.session_approved.load(Ordering::SeqCst)
    }

    /// Records the user's choice to approve the rest of the session.
    pub(super) fn approve_session(&self) {
        self.session_approved.store(true, Ordering::SeqCst);
    }

    /// A new single-use token for `call`, asked about as `preview` showed
    /// it, in the way `asked` (an error only when the operating system has
    /// no randomness to give).
    pub(super) fn issue(
        &self,
        call: &BoundCall,
        preview: &WritePreview,
        asked: Asked,
    ) -> Result<String, getrandom::Error> {
        self.issue_at(call, preview, asked, Instant::now())
    }

    fn issue_at(
        &self,
        call: &BoundCall,
        preview: &WritePreview,
        asked: Asked,
        now: Instant,
    ) -> Result<String, getrandom::Error> {
        let pending = Pending::Write {
            call: Box::new(call.clone()),
            asked,
            preview: Box::new(preview.clone()),
        };
        self.hold(pending, now)
    }

    /// A new single-use token for the question whether `asker` may use
    /// `folder`.
    pub(super) fn issue_folder(
        &self,
        asker: Asker,
        folder: &Path,
    ) -> Result<String, getrandom::Error> {
        let pending = Pending::Folder {
            asker,
            folder: folder.to_owned(),
        };
        self.hold(pending, Instant::now())
    }

    fn hold(&self, what: Pending, now: Instant) -> Result<String, getrandom::Error> {
        let token = new_token()?;
        let issued = Issued {
            what,
            expires: now + TOKEN_LIFETIME,
        };
        self.tokens().insert(token.clone(), issued, now);
        Ok(token)
    }

    fn tokens(&self) -> std::sync::MutexGuard<'_, Tokens> {
        self.tokens
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Takes the token back for `call`, brought back the way `asked` says:
    /// the preview the user was asked about, or why the token is no good.
    /// A token is used up by this, whatever the answer.
    pub(super) fn redeem(
        &self,
        token: &str,
        call: &BoundCall,
        asked: Asked,
    ) -> Result<WritePreview, TokenProblem> {
        self.redeem_at(token, call, asked, Instant::now())
    }

    fn redeem_at(
        &self,
        token: &str,
        call: &BoundCall,
        asked: Asked,
        now: Instant,
    ) -> Result<WritePreview, TokenProblem> {
        match self.take(token, now)? {
            Pending::Write {
                call: issued,
                asked: issued_asked,
                preview,
            } => {
                if issued.asker != call.asker {
                    Err(TokenProblem::OtherSession)
                } else if issued_asked != asked {
                    Err(TokenProblem::OtherWay(issued_asked))
                } else if issued.kiln != call.kiln {
                    Err(TokenProblem::OtherFolder)
                } else if issued.request != call.request {
                    Err(TokenProblem::OtherCall)
                } else {
                    Ok(*preview)
                }
            }
            Pending::Folder { .. } => Err(TokenProblem::OtherCall),
        }
    }

    /// Takes back a token issued by [`Approvals::issue_folder`] to `asker`:
    /// the folder asked about.
    pub(super) fn redeem_folder(&self, token: &str, asker: Asker) -> Result<PathBuf, TokenProblem> {
        match self.take(token, Instant::now())? {
            Pending::Folder {
                asker: issued,
                folder,
            } if issued == asker => Ok(folder),
            Pending::Folder { .. } => Err(TokenProblem::OtherSession),
            Pending::Write { .. } => Err(TokenProblem::OtherCall),
        }
    }

    fn take(&self, token: &str, now: Instant) -> Result<Pending, TokenProblem> {
        let issued = self
            .tokens()
            .by_token
            .remove(token)
            .ok_or(TokenProblem::Unknown)?;
        if issued.expires <= now {
            return Err(TokenProblem::Expired);
        }
        Ok(issued.what)
    }

    /// The folder outside the root this session may use, if the user
    /// approved one.
    pub(super) fn extra_folder(&self) -> Option<ExtraFolder> {
        self.extra
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Records the folder outside the root the user approved for the rest
    /// of the session.
    pub(super) fn approve_folder(&self, folder: ExtraFolder) {
        *self
            .extra
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(folder);
    }
}

/// Why a token cannot be redeemed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TokenProblem {
    /// Never issued, already used, or dropped.
    Unknown,
    /// Issued more than [`TOKEN_LIFETIME`] ago.
    Expired,
    /// Issued to another session (or, without a session, to a session).
    OtherSession,
    /// Issued for a call on another kiln: the root versus the folder
    /// outside it the session may use.
    OtherFolder,
    /// Issued for another call (another tool, other arguments).
    OtherCall,
    /// Issued to be brought back the other way (this way, here).
    OtherWay(Asked),
}

impl TokenProblem {
    pub(super) fn message(self) -> String {
        let why = match self {
            TokenProblem::Unknown => "is not one this server issued, or was already used",
            TokenProblem::Expired => "has expired (a token lasts 5 minutes)",
            TokenProblem::OtherSession => "was issued to another session; it is now used up",
            TokenProblem::OtherFolder => {
                "was issued for a note in another folder (the kiln root versus the folder outside it this session \
                 may use), although the path may read the same; it is now used up"
            }
            TokenProblem::OtherCall => {
                "was issued for a call with another tool or other arguments; it is now used up"
            }
            TokenProblem::OtherWay(Asked::ByAgent) => {
                "was issued as a `confirmation` for the agent to bring back, not as the state of a question to \
                 the user; it is now used up"
            }
            TokenProblem::OtherWay(Asked::ByQuestion) => {
                "was issued with a question to the user, and comes back only as that question's `requestState` \
                 beside the user's answer, not as `confirmation`; it is now used up"
            }
        };
        format!(
            "the confirmation token {why}; nothing was written. Make the same call again without `confirmation` \
             to get a new preview and token"
        )
    }
}

#[derive(Debug)]
struct Issued {
    what: Pending,
    expires: Instant,
}

/// What a token stands for.
#[derive(Debug)]
enum Pending {
    /// A write shown for approval: the call, how the user was asked, and
    /// the preview they were shown.
    Write {
        call: Box<BoundCall>,
        asked: Asked,
        preview: Box<WritePreview>,
    },
    /// A folder outside the root, asked about for `asker`.
    Folder { asker: Asker, folder: PathBuf },
}

#[derive(Debug, Default)]
struct Tokens {
    by_token: HashMap<String, Issued>,
}

impl Tokens {
    fn insert(&mut self, token: String, issued: Issued, now: Instant) {
        self.by_token.retain(|_, issued| issued.expires > now);
        if self.by_token.len() >= MAX_TOKENS
            && let Some(oldest) = self
                .by_token
                .iter()
                .min_by_key(|(_, issued)| issued.expires)
                .map(|(token, _)| token.clone())
        {
            self.by_token.remove(&oldest);
        }
        self.by_token.insert(token, issued);
    }
}

/// A session's key: random, so no two sessions share one. Without
/// randomness from the system (which [`new_token`] would report when a
/// token is issued), the time and the process id tell sessions apart.
fn session_key() -> u128 {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_ok() {
        return u128::from_le_bytes(bytes);
    }
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::SeqCst);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    nanos ^ (u128::from(std::process::id()) << 96) ^ u128::from(count)
}

/// 128 random bits from the operating system, as 32 hex digits.
fn new_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_kiln::{DeleteNoteRequest, PlannedChange};

    fn delete(path: &str) -> WriteRequest {
        WriteRequest::Delete(DeleteNoteRequest {
            path: path.to_owned(),
            permanent: false,
        })
    }

    fn call(approvals: &Approvals, path: &str) -> BoundCall {
        BoundCall {
            asker: approvals.asker(false),
            kiln: PathBuf::from("/vault"),
            request: delete(path),
        }
    }

    fn preview(sha: &str) -> WritePreview {
        WritePreview {
            path: "a.md".to_owned(),
            change: PlannedChange::Delete {
                permanent: false,
                backlinks: vec![],
                ambiguous_backlinks: vec![],
            },
            sha256: Some(sha.to_owned()),
            link_target: None,
            identity: None,
        }
    }

    #[test]
    fn a_token_is_redeemed_once_for_its_own_call() {
        let approvals = Approvals::new(WritePolicy::Ask);
        let a = call(&approvals, "a");
        let token = approvals
            .issue(&a, &preview("abc"), Asked::ByAgent)
            .unwrap();
        assert_eq!(token.len(), 32);
        assert_eq!(
            approvals.redeem(&token, &a, Asked::ByAgent),
            Ok(preview("abc"))
        );
        assert_eq!(
            approvals.redeem(&token, &a, Asked::ByAgent),
            Err(TokenProblem::Unknown)
        );
        let token = approvals
            .issue(&a, &preview("abc"), Asked::ByAgent)
            .unwrap();
        assert_eq!(
            approvals.redeem(&token, &call(&approvals, "b"), Asked::ByAgent),
            Err(TokenProblem::OtherCall)
        );
        assert_eq!(
            approvals.redeem(&token, &a, Asked::ByAgent),
            Err(TokenProblem::Unknown)
        );
        assert_eq!(
            approvals.redeem("", &a, Asked::ByAgent),
            Err(TokenProblem::Unknown)
        );
    }

    #[test]
    fn a_token_binds_the_kiln_the_session_and_the_way_it_was_asked() {
        let server = Approvals::new(WritePolicy::Ask);
        let one = server.for_new_session();
        let two = server.for_new_session();
        let root = call(&one, "new");
        let outside = BoundCall {
            kiln: PathBuf::from("/elsewhere"),
            ..root.clone()
        };
        let redeem = |by: &Approvals,
                      issued: &BoundCall,
                      asked_as: Asked,
                      redeemed: &BoundCall,
                      back_as: Asked| {
            let token = by.issue(issued, &preview("x"), asked_as).unwrap();
            by.redeem(&token, redeemed, back_as)
        };
        // The same arguments on another kiln: refused.
        assert_eq!(
            redeem(&one, &outside, Asked::ByAgent, &root, Asked::ByAgent),
            Err(TokenProblem::OtherFolder)
        );
        assert_eq!(
            redeem(&one, &root, Asked::ByAgent, &outside, Asked::ByAgent),
            Err(TokenProblem::OtherFolder)
        );
        // Another session: refused, in either direction, and a sessionless
        // request is not a session.
        let token = one.issue(&root, &preview("x"), Asked::ByAgent).unwrap();
        assert_eq!(
            two.redeem(&token, &call(&two, "new"), Asked::ByAgent),
            Err(TokenProblem::OtherSession)
        );
        let sessionless = BoundCall {
            asker: Asker::Sessionless,
            ..root.clone()
        };
        assert_eq!(
            redeem(&one, &root, Asked::ByAgent, &sessionless, Asked::ByAgent),
            Err(TokenProblem::OtherSession)
        );
        assert_eq!(
            redeem(
                &one,
                &sessionless,
                Asked::ByQuestion,
                &sessionless,
                Asked::ByQuestion
            ),
            Ok(preview("x"))
        );
        // The other way back: refused.
        assert_eq!(
            redeem(&one, &root, Asked::ByQuestion, &root, Asked::ByAgent),
            Err(TokenProblem::OtherWay(Asked::ByQuestion))
        );
        assert_eq!(
            redeem(&one, &root, Asked::ByAgent, &root, Asked::ByQuestion),
            Err(TokenProblem::OtherWay(Asked::ByAgent))
        );
        // Folder tokens are the asker's too.
        let token = one
            .issue_folder(one.asker(false), Path::new("/elsewhere"))
            .unwrap();
        assert_eq!(
            one.redeem_folder(&token, two.asker(false)),
            Err(TokenProblem::OtherSession)
        );
        let token = one
            .issue_folder(one.asker(false), Path::new("/elsewhere"))
            .unwrap();
        assert_eq!(
            one.redeem_folder(&token, one.asker(false)),
            Ok(PathBuf::from("/elsewhere"))
        );
        for problem in [
            TokenProblem::OtherSession,
            TokenProblem::OtherFolder,
            TokenProblem::OtherWay(Asked::ByAgent),
            TokenProblem::OtherWay(Asked::ByQuestion),
        ] {
            assert!(
                problem.message().contains("nothing was written"),
                "{problem:?}"
            );
        }
    }

    #[test]
    fn a_token_expires() {
        let approvals = Approvals::new(WritePolicy::Ask);
        let a = call(&approvals, "a");
        let start = Instant::now();
        let token = approvals
            .issue_at(&a, &preview("abc"), Asked::ByAgent, start)
            .unwrap();
        let late = start + TOKEN_LIFETIME;
        assert_eq!(
            approvals.redeem_at(&token, &a, Asked::ByAgent, late),
            Err(TokenProblem::Expired)
        );
    }

    #[test]
    fn tokens_are_distinct_and_bounded() {
        let approvals = Approvals::new(WritePolicy::Ask);
        let a = call(&approvals, "a");
        let now = Instant::now();
        let first = approvals
            .issue_at(&a, &preview("x"), Asked::ByAgent, now)
            .unwrap();
        let mut seen = std::collections::HashSet::new();
        for n in 0..MAX_TOKENS + 10 {
            let later = now + Duration::from_millis(n as u64 + 1);
            assert!(
                seen.insert(
                    approvals
                        .issue_at(&a, &preview("x"), Asked::ByAgent, later)
                        .unwrap()
                )
            );
        }
        assert_eq!(approvals.tokens.lock().unwrap().by_token.len(), MAX_TOKENS);
        // The oldest went first.
        assert_eq!(
            approvals.redeem_at(&first, &a, Asked::ByAgent, now),
            Err(TokenProblem::Unknown)
        );
    }

    #[test]
    fn sessions_have_their_own_keys_and_approvals() {
        let server = Approvals::new(WritePolicy::Ask);
        let one = server.for_new_session();
        let two = server.for_new_session();
        assert_ne!(one.asker(false), two.asker(false));
        assert_ne!(one.asker(false), server.asker(false));
        assert_eq!(one.asker(true), Asker::Sessionless);
        one.approve_session();
        assert!(one.approved_without_asking());
        assert!(!two.approved_without_asking());
        assert!(Approvals::new(WritePolicy::Allow).approved_without_asking());
    }

    #[test]
    fn policies_read_as_written() {
        for policy in WritePolicy::ALL {
            assert_eq!(policy.name().parse::<WritePolicy>(), Ok(policy));
        }
        assert!(
            "sometimes"
                .parse::<WritePolicy>()
                .unwrap_err()
                .contains("ask, allow or deny")
        );
    }
}
