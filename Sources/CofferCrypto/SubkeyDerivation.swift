/// Purpose-bound subkeys from one master key.
///
/// `subkey = BLAKE2b-256(key: master, message: context)` where the context is an
/// ASCII label such as `"coffer.v1.entry-overview"` followed by optional binary
/// input (for example an entry id). Different contexts give independent keys.
package enum SubkeyDerivation {
    package static func derive(from master: SecureBytes, context: String, input: [UInt8] = []) throws(CofferError) -> SecureBytes {
        guard !context.isEmpty, context.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) else {
            throw .invalidArgument("subkey context must be printable ASCII")
        }
        // A 0x00 separator keeps (context, input) pairs unambiguous.
        let message = Array(context.utf8) + [0] + input
        return try BLAKE2b.deriveKey(from: master, input: message, outputLength: 32)
    }
}
