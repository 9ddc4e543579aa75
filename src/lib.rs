//! edgeaudit: an offline compliance analyzer for edge-service configuration
//! exports. Data flows one way: load → model → facts → rules → findings → reports.

pub mod load;
pub mod locate;
pub mod model;
