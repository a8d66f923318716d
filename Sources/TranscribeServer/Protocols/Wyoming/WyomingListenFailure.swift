import Foundation
import NIOCore

/// Why a Wyoming listener could not listen, in a sentence that names the fix.
public struct WyomingListenFailure: Error, Equatable, Sendable {
  /// The address that could not be used.
  public var address: WyomingAddress
  /// What went wrong and what to do.
  public var message: String

  /// The failure to listen on `address` with `error`.
  init(_ error: any Error, address: WyomingAddress) {
    self.address = address
    let fix =
      switch address {
      case .tcp: "pick another port in --wyoming (tcp://HOST:0 takes any free one)"
      case .unix: "pick another path in --wyoming (unix://PATH)"
      }
    let errno = (error as? IOError)?.errnoCode
    message =
      switch errno {
      case EADDRINUSE?: "\(address) is already in use by another program: stop it, or \(fix)."
      case EACCES?:
        "no permission to listen on \(address): ports below 1024 need privileges and socket "
          + "files a writable directory; \(fix)."
      case EADDRNOTAVAIL?:
        "\(address) names no address of this machine: use one of its addresses (127.0.0.1, "
          + "::1, or 0.0.0.0 for every interface)."
      case ENOENT?: "the directory of \(address) does not exist: create it, or \(fix)."
      default:
        if error is SocketAddressError || error is SocketAddressError.UnknownHost {
          "cannot resolve the host of \(address): use an IP address or a name this machine "
            + "resolves (e.g. tcp://0.0.0.0:10300)."
        } else {
          "cannot listen on \(address) (\(error)): \(fix)."
        }
      }
  }
}
