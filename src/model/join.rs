//! A Terraform state and the `.tf` source it was applied from, committed
//! side by side (docs/src/terraform.md): the same resources twice, once as
//! declared and once as they are. They are one resource per address, judged
//! on the state's values (real ids, what apply computed) and located at the
//! source block, where a person edits it. The state's documents join the
//! configuration's account when they sit in its directory (the input stage
//! does that); here each state resource whose address a source block
//! declares takes the block's place.

use std::collections::HashMap;

use super::Account;
use super::origin::RecordOrigin;
use super::terraform::{id_reference, is_declaration};

/// The address a state or plan names a resource by, as its source block
/// declares it: without the instance key (`web[0]`, `web["eu"]`) and the
/// plan's note (` (planned: create)`).
fn declared_address(shown: &str) -> &str {
    let address = shown.split(" (").next().unwrap_or(shown);
    match address.strip_suffix(']') {
        Some(rest) => rest.rfind('[').map_or(address, |at| &address[..at]),
        None => address,
    }
}

/// Joins the account's state resources with the source blocks of the same
/// address: each such state resource is located at its block, and the block
/// is no longer a resource of its own. Two blocks of one address (an error
/// for Terraform too) are left as they are. Returns the blocks joined.
pub fn by_address(account: &mut Account) -> usize {
    let mut moved: Vec<(RecordOrigin, RecordOrigin)> = Vec::new();
    let mut joined = 0;
    joined += join(&mut account.pools, |p| &mut p.origin, &mut moved);
    joined += join(&mut account.policies, |p| &mut p.origin, &mut moved);
    joined += join(&mut account.certificate_packs, |p| &mut p.origin, &mut moved);
    joined += join(&mut account.custom_certificates, |p| &mut p.origin, &mut moved);
    joined += join(&mut account.total_tls, |p| &mut p.origin, &mut moved);
    joined += join(&mut account.universal_ssl, |p| &mut p.origin, &mut moved);
    joined += join(&mut account.caa_records, |p| &mut p.origin, &mut moved);
    // A custom hostname's zone is one of its own file's: it stays in the
    // state, and only the block it duplicates goes.
    joined += drop_declared(&mut account.custom_hostnames, |h| &h.origin);
    if joined == 0 {
        return 0;
    }
    // What the state does not know yet (a plan) moves with the record; the
    // block's own unknowns go with the block.
    for (from, to) in moved {
        account.unknown.take(&to);
        let values = account.unknown.take(&from);
        account.unknown.insert(&to, values);
    }
    // A block not in the state yet (added by the change under review) names
    // its pools by reference: the joined pools answer to their real ids.
    let ids: HashMap<String, String> = account
        .pools
        .iter()
        .filter_map(|p| Some((id_reference(p.origin.address()?), p.id.clone())))
        .filter(|(reference, id)| reference != id)
        .collect();
    for policy in &mut account.policies {
        for pool in &mut policy.pool_ids {
            if let Some(id) = ids.get(&pool.value) {
                pool.value = id.clone();
            }
        }
    }
    joined
}

/// The blocks of source by address, those declared once only, from the
/// records' origins in order.
fn blocks<'o>(origins: impl Iterator<Item = &'o RecordOrigin>) -> HashMap<String, usize> {
    let mut by_address: HashMap<String, Option<usize>> = HashMap::new();
    for (i, origin) in origins.enumerate() {
        if let (true, Some(address)) = (is_declaration(origin), origin.address()) {
            by_address
                .entry(address.to_string())
                .and_modify(|twice| *twice = None)
                .or_insert(Some(i));
        }
    }
    by_address.into_iter().filter_map(|(a, i)| Some((a, i?))).collect()
}

/// The state records of `items` that a block declares, moved to the block's
/// origin (the state's own, with its instance key, kept as the address);
/// the blocks removed.
fn join<T>(items: &mut Vec<T>, origin: impl Fn(&mut T) -> &mut RecordOrigin, moved: &mut Vec<(RecordOrigin, RecordOrigin)>) -> usize {
    // Asked of the records where they are: a copy of every origin first
    // (200,000 pools', on one thread) was work for nothing in an export
    // without Terraform.
    let declared = blocks(items.iter_mut().map(|item| &*origin(item)));
    if declared.is_empty() {
        return 0;
    }
    let mut gone = vec![false; items.len()];
    let mut targets: Vec<(usize, RecordOrigin)> = Vec::new();
    // One record per instance takes the block's place: a second state of
    // the same address stays where it is, and a difference is EX002.
    let mut placed = std::collections::HashSet::new();
    for (i, item) in items.iter_mut().enumerate() {
        let at = origin(item);
        if is_declaration(at) {
            continue;
        }
        let Some(shown) = at.address() else { continue };
        let Some(&block) = declared.get(declared_address(shown)) else {
            continue;
        };
        gone[block] = true;
        if placed.insert(shown.clone()) {
            targets.push((i, at.clone()));
        }
    }
    for (i, from) in targets {
        let block = declared.get(declared_address(from.address().map_or("", |a| a))).copied();
        let Some(block) = block else { continue };
        let to = origin(&mut items[block]).clone();
        let to = match from.address() {
            Some(shown) => to.with_address(shown.clone()),
            None => to,
        };
        moved.push((from, to.clone()));
        *origin(&mut items[i]) = to;
    }
    let joined = gone.iter().filter(|g| **g).count();
    let mut i = 0;
    items.retain(|_| {
        let keep = !gone[i];
        i += 1;
        keep
    });
    joined
}

/// The blocks of `items` that a state record of the same address duplicates, removed.
fn drop_declared<T>(items: &mut Vec<T>, origin: impl Fn(&T) -> &RecordOrigin) -> usize {
    let declared = blocks(items.iter().map(&origin));
    if declared.is_empty() {
        return 0;
    }
    let mut gone = vec![false; items.len()];
    for item in items.iter() {
        let at = origin(item);
        if let (false, Some(shown)) = (is_declaration(at), at.address())
            && let Some(&block) = declared.get(declared_address(shown))
        {
            gone[block] = true;
        }
    }
    let joined = gone.iter().filter(|g| **g).count();
    let mut i = 0;
    items.retain(|_| {
        let keep = !gone[i];
        i += 1;
        keep
    });
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_address_names_the_block_that_declares_it() {
        assert_eq!(
            declared_address("cloudflare_load_balancer_pool.web"),
            "cloudflare_load_balancer_pool.web"
        );
        assert_eq!(
            declared_address("cloudflare_load_balancer_pool.web[0]"),
            "cloudflare_load_balancer_pool.web"
        );
        assert_eq!(
            declared_address("module.lb.cloudflare_load_balancer_pool.web[\"eu\"] (planned: update)"),
            "module.lb.cloudflare_load_balancer_pool.web"
        );
    }
}
