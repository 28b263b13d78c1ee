import CofferCrypto
import CofferFormat
import CofferGenerator
import CofferVault
import Foundation

/// A health report of a vault's passwords (``Vault/audit(olderThanDays:expiringWithinDays:now:)``):
/// weak ones by the strength estimator, reused ones, old ones, and items whose expiry date
/// (``ItemAttributes/expires``) has passed or is near. It names items, never a password;
/// everything is worked out on this device, offline.
///
/// ```swift
/// let report = try vault.audit(olderThanDays: 365)
/// for finding in report.weak { print(finding.item.displayName, finding.score) }
/// for group in report.reused { print(group.map(\.displayName)) }
/// for finding in report.expired { print(finding.item.displayName, "expired", finding.expires) }
/// if report.isClean { print("nothing to do") }
/// ```
public struct AuditReport: Sendable {
    /// An item whose password scores below ``StrengthEstimate/goodScore``.
    public struct Weak: Sendable {
        public var item: Item
        /// The estimator's score, 0 to 4 (``StrengthEstimate/score``).
        public var score: Int
    }

    /// An item whose password was set more than the audit's age limit ago.
    public struct Old: Sendable {
        public var item: Item
        /// When the current password was set: the newest history entry's replacement
        /// date, else the item's creation date.
        public var passwordSet: Date
        /// Whole days from ``passwordSet`` to the audit.
        public var ageDays: Int
    }

    /// An item with an expiry date that has passed or falls within the audit's window.
    public struct Expiry: Sendable {
        public var item: Item
        /// The item's expiry date.
        public var expires: Date
        /// Whole days from the audit to ``expires``: negative once it has passed.
        public var daysLeft: Int
    }

    /// Items with a password that were checked.
    public var checked: Int
    public var weak: [Weak]
    /// Groups of two or more items sharing one password, each in display order.
    public var reused: [[Item]]
    public var old: [Old]
    /// The age limit used, in days.
    public var olderThanDays: Int
    /// Items (of any kind) whose expiry date is at or before the audit, soonest first.
    public var expired: [Expiry] = []
    /// Items whose expiry date falls within ``expiringWithinDays`` after the audit, soonest first.
    public var expiringSoon: [Expiry] = []
    /// The window for ``expiringSoon``, in days.
    public var expiringWithinDays: Int = 30

    /// True when nothing was found.
    public var isClean: Bool { weak.isEmpty && reused.isEmpty && old.isEmpty && expired.isEmpty && expiringSoon.isEmpty }
}

extension Vault {
    /// Checks every item's password: weak (below ``StrengthEstimate/goodScore``, with the
    /// item's names as words an attacker may know), reused (the same password as another
    /// item, found by a keyed BLAKE2b tag under a key drawn for the audit and then wiped) and old (set more than
    /// `olderThanDays` days before `now`). Secure notes, items without a password and an
    /// app's stored values (``ServiceKeychain``, marked by ``ServiceKeychain/appValueField``)
    /// are left out of those. Every item with an expiry date (``ItemAttributes/expires``)
    /// at or before `now` is expired; one within `expiringWithinDays` after it, expiring
    /// soon. Reads only; nothing leaves the device.
    ///
    /// ```swift
    /// let report = try vault.audit()
    /// print("\(report.weak.count) weak, \(report.reused.count) reused groups, \(report.old.count) old")
    /// print("\(report.expired.count) expired, \(report.expiringSoon.count) expiring within 30 days")
    /// ```
    public func audit(olderThanDays: Int = 365, expiringWithinDays: Int = 30, now: Date = Date()) throws(CofferError) -> AuditReport {
        try read { (tx) throws(CofferError) -> AuditReport in
            var report = AuditReport(checked: 0, weak: [], reused: [], old: [], olderThanDays: olderThanDays)
            report.expiringWithinDays = expiringWithinDays
            let soon = now.addingTimeInterval(Double(expiringWithinDays) * 86_400)
            for item in try tx.items() {
                guard let expires = item.attributes.expires, expires <= soon else { continue }
                let daysLeft = Int((expires.timeIntervalSince(now) / 86_400).rounded(.down))
                let finding = AuditReport.Expiry(item: item, expires: expires, daysLeft: daysLeft)
                if item.attributes.isExpired(at: now) { report.expired.append(finding) } else { report.expiringSoon.append(finding) }
            }
            report.expired.sort { $0.expires < $1.expires }
            report.expiringSoon.sort { $0.expires < $1.expires }
            // Passwords are grouped by a BLAKE2b MAC under a key drawn for this audit and
            // wiped with it: equal passwords have equal tags, and a tag says nothing of its
            // password without the key. (Comparing each password with one kept per group was
            // quadratic in the number of distinct passwords, and held one guarded allocation each.)
            let key = try SecureBytes.random(count: 32)
            var groups: [[UInt8]: [Item]] = [:]
            var order: [[UInt8]] = []
            for item in try tx.items() where !item.attributes.fields.contains(ServiceKeychain.appValueField) {
                let secrets = try tx.secrets(for: item.id)
                guard let password = secrets.password, password.count > 0 else { continue }
                report.checked += 1
                let words = [item.label, item.service, item.account, item.server].compactMap { $0 }
                let estimate = StrengthEstimator.estimate(password, userInputs: words)
                if !estimate.isGood { report.weak.append(AuditReport.Weak(item: item, score: estimate.score)) }
                let tag = try password.withUnsafeBytes { (raw) throws(CofferError) in try BLAKE2b.mac(raw, key: key) }
                if groups[tag] == nil { order.append(tag) }
                groups[tag, default: []].append(item)
                let set = secrets.passwordHistory.first?.replaced ?? item.attributes.created
                let age = Int(now.timeIntervalSince(set) / 86_400)
                if age > olderThanDays { report.old.append(AuditReport.Old(item: item, passwordSet: set, ageDays: age)) }
            }
            report.reused = order.compactMap { groups[$0] }.filter { $0.count > 1 }
            return report
        }
    }
}
