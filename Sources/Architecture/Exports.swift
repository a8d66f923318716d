// What TCA re-exports, so that ported features and tests need only `import Architecture`.
@_exported import CasePaths
@_exported import Clocks
@_exported import ConcurrencyExtras
@_exported import CustomDump
@_exported import Dependencies
// `DispatchQueue`, for code on `@Dependency(\.mainQueue)`: TCA features name it
// (`AnySchedulerOf<DispatchQueue>`, `DispatchQueue.test`) and get it from the SwiftUI or XCTest
// import they had, which a port to Linux drops.
@_exported import Dispatch
@_exported import IdentifiedCollections
@_exported import Observation

// `URLSession` and its configuration live in FoundationNetworking on Linux, where TCA's feature
// code (`@Dependency(\.urlSession)`, `URLSession(configuration: .ephemeral)`) would otherwise
// need an extra import.
#if canImport(FoundationNetworking)
  @_exported import FoundationNetworking
#endif
