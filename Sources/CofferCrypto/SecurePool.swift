internal import CSodium

/// Guarded memory for small secrets, shared: ``SecureBytes`` of up to ``largest`` bytes
/// take a chunk of a slab, a 64 KiB region from `sodium_malloc` (guard pages around it,
/// locked in RAM, out of core dumps), instead of a region each.
///
/// Why: a region of its own costs an `mmap`, two `mprotect`s and an `mlock`, then a
/// `munmap` (all serialised on the process's memory map) for every secret, however small.
/// Opening, importing or merging a large vault makes one per item, and the kernel time was
/// half of an import and a fifth of a merge. This is OpenSSL's secure heap's design (one
/// locked, guarded arena, cut into chunks): what is given up is a guard page between two
/// secrets of one slab; the slab as a whole keeps its guard pages.
///
/// A chunk is zeroed when it is given out (``SecureBytes`` zeroes it before filling) and
/// wiped (`sodium_memzero`) when it is given back. A slab whose chunks are all free goes
/// back to the system (`sodium_free` wipes it too) when its size class has another slab
/// with room. Under ``SecureMemory/LockingPolicy/required`` a chunk comes only from a slab
/// that was locked.
package final class SecurePool: Sendable {
    /// The pool every ``SecureBytes`` of up to ``largest`` bytes comes from.
    static let shared = SecurePool()

    /// Secrets longer than this get a region of their own.
    package static let largest = 2048
    /// The bytes of one slab.
    package static let slabSize = 64 * 1024
    /// Chunk sizes: 16, 32, ..., 2048 bytes.
    private static let classSizes = [16, 32, 64, 128, 256, 512, 1024, 2048]

    /// One slab, cut into chunks of one size.
    package final class Slab: @unchecked Sendable {
        // @unchecked: `free` is only touched with the pool's lock held.
        let base: UnsafeMutablePointer<UInt8>
        package let chunkSize: Int
        let locked: Bool
        /// Offsets of the free chunks.
        var free: [Int32]
        var capacity: Int { SecurePool.slabSize / chunkSize }

        init(base: UnsafeMutablePointer<UInt8>, chunkSize: Int, locked: Bool) {
            self.base = base
            self.chunkSize = chunkSize
            self.locked = locked
            free = stride(from: SecurePool.slabSize - chunkSize, through: 0, by: -chunkSize).map { Int32($0) }
        }
    }

    private struct State {
        /// Per size class, the slabs with a free chunk.
        var partial: [[Slab]] = Array(repeating: [], count: SecurePool.classSizes.count)
        var slabs = 0
    }

    private let state = Guarded(State())

    /// A pool of its own (tests); secrets use ``shared``.
    package init() {}

    deinit {
        // A pool of its own gives back the slabs left wholly free (the shared one lives as long
        // as the process; a slab with a chunk still held is never freed under it).
        state.withLock { value in
            for slabs in value.partial { for slab in slabs where slab.free.count == slab.capacity { sodium_free(slab.base) } }
        }
    }

    /// How many slabs the pool holds now.
    package var slabCount: Int { state.withLock { $0.slabs } }

    /// A chunk of at least `count` bytes (at most ``largest``), not zeroed, and its slab.
    package func allocate(_ count: Int) throws(CofferError) -> (UnsafeMutablePointer<UInt8>, Slab) {
        guard let sizeClass = Self.classSizes.firstIndex(where: { $0 >= count }) else { throw .invalidArgument("pooled secret too long") }
        let required = SecureMemory.lockingPolicy == .required
        if let found = state.withLock({ take(sizeClass, required: required, from: &$0) }) { return found }
        // A new slab, made outside the lock (mmap and mlock are slow).
        let chunkSize = Self.classSizes[sizeClass]
        guard let raw = sodium_malloc(Self.slabSize) else { throw .secureMemoryUnavailable }
        let locked = sodium_mlock(raw, Self.slabSize) == 0
        guard locked || SecureMemory.countUnlocked() else {
            sodium_free(raw)
            throw .secureMemoryUnavailable
        }
        let slab = Slab(base: raw.bindMemory(to: UInt8.self, capacity: Self.slabSize), chunkSize: chunkSize, locked: locked)
        return state.withLock { value in
            value.slabs += 1
            // A new slab has every chunk free (64 KiB holds 32 of the largest).
            let offset = slab.free.removeLast()
            if !slab.free.isEmpty { value.partial[sizeClass].append(slab) }
            return (slab.base + Int(offset), slab)
        }
    }

    /// Wipes the chunk at `pointer` and gives it back to `slab`.
    package func release(_ pointer: UnsafeMutablePointer<UInt8>, slab: Slab) {
        sodium_memzero(pointer, slab.chunkSize)
        let emptied: Slab? = state.withLock { value in
            guard let sizeClass = Self.classSizes.firstIndex(of: slab.chunkSize) else { return nil }
            slab.free.append(Int32(pointer - slab.base))
            if slab.free.count == 1 { value.partial[sizeClass].append(slab) }
            // A slab wholly free goes back to the system when its class has another with room.
            guard slab.free.count == slab.capacity, value.partial[sizeClass].count > 1,
                  let index = value.partial[sizeClass].firstIndex(where: { $0 === slab }) else { return nil }
            value.partial[sizeClass].remove(at: index)
            value.slabs -= 1
            return slab
        }
        // sodium_free zeroes the region before unmapping it.
        if let emptied { sodium_free(emptied.base) }
    }

    /// A free chunk of `sizeClass` (from a locked slab when `required`), taken out of its slab.
    private func take(_ sizeClass: Int, required: Bool, from value: inout State) -> (UnsafeMutablePointer<UInt8>, Slab)? {
        guard let index = value.partial[sizeClass].lastIndex(where: { !required || $0.locked }) else { return nil }
        let slab = value.partial[sizeClass][index]
        guard let offset = slab.free.popLast() else { return nil }
        if slab.free.isEmpty { value.partial[sizeClass].remove(at: index) }
        return (slab.base + Int(offset), slab)
    }
}
