// The Core Data layer of seed 002, on a vault: the last data fetched for each place
// (read back when the device is offline) and the favourite places.
//
// The app has no login, so a device key opens the vault through a raw-key slot; the
// key sits in `device.key` (mode 0600), standing in for the Keychain. Both kinds of
// data go through `vault.keychain(service:)`, which stores any Codable value as JSON
// inside an item's encrypted secret part.
import Coffer
import ExampleSupport
import Foundation

struct Place: Codable, Hashable {
    var name: String
    var latitude: Double
    var longitude: Double

    /// Places are keyed by name, case-insensitively.
    var key: String { name.lowercased() }
}

/// Whatever the server last returned for a place, with the time it was fetched.
struct LastFetched: Codable, Equatable {
    var place: Place
    var fetchedAt: Date
    var values: [String: String]
}

enum StoreError: Error, Equatable, CustomStringConvertible {
    case offline, deviceKeyMissing

    var description: String {
        switch self {
        case .offline: return "The device is offline."
        case .deviceKeyMissing: return "The device key is missing, so the saved places cannot be read."
        }
    }
}

final class PlaceStore {
    let vault: Vault
    private var cache: ServiceKeychain { vault.keychain(service: "last-fetched") }
    private var favouriteList: ServiceKeychain { vault.keychain(service: "favourites") }

    /// Opens the store, creating the device key and the vault on first launch.
    init(folder: URL) throws {
        let path = folder.appendingPathComponent("places.coffer").path
        let keyPath = folder.appendingPathComponent("device.key").path
        if let key = try StandInKeystore.loadKey(at: keyPath) {
            vault = try Vault.open(at: path, credential: .rawKey(key))
        } else if FileManager.default.fileExists(atPath: path) {
            throw StoreError.deviceKeyMissing
        } else {
            let key = try StandInKeystore.createKey(at: keyPath)
            vault = try Vault.create(at: path, credential: .rawKey(key))   // a raw key needs no Argon2id
        }
    }

    // MARK: Last fetched data

    /// Fetches fresh data and caches it; when `fetch` fails because the device is
    /// offline, returns the cached data instead (nil if the place was never fetched).
    func data(for place: Place, fetch: (Place) throws -> LastFetched) throws -> (LastFetched, isOffline: Bool)? {
        do {
            let fresh = try fetch(place)
            try cache.set(fresh, key: place.key)
            return (fresh, false)
        } catch StoreError.offline {
            return try cache.get(LastFetched.self, key: place.key).map { ($0, true) }
        }
    }

    // MARK: Favourites: one item per place, so adding and removing are single saves.

    func favourites() throws -> [Place] {
        try favouriteList.allKeys().compactMap { key in try favouriteList.get(Place.self, key: key) }
    }

    /// Adds a favourite; adding it again replaces it.
    func addFavourite(_ place: Place) throws {
        try favouriteList.set(place, key: place.key)
    }

    /// Removes a favourite; removing one that is not there does nothing.
    func removeFavourite(_ place: Place) throws {
        try favouriteList.remove(place.key)
    }
}
