// swift-tools-version: 6.0
import PackageDescription

// Compiles the `#if canImport(Combine)` branches of ScopeKit and SobreiroCombine on Linux, where no Combine exists:
// a stand-in module named `Combine` re-exports OpenCombine, and ScopeKit, Sobreiro, SobreiroCombine, SobreiroTrace
// and ScopeKit's tests are built from the root package's own sources. SwiftPM refuses a target path outside the
// package root, so Sources/ScopeKit, Sources/Sobreiro, Sources/SobreiroCombine, Sources/SobreiroPrimitives,
// Sources/SobreiroTrace and Tests/ScopeKitTests here are committed symlinks into the root package.
//
// A package of its own, like Benchmarks/, so that OpenCombine never enters the graph of Sobreiro's users.
// Linux only: on Apple platforms the root package already compiles this branch against the real Combine, and the
// stand-in would collide with it. Run it with Scripts/apple-branch.sh.
let package = Package(
    name: "AppleBranch",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0")
    ],
    targets: [
        .target(name: "Combine", dependencies: [.product(name: "OpenCombine", package: "OpenCombine")]),
        .target(name: "SobreiroPrimitives"),
        .target(name: "SobreiroTrace", dependencies: ["SobreiroPrimitives"]),
        .target(name: "ScopeKit", dependencies: ["Combine", "SobreiroPrimitives", "SobreiroTrace"]),
        .target(name: "Sobreiro", dependencies: ["SobreiroPrimitives", "SobreiroTrace"]),
        .target(name: "SobreiroCombine", dependencies: ["Combine", "SobreiroPrimitives", "Sobreiro"]),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "ScopeKitTests", dependencies: ["ScopeKit", "TestSupport"]),
        .testTarget(name: "CombineBranchTests", dependencies: ["ScopeKit"]),
        .testTarget(
            name: "StatePublisherTests",
            dependencies: ["Combine", "SobreiroPrimitives", "Sobreiro", "SobreiroCombine", "TestSupport"]
        ),
    ]
)

// The root package's language settings, so that ScopeKit and Sobreiro compile here exactly as they do there.
for target in package.targets {
    let settings: [SwiftSetting] = [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
    target.swiftSettings = (target.swiftSettings ?? []) + settings
}
