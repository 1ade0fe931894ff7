//! Whether a kiln write may happen: the `--writes` policy, the approvals a
//! session has given, and the single-use tokens that carry an approval
//! across calls.
//!
//! With [`WritePolicy::Ask`], every write is shown to the user before it
//! happens (see `kiln_write.rs` for the three ways of asking). An approval
//! is never implied: a session approves writes for its rest only when the
//! user picks that choice, and a token is redeemed only by the very call it
//! was issued for (the same tool and arguments), once, within
//! [`TOKEN_LIFETIME`]. Tokens are kept in memory on the server, so a
//! client echoes only an unguessable handle and can forge nothing; the
//! store is bounded, so a client cannot grow it without limit.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::kiln::{KilnTools, WritePreview, WriteRequest};

/// How long a confirmation token (or the state of a pending elicitation)
/// stays valid.
pub const TOKEN_LIFETIME: Duration = Duration::from_secs(300);

/// The most tokens held at once; issuing one more drops the oldest.
const MAX_TOKENS: usize = 1024;

/// How the server treats the kiln's write tools (`--writes`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WritePolicy {
    /// Every write asks the user first (the default).
    #[default]
    Ask,
    /// Writes happen without asking (the tools are still annotated as
    /// destructive, so a host can gate them itself).
    Allow,
    /// The write tools are not offered.
    Deny,
}

impl WritePolicy {
    /// Every policy, in the order `--writes` lists them.
    pub const ALL: [WritePolicy; 3] = [WritePolicy::Ask, WritePolicy::Allow, WritePolicy::Deny];

    /// The name `--writes` takes.
    pub fn name(self) -> &'static str {
        match self {
            WritePolicy::Ask => "ask",
            WritePolicy::Allow => "allow",
            WritePolicy::Deny => "deny",
        }
    }
}

impl fmt::Display for WritePolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for WritePolicy {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        WritePolicy::ALL
            .into_iter()
            .find(|policy| policy.name() == name.trim())
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

/// The approvals of one MCP session, and the tokens of the whole server.
#[derive(Clone, Debug)]
pub(super) struct Approvals {
    policy: WritePolicy,
    /// Set when the user approved writes for the rest of the session.
    session_approved: Arc<AtomicBool>,
    /// Shared by every session of the server: a client on the stateless
    /// 2026-07-28 transport may bring a token back on another connection.
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
            session_approved: Arc::new(AtomicBool::new(false)),
            tokens: Arc::default(),
            extra: Arc::default(),
        }
    }

    /// The approvals of a new session: nothing approved yet, the server's
    /// tokens shared.
    pub(super) fn for_new_session(&self) -> Self {
        Approvals {
            policy: self.policy,
            session_approved: Arc::new(AtomicBool::new(false)),
            tokens: Arc::clone(&self.tokens),
            extra: Arc::default(),
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

    /// A new single-use token for `request` as `preview` showed it (an
    /// error only when the operating system has no randomness to give).
    pub(super) fn issue(
        &self,
        request: &WriteRequest,
        preview: &WritePreview,
    ) -> Result<String, getrandom::Error> {
        self.issue_at(request, preview, Instant::now())
    }

    fn issue_at(
        &self,
        request: &WriteRequest,
        preview: &WritePreview,
        now: Instant,
    ) -> Result<String, getrandom::Error> {
        let pending = Pending::Write {
            request: request.clone(),
            sha256: preview.sha256.clone(),
        };
        self.hold(pending, now)
    }

    /// A new single-use token for the question whether `folder` may be
    /// used.
    pub(super) fn issue_folder(&self, folder: &Path) -> Result<String, getrandom::Error> {
        self.hold(Pending::Folder(folder.to_owned()), Instant::now())
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

    /// Takes the token back for `request`: the SHA-256 the note had when
    /// the token was issued, or why the token is no good. A token is
    /// used up by this, whatever the answer.
    pub(super) fn redeem(
        &self,
        token: &str,
        request: &WriteRequest,
    ) -> Result<Option<String>, TokenProblem> {
        self.redeem_at(token, request, Instant::now())
    }

    fn redeem_at(
        &self,
        token: &str,
        request: &WriteRequest,
        now: Instant,
    ) -> Result<Option<String>, TokenProblem> {
        match self.take(token, now)? {
            Pending::Write {
                request: issued,
                sha256,
            } if &issued == request => Ok(sha256),
            _ => Err(TokenProblem::OtherCall),
        }
    }

    /// Takes back a token issued by [`Approvals::issue_folder`]: the folder
    /// asked about.
    pub(super) fn redeem_folder(&self, token: &str) -> Result<PathBuf, TokenProblem> {
        match self.take(token, Instant::now())? {
            Pending::Folder(folder) => Ok(folder),
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
    /// Issued for another call (other arguments).
    OtherCall,
}

impl TokenProblem {
    pub(super) fn message(self) -> String {
        let why = match self {
            TokenProblem::Unknown => "is not one this server issued, or was already used",
            TokenProblem::Expired => "has expired (a token lasts 5 minutes)",
            TokenProblem::OtherCall => {
                "was issued for a call with other arguments; it is now used up"
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
    /// A write shown for approval, and the note's SHA-256 then.
    Write {
        request: WriteRequest,
        sha256: Option<String>,
    },
    /// A folder outside the root, asked about.
    Folder(PathBuf),
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

/// 128 random bits from the operating system, as 32 hex digits.
fn new_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kiln::{DeleteNoteRequest, PlannedChange};

    fn delete(path: &str) -> WriteRequest {
        WriteRequest::Delete(DeleteNoteRequest {
            path: path.to_owned(),
            permanent: false,
        })
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
        }
    }

    #[test]
    fn a_token_is_redeemed_once_for_its_own_call() {
        let approvals = Approvals::new(WritePolicy::Ask);
        let token = approvals.issue(&delete("a"), &preview("abc")).unwrap();
        assert_eq!(token.len(), 32);
        assert_eq!(
            approvals.redeem(&token, &delete("a")),
            Ok(Some("abc".to_owned()))
        );
        assert_eq!(
            approvals.redeem(&token, &delete("a")),
            Err(TokenProblem::Unknown)
        );
        let token = approvals.issue(&delete("a"), &preview("abc")).unwrap();
        assert_eq!(
            approvals.redeem(&token, &delete("b")),
            Err(TokenProblem::OtherCall)
        );
        assert_eq!(
            approvals.redeem(&token, &delete("a")),
            Err(TokenProblem::Unknown)
        );
        assert_eq!(
            approvals.redeem("", &delete("a")),
            Err(TokenProblem::Unknown)
        );
    }

    #[test]
    fn a_token_expires() {
        let approvals = Approvals::new(WritePolicy::Ask);
        let start = Instant::now();
        let token = approvals
            .issue_at(&delete("a"), &preview("abc"), start)
            .unwrap();
        let late = start + TOKEN_LIFETIME;
        assert_eq!(
            approvals.redeem_at(&token, &delete("a"), late),
            Err(TokenProblem::Expired)
        );
    }

    #[test]
    fn tokens_are_distinct_and_bounded() {
        let approvals = Approvals::new(WritePolicy::Ask);
        let now = Instant::now();
        let first = approvals
            .issue_at(&delete("a"), &preview("x"), now)
            .unwrap();
        let mut seen = std::collections::HashSet::new();
        for n in 0..MAX_TOKENS + 10 {
            let later = now + Duration::from_millis(n as u64 + 1);
            assert!(
                seen.insert(
                    approvals
                        .issue_at(&delete("a"), &preview("x"), later)
                        .unwrap()
                )
            );
        }
        assert_eq!(approvals.tokens.lock().unwrap().by_token.len(), MAX_TOKENS);
        // The oldest went first.
        assert_eq!(
            approvals.redeem_at(&first, &delete("a"), now),
            Err(TokenProblem::Unknown)
        );
    }

    #[test]
    fn sessions_share_tokens_but_not_approvals() {
        let server = Approvals::new(WritePolicy::Ask);
        let one = server.for_new_session();
        let two = server.for_new_session();
        one.approve_session();
        assert!(one.approved_without_asking());
        assert!(!two.approved_without_asking());
        let token = one.issue(&delete("a"), &preview("x")).unwrap();
        assert!(two.redeem(&token, &delete("a")).is_ok());
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
