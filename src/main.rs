fn main() -> std::process::ExitCode {
    edgeaudit::cli::main()
}
