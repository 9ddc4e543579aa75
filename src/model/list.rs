//! Completeness of API lists (docs/src/inputs.md): the verdicts about pools and
//! policies are only true when every record of the account was loaded, and a
//! list's `result_info` says how many there are.

use super::Kind;
use super::certificate::{ZoneKey, zone_of};
use super::fields::ListFields;
use super::origin::RecordOrigin;

/// One page of an API list, as its envelope's paging describes it.
#[derive(Debug, Clone)]
pub struct Page {
    /// What the page's records are.
    pub kind: Kind,
    /// The envelope.
    pub origin: RecordOrigin,
    /// Where the envelope keeps its paging.
    pub fields: &'static ListFields,
    /// Records loaded from this page.
    pub records: usize,
    pub page: Option<u64>,
    pub per_page: Option<u64>,
    pub total_count: Option<u64>,
    pub total_pages: Option<u64>,
}

/// One API list, as its pages say it is and as far as it was loaded.
#[derive(Debug, Clone)]
pub struct ExportList {
    /// What the list's records are.
    pub kind: Kind,
    /// Its identity in findings: the kind of its records, and the zone's id
    /// when a bundle names it (`custom_hostname@9a78…`).
    pub id: String,
    /// In words: `custom hostnames of example.com`.
    pub name: String,
    /// The bundle zone it was listed under, if any.
    pub zone: Option<ZoneKey>,
    /// The envelope of its first page (findings point at its paging).
    pub origin: RecordOrigin,
    pub fields: &'static ListFields,
    /// Records loaded across its pages, and pages given.
    pub loaded: u64,
    pub pages: u64,
    /// What `result_info` says exists; `None` when no page says.
    pub total_count: Option<u64>,
    pub total_pages: Option<u64>,
}

impl ExportList {
    /// Whether everything the API said exists was loaded.
    pub fn is_complete(&self) -> bool {
        self.total_count.is_none_or(|n| n <= self.loaded) && self.total_pages.is_none_or(|n| n <= self.pages)
    }
}

/// Names each list by its zone, when a bundle names the zone.
pub fn name_by_zone(lists: &mut [ExportList], zones: &[super::certificate::Zone]) {
    for list in lists {
        let Some(zone) = list.zone.and_then(|key| zones.iter().find(|z| z.key == key)) else {
            continue;
        };
        if let Some(id) = &zone.id {
            list.id = format!("{}@{id}", list.kind.as_str());
        }
        if let Some(name) = zone.name.as_ref().or(zone.id.as_ref()) {
            list.name = format!("{} of {name}", list.name);
        }
    }
}

/// The lists the pages belong to. Pages of one list share their kind, zone,
/// `total_count` and `per_page` and differ in `page`; a page given twice
/// (the same file loaded twice, say) counts once.
pub fn lists(pages: &[Page]) -> Vec<ExportList> {
    type Key = (Kind, Option<ZoneKey>, Option<u64>, Option<u64>);
    let mut groups: Vec<(Key, Vec<&Page>)> = Vec::new();
    for page in pages {
        let key = (page.kind, zone_of(&page.origin), page.total_count, page.per_page);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(page),
            None => groups.push((key, vec![page])),
        }
    }
    groups
        .into_iter()
        .map(|((kind, zone, total_count, _), members)| {
            let mut seen_pages: Vec<u64> = Vec::new();
            let (mut loaded, mut pages) = (0u64, 0u64);
            for page in &members {
                if let Some(n) = page.page {
                    if seen_pages.contains(&n) {
                        continue;
                    }
                    seen_pages.push(n);
                }
                loaded = loaded.saturating_add(page.records as u64);
                pages += 1;
            }
            let total_pages = members.iter().filter_map(|p| p.total_pages).max();
            ExportList {
                kind,
                id: kind.as_str().to_string(),
                name: kind.records_in_words().to_string(),
                zone,
                origin: members[0].origin.clone(),
                fields: members[0].fields,
                loaded,
                pages,
                total_count,
                total_pages,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::origin::FileId;

    static FIELDS: ListFields = ListFields {
        paging: "/result_info",
        total_count: "/result_info/total_count",
        total_pages: "/result_info/total_pages",
    };

    fn page(file: u32, page: u64, records: usize, total: u64, total_pages: u64) -> Page {
        Page {
            kind: Kind::CustomHostname,
            origin: RecordOrigin::new(FileId(file), "", None),
            fields: &FIELDS,
            records,
            page: Some(page),
            per_page: Some(50),
            total_count: Some(total),
            total_pages: Some(total_pages),
        }
    }

    #[test]
    fn pages_of_one_list_add_up_across_files() {
        let all = lists(&[page(0, 1, 50, 120, 3), page(1, 2, 50, 120, 3), page(2, 3, 20, 120, 3)]);
        assert_eq!(all.len(), 1);
        assert!(all[0].is_complete(), "{:?}", all[0]);
        let missing = lists(&[page(0, 1, 50, 120, 3), page(2, 3, 20, 120, 3)]);
        assert!(!missing[0].is_complete());
        assert_eq!((missing[0].loaded, missing[0].pages), (70, 2));
    }

    #[test]
    fn a_page_given_twice_counts_once() {
        let twice = lists(&[page(0, 1, 50, 100, 2), page(1, 1, 50, 100, 2)]);
        assert!(!twice[0].is_complete());
        assert_eq!(twice[0].loaded, 50);
    }

    #[test]
    fn huge_totals_are_numbers_like_any_other() {
        let all = lists(&[page(0, 1, 3, i64::MAX as u64, 1)]);
        assert!(!all[0].is_complete());
    }
}
