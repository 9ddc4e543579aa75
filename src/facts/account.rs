use super::coverage::{Coverage, CoverageIndex};
use super::{Facts, Subject, Value};
use crate::model::{Account, Kind};

/// The bulk clear applies to one page of pools (DESIGN §2.1).
pub const BULK_CLEAR_PAGE_SIZE: usize = 25;

/// Account-level facts; `None` when the account has no pools (nothing to
/// migrate). They point at the first pools document of the account.
pub fn facts(account: &Account, index: &CoverageIndex) -> Option<Facts> {
    let origin = account.pool_lists.first().cloned()?;
    let id = account.id.clone().unwrap_or_default();
    let name = match &account.id {
        Some(id) => format!("account {id}"),
        None => "the account".to_string(),
    };
    let mut with_legacy = 0;
    let mut not_replaced = 0;
    for pool in &account.pools {
        match index.of(pool).coverage {
            Coverage::NotApplicable => {}
            Coverage::Full => with_legacy += 1,
            Coverage::None | Coverage::Partial => {
                with_legacy += 1;
                not_replaced += 1;
            }
        }
    }
    let total = account.pools.len();
    let mut f = Facts::new(Subject {
        kind: Kind::Account,
        id: id.clone(),
        name: String::new(),
        origin,
    });
    f.set("id", Value::Text(id.clone()), "");
    f.set("name", Value::Text(name), "");
    f.set("pools_total", Value::Int(total as i64), "");
    f.set("pools_with_legacy", Value::Int(with_legacy), "");
    f.set("pools_not_replaced", Value::Int(not_replaced), "");
    f.set("bulk_clear_requests", Value::Int(total.div_ceil(BULK_CLEAR_PAGE_SIZE) as i64), "");
    let account_segment = if id.is_empty() { "{account_id}" } else { id.as_str() };
    f.set(
        "bulk_clear_endpoint",
        Value::Text(format!("PATCH /accounts/{account_segment}/load_balancers/pools")),
        "",
    );
    Some(f)
}
