// swift-tools-version:5.9
//
// The SessionDB Swift package. Its sources are generated, so the package is
// assembled by scripts/build-swift-package.sh into bindings/out/swift-package:
//
//   Package.swift                         this file
//   Sources/SessionDBFFI/                 uniffi's C header and module map (+ `link "sessiondb_ffi"`)
//   Sources/SessionDB/SessionDB.swift     the uniffi Swift (blocking API and its `async` variants)
//   lib/libsessiondb_ffi.so               the Rust library (Linux)
//   Tests/SessionDBTests/                 the XCTest suite (from bindings/swift/Tests)
//
// On Linux the FFI module is a system-library target linked against lib/ (an
// rpath to it is set, so `swift test` runs in place). On Apple platforms the
// FFI module comes from SessionDBFFI.xcframework (scripts/build-xcframework.sh,
// which needs Xcode) when it sits beside this file.
import Foundation
import PackageDescription

let here = Context.packageDirectory
let xcframework = "SessionDBFFI.xcframework"
let useXCFramework = FileManager.default.fileExists(atPath: here + "/" + xcframework)

let ffiTarget: Target = useXCFramework
    ? .binaryTarget(name: "SessionDBFFI", path: xcframework)
    : .systemLibrary(name: "SessionDBFFI", path: "Sources/SessionDBFFI")

// The static library in the XCFramework uses the Keychain (Security.framework).
let linker: [LinkerSetting] = useXCFramework
    ? [.linkedFramework("Security"), .linkedFramework("CoreFoundation")]
    : [.unsafeFlags(["-L", here + "/lib", "-Xlinker", "-rpath", "-Xlinker", here + "/lib"])]

let package = Package(
    name: "SessionDB",
    platforms: [.macOS(.v12), .iOS(.v15)],
    products: [
        .library(name: "SessionDB", targets: ["SessionDB"]),
    ],
    targets: [
        ffiTarget,
        .target(
            name: "SessionDB",
            dependencies: ["SessionDBFFI"],
            path: "Sources/SessionDB",
            linkerSettings: linker
        ),
        .testTarget(
            name: "SessionDBTests",
            dependencies: ["SessionDB"],
            path: "Tests/SessionDBTests",
            linkerSettings: linker
        ),
    ]
)
