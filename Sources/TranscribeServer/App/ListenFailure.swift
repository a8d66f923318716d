import Foundation
import NIOCore

/// Why the server could not listen on its address, as a sentence that names the fix.
///
/// ```swift
/// do { try await group.run() } catch {
///   guard let failure = ListenFailure(error, host: "127.0.0.1", port: 2700) else { throw error }
///   print(failure.message)  // "127.0.0.1:2700 is already in use by another program: …"
/// }
/// ```
public struct ListenFailure: Error, Equatable, Sendable, CustomStringConvertible {
  /// What went wrong.
  public enum Reason: Equatable, Sendable {
    /// Another program listens on the port.
    case addressInUse
    /// The port needs privileges the server does not have.
    case noPermission
    /// The host is not an address of this machine.
    case notAnAddressOfThisMachine
    /// The host name does not resolve.
    case unknownHost
  }

  /// What went wrong.
  public var reason: Reason
  /// The host the server was asked to listen on.
  public var host: String
  /// The port it was asked to listen on.
  public var port: Int

  /// The failure `error` stands for when listening on `host`:`port`; `nil` when `error` is not
  /// about listening.
  public init?(_ error: any Error, host: String, port: Int) {
    if let error = error as? IOError {
      switch error.errnoCode {
      case EADDRINUSE: reason = .addressInUse
      case EACCES: reason = .noPermission
      case EADDRNOTAVAIL: reason = .notAnAddressOfThisMachine
      default: return nil
      }
    } else if error is SocketAddressError || error is SocketAddressError.UnknownHost {
      reason = .unknownHost
    } else {
      return nil
    }
    self.host = host
    self.port = port
  }

  /// The sentence for the terminal.
  public var message: String {
    let host = ServerConfiguration.urlHost(host)
    let address = "\(host):\(port)"
    switch reason {
    case .addressInUse:
      return "\(address) is already in use by another program: stop it, or pick another "
        + "port with --port (--port 0 takes any free one)."
    case .noPermission:
      return "no permission to listen on \(address): ports below 1024 need privileges; pick "
        + "a port from 1024 up with --port."
    case .notAnAddressOfThisMachine:
      return "\(host) is not an address of this machine: pass one of its "
        + "addresses with --host (127.0.0.1, ::1, or 0.0.0.0 for every interface)."
    case .unknownHost:
      return "cannot resolve the host '\(self.host)': pass an IP address or a name this machine "
        + "resolves with --host (e.g. 127.0.0.1 or ::1)."
    }
  }

  /// The sentence for the terminal.
  public var description: String { message }
}

extension ServerConfiguration {
  /// A host as it stands in a URL: an IPv6 address in brackets (`[::1]`).
  public static func urlHost(_ host: String) -> String {
    host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
  }
}
