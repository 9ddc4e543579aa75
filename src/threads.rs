//! Work spread over the threads `EDGEAUDIT_THREADS` allows, with results
//! in the order of the work: output never depends on the thread count. The
//! threads are rayon's; this module only sizes its pools and keeps each
//! stage's results in order.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;

/// `EDGEAUDIT_THREADS`, else the cores this process may use (cgroup quotas
/// and affinity included); `1` makes every stage run on one thread.
pub fn count() -> usize {
    static COUNT: OnceLock<usize> = OnceLock::new();
    *COUNT.get_or_init(|| {
        std::env::var("EDGEAUDIT_THREADS")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    })
}

/// A rayon pool of `threads` workers, made once per size: a stage asks for
/// the threads it may use (tests ask for several counts in one process).
/// `None` when the system gives no thread: the caller works alone.
fn pool(threads: usize) -> Option<Arc<rayon::ThreadPool>> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let mut pools = POOLS
        .get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(pool) = pools.get(&threads) {
        return Some(pool.clone());
    }
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|k| format!("edgeaudit-{k}"))
            .build()
            .ok()?,
    );
    pools.insert(threads, pool.clone());
    Some(pool)
}

/// `f` of each item, in the items' order, computed on up to `threads`
/// threads.
pub fn ordered_map<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = threads.clamp(1, items.len().max(1));
    match pool(threads).filter(|_| threads > 1) {
        Some(pool) => pool.install(|| items.par_iter().map(&f).collect()),
        None => items.iter().map(f).collect(),
    }
}

/// `f` on consecutive chunks of `items`, on up to `threads` threads (a few
/// chunks a thread, so that one slow chunk does not hold the rest); what
/// each gives back, in the chunks' order.
pub fn map_chunks_mut<T: Send, R: Send>(items: &mut [T], threads: usize, f: impl Fn(&mut [T]) -> R + Sync) -> Vec<R> {
    let threads = threads.clamp(1, items.len().max(1));
    match pool(threads).filter(|_| threads > 1) {
        Some(pool) => {
            let size = items.len().div_ceil(threads * 4);
            pool.install(|| items.par_chunks_mut(size).map(&f).collect())
        }
        None => vec![f(items)],
    }
}

/// `items` sorted on every thread (`count`) when they are many: a million
/// keys are sorted while nothing else runs.
pub fn sort_unstable<T: Ord + Send>(items: &mut [T]) {
    let threads = count();
    match pool(threads).filter(|_| threads > 1 && items.len() >= 1 << 16) {
        Some(pool) => pool.install(|| items.par_sort_unstable()),
        None => items.sort_unstable(),
    }
}

/// `a` and `b`, on two threads when `count` allows it (else one after the
/// other): two pieces of one stage that need nothing of each other.
pub fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    match pool(2).filter(|_| count() > 1) {
        Some(pool) => pool.install(|| rayon::join(a, b)),
        None => (a(), b()),
    }
}

/// Runs `helper` on `threads - 1` of the pool's threads while `here` runs
/// on this one, and returns once all are done (`here` does the work alone
/// when no thread can be had: the work is the same).
pub fn spread<R>(threads: usize, helper: &(impl Fn() + Sync), here: impl FnOnce() -> R) -> R {
    // The stage's pool (of `threads`, the size every stage asks for): one
    // set of threads for the whole run; a worker the helpers leave idle sleeps.
    match pool(threads).filter(|_| threads > 1) {
        Some(pool) => pool.in_place_scope(|scope| {
            for _ in 1..threads {
                scope.spawn(|_| helper());
            }
            here()
        }),
        None => here(),
    }
}

/// Findings rendered in windows of this many per renderer: a few windows of
/// rendered text are held at once.
pub const BATCH: usize = 256;

/// `render` of each item `items()` yields, handed to `consume` in the
/// items' order: windows of `batch` items per renderer are rendered on up to
/// `renderers` threads (a rayon parallel map, which keeps order) while this
/// thread consumes the windows already rendered; at most a few windows are
/// held at once.
pub fn rendered_in_order<I, T, R>(
    items: &(impl Fn() -> I + Sync),
    renderers: usize,
    batch: usize,
    render: &(impl Fn(I::Item) -> T + Sync),
    consume: impl FnOnce(&mut dyn Iterator<Item = T>) -> R,
) -> R
where
    I: Iterator,
    I::Item: Send,
    T: Send,
{
    let Some(pool) = pool(renderers).filter(|_| renderers > 1) else {
        // One renderer is this thread (`EDGEAUDIT_THREADS=1` runs every stage on one).
        return consume(&mut items().map(render));
    };
    let window = batch.max(1) * renderers;
    pool.in_place_scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<T>>(2);
        scope.spawn(move |_| {
            let mut items = items();
            loop {
                let batch: Vec<I::Item> = items.by_ref().take(window).collect();
                if batch.is_empty() {
                    return;
                }
                let rendered: Vec<T> = batch.into_par_iter().map(render).collect();
                // The receiver is gone when consuming stopped (a write failed): stop quietly.
                if tx.send(rendered).is_err() {
                    return;
                }
            }
        });
        consume(&mut rx.into_iter().flatten())
    })
}

/// Frees `value` on a thread of its own, so that the caller goes on (a
/// process that ends meanwhile leaves the rest to the system). Freed here
/// when no thread can be had.
pub fn drop_beside<T: Send + 'static>(value: T) {
    let _ = std::thread::Builder::new().name("edgeaudit-free".into()).spawn(move || drop(value));
}

/// How large inputs are spread over the threads: the JSON parse splits a
/// file from `from_bytes` into parts of about `part_bytes`, and passes over
/// a file that large (locating, checking mapped text) use every thread.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub threads: usize,
    /// Files at least this long are split.
    pub from_bytes: usize,
    /// About this many bytes of elements make a part.
    pub part_bytes: usize,
}

/// Files smaller than this are parsed in one pass: threads cost more than they save.
const FROM_BYTES: usize = 8 << 20;
const PART_BYTES: usize = 1 << 20;
impl Settings {
    /// `EDGEAUDIT_THREADS` (see `threads::count`) and, for tests,
    /// `EDGEAUDIT_SPLIT_BYTES` (split files from that size into parts of
    /// that size: `1` splits every list into one-element parts).
    pub fn get() -> Settings {
        static SETTINGS: OnceLock<Settings> = OnceLock::new();
        *SETTINGS.get_or_init(|| {
            let split = std::env::var("EDGEAUDIT_SPLIT_BYTES")
                .ok()
                .and_then(|v| v.trim().parse::<usize>().ok())
                .filter(|&n| n > 0);
            let (from_bytes, part_bytes) = split.map_or((FROM_BYTES, PART_BYTES), |n| (n, n));
            Settings {
                threads: crate::threads::count(),
                from_bytes,
                part_bytes,
            }
        })
    }

    pub fn applies(&self, len: usize) -> bool {
        self.threads > 1 && len >= self.from_bytes
    }

    /// The threads for a pass over a file of `len` bytes: all of them for a
    /// file as large as the parse splits, one for the rest (a thread per
    /// small file costs more than it saves).
    pub fn threads_for(&self, len: usize) -> usize {
        if self.applies(len) { self.threads } else { 1 }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_the_order_of_the_items() {
        let items: Vec<u64> = (0..1000).collect();
        for threads in 1..5 {
            let squares = super::ordered_map(&items, threads, |&i| {
                // Uneven work, so threads finish out of order.
                std::thread::yield_now();
                i * i
            });
            assert_eq!(squares, items.iter().map(|i| i * i).collect::<Vec<_>>(), "{threads} threads");
        }
        assert!(super::ordered_map(&[] as &[u8], 4, |&b| b).is_empty());
    }

    #[test]
    fn every_item_is_visited_once_and_chunks_come_back_in_order() {
        for threads in 1..5 {
            let mut items: Vec<u32> = (0..1001).collect();
            let chunks = super::map_chunks_mut(&mut items, threads, |chunk| {
                chunk.iter_mut().for_each(|i| *i += 1);
                chunk.to_vec()
            });
            assert_eq!(items, (1..1002).collect::<Vec<u32>>(), "{threads} threads: each item once");
            assert_eq!(chunks.concat(), items, "{threads} threads: the chunks' results in order");
        }
        assert_eq!(super::map_chunks_mut(&mut [] as &mut [u8], 3, |c| c.len()), vec![0]);
    }

    #[test]
    fn a_parallel_sort_sorts() {
        let mut items: Vec<u64> = (0..100_000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7).collect();
        let mut expected = items.clone();
        expected.sort_unstable();
        super::sort_unstable(&mut items);
        assert_eq!(items, expected);
    }

    #[test]
    fn helpers_and_this_thread_all_run() {
        for threads in 1..5 {
            let ran = std::sync::atomic::AtomicUsize::new(0);
            let here = super::spread(
                threads,
                &|| {
                    ran.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                },
                || 7,
            );
            assert_eq!((here, ran.load(std::sync::atomic::Ordering::SeqCst)), (7, threads - 1));
        }
    }

    #[test]
    fn rendered_items_come_back_in_order() {
        let items: Vec<usize> = (0..5 * super::BATCH + 17).collect();
        let doubled: Vec<usize> = items.iter().map(|i| i * 2).collect();
        for renderers in 1..5 {
            let out = super::rendered_in_order(&|| items.iter(), renderers, super::BATCH, &|&i| i * 2, |it| it.collect::<Vec<_>>());
            assert_eq!(out, doubled, "{renderers} renderers");
        }
        let none: Vec<u8> = super::rendered_in_order(&|| std::iter::empty::<u8>(), 3, 1, &|b| b, |it| it.collect());
        assert!(none.is_empty());
        // A consumer that stops early stops the renderers.
        let first = super::rendered_in_order(&|| items.iter(), 3, 5, &|&i| i, |it| it.take(3).collect::<Vec<_>>());
        assert_eq!(first, vec![0, 1, 2]);
    }
}
