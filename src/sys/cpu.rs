//! The CPU the build assumes. On x86-64 the build targets x86-64-v2 (`.cargo/config.toml`), so a
//! CPU without POPCNT or SSE4.1/4.2 would die on its first such instruction (SIGILL) somewhere in the
//! search; checked first thing at start instead, it gets a line saying why and what to do.

/// The baseline's features this CPU lacks, empty when it has them all (and on other
/// architectures, which build for their own baseline).
pub fn missing_features() -> Vec<&'static str> {
    #[allow(unused_mut)]
    let mut missing = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        // Asked of the CPU itself: `is_x86_feature_detected!` answers yes without asking for
        // a feature the build enables, which is exactly the case to check here.
        // CPUID leaf 1 exists on every x86-64 CPU (a safe intrinsic).
        let ecx = std::arch::x86_64::__cpuid(1).ecx;
        for (bit, name) in [(19, "sse4.1"), (20, "sse4.2"), (23, "popcnt")] {
            if ecx & (1 << bit) == 0 {
                missing.push(name);
            }
        }
    }
    missing
}

/// The one line a CPU below the baseline gets, if this one is.
pub fn refusal() -> Option<String> {
    refusal_for(&missing_features())
}

fn refusal_for(missing: &[&str]) -> Option<String> {
    (!missing.is_empty()).then(|| {
        format!(
            "othello-engine: this build needs an x86-64-v2 CPU, and this one lacks {}; \
             build for it with RUSTFLAGS=\"-C target-cpu=native\" cargo build --release",
            missing.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cpu_without_the_baseline_is_told_what_it_lacks() {
        assert_eq!(refusal_for(&[]), None);
        let line = refusal_for(&["popcnt", "sse4.2"]).expect("a refusal");
        assert!(line.contains("lacks popcnt, sse4.2;"), "{line}");
        assert!(!line.contains('\n'));
    }
}
