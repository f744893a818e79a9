//! The assembly layer, the top of ingest: the steps that read a file from
//! its bytes to its events. [`load`] reads each file of a load by the
//! parallel path ([`parallel`], its chunks in [`chunk`]) when it takes the
//! file, else whole ([`source`]); both go through the same named steps
//! ([`steps`]; roles the names left undecided completed by the protocol in
//! [`complete`]) and end with a record made an event ([`collect`]), the
//! dates times lack supplied ([`dates`]). Why a file gave nothing is
//! `model::Unreadable`, why a run is no answer `analysis::Problem`.

pub(crate) mod chunk;
pub(crate) mod collect;
pub(crate) mod complete;
pub(crate) mod dates;
pub(crate) mod head;
pub(crate) mod load;
pub(crate) mod parallel;
pub(crate) mod plan;
pub(crate) mod source;
pub(crate) mod steps;
