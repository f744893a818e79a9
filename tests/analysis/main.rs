//! What the analysis answers, checked against what is known to have
//! happened: the handed cases' expected answers (`cases`), the simulator's
//! truth (`sim_truth`), properties over simulated logs (`properties`), the
//! cost and totals of many overlapping holds (`overlap_cost`), Redlock from
//! several MONITOR captures (`redlock`), the infrastructure evidence cited
//! for an incident (`evidence`), the loss said unknown when the business
//! words or the stock level were not read (`loss_unknown`), "no incident"
//! refused when most of a file's lines are of no known kind
//! (`unclassified`) and the what-if replay (`whatif`).

#[path = "../support/mod.rs"]
mod support;

mod cases;
mod evidence;
mod loss_unknown;
mod overlap_cost;
mod properties;
mod redlock;
mod sim_truth;
mod unclassified;
mod whatif;
