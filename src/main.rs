// Generation allocates many small strings and token trees from two threads; glibc's
// allocator spent a third of a large run in malloc and free, mimalloc far less.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    crdgen::command_line()
}
