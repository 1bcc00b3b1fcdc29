//! The subcommands besides `run`: `generate`, `bfs` and `validate`.

use crate::cli::{BfsArgs, GenerateArgs, SearchArgs, ValidateArgs};
use crate::progress::Progress;
use crate::run::timed;
use anyhow::{Context, bail};
use generator::{Kronecker, format};
use kernels::{Csr, Kernel, SearchKey};
use std::process::ExitCode;
use std::sync::Arc;
use validate::Validator;

/// `graph500 generate`: writes a Kronecker edge list.
pub(crate) fn generate(args: &GenerateArgs, progress: &Progress) -> anyhow::Result<ExitCode> {
    let k = &args.kronecker;
    let generator = Kronecker::new(k.scale, k.edgefactor, k.seed)?;
    let (edges, seconds) = timed(|| generator.generate());
    progress.say(&format!(
        "generated {} edge tuples over {} vertices in {seconds:.3} s ({:.3e} edges/s); checksum {:#018x}",
        edges.len(),
        edges.num_vertices(),
        edges.len() as f64 / seconds,
        edges.checksum()
    ));
    let (written, seconds) = timed(|| format::write_edge_list(&args.out, &edges));
    written?;
    progress.say(&format!("wrote {} in {seconds:.3} s", args.out.display()));
    Ok(ExitCode::SUCCESS)
}

/// `graph500 bfs`: one search, parents written as little-endian i64.
pub(crate) fn bfs(args: &BfsArgs, progress: &Progress) -> anyhow::Result<ExitCode> {
    let SearchArgs { input, root } = &args.search;
    let edges = format::read_edge_list(input)?;
    let graph = Arc::new(Csr::from_edge_list(&edges));
    let key =
        SearchKey::new(*root, &graph).with_context(|| format!("--root for {}", input.display()))?;
    let kernel = Kernel::from(args.kernel);
    let mut engine = kernel.engine(Arc::clone(&graph));
    engine.reset();
    let (stats, seconds) = timed(|| engine.search(key));
    let nedge = graph.nedge(engine.parents());
    format::parents::write(&args.parents_out, &engine.parents().to_i64())?;
    progress.say(&format!(
        "root {root}: {} reached, depth {}, nedge {nedge}, {seconds:.4} s with kernel {}; wrote {}",
        stats.reached,
        stats.depth,
        kernel.name(),
        args.parents_out.display()
    ));
    Ok(ExitCode::SUCCESS)
}

/// `graph500 validate`: exit 0 valid, 1 invalid, 2 bad input.
pub(crate) fn validate(args: &ValidateArgs, progress: &Progress) -> anyhow::Result<ExitCode> {
    let SearchArgs { input, root } = &args.search;
    let root = *root;
    let edges = format::read_edge_list(input)?;
    let parents = format::parents::read(&args.parents)?;
    let n = edges.num_vertices();
    if parents.len() != n {
        bail!(
            "{}: holds {} parents but the graph {} has {n} vertices",
            args.parents.display(),
            parents.len(),
            input.display()
        );
    }
    if root >= n as u64 {
        bail!(
            "--root {root} is not a vertex of {} (0..{n})",
            input.display()
        );
    }
    let (verdict, seconds) = timed(|| Validator::new(n).validate(&edges, root, &parents, None));
    match verdict {
        Ok(tree) => {
            println!(
                "valid: root {root}, {} vertices reached, depth {}, nedge {}",
                tree.reached, tree.depth, tree.nedge
            );
            progress.say(&format!("validated in {seconds:.4} s"));
            Ok(ExitCode::SUCCESS)
        }
        Err(invalid) => {
            println!("invalid: {invalid}");
            Ok(ExitCode::from(1))
        }
    }
}
