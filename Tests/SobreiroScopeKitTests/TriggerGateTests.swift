import SobreiroScopeKit
import Testing

@Suite("F1: which triggers start a run, and when")
struct TriggerGateTests {
    private func admit(_ gate: inout TriggerGate, at milliseconds: [Int]) -> [TriggerGate.Admission] {
        milliseconds.map { gate.admit(at: .milliseconds($0)) }
    }

    @Test("a debounce delays every trigger, and only the last of a burst may claim its run")
    func debounce() {
        var gate = TriggerGate(shape: .debounce(.milliseconds(300)))
        let admissions = admit(&gate, at: [0, 100, 200])
        #expect(admissions.last == .delayed(due: .milliseconds(500), ticket: 3))
        let claims = [(1, 300), (3, 500), (3, 500)].map { gate.claim($0, due: .milliseconds($1)) }
        #expect(claims == [false, true, false], "replaced by the next keystroke; a run claims its place once")
    }

    @Test("a throttle keeping the first drops the triggers of an interval, and the next interval starts with a run")
    func throttleFirst() {
        var gate = TriggerGate(shape: .throttle(.seconds(1), .first))
        #expect(admit(&gate, at: [0, 500, 999, 1000, 1500, 2000]) == [.now, .dropped, .dropped, .now, .dropped, .now])
    }

    @Test("a throttle keeping the latest delays the triggers of an interval to its end, where the next one begins")
    func throttleLatest() {
        var gate = TriggerGate(shape: .throttle(.seconds(1), .latest))
        let admissions = admit(&gate, at: [0, 200, 500, 1500, 3100])
        #expect(
            admissions == [
                .now, .delayed(due: .seconds(1), ticket: 1), .delayed(due: .seconds(1), ticket: 2),
                .delayed(due: .seconds(2), ticket: 3), .now,
            ]
        )
        let claims = [(1, 1), (2, 1), (3, 2)].map { gate.claim($0, due: .seconds($1)) }
        #expect(claims == [false, true, true], "a later interval does not replace the run due before it")
    }

    @Test("times read out of order on several threads never move a gate back")
    func timesNeverGoBack() {
        var gate = TriggerGate(shape: .debounce(.milliseconds(300)))
        _ = gate.admit(at: .milliseconds(500))
        #expect(gate.admit(at: .milliseconds(400)) == .delayed(due: .milliseconds(800), ticket: 2))
    }
}
