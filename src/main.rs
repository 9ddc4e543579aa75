fn main() -> std::process::ExitCode {
    return_freed_memory_soon();
    edgeaudit::cli::main()
}

/// See docs/src/performance.md, "The allocator".
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay`: its place in `mi_option_e`, which
/// mimalloc keeps stable (retired options keep their places as `deprecated_*`).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Freed memory goes back to the system after 10 ms (mimalloc 2's default)
/// rather than mimalloc 3's 1 s: a check lasts about a second, so with the
/// longer delay what one stage freed stayed in the peak of the next (at
/// 100 000 custom hostnames 83 MB instead of 57 MB), and the peak no longer
/// grew in proportion to the records.
#[allow(unsafe_code)] // a C function of the allocator
fn return_freed_memory_soon() {
    // SAFETY: sets one integer option; mimalloc reads options at any time
    // and accepts any value for this one.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 10) }
}
