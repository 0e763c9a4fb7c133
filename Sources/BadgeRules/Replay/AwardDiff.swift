import RunFiles

/// What changes between two evaluations of one history (`badgectl diff`): per badge, the awards the
/// candidate packs give that the current ones do not (gained), those they no longer give (lost), and
/// those given for another run (moved: same badge and tier, another run or date).
///
/// Awards are matched by badge, tier and run; a change of detail, evidence or pack version alone is
/// not a difference (it does not change the badge wall).
public struct AwardDiff: Codable, Sendable, Equatable {
    /// Where an award sits: the run and its start.
    public struct Place: Codable, Sendable, Equatable {
        public var run: String
        @NullEncoded public var at: String?
        public init(run: String, at: String?) { self.run = run; self.at = at }
    }

    /// One award gained or lost.
    public struct Change: Codable, Sendable, Equatable {
        public var tier: String
        public var run: String
        @NullEncoded public var at: String?
        /// The pack that made (current: lost) or makes (candidate: gained) it.
        public var pack: String
        public var detail: String
    }

    /// One award of the same badge and tier given for another run.
    public struct Move: Codable, Sendable, Equatable {
        public var tier: String
        public var from: Place
        public var to: Place
    }

    /// Counts of changes (per badge and in all).
    public struct Counts: Codable, Sendable, Equatable {
        public var gained = 0
        public var lost = 0
        public var moved = 0
        /// Awards both evaluations give alike.
        public var unchanged = 0
        /// Whether anything differs.
        public var differs: Bool { gained + lost + moved > 0 }
        /// No changes yet.
        public init() {}
    }

    /// The changes of one badge.
    public struct BadgeChanges: Codable, Sendable, Equatable {
        public var badge: String
        public var gained: [Change] = []
        public var lost: [Change] = []
        public var moved: [Move] = []
        public var counts = Counts()
    }

    /// Badges with at least one change, in the order their first award appears (current, then candidate).
    public var badges: [BadgeChanges]
    /// The totals over every badge (`unchanged` included).
    public var counts: Counts

    /// Compares the awards of `current` with those of `candidate`.
    public init(current: [Award], candidate: [Award]) {
        struct Key: Hashable { var badge: String; var tier: String }
        var order: [String] = []
        var seenBadges = Set<String>()
        var before: [Key: [Award]] = [:], after: [Key: [Award]] = [:]
        var keys: [Key] = []
        var seenKeys = Set<Key>()
        for (award, isCurrent) in current.map({ ($0, true) }) + candidate.map({ ($0, false) }) {
            let key = Key(badge: award.badge, tier: award.tier)
            if isCurrent { before[key, default: []].append(award) } else { after[key, default: []].append(award) }
            if seenKeys.insert(key).inserted { keys.append(key) }
            if seenBadges.insert(award.badge).inserted { order.append(award.badge) }
        }
        var byBadge: [String: BadgeChanges] = [:]
        var total = Counts()
        for key in keys {
            var old = before[key] ?? [], new = after[key] ?? []
            // Awards for the same run on both sides are unchanged (matched once each).
            var unchanged = 0
            old.removeAll { award in
                guard let match = new.firstIndex(where: { $0.run == award.run && $0.at == award.at }) else { return false }
                new.remove(at: match)
                unchanged += 1
                return true
            }
            var changes = byBadge[key.badge] ?? BadgeChanges(badge: key.badge)
            let moves = min(old.count, new.count)
            for index in 0..<moves {
                changes.moved.append(Move(tier: key.tier, from: Place(run: old[index].run, at: old[index].at),
                                          to: Place(run: new[index].run, at: new[index].at)))
            }
            func change(_ award: Award) -> Change {
                Change(tier: award.tier, run: award.run, at: award.at, pack: award.pack, detail: award.detail)
            }
            changes.gained += new.dropFirst(moves).map(change)
            changes.lost += old.dropFirst(moves).map(change)
            changes.counts.moved += moves
            changes.counts.gained += new.count - moves
            changes.counts.lost += old.count - moves
            changes.counts.unchanged += unchanged
            byBadge[key.badge] = changes
        }
        badges = order.compactMap { byBadge[$0] }.filter { $0.counts.differs }
        for badge in order.compactMap({ byBadge[$0] }) {
            total.gained += badge.counts.gained
            total.lost += badge.counts.lost
            total.moved += badge.counts.moved
            total.unchanged += badge.counts.unchanged
        }
        counts = total
    }
}
