//! stub
pub fn main(_a: &crate::cli::ExperimentArgs) -> Result<std::process::ExitCode, String> {
    Err("not yet".into())
}
