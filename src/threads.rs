//! Work spread over the threads `EDGEAUDIT_THREADS` allows, with results
//! in the order of the work: output never depends on the thread count.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

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

/// `f` of each item, in the items' order, computed on up to `threads`
/// threads (each takes the next item not yet taken).
pub fn ordered_map<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { return };
            let result = f(item);
            if let Some(slot) = results.get(i) {
                *slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(result);
            }
        }
    };
    spread(threads, &work, work);
    // Every slot was filled: each index below `items.len()` was taken once.
    results
        .into_iter()
        .filter_map(|slot| slot.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner()))
        .collect()
}

/// `f` on consecutive chunks of `items`, on up to `threads` threads.
pub fn for_each_chunk_mut<T: Send>(items: &mut [T], threads: usize, f: impl Fn(&mut [T]) + Sync) {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return f(items);
    }
    // A few chunks a thread, so that one slow chunk does not hold the rest;
    // each handed out once, through a slot its taker empties.
    let size = items.len().div_ceil(threads * 4);
    let chunks: Vec<Mutex<Option<&mut [T]>>> = items.chunks_mut(size).map(|chunk| Mutex::new(Some(chunk))).collect();
    ordered_map(&chunks, threads, |slot| {
        if let Some(chunk) = slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take() {
            f(chunk);
        }
    });
}

/// Runs `helper` on up to `threads - 1` other threads (fewer when the system
/// gives no more: the work is the same) while `here` runs on this one, and
/// returns once all are done.
pub fn spread<R>(threads: usize, helper: &(impl Fn() + Sync), here: impl FnOnce() -> R) -> R {
    std::thread::scope(|scope| {
        for _ in 1..threads {
            if std::thread::Builder::new().spawn_scoped(scope, helper).is_err() {
                break;
            }
        }
        here()
    })
}

/// `render` of each item `items()` yields, handed to `consume` in the
/// items' order, rendered on up to `renderers` threads. Renderer `k` of `n`
/// renders batches k, k + n, … of [`BATCH`] consecutive items, and the
/// batches are taken back round-robin (one item at a time, the threads spent
/// a tenth of a large report waking each other). A renderer whose thread
/// cannot be had renders its batches here, when they are due.
pub fn rendered_in_order<I: Iterator, T: Send, R>(
    items: &(impl Fn() -> I + Sync),
    renderers: usize,
    render: &(impl Fn(I::Item) -> T + Sync),
    consume: impl FnOnce(&mut dyn Iterator<Item = T>) -> R,
) -> R {
    // One renderer is this thread (`EDGEAUDIT_THREADS=1` runs every stage on one).
    let spawnable = if renderers <= 1 { 0 } else { usize::MAX };
    rendered_on(items, renderers, render, consume, spawnable)
}

const BATCH: usize = 256;

/// Where renderer `k`'s batches come from.
enum Batches<'a, T> {
    Thread(std::sync::mpsc::Receiver<Vec<T>>),
    Here(Box<dyn Iterator<Item = Vec<T>> + 'a>),
}

/// [`rendered_in_order`] with at most `spawnable` threads to be had (tests
/// take the fallback this way).
fn rendered_on<I: Iterator, T: Send, R>(
    items: &(impl Fn() -> I + Sync),
    renderers: usize,
    render: &(impl Fn(I::Item) -> T + Sync),
    consume: impl FnOnce(&mut dyn Iterator<Item = T>) -> R,
    spawnable: usize,
) -> R {
    let renderers = renderers.max(1);
    let share = move |k: usize| {
        let mut mine = items()
            .enumerate()
            .filter(move |(n, _)| (n / BATCH) % renderers == k)
            .map(|(_, item)| item);
        std::iter::from_fn(move || {
            let batch: Vec<T> = mine.by_ref().take(BATCH).map(render).collect();
            (!batch.is_empty()).then_some(batch)
        })
    };
    std::thread::scope(|scope| {
        let mut sources: Vec<Batches<'_, T>> = (0..renderers)
            .map(|k| {
                let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<T>>(4);
                let spawned = k < spawnable
                    && std::thread::Builder::new()
                        .spawn_scoped(scope, move || {
                            for batch in share(k) {
                                // The receiver is gone when writing failed: stop quietly.
                                if tx.send(batch).is_err() {
                                    return;
                                }
                            }
                        })
                        .is_ok();
                if spawned {
                    Batches::Thread(rx)
                } else {
                    Batches::Here(Box::new(share(k)))
                }
            })
            .collect();
        // A renderer's batches end after its last; then the others' have too.
        let mut turn = 0;
        let mut batches = std::iter::from_fn(|| {
            let source = sources.get_mut(turn % renderers)?;
            turn += 1;
            match source {
                Batches::Thread(rx) => rx.recv().ok(),
                Batches::Here(batches) => batches.next(),
            }
        });
        consume(&mut (&mut batches).flatten())
    })
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
    fn every_item_is_visited_once() {
        for threads in 1..5 {
            let mut items = vec![0u32; 1001];
            super::for_each_chunk_mut(&mut items, threads, |chunk| chunk.iter_mut().for_each(|i| *i += 1));
            assert!(items.iter().all(|&i| i == 1), "{threads} threads");
        }
        super::for_each_chunk_mut(&mut [] as &mut [u8], 3, |_| {});
    }

    #[test]
    fn rendered_items_come_back_in_order_whatever_threads_can_be_had() {
        let items: Vec<usize> = (0..5 * super::BATCH + 17).collect();
        let doubled: Vec<usize> = items.iter().map(|i| i * 2).collect();
        for renderers in 1..5 {
            for spawnable in [0, 1, renderers - 1, usize::MAX] {
                let out = super::rendered_on(&|| items.iter(), renderers, &|&i| i * 2, |it| it.collect::<Vec<_>>(), spawnable);
                assert_eq!(out, doubled, "{renderers} renderers, {spawnable} threads to be had");
            }
        }
        let none: Vec<u8> = super::rendered_in_order(&|| std::iter::empty::<u8>(), 3, &|b| b, |it| it.collect());
        assert!(none.is_empty());
        // A consumer that stops early stops the renderers.
        let first = super::rendered_in_order(&|| items.iter(), 3, &|&i| i, |it| it.take(3).collect::<Vec<_>>());
        assert_eq!(first, vec![0, 1, 2]);
    }
}
