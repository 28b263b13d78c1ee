import CofferTestSupport
import Foundation
import Testing

/// Issue 30's team story, run as processes with real git and ssh-keygen: Alice keeps a vault
/// in a git repository and shares it with Bob's SSH key; both edit offline and merge through
/// `coffer merge-driver --identity`; Alice unshares Bob; what Alice saves afterwards is
/// unreadable with Bob's old clone and his key.
@Suite("Team story: a vault in git shared by SSH key, edited on two clones, unshared",
       .enabled(if: Git.path != nil && SharingTools.sshKeygen != nil, "needs git and ssh-keygen; run `make test-deps`"))
struct CLITeamSharingTests {
    @Test("share with Bob, edit on both clones, merge by git, unshare: Bob's key reads nothing saved afterwards")
    func teamStory() throws {
        try withTemporaryDirectory { root in
            let world = try GitWorld(root)
            let keys = root.appendingPathComponent("keys")
            try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
            let aliceKey = keys.appendingPathComponent("alice"), bobKey = keys.appendingPathComponent("bob")
            try SharingTools.sshKey(aliceKey, comment: "alice@laptop")
            try SharingTools.sshKey(bobKey, comment: "bob@desktop")
            let alice = ["--identity", aliceKey.path], bob = ["--identity", bobKey.path]

            // Alice: a vault in a repository, shared with her own SSH key (so her merge driver
            // needs no password) and with Bob's.
            try world.git(["init", "--bare", "--initial-branch=main", "team.git"], in: root)
            try world.git(["clone", "team.git", "alice"], in: root)
            let aliceClone = root.appendingPathComponent("alice")
            try CLIGitMergeDriverTests.configure(aliceClone, name: "alice", identity: aliceKey, world: world)
            try "*.coffer merge=coffer -diff\n".write(to: aliceClone.appendingPathComponent(".gitattributes"), atomically: true, encoding: .utf8)
            try "*.coffer.bak\n*.coffer.lock\n".write(to: aliceClone.appendingPathComponent(".gitignore"), atomically: true, encoding: .utf8)
            try world.coffer(["init", "team.coffer"] + fastKDF, input: "alice-pw\n", in: aliceClone, device: "alice")
            try world.coffer(["share", "team.coffer", aliceKey.path + ".pub", "--name", "alice"], input: "alice-pw\n", in: aliceClone, device: "alice")
            try world.coffer(["share", "team.coffer", bobKey.path + ".pub", "--name", "bob"], input: "alice-pw\n", in: aliceClone, device: "alice")
            try world.coffer(["add", "team.coffer", "--service", "router", "--account", "admin"] + alice, input: "r0\n", in: aliceClone, device: "alice")
            try world.git(["add", ".gitattributes", ".gitignore", "team.coffer"], in: aliceClone)
            try world.git(["commit", "-m", "Team vault"], in: aliceClone)
            try world.git(["push", "origin", "main"], in: aliceClone)

            // Bob clones and opens it with his SSH key alone.
            try world.git(["clone", "team.git", "bob"], in: root)
            let bobClone = root.appendingPathComponent("bob")
            try CLIGitMergeDriverTests.configure(bobClone, name: "bob", identity: bobKey, world: world)
            #expect(try world.coffer(["get", "team.coffer", "--service", "router"] + bob, in: bobClone, device: "bob").out == "r0\n")

            // Both edit offline; git merges through the driver on each side.
            try world.coffer(["add", "team.coffer", "--service", "wifi", "--account", "office"] + alice, input: "w0\n", in: aliceClone, device: "alice")
            try world.git(["commit", "-a", "-m", "Alice: wifi"], in: aliceClone)
            try world.coffer(["edit", "team.coffer", "--service", "router", "--password-stdin"] + bob, input: "r1\n", in: bobClone, device: "bob")
            try world.coffer(["add", "team.coffer", "--service", "cloud", "--account", "root"] + bob, input: "c0\n", in: bobClone, device: "bob")
            try world.git(["commit", "-a", "-m", "Bob: router, cloud"], in: bobClone)
            try world.git(["push", "origin", "main"], in: aliceClone)
            let pull = try world.git(["pull", "--no-rebase", "--no-edit", "origin", "main"], in: bobClone)
            #expect(pull.err.contains("coffer merge-driver: merged team.coffer"), "\(pull.err)")
            try world.git(["push", "origin", "main"], in: bobClone)
            try world.git(["pull", "--no-rebase", "--no-edit", "origin", "main"], in: aliceClone)
            for (clone, who, identity) in [(aliceClone, "alice", alice), (bobClone, "bob", bob)] {
                let items = try itemsByName(try world.coffer(["list", "team.coffer", "--json"] + identity, in: clone, device: who))
                #expect(Set(items.keys) == ["router", "wifi", "cloud"], "\(who)")
                #expect(try world.coffer(["get", "team.coffer", "--service", "router"] + identity, in: clone, device: who).out == "r1\n")
            }

            // Bob edits once more (committed on his clone, not pushed yet); then Alice takes
            // the share back (rotating the key), saves a new secret and pushes.
            try world.coffer(["edit", "team.coffer", "--service", "cloud", "--password-stdin"] + bob, input: "c1-before-unshare\n", in: bobClone, device: "bob")
            try world.git(["commit", "-a", "-m", "Bob: cloud, before the unshare"], in: bobClone)
            let unshare = try world.coffer(["unshare", "team.coffer", "bob"] + alice, in: aliceClone, device: "alice")
            #expect(unshare.err.contains("rekeyed"), "\(unshare.err)")
            try world.coffer(["add", "team.coffer", "--service", "new-root", "--account", "root"] + alice, input: "after-unshare\n", in: aliceClone, device: "alice")
            try world.git(["commit", "-a", "-m", "Alice: unshare Bob, new secret"], in: aliceClone)
            try world.git(["push", "origin", "main"], in: aliceClone)

            // Bob's old clone fetches what Alice saved since: his key opens none of it.
            try world.git(["fetch", "origin"], in: bobClone)
            let latest = try world.git(["show", "origin/main:team.coffer"], in: bobClone).stdout
            try latest.write(to: bobClone.appendingPathComponent("latest.coffer"))
            let refused = try CLI.run(["list", "latest.coffer"] + bob, in: bobClone, environment: world.environment(device: "bob"))
            #expect(refused.status == 77 && refused.out.isEmpty, "\(refused.err)")
            #expect(!refused.out.contains("after-unshare") && !refused.err.contains("new-root"))
            // His own old copy still opens (it is his), and holds nothing saved after the unshare.
            let old = try itemsByName(try world.coffer(["list", "team.coffer", "--json"] + bob, in: bobClone, device: "bob"))
            #expect(old["new-root"] == nil)

            // Bob's edit made before the unshare reaches Alice when she merges his branch.
            try world.git(["push", "origin", "main:bob-before-unshare"], in: bobClone)
            try world.git(["fetch", "origin"], in: aliceClone)
            // Merging across rotations (SPEC.md §17.8 case 3): his edit predates the unshare.
            try world.git(["merge", "--no-edit", "origin/bob-before-unshare"], in: aliceClone)
            #expect(try world.coffer(["get", "team.coffer", "--service", "cloud"] + alice, in: aliceClone, device: "alice").out
                    == "c1-before-unshare\n")
            #expect(try world.coffer(["shares", "team.coffer", "--json"] + alice, in: aliceClone, device: "alice").jsonArray()
                .map { $0["label"] as? String } == ["alice"], "the merge does not bring Bob's share back")
        }
    }
}
