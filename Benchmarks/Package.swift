// swift-tools-version: 6.1
import PackageDescription

// Benchmarks live in their own package so that their dependencies never enter the graph of Sobreiro's users.
let package = Package(
    name: "SobreiroBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Sobreiro", path: ".."),
        .package(url: "https://github.com/ordo-one/package-benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
    ],
    targets: [
        .target(
            name: "Contenders",
            dependencies: [
                .product(name: "Sobreiro", package: "Sobreiro"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),
        .executableTarget(
            name: "CoreBenchmarks",
            dependencies: ["Contenders", .product(name: "Benchmark", package: "package-benchmark")],
            path: "Benchmarks/CoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "ScopeKitBenchmarks",
            dependencies: [
                .product(name: "ScopeKit", package: "Sobreiro"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/ScopeKitBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .target(
            name: "AdapterScenarios",
            dependencies: [
                .product(name: "Sobreiro", package: "Sobreiro"),
                .product(name: "ScopeKit", package: "Sobreiro"),
                .product(name: "SobreiroScopeKit", package: "Sobreiro"),
            ]
        ),
        .executableTarget(
            name: "AdapterBenchmarks",
            dependencies: [
                "AdapterScenarios",
                .product(name: "Sobreiro", package: "Sobreiro"),
                .product(name: "ScopeKit", package: "Sobreiro"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/AdapterBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "TreeBenchmarks",
            dependencies: [
                "AdapterScenarios",
                .product(name: "ScopeKit", package: "Sobreiro"),
                .product(name: "SobreiroScopeKit", package: "Sobreiro"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/TreeBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "MainActorBenchmarks",
            dependencies: [
                .product(name: "Sobreiro", package: "Sobreiro"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/MainActorBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "ObservationBenchmarks",
            dependencies: [
                .product(name: "Sobreiro", package: "Sobreiro"),
                .product(name: "SobreiroObservation", package: "Sobreiro"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/ObservationBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "AdapterProbe",
            dependencies: ["AdapterScenarios", .product(name: "ScopeKit", package: "Sobreiro")]
        ),
        .executableTarget(
            name: "WritePathProbe",
            dependencies: ["Contenders", .product(name: "ScopeKit", package: "Sobreiro")]
        ),
    ]
)

for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + [.swiftLanguageMode(.v6)]
}
