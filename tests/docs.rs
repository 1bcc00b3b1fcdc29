//! The documentation's links. Every markdown link and image in README.md,
//! DEVELOPERS.md, data/README.md and docs/*.md that is not a web address
//! names a file or folder of this repository, and, with a `#anchor`, a
//! heading of that document by its GitHub slug; no link or path leaves the
//! repository (a user's clone has nothing beside it); and README.md stays
//! a ten-minute read, at most 300 lines.
//!
//! Links inside code (fenced blocks and code spans) are text, not links,
//! and are not checked. Plain std: the parsing below is the small part of
//! CommonMark these documents use (inline links, images, reference
//! definitions, `src`/`href` attributes, ATX headings).

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The repository's root (the root package's folder).
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// README's budget: a newcomer reads it in ten minutes.
const README_MAX_LINES: usize = 300;

/// The documents whose links are checked, relative to the root.
fn documents() -> Vec<String> {
    let mut docs: Vec<String> = ["README.md", "DEVELOPERS.md", "data/README.md"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let mut in_docs: Vec<String> = fs::read_dir(Path::new(ROOT).join("docs"))
        .expect("docs/ exists")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    in_docs.sort();
    docs.extend(in_docs);
    docs
}

fn read(relative: &str) -> String {
    fs::read_to_string(Path::new(ROOT).join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// The text with fenced code blocks and code spans blanked out (each
/// character of code becomes a space, newlines kept, so line numbers hold).
fn without_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<String> = None;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let marker: String = trimmed
            .chars()
            .take_while(|&c| c == '`' || c == '~')
            .collect();
        let opens = marker.len() >= 3 && marker.chars().all(|c| c == marker.as_bytes()[0] as char);
        match &fence {
            Some(open) if opens && marker.starts_with(open.as_str()) => {
                fence = None;
                out.push_str(&blank(line));
            }
            Some(_) => out.push_str(&blank(line)),
            None if opens => {
                fence = Some(marker);
                out.push_str(&blank(line));
            }
            None => out.push_str(line),
        }
    }
    without_code_spans(&out)
}

/// Spaces for every character of `s` but its newlines.
fn blank(s: &str) -> String {
    s.chars()
        .map(|c| if c == '\n' { '\n' } else { ' ' })
        .collect()
}

/// Code spans blanked: a run of n backticks up to the next run of exactly
/// n within the same paragraph; an unmatched run is literal text.
fn without_code_spans(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|&&c| c == '`').count();
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '\n' && chars.get(j + 1) == Some(&'\n') {
                break; // a paragraph ends: no span
            }
            if chars[j] == '`' {
                let other = chars[j..].iter().take_while(|&&c| c == '`').count();
                if other == run {
                    close = Some(j);
                    break;
                }
                j += other;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                let span: String = chars[i..end + run].iter().collect();
                out.push_str(&blank(&span));
                i = end + run;
            }
            None => {
                out.extend(&chars[i..i + run]);
                i += run;
            }
        }
    }
    out
}

/// One link of a document: its 1-based line and its target as written.
#[derive(Debug, PartialEq)]
struct Link {
    line: usize,
    target: String,
}

/// The link and image targets of a markdown text, outside code: inline
/// `[text](target "title")` and `![alt](target)`, reference definitions
/// `[label]: target`, and HTML `src="..."` / `href="..."`.
fn links(text: &str) -> Vec<Link> {
    let text = without_code(text);
    let mut found = Vec::new();
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    let mut from = 0;
    while let Some(at) = text[from..].find("](") {
        let start = from + at + 2;
        let rest = &text[start..];
        let (target, used) = if let Some(angled) = rest.strip_prefix('<') {
            let end = angled.find('>').unwrap_or(angled.len());
            (angled[..end].to_owned(), end + 2)
        } else {
            let end = rest
                .find(|c: char| c == ')' || c.is_whitespace())
                .unwrap_or(rest.len());
            (rest[..end].to_owned(), end)
        };
        found.push(Link {
            line: line_of(start),
            target,
        });
        from = start + used.max(1);
    }
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if let Some(label_end) = trimmed.strip_prefix('[').and_then(|r| r.find("]:")) {
            let target = trimmed[1 + label_end + 2..].split_whitespace().next();
            if let Some(target) = target {
                found.push(Link {
                    line: line_of(offset),
                    target: target.trim_matches(|c| c == '<' || c == '>').to_owned(),
                });
            }
        }
        for attribute in ["src=\"", "href=\""] {
            let mut from = 0;
            while let Some(at) = line[from..].find(attribute) {
                let start = from + at + attribute.len();
                let end = line[start..].find('"').map_or(line.len(), |e| start + e);
                found.push(Link {
                    line: line_of(offset),
                    target: line[start..end].to_owned(),
                });
                from = end;
            }
        }
        offset += line.len();
    }
    found.sort_by_key(|l| l.line);
    found
}

/// A web or mail address: checked by no test here.
fn is_web(target: &str) -> bool {
    ["http://", "https://", "mailto:"]
        .iter()
        .any(|scheme| target.starts_with(scheme))
}

/// `%XX` escapes decoded (a link to a file with a space in its name).
fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Where a relative target of the document `doc` points, relative to the
/// root, or why it leaves the repository.
fn resolve(doc: &str, target: &str) -> Result<PathBuf, String> {
    let path = percent_decoded(target.split('#').next().unwrap_or(""));
    if path.starts_with('/') || path.starts_with('\\') || path.contains(':') {
        return Err(format!("{target} is not a path inside the repository"));
    }
    let mut parts: Vec<String> = Path::new(doc)
        .parent()
        .map(|p| {
            p.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(format!("{target} climbs out of the repository"));
                }
            }
            name => parts.push(name.to_owned()),
        }
    }
    Ok(parts.iter().collect())
}

/// GitHub's anchor for a heading: the heading's text without markdown
/// marks, lower-cased, every character but letters, digits, `-`, `_` and
/// spaces dropped, spaces turned into `-`.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // A link in a heading keeps only its text.
    while let Some(open) = rest.find('[') {
        match rest[open..].find("](").map(|m| open + m) {
            Some(mid) => {
                text.push_str(&rest[..open]);
                text.push_str(&rest[open + 1..mid]);
                rest = rest[mid..]
                    .find(')')
                    .map_or("", |end| &rest[mid + end + 1..]);
            }
            None => break,
        }
    }
    text.push_str(rest);
    text.chars()
        .filter_map(|c| {
            if c == ' ' {
                Some('-')
            } else if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c)
            } else {
                None
            }
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// The anchors of a markdown document: its ATX headings' slugs, a repeated
/// slug numbered `-1`, `-2` as GitHub numbers them.
fn anchors(text: &str) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let original: Vec<&str> = text.lines().collect();
    let mut result = Vec::new();
    // Headings are found outside code, but titled from the original line,
    // so that a `code` span in a heading keeps its words.
    for (i, line) in without_code(text).lines().enumerate() {
        let trimmed = line.trim_start();
        let hashes = trimmed.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !trimmed[hashes..].starts_with(' ') {
            continue;
        }
        let source = original[i].trim_start();
        let title = source[hashes..].trim().trim_end_matches('#').trim();
        let base = slug(&title.replace(['`', '*'], ""));
        let count = seen.entry(base.clone()).or_insert(0);
        result.push(if *count == 0 {
            base.clone()
        } else {
            format!("{base}-{count}")
        });
        *count += 1;
    }
    result
}

/// Every checked link of every document: (document, link).
fn all_links() -> Vec<(String, Link)> {
    documents()
        .into_iter()
        .flat_map(|doc| {
            let text = read(&doc);
            links(&text).into_iter().map(move |l| (doc.clone(), l))
        })
        .filter(|(_, l)| !is_web(&l.target))
        .collect()
}

#[test]
fn readme_is_at_most_300_lines() {
    let lines = read("README.md").lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines; at most {README_MAX_LINES} (move detail to docs/)"
    );
}

#[test]
fn every_relative_link_names_a_file_of_the_repository() {
    let mut broken = Vec::new();
    for (doc, link) in all_links() {
        if link.target.starts_with('#') {
            continue; // an anchor of the same document: the anchor test
        }
        match resolve(&doc, &link.target) {
            Ok(path) if Path::new(ROOT).join(&path).exists() => {}
            Ok(path) => broken.push(format!(
                "{doc}:{}: {} ({} does not exist)",
                link.line,
                link.target,
                path.display()
            )),
            Err(why) => broken.push(format!("{doc}:{}: {why}", link.line)),
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_anchor_names_a_heading_of_its_document() {
    let mut broken = Vec::new();
    for (doc, link) in all_links() {
        let Some((path, anchor)) = link.target.split_once('#') else {
            continue;
        };
        let file = if path.is_empty() {
            PathBuf::from(&doc)
        } else {
            match resolve(&doc, path) {
                Ok(file) => file,
                Err(_) => continue, // the link test names it
            }
        };
        let Ok(text) = fs::read_to_string(Path::new(ROOT).join(&file)) else {
            continue; // a missing file: the link test names it
        };
        if !anchors(&text).iter().any(|a| *a == percent_decoded(anchor)) {
            broken.push(format!(
                "{doc}:{}: {} (no heading of {} has the slug {anchor})",
                link.line,
                link.target,
                file.display()
            ));
        }
    }
    assert!(broken.is_empty(), "broken anchors:\n{}", broken.join("\n"));
}

#[test]
fn no_link_leaves_the_repository() {
    let escaping: Vec<String> = all_links()
        .into_iter()
        .filter_map(|(doc, link)| {
            let why = resolve(&doc, &link.target).err()?;
            Some(format!("{doc}:{}: {why}", link.line))
        })
        .collect();
    assert!(
        escaping.is_empty(),
        "links outside the repository:\n{}",
        escaping.join("\n")
    );
}

#[test]
fn no_document_names_a_file_outside_the_repository() {
    // A path a clone lacks, even in prose or code: the steering checkout
    // beside the repository, or the machine it was written on.
    let mut found = Vec::new();
    for doc in documents() {
        for (i, line) in read(&doc).lines().enumerate() {
            for outside in ["../shared/", "/work/"] {
                if line.contains(outside) {
                    found.push(format!("{doc}:{}: {}", i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "paths outside the repository:\n{}",
        found.join("\n")
    );
}

#[test]
fn links_in_code_are_text() {
    let text = "See [the guide](docs/guide.md) and `[not](a-link.md)`.\n\
                \n\
                ```sh\n\
                echo [x](fenced.md)\n\
                ```\n\
                ![plot](docs/p.svg \"title\")\n\
                [ref]: docs/ref.md\n\
                <img src=\"docs/i.svg\">\n";
    let targets: Vec<(usize, String)> = links(text)
        .into_iter()
        .map(|l| (l.line, l.target))
        .collect();
    let expected = [
        (1, "docs/guide.md"),
        (6, "docs/p.svg"),
        (7, "docs/ref.md"),
        (8, "docs/i.svg"),
    ]
    .map(|(line, target)| (line, target.to_owned()));
    assert_eq!(targets, expected);
}

#[test]
fn slugs_follow_githubs_rule() {
    assert_eq!(
        slug("How `dobfs` works, and why it is fast"),
        "how-dobfs-works-and-why-it-is-fast"
    );
    assert_eq!(slug("On a cluster: mpirun"), "on-a-cluster-mpirun");
    assert_eq!(slug("Kernel 3 (--sssp)"), "kernel-3---sssp");
    assert_eq!(
        slug("snake_case and [a link](x.md)"),
        "snake_case-and-a-link"
    );
    assert_eq!(
        anchors("# A\n\n```\n# not a heading\n```\n\n## A\n### `code` B\n"),
        ["a", "a-1", "code-b"]
    );
}

#[test]
fn paths_that_climb_out_are_refused() {
    assert_eq!(
        resolve("docs/guide.md", "../README.md#x"),
        Ok(PathBuf::from("README.md"))
    );
    assert!(resolve("README.md", "../shared/GRAPH500.md").is_err());
    assert!(resolve("docs/guide.md", "../../x.md").is_err());
    assert!(resolve("README.md", "/work/shared/GRAPH500.md").is_err());
    assert!(resolve("README.md", "file:///etc/passwd").is_err());
}
