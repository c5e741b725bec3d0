//! The `othello-engine` binary: the command line (`cli`) does the rest.

fn main() -> std::process::ExitCode {
    othello_engine::cli::main()
}
