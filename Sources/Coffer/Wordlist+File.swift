import CofferCrypto
import CofferGenerator
import CofferStore

extension Wordlist {
    /// Loads a list from a UTF-8 file, plain (one word per line) or in the EFF dice format
    /// (`11111<TAB>abacus`), read through the Store's one I/O seam (a regular file only, at
    /// most 64 MiB). Throws ``CofferError/fileNotFound(_:)`` when there is no file,
    /// ``CofferError/Kind/io`` when it cannot be read, ``CofferError/Kind/notARegularFile``
    /// for a folder or a FIFO, ``CofferError/Kind/fileTooLarge`` over the bound, and
    /// ``CofferError/Kind/invalidWordList`` (naming the line) for bad content.
    ///
    /// It lives in the `Coffer` product, not in `CofferGenerator`, because the generator's
    /// layer does no I/O of its own; with `CofferGenerator` alone, read the file yourself
    /// and call ``Wordlist/init(text:source:)``.
    ///
    /// ```swift
    /// let list = try Wordlist(contentsOf: "words.txt")
    /// let generator = try PassphraseGenerator(wordlist: list)
    /// ```
    public init(contentsOf path: String) throws(CofferError) {
        let contents = try storeCall { () throws(StoreError) in
            try SecretFile.contents(of: path, limit: Self.maximumFileSize, kind: "word list", name: path)
        }
        try self.init(text: contents.withUnsafeBytes { Array($0) }, source: path)
    }

    /// The largest word-list file read: a wrong path cannot exhaust memory.
    static let maximumFileSize = 64 * 1024 * 1024
}
