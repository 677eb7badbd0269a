// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Sobreiro",
    // The oldest systems whose Swift runtime has the Synchronization module (Atomic, Mutex).
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Sobreiro", targets: ["Sobreiro"]),
        .library(name: "ScopeKit", targets: ["ScopeKit"]),
        .library(name: "SobreiroScopeKit", targets: ["SobreiroScopeKit"]),
        .library(name: "SobreiroTesting", targets: ["SobreiroTesting"]),
        .library(name: "SobreiroObservation", targets: ["SobreiroObservation"]),
        .executable(name: "Playground", targets: ["Playground"]),
    ],
    targets: [
        .target(name: "SobreiroTrace"),
        .target(name: "Sobreiro", dependencies: ["SobreiroTrace"]),
        .target(name: "ScopeKit", dependencies: ["SobreiroTrace"]),
        .target(name: "SobreiroScopeKit", dependencies: ["Sobreiro", "ScopeKit"]),
        .target(
            name: "SobreiroTesting",
            dependencies: ["Sobreiro", "ScopeKit", "SobreiroScopeKit", "SobreiroObservation"]
        ),
        // A product of its own, so that only apps that render through Observation link its module.
        .target(name: "SobreiroObservation", dependencies: ["Sobreiro"]),
        .executableTarget(
            name: "Playground",
            dependencies: ["Sobreiro", "ScopeKit", "SobreiroScopeKit", "SobreiroObservation"],
            path: "Playground",
            exclude: ["README.md"]
        ),
        // Helpers that several test targets share; no product, so apps never see it.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "SobreiroTests", dependencies: ["Sobreiro", "SobreiroTesting", "TestSupport"]),
        .testTarget(name: "ScopeKitTests", dependencies: ["ScopeKit", "TestSupport"]),
        .testTarget(
            name: "SobreiroScopeKitTests",
            dependencies: [
                "Sobreiro", "ScopeKit", "SobreiroScopeKit", "SobreiroObservation", "SobreiroTesting", "TestSupport",
            ]
        ),
        .testTarget(
            name: "SobreiroTestingTests",
            dependencies: [
                "Sobreiro", "ScopeKit", "SobreiroScopeKit", "SobreiroObservation", "SobreiroTesting", "TestSupport",
            ]
        ),
        .testTarget(
            name: "SobreiroObservationTests", dependencies: ["Sobreiro", "SobreiroObservation", "TestSupport"]),
        .testTarget(
            name: "RandomizedTests",
            dependencies: ["Sobreiro", "ScopeKit", "SobreiroScopeKit", "SobreiroTesting", "TestSupport"]
        ),
    ]
)

// The same language settings for every target: Swift 6 mode with complete checking is the tools-version default;
// these upcoming features keep existentials explicit and imports deliberate.
for target in package.targets {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .swiftLanguageMode(.v6),
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
