//! The SSSP validator (`validate::SsspValidator`): every rule rejects the
//! broken search it exists for, naming the vertex or tuple (`rules`);
//! shortest-path trees from a plain Dijkstra on Kronecker graphs pass with
//! their figures, on 1 and 2 threads, and broken ones fail the same way on
//! either (`kronecker`); on random small graphs the verdict is exactly the
//! reference's rules plus the tree check (`properties`).

#![allow(clippy::cast_possible_truncation)] // ids and positions of small test graphs

mod kronecker;
mod properties;
mod rules;
mod support;
