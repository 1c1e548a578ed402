//! How the C allocator grows the heaps the compute threads allocate from.
#![allow(
    unsafe_code,
    reason = "mallopt is a C call that only sets one of the allocator's tuning values"
)]

/// Bytes glibc's malloc adds beyond what an allocation needs each time it grows a heap.
///
/// Each compute thread allocates from its own arena, a heap that glibc grows a few pages at a
/// time with an `mprotect` each. A 32 MiB search with matches made about 170 such calls, and
/// every `mprotect` takes the process's memory-map lock that the other thread's page faults
/// wait on: 3-4% of that search. Pages the pad reserves are not touched until
/// used, so resident memory does not grow with it.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TOP_PAD_BYTES: libc::c_int = 4 << 20;

/// Has heaps grow [`TOP_PAD_BYTES`] at a time. Like glibc's `top_pad` tunable, this also fixes
/// the size from which allocations are mapped on their own at its default (128 KiB).
/// Elsewhere than glibc on Linux, nothing is changed.
///
/// # Safety
///
/// No other thread may be running: glibc's `mallopt` is MT-Unsafe, as the threads' allocations
/// read the value it sets without a lock. Call it first thing in `main`.
pub unsafe fn pad_heap_growth() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: the caller guarantees no other thread runs; `mallopt` touches no memory of
    // ours. A value it refuses (it returns 0) leaves the allocator as it was, which is only
    // slower, so the result is not checked.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, TOP_PAD_BYTES);
    }
}
