//! The kiln's tools as typed operations over one workspace: `read_note`
//! reads the file, `read_metadata` answers from the index (checking the
//! note's file first, so an edit made meanwhile is seen).

use std::borrow::Cow;
use std::time::{Duration, Instant};

use super::by_name::{Named, link_target, note_named};
use super::error::shown;
use super::excerpt::ExcerptLimits;
use super::index::{IndexedNote, KilnIndex};
use super::info::{KilnInfo, KilnInfoRequest, SemanticDetails, kiln_info};
use super::links::{FindLinksRequest, FoundLinks, LinkQuery, find_links};
use super::listing::ListError;
use super::listing::{ListNotesRequest, NoteList, list_notes};
use super::live::LiveIndex;
use super::metadata::{NoteMetadata, ReadMetadataRequest, metadata};
use super::note_path::{FolderPath, NotePath};
use super::on_disk::on_disk_spelling;
use super::page::page;
use super::preview::{FileIdentity, PlannedChange, WritePreview};
use super::properties::{PropertySearch, PropertySearchRequest, property_search};
use super::read::MAX_NOTE_BYTES;
use super::read::{KilnError, KilnReader, NoteRead, ReadNoteRequest};
use super::resolve::link_path;
use super::resources::{
    NoteResource, NoteText, RESOURCE_PAGE, ResourcePage, note_path_of_uri, note_uri,
};
use super::search::{TextSearch, TextSearchRequest, search_text};
use super::semantic::{
    ChunkOptions, EmbedderSource, SemanticProgress, SemanticTiers, SemanticUnavailable,
};
use super::semantic_search::{
    SemanticIndexState, SemanticSearch, SemanticSearchRequest, SemanticTierState, rank_notes,
};
use super::suggest::suggest;
use super::write::{
    self, CreateNoteRequest, DeleteNoteRequest, NoteCreated, NoteDeleted, NoteUpdated,
    UpdateNoteRequest, WriteDone, WriteRefusal, WriteRequest,
};
use quire_fs::{Deadline, FileKind, FileStat, FsError, Located, OpenFile, Workspace};

/// How long a call waits for the index by default.
pub const DEFAULT_TOOL_BUDGET: Duration = Duration::from_secs(10);

/// How the kiln's tools run.
#[derive(Clone, Debug)]
pub struct KilnOptions {
    /// How long a call may take: how long it waits for the index, and how
    /// long a search runs before it returns what it found so far.
    pub budget: Duration,
    /// Whether a file watcher keeps the index fresh (else the root is
    /// rescanned before a call, at most every [`super::POLL_INTERVAL`]).
    pub watch: bool,
    /// The embedder of `semantic_search` (none by default: the tool then
    /// says how to get one).
    pub embedder: EmbedderSource,
    /// Faster embedders, best first, each with an index of its own, that
    /// answer `semantic_search` while the better ones are incomplete (the
    /// static table while MiniLM embeds a large vault): a search is
    /// answered by the best tier that is complete. None by default.
    pub fallback_embedders: Vec<EmbedderSource>,
    /// Whether a server starts building the index (and the semantic index,
    /// with an embedder) as it starts, so that the first call finds it
    /// ready. Off, the first call that needs it builds it: `quire call`
    /// runs one tool, and a tracker or planner call then reads no notes.
    pub index_at_start: bool,
}

impl Default for KilnOptions {
    /// [`DEFAULT_TOOL_BUDGET`], with a watcher, without an embedder,
    /// indexing from the start.
    fn default() -> Self {
        KilnOptions {
            budget: DEFAULT_TOOL_BUDGET,
            watch: true,
            embedder: EmbedderSource::default(),
            fallback_embedders: Vec::new(),
            index_at_start: true,
        }
    }
}

/// The kiln's tools over one workspace.
#[derive(Clone, Debug)]
pub struct KilnTools {
    reader: KilnReader,
    index: LiveIndex,
    semantic: SemanticTiers,
    budget: Duration,
}

impl KilnTools {
    /// The tools over `workspace`'s root; the index is built on first use,
    /// or once [`Self::start_indexing`] is called.
    pub fn new(workspace: Workspace) -> Self {
        KilnTools::with_options(workspace, KilnOptions::default())
    }

    /// The tools over `workspace`'s root, run as `options` say.
    pub fn with_options(workspace: Workspace, options: KilnOptions) -> Self {
        KilnTools {
            index: LiveIndex::with_watcher(workspace.clone(), options.watch),
            semantic: SemanticTiers::new(
                std::iter::once(options.embedder)
                    .chain(options.fallback_embedders)
                    .collect(),
                &ChunkOptions::default(),
            ),
            reader: KilnReader::new(workspace),
            budget: options.budget,
        }
    }

    /// The same tools with the index kept fresh by rescanning the root
    /// before a call (at most every [`super::POLL_INTERVAL`]) rather than by
    /// a file watcher, when `watch` is false.
    pub fn with_watcher(mut self, watch: bool) -> Self {
        self.index = LiveIndex::with_watcher(self.reader.workspace().clone(), watch);
        self
    }

    /// The same tools waiting at most `budget` for the index.
    pub fn with_budget(mut self, budget: Duration) -> Self {
        self.budget = budget;
        self
    }

    /// The workspace the tools work in.
    pub fn workspace(&self) -> &Workspace {
        self.reader.workspace()
    }

    /// How long a call may take.
    pub fn budget(&self) -> Duration {
        self.budget
    }

    /// Starts building the index in the background, and the semantic
    /// index when there is an embedder.
    pub fn start_indexing(&self) {
        self.index.start();
        self.semantic.start(self.reader.workspace(), &self.index);
    }

    /// Whether the index has begun to be built (by
    /// [`Self::start_indexing`] or a call).
    pub fn indexing_started(&self) -> bool {
        self.index.started()
    }

    /// Where the semantic index of the best tier (the embedder asked
    /// for first) stands.
    pub fn semantic_progress(&self) -> SemanticProgress {
        self.semantic.best_progress()
    }

    /// Where each tier's semantic index stands, best first.
    pub fn semantic_tiers(&self) -> Vec<SemanticProgress> {
        self.semantic.progress()
    }

    /// `semantic_search`: the notes closest in meaning to the query, best
    /// first. Waits at most the budget for the semantic index to be
    /// complete, then answers from what it holds (the result says how
    /// complete it was).
    ///
    /// ```
    /// # let folder = tempfile::tempdir()?;
    /// # std::fs::write(folder.path().join("Boats.md"), "# Boats\nsailing on the sea\n")?;
    /// # std::fs::write(folder.path().join("Bread.md"), "# Bread\nflour water salt\n")?;
    /// use std::sync::Arc;
    /// use quire_embed::{EmbedError, Embedder, normalize};
    /// use quire_fs::Workspace;
    /// use quire_kiln::{EmbedderSource, KilnOptions, KilnTools, SemanticSearchRequest};
    ///
    /// /// A toy embedder: how often each of a few words occurs.
    /// #[derive(Debug)]
    /// struct Words;
    /// impl Embedder for Words {
    ///     fn id(&self) -> &str { "toy-words" }
    ///     fn dimension(&self) -> usize { 3 }
    ///     fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
    ///         Ok(texts.iter().map(|text| {
    ///             let mut vector: Vec<f32> = ["sea", "flour", "boats"].iter()
    ///                 .map(|word| text.matches(word).count() as f32 + 0.01)
    ///                 .collect();
    ///             normalize(&mut vector);
    ///             vector
    ///         }).collect())
    ///     }
    /// }
    ///
    /// let options = KilnOptions {
    ///     embedder: EmbedderSource::ready(Arc::new(Words)),
    ///     ..KilnOptions::default()
    /// };
    /// let kiln = KilnTools::with_options(Workspace::new(folder.path())?, options);
    /// let found = kiln.semantic_search(&SemanticSearchRequest::new("the sea"))?;
    /// assert_eq!(found.results[0].path, "Boats.md");
    /// assert_eq!(found.embedder, "toy-words");
    /// assert!(found.index.ready);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn semantic_search(
        &self,
        request: &SemanticSearchRequest,
    ) -> Result<SemanticSearch, KilnError> {
        let filter = request.check()?;
        let folder = FolderPath::parse(
            request.folder.as_deref().unwrap_or(""),
            self.reader.workspace().root(),
        )?;
        self.start_indexing();
        let answering = self.semantic.answering(self.budget)?;
        let tiers = self.semantic.progress();
        let tier_states = if tiers.len() > 1 {
            tiers.iter().map(SemanticTierState::from).collect()
        } else {
            Vec::new()
        };
        let Some(answering) = answering else {
            // Loading is not an error: the answer says so, and when to ask
            // again.
            let best = &tiers[0];
            return Ok(SemanticSearch {
                results: Vec::new(),
                embedder: best.embedder.clone().unwrap_or_default(),
                mode: request.mode,
                index: SemanticIndexState::from(best),
                tiers: tier_states,
                notice: Some(format!(
                    "the semantic index is still loading ({:.1} s waited): nothing could be ranked yet; ask again in a few seconds, or use text_search meanwhile",
                    self.budget.as_secs_f64()
                )),
            });
        };
        let embedder = answering.embedder;
        let tier = answering.tier;
        let query_vector = embedder
            .embed(&[request.query.as_str()])
            .map_err(|error| SemanticUnavailable::Query(error.to_string()))?
            .pop()
            .ok_or_else(|| SemanticUnavailable::Query("the embedder returned no vector".into()))?;
        let results = self.index.with(self.budget, |_, index| {
            tier.view(|view| {
                rank_notes(
                    index,
                    &view,
                    &query_vector,
                    request,
                    &folder,
                    filter.as_ref(),
                )
            })?
            .map_err(|error| KilnError::Semantic(SemanticUnavailable::Query(error.to_string())))
        })?;
        let progress = tier.progress();
        let notice = (!progress.ready).then(|| {
            let waiting = progress.chunks_total - progress.chunks_embedded.min(progress.chunks_total);
            format!(
                "the `{}` index is not complete: {waiting} chunks of {} notes are not embedded yet and new notes among them are not ranked; results marked `indexing` are of an older text",
                progress.embedder.as_deref().unwrap_or("semantic"),
                progress.notes_pending
            )
        });
        Ok(SemanticSearch {
            results,
            embedder: embedder.id().to_owned(),
            mode: request.mode,
            index: SemanticIndexState::from(&progress),
            tiers: tier_states,
            notice,
        })
    }

    /// `read_note`: the lines of a note. A note not at its own path is
    /// looked up in the index (an NFD name on disk, or the closest notes for
    /// the error), or, while the index is still being built, by walking the
    /// root.
    ///
    /// ```
    /// # let folder = tempfile::tempdir()?;
    /// # std::fs::write(folder.path().join("Plan.md"), "# Plan\nship it\n")?;
    /// use quire_fs::Workspace;
    /// use quire_kiln::{KilnTools, ReadNoteRequest};
    ///
    /// let kiln = KilnTools::new(Workspace::new(folder.path())?);
    /// let request = ReadNoteRequest { path: "Plan".into(), start_line: None, end_line: None, head: Some(1), tail: None };
    /// let read = kiln.read_note(&request).unwrap();
    /// assert_eq!((read.content.as_str(), read.total_lines), ("# Plan\n", 2));
    /// // A name as a wikilink writes it finds the note, which says its path.
    /// let read = kiln.read_note(&ReadNoteRequest { path: "[[plan#Plan]]".into(), ..request.clone() }).unwrap();
    /// assert_eq!(read.path, "Plan.md");
    /// let error = kiln.read_note(&ReadNoteRequest { path: "Plans".into(), ..request }).unwrap_err();
    /// assert_eq!(error.to_string(), "there is no note `Plans.md`; did you mean `Plan.md`?");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn read_note(&self, request: &ReadNoteRequest) -> Result<NoteRead, KilnError> {
        let named;
        let request = match self.path_of_named(&request.path)? {
            Cow::Borrowed(_) => request,
            Cow::Owned(path) => {
                named = ReadNoteRequest {
                    path,
                    ..request.clone()
                };
                &named
            }
        };
        self.reader
            .read_note_finding(request, |path| self.find_indexed(path))
    }

    /// The note a tool's `path` argument names, as a path (see `by_name`):
    /// `given` itself when a note is there (or when no note has it as a
    /// name, so that the path's own error, with suggestions, answers), else
    /// the path of the note whose name, alias or wikilink it is.
    fn path_of_named<'a>(&self, given: &'a str) -> Result<Cow<'a, str>, KilnError> {
        let (target, is_link) = link_target(given);
        let as_path = (!is_link).then(|| NotePath::parse(given, self.reader.workspace().root()));
        if let Some(Ok(path)) = &as_path {
            // A note there (or a file the read will refuse, with its own
            // error) is what the path names.
            if !matches!(self.on_disk(path), Ok(None)) {
                return Ok(Cow::Borrowed(given));
            }
        }
        let named = match self
            .index
            .with(self.budget, |_, index| Ok(note_named(target, index)))
        {
            Ok(named) => named,
            // Without an index, names cannot be looked up: the path answers.
            Err(KilnError::IndexBuilding { .. } | KilnError::IndexFailed(_)) => Named::Nothing,
            Err(error) => return Err(error),
        };
        match (named, as_path) {
            (Named::Note(path), _) => Ok(Cow::Owned(path.to_string())),
            (Named::Several { candidates, count }, _) => Err(KilnError::Ambiguous {
                name: shown(given),
                candidates,
                count,
            }),
            (Named::Nothing, Some(Err(error))) => Err(error.into()),
            (Named::Nothing, Some(Ok(_))) => Ok(Cow::Borrowed(given)),
            // The link's file part, so the error names what was looked for.
            (Named::Nothing, None) => Ok(Cow::Owned(link_path(target).to_owned())),
        }
    }

    /// `read_metadata`: a note's properties, counts, headings, tags, links
    /// and backlinks.
    pub fn read_metadata(&self, request: &ReadMetadataRequest) -> Result<NoteMetadata, KilnError> {
        let path = NotePath::parse(
            &self.path_of_named(&request.path)?,
            self.reader.workspace().root(),
        )?;
        self.index.with(self.budget, |workspace, index| {
            refreshed(workspace, index, &path)?;
            let note = index.get(&path).ok_or_else(|| not_found(index, &path))?;
            Ok(metadata(index, note))
        })
    }

    /// `list_notes`: a page of a folder's notes, sorted by path.
    pub fn list_notes(&self, request: &ListNotesRequest) -> Result<NoteList, KilnError> {
        let folder = FolderPath::parse(
            request.folder.as_deref().unwrap_or(""),
            self.reader.workspace().root(),
        )?;
        let list = self.index.with(self.budget, |_, index| {
            Ok(list_notes(index, &folder, request)?)
        })?;
        if list.total == 0 && list.folders.is_empty() {
            self.folder_on_disk(&folder)?;
        }
        Ok(list)
    }

    /// Nothing when `folder` is a folder on disk (in either Unicode
    /// normalization), else why not: an empty answer for a folder that is
    /// not there would read as "no notes" to a caller who misspelled it.
    fn folder_on_disk(&self, folder: &FolderPath) -> Result<(), KilnError> {
        if folder.is_root() {
            return Ok(());
        }
        let workspace = self.reader.workspace();
        workspace.names_in(&on_disk_spelling(workspace, folder.as_str()))?;
        Ok(())
    }

    /// `property_search`: a page of the notes (beneath a folder) whose
    /// properties hold the values asked for, sorted by path.
    ///
    /// ```
    /// # let folder = tempfile::tempdir()?;
    /// # std::fs::write(folder.path().join("a.md"), "---\nstatus: active\ntags: [project/quire]\n---\n")?;
    /// # std::fs::write(folder.path().join("b.md"), "---\nstatus: done\n---\n#Project\n")?;
    /// use quire_fs::Workspace;
    /// use quire_kiln::{KilnTools, PropertySearchRequest};
    ///
    /// let kiln = KilnTools::new(Workspace::new(folder.path())?);
    /// let request = PropertySearchRequest::new(serde_json::from_str(r##"{"tags": "#project"}"##)?);
    /// let found = kiln.property_search(&request)?;
    /// let paths: Vec<_> = found.notes.iter().map(|note| note.path.as_str()).collect();
    /// assert_eq!(paths, ["a.md", "b.md"]);
    /// assert_eq!(found.notes[0].frontmatter["status"], "active");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn property_search(
        &self,
        request: &PropertySearchRequest,
    ) -> Result<PropertySearch, KilnError> {
        let folder = FolderPath::parse(
            request.folder.as_deref().unwrap_or(""),
            self.reader.workspace().root(),
        )?;
        // Bad arguments are refused at once, not after waiting for the index.
        request.query()?;
        let found = self.index.with(self.budget, |_, index| {
            Ok(property_search(index, &folder, request)?)
        })?;
        if found.total == 0 {
            self.folder_on_disk(&folder)?;
        }
        Ok(found)
    }

    /// `find_links`: a page of the kiln's broken links, ambiguous links,
    /// orphans (notes nothing links to), or the neighbours of one note out
    /// to a depth, from the index.
    ///
    /// ```
    /// # let folder = tempfile::tempdir()?;
    /// # std::fs::write(folder.path().join("Plan.md"), "# Plan\n[[Tasks]] [[Nowhere]]\n")?;
    /// # std::fs::write(folder.path().join("Tasks.md"), "- [ ] ship [[Done]]\n")?;
    /// # std::fs::write(folder.path().join("Done.md"), "done\n")?;
    /// use quire_fs::Workspace;
    /// use quire_kiln::{Direction, FindLinksRequest, KilnTools, LinkQuery};
    ///
    /// let kiln = KilnTools::new(Workspace::new(folder.path())?);
    /// let broken = kiln.find_links(&FindLinksRequest::new(LinkQuery::Broken))?;
    /// assert_eq!((broken.links[0].note.as_str(), broken.links[0].line), ("Plan.md", 2));
    /// assert_eq!(broken.links[0].target, "Nowhere");
    /// let orphans = kiln.find_links(&FindLinksRequest::new(LinkQuery::Orphans))?;
    /// assert_eq!(orphans.notes[0].path, "Plan.md");
    /// let mut around = FindLinksRequest::neighbours("[[Tasks]]");
    /// around.depth = Some(2);
    /// let around = kiln.find_links(&around)?;
    /// let found: Vec<_> = around.notes.iter()
    ///     .map(|note| (note.path.as_str(), note.distance, note.direction))
    ///     .collect();
    /// assert_eq!(found, [
    ///     ("Done.md", Some(1), Some(Direction::Out)),
    ///     ("Plan.md", Some(1), Some(Direction::In)),
    /// ]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn find_links(&self, request: &FindLinksRequest) -> Result<FoundLinks, KilnError> {
        let root = self.reader.workspace().root();
        let folder = FolderPath::parse(request.folder.as_deref().unwrap_or(""), root)?;
        // Bad arguments are refused at once, not after waiting for the index.
        request.checked()?;
        let note = match (&request.kind, &request.path) {
            (LinkQuery::Neighbours, Some(path)) => {
                Some(NotePath::parse(&self.path_of_named(path)?, root)?)
            }
            _ => None,
        };
        let found = self.index.with(self.budget, |workspace, index| {
            if let Some(note) = &note {
                refreshed(workspace, index, note)?;
            }
            Ok(find_links(index, &folder, note.as_ref(), request)?)
        })?;
        if found.total == 0 {
            self.folder_on_disk(&folder)?;
        }
        Ok(found)
    }

    /// `text_search`: the matching lines of the notes beneath a folder, read
    /// from the files as they are now (not from the index, so it answers
    /// while the index is being built), within the time budget.
    pub fn text_search(&self, request: &TextSearchRequest) -> Result<TextSearch, KilnError> {
        // A budget too large to add is no deadline at all.
        let deadline = Instant::now()
            .checked_add(self.budget)
            .unwrap_or_else(|| Instant::now() + Duration::from_secs(365 * 24 * 3600));
        let workspace = self.reader.workspace();
        let folder = FolderPath::parse(request.folder.as_deref().unwrap_or(""), workspace.root())?;
        search_text(workspace, &folder, request, deadline)
    }
}

impl KilnTools {
    /// `create_note`: a new note (its missing folders made), refused when
    /// one exists at the path.
    pub fn create_note(&self, request: &CreateNoteRequest) -> Result<NoteCreated, KilnError> {
        let workspace = self.reader.workspace();
        let path = NotePath::parse(&request.path, workspace.root())?;
        let text = write::new_note_text(request)?;
        // An NFD twin on disk is the same note.
        if self.on_disk(&path)?.is_some() {
            return Err(KilnError::Write(WriteRefusal::Exists {
                path: path.to_string(),
            }));
        }
        // Into the folders as they are spelled on disk: never a second
        // `résumé/` beside one written NFD.
        let on_disk = on_disk_spelling(workspace, path.as_str());
        workspace
            .create_with_folders(&on_disk, text.as_bytes(), 0o644)
            .map_err(|error| write::exists(&path, error))?;
        self.sync_now(&on_disk);
        Ok(NoteCreated {
            path: path.to_string(),
            word_count: write::word_count(&text),
            sha256: write::sha256(text.as_bytes()),
        })
    }

    /// `update_note`: the note's body, its properties, or both, replaced
    /// atomically if it is still the file read (and, with
    /// `expected_sha256`, still holds what the caller read).
    pub fn update_note(&self, request: &UpdateNoteRequest) -> Result<NoteUpdated, KilnError> {
        self.update_note_of(request, None)
    }

    /// `update_note`, refused unless the note's file is still `expected`
    /// (the one a preview was made of), when given.
    fn update_note_of(
        &self,
        request: &UpdateNoteRequest,
        expected: Option<&FileIdentity>,
    ) -> Result<NoteUpdated, KilnError> {
        let path = NotePath::parse(
            &self.path_of_named(&request.path)?,
            self.reader.workspace().root(),
        )?;
        let on_disk = self.existing_on_disk(&path)?;
        let (located, file) = self.lock_note(&path, &on_disk)?;
        let bytes = file.read(MAX_NOTE_BYTES)?;
        let (old, text) = updated_note_text(&path, &bytes, request)?;
        let (removed_properties, changed_properties) = write::property_changes(old, &text);
        // Its bytes were checked: the same bytes in another file (a link
        // swapped in, leading to another note) are not the note approved.
        check_identity(&path, file.stat(), expected, true)?;
        located.replace(&file, text.as_bytes())?;
        self.sync_now(&on_disk);
        Ok(NoteUpdated {
            path: path.to_string(),
            updated: write::updated_parts(request),
            word_count: write::word_count(&text),
            sha256: write::sha256(text.as_bytes()),
            removed_properties,
            changed_properties,
        })
    }

    /// `delete_note`: the note moved into `.trash/` (or removed, when
    /// `permanent`), with the notes that linked to it.
    pub fn delete_note(&self, request: &DeleteNoteRequest) -> Result<NoteDeleted, KilnError> {
        self.delete_note_holding(request, None)
    }

    /// `delete_note`, refused when the note is no longer what `preview`
    /// saw: another file or entry, or (when it could be read) other bytes.
    fn delete_note_holding(
        &self,
        request: &DeleteNoteRequest,
        preview: Option<&WritePreview>,
    ) -> Result<NoteDeleted, KilnError> {
        let path = NotePath::parse(
            &self.path_of_named(&request.path)?,
            self.reader.workspace().root(),
        )?;
        let on_disk = self.existing_on_disk(&path)?;
        let (backlinks, ambiguous_backlinks) = self.index.with(self.budget, |_, index| {
            Ok(write::linking_notes(index, &path))
        })?;
        let workspace = self.reader.workspace();
        let entry = workspace.locate_entry(&on_disk)?;
        let is_link = entry.kind() == Some(FileKind::Symlink);
        if request.permanent && is_link {
            // A note that is a link is not removed through it (the file it
            // leads to may be another note).
            return Err(KilnError::Write(WriteRefusal::LinkedNote {
                path: path.to_string(),
            }));
        }
        // Held until the note is gone, so a writer waiting for it finds it
        // gone rather than writing it back. A link out of the root has no
        // file here to lock; moving the link touches nothing beyond it.
        let locked = match self.lock_note(&path, &on_disk) {
            Ok((_, locked)) => Some(locked),
            Err(KilnError::File(error)) if is_link && leads_out(&error) => None,
            Err(error) => return Err(error),
        };
        if let Some(preview) = preview {
            let content_checked = match (&preview.sha256, &locked) {
                (Some(expected), Some(locked)) => {
                    check_unchanged(&path, &locked.read(MAX_NOTE_BYTES)?, expected)?;
                    true
                }
                _ => false,
            };
            check_identity(
                &path,
                &entry.stat()?,
                preview.identity.as_ref(),
                content_checked,
            )?;
        }
        let trashed_to = if request.permanent {
            let file = entry.open()?;
            entry.remove(&file)?;
            None
        } else {
            self.check_trash_folder()?;
            Some(workspace.trash(&on_disk, write::TRASH_FOLDER)?)
        };
        self.sync_now(&on_disk);
        Ok(NoteDeleted {
            path: path.to_string(),
            deleted: true,
            trashed_to,
            backlink_count: backlinks.len(),
            backlinks,
            ambiguous_backlinks,
        })
    }

    /// What `create_note` would do, checked as the write checks it
    /// (nothing is written).
    pub fn preview_create(&self, request: &CreateNoteRequest) -> Result<WritePreview, KilnError> {
        let path = NotePath::parse(&request.path, self.reader.workspace().root())?;
        let text = write::new_note_text(request)?;
        if self.on_disk(&path)?.is_some() {
            return Err(KilnError::Write(WriteRefusal::Exists {
                path: path.to_string(),
            }));
        }
        Ok(WritePreview {
            path: path.to_string(),
            change: PlannedChange::Create {
                word_count: write::word_count(&text),
                bytes: text.len(),
            },
            sha256: None,
            link_target: None,
            identity: None,
        })
    }

    /// What `update_note` would do, checked as the write checks it
    /// (nothing is written).
    pub fn preview_update(&self, request: &UpdateNoteRequest) -> Result<WritePreview, KilnError> {
        let path = NotePath::parse(
            &self.path_of_named(&request.path)?,
            self.reader.workspace().root(),
        )?;
        let on_disk = self.existing_on_disk(&path)?;
        let located = self
            .reader
            .workspace()
            .locate_shown(&on_disk, path.as_str())?;
        let file = located.open()?;
        let bytes = file.read(MAX_NOTE_BYTES)?;
        let sha256 = write::sha256(&bytes);
        let (old, text) = updated_note_text(&path, &bytes, request)?;
        let (removed_properties, changed_properties) = write::property_changes(old, &text);
        Ok(WritePreview {
            path: path.to_string(),
            change: PlannedChange::Update {
                content: request.content.is_some(),
                frontmatter: request.frontmatter.is_some(),
                word_count: write::word_count(&text),
                removed_properties,
                changed_properties,
                edit: request.edit.as_ref().map(|edit| shown(&edit.described())),
            },
            sha256: Some(sha256),
            // A link (or a folder on the path that is one) leads elsewhere:
            // that file is the one replaced.
            link_target: (located.real_path() != on_disk).then(|| located.real_path().to_owned()),
            identity: Some(identity(file.stat())),
        })
    }

    /// What `delete_note` would do, with the notes that link to the note
    /// (nothing is deleted).
    pub fn preview_delete(&self, request: &DeleteNoteRequest) -> Result<WritePreview, KilnError> {
        let path = NotePath::parse(
            &self.path_of_named(&request.path)?,
            self.reader.workspace().root(),
        )?;
        let on_disk = self.existing_on_disk(&path)?;
        let workspace = self.reader.workspace();
        let entry = workspace.locate_entry(&on_disk)?;
        let is_link = entry.kind() == Some(FileKind::Symlink);
        if request.permanent && is_link {
            return Err(KilnError::Write(WriteRefusal::LinkedNote {
                path: path.to_string(),
            }));
        }
        if !request.permanent {
            self.check_trash_folder()?;
        }
        // The content is bound when it can be read: a file too large to
        // read as a note, or a link that leads out of the root (the link is
        // moved, nothing beyond it is touched), is bound by its identity
        // alone.
        let target = workspace.locate_shown(&on_disk, path.as_str());
        let sha256 = match target
            .as_ref()
            .map_err(Clone::clone)
            .and_then(Located::open)
        {
            Ok(file) => match file.read(MAX_NOTE_BYTES) {
                Ok(bytes) => Some(write::sha256(&bytes)),
                Err(FsError::TooLarge { .. }) => None,
                Err(error) => return Err(error.into()),
            },
            Err(error) if is_link && leads_out(&error) => None,
            Err(error) => return Err(error.into()),
        };
        let link_target = match &target {
            Ok(target) if is_link => Some(target.real_path().to_owned()),
            _ => None,
        };
        let (backlinks, ambiguous_backlinks) = self.index.with(self.budget, |_, index| {
            Ok(write::linking_notes(index, &path))
        })?;
        Ok(WritePreview {
            path: path.to_string(),
            change: PlannedChange::Delete {
                permanent: request.permanent,
                backlinks,
                ambiguous_backlinks,
            },
            sha256,
            link_target,
            identity: Some(identity(&entry.stat()?)),
        })
    }

    /// Applies a write the user approved from `preview`: the note must
    /// still hold what it held when the preview was made, so an approval
    /// given for one text never overwrites another.
    pub fn apply_approved(
        &self,
        request: &WriteRequest,
        preview: &WritePreview,
    ) -> Result<WriteDone, KilnError> {
        match request {
            WriteRequest::Create(request) => self.create_note(request).map(WriteDone::Created),
            WriteRequest::Update(request) => {
                let bound = UpdateNoteRequest {
                    expected_sha256: preview
                        .sha256
                        .clone()
                        .or_else(|| request.expected_sha256.clone()),
                    ..request.clone()
                };
                self.update_note_of(&bound, preview.identity.as_ref())
                    .map(WriteDone::Updated)
            }
            WriteRequest::Delete(request) => self
                .delete_note_holding(request, Some(preview))
                .map(WriteDone::Deleted),
            WriteRequest::Move(request) => self
                .move_note_checked(request, Some(preview), &mut |_| Ok(()))
                .map(WriteDone::Moved),
        }
    }

    /// Applies a write without a preview (see [`KilnTools::apply_approved`]
    /// for one the user approved).
    pub fn apply(&self, request: &WriteRequest) -> Result<WriteDone, KilnError> {
        match request {
            WriteRequest::Create(request) => self.create_note(request).map(WriteDone::Created),
            WriteRequest::Update(request) => self.update_note(request).map(WriteDone::Updated),
            WriteRequest::Delete(request) => self.delete_note(request).map(WriteDone::Deleted),
            WriteRequest::Move(request) => self.move_note(request).map(WriteDone::Moved),
        }
    }

    /// What `request` would do (see [`KilnTools::preview_create`] and its
    /// siblings).
    pub fn preview(&self, request: &WriteRequest) -> Result<WritePreview, KilnError> {
        match request {
            WriteRequest::Create(request) => self.preview_create(request),
            WriteRequest::Update(request) => self.preview_update(request),
            WriteRequest::Delete(request) => self.preview_delete(request),
            WriteRequest::Move(request) => self.preview_move(request),
        }
    }

    /// The note's file, opened and locked: writers of one note take turns
    /// (each locks the file it read and replaces it before the next reads
    /// it; one replaced while this call waited is opened again), so no
    /// update is lost. Waits at most the call's budget.
    fn lock_note(&self, path: &NotePath, on_disk: &str) -> Result<(Located, OpenFile), KilnError> {
        self.lock_note_until(path, on_disk, Deadline::after(self.budget))
    }

    /// [`Self::lock_note`], waiting until `deadline`.
    fn lock_note_until(
        &self,
        path: &NotePath,
        on_disk: &str,
        deadline: Deadline,
    ) -> Result<(Located, OpenFile), KilnError> {
        loop {
            let located = self
                .reader
                .workspace()
                .locate_shown(on_disk, path.as_str())?;
            let file = located.open()?;
            file.lock(deadline)?;
            if located.is_current(&file)? {
                return Ok((located, file));
            }
        }
    }

    /// Refuses to trash when the trash folder is a symbolic link: a note
    /// moved through it would land wherever it leads (a visible folder,
    /// where it would stay a live note).
    fn check_trash_folder(&self) -> Result<(), KilnError> {
        let workspace = self.reader.workspace();
        match workspace.locate_entry(write::TRASH_FOLDER) {
            Ok(entry) if entry.kind() == Some(FileKind::Symlink) => {
                let leads_to = match workspace.locate(write::TRASH_FOLDER) {
                    Ok(target) => format!("to `{}`", crate::error::shown(target.real_path())),
                    Err(_) => "outside the kiln, or nowhere".to_owned(),
                };
                Err(KilnError::Write(WriteRefusal::TrashIsLink {
                    folder: write::TRASH_FOLDER.to_owned(),
                    leads_to,
                }))
            }
            _ => Ok(()),
        }
    }

    /// The on-disk name of the existing note `path`: its own path, else
    /// the name the index knows it by (NFD); not found with suggestions.
    fn existing_on_disk(&self, path: &NotePath) -> Result<String, KilnError> {
        match self.on_disk(path)? {
            Some(on_disk) => Ok(on_disk),
            None => self.find_indexed(path),
        }
    }

    /// Where the note `path` is on disk, if anywhere: at its own path;
    /// else with its folders' and file's names as written on disk, under
    /// another Unicode normalization (NFD names, seen even before the
    /// watcher tells the index); else under the name the index knows.
    /// Never walks the root.
    fn on_disk(&self, path: &NotePath) -> Result<Option<String>, KilnError> {
        let workspace = self.reader.workspace();
        match workspace.locate(path.as_str()) {
            Ok(located) if located.exists() => return Ok(Some(path.to_string())),
            Ok(_) | Err(FsError::NotFound { .. }) => {}
            // The note is a link that leads out (or nowhere): it exists, as
            // a link, and whoever opens it is refused; a delete moves it.
            Err(error)
                if leads_out(&error)
                    && workspace
                        .locate_entry(path.as_str())
                        .is_ok_and(|entry| entry.kind() == Some(FileKind::Symlink)) =>
            {
                return Ok(Some(path.to_string()));
            }
            Err(error) => return Err(error.into()),
        }
        let spelled = on_disk_spelling(workspace, path.as_str());
        if spelled != path.as_str()
            && workspace
                .locate(&spelled)
                .is_ok_and(|located| located.exists())
        {
            return Ok(Some(spelled));
        }
        let indexed = self.index.with(Duration::ZERO, |_, index| {
            Ok(index.get(path).map(|note| note.on_disk.clone()))
        });
        Ok(indexed.ok().flatten())
    }

    /// The on-disk name of the note `path` from the index, or not found
    /// with suggestions (the root walked while the index is being built).
    fn find_indexed(&self, path: &NotePath) -> Result<String, KilnError> {
        let found = self
            .index
            .with(Duration::ZERO, |_, index| match index.get(path) {
                Some(note) => Ok(note.on_disk.clone()),
                None => Err(not_found(index, path)),
            });
        match found {
            Err(KilnError::IndexBuilding { .. } | KilnError::IndexFailed(_)) => {
                self.reader.find_by_walking(path)
            }
            found => found,
        }
    }

    /// Brings the index's entry for the file `on_disk` up to date now,
    /// when the index is built (a build under way reads the file itself).
    fn sync_now(&self, on_disk: &str) {
        let _ = self.index.with(Duration::ZERO, |workspace, index| {
            if index.sync_file(workspace, on_disk) {
                index.relink();
            }
            Ok(())
        });
    }

    /// `get_kiln_info`: the root URI and totals, and with `detailed` how
    /// the index stands. Never waits for the index.
    pub fn get_kiln_info(&self, request: &KilnInfoRequest) -> Result<KilnInfo, KilnError> {
        let watcher = self.index.watcher_status();
        let mut info = self.index.peek(|view| kiln_info(request, view, watcher));
        if request.detailed {
            info.semantic = SemanticDetails::of_tiers(self.semantic.progress());
        }
        Ok(info)
    }
}

impl KilnTools {
    /// `resources/list`: a page of the notes as resources, sorted by path,
    /// from the index.
    pub fn list_resources(&self, cursor: Option<&str>) -> Result<ResourcePage, KilnError> {
        self.index.with(self.budget, |_, index| {
            let notes: Vec<&IndexedNote> = index.notes().collect();
            let page = page(&notes, |note| note.path.as_str(), cursor, RESOURCE_PAGE)
                .map_err(ListError::from)?;
            Ok(ResourcePage {
                notes: page.items.iter().map(|note| resource(note)).collect(),
                next_cursor: page.next_cursor,
            })
        })
    }

    /// `resources/read`: the whole text of the note `uri` names (up to
    /// [`MAX_NOTE_BYTES`]), read through the same checks as `read_note`.
    pub fn read_resource(&self, uri: &str) -> Result<NoteText, KilnError> {
        let path = note_path_of_uri(uri)?;
        let whole = ExcerptLimits {
            max_lines: usize::MAX,
            max_bytes: usize::try_from(MAX_NOTE_BYTES).unwrap_or(usize::MAX),
        };
        let request = ReadNoteRequest {
            path,
            start_line: None,
            end_line: None,
            head: None,
            tail: None,
        };
        let read = self
            .reader
            .clone()
            .with_limits(whole)
            .read_note_finding(&request, |path| self.find_indexed(path))?;
        let path = NotePath::parse_relative(&read.path)?;
        Ok(NoteText {
            uri: note_uri(&path),
            text: read.content,
        })
    }
}

/// `note` as a resource.
fn resource(note: &IndexedNote) -> NoteResource {
    let title = note
        .facts
        .frontmatter
        .as_ref()
        .and_then(|frontmatter| frontmatter.values.get("title"))
        .and_then(serde_json::Value::as_str)
        .filter(|title| !title.trim().is_empty())
        .map_or_else(|| note.path.stem().to_owned(), str::to_owned);
    NoteResource {
        uri: note_uri(&note.path),
        path: note.path.to_string(),
        title,
        size: note.stat.size,
    }
}

/// Brings the index's entry for `path` up to date with its file.
fn refreshed(
    workspace: &Workspace,
    index: &mut KilnIndex,
    path: &NotePath,
) -> Result<(), KilnError> {
    let on_disk = index
        .get(path)
        .map_or_else(|| path.to_string(), |note| note.on_disk.clone());
    match index.refresh(workspace, path, &on_disk) {
        Ok(_) => Ok(()),
        Err(FsError::NotFound { .. }) => Err(not_found(index, path)),
        Err(error) => Err(error.into()),
    }
}

fn not_found(index: &KilnIndex, path: &NotePath) -> KilnError {
    KilnError::NotFound {
        path: path.to_string(),
        suggestions: suggest(path, index.note_set().iter(), 5)
            .iter()
            .map(ToString::to_string)
            .collect(),
    }
}

/// The text of the note `path` (its file's `bytes`) once `request` is
/// applied, refused when `expected_sha256` no longer matches.
fn updated_note_text<'b>(
    path: &NotePath,
    bytes: &'b [u8],
    request: &UpdateNoteRequest,
) -> Result<(&'b str, String), KilnError> {
    if let Some(expected) = &request.expected_sha256 {
        check_unchanged(path, bytes, expected)?;
    }
    let old = std::str::from_utf8(bytes).map_err(|error| FsError::NotUtf8 {
        path: path.to_string(),
        offset: error.valid_up_to(),
    })?;
    Ok((old, write::updated_text(old, request)?))
}

/// What a preview records of a file's `stat`.
fn identity(stat: &FileStat) -> FileIdentity {
    FileIdentity {
        device: stat.dev,
        inode: stat.ino,
        size: stat.size,
        modified: stat.modified(),
    }
}

/// Refuses a write to the note `path` when the file found (`now`) is not
/// the one `expected`: another file (device and inode), or, when its bytes
/// could not be compared (`content_checked` false: too large to read, or a
/// link out of the root), one whose size or modification time changed.
fn check_identity(
    path: &NotePath,
    now: &FileStat,
    expected: Option<&FileIdentity>,
    content_checked: bool,
) -> Result<(), KilnError> {
    let Some(expected) = expected else {
        return Ok(());
    };
    let now = identity(now);
    let same_file = (now.device, now.inode) == (expected.device, expected.inode);
    if same_file && (content_checked || now == *expected) {
        return Ok(());
    }
    Err(KilnError::Write(WriteRefusal::Replaced {
        path: path.to_string(),
    }))
}

/// Whether a note's file cannot be reached because its link leads out of
/// the root (or nowhere).
fn leads_out(error: &FsError) -> bool {
    matches!(
        error,
        FsError::Outside { .. } | FsError::DanglingLink { .. }
    )
}

/// Refuses a write to the note `path` when its `bytes` no longer have the
/// SHA-256 `expected`.
fn check_unchanged(path: &NotePath, bytes: &[u8], expected: &str) -> Result<(), KilnError> {
    if expected.trim().eq_ignore_ascii_case(&write::sha256(bytes)) {
        return Ok(());
    }
    Err(KilnError::Write(WriteRefusal::Changed {
        path: path.to_string(),
        expected: crate::error::shown(expected),
    }))
}

#[path = "moving.rs"]
mod moving;

#[cfg(test)]
mod tests {
    use super::*;

    /// A vault of `files` (path, text), folders made as needed, and the
    /// tools over it.
    fn vault(files: &[(&str, &str)]) -> (tempfile::TempDir, KilnTools) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let tools = KilnTools::new(Workspace::new(dir.path()).unwrap());
        (dir, tools)
    }

    fn request(path: &str) -> ReadMetadataRequest {
        ReadMetadataRequest {
            path: path.to_owned(),
        }
    }

    #[test]
    fn metadata_comes_from_the_index_and_sees_edits_made_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("Plan.md"),
            "---\nstatus: active\ntags: [work]\n---\n# Plan\nSee [[Notes]] and ![[Diagram]] #todo\n- [ ] ship\n",
        )
        .unwrap();
        std::fs::create_dir(root.join("a")).unwrap();
        std::fs::write(root.join("a/Notes.md"), "Back to [[Plan]].\n").unwrap();
        std::fs::write(root.join("Broken.md"), "---\ntitle: [x\n---\nText here\n").unwrap();
        let tools = KilnTools::new(Workspace::new(root).unwrap());

        let plan = tools.read_metadata(&request("Plan")).unwrap();
        assert_eq!(plan.frontmatter["status"], "active");
        assert_eq!(plan.tags, ["work", "todo"]);
        assert_eq!(
            (
                plan.stats.wikilink_count,
                plan.stats.embed_count,
                plan.stats.task_count
            ),
            (1, 1, 1)
        );
        assert_eq!(plan.links[0].path.as_deref(), Some("a/Notes.md"));
        assert_eq!(plan.links[1].path, None);
        assert_eq!(plan.backlinks, ["a/Notes.md"]);
        assert_eq!(plan.headings[0].text, "Plan");
        assert!(plan.modified.ends_with('Z') && plan.problems.is_empty());

        // An edit made after the index was built is seen.
        std::fs::write(
            root.join("a/Notes.md"),
            "Nothing now. #fresh and more words\n",
        )
        .unwrap();
        let notes = tools.read_metadata(&request("a/Notes.md")).unwrap();
        assert_eq!(notes.tags, ["fresh"]);
        assert!(notes.links.is_empty());
        assert!(
            tools
                .read_metadata(&request("Plan"))
                .unwrap()
                .backlinks
                .is_empty()
        );

        let broken = tools.read_metadata(&request("Broken")).unwrap();
        assert!(broken.frontmatter.is_empty());
        assert_eq!(broken.problems.len(), 1);
        assert_eq!(broken.stats.word_count, 2);
    }

    #[test]
    fn a_missing_note_names_the_closest_and_a_new_one_is_found() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Garden.md"), "").unwrap();
        let tools = KilnTools::new(Workspace::new(dir.path()).unwrap());
        let error = tools.read_metadata(&request("gardens")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "there is no note `gardens.md`; did you mean `Garden.md`?"
        );
        std::fs::write(dir.path().join("New.md"), "# New\n").unwrap();
        assert_eq!(
            tools.read_metadata(&request("New")).unwrap().headings.len(),
            1
        );
        assert!(
            tools
                .read_metadata(&request(".obsidian/x"))
                .unwrap_err()
                .is_invalid()
        );
    }

    /// Issue 25: a note's path argument may be its name, an alias, or a
    /// wikilink, resolved as a link from the root; results carry the real
    /// path; several notes with the name are an error listing them.
    #[test]
    fn a_note_is_found_by_its_name_an_alias_or_a_wikilink() {
        let (_dir, tools) = vault(&[
            (
                "en/User interface/Hotkeys.md",
                "---\naliases: [Keyboard shortcuts]\n---\n# Hotkeys\n## Custom hotkeys\n",
            ),
            ("en/Index.md", "# Index\n"),
            ("fr/Index.md", "# Index\n"),
            ("a/Twin.md", "---\naliases: [Same]\n---\n"),
            ("b/Other.md", "---\naliases: [same]\n---\n"),
            ("Colon.md", "---\naliases: [\"Q: and A\"]\n---\n"),
        ]);
        let path = |given: &str| tools.read_metadata(&request(given)).map(|m| m.path);
        for given in [
            "Hotkeys",
            "hotkeys",
            "Keyboard shortcuts",
            "keyboard SHORTCUTS",
            "[[Hotkeys]]",
            "[[Hotkeys#Custom hotkeys]]",
            "[[Keyboard shortcuts|the keys]]",
            "![[Hotkeys]]",
            "User interface/Hotkeys",
            "en/User interface/Hotkeys.md",
        ] {
            assert_eq!(
                path(given).unwrap(),
                "en/User interface/Hotkeys.md",
                "{given}"
            );
        }
        assert_eq!(path("Q: and A").unwrap(), "Colon.md");
        for (given, candidates) in [
            ("Index", "`en/Index.md`, `fr/Index.md`"),
            ("[[Index]]", "`en/Index.md`, `fr/Index.md`"),
            ("Same", "`a/Twin.md`, `b/Other.md`"),
        ] {
            let error = path(given).unwrap_err();
            assert!(error.is_invalid(), "{given}: {error}");
            let message = error.to_string();
            assert!(
                message.contains(&format!("names 2 notes: {candidates}")),
                "{message}"
            );
        }
        // A path to a note is that note, even when its stem is also a name.
        assert_eq!(path("en/Index").unwrap(), "en/Index.md");
        // Nothing by that name: the path's error, with suggestions.
        let error = path("[[Hotkey]]").unwrap_err();
        assert!(error.is_not_found(), "{error}");
        assert!(error.to_string().contains("Hotkey.md"), "{error}");
        // Every tool that takes a note's path: read_note too, with the real path.
        let read = tools
            .read_note(&ReadNoteRequest {
                path: "Keyboard shortcuts".into(),
                start_line: None,
                end_line: None,
                head: Some(1),
                tail: None,
            })
            .unwrap();
        assert_eq!(read.path, "en/User interface/Hotkeys.md");
        let preview = tools
            .preview_delete(&DeleteNoteRequest {
                path: "[[Hotkeys]]".into(),
                permanent: false,
            })
            .unwrap();
        assert_eq!(preview.path, "en/User interface/Hotkeys.md");
    }

    fn list(
        folder: Option<&str>,
        recursive: bool,
        limit: usize,
        cursor: Option<String>,
    ) -> ListNotesRequest {
        ListNotesRequest {
            folder: folder.map(str::to_owned),
            recursive,
            include_frontmatter: true,
            limit,
            cursor,
        }
    }

    #[test]
    fn notes_are_listed_by_folder_a_page_at_a_time() {
        let (_dir, tools) = vault(&[
            ("top.md", "one two"),
            ("p/a.md", "---\nk: v\n---\nthree words here"),
            ("p/b.md", ""),
            ("p/deep/c.md", "x"),
            (".trash/gone.md", "never"),
            ("p/not-a-note.txt", "no"),
        ]);
        let paths = |list: &NoteList| {
            list.notes
                .iter()
                .map(|n| n.path.clone())
                .collect::<Vec<_>>()
        };

        let all = tools.list_notes(&list(None, true, 200, None)).unwrap();
        assert_eq!(paths(&all), ["p/a.md", "p/b.md", "p/deep/c.md", "top.md"]);
        assert_eq!((all.total, all.next_cursor.is_none()), (4, true));
        assert_eq!(all.notes[0].word_count, 3);
        assert_eq!(all.notes[0].frontmatter.as_ref().unwrap()["k"], "v");

        let direct = tools
            .list_notes(&list(Some("p/"), false, 200, None))
            .unwrap();
        assert_eq!(paths(&direct), ["p/a.md", "p/b.md"]);

        let first = tools.list_notes(&list(Some("p"), true, 2, None)).unwrap();
        assert_eq!((paths(&first).len(), first.total), (2, 3));
        let rest = tools
            .list_notes(&list(Some("p"), true, 2, first.next_cursor))
            .unwrap();
        assert_eq!(paths(&rest), ["p/deep/c.md"]);
        assert!(rest.next_cursor.is_none());

        for (request, expected) in [
            (list(None, true, 0, None), "`limit` is 0"),
            (
                list(None, true, 200, Some("nope".into())),
                "`cursor` is not one",
            ),
            (list(Some("../x"), true, 200, None), "climbs above"),
            (list(Some(".trash"), true, 200, None), "hidden"),
        ] {
            let error = tools.list_notes(&request).unwrap_err();
            assert!(
                error.is_invalid() && error.to_string().contains(expected),
                "{error}"
            );
        }
    }

    #[test]
    fn a_call_that_outlasts_its_budget_is_told_to_retry() {
        let dir = tempfile::tempdir().unwrap();
        for n in 0..2_000 {
            std::fs::write(dir.path().join(format!("n{n}.md")), "# x\n[[y]] #t\n").unwrap();
        }
        let tools = KilnTools::new(Workspace::new(dir.path()).unwrap()).with_budget(Duration::ZERO);
        // The build walks and parses 2,000 files; a zero budget is over
        // before it can finish.
        let error = tools.read_metadata(&request("n1")).unwrap_err();
        assert!(matches!(error, KilnError::IndexBuilding { .. }), "{error}");
        assert!(error.retryable() && error.to_string().contains("retry"));
        // Given time, the same call is answered.
        let tools = tools.with_budget(DEFAULT_TOOL_BUDGET);
        assert_eq!(tools.read_metadata(&request("n1")).unwrap().path, "n1.md");
    }

    /// Issue 25: a whole-block `frontmatter` replace names, in the question
    /// and in the result, every property it removes or changes.
    #[test]
    fn a_frontmatter_replace_names_the_properties_it_removes_and_changes() {
        let (_dir, tools) = vault(&[(
            "Hotkeys.md",
            "---\naliases: [Keys]\ntags: [ui]\nstatus: draft\nowner: me\n---\nBody\n",
        )]);
        let request = UpdateNoteRequest {
            path: "Hotkeys".into(),
            content: None,
            frontmatter: Some(
                serde_json::json!({"status": "done", "owner": "me"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
            set_properties: None,
            remove_properties: None,
            edit: None,
            expected_sha256: None,
        };
        let preview = tools.preview_update(&request).unwrap();
        assert!(
            preview.summary().ends_with(
                "It removes 2 properties: aliases, tags. It changes 1 property: status."
            ),
            "{}",
            preview.summary()
        );
        let updated = tools.update_note(&request).unwrap();
        assert_eq!(
            (updated.removed_properties, updated.changed_properties),
            (
                vec!["aliases".to_owned(), "tags".to_owned()],
                vec!["status".to_owned()]
            )
        );
        // The body alone changes no property.
        let body = UpdateNoteRequest {
            content: Some("New\n".into()),
            frontmatter: None,
            ..request
        };
        let updated = tools.update_note(&body).unwrap();
        assert!(updated.removed_properties.is_empty() && updated.changed_properties.is_empty());
    }

    /// Issue 25: single properties set and removed in place, every other
    /// byte (comments, other properties, the body) kept; the question and
    /// the result say what changed.
    #[test]
    fn properties_are_set_and_removed_in_place() {
        let note = "---\n# kept comment\naliases: [Keys] # mine\ntags: [ui]\ndraft: true\n---\nBody [[x]]\n";
        let (dir, tools) = vault(&[("Hotkeys.md", note)]);
        let mut request = UpdateNoteRequest::new("[[Hotkeys]]");
        request.set_properties = Some(
            serde_json::json!({"tags": ["ui", "new tag"], "status": "done"})
                .as_object()
                .unwrap()
                .clone(),
        );
        request.remove_properties = Some(vec!["draft".into()]);
        let preview = tools.preview_update(&request).unwrap();
        assert_eq!(
            preview.summary(),
            "Change properties of `Hotkeys.md` (its content and its other properties are kept); it will \
             hold 2 words. It removes 1 property: draft. It changes 2 properties: tags, status."
        );
        let updated = tools.update_note(&request).unwrap();
        assert_eq!(updated.updated, ["properties"]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("Hotkeys.md")).unwrap(),
            "---\n# kept comment\naliases: [Keys] # mine\ntags:\n  - ui\n  - new tag\nstatus: done\n---\nBody [[x]]\n"
        );
        assert_eq!(
            (updated.removed_properties, updated.changed_properties),
            (
                vec!["draft".to_owned()],
                vec!["tags".to_owned(), "status".to_owned()]
            )
        );
        // Refused: with the whole block, a key both set and removed, a key
        // that is not there; nothing is written.
        let before = std::fs::read_to_string(dir.path().join("Hotkeys.md")).unwrap();
        let mut whole = UpdateNoteRequest::new("Hotkeys");
        whole.frontmatter = Some(serde_json::Map::new());
        whole.remove_properties = Some(vec!["tags".into()]);
        let mut both = UpdateNoteRequest::new("Hotkeys");
        both.set_properties = Some(serde_json::json!({"tags": 1}).as_object().unwrap().clone());
        both.remove_properties = Some(vec!["tags".into()]);
        let mut missing = UpdateNoteRequest::new("Hotkeys");
        missing.remove_properties = Some(vec!["tag".into()]);
        for (request, expected) in [
            (whole, "cannot come with `set_properties`"),
            (both, "both set and removed"),
            (missing, "no property `tag` to remove"),
        ] {
            let error = tools.update_note(&request).unwrap_err();
            assert!(error.is_invalid(), "{error}");
            assert!(error.to_string().contains(expected), "{error}");
        }
        assert_eq!(
            std::fs::read_to_string(dir.path().join("Hotkeys.md")).unwrap(),
            before
        );
    }

    /// Names an attacker would try: links climbing out, absolute paths, a
    /// link out of the root, empty and broken wikilinks, NUL, a huge name.
    /// Each is refused or not found, and nothing outside the root is read.
    #[test]
    fn a_hostile_name_reads_nothing_outside_the_root() {
        let top = tempfile::tempdir().unwrap();
        let root = top.path().join("vault");
        std::fs::create_dir_all(root.join("notes")).unwrap();
        std::fs::write(top.path().join("secret.md"), "SECRET\n").unwrap();
        std::fs::write(
            root.join("notes/Plan.md"),
            "---\naliases: [secret]\n---\nplan\n",
        )
        .unwrap();
        std::os::unix::fs::symlink(top.path().join("secret.md"), root.join("notes/out.md"))
            .unwrap();
        let tools = KilnTools::new(Workspace::new(&root).unwrap());
        let read = |path: &str| {
            tools.read_note(&ReadNoteRequest {
                path: path.to_owned(),
                start_line: None,
                end_line: None,
                head: None,
                tail: None,
            })
        };
        let huge = "x".repeat(100_000);
        for given in [
            "[[../secret]]",
            "[[../../secret]]",
            "../secret",
            "[[/secret]]",
            "out",
            "[[out]]",
            "notes/out",
            "[[]]",
            "[[",
            "]]",
            "![[#Heading]]",
            "[[#^block]]",
            "a\0b",
            "[[a\0b]]",
            huge.as_str(),
        ] {
            match read(given) {
                Ok(read) => panic!("{given:?} read {:?}", read.content),
                Err(error) => assert!(
                    error.is_invalid() || error.is_not_found(),
                    "{given:?}: {error:?}"
                ),
            }
        }
        // The alias `secret` is the note inside, not the file outside.
        assert_eq!(read("secret").unwrap().path, "notes/Plan.md");
    }

    fn listing(folder: &str, recursive: bool) -> ListNotesRequest {
        ListNotesRequest {
            folder: Some(folder.to_owned()),
            recursive,
            ..ListNotesRequest::default()
        }
    }

    #[test]
    fn a_listing_names_the_subfolders_with_their_note_counts() {
        let (dir, tools) = vault(&[
            ("top.md", ""),
            ("en/a.md", ""),
            ("en/guide/b.md", ""),
            ("en/guide/deep/c.md", ""),
            ("en/ref/d.md", ""),
            ("fr/e.md", ""),
            ("en/images/x.png", ""),
            (".obsidian/f.md", ""),
        ]);
        std::fs::create_dir(dir.path().join("en/empty")).unwrap();
        let root = tools.list_notes(&listing("", false)).unwrap();
        let folders = |list: &NoteList| -> Vec<(String, usize)> {
            list.folders
                .iter()
                .map(|folder| (folder.path.clone(), folder.notes))
                .collect()
        };
        assert_eq!(
            root.notes
                .iter()
                .map(|n| n.path.as_str())
                .collect::<Vec<_>>(),
            ["top.md"]
        );
        assert_eq!(folders(&root), [("en".into(), 4), ("fr".into(), 1)]);
        let en = tools.list_notes(&listing("en", false)).unwrap();
        assert_eq!(
            (en.total, folders(&en)),
            (1, vec![("en/guide".into(), 2), ("en/ref".into(), 1)])
        );
        // Recursive: every note beneath, and the same subfolders.
        let all = tools.list_notes(&listing("en", true)).unwrap();
        assert_eq!((all.total, folders(&all).len()), (4, 2));
        // A later page repeats no folder.
        let mut next = listing("", true);
        next.limit = 2;
        let first = tools.list_notes(&next).unwrap();
        assert_eq!(first.folders.len(), 2);
        next.cursor = first.next_cursor;
        assert!(tools.list_notes(&next).unwrap().folders.is_empty());
        // A folder without notes is an empty listing; one not there, an error.
        for empty in ["en/empty", "en/images"] {
            let list = tools.list_notes(&listing(empty, true)).unwrap();
            assert_eq!((list.total, list.folders.len()), (0, 0), "{empty}");
        }
        for missing in ["nope", "en/nope", "top.md"] {
            let error = tools.list_notes(&listing(missing, true)).unwrap_err();
            assert!(
                error.is_not_found()
                    || matches!(error, KilnError::File(FsError::NotAFolder { .. })),
                "{missing}: {error:?}"
            );
        }
        let error = tools
            .property_search(&search(serde_json::json!({"s": 1}), Some("nope")))
            .unwrap_err();
        assert!(error.is_not_found(), "{error:?}");
        let none = tools
            .property_search(&search(serde_json::json!({"s": 1}), Some("en")))
            .unwrap();
        assert_eq!(none.total, 0);
    }

    #[test]
    fn a_folder_written_nfd_on_disk_is_listed_by_its_nfc_name() {
        let (_dir, tools) = vault(&[("re\u{301}sume\u{301}/cv.md", "")]);
        let list = tools
            .list_notes(&listing("r\u{e9}sum\u{e9}", true))
            .unwrap();
        assert_eq!(list.total, 1);
        let empty = tools
            .property_search(&search(
                serde_json::json!({"s": 1}),
                Some("r\u{e9}sum\u{e9}"),
            ))
            .unwrap();
        assert_eq!(empty.total, 0);
    }

    fn search(properties: serde_json::Value, folder: Option<&str>) -> PropertySearchRequest {
        PropertySearchRequest {
            folder: folder.map(str::to_owned),
            limit: 1,
            ..PropertySearchRequest::new(properties.as_object().unwrap().clone())
        }
    }

    #[test]
    fn property_search_answers_from_the_index_beneath_a_folder() {
        use serde_json::json;

        let (_dir, tools) = vault(&[
            ("top.md", "---\nstatus: active\n---\n"),
            ("p/a.md", "---\nstatus: active\n---\n"),
            ("p/b.md", "---\nstatus: [done, active]\n---\n"),
            ("p/c.md", "---\nstatus: done\n---\n"),
            (".trash/d.md", "---\nstatus: active\n---\n"),
        ]);
        let first = tools
            .property_search(&search(json!({"status": "active"}), Some("p")))
            .unwrap();
        assert_eq!((first.notes[0].path.as_str(), first.total), ("p/a.md", 2));
        let mut next = search(json!({"status": "active"}), Some("p"));
        next.cursor = first.next_cursor;
        let rest = tools.property_search(&next).unwrap();
        assert_eq!(rest.notes[0].path, "p/b.md");
        assert!(rest.next_cursor.is_none());
        assert_eq!(
            rest.notes[0].frontmatter["status"],
            json!(["done", "active"])
        );
        let everywhere = tools
            .property_search(&search(json!({"status": "active"}), None))
            .unwrap();
        assert_eq!(everywhere.total, 3);

        for (request, expected) in [
            (search(json!({}), None), "`properties` is empty"),
            (search(json!({"s": {}}), None), "holds an object"),
            (search(json!({"s": 1}), Some(".trash")), "hidden"),
            (search(json!({"s": 1}), Some("../x")), "climbs above"),
        ] {
            let error = tools.property_search(&request).unwrap_err();
            assert!(
                error.is_invalid() && error.to_string().contains(expected),
                "{error}"
            );
        }
    }

    #[test]
    fn a_bad_property_search_is_refused_without_waiting_for_the_index() {
        let dir = tempfile::tempdir().unwrap();
        let tools = KilnTools::new(Workspace::new(dir.path()).unwrap()).with_budget(Duration::ZERO);
        let mut request = search(serde_json::json!({"s": 1}), None);
        request.limit = 0;
        let error = tools.property_search(&request).unwrap_err();
        assert!(matches!(error, KilnError::Properties(_)), "{error}");
    }
}
