//! The assembly layer, the top of ingest: the steps that read a file from
//! its bytes to its events. [`load`] reads each file of a load by the
//! parallel path ([`parallel`], its chunks in [`chunk`]) when it takes the
//! file, else whole ([`source`]); both go through the same named steps
//! ([`steps`]) and end with a record made an event ([`collect`]), the
//! dates times lack supplied ([`dates`]). What a load says went wrong is
//! in [`problems`].

pub(crate) mod chunk;
pub(crate) mod collect;
pub(crate) mod dates;
pub(crate) mod load;
pub(crate) mod parallel;
pub(crate) mod problems;
pub(crate) mod source;
pub(crate) mod steps;
