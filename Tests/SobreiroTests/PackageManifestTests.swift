import Foundation
import Testing

@Suite("Package manifest")
struct PackageManifestTests {
    @Test("the manifest declares the oldest systems whose runtime has Synchronization")
    func platformsAreDeclared() throws {
        let manifestPath = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        let manifest = try String(contentsOfFile: "/" + manifestPath + "/Package.swift", encoding: .utf8)
        for platform in [".macOS(.v15)", ".iOS(.v18)", ".tvOS(.v18)", ".watchOS(.v11)", ".visionOS(.v2)"] {
            #expect(manifest.contains(platform), "Package.swift must declare \(platform)")
        }
    }
}
