// swift-tools-version:5.9
import PackageDescription
let package = Package(name: "zipbench",
  dependencies: [.package(url: "https://github.com/weichsel/ZIPFoundation", exact: "0.9.20")],
  targets: [.executableTarget(name: "zipbench", dependencies: ["ZIPFoundation"])])
