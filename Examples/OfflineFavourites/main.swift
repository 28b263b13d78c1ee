// OfflineFavourites: seed 002, "DVT Weather" — an encrypted offline cache and favourites.
// The last data fetched for a place is kept as a Codable record, and read back when
// the device is offline; favourite places can be added and removed. The seed's weather,
// maps and photos are left out: the "server" here is a stub.
//
//   swift run OfflineFavourites                  scripted walk-through, checks every step
//   swift run OfflineFavourites --interactive    menus (add --dir PATH to keep the data)
import Coffer
import ExampleSupport
import Foundation

/// Stands in for the network: answers online, throws `StoreError.offline` offline.
func server(online: Bool) -> (Place) throws -> LastFetched {
    { place in
        guard online else { throw StoreError.offline }
        return LastFetched(place: place, fetchedAt: Date(),
                           values: ["timezone": "Africa/Johannesburg", "note": "fetched for \(place.name)"])
    }
}

func walkthrough(in folder: URL) throws {
    let capeTown = Place(name: "Cape Town", latitude: -33.9249, longitude: 18.4241)
    let durban = Place(name: "Durban", latitude: -29.8587, longitude: 31.0218)
    let pretoria = Place(name: "Pretoria", latitude: -25.7479, longitude: 28.2293)

    section("First launch, online")
    var store = try PlaceStore(folder: folder)
    check(store.vault.slots == [.rawKey], "created the vault, opened by a device key (a raw-key slot; no password)")
    let online = try store.data(for: capeTown, fetch: server(online: true))
    check(online?.isOffline == false, "fetched \(capeTown.name) online and saved it as the last fetched data")

    section("Next launch, offline")
    store = try PlaceStore(folder: folder)
    let offline = try store.data(for: capeTown, fetch: server(online: false))
    check(offline?.isOffline == true && offline?.0 == online?.0, "offline, the app shows the saved record, field for field")
    if let record = offline?.0 {
        let values = record.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        step("\(record.place.name), fetched \(record.fetchedAt.formatted()): \(values.joined(separator: ", "))")
    }
    check(try store.data(for: durban, fetch: server(online: false)) == nil, "a place never fetched has no offline data")

    section("Favourites")
    try store.addFavourite(capeTown)
    try store.addFavourite(durban)
    try store.addFavourite(pretoria)
    try store.addFavourite(Place(name: "durban", latitude: -29.86, longitude: 31.02))
    check(try store.favourites().count == 3, "added three favourites; adding Durban again replaced it")
    try store.removeFavourite(pretoria)
    try store.removeFavourite(pretoria)
    check(try store.favourites().map(\.name) == ["Cape Town", "durban"], "removed Pretoria (removing it twice is harmless)")
    store = try PlaceStore(folder: folder)
    check(try store.favourites().map(\.name) == ["Cape Town", "durban"], "the favourites are there after a relaunch")

    section("Encrypted at rest")
    let vaultPath = folder.appendingPathComponent("places.coffer").path
    check(!file(vaultPath, contains: "Cape Town") && !file(vaultPath, contains: "Johannesburg"), "the vault file holds no place or data in clear")
    checkFails("another device's key does not open it", with: CofferError.wrongRawKey) {
        _ = try Vault.open(at: vaultPath, credential: .rawKey(try SecureBytes.random(count: 32)))
    }
    StandInKeystore.deleteKey(at: folder.appendingPathComponent("device.key").path)
    checkFails("without the device key the saved places cannot be read", with: StoreError.deviceKeyMissing) {
        _ = try PlaceStore(folder: folder)
    }
}

exampleMain("OfflineFavourites — seed 002: an encrypted offline cache and favourite places",
            walkthrough: walkthrough(in:), interactive: interactive(in:))
