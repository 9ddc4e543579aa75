//! Lines on standard error and text on standard output that never panic.
//! `eprintln!` and `print!` panic when the stream is a closed pipe
//! (`edgeaudit plan … 2>&1 | head -1`): a reader that went away is not an
//! error of ours, and the exit code stays the verdict's (0, 1 or 2). The
//! crate denies `print!`-style macros outside tests, so this is the only way
//! out.

use std::io::Write;

/// One line on standard error; a closed stream drops it. Whatever the line
/// holds (an input error quoting a value, a name from the live account), it
/// is written through the terminal's escaping: no escape sequence, and no
/// line a CI runner reads as a workflow command.
pub fn line(args: std::fmt::Arguments<'_>) {
    let text = args.to_string();
    let shown = crate::text::escape::terminal::lines(&text, false);
    let _ = writeln!(std::io::stderr().lock(), "{shown}");
}

/// `eprintln!` that never panics.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::say::line(format_args!($($arg)*))
    };
}

/// Writes to standard output: `Ok` when the reader went away (`| head`),
/// the error otherwise.
pub fn stdout(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Whether a write failed only because the reader went away.
pub fn reader_left(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::BrokenPipe
}
