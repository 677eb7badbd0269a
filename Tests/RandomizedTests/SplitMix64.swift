/// A small, seeded pseudo-random generator (SplitMix64), so that one seed always yields the same sequence.
///
/// The standard library's `Int.random(in:using:)` may change its algorithm between toolchains; the helpers
/// below only use `next()`, so a seed printed by a failing run replays the same operations anywhere.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A number in `0..<bound`. The modulo bias is irrelevant for bounds this small.
    mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "below(_:) needs a positive bound")
        return Int(next() % UInt64(bound))
    }

    /// `true` with the given probability, in percent.
    mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }

    /// An index into `weights`, picked with probability proportional to its weight.
    mutating func weightedIndex(_ weights: [Int]) -> Int {
        var ticket = below(weights.reduce(0, +))
        for (index, weight) in weights.enumerated() {
            if ticket < weight { return index }
            ticket -= weight
        }
        return weights.count - 1
    }
}
