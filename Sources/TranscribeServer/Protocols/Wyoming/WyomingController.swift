/// Home Assistant's Wyoming protocol: one ``WyomingListener`` per `--wyoming` address, each
/// serving its connections as ``WyomingConnection``s over the session core (admission,
/// limits, recognizers, readiness, metrics, shutdown), like every other protocol.
struct WyomingController: Sendable {
  let core: SessionCore

  /// The listeners as services, each calling `onListening` once it listens.
  func listeners(
    onListening: @escaping @Sendable (WyomingAddress) async -> Void
  ) -> [WyomingListener] {
    core.configuration.wyoming.listeners.map {
      WyomingListener(core: core, address: $0, onListening: onListening)
    }
  }
}
