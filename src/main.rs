//! The `othello-engine` binary: the command line (`cli`) does the rest, once the CPU is known
//! to run the build (`sys::cpu`) and any level forced on it (`board::cpu`).

use std::process::ExitCode;

fn main() -> ExitCode {
    if let Some(line) = othello_engine::sys::cpu::refusal() {
        eprintln!("{line}");
        return ExitCode::from(1);
    }
    if let Err(line) = othello_engine::board::cpu::forced() {
        eprintln!("othello-engine: {line}");
        return ExitCode::from(1);
    }
    othello_engine::cli::main()
}
