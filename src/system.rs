//! What the operating system says about this machine and this process
//! (Linux `/proc`; `None` elsewhere).

/// The peak resident set of this process so far, in bytes (`VmHWM`).
pub fn peak_resident_bytes() -> Option<u64> {
    kib_field(
        &std::fs::read_to_string("/proc/self/status").ok()?,
        "VmHWM:",
    )
}

/// Memory available to a new allocation without swapping, in bytes
/// (`MemAvailable`).
pub fn available_memory_bytes() -> Option<u64> {
    kib_field(
        &std::fs::read_to_string("/proc/meminfo").ok()?,
        "MemAvailable:",
    )
}

/// Physical memory, in bytes (`MemTotal`).
pub fn total_memory_bytes() -> Option<u64> {
    kib_field(&std::fs::read_to_string("/proc/meminfo").ok()?, "MemTotal:")
}

/// The CPU's model name.
pub fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("model name"))?;
    Some(line.split_once(':')?.1.trim().to_string())
}

/// One line naming the machine: CPU, cores, memory.
pub fn describe_machine() -> String {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let memory = total_memory_bytes().map_or(String::new(), |b| {
        format!(", {:.0} GiB", b as f64 / f64::from(1u32 << 30))
    });
    format!(
        "{}, {cores} cores{memory}",
        cpu_model().unwrap_or_else(|| "unknown CPU".into())
    )
}

/// The value of a `name: N kB` line, in bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..]
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_kib_fields() {
        let status = "Name:\tgraph500\nVmPeak:\t  2000 kB\nVmHWM:\t    1234 kB\n";
        assert_eq!(kib_field(status, "VmHWM:"), Some(1234 * 1024));
        assert_eq!(kib_field(status, "VmRSS:"), None);
    }

    #[test]
    fn this_process_has_a_peak() {
        if cfg!(target_os = "linux") {
            assert!(peak_resident_bytes().is_some_and(|b| b > 0));
        }
    }
}
