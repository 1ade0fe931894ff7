//! The tracker status vocabulary and the transition policy between statuses.

quire_grammar::named_enum! {
    /// The canonical tracker statuses, spelled exactly as in tracker notes.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum TrackerStatus {
        /// The posting has been read and judged; the first step.
        Reviewed => "Reviewed",
        /// `Resume Written`: a résumé for the posting exists; follows `Reviewed`.
        ResumeWritten => "Resume Written",
        /// The application was sent; follows `Resume Written`.
        Applied => "Applied",
        /// An interview is arranged. No step of the policy leads here: it is set by hand,
        /// or with `force`.
        Interview => "Interview",
        /// An offer came. No step of the policy leads here: it is set by hand,
        /// or with `force`.
        Offer => "Offer",
        /// The application was turned down; may be recorded from any status.
        Rejected => "Rejected",
        /// No answer came; may be recorded from any status.
        Ghosted => "Ghosted",
    }
}

impl TrackerStatus {
    /// The spelling written in tracker notes (`Resume Written` has a space).
    pub fn as_str(self) -> &'static str {
        self.name()
    }

    /// The exact, case-sensitive spelling; no surrounding whitespace.
    pub fn from_exact(text: &str) -> Option<TrackerStatus> {
        TrackerStatus::from_name(text)
    }

    /// Outcomes that may be recorded from any status.
    pub fn is_terminal(self) -> bool {
        matches!(self, TrackerStatus::Rejected | TrackerStatus::Ghosted)
    }

    /// The allowed statuses, for error messages.
    pub fn vocabulary() -> String {
        let names: Vec<String> = TrackerStatus::ALL
            .iter()
            .map(|s| format!("`{}`", s.as_str()))
            .collect();
        names.join(", ")
    }
}

/// Whether moving from `current` (as written in the tracker, possibly not a
/// canonical status) to `target` follows the policy: the forward steps
/// `Reviewed -> Resume Written -> Applied`, or a terminal outcome from
/// anywhere. Staying put is not a transition (the caller reports `noop`).
pub fn transition_allowed(current: &str, target: TrackerStatus) -> bool {
    if target.is_terminal() {
        return true;
    }
    matches!(
        (TrackerStatus::from_exact(current), target),
        (Some(TrackerStatus::Reviewed), TrackerStatus::ResumeWritten)
            | (Some(TrackerStatus::ResumeWritten), TrackerStatus::Applied)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use TrackerStatus::*;

    #[test]
    fn vocabulary_is_exact_and_case_sensitive() {
        assert_eq!(
            TrackerStatus::from_exact("Resume Written"),
            Some(ResumeWritten)
        );
        for wrong in [
            "resume written",
            " Applied",
            "Applied ",
            "Resume  Written",
            "",
            "Drafted",
        ] {
            assert_eq!(TrackerStatus::from_exact(wrong), None, "{wrong:?}");
        }
    }

    #[test]
    fn policy_allows_forward_steps_and_terminal_outcomes_only() {
        assert!(transition_allowed("Reviewed", ResumeWritten));
        assert!(transition_allowed("Resume Written", Applied));
        for current in ["Reviewed", "Offer", "Interview", "Something else", ""] {
            assert!(transition_allowed(current, Rejected));
            assert!(transition_allowed(current, Ghosted));
        }
        assert!(!transition_allowed("Reviewed", Applied));
        assert!(!transition_allowed("Applied", Reviewed));
        assert!(!transition_allowed("Applied", Interview));
        assert!(!transition_allowed("Rejected", Reviewed));
        assert!(!transition_allowed("reviewed", ResumeWritten));
    }
}
