// The one file of CofferTerminal that imports the C library: the terminal device (echo,
// the signals that must restore it, /dev/tty) and the standard descriptors a prompt reads
// and writes. It handles no file a user names: those go through Coffer's store.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads and writes on descriptors, in C terms, for ``SecretInput``.
enum TerminalIO {
    static let standardInput: Int32 = STDIN_FILENO
    static let standardError: Int32 = STDERR_FILENO

    /// Whether `fd` is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// One `read(2)` into `buffer`, retried after signals: the byte count (0 at the end),
    /// or the `errno` of a failed read.
    static func read(_ fd: Int32, into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Result<Int, TerminalError> {
        while true {
            let n = cRead(fd, buffer, count)
            if n >= 0 { return .success(n) }
            if errno != EINTR { return .failure(TerminalError(.readFailed, errno: errno)) }
        }
    }

    /// Writes all of `bytes` to `fd`, retried after signals; stops quietly at an error
    /// (a prompt that cannot be shown is no reason to fail).
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            let n = write(fd, base + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }

    /// Moves `fd`'s offset `count` bytes back, so that what was read ahead is read again by
    /// whoever reads next; false where it cannot seek (a pipe, a terminal).
    static func unread(_ count: Int, on fd: Int32) -> Bool {
        lseek(fd, -off_t(count), SEEK_CUR) >= 0
    }

    static func close(_ fd: Int32) { _ = cClose(fd) }

    /// Flushes every stdio stream, so that what a caller printed comes before the prompt.
    static func flushStandardStreams() { fflush(nil) }

    /// The C library's text for `code`, e.g. "Input/output error".
    static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}

// The C functions under names the members above do not shadow.
private func cRead(_ fd: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int { read(fd, buffer, count) }
private func cClose(_ fd: Int32) -> Int32 { close(fd) }

// State the signal handler reads. Signal handlers cannot capture context, so it is
// global; it is written only by the thread that reads a password, before the
// handlers are installed and after they are removed.
nonisolated(unsafe) private var echoTerminalFD: Int32 = -1
nonisolated(unsafe) private var echoSavedSettings = termios()
nonisolated(unsafe) private var echoQuietSettings = termios()
nonisolated(unsafe) private var echoIsOff: sig_atomic_t = 0

/// The signals after which the terminal must not be left without echo.
private let echoRestoringSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP]

/// Restores echo, then lets the signal do what it would have done. For Ctrl-Z
/// (SIGTSTP) the process stops with echo on and turns it off again when continued.
private func echoSignalHandler(_ signo: Int32) {
    if echoIsOff != 0 {
        tcsetattr(echoTerminalFD, TCSAFLUSH, &echoSavedSettings)
    }
    var newline: UInt8 = 10
    _ = write(2, &newline, 1)
    signal(signo, SIG_DFL)
    // The kernel blocks `signo` while its handler runs: unblock it so that raise()
    // acts now, with the default action, instead of re-entering this handler later.
    var only = sigset_t()
    sigemptyset(&only)
    sigaddset(&only, signo)
    pthread_sigmask(SIG_UNBLOCK, &only, nil)
    raise(signo)
    guard signo == SIGTSTP else {
        // Not reached for terminating signals; never loop if it somehow is.
        _exit(128 + signo)
    }
    // Continued after Ctrl-Z: back to the prompt, without echo.
    signal(signo, echoSignalHandler)
    if echoIsOff != 0 {
        tcsetattr(echoTerminalFD, TCSAFLUSH, &echoQuietSettings)
    }
}

/// Turns off echo on a terminal while a secret is typed, and always turns it back on:
/// when the read ends, when it fails, and on SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGTSTP.
enum TerminalEcho {
    /// Runs `body` with echo off on `fd` (a terminal). Newlines are not echoed either;
    /// the caller prints one after the secret line.
    static func withEchoOff<R>(fd: Int32, _ body: () throws(TerminalError) -> R) throws(TerminalError) -> R {
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { throw TerminalError(.terminalSettingsUnavailable, errno: errno) }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK | ECHONL)
        quiet.c_lflag |= tcflag_t(ICANON)

        echoTerminalFD = fd
        echoSavedSettings = saved
        echoQuietSettings = quiet
        var previous: [(Int32, sighandler_t?)] = []
        for signo in echoRestoringSignals {
            previous.append((signo, signal(signo, echoSignalHandler)))
        }
        // Ctrl-C must work at a prompt even if the parent started us with these blocked.
        var unblock = sigset_t()
        var previousMask = sigset_t()
        sigemptyset(&unblock)
        for signo in echoRestoringSignals { sigaddset(&unblock, signo) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, &previousMask)
        guard tcsetattr(fd, TCSAFLUSH, &quiet) == 0 else {
            let code = errno
            pthread_sigmask(SIG_SETMASK, &previousMask, nil)
            for (signo, handler) in previous { signal(signo, handler) }
            throw TerminalError(.echoNotDisabled, errno: code)
        }
        echoIsOff = 1
        defer {
            tcsetattr(fd, TCSAFLUSH, &saved)
            echoIsOff = 0
            pthread_sigmask(SIG_SETMASK, &previousMask, nil)
            for (signo, handler) in previous { signal(signo, handler) }
            echoTerminalFD = -1
        }
        return try body()
    }

    /// `/dev/tty`, the controlling terminal, when the process has one; nil otherwise.
    static func openControllingTerminal() -> Int32? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard isatty(fd) == 1 else {
            TerminalIO.close(fd)
            return nil
        }
        return fd
    }

    /// The terminal to prompt on: `/dev/tty` when it is the same terminal as standard
    /// input, else standard input itself. Returns the descriptor and whether to close it.
    static func openTerminal() -> (fd: Int32, owned: Bool) {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return (0, false) }
        var ttyInfo = stat()
        var stdinInfo = stat()
        if fstat(fd, &ttyInfo) == 0, fstat(0, &stdinInfo) == 0, ttyInfo.st_rdev == stdinInfo.st_rdev {
            return (fd, true)
        }
        close(fd)
        return (0, false)
    }
}
