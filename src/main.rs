fn main() -> std::process::ExitCode {
    crdgen::cli::main()
}
