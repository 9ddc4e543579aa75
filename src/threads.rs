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
    spread(threads, &work);
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

/// Runs `work` on this thread and up to `threads - 1` others (fewer when the
/// system gives no more: `work` takes whatever is left).
fn spread(threads: usize, work: &(impl Fn() + Sync)) {
    std::thread::scope(|scope| {
        for _ in 1..threads {
            if std::thread::Builder::new().spawn_scoped(scope, work).is_err() {
                break;
            }
        }
        work();
    });
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
}
