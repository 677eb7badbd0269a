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
        .library(name: "SobreiroCombine", targets: ["SobreiroCombine"]),
        .executable(name: "Playground", targets: ["Playground"]),
    ],
    targets: [
        // The lock, thread IDs, the main-queue check and the hop to the main actor, in one place for every module;
        // no product, so apps never see it.
        .target(name: "SobreiroPrimitives"),
        .target(name: "SobreiroTrace", dependencies: ["SobreiroPrimitives"]),
        .target(name: "Sobreiro", dependencies: ["SobreiroPrimitives", "SobreiroTrace"]),
        .target(name: "ScopeKit", dependencies: ["SobreiroPrimitives", "SobreiroTrace"]),
        .target(name: "SobreiroScopeKit", dependencies: ["SobreiroPrimitives", "Sobreiro", "ScopeKit"]),
        .target(
            name: "SobreiroTesting",
            dependencies: ["SobreiroPrimitives", "Sobreiro", "ScopeKit", "SobreiroScopeKit", "SobreiroObservation"]
        ),
        // A product of its own, so that only apps that render through Observation link its module.
        .target(name: "SobreiroObservation", dependencies: ["SobreiroPrimitives", "Sobreiro"]),
        // A model's states as a Combine publisher, where Combine exists: a product of its own, so that Sobreiro's
        // module compiles the same on every platform.
        .target(name: "SobreiroCombine", dependencies: ["SobreiroPrimitives", "Sobreiro"]),
        .executableTarget(
            name: "Playground",
            dependencies: ["SobreiroPrimitives", "Sobreiro", "ScopeKit", "SobreiroScopeKit", "SobreiroObservation"],
            path: "Playground",
            exclude: ["README.md"]
        ),
        // Helpers that several test targets share; no product, so apps never see it.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "SobreiroTests", dependencies: ["SobreiroPrimitives", "Sobreiro", "SobreiroTesting", "TestSupport"]),
        .testTarget(name: "ScopeKitTests", dependencies: ["ScopeKit", "TestSupport"]),
        .testTarget(
            name: "SobreiroScopeKitTests",
            dependencies: [
                "SobreiroPrimitives", "Sobreiro", "ScopeKit", "SobreiroScopeKit", "SobreiroObservation",
                "SobreiroTesting", "TestSupport",
            ]
        ),
        .testTarget(
            name: "SobreiroTestingTests",
            dependencies: [
                "SobreiroPrimitives", "Sobreiro", "ScopeKit", "SobreiroScopeKit", "SobreiroObservation",
                "SobreiroTesting", "TestSupport",
            ]
        ),
        .testTarget(
            name: "SobreiroObservationTests",
            dependencies: ["SobreiroPrimitives", "Sobreiro", "SobreiroObservation", "TestSupport"]),
        .testTarget(
            name: "RandomizedTests",
            dependencies: [
                "SobreiroPrimitives", "Sobreiro", "ScopeKit", "SobreiroScopeKit", "SobreiroTesting", "TestSupport",
            ]
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
