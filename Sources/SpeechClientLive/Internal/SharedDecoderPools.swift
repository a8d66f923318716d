import ConcurrencyExtras
import PocketSphinx

/// The decoder pools of the process, one per decoder configuration and size, kept for the life
/// of the process so every file, batch and session with the same model reuses loaded decoders.
enum SharedDecoderPools {
  private static let pools = LockIsolated<[DecoderPool]>([])

  /// The pool for `configuration` with `size` workers, created on first use.
  static func pool(for configuration: DecoderConfiguration, size: Int) -> DecoderPool {
    pools.withValue { pools in
      if let pool = pools.first(where: { $0.configuration == configuration && $0.size == size }) {
        return pool
      }
      let pool = DecoderPool(configuration: configuration, size: size)
      pools.append(pool)
      return pool
    }
  }
}
