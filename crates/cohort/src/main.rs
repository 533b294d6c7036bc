//! `cohort`: the server (`cohort serve`) and the load generator (`cohort bench`).

use clap::{Parser, Subcommand};
use cohort_server::config::{Config, ServeArgs};
use std::process::ExitCode;

/// The global allocator: mimalloc's per-thread heaps instead of glibc malloc. A commit's
/// buffers are allocated by a session on one pool worker and freed by the group's leader on
/// another, and with thousands of connections glibc's bins go cold. Measured against glibc on
/// the 2-core host (pool of threads, warm sysbench, 3 alternating rounds, medians): durable
/// `oltp_update_non_index` +14% tps at 64 and at 1024 threads, server CPU per transaction
/// -17% / -21%; point selects +5% / +17% (one round); 1–4 threads unchanged. The cost is
/// memory: 1.0 GB resident against 0.58 GB after the 1024-thread runs.
///
/// Wrapped in the server's counting allocator: one thread-local add per allocation and free,
/// which is how a connection's memory is held to `max_session_mem_used`
/// (`cohort_server::memory`).
#[global_allocator]
static GLOBAL: cohort_server::memory::Counting<mimalloc::MiMalloc> =
    cohort_server::memory::Counting(mimalloc::MiMalloc);

/// `mi_option_purge_delay` in mimalloc.h's option enum (v2 and v3).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// `mi_option_allow_thp` in mimalloc.h's option enum (v2).
const MI_OPTION_ALLOW_THP: libmimalloc_sys::mi_option_t = 37;

/// No transparent huge pages for the server's heap.
///
/// mimalloc asks for them (`madvise(MADV_HUGEPAGE)` on its arenas, which the usual
/// `transparent_hugepage=madvise` setting honours), and every thread has its own heap. Under
/// TPC-C at 1024 pool connections, lock waits keep about 1,100 threads alive, each touching
/// its pages now and then: the server held 4.1 GB of AnonHugePages in a 5 GB RSS, and 43 % of
/// its CPU was the kernel zeroing 2 MiB pages (`clear_page_erms` under page faults, after
/// purges split them) — 5,000–9,400 µs of server CPU per transaction against ~1,100 at 16
/// connections. With 4 KiB pages a fault zeroes 4 KiB.
///
/// Two steps, because mimalloc reserves its first arena before `main`: the option stops
/// the `madvise` on arenas reserved from now on, and `PR_SET_THP_DISABLE` makes the kernel
/// fault every mapping of the process, the first arena's too, in 4 KiB pages.
fn no_transparent_huge_pages() {
    // SAFETY: mi_option_set only stores a process-wide option value, read on each OS
    // allocation. prctl(PR_SET_THP_DISABLE) only sets a flag on this process's mm.
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_ALLOW_THP, 0);
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// How long freed memory stays mapped before mimalloc hands it back to the OS.
const PURGE_DELAY_MS: std::os::raw::c_long = 100;

/// Hand freed memory back to the OS 100 ms after mimalloc frees it, and make sure that
/// happens on an idle server too.
///
/// Not at once (delay 0, which this was): under load a worker's mimalloc page empties and
/// fills again many times a second, and purging it at once is an `madvise` whose TLB
/// shootdown interrupts every CPU running a server thread, then page faults to map it again.
/// Whether a run fell into that churn depended on where its pages happened to empty: sysbench
/// point selects at 64 connections on 2 CPUs ran at about 23 µs of server CPU a transaction in
/// some runs and 30–74 µs in others, with `smp_call_function_many_cond` and
/// `native_write_msr` (the shootdown's interrupts) 23% of the slow runs' profile under
/// `__madvise` from `mi_arena_purge` — the pool's throughput swung 2× between runs and within
/// them.
///
/// mimalloc runs a delayed purge only when some thread later allocates or collects, so an
/// idle server after a burst of connections would keep the burst's memory (the interop churn
/// check: 10 000 dropped connections, VmRSS 290–440 MB above its start with the 10 ms default
/// and no collection): the `mi-purge` thread collects every `PURGE_DELAY_MS`, which purges
/// what has waited its delay. Measured (2 CPUs, thread per connection, 512 sysbench
/// connections for 4 s): VmRSS 256 MB right after the burst (74 MB purging at once, 477 MB
/// with a 1 s delay) and 75 MB after 3 s idle (73 MB at once); point selects at 64 pool
/// connections took 9.1–13.4 µs a transaction in 5 runs, and the shootdown symbols fell from
/// 11–23% of the profile to 0.03%.
fn purge_freed_memory_after_100_ms() {
    // SAFETY: mi_option_set only stores a process-wide option value; mimalloc reads it on
    // each purge. Called first thing in main.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) }
    let collector = std::thread::Builder::new()
        .name("mi-purge".into())
        .spawn(|| {
            // This thread starts before `serve` blocks SIGTERM / SIGINT for the threads that
            // follow (crate::shutdown): block every signal here, or the kernel could deliver
            // a SIGTERM to this thread, whose default action kills the process instead of the
            // clean shutdown.
            // SAFETY: sigset_t is plain data, filled by sigfillset before use; pthread_sigmask
            // changes only this thread's mask.
            unsafe {
                let mut set: libc::sigset_t = std::mem::zeroed();
                libc::sigfillset(&mut set);
                libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
            }
            loop {
                std::thread::sleep(std::time::Duration::from_millis(PURGE_DELAY_MS as u64));
                // SAFETY: mi_collect may be called from any thread at any time; without
                // `force` it purges only what has waited `PURGE_DELAY_MS` (and this thread's
                // own heap).
                unsafe { libmimalloc_sys::mi_collect(false) }
            }
        });
    if let Err(e) = collector {
        eprintln!("cannot start the mi-purge thread: {e}");
    }
}

#[derive(Parser)]
#[command(name = "cohort", version = cohort_server::VERSION, about = "A MySQL-wire-compatible OLTP server")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once at startup: the size of the flag structs does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Run the server.
    Serve(Box<ServeArgs>),
    /// Load generator and experiment runner (see `cohort bench --help`).
    Bench(Box<cohort_bench::BenchArgs>),
}

fn main() -> ExitCode {
    purge_freed_memory_after_100_ms();
    no_transparent_huge_pages();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("COHORT_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(args) => serve(&args),
        Command::Bench(args) => cohort_bench::main(*args),
    }
}

fn serve(args: &ServeArgs) -> ExitCode {
    let cfg = match Config::resolve(args) {
        Ok(cfg) => cfg,
        Err(e) => {
            eprintln!("cohort serve: {}", e.message());
            return ExitCode::from(2);
        }
    };
    match cohort_server::net::serve(cfg) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cohort serve: {e}");
            ExitCode::FAILURE
        }
    }
}
