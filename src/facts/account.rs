use super::FactName;
use super::coverage::Coverage;
use super::{Fact, Facts, Subject, Value, text};
use crate::model::Account;

/// The bulk clear applies to one page of pools (docs/src/rules/list.md, LB rules).
pub const BULK_CLEAR_PAGE_SIZE: usize = 25;

/// Pools counted while their own facts are computed, so the account's facts
/// need no second pass over them.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    pub total: usize,
    pub with_legacy: usize,
    pub not_replaced: usize,
    /// Pools whose existence is not known (`count`/`for_each`): counted in
    /// none of the above, only named.
    pub may_exist: usize,
}

impl Tally {
    pub fn add(&mut self, coverage: Coverage) {
        self.total += 1;
        match coverage {
            Coverage::NotApplicable => {}
            Coverage::Full => self.with_legacy += 1,
            // Not known to be replaced: a bulk clear could drop its alerts.
            Coverage::None | Coverage::Partial | Coverage::Unknown => {
                self.with_legacy += 1;
                self.not_replaced += 1;
            }
        }
    }
}

pub struct AccountFacts<'a> {
    account: &'a Account,
    subject: Subject<'a>,
    tally: Tally,
}

impl<'a> AccountFacts<'a> {
    /// `None` when the account has no pools (nothing to migrate).
    pub fn new(account: &'a Account, tally: Tally) -> Option<Self> {
        Some(AccountFacts {
            account,
            subject: account.subject()?,
            tally,
        })
    }
}

impl Facts for AccountFacts<'_> {
    fn subject(&self) -> Subject<'_> {
        self.subject
    }

    /// No pool known to carry a legacy e-mail, and one whose e-mail is not
    /// known before apply: whether the migration is complete is unknown.
    /// (With one known, it is incomplete whatever the others are.)
    fn unknown(&self, name: FactName) -> Option<super::UnknownFact> {
        if self.tally.with_legacy > 0 || !matches!(name, FactName::PoolsWithLegacy | FactName::PoolsNotReplaced) {
            return None;
        }
        self.account.pools.iter().find_map(|pool| {
            let value = self
                .account
                .unknown
                .of(&pool.origin)
                .iter()
                .find(|v| v.decides("/notification_email"))?;
            Some(super::UnknownFact {
                value: value.clone(),
                elsewhere: Some(pool.origin.clone()),
                of: Some(format!("pool {}", super::pool::describe(&pool.name, &pool.id))),
            })
        })
    }

    fn get(&self, name: FactName) -> Option<Fact> {
        let id = self.account.id.as_deref();
        let t = self.tally;
        // What the bulk clear must cover: every pool the service announced, when the export has fewer.
        let announced = announced_pools(self.account);
        let to_clear = announced.unwrap_or(t.total);
        Some(match name {
            FactName::Id => Fact::new(text(id.unwrap_or_default()), ""),
            FactName::Name => Fact::new(text(id.map_or("the account".to_string(), |id| format!("account {id}"))), ""),
            FactName::PoolsTotal => Fact::new(Value::Int(t.total as i64), ""),
            FactName::TerraformSource => Fact::new(Value::Bool(id.is_some_and(crate::model::terraform::is_configuration_account)), ""),
            FactName::PoolsWithLegacy => Fact::new(Value::Int(t.with_legacy as i64), ""),
            FactName::LegacyShare => Fact::new(text(legacy_share(t, announced)), ""),
            FactName::PoolsComplete => Fact::new(Value::Bool(announced.is_none()), ""),
            FactName::PoolsNotReplaced => Fact::new(Value::Int(t.not_replaced as i64), ""),
            FactName::BulkClearRequests => Fact::new(Value::Int(to_clear.div_ceil(BULK_CLEAR_PAGE_SIZE) as i64), ""),
            FactName::BulkClearCost => Fact::new(
                text(match announced {
                    Some(n) => bulk_clear_cost_announced(n),
                    None => bulk_clear_cost(t.total),
                }),
                "",
            ),
            FactName::BulkClearCaveat => Fact::new(text(bulk_clear_caveat(to_clear, t.not_replaced)), ""),
            FactName::NotJudged => Fact::new(Value::List(Vec::new()), ""),
            FactName::BulkClearEndpoint => Fact::new(
                text(
                    crate::api::Operation::of(crate::api::Op::ClearPools)
                        .call_or_placeholders(&[id])
                        .name(),
                ),
                "",
            ),
            _ => return None,
        })
    }
}

/// How many pools the service announced for the account's pool lists when
/// the export holds fewer (EX001); `None` when every pool was loaded.
fn announced_pools(account: &Account) -> Option<usize> {
    let lists = account.lists.iter().filter(|l| l.kind == crate::model::Kind::Pool);
    let mut incomplete = false;
    let mut announced: u64 = 0;
    for list in lists {
        incomplete |= !list.is_complete();
        announced = announced.saturating_add(list.total_count.unwrap_or(list.loaded).max(list.loaded));
    }
    incomplete.then(|| usize::try_from(announced).unwrap_or(usize::MAX))
}

/// `2 of 60 pools`, or on an incomplete export `at least 1 of the 2000 pools
/// announced (only 1 loaded: …)`: never a total the export does not hold.
fn legacy_share(t: Tally, announced: Option<usize>) -> String {
    let may_exist = match t.may_exist {
        0 => String::new(),
        n => format!(" (and {n} that may exist, whose `count` or `for_each` is not known before a run: not counted)"),
    };
    match announced {
        None => format!("{} of {}{may_exist}", t.with_legacy, crate::words::plural(t.total, "pool", "pools")),
        Some(n) => format!(
            "at least {} of the {n} pools the export announces (only {} loaded: the export is incomplete, EX001){may_exist}",
            t.with_legacy, t.total
        ),
    }
}

/// The bulk clear's requests for the pools an incomplete export announces.
fn bulk_clear_cost_announced(announced: usize) -> String {
    match announced.div_ceil(BULK_CLEAR_PAGE_SIZE) {
        0 | 1 => format!("one request for the {announced} pools the export announces"),
        n => format!(
            "{n} requests for the {announced} pools the export announces, at the default page size of {BULK_CLEAR_PAGE_SIZE} (or fewer with a larger `per_page`)"
        ),
    }
}

/// The bulk clear's requests in words: one page holds 25 pools by default.
fn bulk_clear_cost(pools: usize) -> String {
    match pools {
        0 | 1 => "one request (the account has one pool)".to_string(),
        p if p <= BULK_CLEAR_PAGE_SIZE => format!("one request (all {p} pools fit on one page of {BULK_CLEAR_PAGE_SIZE})"),
        p => format!(
            "{} requests at the default page size of {BULK_CLEAR_PAGE_SIZE} (or fewer with a larger `per_page`)",
            p.div_ceil(BULK_CLEAR_PAGE_SIZE)
        ),
    }
}

fn bulk_clear_caveat(pools: usize, not_replaced: usize) -> String {
    if not_replaced == 0 {
        return String::new();
    }
    format!(
        "; {} its whole page, including the {} without a complete replacement yet (LB001/LB003): create their policies first",
        if pools > BULK_CLEAR_PAGE_SIZE {
            "each request clears"
        } else {
            "it clears"
        },
        crate::words::plural(not_replaced, "pool", "pools")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::origin::FileId;
    use crate::model::origin::RecordOrigin;

    #[test]
    fn bulk_clear_words() {
        assert_eq!(bulk_clear_cost(1), "one request (the account has one pool)");
        assert_eq!(bulk_clear_cost(25), "one request (all 25 pools fit on one page of 25)");
        assert!(bulk_clear_cost(26).starts_with("2 requests at the default page size of 25"));
        assert_eq!(bulk_clear_caveat(10, 0), "");
        assert!(bulk_clear_caveat(10, 1).starts_with("; it clears its whole page, including the 1 pool without a complete replacement"));
        assert!(bulk_clear_caveat(30, 3).starts_with("; each request clears its whole page, including the 3 pools without"));
        assert_eq!(
            bulk_clear_cost_announced(2000),
            "80 requests for the 2000 pools the export announces, at the default page size of 25 (or fewer with a larger `per_page`)"
        );
        let one = Tally {
            total: 1,
            with_legacy: 1,
            not_replaced: 1,
            may_exist: 0,
        };
        assert_eq!(legacy_share(one, None), "1 of 1 pool");
        assert!(legacy_share(one, Some(2000)).starts_with("at least 1 of the 2000 pools the export announces (only 1 loaded"));
        let maybe = Tally { may_exist: 5, ..one };
        assert_eq!(
            legacy_share(maybe, None),
            "1 of 1 pool (and 5 that may exist, whose `count` or `for_each` is not known before a run: not counted)"
        );
    }

    #[test]
    fn provides_every_catalogue_fact_and_counts_pages() {
        let account = Account {
            id: Some("acc".into()),
            pool_lists: vec![RecordOrigin::new(FileId(0), "/result", None)],
            ..Account::default()
        };
        let mut tally = Tally::default();
        for coverage in [Coverage::None; 26].into_iter().chain([Coverage::Full, Coverage::NotApplicable]) {
            tally.add(coverage);
        }
        let facts = AccountFacts::new(&account, tally).expect("has pools");
        crate::facts::tests::provides_its_catalogue(&facts);
        assert_eq!(facts.get(FactName::BulkClearRequests).map(|f| f.value), Some(Value::Int(2)));
        assert_eq!(
            facts.get(FactName::BulkClearCost).map(|f| f.value),
            Some(text(
                "2 requests at the default page size of 25 (or fewer with a larger `per_page`)"
            ))
        );
        assert_eq!(facts.get(FactName::PoolsWithLegacy).map(|f| f.value), Some(Value::Int(27)));
        assert_eq!(facts.get(FactName::PoolsNotReplaced).map(|f| f.value), Some(Value::Int(26)));
        assert_eq!(
            facts.get(FactName::BulkClearEndpoint).map(|f| f.value),
            Some(text("PATCH /accounts/acc/load_balancers/pools"))
        );
        assert!(AccountFacts::new(&Account::default(), Tally::default()).is_none());
    }
}
