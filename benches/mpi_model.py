"""The communication model of a distributed run, for both partitions.

Used by benches/mpi_traffic.sh: `check(runs)` compares the bytes each run's
JSON reports with the model (summed over the ranks, mean per search), and
`project(profile)` projects a search and its validation to list scales.
docs/clusters.md ("Communication model") states the same formulas.

Notation: P ranks; an R x C grid (R <= C) for 2-D; N vertices, M tuples;
w bytes an id; per level f the frontier, n' the vertices it discovered,
m_f the arcs a top-down level read (the trace's edges_examined), h and
d the hubs of its frontier and their arcs, scanned by the delegates
(the trace's `hubs` and `delegated`, 1-D), q the
proposals the 2-D fold sent to other ranks (the trace's `proposals`), b
the bytes of a packed 2-D proposal (`pair_bytes`).
"""

import math


def shares(N, P):
    """Vertices per rank (dist/src/partition.rs: chunks of ceil(N/P) rounded up to 64)."""
    chunk = max(64, math.ceil(N / P / 64) * 64)
    return [min(max(N - q * chunk, 0), chunk) for q in range(P)]


def words(N, P):
    """64-bit words of all ranks' pieces together."""
    return sum(math.ceil(c / 64) for c in shares(N, P))


def grid_shape(P):
    """(R, C): R the largest divisor of P not above sqrt(P) (dist/src/grid/partition.rs)."""
    R = max(d for d in range(1, math.isqrt(P) + 1) if P % d == 0)
    return R, P // R


def search_level_1d(step, N, P, w):
    """Bytes all ranks send in one level of DistBfs (dist/src/bfs.rs)."""
    if step["direction"] == "top-down":
        # pairs to the owners for the arcs not left to the delegates, each
        # hub announced to every other rank as a pair, the counts (one
        # all-to-all) and the all-reduce of five counts
        pairs = step["edges_examined"] - step.get("delegated", 0)
        hubs = step.get("hubs", 0)
        return 2 * w * (pairs * (P - 1) / P + hubs * (P - 1)) + 48 * P * (P - 1)
    # the frontier bitmap to every rank, the all-reduce of five counts
    return 8 * words(N, P) * (P - 1) + 40 * P * (P - 1)


def bytes_below(bound):
    """Bytes that hold every value below `bound` (dist/src/grid/bfs/fold.rs)."""
    return max(1, math.ceil(max(bound - 1, 0).bit_length() / 8))


def pair_bytes(N, P):
    """Bytes of a packed 2-D proposal: u's index in its owner's piece and
    the parent's index in the proposing cell's column block (at most R
    pieces), each in the fewest bytes (dist/src/grid/bfs/fold.rs)."""
    R, C = grid_shape(P)
    piece = shares(N, P)[0]
    return bytes_below(piece) + bytes_below(R * piece)


def hub_bytes(N, P):
    """Bytes of a hub's announcement in the 2-D fold: its index in the
    column block, as narrow as a proposal's parent (dist/src/grid/bfs/fold.rs)."""
    R, C = grid_shape(P)
    return bytes_below(R * shares(N, P)[0])


def search_level_2d(step, N, P, w):
    """Bytes all ranks send in one level of GridBfs (dist/src/grid.rs header)."""
    R, C = grid_shape(P)
    # fold counts and counts of announced hubs; all-reduce of found, m_f
    counts = 12 * P * (C - 1) + 16 * P * (P - 1)
    fold = pair_bytes(N, P) * step["proposals"]
    if step["direction"] == "top-down":
        # the frontier's ids (and their sizes) to the column; each hub of
        # the frontier announced by the R cells of its grid column to the
        # C - 1 other members of their rows (dist/src/grid/hubs.rs)
        hubs = hub_bytes(N, P) * step.get("hubs", 0) * R * (C - 1)
        return w * step["frontier"] * (R - 1) + 8 * P * (R - 1) + fold + hubs + counts
    piece_words = math.ceil(shares(N, P)[0] / 64)
    # frontier bitmap in the column; the row step's "done" bits passed
    # C - 1 times around the row
    return 8 * words(N, P) * (R - 1) + 8 * P * piece_words * (C - 1) + fold + counts


def validation_rounds(levels, N, P):
    """Bytes of one validation without claimed levels (dist/src/check/levels.rs):
    each rank's level-k vertices as 4-byte indices or its bitmap, whichever
    is shorter, in D+2 rounds of 24-byte records, plus check 1's agreement
    (an all-reduce of a word) and the verdict (two words). `levels`: the
    vertices of each level, root first."""
    depth = len(levels) - 1
    per_rank = shares(N, P)
    announce = sum(min(2 * math.ceil(c / 64), n / P) for n in levels for c in per_rank)
    return 4 * (P - 1) * announce + P * (P - 1) * (24 * (depth + 2) + 8 + 16)


def ghosts(N, M, P, q=0.24):
    """Expected ghosts of all ranks together: for each rank, the other
    ranks' vertices a tuple joins to one of its own. In a Kronecker graph
    (A, B, C, D = 0.57, 0.19, 0.19, 0.05: an id bit is 1 with probability
    q = 0.24 at either end) a vertex with k one-bits has expected degree
    lam_k = 2 M q^k (1-q)^(S-k), Poisson; its arcs' other ends have
    uniform owners (ids are permuted), so it is a ghost on each of the
    P - 1 other ranks with probability 1 - exp(-lam_k / P)."""
    S = round(math.log2(N))
    return (P - 1) * sum(
        math.comb(S, k) * -math.expm1(-2 * M * q ** k * (1 - q) ** (S - k) / P)
        for k in range(S + 1))


def validation(N, M, P):
    """Bytes of one validation whose claimed levels hold
    (dist/src/check/levels/claims.rs): one byte a ghost, the claims'
    agreement, which carries check 1's (all-reduces of three words), and
    the verdict (two words, shared by a batch's searches); an all-reduce
    of k words counts 8 k (P - 1) bytes a rank, as dist/src/mpi.rs
    counts it."""
    return ghosts(N, M, P) + P * (P - 1) * (24 + 16)


def kernel1_1d(N, M, P, w):
    """Kernel 1 of the 1-D ranks (dist/src/graph.rs): two packed arcs a
    tuple to their owners, and per round a count per block of 2^11 rows."""
    blocks = sum(math.ceil(c / 2048) for c in shares(N, P))
    rounds = math.ceil(M / P / (1 << 20))
    return 2 * w * M * (P - 1) / P + 8 * blocks * (P - 1) * rounds


def kernel1_1d_weighted(N, M, P, w):
    """Kernel 1 of the 1-D ranks for kernel 3 (dist/src/graph.rs): as
    kernel1_1d with a weight beside each target (2w bytes an arc), and the
    renumbering by degree (dist/src/graph/renumber.rs): every rank's
    per-vertex arc counts to the owners (4 bytes a vertex) and the
    all-gather of the new local ids (4 bytes a vertex to each other rank),
    which replace the first count per block."""
    return kernel1_1d(N, M, P, 2 * w) + 8 * N * (P - 1)


def bfs_index_1d(N, P):
    """The 1-D ranks' BFS index, built in kernel 1 when a BFS pass
    searches the rows (dist/src/bfs/index.rs): the all-gather of every
    vertex's degree class (a byte a vertex to each other rank) and the
    all-reduce of 512 counts per degree class (dist/src/bfs/delegates.rs)."""
    return N * (P - 1) + 8 * 512 * P * (P - 1)


def kernel1_2d(N, M, P, w):
    """Kernel 1 of the grid (dist/src/grid/graph.rs): each tuple's two
    arcs to their cells in one all-to-all (and its counts), each owned
    vertex's row lengths from the C - 1 other cells of its grid row (and
    their counts), and the all-reduce of the arc count."""
    R, C = grid_shape(P)
    return 4 * w * M * (P - 1) / P + 16 * P * (P - 1) + 8 * (C - 1) * N + 8 * P * (C - 1)


def grid_hubs(N, P, listed):
    """The 2-D hubs in kernel 1 (dist/src/grid/hubs.rs, graph.rs): the
    all-reduce of 512 counts per degree class, the owners' degree classes
    (a byte a vertex) all-gathered in each grid column (the hub bits and
    the rows' hubs come from them), and one fold in each grid row of the
    `listed` pairs (neighbour, hub) to other members (the JSON's
    kernel1_hub_pairs), with its counts and header."""
    R, C = grid_shape(P)
    return (8 * 512 * P * (P - 1) + N * (R - 1)
            + pair_bytes(N, P) * listed + 12 * P * (C - 1))


def levels_of(record):
    """The vertices of each level of a traced search, root first."""
    counts = [1] + [st["discovered"] for st in record["trace"]]
    while counts[-1] == 0:
        counts.pop()
    return counts


def check(runs):
    """Rows of measured against modelled bytes, one per run."""
    rows = []
    for r in runs:
        mpi = r["mpi"]
        P, w = mpi["ranks"], mpi["id_bytes"]
        partition = mpi.get("partition", "1d")
        N, M = r["graph"]["num_vertices"], r["graph"]["num_edges"]
        level = search_level_2d if partition == "2d" else search_level_1d
        searches = r["searches"]
        k = len(searches)
        measured = sum(st["bytes"] for rec in searches for st in rec["trace"]) / k
        model = sum(level(st, N, P, w) for rec in searches for st in rec["trace"]) / k
        kernel1 = kernel1_2d if partition == "2d" else kernel1_1d
        if partition != "2d" and r.get("sssp_searches"):
            kernel1 = kernel1_1d_weighted
        k1_model = kernel1(N, M, P, w)
        if partition != "2d" and searches:
            k1_model += bfs_index_1d(N, P)
        if partition == "2d":
            k1_model += grid_hubs(N, P, mpi.get("kernel1_hub_pairs", 0))
        v_model = validation(N, M, P)
        v_measured = sum(mpi["validate_bytes"]) / k
        rows.append(dict(scale=r["options"]["scale"], P=P, partition=partition,
                         search=measured, search_model=model,
                         kernel1=mpi["kernel1_bytes"], kernel1_model=k1_model,
                         validation=v_measured, validation_model=v_model))
    return rows


def profile(run):
    """A run's mean search as fractions: per level its direction and f/N,
    n'/N, m_f/2M, d/2M and h (1-D delegated arcs, hubs), q/n' (2-D
    proposals per discovered vertex); the rank compute time per arc of a
    search and per tuple of a validation (compute())."""
    N, M = run["graph"]["num_vertices"], run["graph"]["num_edges"]
    P = run["mpi"]["ranks"]
    searches = run["searches"]
    levels = []
    for rec in searches:
        for i, st in enumerate(rec["trace"]):
            levels.append(dict(
                weight=1 / len(searches),
                bottom_up=st["direction"] == "bottom-up",
                f=st["frontier"] / N,
                n=st["discovered"] / N,
                m=(st.get("edges_examined") or 0) / (2 * M),
                d=(st.get("delegated") or 0) / (2 * M),
                h=st.get("hubs") or 0,
                q=st["proposals"] / max(st["discovered"], 1) if "proposals" in st else None))
    search, validate = compute(run)
    return dict(levels=levels, depth=sum(len(levels_of(r)) for r in searches) / len(searches),
                search_per_arc=search / (2 * M / P),
                validate_per_tuple=validate / (M / P),
                P=P, scale=run["options"]["scale"])


def compute(run):
    """A run's mean search and mean validation, seconds, less the time
    their slowest rank spent inside collectives (the JSON's
    mpi.search_comm_seconds and validate_comm_seconds: per search, the
    least over the ranks), since project() adds the communication at its
    own B and alpha; a report without them gives the whole times, one
    without validation NaN for the validation."""
    mpi, searches = run["mpi"], run["searches"]
    def less(times, waits):
        if None in times:  # a run without validation
            return math.nan
        waits = waits or [0.0] * len(times)
        return sum(t - w for t, w in zip(times, waits)) / len(times)
    search = less([s["time"] for s in searches], mpi.get("search_comm_seconds"))
    validate = less([s["validate_time"] for s in searches], mpi.get("validate_comm_seconds"))
    return search, validate


def validation_grid(N, P):
    """Bytes a rank sends and messages it waits for in one validation by a
    validator placed on the 2-D grid (a model only, not built): each
    rank's tuples at its grid cell, each search's level bytes gathered
    along its grid row and column, (R + C - 2) N / P bytes and R + C - 2
    messages, then the verdict's all-reduces (2 log2 P, as the 1-D
    validator's). Check 3 (each tree edge a tuple) would also need the
    parents along one dimension, which this leaves out: a lower bound."""
    R, C = grid_shape(P)
    lg = math.ceil(math.log2(P))
    return (R + C - 2) * N / P, (R + C - 2) + 2 * lg


def project(prof, S, P, B=12.5e9, alpha=2e-6, q_2d=None, per_arc_2d=None):
    """Seconds of one rank's search (1-D and 2-D) and validation at
    SCALE S on P ranks: compute from the measured rank compute per arc, plus
    bytes a rank sends over B, plus alpha per message (an all-to-all or
    ring all-gather among g ranks g - 1 messages, an all-reduce log2 P).
    `q_2d`: 2-D pairs sent to other ranks per vertex a bottom-up level
    discovers (default 1, the row step's bound: each found vertex once;
    the owner's own finds send nothing). Returns the 1-D and 2-D
    searches, the 1-D incidence validator's validation and the grid
    validator's (`validation_grid`), with the same compute a tuple.
    `per_arc_2d`: the 2-D search's own rank compute per arc (default the
    1-D search's, `prof["search_per_arc"]`).
    """
    N = 2 ** S
    M = 16 * N
    w = 4 if N <= 2 ** 32 else 8
    R, C = grid_shape(P)
    b = pair_bytes(N, P)
    lg = math.ceil(math.log2(P))
    compute = prof["search_per_arc"] * 2 * M / P
    one = dict(compute=compute, bytes=0.0, latency=0.0)
    two = dict(compute=(per_arc_2d or prof["search_per_arc"]) * 2 * M / P, bytes=0.0, latency=0.0)
    for lv in prof["levels"]:
        wt = lv["weight"]
        f, n, m = lv["f"] * N, lv["n"] * N, lv["m"] * 2 * M
        d = lv.get("d", 0) * 2 * M
        # the row step sends a found vertex's pair at most once
        q = min(q_2d if q_2d is not None else 1.0, 1.0) * n
        if lv["bottom_up"]:
            one["bytes"] += wt * N / 8 * (P - 1) / P
            one["latency"] += wt * (P - 1 + lg)
            # frontier bitmap in the column, the row step's bits (C - 1
            # shifts of a piece), each found vertex's packed pair once
            two["bytes"] += wt * ((R - 1 + C - 1) * N / (8 * P) + b * q / P)
            two["latency"] += wt * (R - 1 + (C - 1) + 2 * (C - 1) + lg)
        else:
            # the hubs' arcs stay home; their announcements are tiny
            one["bytes"] += wt * 2 * w * ((m - d) / P + lv.get("h", 0)) * (P - 1) / P
            one["latency"] += wt * (2 * (P - 1) + lg)
            # the hubs' columns left to the owners' lists (the same hubs
            # as 1-D's, dist/src/grid/hubs.rs): their arcs make no pair
            q_td = min(m - d, C * n)
            two["bytes"] += wt * (w * f / P * (R - 1) + b * q_td / P * (C - 1) / C)
            two["latency"] += wt * (2 * (R - 1) + 2 * (C - 1) + lg)
    # Validation: each rank's ghosts' claims from their owners (one byte a
    # ghost, an all-to-all), and the agreements, all all-reduces: the
    # claims' with check 1's (two) and a sixteenth of the batch's verdict.
    v = dict(compute=prof["validate_per_tuple"] * M / P, bytes=ghosts(N, M, P) / P,
             latency=(P - 1) + (2 + 1 / 16) * lg)
    grid_bytes, grid_messages = validation_grid(N, P)
    g = dict(compute=v["compute"], bytes=grid_bytes, latency=grid_messages)
    total = lambda t: t["compute"] + t["bytes"] / B + t["latency"] * alpha
    for t in (one, two, v, g):
        t["seconds"] = total(t)
        t["bytes"] /= B
        t["latency"] *= alpha
    return one, two, v, g
