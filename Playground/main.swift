#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// A team leaderboard in the terminal, built on Sobreiro, ScopeKit and SobreiroScopeKit. `Options.usage` describes
// the modes; `ScriptedSession` tells the story that the committed transcript shows.

let options: Options
do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    StandardStream.error("Playground: \(error)\n\n\(Options.usage)\n")
    exit(2)
}

func playScriptedSession() async {
    ScriptedSession.startWatchdog(seconds: 9)
    await ScriptedSession(trace: options.showsTrace ? TraceTimeline() : nil).play()
}

switch options.mode {
case .help:
    print(Options.usage)
case .scripted:
    await playScriptedSession()
case .interactive:
    guard isatty(STDIN_FILENO) != 0 else {
        StandardStream.error(
            "Playground: standard input is not a terminal, so this plays the scripted session instead.\n"
        )
        await playScriptedSession()
        exit(0)
    }
    guard let status = await InteractiveSession(showsTrace: options.showsTrace).run() else {
        StandardStream.error("Playground: the terminal refused raw mode, so this plays the scripted session instead.\n")
        await playScriptedSession()
        exit(0)
    }
    print("Playground: \(status == 0 ? "quit" : "interrupted"); the terminal is as it was.")
    exit(status)
}
