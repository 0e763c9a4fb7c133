import ArgumentParser
import BadgeCredentials
import BadgePipeline
import BadgeRules
import Foundation
import RunFiles
import RunLibrary

/// `badgectl credentials`: awards as Open Badges 3.0 credentials anyone can verify (docs/credentials.md).
struct CredentialsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credentials",
        abstract: "Open Badges 3.0 credentials for awards: an issuer key, signed credentials and cards, verification.",
        discussion: """
            Each award becomes a W3C Verifiable Credential 2.0 of type OpenBadgeCredential, signed with \
            an Ed25519 key (a did:key) by an embedded eddsa-jcs-2022 proof, beside it the same as a VC-JWT \
            and a card (SVG) with the credential baked in. Anyone can check them offline; `verify --runs` \
            re-derives the award from the runs. docs/credentials.md shows a runner and a club organiser how.

            Examples:
              badgectl credentials key --out ~/.badgectl-issuer.key
              badgectl credentials issue ~/runs --key ~/.badgectl-issuer.key --out credentials/ --issuer-name "Ana"
              badgectl credentials verify credentials/*.json credentials/*.svg --runs ~/runs
              badgectl credentials revoke ~/runs --against ../next/rules --key issuer.key --credentials credentials/

            \(CredentialsCommand.exitHelp)
            """,
        subcommands: [KeyCommand.self, IssueCommand.self, VerifyCommand.self, RevokeCommand.self]
    )

    static let exitHelp = """
        Exit status: 0 when every credential is valid (and, with --runs, every award still follows); 1 when \
        a proof fails (a changed field, an unknown key, a bad context) or a credential is revoked, a file \
        cannot be read or the key cannot be made; 2 when `issue` skipped a file or rule (the rest issued); 3 when `verify --runs` finds \
        an award that no longer follows from the runs; 4 when the pack version a credential names is not \
        among the packs loaded; 64 for a usage error.
        """

    /// `verify --runs`: an award that the runs no longer give.
    static let doesNotFollow: Int32 = 3
}

/// `badgectl credentials key --out FILE`
struct KeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Make an issuer key (Ed25519) and print its did:key.",
        discussion: """
            The file (mode 0600, never overwritten) is a Multikey in JSON with its private half: \
            {"type":"Multikey","id":…,"controller":"did:key:z6Mk…","publicKeyMultibase":…,"privateKeyMultibase":…}. \
            Keep it secret: whoever holds it can issue credentials in your name.

            Examples:
              badgectl credentials key --out ~/.badgectl-issuer.key

            \(CredentialsCommand.exitHelp)
            """
    )

    @Option(name: .long, help: ArgumentHelp("Where to write the new key (a file that does not exist yet).", valueName: "file"))
    var out: String

    func run() throws {
        let key = IssuerKey.generate()
        do {
            try key.write(to: out)
        } catch {
            Console.error(CommandError.prefix + "\(error)")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        print(key.did)
    }
}

/// `badgectl credentials issue DIR --key FILE --out OUTDIR`
struct IssueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issue",
        abstract: "Write a signed credential, its VC-JWT and a baked card for every award of a folder of runs.",
        discussion: """
            Evaluates DIR exactly as `badgectl evaluate` does (the same options), then writes, per award, \
            <award id>.json (an OpenBadgeCredential with an embedded eddsa-jcs-2022 proof), <award id>.jwt \
            (the same as a VC-JWT) and <award id>.svg (the card, the credential baked in) into OUTDIR. The \
            award id is <pack>.<badge>.<tier>.<12 hex>, the same for the same award every time.

            Examples:
              badgectl credentials issue ~/runs --key issuer.key --out credentials/ --issuer-name "Ana Runner"
              badgectl credentials issue ~/runs --key club.key --out out/ --issuer-name "Riverside RC" --subject mailto:ana@example.org

            \(CredentialsCommand.exitHelp)
            """
    )

    @Argument(help: ArgumentHelp("A folder of run files (or one run file).", valueName: "dir"))
    var directory: String

    @Option(name: .long, help: ArgumentHelp("The issuer key (`badgectl credentials key`).", valueName: "file"))
    var key: String

    @Option(name: .long, help: ArgumentHelp("The folder to write the credentials to (made if missing).", valueName: "dir"))
    var out: String

    @Option(name: .customLong("issuer-name"), help: ArgumentHelp("The issuer's name in each credential (a runner, a club).", valueName: "name"))
    var issuerName: String = "badgectl"

    @Option(name: .long, help: ArgumentHelp(
        "Who earned the awards: an identifier of the runner (a URL, a DID, mailto:…), the credentials' subject id.",
        discussion: "Without it the subject is identified by --subject-name (Open Badges 3.0 wants an id or an identifier).",
        valueName: "id"))
    var subject: String?

    @Option(name: .customLong("subject-name"), help: ArgumentHelp(
        "The runner's name, the subject's identifier when there is no --subject (default: the --issuer-name: a runner issuing their own).",
        valueName: "name"))
    var subjectName: String?

    @Option(name: .customLong("status-list"), help: ArgumentHelp(
        "Where you will publish the status list (a URL): each credential gets its place in it, so that `credentials revoke` can revoke it.",
        discussion: "Places already given to credentials in --out are kept; `credentials revoke` writes the list to publish there.",
        valueName: "url"))
    var statusList: String?

    @Flag(name: .long, help: ArgumentHelp(
        "Also write <award id>.png: the card rendered by headless Chromium (or Chrome), the credential baked in its iTXt chunk.",
        discussion: "About a second a card; needs chromium, chromium-browser or google-chrome on PATH, or --browser."))
    var png = false

    @Option(name: .long, help: ArgumentHelp("The browser that renders --png (Chromium or Chrome).", valueName: "path"))
    var browser: String?

    @OptionGroup var options: PipelineOptions
    @OptionGroup var cacheOptions: CacheOptions<SummaryCache>

    func validate() throws {
        if browser != nil && !png { throw ValidationError("--browser goes with --png") }
        if let subject, !subject.contains(":") {
            throw ValidationError("--subject '\(subject)' is not an identifier: give a URL, a DID or mailto:address")
        }
        if let statusList, !(statusList.hasPrefix("https://") || statusList.hasPrefix("http://")) || statusList.contains("#") {
            throw ValidationError("--status-list '\(statusList)' is not a URL where the list will be published (https://…, no #fragment)")
        }
    }

    func run() throws {
        let issuer: IssuerKey
        do { issuer = try IssuerKey.read(path: key) } catch {
            Console.error(CommandError.prefix + "--key: \(error)")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        let pipeline = try EvaluationPipeline(options, failures: .printAndExit)
        let outcome = try pipeline.run(directory: directory, cache: cacheOptions.open())
        let report = pipeline.report(outcome)
        let asOf = try options.asOf.date() ?? outcome.selected.compactMap(\.localDate).max() ?? ""
        let facts = AwardFacts.all(awards: report.awards, runs: report.runs,
                                   badges: pipeline.themedCatalogue.badges + pipeline.themedPackBadges,
                                   runFile: { AwardFacts.runFile(run: $0, folder: directory) }, asOf: asOf,
                                   zone: ZoneNames.name(of: pipeline.zone), sport: options.selection.sport,
                                   keepsDuplicates: options.duplicates.keepDuplicates)
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        } catch {
            Console.error(CommandError.prefix + "\(out): cannot make the folder (\(error.localizedDescription))")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        var renderer: CardRenderer?
        if png {
            do { renderer = try CardRenderer.find(browser) } catch {
                Console.error(CommandError.prefix + "\(error)")
                throw ExitCode(ExitStatus.failure.rawValue)
            }
        }
        let created = CredentialTime.text(epochSeconds: Int(ReportCommand.now().timeIntervalSince1970))
        let issuing = CredentialIssuer(key: issuer, name: issuerName, subject: subject, subjectName: subjectName, statusList: statusList)
        var positions = statusList == nil ? [:] : IssueCommand.statusPositions(folder: out, url: statusList ?? "")
        var taken = Set(positions.values)
        var written = 0
        for item in facts.facts {
            do {
                var index: Int?
                if statusList != nil {
                    guard let free = positions[item.awardId] ?? StatusList.index(for: item.awardId, taken: taken) else {
                        throw CredentialError.badField(field: "credentialStatus", reason: "the status list is full (\(StatusList.size) credentials)")
                    }
                    positions[item.awardId] = free
                    taken.insert(free)
                    index = free
                }
                let issued = try issuing.issue(item, statusIndex: index, created: created)
                try IssueCommand.write(issued, folder: out)
                if let renderer { try IssueCommand.writePNG(issued, renderer: renderer, folder: out) }
                written += 1
            } catch {
                Console.error(CommandError.prefix + "\(error)")
                throw ExitCode(ExitStatus.failure.rawValue)
            }
        }
        let forms = png ? "JSON, JWT, card and PNG each" : "JSON, JWT and card each"
        print("wrote \(Format.count(written, "credential")) (\(forms)) to \(out), issued by \(issuer.did)")
        for problem in facts.skipped { Console.error(CommandError.skipped + problem) }
        try report.reportSkipped()
        if !facts.skipped.isEmpty { throw ExitCode(ExitStatus.partial.rawValue) }
    }

    /// Writes an issued credential's three files into `folder`: `<award id>.json`, `.jwt` and `.svg`.
    static func write(_ issued: CredentialIssuer.Issued, folder: String) throws {
        let base = (folder as NSString).appendingPathComponent(issued.facts.awardId)
        for (suffix, text) in [(".json", issued.json), (".jwt", issued.jwt + "\n"), (".svg", issued.card)] {
            do { try Data(text.utf8).write(to: URL(fileURLWithPath: base + suffix), options: .atomic) } catch {
                throw CredentialError.io(path: base + suffix, reason: "cannot write (\(error.localizedDescription))")
            }
        }
    }

    /// Renders the card `write` wrote and writes `<award id>.png` with the JSON credential baked in.
    static func writePNG(_ issued: CredentialIssuer.Issued, renderer: CardRenderer, folder: String) throws {
        let base = (folder as NSString).appendingPathComponent(issued.facts.awardId)
        let baked = try BakedPNG.bake(try renderer.render(svg: base + ".svg"), credential: issued.json)
        do { try Data(baked).write(to: URL(fileURLWithPath: base + ".png"), options: .atomic) } catch {
            throw CredentialError.io(path: base + ".png", reason: "cannot write (\(error.localizedDescription))")
        }
    }

    /// The status list places the credentials in `folder` already have in the list at `url`, by award
    /// id (a file that is not a badgectl credential is left alone).
    static func statusPositions(folder: String, url: String) -> [String: Int] {
        var positions: [String: Int] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for name in names.sorted() where name.hasSuffix(".json") {
            guard let data = FileManager.default.contents(atPath: (folder as NSString).appendingPathComponent(name)),
                  let credential = try? CredentialJSON.parse(data), let claim = try? OpenBadgeCredential.claim(credential),
                  let position = try? StatusList.position(of: credential), position.url == url else { continue }
            positions[claim.awardId] = position.index
        }
        return positions
    }
}

/// `badgectl credentials verify FILE... [--runs DIR]`
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check credentials (JSON, VC-JWT or a baked card, SVG or PNG) and, with --runs, that the runs still give each award.",
        discussion: """
            Each file's proof is checked offline: the eddsa-jcs-2022 proof of a JSON credential, the \
            signature and claims of a VC-JWT, the credential baked in a card (SVG or PNG). The key is the \
            issuer's did:key; --issuer limits the issuers accepted. With --runs DIR, the award is \
            re-derived: the folder is evaluated as of the credential's as-of date, in its zone, with its \
            sports and duplicates as at issue, with the pack version the credential names (from --rules, \
            or where badgectl looks), and the award (pack, badge, tier, run) must be among the awards.

            Examples:
              badgectl credentials verify credentials/*.json
              badgectl credentials verify card.svg --issuer did:key:z6Mk… --runs ~/runs

            \(CredentialsCommand.exitHelp)
            """
    )

    @Argument(help: ArgumentHelp("Credential files: .json, .jwt, or .svg and .png cards.", valueName: "file"))
    var files: [String]

    @Option(name: .long, help: ArgumentHelp("An issuer to accept (its did:key); repeat for more. By default any did:key issuer.", valueName: "did"))
    var issuer: [String] = []

    @Option(name: .long, help: ArgumentHelp("Re-derive each award from this folder of runs.", valueName: "dir"))
    var runs: String?

    @Option(name: .customLong("status-list"), help: ArgumentHelp(
        "The issuer's status list (a copy of the file `credentials revoke` wrote): a credential it marks is revoked.",
        discussion: "Checked offline. A credential with a place in a list that is not given is said to be unchecked.",
        valueName: "file"))
    var statusList: String?

    @OptionGroup var rules: RuleOptions
    @OptionGroup var limits: LimitOptions
    @OptionGroup var cacheOptions: CacheOptions<SummaryCache>

    func validate() throws {
        for did in issuer where !did.hasPrefix("did:key:") {
            throw ValidationError("--issuer '\(did)' is not a did:key (the issuer's did, as `credentials key` printed it)")
        }
    }

    func run() throws {
        let verifier = CredentialVerifier(trustedIssuers: Set(issuer))
        var list: (url: String, issuer: String, revoked: Set<Int>)?
        if let statusList {
            do {
                guard let data = FileManager.default.contents(atPath: statusList) else {
                    throw CredentialError.io(path: statusList, reason: "cannot read the file")
                }
                list = try StatusList.verify(data)
            } catch {
                Console.error(CommandError.prefix + "--status-list \(statusList): \(error)")
                throw ExitCode(ExitStatus.failure.rawValue)
            }
        }
        var failed = false
        var valid: [(file: String, claim: OpenBadgeCredential.Claim, name: String)] = []
        for file in files {
            do {
                guard let data = FileManager.default.contents(atPath: file) else {
                    failed = true
                    print("INVALID \(file): cannot read the file")
                    continue
                }
                if let parsed = try? CredentialJSON.parse(data), parsed.typeNames?.contains("BitstringStatusListCredential") == true {
                    let list = try StatusList.verify(data)
                    if !issuer.isEmpty && !issuer.contains(list.issuer) {
                        throw CredentialError.unknownKey(method: list.issuer, reason: "not among the trusted issuers (--issuer)")
                    }
                    print("valid \(file): the status list \(list.url), \(Format.count(list.revoked.count, "credential")) revoked, issued by \(list.issuer)")
                    continue
                }
                let verified = try verifier.verify(data)
                let name = verified.credential["name"]?.stringValue ?? "credential"
                var status = ""
                if let position = try StatusList.position(of: verified.credential) {
                    if let list, list.url == position.url {
                        guard list.issuer == verified.issuer else {
                            throw CredentialError.unknownKey(method: list.issuer, reason: "the status list's issuer is not the credential's")
                        }
                        if list.revoked.contains(position.index) {
                            failed = true
                            print("REVOKED \(file): \(name): its issuer revoked it (status list \(position.url), position \(position.index))")
                            continue
                        }
                        status = "; not revoked"
                    } else {
                        status = "; revocation not checked (its status list \(position.url): --status-list FILE)"
                    }
                }
                if runs != nil {
                    valid.append((file, try OpenBadgeCredential.claim(verified.credential), name))
                } else {
                    print("valid \(file): \(name), issued by \(verified.issuer) (\(verified.form.rawValue))\(status)")
                }
            } catch {
                failed = true
                print("INVALID \(file): \(error)")
            }
        }
        var status = failed ? ExitStatus.failure.rawValue : ExitStatus.success.rawValue
        if let runs, !valid.isEmpty {
            let rederived = try rederive(valid, runs: runs)
            if !failed { status = rederived }
        }
        if status != ExitStatus.success.rawValue { throw ExitCode(status) }
    }

    /// Evaluates `runs` once per as-of date and zone the credentials name, and says of each whether
    /// its award is among the awards; returns the exit status (0, `doesNotFollow`, or `packsDoNotLoad`).
    func rederive(_ credentials: [(file: String, claim: OpenBadgeCredential.Claim, name: String)], runs folder: String) throws -> Int32 {
        let packs = try EvaluationPipeline.guarding(.printAndExit) { try rules.packDirectories() }
        var status = ExitStatus.success.rawValue
        var groups: [String: [(file: String, claim: OpenBadgeCredential.Claim, name: String)]] = [:]
        for item in credentials {
            let claim = item.claim
            groups[[claim.asOf, claim.zone, claim.sport, claim.keepsDuplicates ? "kept" : ""].joined(separator: "\u{0}"), default: []].append(item)
        }
        for key in groups.keys.sorted() {
            guard let items = groups[key], let first = items.first?.claim else { continue }
            guard let zone = ZoneNames.zone(named: first.zone) else {
                for item in items { print("INVALID \(item.file): its time zone '\(first.zone)' is unknown here") }
                status = max(status, ExitStatus.failure.rawValue)
                continue
            }
            let asOf = AsOfOptions.isDate(first.asOf) ? first.asOf : nil
            let selection = RunPipeline.Selection(sport: first.sport, removesDuplicates: !first.keepsDuplicates, asOf: asOf)
            let pipeline = try EvaluationPipeline(rules: rules, limits: limits, zone: zone, selection: selection, theme: nil,
                                                  failures: .printAndExit, packDirectories: packs)
            let outcome = try pipeline.run(directory: folder, cache: cacheOptions.open())
            for item in items {
                let claim = item.claim
                guard let pack = pipeline.engine.packs.first(where: { $0.name == claim.pack }) else {
                    print("CANNOT RE-DERIVE \(item.file): no pack '\(claim.pack)' is loaded (--rules PATH to the pack, version \(claim.packVersion))")
                    status = max(status, ExitStatus.packsDoNotLoad.rawValue)
                    continue
                }
                guard pack.version == claim.packVersion else {
                    print("CANNOT RE-DERIVE \(item.file): the credential names \(claim.pack) \(claim.packVersion); the pack loaded from \(pack.directory) is \(pack.version)")
                    status = max(status, ExitStatus.packsDoNotLoad.rawValue)
                    continue
                }
                let place = "as of \(claim.asOf) (\(claim.zone))"
                if !outcome.selected.contains(where: { $0.id == claim.run }) {
                    print("DOES NOT FOLLOW \(item.file): the run \(claim.run) is not among the runs of \(folder) \(place)")
                    status = max(status, CredentialsCommand.doesNotFollow)
                    continue
                }
                let given = outcome.evaluation.awards.contains { $0.pack == claim.pack && $0.badge == claim.badge && $0.tier == claim.tier && $0.run == claim.run }
                if !given {
                    print("DOES NOT FOLLOW \(item.file): \(claim.pack) \(claim.packVersion) does not award \(claim.badge) (\(claim.tier)) to \(claim.run) \(place)")
                    status = max(status, CredentialsCommand.doesNotFollow)
                    continue
                }
                var note = ""
                if pack.fingerprint != claim.packFingerprint { note += "; note: the pack's content differs from the one that issued it (\(pack.fingerprint))" }
                if let named = claim.runFileNamedInformation, let file = AwardFacts.runFile(run: claim.run, folder: folder),
                   OpenBadgeCredential.namedInformation(sha256Hex: file.sha256) != named {
                    note += "; note: the run file \(file.file) differs from the one the credential names"
                }
                print("follows \(item.file): \(item.name): \(claim.pack) \(claim.packVersion) awards \(claim.badge) (\(claim.tier)) to \(claim.run) \(place)\(note)")
            }
        }
        return status
    }
}

/// `badgectl credentials revoke DIR --against PATH... --key FILE --credentials OUTDIR`
struct RevokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke the credentials of awards a new version of the packs withdraws: write the status list to publish.",
        discussion: """
            Evaluates DIR with the current packs (--rules) and the candidate packs (--against), as \
            `badgectl diff` does; every award the candidate does not give (same badge, tier and run: \
            diff's lost and moved-away awards) whose credential is in --credentials is marked in the \
            status list: OUTDIR/status-list.json, a BitstringStatusListCredential signed with the key, \
            to publish at the URL the credentials name (`issue --status-list URL`). Marks already in \
            that file are kept. Credentials issued without --status-list cannot be revoked (listed).

            Examples:
              badgectl credentials revoke ~/runs --against ../next/rules --key issuer.key --credentials credentials/

            \(CredentialsCommand.exitHelp)
            """
    )

    @Argument(help: ArgumentHelp("The folder of run files the credentials were issued for.", valueName: "dir"))
    var directory: String

    @Option(name: .long, help: ArgumentHelp("A candidate rule pack folder, or a folder of packs. Repeat for more.", valueName: "path"))
    var against: [String] = []

    @Option(name: .long, help: ArgumentHelp("The issuer key that signed the credentials.", valueName: "file"))
    var key: String

    @Option(name: .long, help: ArgumentHelp("The folder `credentials issue --out` wrote; the status list is written there.", valueName: "dir"))
    var credentials: String

    @OptionGroup var options: PipelineOptions
    @OptionGroup var cacheOptions: CacheOptions<SummaryCache>

    func validate() throws {
        if against.isEmpty { throw ValidationError("revoke needs the candidate packs: --against PATH (repeat for more)") }
    }

    func run() throws {
        let issuer: IssuerKey
        do { issuer = try IssuerKey.read(path: key) } catch {
            Console.error(CommandError.prefix + "--key: \(error)")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        let current = try EvaluationPipeline(options, failures: .printAndExit)
        var candidateRules = options.rules
        candidateRules.rules = against
        let candidatePacks = try EvaluationPipeline.guarding(.printAndExit) { try candidateRules.packDirectories() }
        let candidate = try EvaluationPipeline(options, failures: .printAndExit, packDirectories: candidatePacks)
        try DiffCommand.requireLoading(current: current, candidate: candidate)
        let cache = cacheOptions.open()
        let before = try current.run(directory: directory, cache: cache)
        let after = try candidate.run(directory: directory, cache: cache)
        let kept = Set(after.evaluation.awards.map { "\($0.badge)\u{0}\($0.tier)\u{0}\($0.run)" })
        let withdrawn = before.evaluation.awards.filter { !kept.contains("\($0.badge)\u{0}\($0.tier)\u{0}\($0.run)") }

        var url: String?
        var marks: [(file: String, name: String, index: Int)] = []
        var unrevocable: [String] = []
        for award in withdrawn {
            let id = AwardFacts.awardId(pack: award.pack, badge: award.badge, tier: award.tier, run: award.run)
            let file = (credentials as NSString).appendingPathComponent(id + ".json")
            guard let data = FileManager.default.contents(atPath: file) else { continue }  // never issued: nothing to revoke
            do {
                let verified = try CredentialVerifier(trustedIssuers: [issuer.did]).verifyJSON(data)
                guard let position = try StatusList.position(of: verified.credential) else {
                    unrevocable.append(file)
                    continue
                }
                if let url, url != position.url {
                    throw CredentialError.badField(field: "credentialStatus.statusListCredential",
                                                   reason: "\(position.url), while other credentials name \(url): one list at a time")
                }
                url = position.url
                marks.append((file, verified.credential["name"]?.stringValue ?? id, position.index))
            } catch {
                Console.error(CommandError.prefix + "\(file): \(error)")
                throw ExitCode(ExitStatus.failure.rawValue)
            }
        }
        for file in unrevocable {
            Console.error(CommandError.warningPrefix + "\(file): issued without --status-list, so it cannot be revoked")
        }
        print("\(Format.count(withdrawn.count, "award")) withdrawn by the candidate packs, \(Format.count(marks.count, "credential")) to revoke")
        guard let url else { return }
        let path = (credentials as NSString).appendingPathComponent("status-list.json")
        var revoked = Set<Int>()
        if let data = FileManager.default.contents(atPath: path) {
            do {
                let existing = try StatusList.verify(data)
                guard existing.url == url, existing.issuer == issuer.did else {
                    throw CredentialError.badField(field: "id", reason: "the list there is \(existing.url) by \(existing.issuer), not \(url) by \(issuer.did)")
                }
                revoked = existing.revoked
            } catch {
                Console.error(CommandError.prefix + "\(path): \(error); not replaced")
                throw ExitCode(ExitStatus.failure.rawValue)
            }
        }
        for mark in marks {
            revoked.insert(mark.index)
            print("revoked \(mark.file): \(mark.name) (position \(mark.index))")
        }
        let now = CredentialTime.text(epochSeconds: Int(ReportCommand.now().timeIntervalSince1970))
        do {
            let list = try StatusList.credential(url: url, issuer: issuer, revoked: revoked, validFrom: now)
            try Data((list.pretty + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            Console.error(CommandError.prefix + "\(path): cannot write the status list (\(error))")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        print("wrote \(path) (\(Format.count(revoked.count, "credential")) revoked in all): publish it at \(url)")
    }
}
