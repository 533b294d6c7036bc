//! Development entry point: `cohort-bench-dev <bench args>` behaves like `cohort bench …`.

use clap::Parser;

#[derive(Parser)]
#[command(name = "cohort-bench-dev")]
struct Cli {
    #[command(flatten)]
    args: cohort_bench::BenchArgs,
}

fn main() -> std::process::ExitCode {
    cohort_bench::main(Cli::parse().args)
}
