fn main() -> std::process::ExitCode {
    edgeaudit::cli::main()
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
