//! An input's text: mapped from its file when it is large (docs/src/performance.md: a
//! gigabyte export is not copied into memory), read otherwise.
//!
//! What a mapped file guarantees (docs/src/reliability.md): the text is
//! validated as UTF-8 once, when mapped. A file that **shrinks** while
//! edgeaudit runs (truncated in place, `> export.json`) would make reading
//! the lost pages a bus error; [`guard`] turns that into an input error
//! naming the file, exit 2, instead of a crash. A file **rewritten in place**
//! (same inode) while it is read is caught when its size or modification
//! time changed ([`Text::changed`]), asked when loading ends and again after
//! locating, the last stage that reads the text. Editors, `git` and
//! exporters that write a new file and rename it over the old one do not
//! touch the mapped text at all.

// One of the few modules allowed `unsafe` (Cargo.toml denies it elsewhere):
// mapping files, releasing their pages, and the SIGBUS guard. Each block says why it is sound.
#![allow(unsafe_code)]

use std::ops::Deref;
use std::path::Path;

/// Files below this are read: mapping costs more than copying a small file.
pub const MAP_FROM: u64 = 1 << 20;

pub enum Text {
    Owned(String),
    Mapped {
        map: memmap2::Mmap,
        /// Past a byte-order mark.
        start: usize,
        /// Size and modification time when mapped.
        stamp: Stamp,
        /// How many bytes from the text's start are ASCII on its first line
        /// (no CR or LF): a position there is line 1, column offset + 1,
        /// known without reading the text again (a minified export, as the
        /// API writes one, is such a line from end to end).
        plain: usize,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Text::Owned(s) => write!(f, "Owned({} bytes)", s.len()),
            Text::Mapped { map, .. } => write!(f, "Mapped({} bytes)", map.len()),
        }
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            Text::Owned(s) => s,
            // SAFETY: validated as UTF-8 in `map` (from `start`); the map is
            // read-only, and a file changed under it is caught (module docs).
            Text::Mapped { map, start, .. } => unsafe { std::str::from_utf8_unchecked(map.get(*start..).unwrap_or_default()) },
        }
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text::Owned(s)
    }
}

impl Text {
    /// Maps `path` when it is a regular file of [`MAP_FROM`] to `bound`
    /// bytes of UTF-8 that needs no mending; `None` tells the caller to read
    /// it (and say what is wrong with it, if anything).
    pub fn map(path: &Path, name: &str, bound: u64) -> Option<Text> {
        let file = std::fs::File::open(path).ok()?;
        let meta = file.metadata().ok()?;
        if !meta.is_file() || meta.len() < MAP_FROM || meta.len() > bound {
            return None;
        }
        // SAFETY: read-only; a change of the file while mapped is guarded
        // against as the module docs say.
        let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
        guard::watch(&map, name);
        let start = if map.starts_with("\u{feff}".as_bytes()) { 3 } else { 0 };
        // Checked a window at a time, each released once checked (the parse
        // reads it again); a large file in a stretch a thread. Lone CRs are
        // mended in a copy; invalid UTF-8 is reported by the reader.
        let threads = crate::threads::Settings::get().threads_for(map.len());
        let plain = clean_utf8_on(&map, start, threads, |range| release_bytes(&map, range))?;
        Some(Text::Mapped {
            start,
            map,
            stamp: Stamp::of(&meta),
            plain,
        })
    }

    /// The line and column of the text's byte `offset` when the text up to
    /// there is plain (ASCII on one line): known without reading it.
    pub fn plain_position(&self, offset: usize) -> Option<(usize, usize)> {
        match self {
            Text::Mapped { plain, .. } if offset <= *plain => Some((1, offset + 1)),
            _ => None,
        }
    }

    /// Whether the mapped file at `path` changed since it was mapped.
    pub fn changed(&self, path: &Path) -> bool {
        match self {
            Text::Owned(_) => false,
            Text::Mapped { stamp, .. } => std::fs::metadata(path).map_or(true, |meta| Stamp::of(&meta) != *stamp),
        }
    }

    pub fn is_mapped(&self) -> bool {
        matches!(self, Text::Mapped { .. })
    }

    /// Gives the whole pages of a mapped text within `range` (offsets into
    /// the text) back to the system: a reader that has passed them says so,
    /// and the process no longer holds a gigabyte export it has read (the
    /// target of docs/src/performance.md: peak memory at most 1.3× the input). They stay in the page cache;
    /// read again, they are faulted in from the file. A read text does nothing.
    fn release(&self, range: std::ops::Range<usize>) {
        if let Text::Mapped { map, start, .. } = self {
            release_bytes(map, range.start + start..range.end + start);
        }
    }
}

/// [`Text::release`] by offsets into the mapped bytes.
fn release_bytes(map: &memmap2::Mmap, range: std::ops::Range<usize>) {
    let page = page_size();
    let from = range.start.div_ceil(page) * page;
    let to = (range.end.min(map.len()) / page) * page;
    if to > from {
        // SAFETY: the map is a read-only shared file mapping (memmap2's
        // `Mmap::map`), never written: MADV_DONTNEED only drops the pages
        // from this process, and a page read again is faulted in from the
        // file's page cache, the same bytes, so borrows into it on any
        // thread stay valid (a file changed under the map is the case the
        // module docs guard, released or not). Failing, it keeps the pages.
        let _ = unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, from, to - from) };
    }
}

fn page_size() -> usize {
    static PAGE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *PAGE.get_or_init(|| {
        // SAFETY: sysconf has no preconditions.
        usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
            .ok()
            .filter(|&p| p > 0)
            .unwrap_or(4096)
    })
}

/// Releases a mapped text's pages (see [`Text::release`]) behind a reader
/// that goes forward through it, a window at a time.
pub struct Releaser<'t> {
    text: &'t Text,
    released_to: usize,
    /// The furthest the reader has been: released up to there when it is done.
    reached: usize,
}

/// How far a reader gets ahead of what it has released: large enough that a
/// release costs nothing beside the reading (a call per 4 MiB), small enough
/// that the few readers' windows are no fixed cost that a small export
/// notices (16 MiB windows: 100k hostnames peaked at 72 MB, now 56 MB; the
/// million's time did not move).
const RELEASE_WINDOW: usize = 4 << 20;

impl<'t> Releaser<'t> {
    /// For a reader starting at `from` (it releases nothing before).
    pub fn new(text: &'t Text, from: usize) -> Releaser<'t> {
        Releaser {
            text,
            released_to: from,
            reached: from,
        }
    }

    /// The reader is at `offset`: what lies before is released once it is a
    /// window's worth. A reader that goes back only reads the pages again.
    pub fn reached(&mut self, offset: usize) {
        self.reached = self.reached.max(offset);
        if offset >= self.released_to.saturating_add(RELEASE_WINDOW) {
            self.text.release(self.released_to..offset);
            self.released_to = offset;
        }
    }
}

/// A reader that is done gives back the rest of what it read: readers of
/// parts smaller than a window (a thread's share of the findings) release
/// their part too.
impl Drop for Releaser<'_> {
    fn drop(&mut self) {
        if self.reached > self.released_to {
            self.text.release(self.released_to..self.reached);
        }
    }
}

/// When `bytes` are UTF-8 without a lone CR, how many bytes from `from` on
/// are plain (ASCII without a line end; [`Text::plain_position`]); `None`
/// otherwise. Checked in up to `threads` stretches on as many threads, a
/// window at a time; `checked` is told each range checked and found clean.
fn clean_utf8_on(bytes: &[u8], from: usize, threads: usize, checked: impl Fn(std::ops::Range<usize>) + Sync) -> Option<usize> {
    let stretches = char_stretches(bytes, threads);
    let judged = crate::threads::ordered_map(&stretches, threads, |stretch| {
        // The plain run within this stretch (from `from` on): it goes on
        // while every window is plain, and is then all the stretch gives.
        let mut plain = Plain {
            from: stretch.start.max(from),
            to: stretch.start.max(from),
            whole: true,
        };
        let mut at = stretch.start;
        while at < stretch.end {
            let end = (at + RELEASE_WINDOW).min(stretch.end);
            // simdutf8: the same verdict and error as the standard
            // library's, with AVX2 where the CPU has it (a tenth of its cost).
            let next = match simdutf8::compat::from_utf8(&bytes[at..end]) {
                Ok(_) => end,
                // A character cut by the window's end: checked with the next window.
                Err(e) if e.error_len().is_none() && end < stretch.end && e.valid_up_to() > 0 => at + e.valid_up_to(),
                Err(_) => return None,
            };
            let window = &bytes[at..next];
            let mut crs = memchr::memchr_iter(b'\r', window).peekable();
            let has_cr = crs.peek().is_some();
            // (A CR at a stretch's end is judged by the byte after it, in the next.)
            if crs.any(|cr| bytes.get(at + cr + 1) != Some(&b'\n')) {
                return None;
            }
            plain.extend(bytes, next, has_cr);
            checked(at..next);
            at = next;
        }
        Some(plain)
    });
    // The text's plain start: each stretch's run joined to the one before
    // while that one was plain to its end (every stretch's verdict counts).
    let mut plain_to = from;
    let mut open = true;
    for stretch in judged {
        let stretch = stretch?;
        if open && stretch.from == plain_to {
            plain_to = stretch.to;
            open = stretch.whole;
        } else {
            open = false;
        }
    }
    Some(plain_to - from)
}

/// A stretch's run of plain bytes, from its start (or the text's) on.
struct Plain {
    from: usize,
    to: usize,
    /// Whether the run reached every window checked so far.
    whole: bool,
}

impl Plain {
    /// A window checked up to `next`, with a CR in it or not: the run goes
    /// on over it when it is plain, and stops for good otherwise (a text of
    /// many lines, such as JSON Lines, is searched for LF once). A window is
    /// judged whole: a run may end before the last plain byte.
    fn extend(&mut self, bytes: &[u8], next: usize, has_cr: bool) {
        if !self.whole || next <= self.to {
            return;
        }
        let window = &bytes[self.to..next];
        // Valid UTF-8 with as many characters as bytes is ASCII.
        if !has_cr && memchr::memchr(b'\n', window).is_none() && bytecount::num_chars(window) == window.len() {
            self.to = next;
        } else {
            self.whole = false;
        }
    }
}

/// `bytes` cut into `n` stretches (fewer when short), each starting where a
/// character starts: never on a continuation byte, so a character is
/// checked whole in one stretch, and one cut short is invalid where it is.
fn char_stretches(bytes: &[u8], n: usize) -> Vec<std::ops::Range<usize>> {
    let n = n.max(1);
    let mut starts = vec![0];
    for k in 1..n {
        let mut at = (bytes.len() / n * k).max(starts[starts.len() - 1]);
        while bytes.get(at).is_some_and(|&b| b & 0xC0 == 0x80) {
            at += 1;
        }
        starts.push(at);
    }
    starts.push(bytes.len());
    starts.windows(2).map(|w| w[0]..w[1]).filter(|r| !r.is_empty()).collect()
}

/// A bus error on a mapped input (the file shrank under the map) becomes an
/// input error naming the file and exit 2; any other bus error stays what it
/// is.
mod guard {
    use std::sync::Once;
    use std::sync::atomic::{AtomicPtr, Ordering};

    /// A mapped range and the message for a fault inside it; leaked, and
    /// only ever prepended to, so the handler reads it without locks.
    struct Watched {
        start: usize,
        end: usize,
        message: Box<[u8]>,
        next: *mut Watched,
    }

    static WATCHED: AtomicPtr<Watched> = AtomicPtr::new(std::ptr::null_mut());
    static INSTALL: Once = Once::new();

    pub fn watch(map: &[u8], name: &str) {
        let start = map.as_ptr() as usize;
        let message = format!(
            "edgeaudit: error: {name}: the file shrank while it was being read (it changed during the run); nothing was reported. Check it again once it is written whole.\n"
        );
        let mut head = WATCHED.load(Ordering::Acquire);
        let node = Box::into_raw(Box::new(Watched {
            start,
            end: start + map.len(),
            message: message.into_bytes().into_boxed_slice(),
            next: head,
        }));
        // Prepended with a compare-and-swap: files mapped on two threads at
        // once both stay on the list (a load then a store could drop one).
        while let Err(now) = WATCHED.compare_exchange_weak(head, node, Ordering::AcqRel, Ordering::Acquire) {
            head = now;
            // SAFETY: `node` is not published yet (the exchange failed), so
            // this thread is its only user.
            unsafe { (*node).next = head };
        }
        INSTALL.call_once(install);
    }

    /// The ranges watched, newest first.
    #[cfg(test)]
    pub fn watched() -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut node = WATCHED.load(Ordering::Acquire);
        while !node.is_null() {
            // SAFETY: nodes are leaked, never freed or changed once published.
            let w = unsafe { &*node };
            out.push((w.start, w.end));
            node = w.next;
        }
        out
    }

    fn install() {
        // SAFETY: a zeroed sigaction with our handler and SA_SIGINFO is a
        // valid argument; the handler only reads leaked nodes, writes to
        // stderr and exits, all async-signal-safe.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_bus_error as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
        }
    }

    extern "C" fn on_bus_error(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers;
        // nodes are never freed.
        unsafe {
            let address = (*info).si_addr() as usize;
            let mut node = WATCHED.load(Ordering::Acquire);
            while !node.is_null() {
                let w = &*node;
                if (w.start..w.end).contains(&address) {
                    libc::write(2, w.message.as_ptr().cast(), w.message.len());
                    libc::_exit(2);
                }
                node = w.next;
            }
            // Not ours: the default action, when the instruction runs again.
            libc::signal(libc::SIGBUS, libc::SIG_DFL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files mapped on many threads at once are all watched.
    #[test]
    fn ranges_watched_from_many_threads_are_all_kept() {
        let buffers: Vec<Vec<u8>> = (0..64).map(|i| vec![0u8; 64 + i]).collect();
        std::thread::scope(|scope| {
            for (i, b) in buffers.iter().enumerate() {
                scope.spawn(move || guard::watch(b, &format!("file-{i}")));
            }
        });
        let watched = guard::watched();
        for b in &buffers {
            let range = (b.as_ptr() as usize, b.as_ptr() as usize + b.len());
            assert!(watched.contains(&range), "a range is lost");
        }
    }

    #[test]
    fn a_large_file_is_mapped_past_its_byte_order_mark_and_a_small_one_is_not() {
        let dir = tempfile::tempdir().expect("tempdir");
        let big = dir.path().join("big.json");
        let mut body = String::from("\u{feff}[");
        body.push_str(&" ".repeat(MAP_FROM as usize));
        body.push(']');
        std::fs::write(&big, &body).expect("write");
        let text = Text::map(&big, "big.json", u64::MAX).expect("mapped");
        assert!(text.is_mapped());
        assert_eq!(&*text, &body[3..]);
        assert!(!text.changed(&big));
        std::fs::write(&big, "[]").expect("rewrite");
        assert!(text.changed(&big), "a rewritten file is noticed");

        let small = dir.path().join("small.json");
        std::fs::write(&small, "[]").expect("write");
        assert!(Text::map(&small, "small.json", u64::MAX).is_none());
        assert!(Text::map(&big, "big.json", 1).is_none(), "over the bound: read, and refused there");
    }

    /// Resident kilobytes of the mapping that holds `text`, from /proc/self/smaps.
    fn resident_kb(text: &str) -> usize {
        let at = text.as_ptr() as usize;
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps");
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ')
                && let Some((start, end)) = range.split_once('-')
                && let (Ok(start), Ok(end)) = (usize::from_str_radix(start, 16), usize::from_str_radix(end, 16))
            {
                inside = (start..end).contains(&at);
            } else if inside && let Some(kb) = line.strip_prefix("Rss:") {
                return kb.trim().trim_end_matches("kB").trim().parse().expect("Rss");
            }
        }
        panic!("no mapping holds the text");
    }

    #[test]
    fn released_pages_leave_the_process_and_read_back_the_same() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("big.json");
        let body: String = (0..4 * MAP_FROM as usize / 16).map(|i| format!("{:015}\n", i)).collect();
        std::fs::write(&path, &body).expect("write");
        let text = Text::map(&path, "big.json", u64::MAX).expect("mapped");
        let sum = |t: &str| t.bytes().map(u64::from).sum::<u64>();
        let whole = sum(&text);
        let mapped_kb = text.len() / 1024;
        assert!(resident_kb(&text) >= mapped_kb - 8, "read, the text is resident");

        let mut releaser = Releaser::new(&text, 0);
        releaser.reached(text.len() / 2);
        assert!(resident_kb(&text) >= mapped_kb - 8, "less than a window read: nothing released yet");
        drop(releaser);
        let kb = resident_kb(&text);
        assert!(
            kb >= mapped_kb / 2 - 8 && kb <= mapped_kb / 2 + 8,
            "done, the reader released what it read: {kb} kB of {mapped_kb}"
        );
        text.release(0..text.len());
        assert!(resident_kb(&text) <= 8, "released: {} kB still resident", resident_kb(&text));
        assert_eq!(sum(&text), whole, "read again from the file");
        assert_eq!(&*text, body.as_str());
        // A part: only its whole pages go.
        text.release(100..text.len() / 2);
        let kb = resident_kb(&text);
        assert!(kb >= mapped_kb / 2 - 8 && kb <= mapped_kb / 2 + 8, "{kb} kB of {mapped_kb}");
        // Read text has nothing to release.
        Text::from(body.clone()).release(0..body.len());
    }

    #[test]
    fn a_large_file_with_lone_carriage_returns_or_bad_utf8_is_read_instead() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("cr.json");
        let mut body = vec![b' '; MAP_FROM as usize];
        body[10] = b'\r';
        std::fs::write(&path, &body).expect("write");
        assert!(Text::map(&path, "cr.json", u64::MAX).is_none());
        body[10] = b' ';
        body[20] = 0xff;
        std::fs::write(&path, &body).expect("write");
        assert!(Text::map(&path, "cr.json", u64::MAX).is_none());
        body[20] = b' ';
        std::fs::write(&path, &body).expect("write");
        assert!(Text::map(&path, "cr.json", u64::MAX).is_some());
    }

    #[test]
    fn utf8_and_line_ends_are_checked_across_the_windows_it_is_checked_in() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("wide.json");
        let window = RELEASE_WINDOW;
        let mut body = vec![b' '; 2 * window + 10];
        // A two-byte character across the first window's end, which moves the
        // second window to start at its first byte (`window - 1`); CRLF
        // across that second window's end (its last byte is `2 * window - 2`).
        body[window - 1..window + 1].copy_from_slice("é".as_bytes());
        body[2 * window - 2..2 * window].copy_from_slice(b"\r\n");
        // On one thread, whatever the machine: on more, the file is cut into
        // stretches and the windows fall elsewhere.
        let one_thread = |body: &[u8]| clean_utf8_on(body, 0, 1, |_| {}).is_some();
        assert!(one_thread(&body));
        std::fs::write(&path, &body).expect("write");
        let text = Text::map(&path, "wide.json", u64::MAX).expect("clean: mapped");
        assert_eq!(text.as_bytes(), &body[..]);
        body[2 * window - 1] = b' ';
        assert!(!one_thread(&body), "a lone CR at a window's end");
        std::fs::write(&path, &body).expect("write");
        assert!(Text::map(&path, "wide.json", u64::MAX).is_none(), "a lone CR at a window's end");
        body[2 * window - 1] = b'\n';
        body[window] = b' ';
        assert!(!one_thread(&body), "a cut character");
        std::fs::write(&path, &body).expect("write");
        assert!(Text::map(&path, "wide.json", u64::MAX).is_none(), "a cut character");
    }

    #[test]
    fn a_mapped_file_that_shrinks_is_an_input_error_naming_it_not_a_crash() {
        // The fault ends the process, so it happens in a child: this test run again.
        if let Some(path) = std::env::var_os("EDGEAUDIT_SHRINK_CHILD") {
            let path = std::path::PathBuf::from(path);
            let text = Text::map(&path, "exports/big.json", u64::MAX).expect("mapped");
            std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_len(0))
                .expect("truncate");
            // Reading past the new end: a bus error, turned into exit 2.
            let last = text.as_bytes()[text.len() - 1];
            println!("read {last} from a truncated file");
            return;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("big.json");
        std::fs::write(&path, vec![b' '; 2 * MAP_FROM as usize]).expect("write");
        let out = std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "text::mapped::tests::a_mapped_file_that_shrinks_is_an_input_error_naming_it_not_a_crash",
                "--nocapture",
            ])
            .env("EDGEAUDIT_SHRINK_CHILD", &path)
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("edgeaudit: error: exports/big.json: the file shrank while it was being read"),
            "{stderr}"
        );
    }
}

#[cfg(test)]
mod stretch_tests {
    use super::*;
    use proptest::strategy::Strategy;

    fn clean(bytes: &[u8], threads: usize) -> bool {
        let checked = std::sync::Mutex::new(Vec::new());
        let plain = clean_utf8_on(bytes, 0, threads, |range| checked.lock().unwrap().push(range));
        if let Some(plain) = plain {
            // What it calls plain is: ASCII on the first line.
            assert!(bytes[..plain].iter().all(|&b| b.is_ascii() && b != b'\n' && b != b'\r'), "{plain}");
            // Every byte was checked, once.
            let mut ranges = checked.into_inner().unwrap();
            ranges.sort_by_key(|r| r.start);
            assert_eq!(ranges.iter().map(|r| r.len()).sum::<usize>(), bytes.len());
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
        }
        plain.is_some()
    }

    /// How many bytes from `from` the check calls plain, on `threads` threads.
    fn plain(bytes: &[u8], from: usize, threads: usize) -> Option<usize> {
        clean_utf8_on(bytes, from, threads, |_| {})
    }

    #[test]
    fn a_plain_text_is_plain_to_its_end_and_a_line_end_or_other_character_stops_it() {
        let line = b"{\"result\":[{\"id\":\"a\"}]}".repeat(50);
        for threads in 1..6 {
            assert_eq!(plain(&line, 0, threads), Some(line.len()), "{threads}");
            // From past a byte-order mark.
            let marked = ["\u{feff}".as_bytes(), &line].concat();
            assert_eq!(plain(&marked, 3, threads), Some(line.len()), "{threads}");
            // A line end or a character beyond ASCII anywhere: plain before it at most.
            for stop in ["\n", "\r\n", "é"] {
                let at = line.len() / 3;
                let stopped = [&line[..at], stop.as_bytes(), &line[at..]].concat();
                let plain = plain(&stopped, 0, threads).expect("clean");
                assert!(plain <= at, "{stop:?} on {threads}: {plain}");
            }
        }
        // One window on one thread: a line end anywhere leaves nothing plain.
        assert_eq!(plain(b"ab\ncd", 0, 1), Some(0));
        assert_eq!(plain(b"", 0, 1), Some(0));
    }

    #[test]
    fn stretches_on_threads_judge_as_one_pass() {
        // Each text with its one-thread verdict, checked on 1 to 7 threads so
        // the cuts fall everywhere, inside characters and between CR and LF.
        let long = "aé🙂b✓".repeat(9);
        let cases: [(&[u8], bool); 7] = [
            (long.as_bytes(), true),
            (b"ab\r\ncd\r\n\r\nef", true),
            (b"ab\rcd", false),
            (b"abcd\r", false),
            (b"ab\xF0\x9F\x99cd", false),
            (b"ab\x80\x80\x80\x80\x80cd", false),
            (b"", true),
        ];
        for (bytes, expected) in cases {
            for threads in 1..8 {
                assert_eq!(
                    clean(bytes, threads),
                    expected,
                    "{:?} on {threads} threads",
                    String::from_utf8_lossy(bytes)
                );
            }
        }
    }

    proptest::proptest! {
        /// The SIMD check (simdutf8) judges as the standard library does,
        /// on any bytes (mostly text, with stray bytes of every kind).
        #[test]
        fn any_bytes_are_judged_as_the_standard_library_judges_them(
            pieces in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(vec!["a", "é", "🙂", "✓", "\r\n", "\n", " ", "abcdefghijklmnopqrstuvwxyz0123456789"])
                        .prop_map(|s| s.as_bytes().to_vec()),
                    proptest::prelude::any::<u8>().prop_map(|b| vec![b]),
                ],
                0..200,
            ),
            threads in 1usize..4,
        ) {
            let bytes = pieces.concat();
            let lone_cr = bytes.iter().enumerate().any(|(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
            let expected = std::str::from_utf8(&bytes).is_ok() && !lone_cr;
            proptest::prop_assert_eq!(clean(&bytes, threads), expected);
        }
    }

    #[test]
    fn stretches_start_where_characters_start() {
        let text = "é".repeat(10);
        for n in 1..25 {
            let stretches = char_stretches(text.as_bytes(), n);
            assert!(
                stretches
                    .iter()
                    .all(|r| text.is_char_boundary(r.start) && text.is_char_boundary(r.end)),
                "{n}"
            );
            assert_eq!(stretches.first().map(|r| r.start), Some(0));
            assert_eq!(stretches.last().map(|r| r.end), Some(text.len()));
        }
    }
}
