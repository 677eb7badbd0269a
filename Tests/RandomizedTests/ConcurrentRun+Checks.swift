import Sobreiro

extension ConcurrentRun {
    /// What must hold once every thread has returned: each write was delivered by then, since the thread that
    /// delivers a model's changes returns only after the last round it was asked for.
    static func check(models: [PlainTally], reports: [ThreadReport], bounces: [Int]) -> [String] {
        var problems: [String] = []
        for (index, model) in models.enumerated() {
            let expected = reports.map { $0.increments[index] }.reduce(0, +) + bounces[index]
            if model.state.count != expected {
                problems.append("model \(index) counts \(model.state.count) increments, expected \(expected) (T1)")
            }
        }
        for report in reports {
            for view in report.views {
                problems += check(view, of: models[view.model])
            }
            problems += checkFollows(of: report, models: models)
        }
        for (index, model) in models.enumerated() {
            let views = reports.flatMap(\.views).filter { $0.isSubscribed && $0.model == index }.count
            let wholes = reports.filter { $0.wholeFollows.contains(index) }.count
            let projections = reports.map { $0.projectionFollows[index] ?? 0 }.reduce(0, +)
            if model.subscriberCount != views + wholes + projections {
                problems.append(
                    "model \(index) counts \(model.subscriberCount) subscribers, expected \(views + wholes + projections)"
                )
            }
        }
        return problems
    }

    private static func check(_ view: OwnedView, of model: PlainTally) -> [String] {
        var problems = view.probe.violations.map { "a view of model \(view.model) \($0)" }
        if view.isSubscribed, !view.probe.hasRendered(model.state) {
            problems.append(
                "a subscribed view of model \(view.model) ended on \(view.probe.lastDescription()), but the model "
                    + "holds \(model.state) (D4)"
            )
        }
        if let target = view.probe.echoTarget, let last = view.probe.lastValue,
            target.state.echoes[view.probe.id] != last
        {
            problems.append(
                "a view of model \(view.model) last rendered value \(last), but the echo it wrote from that render "
                    + "into model \(target.state.slot) is \(String(describing: target.state.echoes[view.probe.id]))"
            )
        }
        return problems
    }

    /// A follower ends on the latest value of each model it follows (C1, D4).
    private static func checkFollows(of report: ThreadReport, models: [PlainTally]) -> [String] {
        guard let follower = report.follower else { return [] }
        var problems: [String] = []
        let state = models[follower].state
        for publisher in report.wholeFollows where state.mirrors[publisher] != models[publisher].state.value {
            problems.append(
                "model \(follower) follows model \(publisher) but mirrors \(String(describing: state.mirrors[publisher]))"
                    + ", not its value \(models[publisher].state.value)"
            )
        }
        for publisher in report.projectionFollows.keys
        where state.projections[publisher] != models[publisher].state.value % 3 {
            problems.append(
                "model \(follower) follows a projection of model \(publisher) but holds "
                    + "\(String(describing: state.projections[publisher])), not \(models[publisher].state.value % 3)"
            )
        }
        return problems
    }
}
