import Foundation

/// Announces a Wyoming service as `_wyoming._tcp` over mDNS/DNS-SD, the way Home Assistant
/// discovers Wyoming services, through the Avahi daemon.
///
/// Avahi's client library (`libavahi-client.so.3`) is loaded at run time, so building needs
/// neither it nor its headers, and a machine without it still serves (with a warning). The
/// announcement lives as long as this value: Avahi's own thread keeps it registered, and the
/// daemon drops it when the process exits.
///
/// ```swift
/// switch ZeroconfAnnouncement.announce(name: "kitchen", port: 10300) {
/// case .success(let announcement): keep(announcement)
/// case .failure(let problem): print("warning: \(problem.message)")
/// }
/// ```
final class ZeroconfAnnouncement: @unchecked Sendable {
  /// The DNS-SD service type Home Assistant browses for.
  static let serviceType = "_wyoming._tcp"

  /// Why nothing was announced, in a line that says what to do.
  struct Problem: Error, Equatable {
    var message: String
  }

  private let library: AvahiLibrary
  private let poll: OpaquePointer
  private let client: OpaquePointer

  private init(library: AvahiLibrary, poll: OpaquePointer, client: OpaquePointer) {
    self.library = library
    self.poll = poll
    self.client = client
  }

  deinit {
    // Stopping the poll thread first: the client is then only touched here.
    _ = library.threadedPollStop(poll)
    library.clientFree(client)
    library.threadedPollFree(poll)
  }

  /// Registers `name` for `port` with the Avahi daemon.
  static func announce(name: String, port: Int) -> Result<ZeroconfAnnouncement, Problem> {
    let fallback = " Home Assistant will not discover it: add it by host and port instead."
    guard let library = AvahiLibrary.load() else {
      return .failure(
        Problem(
          message: "zeroconf: Avahi's client library (libavahi-client.so.3) is not installed "
            + "(apt-get install libavahi-client3 avahi-daemon); not announced.\(fallback)"))
    }
    guard let poll = library.threadedPollNew(), let api = library.threadedPollGet(poll) else {
      return .failure(Problem(message: "zeroconf: Avahi could not start; not announced."))
    }
    var error: Int32 = 0
    // Flags 0: fail at once when no daemon answers, rather than wait for one.
    guard let client = library.clientNew(api, 0, { _, _, _ in }, nil, &error) else {
      library.threadedPollFree(poll)
      return .failure(
        Problem(
          message: "zeroconf: no Avahi daemon answers (\(library.describe(error))): start "
            + "avahi-daemon to be discovered; not announced.\(fallback)"))
    }
    let announcement = ZeroconfAnnouncement(library: library, poll: poll, client: client)
    guard let group = library.entryGroupNew(client, { _, _, _ in }, nil) else {
      return .failure(
        Problem(
          message: "zeroconf: Avahi refused the announcement ("
            + "\(library.describe(library.clientErrno(client)))); not announced.\(fallback)"))
    }
    // Any interface and protocol (-1), no flags, the default domain and host name.
    var result = library.entryGroupAddService(
      group, -1, -1, 0, name, serviceType, nil, nil, UInt16(clamping: port), nil)
    if result >= 0 { result = library.entryGroupCommit(group) }
    guard result >= 0 else {
      return .failure(
        Problem(
          message: "zeroconf: Avahi refused to announce '\(name)' (\(library.describe(result)))"
            + "; pick another name with --zeroconf NAME.\(fallback)"))
    }
    guard library.threadedPollStart(poll) >= 0 else {
      return .failure(Problem(message: "zeroconf: Avahi's thread could not start; not announced."))
    }
    return .success(announcement)
  }
}

/// The few functions of Avahi's client library an announcement needs, looked up at run time.
private struct AvahiLibrary {
  typealias ClientCallback =
    @convention(c) (OpaquePointer?, Int32, UnsafeMutableRawPointer?) ->
    Void
  typealias GroupCallback =
    @convention(c) (OpaquePointer?, Int32, UnsafeMutableRawPointer?) ->
    Void

  let threadedPollNew: @convention(c) () -> OpaquePointer?
  let threadedPollGet: @convention(c) (OpaquePointer) -> OpaquePointer?
  let threadedPollStart: @convention(c) (OpaquePointer) -> Int32
  let threadedPollStop: @convention(c) (OpaquePointer) -> Int32
  let threadedPollFree: @convention(c) (OpaquePointer) -> Void
  let clientNew:
    @convention(c) (
      OpaquePointer, Int32, ClientCallback, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>
    ) -> OpaquePointer?
  let clientFree: @convention(c) (OpaquePointer) -> Void
  let clientErrno: @convention(c) (OpaquePointer) -> Int32
  let entryGroupNew:
    @convention(c) (OpaquePointer, GroupCallback, UnsafeMutableRawPointer?) -> OpaquePointer?
  let entryGroupAddService:
    @convention(c) (
      OpaquePointer, Int32, Int32, Int32, UnsafePointer<CChar>, UnsafePointer<CChar>,
      UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt16, OpaquePointer?
    ) -> Int32
  let entryGroupCommit: @convention(c) (OpaquePointer) -> Int32
  let strerror: @convention(c) (Int32) -> UnsafePointer<CChar>?

  /// The library, or `nil` when it or one of its functions is missing.
  static func load() -> AvahiLibrary? {
    // Loaded once and never closed: the functions must outlive every announcement.
    guard let handle = dlopen("libavahi-client.so.3", RTLD_NOW | RTLD_LOCAL) else { return nil }
    func symbol<T>(_ name: String, as type: T.Type) -> T? {
      dlsym(handle, name).map { unsafeBitCast($0, to: type) }
    }
    guard
      let threadedPollNew = symbol(
        "avahi_threaded_poll_new", as: (@convention(c) () -> OpaquePointer?).self),
      let threadedPollGet = symbol(
        "avahi_threaded_poll_get",
        as: (@convention(c) (OpaquePointer) -> OpaquePointer?).self),
      let threadedPollStart = symbol(
        "avahi_threaded_poll_start", as: (@convention(c) (OpaquePointer) -> Int32).self),
      let threadedPollStop = symbol(
        "avahi_threaded_poll_stop", as: (@convention(c) (OpaquePointer) -> Int32).self),
      let threadedPollFree = symbol(
        "avahi_threaded_poll_free", as: (@convention(c) (OpaquePointer) -> Void).self),
      let clientNew = symbol(
        "avahi_client_new",
        as: (@convention(c) (
          OpaquePointer, Int32, ClientCallback, UnsafeMutableRawPointer?,
          UnsafeMutablePointer<Int32>
        ) -> OpaquePointer?).self),
      let clientFree = symbol(
        "avahi_client_free", as: (@convention(c) (OpaquePointer) -> Void).self),
      let clientErrno = symbol(
        "avahi_client_errno", as: (@convention(c) (OpaquePointer) -> Int32).self),
      let entryGroupNew = symbol(
        "avahi_entry_group_new",
        as: (@convention(c) (OpaquePointer, GroupCallback, UnsafeMutableRawPointer?) ->
          OpaquePointer?).self),
      let entryGroupAddService = symbol(
        "avahi_entry_group_add_service_strlst",
        as: (@convention(c) (
          OpaquePointer, Int32, Int32, Int32, UnsafePointer<CChar>, UnsafePointer<CChar>,
          UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt16, OpaquePointer?
        ) -> Int32).self),
      let entryGroupCommit = symbol(
        "avahi_entry_group_commit", as: (@convention(c) (OpaquePointer) -> Int32).self),
      let strerror = symbol(
        "avahi_strerror", as: (@convention(c) (Int32) -> UnsafePointer<CChar>?).self)
    else { return nil }
    return AvahiLibrary(
      threadedPollNew: threadedPollNew, threadedPollGet: threadedPollGet,
      threadedPollStart: threadedPollStart, threadedPollStop: threadedPollStop,
      threadedPollFree: threadedPollFree, clientNew: clientNew, clientFree: clientFree,
      clientErrno: clientErrno, entryGroupNew: entryGroupNew,
      entryGroupAddService: entryGroupAddService, entryGroupCommit: entryGroupCommit,
      strerror: strerror)
  }

  /// Avahi's words for an error code.
  func describe(_ error: Int32) -> String {
    strerror(error).map { String(cString: $0) } ?? "error \(error)"
  }
}
