//! Argument parsing: bad options are one-line errors; help and version.

use crate::support::*;

#[test]
fn bad_arguments_are_one_line_errors() {
    assert_bad_input(&graph500(&["--scale", "40"]), &["--scale", "40"]);
    assert_bad_input(&graph500(&["--scale", "43"]), &["--scale", "43"]);
    assert_bad_input(&graph500(&["--scale", "0"]), &["--scale"]);
    assert_bad_input(&graph500(&["--keys", "0"]), &["--keys"]);
    assert_bad_input(&graph500(&["--threads", "0"]), &["--threads"]);
    assert_bad_input(&graph500(&["--kernel", "fast"]), &["--kernel", "fast"]);
    assert_bad_input(&graph500(&["bfs", "--root", "1"]), &["--input"]);
    assert_bad_input(
        &graph500(&["--input", "x.el", "--scale", "5"]),
        &["--scale"],
    );
    assert_bad_input(&graph500(&["--edgefactor", "0"]), &["--edgefactor"]);
    assert_bad_input(
        &graph500(&["--edgefactor", "70000"]),
        &["--edgefactor", "70000"],
    );
    assert_bad_input(&graph500(&["--seed", "-1"]), &["--seed"]);
    assert_bad_input(&graph500(&["--seed", "abc"]), &["--seed", "abc"]);
    assert_bad_input(&graph500(&["--alpha", "0"]), &["--alpha"]);
    assert_bad_input(&graph500(&["--beta", "0"]), &["--beta"]);
    assert_bad_input(
        &graph500(&["bfs", "-i", "x.el", "--parents-out", "p", "--root", "-3"]),
        &["--root"],
    );
    assert_bad_input(&graph500(&["sweep", "--from", "0"]), &["--from"]);
    assert_bad_input(
        &graph500(&["--generator", "graph500", "--seed", "5"]),
        &["--seed", "graph500"],
    );
    assert_bad_input(
        &graph500(&["--generator", "graph500", "--input", "x.el"]),
        &["--generator", "--input"],
    );
    assert_bad_input(&graph500(&["--generator", "gsl"]), &["--generator", "gsl"]);
}

#[test]
fn help_and_version_exit_zero() {
    let o = graph500(&["--help"]);
    assert!(o.status.success());
    for word in [
        "generate",
        "bfs",
        "validate",
        "--scale",
        "--keys",
        "--kernel",
        "--threads",
    ] {
        assert!(stdout(&o).contains(word), "--help lacks {word}");
    }
    assert!(graph500(&["--version"]).status.success());
}

/// The exit statuses a paragraph lists: the leading number of each of its
/// `;`-separated clauses after `Exit status:`.
fn statuses_in(paragraph: &str) -> Vec<u8> {
    let (_, list) = paragraph
        .split_once("Exit status:")
        .unwrap_or_else(|| panic!("no exit statuses in {paragraph:?}"));
    list.split(';')
        .map(|clause| {
            let first = clause.split_whitespace().next().unwrap_or_default();
            first
                .parse()
                .unwrap_or_else(|_| panic!("{clause:?} does not start with a status"))
        })
        .collect()
}

/// The paragraph of `text` that holds `marker`, its lines joined.
fn paragraph_with(text: &str, marker: &str) -> String {
    let paragraph = text
        .split("\n\n")
        .find(|p| p.contains(marker))
        .unwrap_or_else(|| panic!("no paragraph with {marker:?}"));
    paragraph.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The paragraph of `graph500 ARGS --help` that documents `option`.
fn help_of(args: &[&str], option: &str) -> String {
    let mut args = args.to_vec();
    args.push("--help");
    let o = graph500(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let help = stdout(&o);
    let start = help
        .lines()
        .position(|l| l.trim_start().starts_with(option) || l.contains(&format!(", {option}")))
        .unwrap_or_else(|| panic!("{args:?} does not list {option}"));
    let lines: Vec<&str> = help.lines().skip(start).collect();
    let end = (1..lines.len())
        .find(|&i| lines[i].trim_start().starts_with('-'))
        .unwrap_or(lines.len());
    lines[..end].join("\n")
}

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

fn guide() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide.md");
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn help_lists_the_exit_statuses_the_readme_and_guide_list() {
    let help = stdout(&graph500(&["--help"]));
    let said = statuses_in(&paragraph_with(&help, "Exit status:"));
    assert_eq!(
        said,
        statuses_in(&paragraph_with(&readme(), "Exit status:"))
    );
    let guide = guide();
    let (_, table) = guide.split_once("## Exit status").unwrap();
    let in_guide: Vec<u8> = (table.lines().skip(1))
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| {
            l.trim_start_matches('|')
                .split('|')
                .next()?
                .trim()
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(said, in_guide);
    assert!(said.contains(&130), "{said:?}");
}

/// `--wide-ids` and `--partition 2d` only change how ranks under mpirun
/// hold the graph: one process refuses them (naming the option, and
/// saying where it works) and accepts `--partition 1d`, and `--help`
/// shows them only in a build with MPI, where they can take effect.
#[test]
fn wide_ids_and_2d_are_refused_in_one_process_and_shown_only_with_mpi() {
    let help = stdout(&graph500(&["--help"]));
    for (option, value) in [("--wide-ids", None), ("--partition", Some("2d"))] {
        let mut args = vec!["--scale", "5", "--keys", "2", option];
        args.extend(value);
        let o = graph500(&args);
        assert_bad_input(&o, &[option, "mpirun"]);
        assert!(stdout(&o).is_empty());
        assert_eq!(help.contains(option), cfg!(feature = "mpi"), "{help}");
    }
    let one_d = graph500(&["--scale", "5", "--keys", "2", "--partition", "1d"]);
    assert!(
        one_d.status.success(),
        "{}",
        String::from_utf8_lossy(&one_d.stderr)
    );
}

/// Every option a command's `--help` lists is in that command's row of the
/// guide's table (the shared --threads, --force, --memory and --quiet are
/// described once below it).
#[test]
fn every_option_of_every_command_is_in_its_row_of_the_guide() {
    let guide = guide();
    for command in [
        "run", "generate", "bfs", "sssp", "validate", "convert", "plot", "profile", "sweep",
    ] {
        let help = stdout(&graph500(&[command, "--help"]));
        let (_, options) = help.split_once("Options:").unwrap();
        let rows: Vec<&str> = guide
            .lines()
            .filter(|l| l.starts_with(&format!("| `graph500 {command} ")))
            .collect();
        assert!(!rows.is_empty(), "no row for {command}");
        for line in options.lines() {
            let Some(option) = line
                .trim_start()
                .trim_start_matches(|c: char| c == '-' || c.is_ascii_alphabetic())
                .strip_prefix(", ")
                .or(Some(line.trim_start()))
                .filter(|o| o.starts_with("--"))
            else {
                continue;
            };
            let name = option.split([' ', '=', '<']).next().unwrap();
            if [
                "--help",
                "--version",
                "--threads",
                "--force",
                "--memory",
                "--quiet",
            ]
            .contains(&name)
            {
                continue;
            }
            let listed = rows.iter().any(|row| {
                row.match_indices(name).any(|(at, _)| {
                    let after = row[at + name.len()..].chars().next();
                    !after.is_some_and(|c| c == '-' || c.is_ascii_alphanumeric())
                })
            });
            assert!(listed, "the guide's row for {command} lacks {name}");
        }
    }
}

/// `generate` picks no roots: its --seed and --generator say nothing of
/// search keys.
#[test]
fn generate_help_does_not_speak_of_search_keys() {
    for option in ["--seed", "--generator"] {
        let text = help_of(&["generate"], option);
        assert!(!text.contains("key"), "{text}");
        let run = help_of(&["run"], option);
        assert!(run.contains("key"), "{run}");
    }
}

/// Options that need another name the one given first: `--trace` without
/// `--json`, and a bad `--delta` before the `--sssp` it also needs.
#[test]
fn a_refused_option_is_named_before_what_it_lacks() {
    assert_bad_input(
        &graph500(&["--scale", "8", "--trace"]),
        &["--trace", "--json"],
    );
    let o = graph500(&["--scale", "8", "--delta", "0"]);
    assert_bad_input(&o, &["--delta 0"]);
    assert!(!stderr(&o).contains("--sssp"), "{}", stderr(&o));
    // A good --delta without --sssp still needs it.
    let o = graph500(&["--scale", "8", "--delta", "0.5"]);
    assert_bad_input(&o, &["--delta", "--sssp"]);
}

/// `--scale` out of range names this build's range: the benchmark's is
/// 1..=31 in a build without MPI and 1..=42 in one with it (ranks go
/// further); `generate` and `profile` always run one process.
#[test]
fn scale_out_of_range_states_this_builds_range() {
    let (one, wide) = (generator::MAX_SCALE, generator::MAX_WIDE_SCALE);
    let run = if cfg!(feature = "mpi") { wide } else { one };
    for (args, max) in [
        (&["--scale", "0"][..], run),
        (&["run", "--scale", "0"], run),
        (&["generate", "--scale", "0", "--out", "x.el"], one),
        (&["profile", "--scale", "0"], one),
    ] {
        let o = graph500(args);
        assert_bad_input(&o, &["--scale", &format!("1..={max}")]);
        let other = if max == one { wide } else { one };
        assert!(!stderr(&o).contains(&format!("{other}")), "{}", stderr(&o));
    }
    if !cfg!(feature = "mpi") {
        // Beyond one process: where larger graphs run.
        let o = graph500(&["--scale", "35"]);
        assert_bad_input(&o, &["--scale", "35", "1..=31", "--features mpi"]);
    }
}

/// `--generator graph500` keeps the reference's rule for its keys: asked
/// for more roots than its guard checks, it repeats roots, and `--help`
/// and the README say so where they promise distinct roots.
#[test]
fn reference_keys_may_repeat_and_help_and_readme_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("r.csv");
    let o = graph500(&[
        "--generator",
        "graph500",
        "--scale",
        "3",
        "--keys",
        "20",
        "-q",
        "--csv",
        path_str(&csv),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let roots: Vec<String> = std::fs::read_to_string(&csv)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().to_string())
        .collect();
    let distinct: std::collections::BTreeSet<&String> = roots.iter().collect();
    assert!(distinct.len() < roots.len(), "{roots:?}");
    let keys = help_of(&["run"], "--keys");
    assert!(
        keys.contains("distinct") && keys.contains("repeat"),
        "{keys}"
    );
    let readme = readme();
    let row = (readme.lines())
        .find(|l| l.starts_with("| `--keys K`"))
        .unwrap();
    assert!(row.contains("distinct") && row.contains("repeat"), "{row}");
}

/// An option that means nothing to a command is neither shown by its
/// `--help` nor taken: `plot` draws (no threads, no memory estimate),
/// `convert` and `sweep` estimate no memory.
#[test]
fn commands_show_and_take_only_options_that_mean_something_to_them() {
    let cases: [(&[&str], &[&str]); 3] = [
        (
            &["plot", "r.json", "--out", "r.svg"],
            &["--threads", "--force"],
        ),
        (&["convert", "a.el", "b.el"], &["--force"]),
        (&["sweep", "--from", "6", "--to", "6"], &["--force"]),
    ];
    for (args, foreign) in cases {
        let help = stdout(&graph500(&[args[0], "--help"]));
        assert!(help.contains("--quiet"), "{help}");
        for option in foreign {
            assert!(!help.contains(option), "{} shows {option}", args[0]);
            let mut args = args.to_vec();
            args.push(option);
            if *option == "--threads" {
                args.push("2");
            }
            assert_bad_input(&graph500(&args), &[option]);
        }
    }
}
