//! Where a task sits in a plan's task tree, written as the planner shows it:
//! `2.1` is the first subtask of the second task.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The path of a task in the tree: its position among the top-level tasks,
/// then among each parent's subtasks.
///
/// Written 1-based, numbers joined by dots (`1`, `2.1`, `3.1.4`), as the
/// planner lists tasks; [`TaskPath::indices`] are 0-based, for indexing the
/// task vectors. Paths order as their tasks do in the document (depth
/// first: `1` < `1.1` < `1.2` < `2`).
///
/// ```
/// use quire_grammar::plan::{PlanDocument, TaskPath};
///
/// let document: PlanDocument = "feat(a): b\n\nWhy.\n- [ ]: One\n- [ ]: Two\n  - [x]: Two's first\n"
///     .parse()
///     .unwrap();
/// let path: TaskPath = "2.1".parse().unwrap();
/// assert_eq!(path.indices(), [1, 0]);
/// assert_eq!(document.task(&path).map(|task| task.text()), Some("Two's first"));
/// assert_eq!(path.parent().map(|parent| parent.to_string()), Some("2".to_owned()));
///
/// let error = "2.0".parse::<TaskPath>().unwrap_err();
/// assert_eq!(error.to_string(), "part 2 of the task path `2.0` is 0; tasks are numbered from 1");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskPath {
    /// 0-based, never empty.
    indices: Vec<usize>,
}

impl TaskPath {
    /// The path of the top-level task at 0-based `index`.
    pub fn top(index: usize) -> TaskPath {
        TaskPath {
            indices: vec![index],
        }
    }

    /// The path of this task's subtask at 0-based `index`.
    pub fn child(&self, index: usize) -> TaskPath {
        let mut indices = Vec::with_capacity(self.indices.len() + 1);
        indices.extend_from_slice(&self.indices);
        indices.push(index);
        TaskPath { indices }
    }

    /// The path of the task this one is a subtask of; `None` for a
    /// top-level task.
    pub fn parent(&self) -> Option<TaskPath> {
        let (_, parent) = self.indices.split_last()?;
        (!parent.is_empty()).then(|| TaskPath {
            indices: parent.to_vec(),
        })
    }

    /// The 0-based position at each level, top level first.
    pub fn indices(&self) -> &[usize] {
        &self.indices
    }

    /// How deep the task is nested: 0 for a top-level task.
    pub fn depth(&self) -> usize {
        self.indices.len() - 1
    }
}

impl fmt::Display for TaskPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (level, index) in self.indices.iter().enumerate() {
            if level > 0 {
                f.write_str(".")?;
            }
            write!(f, "{}", index + 1)?;
        }
        Ok(())
    }
}

/// Why a text is not a task path. Parts are counted from 1.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TaskPathError {
    /// The text is empty.
    #[error("the task path is empty; write numbers from 1 joined by dots, e.g. `2.1`")]
    Empty,
    /// Two dots in a row, or a dot at either end.
    #[error(
        "part {part} of the task path `{path}` is empty; write numbers from 1 joined by dots, e.g. `2.1`"
    )]
    EmptyPart {
        /// The whole text.
        path: String,
        /// Which part, from 1.
        part: usize,
    },
    /// A part has something other than the digits 0 to 9.
    #[error(
        "part {part} of the task path `{path}` is not a number; write numbers from 1 joined by dots, e.g. `2.1`"
    )]
    NotANumber {
        /// The whole text.
        path: String,
        /// Which part, from 1.
        part: usize,
    },
    /// A part is 0 (written with one zero or more).
    #[error("part {part} of the task path `{path}` is 0; tasks are numbered from 1")]
    Zero {
        /// The whole text.
        path: String,
        /// Which part, from 1.
        part: usize,
    },
    /// A part starts with 0 (`01`): numbers are written without leading zeros.
    #[error("part {part} of the task path `{path}` starts with 0; write it without leading zeros")]
    LeadingZero {
        /// The whole text.
        path: String,
        /// Which part, from 1.
        part: usize,
    },
    /// A part is a number too large for any plan (beyond `usize`).
    #[error("part {part} of the task path `{path}` is too large to name a task")]
    TooLarge {
        /// The whole text.
        path: String,
        /// Which part, from 1.
        part: usize,
    },
}

impl FromStr for TaskPath {
    type Err = TaskPathError;

    /// Reads `1`, `2.1`, `3.1.4`: numbers from 1, without leading zeros or
    /// signs, joined by single dots; no whitespace anywhere.
    fn from_str(text: &str) -> Result<TaskPath, TaskPathError> {
        if text.is_empty() {
            return Err(TaskPathError::Empty);
        }
        let indices = text
            .split('.')
            .enumerate()
            .map(|(at, digits)| index_of(text, at + 1, digits))
            .collect::<Result<Vec<usize>, TaskPathError>>()?;
        Ok(TaskPath { indices })
    }
}

/// The 0-based index that `digits`, part `part` of the path `path`, names.
fn index_of(path: &str, part: usize, digits: &str) -> Result<usize, TaskPathError> {
    let path = || path.to_owned();
    if digits.is_empty() {
        return Err(TaskPathError::EmptyPart { path: path(), part });
    }
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(TaskPathError::NotANumber { path: path(), part });
    }
    if digits.bytes().all(|b| b == b'0') {
        return Err(TaskPathError::Zero { path: path(), part });
    }
    if digits.starts_with('0') {
        return Err(TaskPathError::LeadingZero { path: path(), part });
    }
    let number: usize = digits
        .parse()
        .map_err(|_| TaskPathError::TooLarge { path: path(), part })?;
    Ok(number - 1)
}

/// Serializes as its text, `"2.1"`.
impl Serialize for TaskPath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Deserializes from its text, `"2.1"`.
impl<'de> Deserialize<'de> for TaskPath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_indices_round_trip() {
        for text in ["1", "2.1", "3.1.4", "10.20", "1.1.1.1.1.1"] {
            let path: TaskPath = text.parse().unwrap();
            assert_eq!(path.to_string(), text);
        }
        let path: TaskPath = "3.1.4".parse().unwrap();
        assert_eq!(path.indices(), [2, 0, 3]);
        assert_eq!(path.depth(), 2);
        assert_eq!(TaskPath::top(2).child(0).child(3), path);
        assert_eq!(path.parent(), Some(TaskPath::top(2).child(0)));
        assert_eq!(TaskPath::top(0).parent(), None);
    }

    #[test]
    fn every_wrong_text_says_which_part_is_wrong() {
        let error = |text: &str| text.parse::<TaskPath>().unwrap_err();
        assert_eq!(error(""), TaskPathError::Empty);
        let path = |text: &str| text.to_owned();
        assert_eq!(
            error("1..2"),
            TaskPathError::EmptyPart {
                path: path("1..2"),
                part: 2
            }
        );
        assert_eq!(
            error(".1"),
            TaskPathError::EmptyPart {
                path: path(".1"),
                part: 1
            }
        );
        assert_eq!(
            error("1."),
            TaskPathError::EmptyPart {
                path: path("1."),
                part: 2
            }
        );
        for wrong in ["a", "1.b", " 1", "1 ", "+1", "-1", "1,2", "١"] {
            assert!(
                matches!(error(wrong), TaskPathError::NotANumber { .. }),
                "{wrong:?}: {:?}",
                error(wrong)
            );
        }
        assert_eq!(
            error("1.0"),
            TaskPathError::Zero {
                path: path("1.0"),
                part: 2
            }
        );
        assert_eq!(
            error("00"),
            TaskPathError::Zero {
                path: path("00"),
                part: 1
            }
        );
        assert_eq!(
            error("01"),
            TaskPathError::LeadingZero {
                path: path("01"),
                part: 1
            }
        );
        let huge = format!("1.{}0", usize::MAX);
        assert_eq!(
            error(&huge),
            TaskPathError::TooLarge {
                path: huge.clone(),
                part: 2
            }
        );
        assert!(error(&huge).to_string().contains("part 2"));
    }

    #[test]
    fn paths_order_as_a_depth_first_walk() {
        let mut paths: Vec<TaskPath> = ["2", "1.2", "1", "1.1.1", "1.1", "10", "3"]
            .iter()
            .map(|text| text.parse().unwrap())
            .collect();
        paths.sort();
        let sorted: Vec<String> = paths.iter().map(TaskPath::to_string).collect();
        assert_eq!(sorted, ["1", "1.1", "1.1.1", "1.2", "2", "3", "10"]);
    }

    #[test]
    fn serializes_as_its_text() {
        let path: TaskPath = "2.1".parse().unwrap();
        assert_eq!(serde_json::to_string(&path).unwrap(), "\"2.1\"");
        assert_eq!(serde_json::from_str::<TaskPath>("\"2.1\"").unwrap(), path);
        let error = serde_json::from_str::<TaskPath>("\"2.x\"").unwrap_err();
        assert!(error.to_string().contains("not a number"), "{error}");
    }
}
