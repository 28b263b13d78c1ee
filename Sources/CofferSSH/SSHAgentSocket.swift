import CCofferSystem
import CofferCrypto
import CofferVault
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The one file of CofferSSH that calls the C library: the agent's Unix socket.

/// The Unix socket an ``SSHAgent`` serves (what `SSH_AUTH_SOCK` names), mode 0600 in a
/// folder of mode 0700 owned by this user.
///
/// One thread serves every connection with `poll`: a message is read to its 4-byte length,
/// and a length over ``SSHAgentRequest/maximumLength`` (or zero) is answered with
/// SSH_AGENT_FAILURE and the connection closed, with nothing allocated for it. A message
/// still incomplete after ``messageTimeout``, or a connection idle for ``idleTimeout``, is
/// closed; at most ``maximumConnections`` are open at once. A peer of another user
/// (`SO_PEERCRED`) is closed at once.
///
/// ```swift
/// let socket = try SSHAgentSocket(path: SSHAgentSocket.defaultPath(name: "agent"))
/// try socket.serve(SSHAgent { try Vault.open(at: path, unlockCache: KernelKeyring()) }) { stopRequested }
/// ```
public final class SSHAgentSocket {
    public let path: String
    private let listener: Int32

    public static let messageTimeout: Duration = .seconds(10)
    public static let idleTimeout: Duration = .seconds(600)
    public static let maximumConnections = 64

    /// `$XDG_RUNTIME_DIR/coffer/NAME.sock`, else `/tmp/coffer-UID/NAME.sock`.
    public static func defaultPath(name: String) -> String {
        let runtime = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) } ?? ""
        let folder = runtime.hasPrefix("/") ? runtime + "/coffer" : "/tmp/coffer-\(getuid())"
        return folder + "/" + name + ".sock"
    }

    /// Creates the socket at `path`. Its folder is created with mode 0700 when missing;
    /// an existing one must be a folder (not a link) of this user that no one else may
    /// enter (mode 0700 or stricter). A stale socket at `path` (no agent answers) is
    /// replaced; a live one (another agent), or any other file, is ``CofferError/fileExists(_:)``.
    public init(path: String) throws(CofferError) {
        guard !path.isEmpty else { throw .invalidArgument("the socket path is empty") }
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        try Self.checkFolder(folder.isEmpty ? "/" : folder)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            throw .invalidArgument("the socket path is \(path.utf8.count) bytes; a Unix socket path has at most \(capacity - 1)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        try Self.removeStaleSocket(path, address: address)
        let fd = socket(AF_UNIX, Self.streamType, 0)
        guard fd >= 0 else { throw Self.failure("socket", path) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        // Created 0600 (umask), so no one else can connect between bind and chmod.
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(previous)
        guard bound == 0, chmod(path, 0o600) == 0, listen(fd, 16) == 0 else {
            let error = Self.failure("bind", path)
            close(fd)
            throw error
        }
        self.path = path
        self.listener = fd
    }

    deinit {
        close(listener)
        unlink(path)
    }

    /// Serves `agent` until `shouldStop` returns true (checked at least every 250 ms).
    public func serve(_ agent: SSHAgent, until shouldStop: () -> Bool) {
        var connections: [Connection] = []
        defer { for connection in connections { close(connection.fd) } }
        let clock = ContinuousClock()
        while !shouldStop() {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
                + connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), 250)
            if ready < 0 && errno != EINTR { return }
            let now = clock.now
            var keep: [Connection] = []
            for (index, var connection) in connections.enumerated() {
                let events = fds[index + 1].revents
                var open = true
                if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                    open = connection.readAvailable(agent: agent, now: now)
                } else if connection.pending.isEmpty ? now - connection.lastActivity > Self.idleTimeout
                                                     : now - connection.lastActivity > Self.messageTimeout {
                    agent.report(connection.pending.isEmpty ? "closed an idle connection" : "closed a connection whose message did not arrive in time")
                    open = false
                }
                if open { keep.append(connection) } else { close(connection.fd) }
            }
            connections = keep
            if fds[0].revents & Int16(POLLIN) != 0 {
                let fd = accept(listener, nil, nil)
                if fd >= 0 {
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                    if connections.count >= Self.maximumConnections {
                        agent.report("refused a connection: \(Self.maximumConnections) are open")
                        close(fd)
                    } else if !Self.peerIsThisUser(fd) {
                        agent.report("refused a connection from another user")
                        close(fd)
                    } else {
                        var timeout = timeval(tv_sec: 5, tv_usec: 0)
                        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                        connections.append(Connection(fd: fd, lastActivity: clock.now))
                    }
                }
            }
        }
    }

    /// One client: the bytes of its message so far.
    private struct Connection {
        let fd: Int32
        var lastActivity: ContinuousClock.Instant
        var pending: [UInt8] = []
        /// The length of the message being read, once its 4 bytes are in.
        var expected: Int?

        /// Reads what has arrived (one `read`, so it never blocks after `poll`) and answers a
        /// complete message. False when the connection is to be closed.
        mutating func readAvailable(agent: SSHAgent, now: ContinuousClock.Instant) -> Bool {
            // Never more than the rest of the current length field or message.
            let want = expected.map { $0 - pending.count } ?? (4 - pending.count)
            var chunk = [UInt8](repeating: 0, count: max(1, min(want, 64 * 1024)))
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { return true }
            guard n > 0 else {
                if !pending.isEmpty { agent.report("a connection closed in the middle of a message (truncated)") }
                return false
            }
            lastActivity = now
            pending += chunk.prefix(n)
            if expected == nil {
                guard pending.count == 4 else { return true }
                let length = pending.reduce(0) { $0 << 8 | Int($1) }
                guard length > 0, length <= SSHAgentRequest.maximumLength else {
                    agent.report("refused a message of \(length) bytes (at most \(SSHAgentRequest.maximumLength)) and closed the connection")
                    _ = write([SSHAgentRequest.Reply.failure])
                    return false
                }
                expected = length
                pending = []
                pending.reserveCapacity(length)
                return true
            }
            guard pending.count == expected else { return true }
            let message = pending
            pending = []
            expected = nil
            return write(agent.reply(to: message))
        }

        /// Writes a reply with its length; false when the client is gone.
        func write(_ reply: [UInt8]) -> Bool {
            let count = UInt32(reply.count)
            let framed = [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)] + reply
            var offset = 0
            while offset < framed.count {
                let n = framed.withUnsafeBytes { Self.sendBytes(fd, $0.baseAddress! + offset, framed.count - offset) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }

        /// `send` without SIGPIPE where the platform allows it.
        static func sendBytes(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
            #if canImport(Glibc)
            return Glibc.send(fd, pointer, count, Int32(MSG_NOSIGNAL))
            #else
            return Darwin.write(fd, pointer, count)
            #endif
        }
    }

    private static var streamType: Int32 {
        #if canImport(Glibc)
        return Int32(SOCK_STREAM.rawValue)
        #else
        return SOCK_STREAM
        #endif
    }

    /// The folder of the socket: made 0700 when missing; else a real folder of this user
    /// that no one else may enter.
    private static func checkFolder(_ folder: String) throws(CofferError) {
        if mkdir(folder, 0o700) != 0 && errno != EEXIST { throw failure("create the folder", folder) }
        var info = stat()
        guard lstat(folder, &info) == 0 else { throw failure("inspect the folder", folder) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .insecurePermissions("\(folder) is not a folder", path: folder) }
        guard info.st_uid == getuid() else { throw .insecurePermissions("\(folder) belongs to another user", path: folder) }
        guard info.st_mode & 0o077 == 0 else {
            throw .insecurePermissions("\(folder) may be entered by other users; the agent's folder must be mode 0700", path: folder)
        }
    }

    /// Removes a socket no agent answers at `path`; a live one or another file is refused.
    private static func removeStaleSocket(_ path: String, address: sockaddr_un) throws(CofferError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw .fileExists(path) }
        let probe = socket(AF_UNIX, streamType, 0)
        defer { close(probe) }
        var address = address
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected != 0 else { throw .fileExists(path) }
        unlink(path)
    }

    /// The peer's user id (`SO_PEERCRED`, `getpeereid`) is this process's.
    private static func peerIsThisUser(_ fd: Int32) -> Bool {
        var uid: UInt32 = 0
        return coffer_peer_uid(fd, &uid) == 0 && uid == getuid()
    }

    private static func failure(_ what: String, _ path: String) -> CofferError {
        .io(operation: what, path: path, errno: errno)
    }
}
