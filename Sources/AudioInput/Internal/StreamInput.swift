import CSndFile
import Foundation

/// A stream that may stall (a pipe, a FIFO, standard input), presented to libsndfile as a file
/// through its virtual I/O, so that both stalls and format detection work.
///
/// libsndfile's own pipe support reads with blocking `read`s, which nothing can interrupt when
/// the writer goes quiet, and it cannot open FLAC from a pipe (its decoder seeks back to the
/// start after detecting the format). Here every read goes through ``InterruptibleReader``,
/// which returns the end of the stream as soon as the stop signal is raised, and the first
/// ``retainedLimit`` bytes are kept so libsndfile can seek back into the headers. Seeking
/// forward reads and drops; seeking back past the kept bytes fails.
final class StreamInput {
  private let reader: InterruptibleReader
  /// The stream's first bytes, for seeks back into the headers.
  private var retained: [UInt8] = []
  /// The logical position libsndfile reads at.
  private var position = 0
  /// How many bytes have been taken from the stream.
  private var streamed = 0
  /// Why reading failed, if it did.
  private(set) var failure: String?

  /// How many bytes from the start are kept.
  static let retainedLimit = 1 << 20
  /// The length reported to libsndfile: a stream's is unknown, so "longer than any input".
  static let unknownLength: sf_count_t = 1 << 50

  /// Reads `descriptor` (which this closes when released) until its end or a stop.
  init(descriptor: Int32, stopSignal: StopSignal?) {
    reader = InterruptibleReader(
      descriptor: descriptor, stopSignals: stopSignal.map { [$0] } ?? [])
  }

  deinit {
    close(reader.descriptor)
  }

  /// The callbacks for `sf_open_virtual`; their user data is an unretained `StreamInput`.
  static var virtualIO: SF_VIRTUAL_IO {
    SF_VIRTUAL_IO(
      get_filelen: { _ in StreamInput.unknownLength },
      seek: { offset, whence, userData in
        guard let userData else { return -1 }
        return sf_count_t(
          StreamInput.from(userData).seek(to: Int(offset), whence: whence))
      },
      read: { buffer, count, userData in
        guard let userData, let buffer else { return 0 }
        return sf_count_t(
          StreamInput.from(userData).read(
            into: UnsafeMutableRawBufferPointer(start: buffer, count: Int(count))))
      },
      write: { _, _, _ in 0 },
      tell: { userData in
        guard let userData else { return -1 }
        return sf_count_t(StreamInput.from(userData).position)
      })
  }

  private static func from(_ userData: UnsafeMutableRawPointer) -> StreamInput {
    Unmanaged<StreamInput>.fromOpaque(userData).takeUnretainedValue()
  }

  /// Fills `buffer` from the kept bytes, then the stream; fewer bytes only at its end.
  func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
    guard let base = buffer.baseAddress else { return 0 }
    var done = 0
    if position < streamed {
      // Re-reading what was read before: only the kept bytes can be.
      let count = min(buffer.count, retained.count - position)
      guard count > 0 else { return 0 }
      retained.withUnsafeBytes { kept in
        if let start = kept.baseAddress {
          base.copyMemory(from: start + position, byteCount: count)
        }
      }
      position += count
      done = count
      if position < streamed { return done }
    }
    while done < buffer.count {
      let count: Int
      do throws(InterruptibleReader.Failure) {
        count = try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
      } catch {
        failure = error.reason
        break
      }
      if count == 0 { break }
      if streamed < Self.retainedLimit {
        let kept = min(count, Self.retainedLimit - streamed)
        retained.append(contentsOf: UnsafeRawBufferPointer(start: base + done, count: kept))
      }
      streamed += count
      position += count
      done += count
    }
    return done
  }

  /// Moves the read position; -1 when it cannot go there.
  ///
  /// Seeking ahead reads and drops, but only up to ``skipLimit``: libsndfile skips small header
  /// chunks that way, and it also seeks past a WAV file's whole data chunk to look for chunks
  /// after it, which on a stream would mean waiting for all of it (and then failing to seek
  /// back). Refused, it reads on from where it was.
  func seek(to offset: Int, whence: Int32) -> Int {
    let target: Int
    switch whence {
    case SEEK_SET: target = offset
    case SEEK_CUR: target = position + offset
    default: return -1  // the end of a stream is unknown
    }
    guard target >= 0 else { return -1 }
    if target <= streamed {
      guard target <= retained.count || target == streamed else { return -1 }
      position = target
      return position
    }
    guard target - streamed <= Self.skipLimit else { return -1 }
    var scratch = [UInt8](repeating: 0, count: 16_384)
    position = streamed
    while position < target {
      let wanted = min(scratch.count, target - position)
      let count = scratch.withUnsafeMutableBytes {
        read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<wanted]))
      }
      // The stream ended first: the position stays at its end.
      if count < wanted { return -1 }
    }
    return position
  }

  /// The farthest ahead of the stream a seek may go by reading and dropping.
  static let skipLimit = 1 << 16
}
