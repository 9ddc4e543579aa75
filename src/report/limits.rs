//! What the consumers of our reports accept, and how a report stays within
//! it. GitHub code scanning ("SARIF support for code scanning", limits table):
//! a run with more than 25,000 results is rejected (only the top 5,000 are
//! shown); 20 runs per file; 25,000 rules per run; 1,000 locations per result;
//! 20 tags per rule; a file of at most 10 MB gzip-compressed.

use crate::findings::Severity;

/// Results per SARIF run that code scanning accepts.
pub const SARIF_MAX_RESULTS: usize = 25_000;
/// Results per run that code scanning shows.
pub const SARIF_SHOWN_RESULTS: usize = 5_000;
/// Tags per rule that code scanning accepts.
pub const SARIF_MAX_TAGS: usize = 20;
/// Characters of a rule's short or full description code scanning accepts.
pub const SARIF_MAX_DESCRIPTION: usize = 1024;
/// The largest SARIF file code scanning accepts, gzip-compressed.
pub const SARIF_MAX_GZIP_BYTES: u64 = 10 * 1000 * 1000;

/// Which findings fit in `max`: all when they fit; else the most severe
/// first (every error before any warning before any note), and within a
/// severity the first in report order. `None` when all fit.
pub fn most_severe<T>(items: &[T], severity: impl Fn(&T) -> Severity, max: usize) -> Option<Vec<bool>> {
    if items.len() <= max {
        return None;
    }
    let mut counts = [0usize; 3];
    for item in items {
        counts[severity(item).rank()] += 1;
    }
    let mut room = max;
    let mut budget = [0usize; 3];
    for (slot, count) in budget.iter_mut().zip(counts) {
        *slot = count.min(room);
        room -= *slot;
    }
    Some(
        items
            .iter()
            .map(|item| {
                let left = &mut budget[severity(item).rank()];
                let keep = *left > 0;
                *left = left.saturating_sub(1);
                keep
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use Severity::{Error as E, Note as N, Warning as W};

    #[test]
    fn keeps_the_most_severe_first_in_report_order() {
        let all = [N, W, E, W, N, E, W];
        assert_eq!(most_severe(&all, |s| *s, 7), None);
        let kept = |max| -> Vec<Severity> {
            let mask = most_severe(&all, |s| *s, max).expect("over the limit");
            all.iter().zip(mask).filter(|(_, k)| *k).map(|(s, _)| *s).collect()
        };
        assert_eq!(kept(2), vec![E, E]);
        assert_eq!(kept(4), vec![W, E, W, E], "the first two warnings, in order");
        assert_eq!(kept(6), vec![N, W, E, W, E, W]);
        assert_eq!(kept(0), Vec::<Severity>::new());
    }
}
