// `swift run OfflineFavourites --interactive`: fetch (stub), view offline, favourites.
import Coffer
import ExampleSupport
import Foundation

func interactive(in folder: URL) throws {
    let store = try PlaceStore(folder: folder)
    var online = true
    while true {
        let options = ["Show a place (\(online ? "online" : "offline"))", "Go \(online ? "offline" : "online")",
                       "List favourites", "Add a favourite", "Remove a favourite", "Quit"]
        guard let choice = Terminal.choose("Places", options) else { return }
        do {
            switch choice {
            case 0:
                guard let place = askPlace() else { continue }
                if let (data, isOffline) = try store.data(for: place, fetch: server(online: online)) {
                    print("\(data.place.name)\(isOffline ? " (offline: last fetched \(data.fetchedAt.formatted()))" : ""):")
                    for (key, value) in data.values.sorted(by: { $0.key < $1.key }) { print("  \(key): \(value)") }
                } else {
                    print("Offline, and nothing saved for \(place.name) yet.")
                }
            case 1:
                online.toggle()
            case 2:
                for place in try store.favourites() { print("  ★ \(place.name) (\(place.latitude), \(place.longitude))") }
            case 3:
                if let place = askPlace() { try store.addFavourite(place) }
            case 4:
                if let name = Terminal.ask("Place name:") { try store.removeFavourite(Place(name: name, latitude: 0, longitude: 0)) }
            default:
                return
            }
        } catch {
            print("⚠︎ \(error)")
        }
    }
}

private func askPlace() -> Place? {
    guard let name = Terminal.ask("Place name:"), !name.isEmpty else { return nil }
    let numbers = (Terminal.ask("Latitude, longitude (optional):") ?? "").split(separator: ",").compactMap {
        Double($0.trimmingCharacters(in: .whitespaces))
    }
    return Place(name: name, latitude: numbers.first ?? 0, longitude: numbers.count > 1 ? numbers[1] : 0)
}
