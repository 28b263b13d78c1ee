import CofferCrypto
import CofferVault

/// A request to an SSH agent (draft-miller-ssh-agent §3): one message, without its
/// 4-byte length, read from outside input. ``SSHAgent`` answers it.
///
/// ```swift
/// let request = try SSHAgentRequest(parsing: [11])   // SSH_AGENTC_REQUEST_IDENTITIES
/// ```
public enum SSHAgentRequest: Sendable, Equatable {
    /// SSH_AGENTC_REQUEST_IDENTITIES (11).
    case requestIdentities
    /// SSH_AGENTC_SIGN_REQUEST (13): the key's blob, the data, the flags (RSA hash choice; Ed25519 has none).
    case sign(keyBlob: [UInt8], data: [UInt8], flags: UInt32)
    /// A request the agent knows and refuses (adding, removing, locking, smartcards,
    /// extensions), by code and name.
    case refused(code: UInt8, name: String)
    /// A code the agent does not know.
    case unknown(code: UInt8)

    /// The largest message an agent reads, as OpenSSH's (256 KiB). A longer one is refused
    /// from its length alone, before anything is allocated.
    public static let maximumLength = 256 * 1024

    /// The messages an agent answers with.
    public enum Reply {
        static let failure: UInt8 = 5, success: UInt8 = 6, identitiesAnswer: UInt8 = 12, signResponse: UInt8 = 14
    }

    /// Requests Coffer refuses, by name: keys are added with `coffer add-ssh-key`, removed
    /// with `coffer remove`, and the agent is locked by locking the vault (`coffer lock`).
    static let refusedNames: [UInt8: String] = [
        17: "add identity", 18: "remove identity", 19: "remove all identities", 20: "add smartcard key",
        21: "remove smartcard key", 22: "lock", 23: "unlock", 25: "add constrained identity",
        26: "add constrained smartcard key", 27: "extension",
    ]

    /// Reads one message body: its first byte is the request's code. An empty message, a
    /// truncated field or bytes after the last field are ``CofferError/malformedRequest(_:)``.
    public init(parsing message: [UInt8]) throws(CofferError) {
        guard message.count <= Self.maximumLength else {
            throw .malformedRequest("an agent message of \(message.count) bytes; at most \(Self.maximumLength)")
        }
        self = try message.withBytes { (bytes) throws(CofferError) -> SSHAgentRequest in
            var reader = SSHReader(bytes, structure: "the agent message", kind: .malformedRequest)
            let code = try reader.byte()
            switch code {
            case 11:
                try reader.expectEnd()
                return .requestIdentities
            case 13:
                let blob = try reader.publicString()
                let data = try reader.publicString()
                let flags = try reader.uint32()
                try reader.expectEnd()
                return .sign(keyBlob: blob, data: data, flags: flags)
            default:
                if let name = Self.refusedNames[code] { return .refused(code: code, name: name) }
                return .unknown(code: code)
            }
        }
    }
}

/// An SSH agent's answers (draft-miller-ssh-agent) from the keys of a vault
/// (``Vault/sshKeys()``), asked for at each request: `openVault` returns the vault while it
/// stays unlocked (a cached unlock) and nil once it is locked or the unlock expired, and
/// then no key is listed and nothing is signed.
///
/// Answered: the list of identities (12), and signatures (14) by a key the vault holds
/// (Ed25519). Refused with SSH_AGENT_FAILURE (5): a key not in the vault, a locked vault,
/// adding, removing and locking requests, extensions, unknown codes and malformed messages.
///
/// ```swift
/// let agent = SSHAgent { try Vault.open(at: path, unlockCache: KernelKeyring()) }
/// let reply = agent.reply(to: [11])   // SSH_AGENT_IDENTITIES_ANSWER
/// ```
public struct SSHAgent: Sendable {
    /// The vault while it is unlocked; nil when it is not.
    public let openVault: @Sendable () throws -> Vault?
    /// Told, in one line without any secret, what was refused and why.
    public let report: @Sendable (String) -> Void

    public init(report: @escaping @Sendable (String) -> Void = { _ in }, openVault: @escaping @Sendable () throws -> Vault?) {
        self.openVault = openVault
        self.report = report
    }

    /// The answer to one message (without its length), without its length.
    public func reply(to message: [UInt8]) -> [UInt8] {
        let request: SSHAgentRequest
        do {
            request = try SSHAgentRequest(parsing: message)
        } catch {
            report("refused a malformed request: \(error.detail ?? error.description)")
            return [SSHAgentRequest.Reply.failure]
        }
        do {
            return try reply(to: request)
        } catch {
            report("refused: \(error)")
            return [SSHAgentRequest.Reply.failure]
        }
    }

    func reply(to request: SSHAgentRequest) throws -> [UInt8] {
        switch request {
        case .requestIdentities:
            let keys = try openVault().map { try $0.sshKeys() } ?? []
            var writer = SSHWriter()
            writer.byte(SSHAgentRequest.Reply.identitiesAnswer)
            writer.uint32(UInt32(keys.count))
            for key in keys {
                writer.string(key.publicKey.blob)
                writer.string(key.publicKey.comment)
            }
            return writer.bytes
        case .sign(let blob, let data, _):
            guard let vault = try openVault() else {
                report("refused to sign: the vault is locked (coffer unlock)")
                return [SSHAgentRequest.Reply.failure]
            }
            guard let stored = try vault.sshKeys().first(where: { $0.publicKey.blob == blob }) else {
                report("refused to sign: the key is not in the vault")
                return [SSHAgentRequest.Reply.failure]
            }
            let signature = try vault.sshPrivateKey(for: stored).signature(for: data)
            var writer = SSHWriter()
            writer.byte(SSHAgentRequest.Reply.signResponse)
            writer.string(signature)
            return writer.bytes
        case .refused(_, let name):
            report("refused the \(name) request: keys are added with `coffer add-ssh-key`, removed with `coffer remove`, "
                   + "and signing stops with `coffer lock`")
            return [SSHAgentRequest.Reply.failure]
        case .unknown(let code):
            report("refused a request of unknown type \(code)")
            return [SSHAgentRequest.Reply.failure]
        }
    }
}
