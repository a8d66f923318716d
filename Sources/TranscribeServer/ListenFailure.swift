import Foundation
import NIOCore

extension TranscriptionServer {
  /// Why the server could not listen on `host`:`port`, in a sentence that names the fix; `nil`
  /// when `error` is not about listening.
  public static func listenFailure(_ error: any Error, host: String, port: Int) -> String? {
    let address = "\(displayHost(host)):\(port)"
    if let error = error as? IOError {
      switch error.errnoCode {
      case EADDRINUSE:
        return "\(address) is already in use by another program: stop it, or pick another "
          + "port with --port (--port 0 takes any free one)."
      case EACCES:
        return "no permission to listen on \(address): ports below 1024 need privileges; pick "
          + "a port from 1024 up with --port."
      case EADDRNOTAVAIL:
        return "\(displayHost(host)) is not an address of this machine: pass one of its "
          + "addresses with --host (127.0.0.1, ::1, or 0.0.0.0 for every interface)."
      default:
        return nil
      }
    }
    if error is SocketAddressError || error is SocketAddressError.UnknownHost {
      return "cannot resolve the host '\(host)': pass an IP address or a name this machine "
        + "resolves with --host (e.g. 127.0.0.1 or ::1)."
    }
    return nil
  }

  /// A host as it stands in a URL: an IPv6 address in brackets (`[::1]`).
  public static func displayHost(_ host: String) -> String {
    host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
  }
}
