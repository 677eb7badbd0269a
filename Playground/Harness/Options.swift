/// What the command line asks for, parsed by hand: the playground has no dependencies.
struct Options {
    enum Mode: Equatable {
        /// Play the scripted session and print its frames.
        case scripted
        /// Run the live terminal UI.
        case interactive
        /// Print the usage.
        case help
    }

    /// An argument the playground does not know.
    struct UnknownArgument: Error, CustomStringConvertible {
        let argument: String

        var description: String { "unknown argument '\(argument)'" }
    }

    var mode = Mode.scripted
    /// Whether to show the library's trace.
    var showsTrace = false

    static let usage = """
        Usage: Playground [--interactive] [--trace]
               Playground --help

        A team leaderboard built with Sobreiro, ScopeKit and SobreiroScopeKit, drawn in the terminal.

          (no arguments)  Play a scripted session: each step prints a one-line caption of what just
                          happened and the frame it left on screen. The output is the same on every
                          run; Tests/PlaygroundTranscript/scripted.txt holds it.
          --interactive   Run the app live: 1/2 or Tab switch tabs, r refreshes or retries, f makes the
                          next load fail, ↑/↓ (or k/j) choose a player, Enter pushes their detail, Esc
                          or b pops it, q or Ctrl-C quits. Scores arrive every two seconds, loads take
                          a moment, and a detail polls every five seconds. Without a terminal on
                          standard input, it says so and plays the scripted session instead.
          --trace         Add Sobreiro's trace: transactions, deliveries, hops to the main actor and
                          lifecycle transitions and hooks, indented under each caption (in the live UI,
                          the latest events under the frame). Thread names vary from run to run.
          --help, -h      Show this help.
        """

    /// Parses the arguments that follow the program's name.
    ///
    /// - Throws: ``UnknownArgument`` for the first argument it does not know.
    init(arguments: [String]) throws(UnknownArgument) {
        for argument in arguments {
            switch argument {
            case "--interactive": mode = mode == .help ? .help : .interactive
            case "--trace": showsTrace = true
            case "--help", "-h": mode = .help
            default: throw UnknownArgument(argument: argument)
            }
        }
    }
}
